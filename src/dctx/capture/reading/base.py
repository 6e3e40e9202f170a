"""The turn-reading interface: a user turn in, what it is and how sure, out."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


class TurnKind(enum.StrEnum):
    """What a user turn is, for a memory. Only STANDING and WITHDRAWAL change the rulebook."""

    STANDING = "standing_correction"  # how the agent should work from now on
    ONE_OFF = "one_off_fix"  # fixes this output only
    TASK = "task_request"
    ACCEPTANCE = "acceptance"
    WITHDRAWAL = "withdrawal"  # takes back an earlier standing instruction
    QUESTION = "question"
    INFORMATION = "information"  # facts, answers, pasted logs without a new instruction
    NOISE = "noise"  # empty, bare commands, client text only


LASTING = frozenset({TurnKind.STANDING, TurnKind.WITHDRAWAL})


@dataclass(frozen=True, slots=True)
class TurnInput:
    """One user turn as the reader sees it: the user's own words (pasted material removed),
    the agent output it answers, and the client's signals."""

    text: str
    previous_output: str = ""
    first_turn: bool = False  # no agent output yet in the session
    interrupted: bool = False  # the user stopped the previous step
    rejected_tool: bool = False  # the user rejected a tool call
    pasted_share: float = 0.0  # share of the raw turn that was pasted or inserted


@dataclass(frozen=True, slots=True)
class TurnVerdict:
    """What a reader decided: the most likely kind, and the probability that the turn changes
    the rulebook (a standing correction or a withdrawal), calibrated on held-out turns."""

    kind: TurnKind
    p_lasting: float
    probs: Mapping[TurnKind, float] = field(default_factory=dict)
    by: str = ""  # which reader decided ("learned", "heuristic", "llm:<model>")

    @property
    def lasting(self) -> bool:
        return self.kind in LASTING


@runtime_checkable
class TurnClassifier(Protocol):
    """Reads user turns. Batched, because the learned reader embeds them together."""

    @property
    def id(self) -> str: ...

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        """One verdict per turn, in order."""
        ...
