"""Swagger UI at /docs without a CDN: the assets come from the `fastapi-offline` package.

FastAPI's default /docs page loads swagger-ui from a CDN, so it is blank on a machine without
internet access. dctx turns FastAPI's page off and serves the same page with the JS and CSS
files that `fastapi-offline` (in the `server` extra) ships. /openapi.json is always there.
"""

from __future__ import annotations

from pathlib import Path

from dctx.errors import MissingDependencyError

try:
    import fastapi_offline
    from fastapi import FastAPI
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from fastapi.staticfiles import StaticFiles
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependencyError("Offline API docs (/docs)", "server", "fastapi-offline") from exc

STATIC_URL = "/docs-assets"
ASSETS = Path(fastapi_offline.__file__).parent / "static"


def add_offline_docs(app: FastAPI, *, docs_url: str = "/docs") -> None:
    """Serve Swagger UI at `docs_url` from local files (create the app with docs_url=None)."""
    app.mount(STATIC_URL, StaticFiles(directory=ASSETS), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get(docs_url, include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} - API docs",
            swagger_js_url=f"{STATIC_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{STATIC_URL}/swagger-ui.css",
            swagger_favicon_url=f"{STATIC_URL}/favicon.png",
        )


__all__ = ["ASSETS", "STATIC_URL", "add_offline_docs"]
