"""The OpenAPI document says what the API really answers: the committed copy is current, errors
are the ``{"error": …}`` envelope (never FastAPI's ``{"detail": …}``), identity headers carry their
pattern, the event stream is ``text/event-stream`` — and real responses of every kind, driven
through the app, validate against it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from http_harness import asgi_client, running_app, settled

from runyard.http.identity import IDENTITY_PATTERN
from runyard.http.openapi_export import default_document
from runyard.service.api_keys import issue_api_key
from sqlite_databases import MigratedSqlite

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"
REGENERATE = "python -m runyard.http.openapi_export > docs/openapi.json"
ERROR_BODY = {"$ref": "#/components/schemas/ErrorBody"}
OPENAI_ERROR_BODY = {"$ref": "#/components/schemas/OpenAIErrorBody"}
LANGGRAPH_ERROR_BODY = {"$ref": "#/components/schemas/LangGraphErrorBody"}
OPENAI = "/openai/v1/chat/completions"
CALC = '/tool calculator {"expression": "2+3*4"}'
NOTE = '/tool save_note {"text": "milk"}'


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


def test_the_committed_document_is_current() -> None:
    assert json.loads(COMMITTED.read_text()) == default_document(), (
        f"docs/openapi.json is stale; regenerate it with: {REGENERATE}"
    )


@pytest.mark.parametrize("auth", ["none", "proxy", "keys"])
def test_every_schema_the_document_names_is_in_it(auth: str) -> None:
    # Error bodies name their schema by reference; the document must hold each one it names.
    document = default_document(auth=auth)
    named = set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(document)))
    assert {"ErrorBody", "LangGraphErrorBody"} <= named
    assert named <= set(document["components"]["schemas"])


def operations(document: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{method.upper()} {path}", operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def body_of(operation: str, status: str) -> dict[str, str]:
    """runyard's envelope; OpenAI's under /openai/v1 and LangGraph's under /langgraph, but for
    the 413 the body limit gives before any route."""
    path = operation.split(" ")[1]
    if status == "413":
        return ERROR_BODY
    if path.startswith("/openai/v1/"):
        return OPENAI_ERROR_BODY
    return LANGGRAPH_ERROR_BODY if path.startswith("/langgraph/") else ERROR_BODY


def test_every_error_is_the_envelope_and_headers_carry_their_pattern() -> None:
    document = default_document()
    text = json.dumps(document)
    errors = {
        (name, status): response["content"]
        for name, operation in operations(document)
        for status, response in operation["responses"].items()
        if (status.startswith("4") or (status == "503" and "/v1/" in name))
        and not (name.endswith(" /mcp") and status != "401")  # MCP's own refusals: below
    }
    identity = {
        p["schema"]["pattern"]
        for _, operation in operations(default_document(auth="proxy"))
        for p in operation.get("parameters", [])
        if p["name"].startswith("X-Runyard-") and p["name"] != "X-Runyard-Thread"
    }
    events = document["paths"]["/v1/events/{thread_id}"]["get"]["responses"]["200"]["content"]

    assert "HTTPValidationError" not in text
    assert errors, "no error responses documented"
    assert all(
        content == {"application/json": {"schema": body_of(name, status)}}
        for (name, status), content in errors.items()
    )
    assert {status for _, status in errors} == {
        "400",
        "401",
        "403",
        "404",
        "409",
        "410",
        "413",
        "416",
        "422",
        "429",
        "503",
    }
    retry_after = document["paths"]["/v1/chat/{thread_id}"]["post"]["responses"]["429"]["headers"]
    assert retry_after["Retry-After"]["schema"] == {"type": "integer", "minimum": 1}
    assert identity == {IDENTITY_PATTERN}
    assert "X-Runyard-Tenant" not in text  # keys mode: the key says who calls, not headers
    assert list(events) == ["text/event-stream"]


def test_mcp_documents_the_apps_errors_and_the_transports_json_rpc_refusals() -> None:
    document = default_document()
    paths, schemas = document["paths"], document["components"]["schemas"]
    json_rpc = {"$ref": "#/components/schemas/JsonRpcMessage"}

    for method in ("post", "get", "delete"):
        responses = paths["/mcp"][method]["responses"]
        for status in ("401", "503"):
            assert responses[status]["content"] == {"application/json": {"schema": ERROR_BODY}}
        assert responses["400"]["content"]["application/json"]["schema"]["anyOf"] == [
            ERROR_BODY,
            json_rpc,
        ]
        for status in ("404", "406", "415"):
            assert responses[status]["content"] == {"application/json": {"schema": json_rpc}}
    body = paths["/mcp"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == json_rpc
    assert schemas["JsonRpcMessage"]["required"] == ["jsonrpc"]


async def test_real_responses_of_every_kind_match_the_document(url: str) -> None:
    responses: list[httpx.Response] = []
    async with running_app(url, sse_follow=False) as app, asgi_client(app) as client:
        schema = schemathesis.openapi.from_dict(app.openapi())

        async def call(method: str, path: str, **kwargs: Any) -> httpx.Response:
            response = await client.request(method, path, **kwargs)
            responses.append(response)
            return response

        await call("POST", "/v1/chat/t1", json={"message": CALC})
        await settled(app, "t1")
        await call("GET", "/v1/events/t1")
        await call("GET", "/v1/events/t1?lastEventId=2")
        await call("GET", "/v1/threads/t1/messages")
        await call("GET", "/v1/threads/t1/status")
        await call("GET", "/v1/threads")
        await call("GET", "/v1/agents")
        await call("GET", "/v1/me")
        await call("GET", "/healthz")
        await call("GET", "/readyz")
        await call("POST", "/v1/chat/t2", json={"message": NOTE})
        await settled(app, "t2")
        asked = json.loads((await call("GET", "/v1/events/t2")).text.split("data: ")[-1])
        await call("GET", "/v1/threads/t2/status")
        await call("GET", "/v1/threads/t2/messages")
        await call("POST", "/v1/chat/t2", json={"message": "again"})  # 409
        await call("POST", f"/v1/confirm/{asked['payload']['requestId']}", json={"approved": "y"})
        await call("POST", f"/v1/confirm/{asked['payload']['requestId']}", json={"approved": True})
        await settled(app, "t2")
        await call("POST", f"/v1/confirm/{asked['payload']['requestId']}", json={"approved": True})
        await call("POST", "/v1/confirm/cr_nope", json={"approved": True})  # 404
        await call("POST", "/v1/chat/t1", json={"message": ""})  # 422
        await call("POST", "/v1/chat/t1", json={"message": "x" * 70_000})  # 413
        await call("GET", "/v1/threads?limit=0")  # 422
        await call("GET", "/v1/threads/nope/status")  # 404
        await call("GET", "/v1/threads", headers={"X-Runyard-User": "a b"})  # 400
        await call("GET", "/v1/events/t1?lastEventId=x")  # 400
        await call("POST", "/v1/chat/nope/cancel")
        await call("DELETE", "/v1/threads/t1")
        await call("GET", "/openai/v1/models")
        await call("POST", OPENAI, json={"model": "assistant", "messages": [user(CALC)]})
        await call(
            "POST", OPENAI, json={"model": "assistant", "messages": [user(NOTE)], "user": "t3"}
        )
        await call("POST", OPENAI, json={"model": "nobody", "messages": [user("hi")]})  # 404
        await call("POST", OPENAI, json={"model": "assistant", "messages": []})  # 422
        await call(
            "POST", OPENAI, json={"model": "assistant", "messages": [user("a")], "user": "t3"}
        )  # 409
        await app.state.runyard.drain()
        await call("GET", "/openai/v1/models")  # 503
        await call("GET", "/v1/threads")  # 503
        await call("GET", "/readyz")  # 503

    statuses = set()
    for response in responses:
        request = response.request
        template = _template(schema, request.method, request.url.path)
        schema[template][request.method].validate_response(response)
        statuses.add(response.status_code)
    assert statuses == {200, 400, 404, 409, 413, 422, 503}


def user(content: str) -> dict[str, str]:
    return {"role": "user", "content": content}


def _template(schema: Any, method: str, path: str) -> str:
    """The documented path (``/v1/threads/{thread_id}/status``) that ``path`` is an instance of."""
    for template in schema.raw_schema["paths"]:
        parts, actual = template.split("/"), path.split("/")
        if len(parts) == len(actual) and all(
            p == a or p.startswith("{") for p, a in zip(parts, actual, strict=True)
        ):
            return str(template)
    raise AssertionError(f"{method} {path} is not documented")


async def test_the_keys_mode_answers_match_its_document(url: str) -> None:
    responses: list[httpx.Response] = []
    settings = {"auth": "keys"}
    async with running_app(url, settings=settings, sse_follow=False) as app:
        schema = schemathesis.openapi.from_dict(app.openapi())
        member = await issue_api_key(app.state.runyard.parts.store, tenant_id="t", user_id="u")
        bearer = {"Authorization": f"Bearer {member.token}"}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://runyard") as client:
            for method, path, headers in (
                ("GET", "/v1/threads", {}),  # 401
                ("GET", "/v1/threads", {"Authorization": "Bearer ryk_nope"}),  # 401
                ("GET", "/v1/threads", bearer),  # 200
                ("GET", "/v1/me", bearer),  # 200, with the key's role and id
                ("GET", "/v1/threads", {**bearer, "X-Runyard-User": "x"}),  # 400
                ("GET", "/v1/events/t1", {}),  # 401
                ("GET", "/v1/admin/agents/a/versions", bearer),  # 403 admin_required
            ):
                responses.append(await client.request(method, path, headers=headers))

    for response in responses:
        request = response.request
        template = _template(schema, request.method, request.url.path)
        schema[template][request.method].validate_response(response)
    assert [r.status_code for r in responses] == [401, 401, 200, 200, 400, 401, 403]
    assert responses[0].headers["www-authenticate"] == "Bearer"
    document = app.openapi()
    assert document["paths"]["/v1/threads"]["get"]["security"] == [{"bearer": []}]
    assert "security" not in document["paths"]["/healthz"]["get"]
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
