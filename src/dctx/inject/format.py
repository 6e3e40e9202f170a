"""The exact text that reaches the model. Snapshot-tested: prompt drift shows in review.

Stage 1 travels through the user channel as a fabricated user/assistant pair; stage 2 rules are
added to the system prompt under a MANDATORY header (paper, sections 4.2 and 7: directive form,
no justification, the channel is part of the design).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dctx.models import Rule

STAGE1_INTRO = "Before you start: follow these rules, learned from earlier sessions."
STAGE1_ACK = "Understood. I will follow these rules."
SYSTEM_HEADER = "MANDATORY RULES (learned from earlier sessions; they apply now):"


def rule_line(rule: Rule) -> str:
    return f"RULE: {rule.text}"


def stage1_messages(rules: Sequence[Rule]) -> list[dict[str, Any]]:
    """The fabricated [user, assistant] pair to prepend to the conversation; [] when silent."""
    if not rules:
        return []
    body = "\n".join(rule_line(r) for r in rules)
    return [
        {"role": "user", "content": f"{STAGE1_INTRO}\n{body}"},
        {"role": "assistant", "content": STAGE1_ACK},
    ]


def system_block(rules: Sequence[Rule]) -> str:
    """System-prompt text carrying stage-2 rules; '' when silent."""
    if not rules:
        return ""
    return SYSTEM_HEADER + "\n" + "\n".join(f"- {rule_line(r)}" for r in rules)
