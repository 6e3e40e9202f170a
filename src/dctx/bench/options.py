"""Command-line options the bench commands share: which scenarios to read."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

ScenariosOpt = Annotated[
    Path | None,
    typer.Option(
        "--scenarios",
        "-s",
        help="Folder (or file) of scenario YAML files; default: the bundled benchmark.",
        envvar="DCTX_BENCH_SCENARIOS",
    ),
]
DimensionOpt = Annotated[
    list[str] | None,
    typer.Option("--dimension", "-d", help="Only this dimension (repeatable)."),
]
IdOpt = Annotated[
    list[str] | None,
    typer.Option("--id", help="Only scenario ids matching this pattern, e.g. 'fin.recall.*'."),
]
EmbedderOpt = Annotated[
    str,
    typer.Option("--embedder", help="auto, minilm or hashing.", envvar="DCTX_BENCH_EMBEDDER"),
]
