"""``ForwardingStore``: a ``Store`` that hands every call to another one, unchanged.

The base of a store that changes a few calls and passes the rest on (the service's
``RedactingStore``, a test's recorder). Its forwarders are made from the ``Store`` protocol when
this module loads, so a member the protocol gains is forwarded with no edit here.

The type checker cannot see members made at run time; it sees ``__getattr__`` instead, so
``ForwardingStore`` is a ``Store`` wherever one is expected, and the methods a subclass writes
out are checked against the protocol there (``store: Store = RedactingStore(...)``).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, TypeVar

from typing_extensions import get_protocol_members

from runyard.storage.protocol import Store

__all__ = ["ForwardingStore"]

_C = TypeVar("_C", bound=type)


def _forwarding_every_store_member(cls: _C) -> _C:
    for name in get_protocol_members(Store):
        setattr(cls, name, _forwarder(cls.__qualname__, name))
    return cls


def _forwarder(owner: str, name: str) -> object:
    """``Store.<name>`` as a member that asks ``self.inner``: a property or a coroutine method."""
    member = inspect.getattr_static(Store, name)
    if isinstance(member, property):
        return property(lambda self: getattr(self.inner, name), doc=member.__doc__)

    async def forward(self: ForwardingStore, /, *args: Any, **kwargs: Any) -> Any:
        return await getattr(self.inner, name)(*args, **kwargs)

    forward.__name__, forward.__qualname__ = name, f"{owner}.{name}"
    forward.__doc__ = member.__doc__
    return forward


@_forwarding_every_store_member
class ForwardingStore:
    """Every ``Store`` call passed to ``inner`` as it came; a subclass overrides what it changes."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    if TYPE_CHECKING:
        # Stands in, for the type checker only, for the forwarders set by the decorator.
        def __getattr__(self, name: str) -> Any: ...
