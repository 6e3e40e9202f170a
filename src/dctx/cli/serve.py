"""`dctx serve`: run the HTTP API on a store."""

from __future__ import annotations

import ipaddress
from typing import Annotated

import typer

from dctx.cli import _common as c
from dctx.validation import DEFAULT_LIMITS

HostOption = Annotated[
    str,
    typer.Option(
        envvar="DCTX_HOST",
        help="Interface to bind. The default serves this machine only; binding another "
        "address exposes the memory to the network, so set --api-key.",
    ),
]
ApiKeyOption = Annotated[
    str | None,
    typer.Option(
        envvar="DCTX_API_KEY",
        help="Require this key in the X-API-Key header of every request (compared in "
        "constant time). Default: no auth.",
        show_default=False,
    ),
]


def warn_if_exposed(host: str, api_key: str | None) -> None:
    """Say so when a server without a key listens beyond this machine."""
    if api_key:
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        c.err_console().print(
            f"warning: serving on {host} without --api-key: anyone who can reach it can read "
            "and change the memory"
        )


def serve(
    ctx: typer.Context,
    host: HostOption = "127.0.0.1",
    port: Annotated[
        int, typer.Option(envvar="DCTX_PORT", help="TCP port.", min=1, max=65535)
    ] = 8765,
    api_key: ApiKeyOption = None,
    run_ttl: Annotated[
        int, typer.Option(envvar="DCTX_RUN_TTL", min=1, help="Idle seconds before a run expires.")
    ] = 3600,
    max_runs: Annotated[
        int, typer.Option(envvar="DCTX_MAX_RUNS", min=1, help="Open runs kept (LRU beyond).")
    ] = 1000,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            envvar="DCTX_ALLOWED_HOSTS",
            help="Without --api-key, a host name (besides local names, IP addresses and the "
            "bind address) that Host / Origin headers may carry, e.g. a proxy's name. "
            "Repeatable.",
            show_default=False,
        ),
    ] = None,
    max_body_bytes: Annotated[
        int,
        typer.Option(envvar="DCTX_MAX_BODY_BYTES", min=1, help="Largest request body accepted."),
    ] = DEFAULT_LIMITS.request_bytes,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
) -> None:
    """Serve the HTTP API: capture traces, get guidance for runs, manage rules, forget actors.
    Routes live under /v1/{namespace}/...; the OpenAPI schema is at /openapi.json and
    interactive docs at /docs (behind the key when --api-key is set). Without a key, requests
    must name this machine in Host / Origin (no DNS rebinding). Needs: pip install
    'dctx[server]'.

    Examples:

        dctx serve --db memory.db

        DCTX_API_KEY=s3cret dctx serve --db postgresql://dctx@db/dctx --host 0.0.0.0

        curl -s localhost:8765/v1/default/rules -H 'X-API-Key: s3cret'
    """
    from dctx.server.http import serve as run_http
    from dctx.server.service import DctxService

    cfg = c.settings(ctx, db, embedder)
    warn_if_exposed(host, api_key)
    service = DctxService.open(cfg.db, embedder=cfg.embedder, ttl_s=run_ttl, max_runs=max_runs)
    try:
        run_http(
            service,
            host=host,
            port=port,
            api_key=api_key,
            allowed_hosts=allowed_host or (),
            max_body_bytes=max_body_bytes,
        )
    finally:
        service.close()
