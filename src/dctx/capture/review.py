"""Review after the fact: a correction added to a finished, captured transcript.

A reviewer (an operator, a supervisor) reads a transcript and says what the agent should have
done at one of its messages ("the agent should have checked the fare rules before refunding").
That is read as an in-conversation correction would be: the stored transcript up to the
anchored message is the situation, and the correction is a user turn right after it, spoken by
the reviewer. Adding it is an explicit act of teaching, so the reader's question (is this
lasting?) is answered by the act; which sentences carry the directive, its condition, trigger
and scope are the ordinary capture and compile. The evidence points at the anchored message
and names the reviewer and the time (provenance).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from dctx.capture.base import CorrectionSignal
from dctx.capture.corrections import find_corrections
from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict
from dctx.capture.roles import RolePolicy
from dctx.errors import NotFoundError
from dctx.models import Message, Session, SpeakerRole


class _Stated:
    """A turn reader for a review: the reviewer stated a standing correction, so every turn
    (and sentence) it is asked about is one."""

    id = "review"

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        verdict = TurnVerdict(TurnKind.STANDING, 1.0, {TurnKind.STANDING: 1.0}, by=self.id)
        return [verdict for _ in turns]


def review_signals(
    stored: Session,
    *,
    message_index: int,
    correction: str,
    reviewer: str,
    timestamp: str,
    policy: RolePolicy,
    role: SpeakerRole = SpeakerRole.REVIEWER,
) -> list[CorrectionSignal]:
    """The correction signals of a review of `stored` at `message_index` (what `policy` lets
    a `role` create; none when it grants that role nothing)."""
    indexes = [m.index for m in stored.messages]
    if message_index not in indexes:
        raise NotFoundError(
            f"conversation {stored.conversation_id!r} has no message {message_index} (its "
            f"messages are {min(indexes)}..{max(indexes)}): anchor the review at one of them"
        )
    prefix = [dataclasses.replace(m) for m in stored.messages if m.index <= message_index]
    turn = Message(index=max(indexes) + 1, role="user", content=correction, speaker_role=role)
    session = Session(
        conversation_id=stored.conversation_id,
        messages=[*prefix, turn],
        actor=reviewer,
        skill=stored.skill,
        namespace=stored.namespace,
        timestamp=timestamp,
        source=stored.source,
    )
    signals = find_corrections(session, reader=_Stated(), teaches=lambda m: m is turn)
    # the evidence points at the message the review corrects
    return [
        dataclasses.replace(s, message_index=message_index) for s in policy.apply(signals, session)
    ]


__all__ = ["review_signals"]
