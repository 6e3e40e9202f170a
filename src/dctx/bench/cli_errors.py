"""How the benchmark commands report a DctxError: one red line on stderr, exit code 2
(DCTX_DEBUG=1 raises it instead, with its traceback)."""

from __future__ import annotations

import os

import typer
from rich.console import Console

from dctx.errors import DctxError

_err = Console(stderr=True)


def fail(exc: DctxError) -> typer.Exit:
    if os.environ.get("DCTX_DEBUG"):
        raise exc
    _err.print(f"[red]error:[/red] {exc}", highlight=False, markup=True, soft_wrap=True)
    return typer.Exit(2)
