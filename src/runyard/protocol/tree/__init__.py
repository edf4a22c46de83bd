"""The agent activity tree rebuilt from wire events: the root orchestrator and its sub-agents."""

from runyard.protocol.tree.builder import AgentTreeBuilder, build_agent_tree, build_agent_trees
from runyard.protocol.tree.node import (
    AgentNode,
    AgentToolCall,
    TimelineChild,
    TimelineContent,
    TimelineEntry,
    TimelineReasoning,
    TimelineText,
    TimelineToolCall,
)

__all__ = [
    "AgentNode",
    "AgentToolCall",
    "AgentTreeBuilder",
    "TimelineChild",
    "TimelineContent",
    "TimelineEntry",
    "TimelineReasoning",
    "TimelineText",
    "TimelineToolCall",
    "build_agent_tree",
    "build_agent_trees",
]
