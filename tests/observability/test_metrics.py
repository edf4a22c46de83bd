"""``Metrics``: each instance its own registry; the stream gauge the SSE and gRPC surfaces share."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from runyard.observability import Metrics


def test_two_metrics_in_one_process_count_apart_and_never_in_the_global_registry() -> None:
    first, second = Metrics(), Metrics()
    first.tool_invocations.labels("t", "a", "v", "calc", "success").inc()

    assert b'outcome="success"' in first.render()
    assert b'outcome="success"' not in second.render()
    assert REGISTRY.get_sample_value("runyard_tool_invocations_total") is None


def test_an_open_stream_counts_until_its_block_ends_even_when_it_fails() -> None:
    metrics = Metrics()

    def open_streams() -> float | None:
        return metrics.registry.get_sample_value("runyard_streams_open", {"protocol": "grpc"})

    with metrics.stream_open("grpc"):
        assert open_streams() == 1
    with pytest.raises(ConnectionResetError):
        broken_stream(metrics)
    assert open_streams() == 0


def broken_stream(metrics: Metrics) -> None:
    with metrics.stream_open("grpc"):
        raise ConnectionResetError
