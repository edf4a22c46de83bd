"""The top-level package is the public SDK: everything in __all__ imports, nothing public is left out."""

from __future__ import annotations

import types

import runyard


def test_every_name_in_all_is_importable_from_runyard() -> None:
    for name in runyard.__all__:
        assert getattr(runyard, name) is not None, name


def test_all_lists_every_public_name_the_package_exposes() -> None:
    exposed = {
        name
        for name, value in vars(runyard).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert exposed == set(runyard.__all__)


def test_the_design_contract_names_are_public() -> None:
    for name in ("Agent", "tool", "Suspend", "ToolContext", "AgentEvent"):
        assert name in runyard.__all__
