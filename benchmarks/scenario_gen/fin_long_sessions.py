"""Persistence scenarios built from long single sessions: 10msg_scat, 20msg_early, vol_dist.

Routine analyst work comes from `fin_session.Desk`; the corrections and one-off requests are
scripted at fixed positions. See `fin_persistence.py` for how to run.
"""

from __future__ import annotations

import random
from typing import Any

from benchmarks.scenario_gen.fin_common import SKILL, item, session, tools
from benchmarks.scenario_gen.fin_session import Desk, SessionBuilder, Style, company_pool, join_lead

# --------------------------------------------------------------------------- 10msg_scat


def build_10msg_scat() -> dict[str, Any]:
    rng = random.Random(10_1)
    desk = Desk(rng, company_pool(rng, 9, {"Vexley Instruments"}), "2026-03-04")
    b, st = SessionBuilder("m"), Style()
    rest = ("quarter", "price", "news", "filings")

    t = desk.task(("quarter",))
    b.user(t.ask)
    b.say(desk.do(b, t, st))  # 1

    t = desk.task(("quarter",))
    b.user(
        "ok. oh and btw, round percentages to one decimal from now on - two decimals is "
        f"false precision. {t.ask}"
    )
    st.one_decimal = True
    b.say(desk.do(b, t, st))  # 2

    for _ in range(2):  # 3, 4
        t = desk.task(rest)
        b.user(desk.ask(t))
        b.say(desk.do(b, t, st))

    t = desk.task(("price",))
    b.user(
        f"{t.ask} Actually, while I think of it - whenever you quote a share price, add the % "
        "move since the previous close. I always end up asking for it anyway."
    )
    st.prev_close_move = True
    b.say(desk.do(b, t, st))  # 5

    t = desk.task(("price",))
    b.user(f"{t.ask} And for this one give it in CHF as well, the client is in Zurich.")
    price_answer = desk.do(b, t, st)
    price = float(desk.last_result["price"])
    chf = round(price * 0.883, 2)
    b.call(
        "fx_convert",
        {"amount": price, "from_currency": "USD", "to_currency": "CHF"},
        {"amount": price, "from": "USD", "to": "CHF", "rate": 0.883, "converted": chf},
    )
    b.say(f"{price_answer} That is CHF {chf:.2f} at 0.883.")  # 6

    t = desk.task(("quarter",))
    b.user(desk.ask(t))
    b.say(desk.do(b, t, st))  # 7

    b.user("no - bn and m. never spell out billion / million, it's a wall of text.")  # 8
    st.short_suffixes = True
    b.say("Got it. " + desk.restate(st))

    for lead in ("", "last one: "):  # 9, 10
        t = desk.task(("quarter", "price"))
        b.user(lead + t.ask)
        b.say(desk.do(b, t, st))
    assert b.user_turns == 10

    return {
        "id": "fin.persistence.10msg_scat",
        "dimension": "persistence",
        "domain": SKILL,
        "description": (
            "Three corrections scattered through a 10-user-message session (casual add-on, "
            "buried mid-request, terse) must all persist to the next session; a one-off CHF "
            "conversion must not."
        ),
        "tools": tools(
            "get_stock_price", "get_financials", "search_news", "get_filings", "fx_convert"
        ),
        "seed": [session("malik-desk-0304", "malik", "2026-03-04T08:30:00Z", b)],
        "test": {
            "actor": "malik",
            "skill": SKILL,
            "query": "Quick check on Vexley Instruments (VXLY): share price and last quarter.",
            "steps": [
                {
                    "call": {"name": "get_stock_price", "arguments": {"ticker": "VXLY"}},
                    "result": '{"ticker": "VXLY", "price": 84.17, "prev_close": 81.02, '
                    '"currency": "USD", "as_of": "2026-03-11T15:42:00Z"}',
                },
                {
                    "call": {
                        "name": "get_financials",
                        "arguments": {"company": "Vexley Instruments", "period": "2025-Q4"},
                    },
                    "result": '{"company": "Vexley Instruments", "period": "2025-Q4", '
                    '"revenue": 2316.4, "revenue_growth_yoy": 0.0734, "operating_margin": '
                    '0.1862, "eps_gaap_diluted": 1.41, "eps_adjusted": 1.66, "units": '
                    '"USD millions except EPS"}',
                },
            ],
        },
        "expect": [
            item(
                "one_decimal_pct",
                "positive",
                2,
                "Percentages are rounded to one decimal.",
                "start",
                {
                    "all": ["(percent|%)"],
                    "any": [
                        "one decimal",
                        r"\b1 decimal",
                        "single decimal",
                        r"\b1 ?dp\b",
                        "one dp",
                        "tenth",
                    ],
                },
                [
                    "Round percentages to one decimal place.",
                    "RULE: Show percentages with 1 decimal (e.g. 7.3%), never two.",
                    "round percentages to one decimal from now on - two decimals is false "
                    "precision.",
                ],
                ["Round percentages to two decimals.", "Use bn and m suffixes."],
            ),
            item(
                "move_vs_prev_close",
                "positive",
                2,
                "Gives the share price's % move since the previous close.",
                "start",
                {
                    "all": [r"(previous|prior|last|yesterday.?s)\W+close"],
                    "any": ["price", "quote", "move", "change"],
                },
                [
                    "Whenever you quote a share price, add the % move since the previous close.",
                    "RULE: Quote prices with their % change vs the prior close.",
                ],
                ["Quote the share price.", "Give the 52-week range with every price."],
            ),
            item(
                "bn_m_suffixes",
                "positive",
                2,
                "Writes amounts with bn/m suffixes instead of spelling out billion/million.",
                "start",
                {
                    "all": [r"(\b|\d)bn\b"],
                    "any": [r"\bm\b", r"\dm\b", "suffix", "million", "billion"],
                },
                [
                    "Use bn / m suffixes for amounts; never spell out billion or million.",
                    "RULE: Amounts as $2.3bn / $412m.",
                    "no - bn and m. never spell out billion / million",
                ],
                [
                    "Spell out billion and million in full.",
                    "Round percentages to one decimal place.",
                ],
            ),
            item(
                "no_chf",
                "negative",
                2,
                "Does not add a CHF conversion (that was for one Zurich client).",
                "final",
                {"any": [r"\bCHF\b", "swiss", r"\bfrancs?\b", "zurich"]},
                [
                    "Round percentages to one decimal place.",
                    "Whenever you quote a share price, add the % move since the previous close.",
                ],
                [
                    "Give share prices in CHF as well.",
                    "Convert prices to Swiss francs for clients.",
                ],
            ),
        ],
        "checks": [{"type": "tool_call_max", "tool": "fx_convert", "max": 0}],
    }


# --------------------------------------------------------------------------- 20msg_early


def build_20msg_early() -> dict[str, Any]:
    rng = random.Random(20_2)
    desk = Desk(rng, company_pool(rng, 14, {"Quarrington Pharma"}), "2026-02-17")
    b, st = SessionBuilder("e"), Style()
    kinds = ("quarter", "price", "news", "filings", "fx", "debt")

    t = desk.task(("quarter",))
    b.user(t.ask)
    b.say(desk.do(b, t, st))  # 1

    t = desk.task(("quarter",))
    b.user(
        "Before I forget: whenever you report EPS, say whether it's GAAP or adjusted. I got "
        f"burned last month mixing the two in a deck. {join_lead('Now - ', t.ask)}"
    )
    st.eps_label = True
    b.say(desk.do(b, t, st))  # 2

    for turn in range(3, 21):
        if turn == 14:
            t = desk.task(("quarter",))
            b.user(f"{t.ask} This time only, give revenue in GBP too - it's for the London office.")
            answer = desk.do(b, t, st)
            rev = float(desk.last_result["revenue"])
            gbp = round(rev * 0.787, 1)
            b.call(
                "fx_convert",
                {"amount": rev, "from_currency": "USD", "to_currency": "GBP"},
                {"amount": rev, "from": "USD", "to": "GBP", "rate": 0.787, "converted": gbp},
            )
            b.say(f"{answer} Revenue in sterling: GBP {gbp:,.1f}m at 0.787.")
            continue
        t = desk.task(kinds)
        b.user(desk.ask(t))
        b.say(desk.do(b, t, st))
    b.user("that's all for today, thanks")
    b.say("You're welcome - have a good evening.")
    assert b.user_turns == 21  # 20 working messages plus the sign-off

    good_eps = [
        "When reporting EPS, state whether it is GAAP or adjusted.",
        "RULE: Label every EPS figure as GAAP or adjusted (non-GAAP).",
        "whenever you report EPS, say whether it's GAAP or adjusted. I got burned last month "
        "mixing the two in a deck.",
    ]
    return {
        "id": "fin.persistence.20msg_early",
        "dimension": "persistence",
        "domain": SKILL,
        "description": (
            "A correction made in the 2nd user message of a 20-message working session (label "
            "EPS as GAAP or adjusted) must persist past 18 messages of unrelated work; a one-off "
            "GBP conversion late in the session must not."
        ),
        "tools": tools(
            "get_financials",
            "get_stock_price",
            "search_news",
            "get_filings",
            "fx_convert",
            "get_debt_schedule",
        ),
        "seed": [session("beatriz-0217", "beatriz", "2026-02-17T09:10:00Z", b)],
        "test": {
            "actor": "beatriz",
            "skill": SKILL,
            "query": "What did Quarrington Pharma earn in Q4?",
            "steps": [
                {
                    "call": {
                        "name": "get_financials",
                        "arguments": {"company": "Quarrington Pharma", "period": "2025-Q4"},
                    },
                    "result": '{"company": "Quarrington Pharma", "period": "2025-Q4", '
                    '"revenue": 1874.2, "revenue_growth_yoy": 0.061, "operating_margin": 0.224, '
                    '"eps_gaap_diluted": 1.12, "eps_adjusted": 1.47, "units": '
                    '"USD millions except EPS"}',
                }
            ],
        },
        "expect": [
            item(
                "eps_basis",
                "positive",
                3,
                "Says whether the EPS figure is GAAP or adjusted.",
                "start",
                {"all": [r"\bEPS\b"], "any": ["GAAP", "adjusted"]},
                good_eps,
                ["Report diluted EPS.", "Give revenue in GBP."],
            ),
            item(
                "eps_label_explicit",
                "positive",
                1,
                "The basis is stated explicitly, not left implicit.",
                "start",
                {
                    "all": [r"\bEPS\b"],
                    "any": [
                        r"\bsay\b",
                        r"\bstate",
                        r"\blabel",
                        "specify",
                        "whether",
                        "clarify",
                        "indicate",
                        r"\bmark",
                    ],
                },
                good_eps[:2],
                ["Use adjusted EPS."],
            ),
            item(
                "no_gbp",
                "negative",
                2,
                "Does not convert revenue to GBP (one-off for the London office).",
                "final",
                {"any": [r"\bGBP\b", "sterling", r"\bpounds?\b", "london"]},
                good_eps,
                ["Give revenue in GBP too.", "Show revenue in sterling for the London office."],
            ),
        ],
        "checks": [{"type": "tool_call_max", "tool": "fx_convert", "max": 0}],
    }


# --------------------------------------------------------------------------- vol_dist


def build_vol_dist() -> dict[str, Any]:
    rng = random.Random(100_3)
    pool = company_pool(rng, 40, {"Ambleside Ports"})
    desk = Desk(rng, pool, "2026-02-20")
    b, st = SessionBuilder("v"), Style()
    kinds = ("quarter", "price", "news", "filings", "fx", "debt", "debt")
    correction_co = ""
    for turn in range(1, 101):
        if turn == 63:
            t = desk.task(("debt",))
            correction_co = t.company.name
            b.user(desk.ask(t))
            desk.force_near = True
            b.say(desk.do(b, t, st))
            desk.force_near = False
            continue
        if turn == 64:
            near, when = desk.last_near
            b.user(
                f"Hang on - {st.money(near)} of that comes due on {when} and you didn't say a "
                "word. From now on, if a company has debt maturing within the next 12 months, "
                "flag the refinancing risk up front, with the amount and the date."
            )
            st.refi_flag = True
            b.say("You're right, sorry. " + desk.restate(st))
            continue
        t = desk.task(kinds)
        b.user(desk.ask(t))
        b.say(desk.do(b, t, st))
    assert b.user_turns == 100
    seen = {c.name for c in pool if c.name in str(b.messages)} - {correction_co}
    noise = sorted(seen)[:6]

    good = [
        "If a company has debt maturing within the next 12 months, flag the refinancing risk "
        "up front with the amount and date.",
        "RULE: Debt maturities inside 12 months -> open with a refinancing-risk flag stating "
        "amount and maturity date.",
        "From now on, if a company has debt maturing within the next 12 months, flag the "
        "refinancing risk up front, with the amount and the date.",
    ]
    return {
        "id": "fin.persistence.vol_dist",
        "dimension": "persistence",
        "domain": SKILL,
        "description": (
            "One data-conditional correction (flag refinancing risk when debt matures within 12 "
            "months) sits at message 64 of a 100-user-message session dense with routine tool "
            "output; it must surface when a new company's debt schedule triggers it, and nothing "
            "from the routine work may be injected."
        ),
        "tools": tools(
            "get_financials",
            "get_stock_price",
            "search_news",
            "get_filings",
            "fx_convert",
            "get_debt_schedule",
        ),
        "seed": [session("dmitri-0220-marathon", "dmitri", "2026-02-20T07:45:00Z", b)],
        "test": {
            "actor": "dmitri",
            "skill": SKILL,
            "query": "Credit check on Ambleside Ports.",
            "steps": [
                {
                    "call": {
                        "name": "get_financials",
                        "arguments": {"company": "Ambleside Ports", "period": "FY2025"},
                    },
                    "result": '{"company": "Ambleside Ports", "period": "FY2025", "revenue": '
                    '1420.0, "ebitda": 612.0, "interest_expense": 141.0, "units": '
                    '"USD millions"}',
                },
                {
                    "call": {
                        "name": "get_debt_schedule",
                        "arguments": {"company": "Ambleside Ports"},
                    },
                    "result": '{"company": "Ambleside Ports", "total_debt": 3260.0, "cash": '
                    '210.0, "net_debt_to_ebitda": 5.0, "maturities": [{"date": "2026-11-15", '
                    '"amount": 450.0}, {"date": "2029-04-30", "amount": 1710.0}, {"date": '
                    '"2033-09-30", "amount": 1100.0}], "units": "USD millions"}',
                },
            ],
        },
        "expect": [
            item(
                "refinancing_flag",
                "positive",
                3,
                "Flags the refinancing risk of the $450M maturing in November 2026.",
                "final",
                {
                    "all": [r"(refinanc|roll ?over)"],
                    "any": ["12 months", "twelve months", "within a year", "next year", "matur"],
                },
                good,
                ["Report net debt to EBITDA.", "List all debt maturities."],
            ),
            item(
                "amount_and_date",
                "positive",
                1,
                "States the maturing amount and its date.",
                "final",
                {"all": ["matur"], "any": ["amount", r"\bdate", "how much", r"\bsize"]},
                good[:2],
                ["Flag refinancing risk."],
            ),
            item(
                "not_before_data",
                "negative",
                1,
                "The refinancing rule is not pushed before the debt schedule is seen.",
                "start",
                {"any": ["refinanc"]},
                ["Report leverage as net debt / EBITDA.", "Cite the period for each figure."],
                good[:1],
            ),
            item(
                "no_routine_noise",
                "negative",
                1,
                "Nothing about the dozens of companies discussed in the long session is injected.",
                "final",
                {"any": [rf"\b{name}\b" for name in noise]},
                good,
                [f"{noise[0]} is at $41.20.", f"Recent coverage of {noise[1]}."],
            ),
        ],
    }
