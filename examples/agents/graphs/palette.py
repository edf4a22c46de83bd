"""A LangGraph graph of one's own, served by ``palette.yaml`` (``graph: ./graphs/palette.py:graph``).

It asks which colour to start from with LangGraph's ``interrupt()``: runyard sends the question
as a ``confirmation-request`` and resumes the graph with the answer (``{"approved": true,
"userInput": "teal"}`` makes ``interrupt()`` return ``"teal"``; docs/langgraph.md). Then it
replies with a palette. It calls no model, so it runs offline; a graph of yours would call any
LangChain chat model here.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt


class Palette(MessagesState):
    colour: str


def ask(state: Palette) -> dict[str, str]:
    answer = interrupt("Which colour should the palette start from?")
    return {"colour": str(answer).strip() or "teal"}


def paint(state: Palette) -> dict[str, list[AIMessage]]:
    colour = state["colour"]
    return {
        "messages": [
            AIMessage(f"A palette around {colour}: pale {colour}, {colour}, deep {colour}.")
        ]
    }


builder = StateGraph(Palette)
builder.add_node("ask", ask)
builder.add_node("paint", paint)
builder.add_edge(START, "ask")
builder.add_edge("ask", "paint")
builder.add_edge("paint", END)
graph = builder.compile()
