"""Guards: rules that constrain a tool call, compiled into machine-checkable constraints.

Why a package of its own rather than a field on Rule: guards are derived, on the fly, from the
rules a run has been given (`compile_guards`), so the rulebook stays the single source of truth
and no store change is needed; a rule that is edited, disabled or superseded changes or drops
its guards at the next run. `GuardChecker` judges each proposed call before it runs.
"""

from dctx.guards.check import GuardChecker, Verdict
from dctx.guards.compile import compile_guards, rule_guards
from dctx.guards.model import Guard, GuardKind, same_value

__all__ = [
    "Guard",
    "GuardChecker",
    "GuardKind",
    "Verdict",
    "compile_guards",
    "rule_guards",
    "same_value",
]
