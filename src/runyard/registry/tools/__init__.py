"""Tool factories with dependency injection (DESIGN.md §6, seed §5.5).

A factory (``ToolBuilder``) turns a catalog tool entry (``BuildContext``) into tools
(``ToolConfiguration``: one tool or a toolkit) using shared clients from ``ToolDependencies``;
the built tools ask the run for progress, inputs and binaries through ``ExecutionContext``.
``ToolFactories.discover()`` finds the built-in factories and those of installed packages
(entry-point group ``runyard.tools``): ``http_request`` and ``mcp`` are built in. The shared HTTP
client connects through the egress guard (``runyard.registry.tools.egress``). Nothing here reads
the environment (the ``mcp`` package gives a stdio server the few variables a command needs to
start, ``PATH`` and ``HOME`` among them: docs/tools.md).
"""

from runyard.registry.tools.binaries import BinarySource, InMemoryBinaries, UnknownBinaryError
from runyard.registry.tools.build_context import BuildContext
from runyard.registry.tools.builder import ToolBuilder
from runyard.registry.tools.configuration import (
    IS_FROM_TOOLKIT,
    SOURCE_NODE_NAME,
    ToolConfiguration,
)
from runyard.registry.tools.dependencies import Closer, ToolDependencies
from runyard.registry.tools.egress import EgressAllowList, EgressPolicy, EgressRefused
from runyard.registry.tools.execution_context import (
    CallExecutionContext,
    ExecutionContext,
    NoCallInProgressError,
    calling_tool_context,
)
from runyard.registry.tools.factories import ENTRY_POINT_GROUP, ToolFactories, builtin_factories
from runyard.registry.tools.http_request import (
    HttpRequestFactory,
    HttpRequestParameters,
    domain_access_question,
)
from runyard.registry.tools.mcp import McpConnections, McpFactory, McpUnavailableError
from runyard.registry.tools.parameters import factory_parameters
from runyard.registry.tools.toolkit import (
    StaticToolkit,
    ToolExecutionError,
    Toolkit,
    ToolkitExecutor,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "IS_FROM_TOOLKIT",
    "SOURCE_NODE_NAME",
    "BinarySource",
    "BuildContext",
    "CallExecutionContext",
    "calling_tool_context",
    "Closer",
    "EgressAllowList",
    "EgressPolicy",
    "EgressRefused",
    "ExecutionContext",
    "HttpRequestFactory",
    "HttpRequestParameters",
    "InMemoryBinaries",
    "McpConnections",
    "McpFactory",
    "McpUnavailableError",
    "NoCallInProgressError",
    "StaticToolkit",
    "ToolBuilder",
    "ToolConfiguration",
    "ToolDependencies",
    "ToolExecutionError",
    "ToolFactories",
    "Toolkit",
    "ToolkitExecutor",
    "UnknownBinaryError",
    "builtin_factories",
    "domain_access_question",
    "factory_parameters",
]
