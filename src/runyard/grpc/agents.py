"""``ListAgents``: the agents a tenant may run, with real capabilities, filtered."""

from __future__ import annotations

from runyard.grpc.v1 import inference_pb2 as pb
from runyard.registry import LimitsSpec
from runyard.service import ServedAgent, TenantLimits

__all__ = ["agent_infos"]


def agent_infos(
    served: list[ServedAgent], request: pb.ListAgentsRequest, tenant_limits: TenantLimits
) -> list[pb.AgentInfo]:
    """``served`` as ``AgentInfo``s, keeping those the request's filters let through."""
    return [
        _info(agent, tenant_limits)
        for agent in served
        if (not request.tenant or agent.tenant == request.tenant)
        and (not request.tool or request.tool in agent.tools)
        and agent.name.startswith(request.id_prefix)
    ]


def _info(agent: ServedAgent, tenant_limits: TenantLimits) -> pb.AgentInfo:
    limits = agent.limits
    tools = [
        pb.ToolInfo(
            name=tool.name,
            description=tool.description,
            requires_approval=tool.requires_approval,
            may_require_approval=tool.may_require_approval,
        )
        for tool in agent.tool_details
    ]
    return pb.AgentInfo(
        id=agent.name,
        version=agent.version or "",
        model=agent.model,
        description=agent.description,
        tenant=agent.tenant or "",
        default=agent.default,
        tools=tools,
        limits=_limits(limits) if limits is not None else None,
        rate_limits=pb.RateLimits(
            requests_per_minute=limits.requests_per_minute if limits else None,
            concurrent_runs=limits.concurrent_runs if limits else None,
            tenant_requests_per_minute=tenant_limits.requests_per_minute,
            tenant_concurrent_runs=tenant_limits.concurrent_runs,
        ),
    )


def _limits(limits: LimitsSpec) -> pb.Limits:
    concurrency = limits.tool_call_concurrency
    return pb.Limits(
        max_iterations=limits.max_iterations,
        timeout_s=limits.timeout_s,
        tool_timeout_s=limits.tool_timeout_s,
        max_output_tokens=limits.max_output_tokens,
        tool_call_concurrency=concurrency if isinstance(concurrency, int) else 0,
    )
