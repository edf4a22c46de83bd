"""``catalog_secrets``: the credentials a catalog's tool specs hold, so logs and events never
show them (the ``headers`` of ``http_request`` and ``mcp`` tools, an ``mcp`` server's ``env``).

Only values under a name that says it is a credential count (``SECRET_HEADER``): a header such
as ``Accept: application/json`` must not blank every mention of JSON.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from runyard.redaction import SECRET_ENV_NAME
from runyard.registry import Catalog

__all__ = ["SECRET_HEADER", "catalog_secrets"]

SECRET_HEADER = re.compile(
    r"authorization|cookie|token|secret|key|password|credential|session|auth", re.IGNORECASE
)
"""Header names whose values are credentials."""


def catalog_secrets(catalog: Catalog) -> set[str]:
    """Every credential value in the parameters of the catalog's tools."""
    return {
        value for entry in catalog.tools.values() for value in _tool_secrets(entry.spec.parameters)
    }


def _tool_secrets(parameters: Mapping[str, object]) -> Iterator[str]:
    yield from _named(parameters.get("headers"), SECRET_HEADER)
    yield from _named(parameters.get("env"), SECRET_ENV_NAME)


def _named(values: object, secret_name: re.Pattern[str]) -> Iterator[str]:
    if not isinstance(values, Mapping):
        return
    for name, value in values.items():
        if isinstance(name, str) and isinstance(value, str) and secret_name.search(name):
            yield value
            # "Bearer X": X alone is as secret (a log may print it without the scheme).
            scheme, _, credential = value.partition(" ")
            if credential and scheme.lower() in {"bearer", "basic", "token"}:
                yield credential
