"""The OpenAI-compatible face: ``/openai/v1`` answers the ``openai`` client's ``models.list`` and
``chat.completions.create`` over runyard's runs, with OpenAI's error envelope (docs/faces.md,
"OpenAI-compatible")."""

from runyard.faces.openai.error_envelope import openai_error
from runyard.faces.openai.route import PREFIX, router

__all__ = ["PREFIX", "openai_error", "router"]
