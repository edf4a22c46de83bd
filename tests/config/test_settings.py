from __future__ import annotations

from pathlib import Path

import pytest

from runyard.config import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_the_defaults_are_the_documented_ones() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.database_url == "sqlite:///runyard.db"
    assert (settings.last_messages, settings.semantic_recall_top_k) == (20, 5)
    assert (settings.observer_message_tokens, settings.reflector_observation_tokens) == (
        30_000,
        40_000,
    )
    assert (settings.host, settings.port) == ("127.0.0.1", 8400)


def test_settings_come_from_runyard_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUNYARD_LAST_MESSAGES", "7")
    monkeypatch.setenv("RUNYARD_DATABASE_URL", "postgresql://db/runyard")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.last_messages, settings.database_url) == (7, "postgresql://db/runyard")


def test_a_bad_value_is_refused_with_the_setting_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUNYARD_PORT", "not-a-port")
    with pytest.raises(ValueError, match="port"):
        Settings(_env_file=None)  # type: ignore[call-arg]


def test_every_setting_is_documented_with_its_default() -> None:
    doc = DOC.read_text()
    for name, field in Settings.model_fields.items():
        row = next((line for line in doc.splitlines() if f"`RUNYARD_{name.upper()}`" in line), "")
        assert row, f"RUNYARD_{name.upper()} is missing from docs/configuration.md"
        default = field.default if field.default != "" else "empty"
        assert f"| `{default}` |" in row or f"| {default} |" in row, row
