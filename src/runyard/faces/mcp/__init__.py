"""The MCP server face: each of the caller's agents as a tool of an MCP server over streamable
HTTP at ``/mcp`` (docs/faces.md, MCP). Only ``route`` is imported with the app; the modules that
import the ``mcp`` package load on the first ``/mcp`` request."""

from runyard.faces.mcp.route import MCP_PATH, McpFace

__all__ = ["MCP_PATH", "McpFace"]
