"""The web UI's files are served by runyard itself (no build, no CDN): the page at ``/``, its
modules and styles under ``/ui/``, each with the security headers that keep model text from
ever running a script or reaching another host."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from http_harness import asgi_client, running_app

from runyard.http.ui.pages import SECURITY_HEADERS

STATIC = Path(__file__).resolve().parents[2] / "src" / "runyard" / "http" / "ui" / "static"


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runyard.db'}"


async def test_the_page_and_every_asset_it_names_are_served_with_the_security_headers(
    url: str,
) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        page = await client.get("/")
        head = await client.head("/")
        assets = {
            name: await client.get(f"/ui/{name}")
            for name in sorted(p.name for p in STATIC.iterdir())
        }
        missing = await client.get("/ui/../pages.py")

    assert page.status_code == head.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    named = set(re.findall(r'(?:src|href)="ui/([^"]+)"', page.text))
    imported = {
        module
        for response in assets.values()
        for module in re.findall(r'from "\./([^"]+)"', response.text)
    }
    assert named | imported <= set(assets)
    for response in [page, *assets.values()]:
        assert response.status_code == 200
        assert {k: response.headers[k] for k in SECURITY_HEADERS} == SECURITY_HEADERS
    assert assets["app.js"].headers["content-type"].startswith("text/javascript")
    assert missing.status_code == 404


def test_the_page_loads_nothing_from_another_host() -> None:
    for path in STATIC.iterdir():
        text = path.read_text()
        assert not re.search(r"(src|href)=\"(https?:)?//", text), path.name
        assert "cdn" not in text.lower(), path.name
