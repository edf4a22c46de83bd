"""The secret values a server knows at start-up: its settings' and its environment's.

- ``RUNYARD_ADMIN_TOKEN`` and ``RUNYARD_METRICS_TOKEN``;
- the passwords of ``RUNYARD_DATABASE_URL`` and ``RUNYARD_REDIS_URL`` (as written and
  percent-decoded; a user name is not a secret);
- every environment variable whose name says it holds a credential (``SECRET_ENV_NAME``):
  ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``AWS_SECRET_ACCESS_KEY``, ``HF_TOKEN``,
  ``PGPASSWORD``, …
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from runyard.redaction.redactor import SecretRedactor

if TYPE_CHECKING:
    from runyard.config import Settings

__all__ = ["SECRET_ENV_NAME", "known_secrets", "server_redactor", "url_secrets"]

SECRET_ENV_NAME = re.compile(
    r"(?:API_?KEY|ACCESS_KEY|SECRET|SECRET_KEY|TOKEN|PASSWORD|PASSWD|PASS|CREDENTIALS)$",
    re.IGNORECASE,
)
"""Environment variables whose names end like this hold secrets (their values are redacted)."""


def url_secrets(url: str) -> set[str]:
    """The password of ``url``, as written and percent-decoded; empty when it has none."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        return set()
    password = netloc.rpartition("@")[0].partition(":")[2] if "@" in netloc else ""
    return {password, unquote(password)} if password else set()


def known_secrets(settings: Settings, environ: Mapping[str, str] | None = None) -> set[str]:
    """Every secret value ``settings`` and ``environ`` (default ``os.environ``) hold."""
    env = os.environ if environ is None else environ
    found = {value for name, value in env.items() if SECRET_ENV_NAME.search(name) and value}
    found.update(
        token
        for token in (settings.admin_token, settings.metrics_token, settings.catalog_source_key)
        if token
    )
    for url in (settings.database_url, settings.redis_url):
        found.update(url_secrets(url))
    return found


def server_redactor(settings: Settings, environ: Mapping[str, str] | None = None) -> SecretRedactor:
    """The redactor of a server: the known secrets, the built-in shapes and the operator's
    ``RUNYARD_REDACT_PATTERNS``."""
    return SecretRedactor(known_secrets(settings, environ), settings.redact_patterns)
