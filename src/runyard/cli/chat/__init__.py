"""``runyard chat``: the terminal client — SSE parsing, reconnecting feed, live agent tree, prompts."""

from runyard.cli.chat.client import ChatClient, Connection, ServerError
from runyard.cli.chat.command import chat
from runyard.cli.chat.feed import EventFeed, FeedError, ReceivedEvent, RetryPolicy
from runyard.cli.chat.message_input import MessageReader
from runyard.cli.chat.session import ChatSession
from runyard.cli.chat.sse import SSEFrame, SSEParser

__all__ = [
    "ChatClient",
    "ChatSession",
    "Connection",
    "EventFeed",
    "FeedError",
    "MessageReader",
    "ReceivedEvent",
    "RetryPolicy",
    "SSEFrame",
    "SSEParser",
    "ServerError",
    "chat",
]
