"""Performance benchmark, runnable without installing the CLI: python benchmarks/perf.py --help

The same as `dctx bench perf` (see dctx.bench.perf for what is measured and how).
"""

from __future__ import annotations

import sys

import typer

from dctx.cli._common import error_line, exit_code
from dctx.cli.perf import perf_command
from dctx.errors import DctxError

if __name__ == "__main__":
    try:
        typer.run(perf_command)
    except DctxError as exc:
        sys.stderr.write(error_line(exc) + "\n")
        sys.exit(exit_code(exc))
