"""A catalog of LangGraph agents for the face, gRPC and browser tests: ``assistant`` is a
``runtime: langchain`` agent (``create_agent`` over runyard's demo model, scripted by the message
as every face test's assistant is) with a tool and a tool that asks for approval; ``researcher``
is a custom ``graph:`` in a file beside the catalog that streams a LangChain model's text, then
hands over to a subgraph that writes a status line and answers with text and an image;
``plain`` is ``assistant`` on runyard's own loop, to compare with.
"""

from __future__ import annotations

import base64
from pathlib import Path

from runyard.models.demo_script import demo_png

__all__ = ["ANSWER", "PNG", "write_langgraph_catalog"]

_CATALOG = """\
kind: agent
id: assistant
runtime: langchain
model: runyard:demo
instructions: Answer briefly.
tools: [calculator, save_note]
---
kind: agent
id: researcher
description: A graph of one's own, with a subgraph.
graph: ./graphs.py:graph
---
kind: agent
id: plain
description: The same agent on runyard's own loop, to compare with.
model: runyard:demo
instructions: Answer briefly.
tools: [calculator, save_note]
---
kind: routing
default_agent: assistant
"""

_GRAPHS = '''\
"""A parent graph that answers with a LangChain model, then hands over to a subgraph."""

import base64

from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, MessagesState, StateGraph

from runyard.models.demo_script import demo_png


def chain(*nodes):
    builder = StateGraph(MessagesState)
    previous = START
    for name, node in nodes:
        builder.add_node(name, node)
        builder.add_edge(previous, name)
        previous = name
    builder.add_edge(previous, END)
    return builder.compile()


async def look(state):
    asked = state["messages"][-1].text
    model = GenericFakeChatModel(messages=iter([AIMessage(f"Looking into {asked}. ")]))
    return {"messages": [await model.ainvoke(state["messages"])]}


def read(state):
    get_stream_writer()("Reading sources")
    png = base64.b64encode(demo_png()).decode()
    found = [{"type": "text", "text": "Found it."}, {"type": "image", "base64": png, "mime_type": "image/png"}]
    return {"messages": [AIMessage(content=found)]}


graph = chain(("look", look), ("reader", chain(("read", read))))
'''

ANSWER = "Looking into the capital. Found it."
"""``researcher``'s answer to "the capital": its own text, then what its subgraph handed back."""

PNG = base64.b64encode(demo_png()).decode()
"""The image ``researcher``'s subgraph answers with, as base64."""


def write_langgraph_catalog(directory: Path) -> str:
    """Write the catalog and its graph file into ``directory`` (made); its path."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "agents.yaml").write_text(_CATALOG)
    (directory / "graphs.py").write_text(_GRAPHS)
    return str(directory)
