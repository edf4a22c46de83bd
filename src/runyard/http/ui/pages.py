"""``install_ui``: serve ``index.html`` at ``/`` and the other files of ``static/`` at ``/ui``.

Every answer carries the page's security headers: the model's text reaches the page, and the
policy is what keeps a rendering mistake from ever running a script or reaching another host.
Images, audio and video load only from this server, inline data (``data:``) and the ``blob:``
URLs the page makes of stored files it fetched with the key; a content block by URL is a link.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

__all__ = ["SECURITY_HEADERS", "UI_ASSETS_URL", "install_ui"]

UI_ASSETS_URL = "/ui"
_STATIC = Path(__file__).parent / "static"

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        "media-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # Revalidated on every load (the ETag makes that cheap), so an upgrade is seen at once.
    "Cache-Control": "no-cache",
}
"""What every UI response says about how the browser may use it."""


class _UiFiles(StaticFiles):
    """The assets, each answered with ``SECURITY_HEADERS``."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(SECURITY_HEADERS)
        return response


def install_ui(app: FastAPI) -> None:
    """Serve the web UI: ``GET /`` is the page, ``/ui/…`` its modules and styles."""
    app.mount(UI_ASSETS_URL, _UiFiles(directory=_STATIC), name="ui")

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(_STATIC / "index.html", headers=SECURITY_HEADERS)
