"""`dctx copy SRC DST`: move a whole memory between stores (e.g. SQLite to PostgreSQL)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from dctx.cli import _common as c
from dctx.errors import ConfigError


def copy(
    source: Annotated[str, typer.Argument(help="Store to read: a SQLite path or a URL.")],
    target: Annotated[str, typer.Argument(help="Empty store to write: a path or a URL.")],
    as_json: c.JsonOption = False,
) -> None:
    """Copy every namespace of a memory (sessions, decision nodes, evidence, edges, rules,
    vectors, caches) into an empty store, in one transaction, then check that the row counts
    of both stores match table by table. The source is only read.

    Examples:

        dctx copy dctx.db postgresql://dctx@db.internal/dctx

        dctx copy postgresql://dctx@db.internal/dctx backup.db --json
    """
    from dctx.store.copy import copy_store
    from dctx.store.registry import open_store, scheme_of

    def progress(message: str) -> None:
        if not as_json:
            c.err_console().print(f"[dim]{message}...[/dim]")

    if scheme_of(source) == "sqlite":
        path = source.removeprefix("sqlite:///")
        if not Path(path).expanduser().is_file():
            raise ConfigError(f"the source store {source} does not exist; name an existing file")
    src = open_store(source, migrate=False)  # only read: never change the source's schema
    try:
        dst = open_store(target)
        try:
            result = copy_store(src, dst, progress=progress)
        finally:
            dst.close()
    finally:
        src.close()
    tables = [t for t in result.source if t != "meta"]
    if as_json:
        c.print_json({"source": source, "target": target, "ok": result.ok,
                      "rows": {t: result.target[t] for t in tables}})  # fmt: skip
        return
    table = Table(title="Copied rows (counts match)", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("table")
    table.add_column("rows", justify="right")
    for name in tables:
        table.add_row(name, f"{result.target[name]:,}")
    c.console().print(table)
