"""Priority packing of rules into a token budget.

Priority: the querying actor's own rules, then more supporting evidence, then the newest. Rules
that do not fit are left out (never truncated mid-sentence).
"""

from __future__ import annotations

from collections.abc import Sequence

from dctx.inject.format import rule_line
from dctx.models import Rule
from dctx.tokens import count_tokens


def pack(rules: Sequence[Rule], *, budget: int, actor: str) -> tuple[list[Rule], int]:
    """Rules that fit in `budget` tokens (in priority order) and the tokens they use."""
    ranked = sorted(
        rules,
        key=lambda r: (r.actor != actor, -r.support, _neg_time(r.updated_at)),
    )
    chosen: list[Rule] = []
    used = 0
    for rule in ranked:
        cost = count_tokens(rule_line(rule))
        if used + cost > budget:
            continue
        chosen.append(rule)
        used += cost
    order = {r.id: i for i, r in enumerate(rules)}
    chosen.sort(key=lambda r: order[r.id])
    return chosen, used


def _neg_time(ts: str) -> str:
    # newest first: invert characters of the ISO timestamp for a descending sort key
    return "".join(chr(0x10FFFF - ord(c)) for c in ts)
