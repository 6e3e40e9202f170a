"""Who may teach the agent: speaker roles and the role policy of a namespace or skill.

In an assistant (a coding agent, an analyst's copilot) the user is the operator, and their
standing corrections become rules. In a customer-facing agent the user is an end user: their
words are requests ("cancel all of them, regardless of the policy"), not teaching, and must
never change the agent's behaviour for the next customer. Reviewers annotate finished
transcripts after the fact (capture/review.py). Tool lessons come from the structure of tool
calls, not from anyone's words, so every session teaches them whatever the role.

A `RolePolicy` says which role an unmarked user turn has (`default_role`) and what each role's
corrections may create (`grants`). It is applied at the capture seam: `teaches` keeps the turns
of roles that create nothing away from the turn reader, and `apply` narrows what the others
said to the scope their grant allows.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from dctx.capture.base import CorrectionSignal
from dctx.errors import RolePolicyError
from dctx.models import Message, Session, SpeakerRole


class Grant(enum.StrEnum):
    """What a role's standing corrections may create."""

    RULES = "rules"  # rules in the speaker's scope: their own, or the team's when said so
    TEAM = "team"  # rules for every actor of the skill (a reviewer speaks for the team)
    PERSONAL = "personal"  # only a preference stated as their own, for them alone
    NONE = "none"  # no rule at all (requests, not teaching)


DEFAULT_GRANTS: Mapping[SpeakerRole, Grant] = {
    SpeakerRole.OPERATOR: Grant.RULES,
    SpeakerRole.REVIEWER: Grant.TEAM,
    SpeakerRole.END_USER: Grant.NONE,
}


@dataclass(frozen=True, slots=True)
class RolePolicy:
    """What each speaker role may teach, for one namespace or one skill in it.

    The default (`RolePolicy()`) keeps assistant-style behaviour: an unmarked user turn is the
    operator's. A customer-facing skill sets `default_role=SpeakerRole.END_USER`, or its
    importer marks the turns (the tau-bench reader does).
    """

    default_role: SpeakerRole = SpeakerRole.OPERATOR
    grants: Mapping[SpeakerRole, Grant] = field(default_factory=lambda: dict(DEFAULT_GRANTS))

    def __post_init__(self) -> None:
        # accept plain strings from callers, validated with the field they came in
        object.__setattr__(self, "default_role", speaker_role(self.default_role, "default_role"))
        grants = dict(DEFAULT_GRANTS)
        if not isinstance(self.grants, Mapping):
            raise RolePolicyError("grants", "must map a role to a grant")
        for role, grant in self.grants.items():
            key = speaker_role(role, f"grants.{role}")
            grants[key] = _grant(grant, f"grants.{key.value}")
        object.__setattr__(self, "grants", grants)

    def grant(self, role: SpeakerRole) -> Grant:
        return self.grants[role]

    def role_of(self, message: Message) -> SpeakerRole:
        return message.speaker_role or self.default_role

    def teaches(self, message: Message) -> bool:
        """Whether this user turn may create any rule: the turn reader reads only these."""
        return self.grant(self.role_of(message)) is not Grant.NONE

    def to_dict(self) -> dict[str, Any]:
        return {
            "default_role": self.default_role.value,
            "grants": {r.value: g.value for r, g in sorted(self.grants.items())},
        }

    @classmethod
    def from_dict(cls, data: Any) -> RolePolicy:
        """A policy from JSON; an unknown key, role or grant raises RolePolicyError naming
        the field."""
        if not isinstance(data, Mapping):
            raise RolePolicyError("policy", f"must be an object, got {type(data).__name__}")
        unknown = sorted(set(data) - {"default_role", "grants"})
        if unknown:
            raise RolePolicyError(unknown[0], "unknown field (known: default_role, grants)")
        grants = data.get("grants") or {}
        if not isinstance(grants, Mapping):
            raise RolePolicyError("grants", "must map a role to a grant")
        return cls(default_role=data.get("default_role", SpeakerRole.OPERATOR), grants=grants)

    def apply(self, signals: list[CorrectionSignal], session: Session) -> list[CorrectionSignal]:
        """The signals each speaker's grant allows, narrowed to the scope it allows."""
        roles = {m.index: self.role_of(m) for m in session.messages if m.role == "user"}
        out: list[CorrectionSignal] = []
        for signal in signals:
            role = roles.get(signal.message_index, self.default_role)
            grant = self.grant(role)
            if grant is Grant.NONE:
                continue
            reach = _REACH[grant]
            out.append(dataclasses.replace(signal, reach=reach, speaker_role=role.value))
        return out


_REACH: Mapping[Grant, Literal["team", "personal"] | None] = {
    Grant.RULES: None,
    Grant.TEAM: "team",
    Grant.PERSONAL: "personal",
}


def speaker_role(value: Any, field_name: str = "speaker_role") -> SpeakerRole:
    """A SpeakerRole from its name; anything else raises RolePolicyError naming the field."""
    if isinstance(value, SpeakerRole):
        return value
    try:
        return SpeakerRole(value)
    except ValueError:
        known = ", ".join(r.value for r in SpeakerRole)
        raise RolePolicyError(field_name, f"unknown role {value!r} (known: {known})") from None


def _grant(value: Any, field_name: str) -> Grant:
    if isinstance(value, Grant):
        return value
    try:
        return Grant(value)
    except ValueError:
        known = ", ".join(g.value for g in Grant)
        raise RolePolicyError(field_name, f"unknown grant {value!r} (known: {known})") from None


DEFAULT_POLICY = RolePolicy()


def resolve_policy(stored: Mapping[str | None, Mapping[str, Any]], skill: str | None) -> RolePolicy:
    """The policy in force for a skill: its own, else its namespace's, else the default (the
    user is the operator)."""
    for key in (skill, None):
        if key in stored:
            return RolePolicy.from_dict(stored[key])
    return DEFAULT_POLICY


__all__ = [
    "DEFAULT_GRANTS",
    "DEFAULT_POLICY",
    "Grant",
    "RolePolicy",
    "resolve_policy",
    "speaker_role",
]
