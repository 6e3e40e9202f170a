"""What the turn reader sees of each user turn of a session.

One function for capture and for the real-conversation benchmark and its training script, so
the reader is trained on the same inputs it reads in production: the user's own words (pasted
material and words repeated from earlier tool results removed), the agent output they answer
and the client's signals.
"""

from __future__ import annotations

import json

from dctx.capture.echoes import EchoIndex
from dctx.capture.pasted import read_user_turn
from dctx.capture.reading.base import TurnInput
from dctx.models import Message, Session


def describe_calls(msg: Message) -> str:
    """An assistant message's tool calls as text: `call name({...}); name({...})`."""
    return "call " + "; ".join(
        f"{c.name}({json.dumps(c.arguments, ensure_ascii=False, sort_keys=True)})"
        for c in msg.tool_calls
    )


def agent_output(msg: Message) -> str:
    """The agent's words in a message, or what it called when it said nothing."""
    if msg.content or not msg.tool_calls:
        return msg.content or ""
    return describe_calls(msg)


def user_turn_inputs(session: Session) -> list[tuple[Message, TurnInput]]:
    """Each user turn of `session`, in order, with its reader input."""
    out: list[tuple[Message, TurnInput]] = []
    previous = ""
    seen_assistant = False
    echoes = EchoIndex()
    for msg in session.messages:
        if msg.role == "assistant":
            previous, seen_assistant = agent_output(msg), True
        if msg.role == "tool":
            echoes.add(msg.content or "")
        if msg.role != "user":
            continue
        turn = read_user_turn(msg.content or "")
        text, echoed = echoes.cut(turn.text)  # the tool's words, repeated, are still data
        out.append(
            (
                msg,
                TurnInput(
                    text=text,
                    previous_output=previous,
                    first_turn=not seen_assistant,
                    interrupted=turn.interrupted,
                    rejected_tool=turn.rejected_tool,
                    pasted_share=min(1.0, turn.pasted_share + echoed / max(len(turn.raw), 1)),
                ),
            )
        )
    return out
