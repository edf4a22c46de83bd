"""``ServiceParts``: the assembled service as every surface reads it."""

from __future__ import annotations

from typing import Protocol

from runyard.service.agent_choice import AgentDirectory
from runyard.service.catalog.agents import CatalogAgents
from runyard.service.event_log import EventLog
from runyard.service.manager.run_manager import RunManager
from runyard.storage import Store

__all__ = ["ServiceParts"]


class ServiceParts(Protocol):
    """The parts the HTTP app assembles (``runyard.http.state.Parts``), as the surfaces beside it
    (gRPC, the faces) read them."""

    @property
    def store(self) -> Store: ...
    @property
    def events(self) -> EventLog: ...
    @property
    def runs(self) -> RunManager: ...
    @property
    def agents(self) -> AgentDirectory: ...
    @property
    def catalog(self) -> CatalogAgents | None: ...
