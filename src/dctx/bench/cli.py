"""`dctx bench`: run DC-Bench. Mounted by the main CLI as `app.add_typer(bench_app, name="bench")`.

dctx bench                                   all approaches, bundled scenarios, delivery mode
dctx bench -a ctrl,forge_dc --json           one JSON document on stdout
dctx bench --scenarios my_scenarios/ --out bench-out/
dctx bench --mode live --agent openai:gpt-4o --judge openai:gpt-4o --runs 5
dctx bench list | dctx bench validate [PATH]
dctx bench losses -s benchmarks/holdout        where each failed rubric item was lost
"""

from __future__ import annotations

import enum
import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from dctx.bench import approaches as registry
from dctx.bench.cli_errors import fail
from dctx.bench.loader import LoadedScenario, load_scenarios
from dctx.bench.losses_cli import losses
from dctx.bench.options import DimensionOpt, EmbedderOpt, IdOpt, ScenariosOpt
from dctx.bench.progress import progress_bar
from dctx.bench.realconv.cli import real
from dctx.bench.report import dumps, render_markdown, write_outputs
from dctx.bench.results import BenchResult, ScenarioResult
from dctx.bench.runner import BenchConfig, run_bench
from dctx.bench.validate import example_problems
from dctx.errors import ConfigError, DctxError

bench_app = typer.Typer(
    help="DC-Bench: does a behavioral memory apply what it learned?",
    no_args_is_help=False,
    add_completion=False,
)

_err = Console(stderr=True)


class ModeChoice(enum.StrEnum):
    delivery = "delivery"
    live = "live"


def _approach_names(given: list[str] | None) -> list[str]:
    """`-a forge_dc -a ctrl` and `-a forge_dc,ctrl` alike, in the order given."""
    return [n.strip() for value in given or [] for n in value.split(",") if n.strip()]


def _auto_jobs() -> int:
    return max(1, min(4, os.cpu_count() or 1))


@bench_app.callback(invoke_without_command=True)
def bench(
    ctx: typer.Context,
    scenarios: ScenariosOpt = None,
    approach: Annotated[
        list[str] | None,
        typer.Option(
            "--approach",
            "-a",
            help="Approach to run (repeatable, or comma-separated: -a forge_dc,ctrl); "
            "default: all.",
        ),
    ] = None,
    dimension: DimensionOpt = None,
    scenario_id: IdOpt = None,
    mode: Annotated[
        ModeChoice,
        typer.Option("--mode", "-m", help="delivery (offline) or live (LLM agent + judge)."),
    ] = ModeChoice.delivery,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", help="Worker processes (0: auto, up to 4).", envvar="DCTX_BENCH_JOBS"
        ),
    ] = 0,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON document on stdout.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write report.md, results.json and chart.png here."),
    ] = None,
    runs: Annotated[int, typer.Option("--runs", help="Live mode: runs per pair.")] = 5,
    llm: Annotated[
        str | None,
        typer.Option(
            "--llm", help="Capture-time LLM for approaches that use one.", envvar="DCTX_BENCH_LLM"
        ),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            help="Live mode: the agent model, 'provider:model[@URL]'.",
            envvar="DCTX_BENCH_AGENT",
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="Live mode: the judge model, 'provider:model[@URL]'.",
            envvar="DCTX_BENCH_JUDGE",
        ),
    ] = None,
    embedder: EmbedderOpt = "auto",
    units: Annotated[
        bool, typer.Option("--units", help="Include the delivered units in the JSON output.")
    ] = False,
) -> None:
    """Run approaches over the scenarios and report compliance, tokens and efficacy."""
    if ctx.invoked_subcommand is not None:
        # `dctx bench -s DIR validate`: the folder given before the subcommand applies to it
        ctx.ensure_object(dict)["scenarios"] = scenarios
        return
    try:
        loaded = load_scenarios(scenarios, dimensions=dimension, ids=scenario_id)
        if not loaded:
            raise ConfigError("no scenario matched the selection (check --dimension / --id)")
        config = BenchConfig(
            approaches=_approach_names(approach) or registry.names(),
            mode=mode.value,
            jobs=jobs or _auto_jobs(),
            embedder=embedder,
            llm=llm,
            agent=agent,
            judge=judge,
            runs=runs,
            keep_units=units,
        )
        config.validate()
        result = _run_with_progress(loaded, config)
    except DctxError as exc:
        raise fail(exc) from None
    notes: list[str] = []
    if out is not None:
        written, notes = write_outputs(result, out)
        for p in written:
            _err.print(f"wrote {p}", highlight=False)
    for note in notes:
        _err.print(note, highlight=False)
    if as_json:
        typer.echo(dumps(result))
    elif out is None:
        typer.echo(render_markdown(result))
    if result.errors():
        _err.print(f"[red]{len(result.errors())} scenario run(s) failed[/red]; see the report")
        raise typer.Exit(1)


def _run_with_progress(loaded: list[LoadedScenario], config: BenchConfig) -> BenchResult:
    total = len(loaded) * len(config.approaches)
    progress = progress_bar("bench", _err)
    with progress:
        task = progress.add_task("", total=total)

        def tick(r: ScenarioResult) -> None:
            progress.update(task, advance=1, description=f"{r.approach} {r.scenario}")

        return run_bench(loaded, config, on_result=tick)


@bench_app.command("list")
def list_scenarios(
    ctx: typer.Context,
    scenarios: ScenariosOpt = None,
    dimension: DimensionOpt = None,
    scenario_id: IdOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
) -> None:
    """List scenarios (id, dimension, domain, rubric size) and the registered approaches."""
    scenarios = scenarios or _given_before(ctx)
    try:
        loaded = load_scenarios(scenarios, dimensions=dimension, ids=scenario_id)
    except DctxError as exc:
        raise fail(exc) from None
    rows = [
        {
            "id": ls.scenario.id,
            "dimension": ls.scenario.dimension,
            "domain": ls.scenario.domain,
            "items": len(ls.scenario.expect),
            "steps": len(ls.scenario.test.steps),
            "source": ls.source,
        }
        for ls in loaded
    ]
    if as_json:
        approaches = {s.name: s.description for s in registry.REGISTRY.values()}
        typer.echo(json.dumps({"scenarios": rows, "approaches": approaches}, indent=2))
        return
    for r in rows:
        typer.echo(f"{r['id']}\t{r['dimension']}\t{r['domain']}\t{r['items']} items")
    typer.echo(f"{len(rows)} scenario(s); approaches: {', '.join(registry.names())}")


@bench_app.command("validate")
def validate(
    ctx: typer.Context,
    path: Annotated[
        Path | None, typer.Argument(help="Scenario file or folder; default: the bundled set.")
    ] = None,
) -> None:
    """Check scenario files: the contract's schema, regexes, and rubric examples.

    Example: dctx bench validate my_scenarios/
    """
    path = path or _given_before(ctx)
    try:
        loaded = load_scenarios(path)
    except DctxError as exc:
        raise fail(exc) from None
    problems = [p for ls in loaded for p in example_problems(ls.scenario)]
    for p in problems:
        typer.echo(p, err=True)
    typer.echo(f"{len(loaded)} scenario(s) loaded, {len(problems)} example problem(s)")
    if problems:
        raise typer.Exit(1)


bench_app.command("real")(real)
bench_app.command("losses")(losses)


def _given_before(ctx: typer.Context) -> Path | None:
    """The --scenarios folder given to `dctx bench` itself, before the subcommand."""
    parent = ctx.parent.obj if ctx.parent is not None else None
    found = parent.get("scenarios") if isinstance(parent, dict) else None
    return Path(found) if found is not None else None


def main() -> None:  # pragma: no cover - `python -m dctx.bench.cli`
    bench_app(prog_name="dctx bench")


if __name__ == "__main__":  # pragma: no cover
    main()
