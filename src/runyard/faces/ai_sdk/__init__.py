"""The Vercel AI SDK face: ``POST /ai-sdk/{agentId}`` answers ``useChat`` with the UI message
stream protocol (docs/faces.md, "Vercel AI SDK")."""

from runyard.faces.ai_sdk.route import router

__all__ = ["router"]
