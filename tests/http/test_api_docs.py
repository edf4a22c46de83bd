"""``/docs`` and ``/redoc`` work offline: every URL on the pages is this server's, and answers."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from http_harness import asgi_client, running_app

from sqlite_databases import MigratedSqlite

# Every place a page names a URL: attributes, and Swagger UI's `url: '…'` option.
URLS = re.compile(r"""(?:href|src|spec-url)="([^"]*)"|\burl: '([^']*)'""")


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.mark.parametrize(("page", "count"), [("/docs", 4), ("/redoc", 3)])
async def test_the_docs_pages_load_everything_from_this_server(
    url: str, page: str, count: int
) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        html = (await client.get(page)).text
        urls = [a or b for a, b in URLS.findall(html)]
        fetched = {u: await client.get(u) for u in urls}

    assert len(urls) == count
    assert all(u.startswith("/") and not u.startswith("//") for u in urls), urls
    assert not re.search(r"https?:|//[a-z]", html)
    assert {u: r.status_code for u, r in fetched.items()} == dict.fromkeys(urls, 200)
    assert fetched["/openapi.json"].json()["info"]["title"] == "runyard"


async def test_the_pages_follow_a_proxy_prefix(url: str) -> None:
    async with running_app(url) as app:
        transport = httpx.ASGITransport(app=app, root_path="/runyard")
        async with httpx.AsyncClient(transport=transport, base_url="http://runyard") as client:
            docs = (await client.get("/docs")).text
            redoc = (await client.get("/redoc")).text

    assert "/runyard/docs/assets/swagger-ui-bundle.js" in docs
    assert "url: '/runyard/openapi.json'" in docs
    assert 'spec-url="/runyard/openapi.json"' in redoc
