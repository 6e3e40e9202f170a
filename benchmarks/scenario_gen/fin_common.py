"""Shared pieces of the financial-analyst scenario generators: tool schemas, rubric items,
seed-session records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmarks.scenario_gen.fin_session import SessionBuilder

GENERATOR = "benchmarks/scenario_gen/fin_persistence.py"
SKILL = "financial_analyst"


def tool_schema(
    name: str, description: str, props: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": props, "required": required},
    }


_S = {"type": "string"}
_TOOLS: dict[str, dict[str, Any]] = {
    "get_stock_price": tool_schema(
        "get_stock_price", "Latest quote with previous close.", {"ticker": _S}, ["ticker"]
    ),
    "get_financials": tool_schema(
        "get_financials",
        "Quarterly or annual financials for a company.",
        {"company": _S, "period": {"type": "string", "description": "2025-Q4, FY2025, TTM ..."}},
        ["company"],
    ),
    "search_news": tool_schema(
        "search_news",
        "News search over the last N days.",
        {"query": _S, "days": {"type": "integer"}},
        ["query"],
    ),
    "get_filings": tool_schema(
        "get_filings",
        "Latest SEC filing of a form type.",
        {"ticker": _S, "form_type": _S},
        ["ticker", "form_type"],
    ),
    "fx_convert": tool_schema(
        "fx_convert",
        "Convert an amount between currencies.",
        {"amount": {"type": "number"}, "from_currency": _S, "to_currency": _S, "date": _S},
        ["amount", "from_currency", "to_currency"],
    ),
    "get_debt_schedule": tool_schema(
        "get_debt_schedule",
        "Debt outstanding, cash and the maturity schedule.",
        {"company": _S},
        ["company"],
    ),
    "get_sector_metrics": tool_schema(
        "get_sector_metrics",
        "Sector-specific operating metrics (bank capital, REIT occupancy, airline unit costs ...).",
        {"company": _S, "metric_set": _S},
        ["company"],
    ),
    "get_saas_metrics": tool_schema(
        "get_saas_metrics", "Subscription-software metrics.", {"company": _S}, ["company"]
    ),
    "get_cash_flow": tool_schema(
        "get_cash_flow", "Cash-flow statement summary.", {"company": _S}, ["company"]
    ),
}


def tools(*names: str) -> list[dict[str, Any]]:
    return [_TOOLS[n] for n in names]


def item(
    item_id: str,
    mode: str,
    weight: int,
    text: str,
    by: str | dict[str, int],
    pattern: dict[str, list[str]],
    good: Sequence[str],
    bad: Sequence[str],
) -> dict[str, Any]:
    key = "match" if mode == "positive" else "forbid"
    return {
        "id": item_id,
        "mode": mode,
        "weight": weight,
        "text": text,
        "by": by,
        key: pattern,
        "examples": {"good": list(good), "bad": list(bad)},
    }


def session(cid: str, actor: str, ts: str, b: SessionBuilder) -> dict[str, Any]:
    return {
        "conversation_id": cid,
        "actor": actor,
        "skill": SKILL,
        "timestamp": ts,
        "messages": b.messages,
    }
