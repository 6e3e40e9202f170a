"""Persistence scenarios built from many corrections: 100_corr (25 sessions x 4) and 50_corr
(one correction per session), drawn from the `fin_corrections` library.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from benchmarks.scenario_gen.fin_common import SKILL, item, session, tools
from benchmarks.scenario_gen.fin_corrections import CORRECTIONS, Correction
from benchmarks.scenario_gen.fin_session import SessionBuilder, join_lead

# --------------------------------------------------------------------------- 100 / 50 corr


_TRANSITIONS = ("Next:", "Now,", "Anyway -", "Moving on:", "Also,", "Other thing:")
_ACKS = ("thanks. ", "ok. ", "good. ", "right. ", "")


def _pick(rng: random.Random, n: int, required: Sequence[str]) -> list[Correction]:
    by_key = {c.key: c for c in CORRECTIONS}
    chosen = [by_key[k] for k in required]
    others = [c for c in CORRECTIONS if c.key not in required]
    chosen += rng.sample(others, n - len(chosen))
    rng.shuffle(chosen)
    return chosen


def _correction_sessions(
    rng: random.Random,
    entries: Sequence[Correction],
    per_session: int,
    actor: str,
    start: date,
    gap_days: int,
) -> list[dict[str, Any]]:
    sessions: list[dict[str, Any]] = []
    for si in range(0, len(entries), per_session):
        chunk = entries[si : si + per_session]
        n = si // per_session
        b = SessionBuilder(f"{n:02d}_")
        pending: Correction | None = None
        for i, c in enumerate(chunk):
            result = {"company": c.company, **c.result}
            if pending is not None:
                said = pending.correction
                said += "" if said.endswith((".", "!", "?")) else "."
                b.user(f"{said} {join_lead(rng.choice(_TRANSITIONS) + ' ', c.ask)}")
                b.call(c.tool, c.args, result, content=pending.fix)
            else:
                b.user(join_lead(rng.choice(_ACKS) if i else "", c.ask))
                b.call(c.tool, c.args, result)
            b.say(c.answer)
            pending = None
            if i < len(chunk) - 1 and rng.random() < 0.3:
                pending = c
            else:
                b.user(c.correction)
                b.say(c.fix)
        if rng.random() < 0.5:
            b.user(rng.choice(("thanks", "great, that's it", "👍", "ok cheers")))
        day = start + timedelta(days=n * gap_days)
        ts = f"{day.isoformat()}T{rng.randint(8, 17):02d}:{rng.randint(0, 59):02d}:00Z"
        sessions.append(session(f"{actor}-{day.isoformat()}", actor, ts, b))
    return sessions


def _sector_negatives(keys: Sequence[str]) -> list[dict[str, Any]]:
    spec = {
        "bank_cet1": (
            "no_bank_rule",
            "Does not bring in the bank capital rule (CET1).",
            [r"\bCET1\b", "common equity tier"],
            "For banks, lead with CET1 against the regulatory minimum plus buffers.",
        ),
        "reit_ffo": (
            "no_reit_rule",
            "Does not bring in the REIT valuation rule (FFO/AFFO).",
            [r"\bA?FFO\b", "funds from operations"],
            "Never value a REIT on EPS - use FFO / AFFO per share.",
        ),
        "oil_reserve_replacement": (
            "no_energy_rule",
            "Does not bring in the E&P reserve-replacement rule.",
            ["reserve replacement"],
            "For any E&P, include the reserve replacement ratio.",
        ),
        "saas_rule_of_40": (
            "no_saas_rule",
            "Does not bring in the SaaS Rule of 40.",
            ["rule of 40"],
            "For SaaS companies always compute the Rule of 40.",
        ),
        "air_casm": (
            "no_airline_rule",
            "Does not bring in the airline unit-cost rule (CASM).",
            [r"\bCASM"],
            "For airlines use CASM-ex fuel to judge cost control.",
        ),
    }
    out = []
    for k in keys:
        item_id, text, pats, bad = spec[k]
        out.append((item_id, text, pats, bad))
    return [
        item(i, "negative", 1, t, "final", {"any": p}, ["__GOOD__"], [bad]) for i, t, p, bad in out
    ]


def _fill_goods(items: list[dict[str, Any]], goods: list[str]) -> list[dict[str, Any]]:
    for it in items:
        if it["examples"]["good"] == ["__GOOD__"]:
            it["examples"]["good"] = goods
    return items


def build_100_corr() -> dict[str, Any]:
    rng = random.Random(100_4)
    required = (
        "fmt_iso_currency",
        "saas_rule_of_40",
        "gen_customer_concentration",
        "bank_cet1",
        "reit_ffo",
        "oil_reserve_replacement",
    )
    entries = _pick(rng, 100, required)
    seed = _correction_sessions(rng, entries, 4, "eleanor", date(2025, 9, 8), 6)
    iso = [
        "Write currencies as the ISO code before the amount (USD 412.7M), not symbols.",
        "RULE: Currency format: ISO code + amount, e.g. USD 12.4M.",
    ]
    r40 = [
        "For SaaS companies, compute the Rule of 40 (growth % + FCF margin %) and say whether "
        "they clear 40.",
        "RULE: Software/subscription companies -> report the Rule of 40 score.",
    ]
    conc = [
        "If one customer is more than 20% of revenue, call out customer concentration "
        "explicitly with the share.",
        "RULE: Single customer > 20% of revenue -> flag customer concentration risk.",
        "Whenever one customer is more than 20% of revenue, call out customer concentration "
        "explicitly, with the share.",
    ]
    items = [
        item(
            "iso_currency",
            "positive",
            2,
            "Writes amounts with ISO currency codes (USD 96.2M), not symbols.",
            "start",
            {
                "all": [r"(currenc|\bUSD\b|\$)"],
                "any": [r"\bISO\b", r"\bUSD \d", "currency code", r"code (in front|before)"],
            },
            iso,
            ["Use $ for dollar amounts.", "Round amounts to one decimal."],
        ),
        item(
            "rule_of_40",
            "positive",
            3,
            "Computes Saltmarsh's Rule of 40 score (29% growth + 8% FCF margin = 37).",
            "final",
            {"all": ["rule of 40"]},
            r40,
            ["Report revenue growth and FCF margin.", "Give CAC payback for SaaS."],
        ),
        item(
            "customer_concentration",
            "positive",
            3,
            "Calls out customer concentration (top customer 31% of revenue).",
            "final",
            {"all": ["concentrat"], "any": [r"\b20\s?%", "customer", "single"]},
            conc,
            ["List the top five customers.", "Mention cyclical demand risk."],
        ),
        item(
            "concentration_not_early",
            "negative",
            1,
            "The concentration rule is not pushed before customer data is seen.",
            "start",
            {"any": ["concentrat"]},
            iso,
            conc[:1],
        ),
        *_sector_negatives(("bank_cet1", "reit_ffo", "oil_reserve_replacement")),
    ]
    return {
        "id": "fin.persistence.100_corr",
        "dimension": "persistence",
        "domain": SKILL,
        "description": (
            "100 distinct corrections over 25 sessions (mostly sector- or data-scoped); a "
            "subscription-software test must receive the three that apply (ISO currency format, "
            "Rule of 40, customer concentration) and none of the bank/REIT/energy rules."
        ),
        "tools": tools(
            "get_financials",
            "get_sector_metrics",
            "get_saas_metrics",
            "get_filings",
            "search_news",
            "get_debt_schedule",
            "get_cash_flow",
            "fx_convert",
        ),
        "seed": seed,
        "test": {
            "actor": "eleanor",
            "skill": SKILL,
            "query": "Quick take on Saltmarsh Software's latest quarter.",
            "steps": [
                {
                    "call": {
                        "name": "get_saas_metrics",
                        "arguments": {"company": "Saltmarsh Software"},
                    },
                    "result": '{"company": "Saltmarsh Software", "period": "2025-Q4", "arr": '
                    '384.8, "revenue": 96.2, "revenue_growth": 0.29, "fcf_margin": 0.08, '
                    '"nrr": 1.07, "units": "USD millions"}',
                },
                {
                    "call": {
                        "name": "get_sector_metrics",
                        "arguments": {"company": "Saltmarsh Software", "metric_set": "customers"},
                    },
                    "result": '{"company": "Saltmarsh Software", "top_customer_share": 0.31, '
                    '"top5_share": 0.58, "customers": 410}',
                },
            ],
        },
        "expect": _fill_goods(items, [*iso, *r40, conc[0]]),
    }


def build_50_corr() -> dict[str, Any]:
    rng = random.Random(50_5)
    required = (
        "fmt_iso_dates",
        "bank_cet1",
        "bank_deposit_outflow",
        "saas_rule_of_40",
        "reit_ffo",
        "air_casm",
    )
    entries = _pick(rng, 50, required)
    seed = _correction_sessions(rng, entries, 1, "farid", date(2025, 7, 1), 4)
    dates = [
        "Write dates as YYYY-MM-DD.",
        "RULE: Format every date in ISO form, e.g. 2026-02-03.",
        "Dates as YYYY-MM-DD please, always. 'February 3rd' breaks our spreadsheet import.",
    ]
    cet1 = [
        "For banks, lead with CET1 and show it against the regulatory minimum plus buffers.",
        "RULE: Bank capital = CET1 ratio vs requirement including buffers (headroom in bps).",
    ]
    deposits = [
        "If a bank's deposits fall quarter on quarter, quantify the outflow in percent and "
        "flag it.",
        "RULE: Deposits down QoQ -> flag the outflow with the % decline.",
    ]
    items = [
        item(
            "iso_dates",
            "positive",
            2,
            "Writes dates as YYYY-MM-DD.",
            "start",
            {
                "all": ["date"],
                "any": [
                    "YYYY-MM-DD",
                    r"ISO[- ]?(8601 )?(form|format|dates?)",
                    r"\b\d{4}-\d{2}-\d{2}\b",
                ],
            },
            dates,
            ["Write dates like February 3rd, 2026.", "Give the filing date."],
        ),
        item(
            "cet1_vs_requirement",
            "positive",
            3,
            "Leads the capital discussion with CET1 against the requirement plus buffers.",
            "final",
            {
                "all": [r"(\bCET1\b|common equity tier 1)"],
                "any": ["minimum", "requirement", "buffer", "regulatory", "headroom"],
            },
            cet1,
            ["Report the Tier 1 leverage ratio.", "Report net interest margin."],
        ),
        item(
            "deposit_outflow",
            "positive",
            3,
            "Quantifies and flags the 4.2% quarter-on-quarter deposit decline.",
            "final",
            {
                "all": ["deposit"],
                "any": ["outflow", r"\bfell", r"\bdrop", "declin", r"\bq/?q\b", "quarter"],
            },
            deposits,
            ["Report total deposits.", "Give the loan-to-deposit ratio."],
        ),
        *_sector_negatives(("saas_rule_of_40", "reit_ffo", "air_casm")),
    ]
    return {
        "id": "fin.persistence.50_corr",
        "dimension": "persistence",
        "domain": SKILL,
        "description": (
            "50 distinct corrections, one per session over seven months; a bank review must "
            "receive the date format rule and the two bank rules that apply (CET1 vs "
            "requirement, deposit outflow) and none of the SaaS/REIT/airline rules."
        ),
        "tools": tools(
            "get_financials",
            "get_sector_metrics",
            "get_saas_metrics",
            "get_filings",
            "search_news",
            "get_debt_schedule",
            "get_cash_flow",
            "fx_convert",
        ),
        "seed": seed,
        "test": {
            "actor": "farid",
            "skill": SKILL,
            "query": "Review Harwick Savings Bank's fourth quarter.",
            "steps": [
                {
                    "call": {
                        "name": "get_sector_metrics",
                        "arguments": {"company": "Harwick Savings Bank", "metric_set": "bank"},
                    },
                    "result": '{"company": "Harwick Savings Bank", "period": "2025-Q4", '
                    '"cet1_ratio": 0.109, "cet1_requirement_incl_buffers": 0.1, "deposits": '
                    '5120.0, "deposits_prior_q": 5345.0, "loans": 4480.0, "nim": 0.0288, '
                    '"units": "USD millions"}',
                },
                {
                    "call": {
                        "name": "get_filings",
                        "arguments": {"ticker": "HWSB", "form_type": "10-K"},
                    },
                    "result": '{"ticker": "HWSB", "form_type": "10-K", "filed": "2026-02-26", '
                    '"period": "FY2025"}',
                },
            ],
        },
        "expect": _fill_goods(items, [*dates[:2], *cet1, deposits[0]]),
    }
