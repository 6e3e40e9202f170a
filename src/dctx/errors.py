"""The one exception tree of dctx.

    DctxError
    ├── UserError                 (the caller can fix it)
    │   ├── ConfigError           bad option, URL, missing key
    │   │   └── RolePolicyError   a role policy naming an unknown role or grant (names the field)
    │   ├── MissingDependencyError  an optional extra is not installed
    │   ├── InvalidIdentifierError  an actor, skill, namespace or id that is not a clean name
    │   ├── TraceFormatError      a malformed trace (names file, session, message index, field)
    │   ├── ScenarioFormatError   a DC-Bench scenario file that breaks the contract
    │   ├── NotFoundError         an id that does not exist
    │   ├── ConflictError         conflicts with what is stored (a conversation captured
    │   │                         before with other content)
    │   ├── AuthError             a server request without the right API key
    │   └── AgentLoopError        malformed input to an agent-loop helper (or wrong client)
    └── RuntimeFailure            (something outside the caller failed)
        ├── StoreError            the database failed or refused
        │   └── EmbedderMismatchError  vectors from a different embedder
        ├── ProviderError         an LLM / embedding provider failed
        └── MaxTurnsError         an agent loop still calling tools at its turn limit

Third-party exceptions never escape a backend: they are mapped onto this tree.
"""

from __future__ import annotations


class DctxError(Exception):
    """Root of every error dctx raises on purpose."""


class UserError(DctxError):
    """A mistake the caller can fix; the message says how."""


class ConfigError(UserError):
    """A configuration value is missing or wrong."""


class RolePolicyError(ConfigError):
    """A role policy (or a speaker role) that names an unknown role or grant. Carries the
    field ("default_role", "grants.end_user", "speaker_role")."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class MissingDependencyError(ConfigError):
    """A dependency is missing; the message names the pip command that installs it.

    `extra` names the optional extra that brings `package`; None means a core dependency
    that is missing from this environment (installed with pip directly).
    """

    def __init__(self, feature: str, extra: str | None, package: str | None = None) -> None:
        self.feature = feature
        self.extra = extra
        pkg = package or extra or feature
        if extra is None:
            super().__init__(
                f"{feature} needs '{pkg}', a core dependency of dctx missing from this "
                f"environment. Install it with: pip install {pkg}"
            )
            return
        super().__init__(
            f"{feature} needs the optional dependency '{pkg}'. "
            f"Install it with: pip install 'dctx[{extra}]'"
        )


class InvalidIdentifierError(UserError):
    """An identifier (actor, skill, namespace, conversation / rule / run id) is not valid:
    empty, too long, or holding a non-printable character. Carries the field it came in."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field} {reason} (see Security model > Limits in the README)")


class TraceFormatError(UserError):
    """A trace message is malformed. Carries where: file, line (for line-based transcripts),
    session, message index and field."""

    def __init__(
        self,
        reason: str,
        *,
        file: str | None = None,
        session: str | None = None,
        index: int | None = None,
        field: str | None = None,
        line: int | None = None,
    ) -> None:
        self.reason = reason
        self.file = file
        self.session = session
        self.index = index
        self.field = field
        self.line = line
        where = []
        if file is not None:
            where.append(f"file {file}")
        if line is not None:
            where.append(f"line {line}")
        if session is not None:
            where.append(f"session {session!r}")
        if index is not None:
            where.append(f"message {index}")
        if field is not None:
            where.append(f"field {field!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {reason}" if prefix else reason)

    def located(self, *, file: str | None = None, session: str | None = None) -> TraceFormatError:
        """Return a copy that also names the file/session (filled in by outer layers)."""
        return TraceFormatError(
            self.reason,
            file=self.file or file,
            session=self.session or session,
            index=self.index,
            field=self.field,
            line=self.line,
        )


class ScenarioFormatError(UserError):
    """A DC-Bench scenario file does not follow docs/DCBENCH.md."""


class NotFoundError(UserError):
    """No object with that id exists."""


class ConflictError(UserError):
    """The request conflicts with what is already stored; the message names it and the fix."""


class AuthError(UserError):
    """The request lacks the API key the server was started with, or carries a wrong one."""


class AgentLoopError(UserError):
    """The input to an agent-loop helper is malformed (messages, tools, functions, limits,
    or a client of the wrong kind)."""


class RuntimeFailure(DctxError):
    """Something outside the caller's control failed."""


class StoreError(RuntimeFailure):
    """The store backend failed; the original error is chained as __cause__."""


class EmbedderMismatchError(StoreError):
    """The store was built with another embedder than the one in use."""

    def __init__(self, stored: str, current: str) -> None:
        self.stored = stored
        self.current = current
        super().__init__(
            f"this store's vectors were made by embedder {stored!r}, but {current!r} is in use. "
            f"Use the same embedder, or re-embed the store with: dctx reembed --embedder {current}"
        )


class ProviderError(RuntimeFailure):
    """An LLM or embedding provider failed (after retries)."""


class MaxTurnsError(RuntimeFailure):
    """The model was still calling tools after `max_turns` model calls; nothing was captured."""

    def __init__(self, max_turns: int) -> None:
        self.max_turns = max_turns
        super().__init__(
            f"the model was still calling tools after {max_turns} model calls; nothing was "
            "captured. Raise max_turns, or check that the tools answer what the model asks."
        )


__all__ = [
    "AgentLoopError",
    "AuthError",
    "ConfigError",
    "ConflictError",
    "DctxError",
    "EmbedderMismatchError",
    "InvalidIdentifierError",
    "MaxTurnsError",
    "MissingDependencyError",
    "NotFoundError",
    "ProviderError",
    "RolePolicyError",
    "RuntimeFailure",
    "ScenarioFormatError",
    "StoreError",
    "TraceFormatError",
    "UserError",
]
