"""The committed generated code is what ``make proto`` makes of the proto today."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_grpc_code_matches_the_proto(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("generate", ROOT / "proto" / "generate.py")
    assert spec is not None
    assert spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)

    made = generate.generate(tmp_path)

    committed = ROOT / "src" / "runyard" / "grpc" / "v1"
    stale = [p.name for p in made if p.read_text() != (committed / p.name).read_text()]
    assert stale == [], f"run `make proto`: {stale} differ from proto/runyard/v1"
