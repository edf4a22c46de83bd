"""The agent ``runyard serve`` offers when no catalog is configured: ``assistant`` (DESIGN.md §5)."""

from __future__ import annotations

import logging
import os

from runyard.agent import Agent
from runyard.config import Settings
from runyard.service.catalog.served_memory import served_memory
from runyard.service.tools import (
    await_task,
    calculator,
    delegate,
    list_notes,
    plan,
    save_note,
    task_status,
)
from runyard.storage import Store

__all__ = ["DEFAULT_AGENT", "DEMO_MODEL", "PROVIDER_DEFAULTS", "choose_model", "default_agent"]

logger = logging.getLogger(__name__)

DEFAULT_AGENT = "assistant"
DEMO_MODEL = "runyard:demo"

PROVIDER_DEFAULTS: tuple[tuple[str, str], ...] = (
    ("OPENAI_API_KEY", "openai:gpt-4o-mini"),
    ("ANTHROPIC_API_KEY", "anthropic:claude-3-5-haiku-latest"),
    ("GEMINI_API_KEY", "google:gemini-2.0-flash"),
    ("GOOGLE_API_KEY", "google:gemini-2.0-flash"),
    ("GROQ_API_KEY", "groq:llama-3.3-70b-versatile"),
    ("MISTRAL_API_KEY", "mistral:mistral-small-latest"),
)
"""The model used when ``RUNYARD_MODEL`` is empty: the first provider whose key is set."""

INSTRUCTIONS = """You are runyard's assistant. Answer briefly and exactly.
- Use `calculator` for any arithmetic.
- Use `save_note` to remember something for the user (they approve each note) and `list_notes`
  to read what was saved.
- For work with several steps, write a checklist with `plan` and update it as tasks progress.
- Use `delegate` to hand a self-contained task to a sub-agent with a subset of your tools; with
  `background: true` it works while you go on: follow it with `task_status` or `await_task`."""


def choose_model(settings: Settings) -> str:
    """``RUNYARD_MODEL``, else the first configured provider, else the offline demo model."""
    if settings.model:
        return settings.model
    for variable, model in PROVIDER_DEFAULTS:
        if os.environ.get(variable):
            return model
    logger.warning(
        "No model provider is configured (RUNYARD_MODEL or a provider API key): "
        "serving the offline demo model %s",
        DEMO_MODEL,
    )
    return DEMO_MODEL


def default_agent(store: Store, settings: Settings) -> Agent:
    """``assistant`` with calculator, notes, plan, delegate and its task tools; memory and checkpoints in ``store``.

    Its memory has the tiers ``settings`` ask for (``served_memory``), as the start-up report
    states; whoever closes the agent closes its memory too (``agent.memory.aclose()``).
    """
    return Agent(
        name=DEFAULT_AGENT,
        model=choose_model(settings),
        instructions=INSTRUCTIONS,
        tools=[calculator, list_notes, save_note, plan, delegate, task_status, await_task],
        memory=served_memory(store, settings),
    )
