"""The exact form of what dctx injects, known to the layer that writes it and to capture.

Stage 1 is a fabricated [user, assistant] pair (inject/format.py). A transcript passed back to
capture may still hold it; its user turn is dctx speaking, not the person, so it must never
count as a correction or as support. Capture recognises the pair by its exact structure (the
intro line, one `RULE: ` line per rule, then the exact acknowledgement), not by its wording
resembling a directive.
"""

from __future__ import annotations

STAGE1_INTRO = "Before you start: follow these rules, learned from earlier sessions."
STAGE1_ACK = "Understood. I will follow these rules."
SYSTEM_HEADER = "MANDATORY RULES (learned from earlier sessions; they apply now):"
RULE_PREFIX = "RULE: "


def is_stage1_pair(user_text: str, assistant_text: str) -> bool:
    """Whether a user turn and the assistant turn after it are dctx's stage-1 pair."""
    if assistant_text != STAGE1_ACK:
        return False
    intro, _, body = user_text.partition("\n")
    lines = body.split("\n")
    return (
        intro == STAGE1_INTRO
        and bool(body)
        and all(line.startswith(RULE_PREFIX) and line[len(RULE_PREFIX) :].strip() for line in lines)
    )


__all__ = ["RULE_PREFIX", "STAGE1_ACK", "STAGE1_INTRO", "SYSTEM_HEADER", "is_stage1_pair"]
