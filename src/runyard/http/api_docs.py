"""``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), working offline.

FastAPI's own pages load their JavaScript and CSS from a CDN, so they are blank without internet
access. These pages load the same assets from ``/docs/assets``, served from the files the
``fastapi-offline`` wheel ships (MIT; Swagger UI is Apache-2.0, ReDoc MIT). Nothing on them
reaches another host: the Swagger validator badge, which would, is off.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["ASSETS_URL", "install_api_docs"]

ASSETS_URL = "/docs/assets"
_ASSETS = Path(fastapi_offline.__file__).parent / "static"


def install_api_docs(app: FastAPI, *, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Serve Swagger UI at ``docs_url`` and ReDoc at ``redoc_url``, assets included.

    ``app`` must have been created with ``docs_url=None, redoc_url=None``.
    """
    app.mount(ASSETS_URL, StaticFiles(directory=_ASSETS), name="api-docs-assets")

    @app.get(docs_url, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = _root(request)
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            oauth2_redirect_url=None,
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get(redoc_url, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = _root(request)
        return get_redoc_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            with_google_fonts=False,
        )


def _root(request: Request) -> str:
    """The mount prefix a proxy or parent app put in front of runyard (``""`` at the root)."""
    return str(request.scope.get("root_path", "")).rstrip("/")
