"""Swagger UI at /docs without a CDN: the assets come from the `fastapi-offline` package.

FastAPI's default /docs page loads swagger-ui from a CDN, so it is blank on a machine without
internet access. dctx turns FastAPI's pages off and serves the same pages (/docs and /redoc)
with the JS and CSS files that `fastapi-offline` (in the `server` extra) ships. The pages can
sit behind the API key (`dependencies`); the assets are the libraries' own files, always open.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dctx.errors import MissingDependencyError

try:
    import fastapi_offline
    from fastapi import FastAPI
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from fastapi.staticfiles import StaticFiles
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependencyError("Offline API docs (/docs)", "server", "fastapi-offline") from exc

STATIC_URL = "/docs-assets"
ASSETS = Path(fastapi_offline.__file__).parent / "static"


def add_offline_docs(
    app: FastAPI,
    *,
    docs_url: str = "/docs",
    redoc_url: str = "/redoc",
    openapi_url: str = "/openapi.json",
    dependencies: Sequence[Any] = (),
) -> None:
    """Serve Swagger UI at `docs_url` and ReDoc at `redoc_url` from local files (create the
    app with docs_url=None, redoc_url=None); `dependencies` guard both pages."""
    app.mount(STATIC_URL, StaticFiles(directory=ASSETS), name="docs-assets")
    deps = list(dependencies)

    @app.get(docs_url, include_in_schema=False, dependencies=deps)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} - API docs",
            swagger_js_url=f"{STATIC_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{STATIC_URL}/swagger-ui.css",
            swagger_favicon_url=f"{STATIC_URL}/favicon.png",
        )

    @app.get(redoc_url, include_in_schema=False, dependencies=deps)
    def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} - API reference",
            redoc_js_url=f"{STATIC_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{STATIC_URL}/favicon.png",
            with_google_fonts=False,
        )


__all__ = ["ASSETS", "STATIC_URL", "add_offline_docs"]
