"""`dctx mcp`: run the Model Context Protocol server (stdio or streamable HTTP)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from dctx.cli import _common as c
from dctx.cli.serve import ApiKeyOption, HostOption, warn_if_exposed


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


def mcp(
    ctx: typer.Context,
    transport: Annotated[
        Transport,
        typer.Option(
            envvar="DCTX_MCP_TRANSPORT",
            help="stdio (spawned by the client) or http (streamable HTTP at http://HOST:PORT/mcp).",
        ),
    ] = Transport.stdio,
    host: HostOption = "127.0.0.1",
    port: Annotated[
        int, typer.Option(envvar="DCTX_MCP_PORT", help="TCP port (http).", min=1, max=65535)
    ] = 8766,
    api_key: ApiKeyOption = None,
    actor: Annotated[
        str | None,
        typer.Option(
            envvar="DCTX_ACTOR",
            help="The actor a tool call uses when it names none (one-user agents).",
            show_default=False,
        ),
    ] = None,
    skill: Annotated[
        str | None,
        typer.Option(
            envvar="DCTX_SKILL",
            help="The skill a tool call uses when it names none.",
            show_default=False,
        ),
    ] = None,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Serve dctx to MCP clients. Tools: get_guidance, record_correction, capture_session,
    list_rules, search_rules, explain_rule, disable_rule, approve_rule, delete_rule,
    forget_actor (annotated read-only or destructive for the client). --namespace, --actor
    and --skill are what a tool call that names none uses. Needs: pip install 'dctx[mcp]'.

    Examples:

        dctx mcp --db ~/dctx/memory.db

        dctx mcp --db ~/dctx/memory.db --actor ana --skill devops

        claude mcp add dctx -- dctx mcp --db ~/dctx/memory.db

        dctx mcp --transport http --port 8766 --api-key s3cret
    """
    from dctx.server.mcp_server import run_mcp
    from dctx.server.service import DctxService

    cfg = c.settings(ctx, db, embedder, namespace)
    if transport is Transport.http:
        warn_if_exposed(host, api_key)
    service = DctxService.open(cfg.db, embedder=cfg.embedder)
    try:
        run_mcp(
            service,
            transport=transport.value,
            host=host,
            port=port,
            api_key=api_key,
            namespace=cfg.namespace,
            actor=actor,
            skill=skill,
        )
    finally:
        service.close()
