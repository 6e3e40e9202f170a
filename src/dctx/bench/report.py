"""Reports of a benchmark run: the paper's tables as Markdown, one JSON document, a chart.

- Table 2: mean compliance by dimension x approach (plus overall).
- Table 3: mean injected tokens and efficacy per approach.
- Table 5: per-scenario compliance.
- No-regression: on every scenario the control (`ctrl`) passes, does each approach pass too?
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dctx.bench.results import BenchResult
from dctx.bench.schema import DIMENSIONS

DIM_LABELS = {
    "behavioral_change": "Behav. Change",
    "conditional_activation": "Cond. Activation",
    "exception": "Exception",
    "generalization": "Generalize",
    "implicit_learning": "Implicit Learn.",
    "persistence": "Persistence",
    "recall": "Recall",
    "scope_precision": "Scope Precision",
    "temporal_coherence": "Temporal Coh.",
}
BASELINE = "ctrl"
TARGET = "forge_dc"
PASS = 100.0 - 1e-9


def _pct(value: float) -> str:
    return f"{value:.0f}"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]], align: str = "l") -> str:
    """A Markdown table; align "r" right-aligns every column but the first."""
    right = "---:" if align == "r" else ":---"
    rule = [":---"] + [right] * (len(header) - 1)
    return "\n".join([_row(header), _row(rule), *(_row(r) for r in rows)])


def _dimensions(result: BenchResult) -> list[str]:
    present = {r.dimension for r in result.results}
    return [d for d in DIMENSIONS if d in present] + sorted(present - set(DIMENSIONS))


def table_dimensions(result: BenchResult) -> str:
    """Table 2: mean compliance (%) by dimension; best per row in bold."""
    sums = {a: result.summary(a) for a in result.approaches}
    rows: list[list[str]] = []
    for dim in _dimensions(result):
        count = max((s.dimension_counts.get(dim, 0) for s in sums.values()), default=0)
        vals = {a: s.dimensions.get(dim) for a, s in sums.items()}
        rows.append([f"{DIM_LABELS.get(dim, dim)} ({count})", *_cells(vals, result.approaches)])
    overall = {a: s.overall if s.n else None for a, s in sums.items()}
    n = len(result.scenario_ids())
    rows.append([f"**Overall ({n})**", *_cells(overall, result.approaches)])
    return _table(["Dimension", *(f"`{a}`" for a in result.approaches)], rows, "r")


def _cells(vals: dict[str, float | None], order: list[str]) -> list[str]:
    best = max((v for v in vals.values() if v is not None), default=None)
    out = []
    for a in order:
        v = vals.get(a)
        if v is None:
            out.append("—")
        elif best is not None and abs(v - best) < 1e-9 and best > 0:
            out.append(f"**{_pct(v)}**")
        else:
            out.append(_pct(v))
    return out


def table_tokens(result: BenchResult) -> str:
    """Table 3: mean injected tokens per scenario and efficacy (share of scenarios with any
    injection that score > 0)."""
    rows = []
    for a in result.approaches:
        s = result.summary(a)
        eff = "—" if s.efficacy is None else f"{100 * s.efficacy:.1f}%"
        rows.append([f"`{a}`", f"{s.tokens_mean:,.0f}", eff])
    return _table(["Approach", "Tokens", "Efficacy"], rows, "r")


def table_scenarios(result: BenchResult) -> str:
    """Table 5: per-scenario compliance; ✓ = 100%."""
    scores = {(r.approach, r.scenario): r for r in result.results}
    dims = {r.scenario: r.dimension for r in result.results}
    order = {d: i for i, d in enumerate(_dimensions(result))}
    rows = []
    for sid in sorted(result.scenario_ids(), key=lambda s: (order.get(dims[s], 99), s)):
        cells = []
        for a in result.approaches:
            r = scores.get((a, sid))
            if r is None:
                cells.append("—")
            elif r.error:
                cells.append("err")
            else:
                cells.append("✓" if r.score >= PASS else _pct(r.score))
        rows.append([DIM_LABELS.get(dims[sid], dims[sid]), f"`{sid}`", *cells])
    return _table(["Dimension", "Scenario", *(f"`{a}`" for a in result.approaches)], rows)


def no_regression(result: BenchResult) -> dict[str, Any]:
    """Scenarios where `ctrl` scores 100%, and which of them each other approach fails.

    `passes` is the paper's claim for `forge_dc` (None when ctrl or forge_dc did not run).
    """
    if BASELINE not in result.approaches:
        return {"checked": False, "reason": "ctrl was not run", "passes": None}
    base = [r.scenario for r in result.of(BASELINE) if r.score >= PASS]
    scores = {(r.approach, r.scenario): r.score for r in result.results}
    failures = {
        a: [s for s in base if scores.get((a, s), 0.0) < PASS]
        for a in result.approaches
        if a != BASELINE
    }
    passes = None if TARGET not in failures else not failures[TARGET]
    return {"checked": True, "ctrl_passes": base, "failures": failures, "passes": passes}


def _no_regression_md(check: dict[str, Any]) -> str:
    if not check["checked"]:
        return f"No-regression check skipped: {check['reason']}."
    base = check["ctrl_passes"]
    lines = [f"`ctrl` passes {len(base)} scenario(s): {', '.join(f'`{s}`' for s in base) or '—'}."]
    for a, failed in check["failures"].items():
        verdict = "passes all of them" if not failed else f"fails {', '.join(failed)}"
        lines.append(f"- `{a}` {verdict}")
    if check["passes"] is not None:
        ok = "holds" if check["passes"] else "is VIOLATED"
        lines.append(f"\nNo-regression for `{TARGET}` {ok}.")
    return "\n".join(lines)


_USAGE_COLUMNS = (
    ("llm_calls", "LLM calls"),
    ("llm_input_tokens", "LLM in"),
    ("llm_output_tokens", "LLM out"),
    ("embedding_tokens", "Embed"),
    ("cache_hits", "Cache hits"),
    ("fallbacks", "Fallbacks"),
)


def usage_by_approach(result: BenchResult) -> dict[str, dict[str, int]]:
    """Summed LLM / embedding usage per approach, for approaches run with an LLM."""
    out: dict[str, dict[str, int]] = {}
    for a in result.approaches:
        for r in result.of(a):
            if r.usage is None:
                continue
            total = out.setdefault(a, {})
            for key, value in r.usage.items():
                total[key] = total.get(key, 0) + int(value)
    return out


def table_usage(result: BenchResult) -> str:
    """Table 4 (paper): tokens spent by the capture-time LLM and the embedder, summed over
    the scenarios."""
    usage = usage_by_approach(result)
    header = ["Approach", *(label for _, label in _USAGE_COLUMNS)]
    rows = [
        [f"`{a}`", *(f"{u.get(key, 0):,}" for key, _ in _USAGE_COLUMNS)] for a, u in usage.items()
    ]
    return _table(header, rows, align="r")


def guard_coverage(result: BenchResult) -> dict[str, dict[str, Any]]:
    """Per approach with guards (forge_dc): the tool checks its compiled guards would have
    enforced (bench/guard_coverage.py), over the scenarios that have tool checks."""
    out: dict[str, dict[str, Any]] = {}
    for a in result.approaches:
        ran = [r for r in result.of(a) if r.guards is not None]
        rows = [r for r in ran if r.guards and r.guards["checks"]]
        if not ran:
            continue
        out[a] = {
            "scenarios": len(rows),
            "guards": sum(int(r.guards["guards"]) for r in ran if r.guards),
            "reference_fires": sum(int(r.guards["reference_fires"]) for r in ran if r.guards),
            "checks": sum(int(r.guards["checks"]) for r in rows if r.guards),
            "enforced": sum(len(r.guards["enforced"]) for r in rows if r.guards),
            "fully_enforced": [
                r.scenario
                for r in rows
                if r.guards and len(r.guards["enforced"]) == r.guards["checks"]
            ],
            "partly_enforced": [
                r.scenario
                for r in rows
                if r.guards and 0 < len(r.guards["enforced"]) < r.guards["checks"]
            ],
        }
    return out


def _guard_md(cov: dict[str, dict[str, Any]]) -> str:
    lines = []
    for a, c in cov.items():
        full = ", ".join(f"`{s}`" for s in c["fully_enforced"]) or "none"
        line = (
            f"- `{a}`: guards compiled from its delivered rules would have enforced "
            f"{c['enforced']} of {c['checks']} tool checks; all tool checks of "
            f"{len(c['fully_enforced'])} of {c['scenarios']} scenarios ({full})"
        )
        if c["partly_enforced"]:
            line += "; some in " + ", ".join(f"`{s}`" for s in c["partly_enforced"])
        line += (
            f". {c['guards']} guard(s) in all; they would have corrected or blocked "
            f"{c['reference_fires']} call(s) of the reference runs (wrong fires)"
        )
        lines.append(line + ".")
    return "\n".join(lines)


def render_markdown(result: BenchResult, *, chart: str | None = None) -> str:
    """The whole report as Markdown."""
    meta = ", ".join(f"{k}: {v}" for k, v in result.meta.items())
    parts = [
        f"# DC-Bench results ({result.mode})",
        f"{len(result.scenario_ids())} scenarios, approaches: "
        f"{', '.join(result.approaches)}; {meta}; {result.seconds:.1f} s.",
        "## Mean compliance (%) by dimension",
        table_dimensions(result),
        "## Injected tokens and efficacy",
        table_tokens(result),
        "## No regression",
        _no_regression_md(no_regression(result)),
        "## Per-scenario compliance (%)",
        table_scenarios(result),
    ]
    if usage_by_approach(result):
        parts[6:6] = ["## LLM and embedding cost (capture + run)", table_usage(result)]
    cov = guard_coverage(result)
    if cov:
        at = parts.index("## Per-scenario compliance (%)")
        parts[at:at] = ["## Guard coverage (tool checks)", _guard_md(cov)]
    errors = result.errors()
    if errors:
        parts += [
            "## Errors",
            "\n".join(f"- `{r.approach}` on `{r.scenario}`: {r.error}" for r in errors),
        ]
    if chart:
        parts.insert(2, chart)
    return "\n\n".join(parts) + "\n"


def json_document(result: BenchResult) -> dict[str, Any]:
    """ONE JSON document: per approach overall, per-dimension and per-scenario numbers."""
    approaches: dict[str, Any] = {}
    for a in result.approaches:
        s = result.summary(a)
        rows = []
        for r in result.of(a):
            row: dict[str, Any] = {
                "id": r.scenario,
                "dimension": r.dimension,
                "domain": r.domain,
                "score": r.score,
                "tokens": r.tokens,
                "units": r.units,
                "items": r.items,
            }
            if result.mode == "live":
                row["runs"] = r.runs
                row["run_scores"] = r.run_scores
            for key in ("error", "notes", "delivered", "guards"):
                if getattr(r, key) is not None:
                    row[key] = getattr(r, key)
            rows.append(row)
        approaches[a] = {
            "overall": s.overall,
            "dimensions": s.dimensions,
            "tokens": s.tokens_mean,
            "efficacy": s.efficacy,
            "errors": sum(1 for r in result.of(a) if r.error),
            "scenarios": rows,
        }
        usage = usage_by_approach(result).get(a)
        if usage is not None:
            approaches[a]["usage"] = usage
    for a, cov in guard_coverage(result).items():
        approaches[a]["guard_coverage"] = cov
    return {
        "mode": result.mode,
        "scenarios": len(result.scenario_ids()),
        "seconds": result.seconds,
        "meta": result.meta,
        "approaches": approaches,
        "no_regression": no_regression(result),
    }


def dumps(result: BenchResult) -> str:
    return json.dumps(json_document(result), ensure_ascii=False, indent=2)


def write_chart(result: BenchResult, path: Path) -> str | None:
    """Grouped bars: compliance by dimension (and overall) per approach. Returns a note
    instead of writing when matplotlib (the `plot` extra) is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "chart skipped: matplotlib is not installed (pip install 'dctx[plot]')"
    dims = _dimensions(result)
    labels = [DIM_LABELS.get(d, d) for d in dims] + ["Overall"]
    n = max(len(result.approaches), 1)
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(8.0, 1.1 * len(labels) + 3), 4.5))
    for i, a in enumerate(result.approaches):
        s = result.summary(a)
        vals = [s.dimensions.get(d, 0.0) for d in dims] + [s.overall]
        xs = [x + (i - (n - 1) / 2) * width for x in range(len(labels))]
        ax.bar(xs, vals, width=width, label=a)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.set_ylabel("compliance (%)")
    ax.set_ylim(0, 105)
    ax.set_title(f"DC-Bench ({result.mode})")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


def write_outputs(result: BenchResult, out: Path) -> tuple[list[Path], list[str]]:
    """Write report.md, results.json and chart.png into `out`; return (paths, notes)."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    notes: list[str] = []
    chart = out / "chart.png"
    note = write_chart(result, chart)
    if note:
        notes.append(note)
    else:
        written.append(chart)
    md = out / "report.md"
    md.write_text(
        render_markdown(result, chart=None if note else "![compliance](chart.png)"),
        encoding="utf-8",
    )
    data = out / "results.json"
    data.write_text(dumps(result) + "\n", encoding="utf-8")
    return [md, data, *written], notes
