"""Working memory: one document per user (or per thread) that the agent rewrites with a tool.

The stored document is shown in the system prompt at run start (only when it has content) and
is not refreshed within a run: an update made by the tool is seen from the next run on.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from runyard.errors import ConfigurationError
from runyard.memory.config import WorkingMemoryConfig
from runyard.runtime import MemoryScope
from runyard.storage import WorkingMemoryTier
from runyard.tools import JsonSchemaValidator, ModelValidator, Tool, ToolContext, Validator

__all__ = ["WORKING_MEMORY_TOOL", "WorkingMemory"]

WORKING_MEMORY_TOOL = "update_working_memory"

_DESCRIPTION = (
    "Replace your persistent working memory with an updated version. Call it only when you "
    "learned something new that should be remembered; the whole document is replaced."
)
_DEFAULT_INSTRUCTION = (
    "You keep a working memory that lasts across conversations; its current state is below.\n"
    f"When you learn something worth remembering, call `{WORKING_MEMORY_TOOL}` with the whole "
    "updated document. Do not call it when nothing new was learned."
)
_DEFAULT_TEMPLATE = "# About the user\n- Name:\n- Preferences:\n- Goals:\n- Open items:\n"
_FREEFORM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "memory": {"type": "string", "description": "The complete updated working memory."}
    },
    "required": ["memory"],
    "additionalProperties": False,
}


class WorkingMemory:
    """Reads, writes and presents the working-memory document of one ``WorkingMemoryConfig``."""

    def __init__(self, store: WorkingMemoryTier, config: WorkingMemoryConfig) -> None:
        self._store = store
        self.config = config
        self._validator = _validator(config.schema)
        self.tool = Tool(
            name=WORKING_MEMORY_TOOL,
            description=_DESCRIPTION,
            function=self._update,
            args_validator=self._validator,
            context_param="ctx",
        )

    @property
    def structured(self) -> bool:
        """True when updates are JSON validated against a schema."""
        return self.config.schema is not None

    async def get(self, scope: MemoryScope) -> str | None:
        """The stored document, or None when there is none yet."""
        doc = await self._store.get_working_memory(
            tenant_id=scope.tenant_id,
            resource_id=scope.resource_id,
            scope=self.config.scope,
            thread_id=scope.thread_id,
        )
        return doc.content if doc is not None else None

    async def set(self, scope: MemoryScope, content: str) -> None:
        """Replace the document."""
        await self._store.save_working_memory(
            content,
            tenant_id=scope.tenant_id,
            resource_id=scope.resource_id,
            scope=self.config.scope,
            thread_id=scope.thread_id,
        )

    async def prompt_block(self, scope: MemoryScope) -> str | None:
        """The system-prompt section showing the document; None while it is empty."""
        content = await self.get(scope)
        if content is None or not content.strip():
            return None
        how = (
            "Pass the complete document as JSON matching the tool's schema."
            if self.structured
            else "Keep the structure of the template and fill in what you learn."
        )
        return (
            "## Working memory\n\n"
            f"{self.config.instruction or _DEFAULT_INSTRUCTION}\n{how}\n\n"
            f"Template:\n```\n{self._template()}\n```\n\n"
            f"Current working memory (private to you):\n```\n{content.strip()}\n```"
        )

    async def _update(self, ctx: ToolContext, **fields: Any) -> dict[str, Any]:
        if not (ctx.thread_id and ctx.resource_id):
            raise ConfigurationError("Working memory needs a thread_id and a resource_id")
        scope = MemoryScope(ctx.thread_id, ctx.resource_id, ctx.tenant_id or "default")
        content = (
            json.dumps(fields, indent=2, default=str) if self.structured else str(fields["memory"])
        )
        await self.set(scope, content)
        return {"success": True, "message": "Working memory updated."}

    def _template(self) -> str:
        if self.config.template is not None:
            return self.config.template.strip()
        if self.structured:
            properties = self._validator.json_schema.get("properties", {})
            return json.dumps(
                {name: spec.get("description", "") for name, spec in properties.items()}, indent=2
            )
        return _DEFAULT_TEMPLATE.strip()


def _validator(schema: type[BaseModel] | dict[str, Any] | None) -> Validator:
    if schema is None:
        return JsonSchemaValidator(_FREEFORM_SCHEMA)
    if isinstance(schema, dict):
        return JsonSchemaValidator(schema).checked()
    return ModelValidator(schema, dump=True)
