"""`dctx bench perf`: latency of injection against rulebook size, capture throughput, memory."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.table import Table

from dctx.cli import _common as c
from dctx.errors import ConfigError

if TYPE_CHECKING:
    from dctx.bench.perf import PerfResult


def _sizes(value: str) -> list[int]:
    try:
        sizes = [int(v.replace("_", "").strip()) for v in value.split(",") if v.strip()]
    except ValueError:
        raise ConfigError(f"--sizes must be comma-separated integers, got {value!r}") from None
    if not sizes or any(s < 1 for s in sizes):
        raise ConfigError(f"--sizes must be positive rule counts, got {value!r}")
    return sizes


def _ms(value: float) -> str:
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def perf_command(
    sizes: Annotated[
        str,
        typer.Option(envvar="DCTX_PERF_SIZES", help="Rulebook sizes to measure, comma-separated."),
    ] = "5,500,5000,50000,100000",
    iterations: Annotated[
        int, typer.Option(envvar="DCTX_PERF_ITERATIONS", min=3, help="Warm calls per state.")
    ] = 40,
    cold: Annotated[
        int,
        typer.Option(envvar="DCTX_PERF_COLD", min=1, help="Cold calls (after a store change)."),
    ] = 8,
    capture_sessions: Annotated[
        int,
        typer.Option(
            envvar="DCTX_PERF_CAPTURE_SESSIONS",
            min=0,
            help="Sessions for the capture-throughput test (0 skips it).",
        ),
    ] = 250,
    embedder: Annotated[
        str,
        typer.Option(envvar="DCTX_EMBEDDER", help="Embedder to measure with (minilm, hashing)."),
    ] = "minilm",
    workdir: Annotated[
        str | None,
        typer.Option(
            envvar="DCTX_PERF_WORKDIR",
            help="Keep the benchmark databases in this folder (default: a temporary one).",
            show_default=False,
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            envvar="DCTX_PERF_DB",
            help="Benchmark this empty store instead of temporary SQLite files, e.g. "
            "postgresql://user@host/dctx_bench (everything written stays there).",
            show_default=False,
        ),
    ] = None,
    namespaces: Annotated[
        int,
        typer.Option(
            envvar="DCTX_PERF_NAMESPACES",
            min=1,
            help="Spread each rulebook over this many namespaces (tenants).",
        ),
    ] = 1,
    writers: Annotated[
        int,
        typer.Option(
            envvar="DCTX_PERF_WRITERS",
            min=0,
            help="Also measure capture with this many parallel writer processes.",
        ),
    ] = 0,
    as_json: c.JsonOption = False,
) -> None:
    """Measure injection latency (stage 1 and one stage-2 decision point, p50/p95, cold /
    new text / cached) on synthetic rulebooks of growing size, capture throughput without
    node embeddings, and peak memory. The full run takes a few minutes on 2 cores.

    Examples:

        dctx bench perf

        dctx bench perf --sizes 5,500 --capture-sessions 50 --json

        dctx bench perf --db postgresql://localhost/dctx_bench --sizes 100000 \\
            --namespaces 1000 --writers 4
    """
    from dctx.bench.perf import run_perf

    def progress(message: str) -> None:
        if not as_json:
            c.err_console().print(f"[dim]{message}...[/dim]")

    result = run_perf(
        _sizes(sizes),
        embedder=embedder,
        iterations=iterations,
        cold=cold,
        capture_sessions=capture_sessions,
        workdir=workdir,
        progress=progress,
        db=db,
        namespaces=namespaces,
        writers=writers,
    )
    if as_json:
        c.print_json(result.to_dict())
        return
    out = c.console()
    table = Table(
        title=f"Injection latency in ms, p50 / p95 (embedder {result.embedder}, "
        f"{result.backend}, {result.namespaces:,} namespace(s))",
        box=box.SIMPLE_HEAD,
        title_justify="left",
    )
    columns = ("rules", "in scope", "", "cold", "reload", "new text", "cached", "peak RSS")
    for name in (*columns, "DP process"):
        table.add_column(name, justify="right", no_wrap=True)
    for size in result.sizes:
        for label, stats in (("stage 1", size.stage1), ("stage 2 DP", size.stage2)):
            cells = [f"{size.rules:,}", f"{size.visible:,}"] if label == "stage 1" else ["", ""]
            cells.append(label)
            for state in ("cold", "reload", "new_text", "cached"):
                cells.append(f"{_ms(stats[state].p50_ms)} / {_ms(stats[state].p95_ms)}")
            first = label == "stage 1"
            cells.append(f"{size.peak_rss_mb:,.0f} MB" if first else "")
            cells.append(_mb(size.decision_rss_mb) if first else "")
            table.add_row(*cells)
    out.print(table)
    out.print(
        "cold: first call after another writer changed the store, on a new text (the changed "
        "rules are applied); reload: the snapshot built from scratch; new text: embedding not "
        "cached; cached: the same text again. Query/step embedding included. Peak RSS: this "
        "process's high-water mark so far (it also embeds rules with the exact model and "
        "writes the rulebook); DP process: the peak "
        "RSS of a fresh process that only runs decision points on that store (the serving "
        "case)."
    )
    if len(result.sizes) > 1:
        out.print(_ratio_table(result))
    for cap in result.capture:
        out.print(
            f"capture ({cap.mode.replace('_', ' ')}, embed_nodes=False): {cap.messages:,} "
            f"messages in {cap.seconds:.2f} s = [bold]{cap.messages_per_s:,.0f} messages/s[/bold]"
            f" ({cap.sessions} sessions, {cap.rules} rules)"
        )
    par = result.parallel_capture
    if par is not None:
        out.print(
            f"capture ({par.writers} parallel writer processes, one namespace each): "
            f"{par.messages:,} messages in {par.seconds:.2f} s = "
            f"[bold]{par.messages_per_s:,.0f} messages/s[/bold] ({par.sessions} sessions)"
        )
    rss = result.peak_rss_mb
    out.print("peak RSS: n/a on this platform" if math.isnan(rss) else f"peak RSS: {rss:,.0f} MB")
    for name, ratio in result.ratios.items():
        out.print(f"ratio {name}: {ratio:g}x")
    for target in result.targets:
        mark = "[green]ok[/green]" if target["ok"] else "[red]MISSED[/red]"
        out.print(f"target {target['target']} {target['limit']:g}: {target['measured']:g} {mark}")
    out.print(f"[dim]total {result.seconds:.0f} s[/dim]")


def _mb(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:,.0f} MB"


def _ratio_table(result: PerfResult) -> Table:
    """Every figure against the 500-rule run (or the smallest), one column per size."""
    from dctx.bench.perf import ratio_table

    base = next((r.rules for r in result.sizes if r.rules == 500), result.sizes[0].rules)
    table = Table(
        title=f"Scaling: p50 and peak RSS as a ratio of the {base:,}-rule run",
        box=box.SIMPLE_HEAD,
        title_justify="left",
    )
    table.add_column("figure", no_wrap=True)
    for size in result.sizes:
        table.add_column(f"{size.rules:,}", justify="right", no_wrap=True)
    for name, ratios in ratio_table(result.sizes).items():
        table.add_row(name, *("n/a" if math.isnan(r) else f"{r:g}x" for r in ratios))
    return table
