"""Bad input gets a JSON 4xx naming the problem, and loses nothing already stored."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from http_harness import asgi_client, asgi_sse, running_app, settled

import runyard.faces.langgraph.refusals
import runyard.service.api_keys  # noqa: F401  (its errors are service errors too)
from runyard.service import ErrorKind, ServiceError
from sqlite_databases import MigratedSqlite


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


async def test_a_malformed_chat_body_is_422_naming_the_field(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        missing = await client.post("/v1/chat/t1", json={"text": "hi"})
        empty = await client.post("/v1/chat/t1", json={"message": ""})
        broken = await client.post(
            "/v1/chat/t1", content=b'{"message": ', headers={"content-type": "application/json"}
        )

    assert missing.status_code == empty.status_code == broken.status_code == 422
    assert {f["field"] for f in missing.json()["error"]["fields"]} == {"body.message", "body.text"}
    assert empty.json()["error"]["fields"][0]["field"] == "body.message"
    assert broken.json()["error"]["code"] == "invalid_request"


@pytest.mark.parametrize("path", ["/v1/chat/t1", "/v1/confirm/cr_x"])
async def test_a_body_that_is_not_utf8_is_422_naming_the_body(url: str, path: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        response = await client.post(
            path, content=b'{"message": "caf\xe9"}', headers={"content-type": "application/json"}
        )

    assert response.status_code == 422
    assert response.json()["error"] == {
        "code": "invalid_request",
        "message": "body: the body is not valid UTF-8",
        "fields": [{"field": "body", "message": "the body is not valid UTF-8"}],
    }


async def test_a_confirm_without_a_boolean_approved_is_422(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        response = await client.post("/v1/confirm/cr_x", json={"approved": "yes"})

    assert response.status_code == 422
    assert response.json()["error"]["fields"][0]["field"] == "body.approved"


async def test_an_oversized_body_is_413_before_parsing_and_nothing_is_lost(url: str) -> None:
    huge = {"message": "x" * 70_000}
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "hello"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            before = await stream.until("run-finish")
        declared = await client.post("/v1/chat/t1", json=huge)

        async def chunks():  # no Content-Length: counted as it arrives
            for _ in range(10):
                yield b"x" * 10_000

        streamed = await client.post("/v1/chat/t1", content=chunks())
        await settled(app, "t1")
        history = (await client.get("/v1/threads/t1/messages")).json()

    assert (declared.status_code, streamed.status_code) == (413, 413)
    assert declared.json()["error"]["code"] == "body_too_large"
    assert history["nextEventId"] == before[-1].id + 1


async def test_unknown_threads_and_requests_are_404(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        responses = [
            await client.get("/v1/threads/nope/messages"),
            await client.get("/v1/threads/nope/status"),
            await client.delete("/v1/threads/nope"),
            await client.post("/v1/confirm/cr_nope", json={"approved": True}),
        ]

    assert [r.status_code for r in responses] == [404, 404, 404, 404]
    assert [r.json()["error"]["code"] for r in responses] == [
        "thread_not_found",
        "thread_not_found",
        "thread_not_found",
        "confirmation_not_found",
    ]


async def test_cancel_is_idempotent_for_unknown_and_idle_threads(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        unknown = await client.post("/v1/chat/nope/cancel")
        await client.post("/v1/chat/t1", json={"message": "hello"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            await stream.until("run-finish")
        await settled(app, "t1")
        idle = await client.post("/v1/chat/t1/cancel")
        still_unknown = await client.get("/v1/threads/nope/status")
        history = (await client.get("/v1/threads/t1/messages")).json()

    assert [(r.status_code, r.json()) for r in (unknown, idle)] == [(200, {"ok": True})] * 2
    assert still_unknown.status_code == 404  # a cancel claims no thread
    assert history["messages"][-1]["agentTree"]["status"] == "completed"


async def test_bad_identity_headers_and_cursors_are_400(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        identity = await client.get("/v1/threads", headers={"X-Runyard-User": "a b"})
        cursor = await client.get("/v1/events/t1?lastEventId=-3")

    assert identity.status_code == 400
    assert identity.json()["error"]["field"] == "X-Runyard-User"
    assert cursor.status_code == 400
    assert cursor.json()["error"]["field"] == "lastEventId"


async def test_an_unknown_agent_is_404_agent_not_found(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        older = await client.post("/v1/chat/t1", json={"message": "hi", "agent": "ghost"})
        named = await client.post("/v1/chat/t1", json={"message": "hi", "agentId": "ghost"})
        status = await client.get("/v1/threads/t1/status")

    for response in (older, named):
        assert (response.status_code, response.json()["error"]["code"]) == (404, "agent_not_found")
    assert status.status_code == 404  # refused before the thread was created


ANSWERS = {
    "AgentRequired": (422, "FAILED_PRECONDITION"),
    "AgentVersionNotFound": (404, "NOT_FOUND"),
    "AgentVersionUnavailable": (409, "FAILED_PRECONDITION"),
    "AssistantNotFound": (404, "NOT_FOUND"),
    "ConcurrencyLimited": (429, "RESOURCE_EXHAUSTED"),
    "ConfirmationAnswered": (409, "FAILED_PRECONDITION"),
    "ConfirmationExpired": (410, "FAILED_PRECONDITION"),
    "ConfirmationNotFound": (404, "NOT_FOUND"),
    "ContentRefused": (422, "INVALID_ARGUMENT"),
    "ContentTooLarge": (413, "INVALID_ARGUMENT"),
    "FileStoreMissing": (400, "INVALID_ARGUMENT"),
    "UnknownFile": (404, "NOT_FOUND"),
    "InvalidAgentSpec": (400, "INVALID_ARGUMENT"),
    "InvalidAnswer": (422, "INVALID_ARGUMENT"),
    "InvalidKeyRequest": (400, "INVALID_ARGUMENT"),
    "InvalidThreadId": (422, "INVALID_ARGUMENT"),
    "LimitReached": (429, "RESOURCE_EXHAUSTED"),
    "RateLimited": (429, "RESOURCE_EXHAUSTED"),
    "RunActive": (409, "ALREADY_EXISTS"),
    "RunBusy": (409, "FAILED_PRECONDITION"),
    "NotQueued": (409, "ALREADY_EXISTS"),
    "RunNotFound": (404, "NOT_FOUND"),
    "ServiceStopping": (503, "UNAVAILABLE"),
    "ThreadExists": (409, "FAILED_PRECONDITION"),
    "ThreadNotFound": (404, "NOT_FOUND"),
    "UnknownAgent": (404, "NOT_FOUND"),
}
"""What each service error answers over HTTP and over gRPC."""


def _service_errors(base: type[ServiceError]) -> set[type[ServiceError]]:
    found = set(base.__subclasses__())
    return found.union(*(_service_errors(sub) for sub in found))


def test_both_surfaces_answer_every_service_error_by_its_kind() -> None:
    from runyard.grpc.status import STATUS_CODES as GRPC_CODES
    from runyard.grpc.status import status_for as grpc_status_for
    from runyard.http import STATUS_CODES, status_for

    # One table per surface, from the kinds of error: neither names an error class.
    assert set(STATUS_CODES) == set(GRPC_CODES) == set(get_args(ErrorKind))
    answers = {
        error.__name__: (status_for(error.__new__(error)), grpc_status_for(error.__new__(error)))
        for error in _service_errors(ServiceError)
    }
    assert {name: (status, code.name) for name, (status, code) in answers.items()} == ANSWERS
