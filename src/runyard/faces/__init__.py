"""The faces: one package per foreign protocol (OpenAI-compatible, AG-UI, the Vercel AI SDK UI
message stream, MCP, LangGraph Server's API), each a thin mapping over the service's runs, approvals and event log —
never a second runtime. ``runyard.http`` mounts them, handing each a ``FaceWiring``; a face
never imports ``runyard.http`` (docs/faces.md)."""

from runyard.faces.wiring import FaceWiring

__all__ = ["FaceWiring"]
