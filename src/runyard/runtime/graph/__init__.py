"""LangGraph agents on runyard's runtime (the ``langgraph`` extra): ``GraphRuntime`` drives a
graph as a run segment; ``AgentGraph`` / ``CustomGraph`` say which graph; ``RunyardChatModel``
is runyard's model layer as a LangChain chat model; ``RunyardTool`` a runyard tool as a
LangChain tool. Importing this imports LangGraph and LangChain."""

from runyard.runtime.graph.chat_model import RunyardChatModel
from runyard.runtime.graph.questions import INTERRUPT_TOOL, graph_answer, is_graph_question
from runyard.runtime.graph.runtime import GraphRuntime, GraphSource
from runyard.runtime.graph.sources import AgentGraph, CustomGraph, GraphFactory
from runyard.runtime.graph.tools import RunyardTool, langchain_tools

__all__ = [
    "INTERRUPT_TOOL",
    "AgentGraph",
    "CustomGraph",
    "GraphFactory",
    "GraphRuntime",
    "GraphSource",
    "RunyardChatModel",
    "RunyardTool",
    "graph_answer",
    "is_graph_question",
    "langchain_tools",
]
