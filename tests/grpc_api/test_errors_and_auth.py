"""Every refusal maps to its gRPC status through the one table; the auth modes of HTTP apply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2
from grpc_harness import ALICE, grpc_served

from runyard.grpc import ERROR_CODE, ERROR_FIELD, TENANT_METADATA, USER_METADATA
from runyard.grpc.auth import UNAUTHENTICATED
from runyard.grpc.status import status_for
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.http.errors import status_for as http_status_for
from runyard.http.identity import TENANT_HEADER, USER_HEADER
from runyard.service import ServiceStopping
from runyard.service.api_keys import issue_api_key
from sqlite_databases import MigratedSqlite

NOTE = '/tool save_note {"text": "buy milk"}'


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


async def refused(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


def trailer(error: grpc.aio.AioRpcError, key: str) -> str | None:
    return dict(error.trailing_metadata() or ()).get(key)


def test_the_identity_metadata_are_the_http_headers_in_lower_case() -> None:
    assert (TENANT_HEADER.lower(), USER_HEADER.lower()) == (TENANT_METADATA, USER_METADATA)


async def test_bad_input_is_invalid_argument_naming_the_field(url: str) -> None:
    async with grpc_served(url) as served:
        stub = served.inference
        bad_thread = await refused(
            stub.Invoke(pb.InvokeRequest(thread_id="no spaces", message="hi"), metadata=ALICE)
        )
        no_thread = await refused(stub.Invoke(pb.InvokeRequest(message="hi"), metadata=ALICE))
        no_answer = await refused(
            stub.Confirm(pb.ConfirmRequest(request_id="cr_x"), metadata=ALICE)
        )
        bad_context = await refused(
            stub.Invoke(
                pb.InvokeRequest(
                    thread_id="t1", message="hi", context=pb.InvocationContext(tenant="other")
                ),
                metadata=ALICE,
            )
        )

    for error, field in [
        (bad_thread, "thread_id"),
        (no_thread, "thread_id"),
        (no_answer, "answer.approved"),
        (bad_context, "context.tenant"),
    ]:
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert error.details().startswith(f"{field}: ")
        assert trailer(error, ERROR_FIELD) == field
    assert trailer(bad_thread, ERROR_CODE) == "invalid_thread_id"


async def test_unknown_things_are_not_found_and_a_busy_thread_already_exists(url: str) -> None:
    answer = struct_pb2.Struct()
    answer.update({"approved": True})
    async with grpc_served(url) as served:
        stub = served.inference
        unknown_request = await refused(
            stub.Confirm(pb.ConfirmRequest(request_id="cr_nope", answer=answer), metadata=ALICE)
        )
        unknown_agent = await refused(
            stub.Invoke(
                pb.InvokeRequest(thread_id="t1", message="hi", agent_id="nobody"), metadata=ALICE
            )
        )
        await stub.Invoke(pb.InvokeRequest(thread_id="t2", message=NOTE), metadata=ALICE)
        busy = await refused(
            stub.Invoke(pb.InvokeRequest(thread_id="t2", message="again"), metadata=ALICE)
        )

    assert unknown_request.code() == grpc.StatusCode.NOT_FOUND
    assert trailer(unknown_request, ERROR_CODE) == "confirmation_not_found"
    assert unknown_agent.code() == grpc.StatusCode.NOT_FOUND
    assert trailer(unknown_agent, ERROR_FIELD) == "agent_id"
    assert busy.code() == grpc.StatusCode.ALREADY_EXISTS
    assert trailer(busy, ERROR_CODE) == "run_active"


async def test_a_rate_limit_is_resource_exhausted(url: str) -> None:
    async with grpc_served(url, settings={"tenant_requests_per_minute": 1}) as served:
        await served.inference.Invoke(
            pb.InvokeRequest(thread_id="t1", message="hi"), metadata=ALICE
        )
        limited = await refused(
            served.inference.Invoke(pb.InvokeRequest(thread_id="t2", message="hi"), metadata=ALICE)
        )

    assert limited.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert trailer(limited, ERROR_CODE) == "rate_limited"


async def test_keys_mode_wants_a_valid_bearer_key_and_refuses_identity_metadata(url: str) -> None:
    async with grpc_served(url, settings={"auth": "keys"}) as served:
        issued = await issue_api_key(served.parts.store, tenant_id="acme", user_id="alice")
        bearer = (("authorization", f"Bearer {issued.token}"),)
        request = pb.InvokeRequest(thread_id="t1", message="hi")
        missing = await refused(served.inference.Invoke(request))
        wrong = await refused(
            served.inference.Invoke(request, metadata=(("authorization", "Bearer nope"),))
        )
        spoofed = await refused(served.inference.Invoke(request, metadata=bearer + ALICE[:1]))
        reply = await served.inference.Invoke(request, metadata=bearer)
        threads = await served.parts.store.get_thread(
            "acme/alice/t1", tenant_id="acme", resource_id="alice"
        )

    assert missing.code() == wrong.code() == grpc.StatusCode.UNAUTHENTICATED
    assert missing.details() == wrong.details()
    # The hint survives the redactor every refusal passes (it once read "Bearer [REDACTED]").
    assert missing.details() == UNAUTHENTICATED
    assert spoofed.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert trailer(spoofed, ERROR_FIELD) == "x-runyard-tenant"
    assert reply.status == "completed"
    assert threads is not None


async def test_none_mode_acts_for_default(url: str) -> None:
    async with grpc_served(url, settings={"auth": "none"}) as served:
        reply = await served.inference.Invoke(pb.InvokeRequest(thread_id="t1", message="hi"))
        spoofed = await refused(
            served.inference.Invoke(pb.InvokeRequest(thread_id="t1", message="hi"), metadata=ALICE)
        )
        thread = await served.parts.store.get_thread(
            "default/default/t1", tenant_id="default", resource_id="default"
        )

    assert reply.status == "completed"
    assert thread is not None
    assert spoofed.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_server_that_is_not_ready_is_unavailable(url: str) -> None:
    async with grpc_served(url) as served:
        served.server.state.parts = None
        starting = await refused(
            served.inference.ListAgents(pb.ListAgentsRequest(), metadata=ALICE)
        )
        served.server.state.parts = served.parts

    assert starting.code() == grpc.StatusCode.UNAVAILABLE


def test_a_server_shutting_down_refuses_new_runs_as_unavailable_as_http_answers_503() -> None:
    # A replica that drains refuses start and confirm (ServiceStopping): a client retries
    # elsewhere, which UNAVAILABLE tells it, where INVALID_ARGUMENT would blame its request.
    assert status_for(ServiceStopping()) == grpc.StatusCode.UNAVAILABLE
    assert http_status_for(ServiceStopping()) == 503
