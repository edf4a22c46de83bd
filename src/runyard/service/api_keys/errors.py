"""What issuing an API key refuses."""

from __future__ import annotations

from runyard.service.errors import ServiceError

__all__ = ["InvalidKeyRequest"]


class InvalidKeyRequest(ServiceError, ValueError):
    """A field of a new key is not acceptable; ``field`` names it, nothing was stored."""

    code = "invalid_key_request"

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem
