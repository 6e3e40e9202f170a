"""`dctx migrate`: bring a store's schema up to date (SQLite file or PostgreSQL database)."""

from __future__ import annotations

import typer

from dctx.cli import _common as c


def migrate(
    ctx: typer.Context,
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
) -> None:
    """Apply the schema migrations the store still lacks and print their names. Safe to run
    any time and from several machines at once: each step runs exactly once. Needs a user
    allowed to change the schema (on PostgreSQL, also to enable the pgvector extension once).

    Examples:

        dctx migrate --db postgresql://dctx@db.internal/dctx

        dctx migrate --db memory.db --json
    """
    from dctx.store.registry import open_store

    cfg = c.settings(ctx, db)
    store = open_store(cfg.db, migrate=True)
    try:
        applied: list[str] = list(getattr(store, "applied_on_open", []))
        applied += store.migrate()
    finally:
        store.close()
    if as_json:
        c.print_json({"db": cfg.db, "applied": applied})
    elif applied:
        c.console().print(f"applied {len(applied)} migration(s): {', '.join(applied)}")
    else:
        c.console().print("the schema is up to date; nothing to do")
