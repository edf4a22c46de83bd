"""The AG-UI face: ``POST /agui/{agentId}`` runs an agent for an AG-UI client (``HttpAgent``,
CopilotKit) and streams the run as AG-UI events (docs/faces.md, "AG-UI")."""

from runyard.faces.agui.route import router

__all__ = ["router"]
