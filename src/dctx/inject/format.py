"""The exact text that reaches the model. Snapshot-tested: prompt drift shows in review.

Stage 1 travels through the user channel as a fabricated user/assistant pair; stage 2 rules are
added to the system prompt under a MANDATORY header (paper, sections 4.2 and 7: directive form,
no justification, the channel is part of the design).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dctx.injected import RULE_PREFIX, STAGE1_ACK, STAGE1_INTRO, SYSTEM_HEADER
from dctx.models import Rule


def rule_line(rule: Rule) -> str:
    # one line per rule: a newline inside a rule's text would break the pair's structure
    return RULE_PREFIX + " ".join(rule.text.split())


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
