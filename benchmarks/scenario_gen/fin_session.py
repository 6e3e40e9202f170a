"""Building blocks for generated financial-analyst seed sessions.

`SessionBuilder` writes OpenAI chat messages (assistant tool calls with JSON-string arguments,
tool results, answers). `Desk` produces routine analyst work (price checks, quarterly numbers,
news scans, filings, FX, debt schedules) with varied wording and realistic numbers; its answers
follow the formatting rules taught so far in the session (`Style`), so a long generated session
reads like an agent that took the earlier corrections on board. `dump_yaml` writes a scenario.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SCENARIO_DIR = (
    Path(__file__).resolve().parents[2]
    / "src"
    / "dctx"
    / "bench"
    / "scenarios"
    / "financial_analyst"
)

_PREFIXES = (
    "Ashby",
    "Brackley",
    "Corran",
    "Dunholme",
    "Elstow",
    "Farrow",
    "Garside",
    "Hexham",
    "Ingleby",
    "Jesmond",
    "Keswick",
    "Lanark",
    "Morley",
    "Netherby",
    "Otterburn",
    "Penrith",
    "Quorn",
    "Rothbury",
    "Selby",
    "Tadcaster",
    "Ulley",
    "Varley",
    "Whitby",
    "Yarrow",
    "Alnwick",
    "Bamburgh",
    "Catterick",
    "Dalton",
    "Easby",
    "Feltham",
    "Glaisdale",
    "Haworth",
)
_SUFFIXES = (
    "Logistics",
    "Foods",
    "Systems",
    "Pharma",
    "Energy",
    "Textiles",
    "Software",
    "Metals",
    "Holdings",
    "Labs",
    "Retail",
    "Networks",
    "Instruments",
    "Chemicals",
    "Brands",
    "Capital",
)
_NEWS = (
    "{co} wins multi-year contract with a regional government",
    "{co} names new chief financial officer",
    "{co} opens second distribution hub",
    "{co} shares rise after analyst upgrade",
    "{co} settles patent dispute out of court",
    "{co} announces $150M buyback",
    "{co} delays product launch to next quarter",
    "{co} expands credit facility",
)
_SOURCES = ("Reuters", "Bloomberg", "FT", "WSJ", "MarketWatch", "Barron's", "Trade Press Daily")


@dataclass(slots=True)
class Company:
    name: str
    ticker: str


def company_pool(rng: random.Random, n: int, exclude: set[str]) -> list[Company]:
    """`n` distinct invented companies with distinct tickers, none named in `exclude`."""
    out: list[Company] = []
    seen_names: set[str] = set(exclude)
    seen_tickers: set[str] = set()
    while len(out) < n:
        pre, suf = rng.choice(_PREFIXES), rng.choice(_SUFFIXES)
        name = f"{pre} {suf}"
        ticker = (pre[:3] + suf[0]).upper()
        if name in seen_names or ticker in seen_tickers:
            continue
        seen_names.add(name)
        seen_tickers.add(ticker)
        out.append(Company(name, ticker))
    return out


class SessionBuilder:
    """Accumulates one conversation's messages with unique tool-call ids."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.messages: list[dict[str, Any]] = []
        self._n = 0

    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def say(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": text})

    def call(
        self,
        name: str,
        args: dict[str, Any],
        result: dict[str, Any],
        *,
        content: str | None = None,
        is_error: bool = False,
    ) -> None:
        self._n += 1
        call_id = f"call_{self.prefix}{self._n:03d}"
        msg: dict[str, Any] = {"role": "assistant"}
        if content:
            msg["content"] = content
        msg["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ]
        self.messages.append(msg)
        tool: dict[str, Any] = {"role": "tool", "tool_call_id": call_id}
        if is_error:
            tool["is_error"] = True
        tool["content"] = json.dumps(result)
        self.messages.append(tool)

    @property
    def user_turns(self) -> int:
        return sum(1 for m in self.messages if m["role"] == "user")


@dataclass(slots=True)
class Style:
    """Rules the agent has been taught so far in a session (it follows them afterwards)."""

    one_decimal: bool = False
    prev_close_move: bool = False
    short_suffixes: bool = False
    eps_label: bool = False
    refi_flag: bool = False
    extra: dict[str, bool] = field(default_factory=dict)

    def pct(self, x: float, signed: bool = False) -> str:
        digits = 1 if self.one_decimal else 2
        sign = "+" if signed and x >= 0 else ""
        return f"{sign}{x * 100:.{digits}f}%"

    def money(self, millions: float) -> str:
        if millions >= 1000:
            return (
                f"${millions / 1000:.2f}bn"
                if self.short_suffixes
                else (f"${millions / 1000:.2f} billion")
            )
        return f"${millions:.1f}m" if self.short_suffixes else f"${millions:.1f} million"


@dataclass(slots=True)
class Task:
    """One routine piece of work: what the user asks and what the agent does."""

    kind: str
    ask: str
    company: Company
    amount: float = 0.0
    currency: str = ""


_ASKS: dict[str, tuple[str, ...]] = {
    "price": (
        "Where's {co} ({tk}) trading?",
        "Price check on {tk} please.",
        "{co} share price?",
        "what's {tk} at right now?",
        "Can you get me the latest quote for {co}?",
        "Quote on {tk}?",
    ),
    "quarter": (
        "How did {co} do last quarter?",
        "{co} Q4 numbers?",
        "Pull {cos} latest quarter for me.",
        "quick read on {cos} Q4 results",
        "Give me the headline Q4 figures for {co}.",
        "What did {co} report for Q4?",
    ),
    "news": (
        "Anything in the news on {co}?",
        "news scan: {co}, last two weeks",
        "What's the latest headline on {co}?",
        "Has anything happened at {co} recently?",
    ),
    "filings": (
        "When did {co} last file a 10-Q?",
        "Latest 10-K date for {tk}?",
        "Has {co} filed an 8-K recently?",
    ),
    "fx": (
        "Convert {amt} {cur} to USD for me.",
        "What's {amt} {cur} in dollars?",
        "{amt} {cur} in USD?",
    ),
    "debt": (
        "What does {cos} debt look like?",
        "Debt maturities for {co}?",
        "How levered is {co}?",
        "Quick look at {cos} balance sheet debt.",
    ),
}
_QUESTION_WORDS = frozenset(
    (
        "Is",
        "How",
        "What",
        "What's",
        "Where's",
        "When",
        "Why",
        "Has",
        "Can",
        "Any",
        "Anything",
        "Quick",
        "Pull",
        "Give",
        "Price",
        "Quote",
        "Latest",
        "News",
        "Debt",
        "Convert",
        "Credit",
        "Key",
    )
)


def join_lead(lead: str, ask: str) -> str:
    """`lead + ask`, lower-casing the ask's first word when it is an ordinary word.

    "Also," + "Growth at Seatoller?" -> "Also, growth at Seatoller?"; proper nouns and
    acronyms ("RevPAR at ...", "Pelham General's ...") keep their case.
    """
    if not lead or lead.endswith((". ", "? ", "! ")):
        return lead + ask
    words = ask.split(" ")
    first = words[0]
    second = words[1] if len(words) > 1 else ""
    ordinary = first[1:].islower() and (first in _QUESTION_WORDS or second[:1].islower())
    return lead + (first.lower() + ask[len(first) :] if ordinary else ask)


_LEADS = ("", "", "", "thanks. ", "ok, next: ", "cool - ", "And ", "Next one. ", "great. ")


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _a(number_text: str) -> str:
    """The article before a spoken number: "an 8.1%", "an 11.2%", "a 5.7%"."""
    return "an" if number_text.startswith(("8", "11", "18")) else "a"


class Desk:
    """Routine analyst work with seeded randomness; answers honour the session's `Style`.

    Companies are drawn in a shuffled cycle, and a repeated question about the same company
    gets the same data back (a cache per tool call), so long sessions stay self-consistent.
    """

    def __init__(self, rng: random.Random, companies: list[Company], today: str) -> None:
        self.rng = rng
        self.companies = companies
        self.today = today
        self.force_near = False  # next debt schedule must have a maturity within 12 months
        self.last_kind = ""
        self.last_company = companies[0]
        self.last_result: dict[str, Any] = {}
        self._queue: list[Company] = []
        self._cache: dict[str, dict[str, Any]] = {}

    def _next_company(self) -> Company:
        if not self._queue:
            self._queue = list(self.companies)
            self.rng.shuffle(self._queue)
        return self._queue.pop()

    def task(self, kinds: tuple[str, ...]) -> Task:
        kind = self.rng.choice(kinds)
        co = self._next_company()
        amount = float(self.rng.randint(2, 90) * 5_000_000)
        cur = self.rng.choice(("EUR", "GBP", "JPY", "CHF", "CAD", "AUD"))
        ask = self.rng.choice(_ASKS[kind]).format(
            co=co.name, cos=_possessive(co.name), tk=co.ticker, amt=f"{amount:,.0f}", cur=cur
        )
        return Task(kind, ask[0].upper() + ask[1:], co, amount, cur)

    def lead(self) -> str:
        return self.rng.choice(_LEADS)

    def ask(self, task: Task) -> str:
        """The task's question, sometimes with a conversational lead-in ("ok, next: ...")."""
        return join_lead(self.lead(), task.ask)

    @property
    def last_near(self) -> tuple[float, str]:
        """(amount, date) of the near-term maturity in the last debt schedule."""
        first = self.last_result["maturities"][0]
        return float(first["amount"]), str(first["date"])

    def do(self, b: SessionBuilder, task: Task, style: Style, *, content: str | None = None) -> str:
        """Make the tool call for `task` (same data as before for a repeated call) and return
        the agent's answer text."""
        tool, args, fresh = getattr(self, f"_make_{task.kind}")(task)
        key = f"{tool}:{json.dumps(args, sort_keys=True)}"
        if self.force_near and key in self._cache:
            del self._cache[key]
        result = self._cache.setdefault(key, fresh)
        b.call(tool, args, result, content=content)
        self.last_kind, self.last_company, self.last_result = task.kind, task.company, result
        return self.restate(style)

    def restate(self, style: Style) -> str:
        """The last answer, rendered under `style` (again after a correction)."""
        render = getattr(self, f"_render_{self.last_kind}")
        text: str = render(self.last_company, self.last_result, style)
        return text

    # ------------------------------------------------------------------ task kinds
    def _make_price(self, t: Task) -> tuple[str, dict[str, Any], dict[str, Any]]:
        prev = round(self.rng.uniform(8, 240), 2)
        price = round(prev * (1 + self.rng.uniform(-0.045, 0.045)), 2)
        res = {
            "ticker": t.company.ticker,
            "price": price,
            "prev_close": prev,
            "currency": "USD",
            "as_of": f"{self.today}T{self.rng.randint(13, 20)}:{self.rng.randint(10, 59)}:00Z",
        }
        return "get_stock_price", {"ticker": t.company.ticker}, res

    def _render_price(self, co: Company, res: dict[str, Any], s: Style) -> str:
        price, prev = res["price"], res["prev_close"]
        text = f"{co.name} ({co.ticker}) is at ${price:.2f}"
        if s.prev_close_move:
            text += f", {s.pct(price / prev - 1, signed=True)} vs the previous close (${prev:.2f})"
        return text + "."

    def _make_quarter(self, t: Task) -> tuple[str, dict[str, Any], dict[str, Any]]:
        eps = round(self.rng.uniform(0.12, 4.8), 2)
        res = {
            "company": t.company.name,
            "period": "2025-Q4",
            "revenue": round(self.rng.uniform(180, 9800), 1),
            "revenue_growth_yoy": round(self.rng.uniform(-0.08, 0.24), 4),
            "operating_margin": round(self.rng.uniform(0.04, 0.31), 4),
            "eps_gaap_diluted": eps,
            "eps_adjusted": round(eps * self.rng.uniform(1.05, 1.3), 2),
            "units": "USD millions except EPS",
        }
        return "get_financials", {"company": t.company.name, "period": "2025-Q4"}, res

    def _render_quarter(self, co: Company, res: dict[str, Any], s: Style) -> str:
        eps, adj = res["eps_gaap_diluted"], res["eps_adjusted"]
        eps_txt = (
            f"GAAP diluted EPS was ${eps:.2f} (adjusted ${adj:.2f})"
            if s.eps_label
            else (f"EPS was ${eps:.2f}")
        )
        margin = s.pct(res["operating_margin"])
        return (
            f"{co.name} reported Q4 revenue of {s.money(res['revenue'])}, "
            f"{s.pct(res['revenue_growth_yoy'], signed=True)} year over year, with "
            f"{_a(margin)} {margin} operating margin. {eps_txt}."
        )

    def _make_news(self, t: Task) -> tuple[str, dict[str, Any], dict[str, Any]]:
        heads = self.rng.sample(_NEWS, self.rng.randint(0, 2))
        items = [
            {
                "date": f"2026-0{self.rng.randint(1, 2)}-{self.rng.randint(10, 28)}",
                "source": self.rng.choice(_SOURCES),
                "headline": h.format(co=t.company.name),
            }
            for h in heads
        ]
        return "search_news", {"query": t.company.name, "days": 14}, {"results": items}

    def _render_news(self, co: Company, res: dict[str, Any], s: Style) -> str:
        items = res["results"]
        if not items:
            return f"Nothing material on {co.name} in the last two weeks."
        lines = "; ".join(f"{i['headline']} ({i['source']}, {i['date']})" for i in items)
        return f"Recent coverage: {lines}."

    def _make_filings(self, t: Task) -> tuple[str, dict[str, Any], dict[str, Any]]:
        form = next((f for f in ("10-Q", "10-K", "8-K") if f in t.ask), "10-Q")
        res = {
            "ticker": t.company.ticker,
            "form_type": form,
            "filed": f"2026-0{self.rng.randint(1, 2)}-{self.rng.randint(10, 28)}",
            "accession": f"000{self.rng.randint(1000, 9999)}-26-{self.rng.randint(100, 999)}",
        }
        return "get_filings", {"ticker": t.company.ticker, "form_type": form}, res

    def _render_filings(self, co: Company, res: dict[str, Any], s: Style) -> str:
        return f"{_possessive(co.name)} most recent {res['form_type']} was filed on {res['filed']}."

    _RATES: dict[str, float] = {  # noqa: RUF012 - constant table
        "EUR": 1.088,
        "GBP": 1.271,
        "JPY": 0.00664,
        "CHF": 1.132,
        "CAD": 0.738,
        "AUD": 0.657,
    }

    def _make_fx(self, t: Task) -> tuple[str, dict[str, Any], dict[str, Any]]:
        rate = self._RATES[t.currency]
        res = {
            "amount": t.amount,
            "from": t.currency,
            "to": "USD",
            "rate": rate,
            "converted": round(t.amount * rate, 2),
            "date": self.today,
        }
        args = {"amount": t.amount, "from_currency": t.currency, "to_currency": "USD"}
        return "fx_convert", args, res

    def _render_fx(self, co: Company, res: dict[str, Any], s: Style) -> str:
        return (
            f"{res['amount']:,.0f} {res['from']} is about {s.money(res['converted'] / 1e6)} "
            f"at {res['rate']}."
        )

    def _make_debt(self, t: Task) -> tuple[str, dict[str, Any], dict[str, Any]]:
        total = round(self.rng.uniform(400, 7800), 1)
        choices = (0.08, 0.15) if self.force_near else (0.0, 0.0, 0.08, 0.15)
        near = round(total * self.rng.choice(choices), 1)
        month = self.rng.randint(4, 11)
        res = {
            "company": t.company.name,
            "total_debt": total,
            "cash": round(self.rng.uniform(80, 1500), 1),
            "net_debt_to_ebitda": round(self.rng.uniform(0.8, 4.6), 1),
            "maturities": [
                *([{"date": f"2026-{month:02d}-15", "amount": near}] if near else []),
                {"date": "2028-06-30", "amount": round((total - near) * 0.6, 1)},
                {"date": "2031-03-31", "amount": round((total - near) * 0.4, 1)},
            ],
            "units": "USD millions",
        }
        return "get_debt_schedule", {"company": t.company.name}, res

    def _render_debt(self, co: Company, res: dict[str, Any], s: Style) -> str:
        text = (
            f"{co.name} carries {s.money(res['total_debt'])} of debt against "
            f"{s.money(res['cash'])} of cash, {res['net_debt_to_ebitda']}x net debt/EBITDA"
        )
        first = res["maturities"][0]
        if s.refi_flag and first["date"].startswith("2026"):
            text = (
                f"Refinancing risk: {s.money(first['amount'])} matures on {first['date']}, "
                f"within 12 months. " + text
            )
        return text + "."


class _Dumper(yaml.SafeDumper):
    """Block style for multi-line text, and no anchors/aliases for repeated objects."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


def dump_yaml(scenario: dict[str, Any], path: Path, generator: str) -> None:
    """Write `scenario` to `path` with a header naming the generator."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = yaml.dump(scenario, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    header = f"# Generated by {generator}; edit the generator, not this file.\n"
    path.write_text(header + body, encoding="utf-8")
