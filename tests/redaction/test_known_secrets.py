"""What a server knows to be secret: its admin token, the passwords of its URLs, and every
environment variable named like a credential."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from runyard.config import Settings
from runyard.redaction import REDACTED, known_secrets, server_redactor, url_secrets


def test_the_settings_and_the_environment_name_the_secrets() -> None:
    settings = Settings(
        admin_token="admin-token-1",
        database_url="postgresql://app:db%40pass@db/x",
        redis_url="rediss://:redis-pass@cache:6380/0",
    )
    environ = {
        "OPENAI_API_KEY": "sk-openai-1",
        "ANTHROPIC_API_KEY": "anthropic-1",
        "AWS_SECRET_ACCESS_KEY": "aws-secret-1",
        "HF_TOKEN": "hf-token-1",
        "PGPASSWORD": "pg-pass-1",
        "HOME": "/root",
        "RUNYARD_MODEL": "openai:gpt-4o",
        "EMPTY_TOKEN": "",
    }
    assert known_secrets(settings, environ) == {
        "admin-token-1",
        "db%40pass",
        "db@pass",
        "redis-pass",
        "sk-openai-1",
        "anthropic-1",
        "aws-secret-1",
        "hf-token-1",
        "pg-pass-1",
    }


@pytest.mark.parametrize(
    ("url", "secrets"),
    [
        ("postgresql://postgres@127.0.0.1/test", set()),
        ("postgresql://u:pw-123@h/d", {"pw-123"}),
        ("redis://:a%2Fb-pass@h:6379/0", {"a%2Fb-pass", "a/b-pass"}),
        ("sqlite:///runyard.db", set()),
        ("redis://127.0.0.1:6379/0", set()),
    ],
)
def test_a_url_gives_its_password_not_its_user(url: str, secrets: set[str]) -> None:
    assert url_secrets(url) == secrets


def test_the_server_redactor_knows_values_shapes_and_the_operator_patterns() -> None:
    settings = Settings(admin_token="admin-token-1", redact_patterns=[r"acme-\d{4}"])
    redactor = server_redactor(settings, {"MISTRAL_API_KEY": "mistral-key-1"})
    text = "admin-token-1 mistral-key-1 acme-1234 Bearer abcdefgh12"
    assert redactor.redact(text) == " ".join([REDACTED] * 3 + ["Bearer", REDACTED])


def test_a_pattern_that_does_not_compile_is_a_settings_error_naming_it() -> None:
    with pytest.raises(ValidationError, match="redact_patterns"):
        Settings(redact_patterns=["(unclosed"])
