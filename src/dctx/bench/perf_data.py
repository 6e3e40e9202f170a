"""Synthetic but realistic data for the performance benchmark (`perf.py`).

Rules of every trigger kind across several actors and skills, written with real embedder
vectors (a bank of a few hundred distinct texts embedded once, perturbed per rule); tool
results and queries never seen before; and agent sessions with tool calls, failures, retries
and human corrections. Deterministic for a seed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dctx.memory import Memory
from dctx.models import (
    NumericCondition,
    Rule,
    RuleSource,
    RuleType,
    Scope,
    Trigger,
    TriggerKind,
)
from dctx.providers.base import Embedder
from dctx.store.base import CaptureBatch, Vector

SKILLS = ("financial_analyst", "customer_support", "devops", "legal_review", "sales_ops")
N_ACTORS = 25
ACTOR = "actor_0"  # the measured run's actor and skill
SKILL = "financial_analyst"
TOOLS = (
    "get_financials", "get_segments", "get_filings", "get_price_history", "fx_convert",
    "get_analyst_estimates", "compute_ratio", "search_news", "get_customer", "get_order",
    "refund_order", "search_kb", "escalate_ticket", "get_logs", "restart_service",
    "scale_cluster", "query_metrics", "open_incident", "search_case_law", "get_contract",
    "redline_clause", "get_pipeline", "update_crm", "send_quote", "get_invoice",
)  # fmt: skip

# --------------------------------------------------------------------------- synthetic text

_FORMATS = [
    "Put company comparisons in a table, one column per company and metrics as rows.",
    "Answer in at most three bullet points.", "Lead with the headline number, then the detail.",
    "Round percentages to one decimal place.", "Write amounts in millions with a currency sign.",
    "Bold the better value in every row of a comparison table.",
    "Keep the summary under one hundred words.", "Use ISO dates in every answer.",
    "Quote the customer's order number in the first line.", "Sign off with the ticket id.",
    "Show log excerpts in a code block.", "List open risks as a numbered list.",
    "Cite the clause number next to every legal statement.",
    "Put the recommended action in the first sentence.",
]  # fmt: skip
_DIRECTIVES = [
    "include the year-over-year change for every metric",
    "flag any restatement before quoting figures",
    "compare against the two closest peers",
    "state the fiscal period explicitly",
    "give the operating margin next to revenue",
    "mention free cash flow, not only net income",
    "check the refund policy before promising a refund",
    "offer a replacement before a refund",
    "escalate to tier two when the customer mentions legal action",
    "confirm the shipping address before reshipping",
    "check recent deploys before restarting a service",
    "attach the dashboard link to every incident summary",
    "page the on-call engineer for severity one incidents",
    "quote the governing-law clause when asked about jurisdiction",
    "flag indemnity caps below the contract value",
    "log every call summary in the CRM",
    "attach the pricing sheet to every quote",
    "convert all figures to USD before comparing",
    "report growth per segment, not only the consolidated number",
    "show the runway in months next to the burn rate",
]
_QUALIFIERS = [
    "", " for public companies", " for enterprise customers", " in quarterly reviews",
    " for production systems", " for EU contracts", " when the user is a manager",
    " for deals above the discount threshold", " in board reports", " for new accounts",
    " during a merger review", " for the Asia region", " in weekly summaries",
    " for renewals", " for regulated industries",
]  # fmt: skip
_SITUATIONS = [
    "Summarize the company's quarterly results.", "Compare two companies on margins.",
    "How did the stock perform this year?", "Assess the company's leverage.",
    "A customer wants a refund for a damaged order.", "A customer asks where the order is.",
    "The checkout service is returning errors.", "Latency on the API spiked overnight.",
    "Review this supplier contract for risks.", "Is the non-compete enforceable?",
    "Prepare a quote for a renewal deal.", "Update the pipeline forecast for the quarter.",
    "What is the company's cash runway?", "Explain the drop in gross margin.",
    "Draft the incident postmortem.", "Which clauses changed in the new version?",
]  # fmt: skip
_DATA_WORDS = [
    ["segment"], ["restat"], ["currenc"], ["guidanc"], ["dividend"], ["buyback"],
    ["impair"], ["covenant"], ["backlog"], ["churn"], ["chargeback"], ["outag"],
    ["latenc", "spike"], ["merger"], ["lawsuit"], ["indemn"], ["renew", "discount"],
    ["enterpris"], ["refund", "damag"], ["deploy", "rollback"],
]  # fmt: skip
_NUMERIC = [
    (["runway", "month"], "<", 12.0), (["margin"], "<", 10.0), (["debt", "equiti"], ">", 2.0),
    (["churn"], ">", 5.0), (["growth"], ">", 25.0), (["latenc"], ">", 500.0),
    (["discount"], ">", 20.0), (["amount"], ">", 1000.0),
]  # fmt: skip
_COMPANIES = [
    "Orion Robotics", "Corvid Semiconductor", "Halvard Energy", "Brightwater Utilities",
    "Kestrel Aerospace", "Tavistock Instruments", "Ridgeway Systems", "Quillstone Foods",
    "Harrowgate Pharma", "Northwind Logistics", "Altamira Biotech", "Sable Networks",
]  # fmt: skip
_METRICS = ["growth", "margins", "leverage", "cash runway", "segment mix", "guidance", "backlog"]
_PERIODS = ["FY2023", "FY2024", "FY2025", "2025-Q1", "2025-Q2", "2025-Q3", "2025-Q4", "TTM"]


@dataclass(slots=True)
class TextBank:
    """Distinct texts and their vectors; rules reuse them with a per-rule perturbation."""

    texts: list[str]
    vectors: Vector
    index: dict[str, int]

    @classmethod
    def build(cls, embedder: Embedder, texts: Sequence[str]) -> TextBank:
        unique = list(dict.fromkeys(texts))
        return cls(unique, embedder.embed(unique), {t: i for i, t in enumerate(unique)})

    def vector(self, text: str, rng: np.random.Generator, noise: float = 0.02) -> Vector:
        base = self.vectors[self.index[text]]
        vec = base + rng.normal(0.0, noise, base.shape).astype(np.float32)
        return np.asarray(vec / np.linalg.norm(vec), dtype=np.float32)


def bank_texts() -> list[str]:
    texts = list(_FORMATS) + list(_SITUATIONS)
    texts += [_sentence(d + q) for d in _DIRECTIVES for q in _QUALIFIERS[:8]]
    texts += [f"before calling {t}" for t in TOOLS] + [_tool_text(t) for t in TOOLS]
    texts += [" ".join(w) for w in _DATA_WORDS] + [" ".join(t) for t, _, _ in _NUMERIC]
    return texts


def _tool_text(tool: str) -> str:
    prerequisite = TOOLS[(TOOLS.index(tool) + 1) % len(TOOLS)]
    return f"Call {prerequisite} before calling {tool}."


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


def synthetic_rules(count: int, *, start: int = 0, seed: int = 7) -> list[Rule]:
    """`count` varied rules (ids rule_syn_<start>...); deterministic for a seed and index."""
    rules = []
    for i in range(start, start + count):
        rng = random.Random(seed * 1_000_003 + i)
        actor = f"actor_{rng.randrange(N_ACTORS)}"
        skill = rng.choice(SKILLS) if rng.random() < 0.95 else None
        shared = rng.random() < 0.2
        roll = rng.random()
        directive = _sentence(rng.choice(_DIRECTIVES) + rng.choice(_QUALIFIERS[:8]))
        source = RuleSource.CORRECTION
        rtype = RuleType.CONTENT
        if roll < 0.10:
            rtype = RuleType.FORMAT
            text = rng.choice(_FORMATS)
            trigger = Trigger(TriggerKind.ALWAYS, text=text)
        elif roll < 0.50:
            text = directive
            trigger = Trigger(TriggerKind.QUERY, text=rng.choice(_SITUATIONS))
        elif roll < 0.70:
            words = rng.choice(_DATA_WORDS)
            text = directive
            trigger = Trigger(TriggerKind.DATA, text=" ".join(words), keywords=list(words))
        elif roll < 0.80:
            terms, op, value = rng.choice(_NUMERIC)
            text = directive
            trigger = Trigger(
                TriggerKind.DATA,
                text=" ".join(terms),
                numeric=NumericCondition(list(terms), op, value),  # type: ignore[arg-type]
            )
        else:
            tool = rng.choice(TOOLS)
            after = rng.choice(TOOLS) if rng.random() < 0.5 else None
            text = _tool_text(tool)
            trigger = Trigger(
                TriggerKind.TOOL, text=f"before calling {tool}", tool=tool, after_tool=after
            )
            source = RuleSource.SELF_ASSESSMENT
            shared = True
        group = f"g{i}" if rng.random() > 0.05 else f"g{rng.randrange(max(1, i // 2 + 1))}"
        rules.append(
            Rule(
                id=f"rule_syn_{i:07d}",
                text=text,
                type=rtype,
                trigger=trigger,
                scope=Scope(skill=skill, actor=None if shared else actor),
                source=source,
                actor=None if source is RuleSource.SELF_ASSESSMENT else actor,
                group=group,
                support=rng.randint(1, 3),
                supporters=[] if source is RuleSource.SELF_ASSESSMENT else [actor],
                created_at=f"2026-01-{1 + i % 28:02d}T09:00:00Z",
                updated_at=f"2026-01-{1 + i % 28:02d}T09:00:00Z",
            )
        )
    return rules


def write_rules(mem: Memory, bank: TextBank, rules: Sequence[Rule], seed: int = 7) -> None:
    """Write rules with perturbed bank vectors, in chunks, in one transaction."""
    rng = np.random.default_rng(seed + len(rules))
    with mem.store.transaction():
        for lo in range(0, len(rules), 5_000):
            chunk = list(rules[lo : lo + 5_000])
            batch = CaptureBatch(rules=chunk)
            for rule in chunk:
                batch.rule_vectors[rule.id] = (
                    bank.vector(rule.text, rng),
                    bank.vector(rule.trigger.text or rule.text, rng),
                )
            mem.store.write(batch)


class FreshTexts:
    """Never-seen-before queries and tool results (so the embedder cache cannot help)."""

    def __init__(self) -> None:
        self.n = 0

    def query(self) -> str:
        self.n += 1
        c = _COMPANIES[self.n % len(_COMPANIES)]
        return f"Summarize {c}'s {_METRICS[self.n % len(_METRICS)]} for run {self.n}."

    def result(self) -> str:
        self.n += 1
        a, b = 1000 + self.n, 700 + self.n % 311
        return (
            f'{{"filing": "10-Q/{self.n}", '
            f'"company": "{_COMPANIES[self.n % len(_COMPANIES)]}", "period": "FY2025", '
            f'"segments": [{{"name": "Cloud", "revenue": {a}, "revenue_prior": {b}}}, '
            f'{{"name": "Devices", "revenue": {b}, "revenue_prior": {a}}}], '
            f'"runway_months": {6 + self.n % 20}, "operating_margin": {8 + self.n % 9}}}'
        )  # the filing id makes each result new; its summary drops it first when over budget
        # (retrieve/budget.py), so perf.py empties the embedder's cache before each new text


# --------------------------------------------------------------------------- sessions


_CORRECTIONS = [
    "Whenever a company reports segments, give growth per segment, not just the total.",
    "Always put company comparisons in a table, one column per company.",
    "If the runway is under 12 months, flag it at the top.",
    "Always call get_filings to check for restatements before you call get_financials.",
    "Round percentages to one decimal place.",
    "Don't quote analyst estimates without naming the provider.",
    "For banks, use the efficiency ratio instead of the operating margin.",
]
_DATE_ERROR = "Error: invalid date '01/01/2025'; expected an ISO 8601 date"
_LICENSE_ERROR = "Error: 403 Forbidden - the license for provider 'refinitiv' has expired"


def _tool_turn(cid: str, name: str, args: dict[str, Any], result: Any) -> list[dict[str, Any]]:
    fn = {"name": name, "arguments": json.dumps(args)}
    content = result if isinstance(result, str) else json.dumps(result)
    return [
        {"role": "assistant", "tool_calls": [{"id": cid, "type": "function", "function": fn}]},
        {"role": "tool", "tool_call_id": cid, "content": content},
    ]


def synthetic_sessions(count: int, seed: int = 11) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(actor, conversation id, OpenAI messages): a question, tool calls (some failing and
    retried with changed arguments, some failing for good), an answer, and in about half of
    the sessions a human correction."""
    out = []
    for i in range(count):
        rng = random.Random(seed * 7919 + i)
        company, period = rng.choice(_COMPANIES), rng.choice(_PERIODS)
        ticker = company[:4].upper()
        calls: list[tuple[str, dict[str, Any], Any]] = [
            (
                "get_financials",
                {"ticker": ticker, "period": period},
                {"ticker": ticker, "revenue": 1000 + i, "operating_income": 120 + i % 50},
            ),
        ]
        if rng.random() < 0.3:
            calls.append(
                ("get_price_history", {"ticker": ticker, "start": "01/01/2025"}, _DATE_ERROR)
            )
            calls.append(
                (
                    "get_price_history",
                    {"ticker": ticker, "start": "2025-01-01"},
                    {"ticker": ticker, "change_pct": rng.randint(-30, 40)},
                )
            )
        if rng.random() < 0.15:
            calls.append(
                (
                    "get_analyst_estimates",
                    {"ticker": ticker, "provider": "refinitiv"},
                    _LICENSE_ERROR,
                )
            )
        calls.append(
            (
                "get_segments",
                {"ticker": ticker, "period": period},
                {"segments": [{"name": "A", "revenue": 600 + i}, {"name": "B", "revenue": 400}]},
            )
        )
        question = f"Summarize {company}'s {rng.choice(_METRICS)} for {period}."
        msgs: list[dict[str, Any]] = [{"role": "user", "content": question}]
        for n, (name, args, result) in enumerate(calls):
            msgs += _tool_turn(f"c{i}_{n}", name, args, result)
        answer = f"{company} grew revenue {rng.randint(2, 30)}% in {period}."
        msgs.append({"role": "assistant", "content": answer})
        if rng.random() < 0.5:
            msgs += [
                {"role": "user", "content": rng.choice(_CORRECTIONS)},
                {"role": "assistant", "content": "Understood, here is the revised answer."},
                {"role": "user", "content": "Thanks, that's right."},
            ]
        else:
            msgs.append({"role": "user", "content": "Thanks."})
        out.append((f"analyst_{i % 10}", f"perf-{seed}-{i}", msgs))
    return out
