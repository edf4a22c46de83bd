"""A chat graph for ``langgraph dev`` that needs no network: ``create_agent`` over LangChain's
``GenericFakeChatModel``, answering every message with the same words, streamed token by token.
The LangGraph client script runs against it, and against runyard (test_langgraph_client_script)."""

from itertools import count

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

# A new message each time: the model gives a message its id, and one object repeated would
# keep one id, which LangGraph's message list merges into a single message.
replies = (AIMessage(content="hello from the fake model") for _ in count())
model = GenericFakeChatModel(messages=replies)
agent = create_agent(model, tools=[])
