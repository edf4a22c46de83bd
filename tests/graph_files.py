"""Graph files the catalog tests serve: ``graph`` replies ``REPLY``; ``number``, ``boom`` (a
factory that raises) and ``wrong`` (a factory returning no graph) are what no catalog can serve."""

GRAPHS = """\
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph


def reply(state: MessagesState) -> dict:
    return {"messages": [AIMessage("REPLY")]}


builder = StateGraph(MessagesState)
builder.add_node("reply", reply)
builder.add_edge(START, "reply")
builder.add_edge("reply", END)
graph = builder.compile()
number = 42


def boom():
    raise RuntimeError("no model key")


def wrong():
    return 42
"""
