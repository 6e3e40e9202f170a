"""A correction as capture hands it to the compiler, for compile tests."""

from __future__ import annotations

from dctx.capture.base import Aftermath, CorrectionSignal, SessionContext


def correction(
    directive: str,
    *,
    query: str,
    skill: str = "analyst",
    raw: str | None = None,
    subjects: list[str] | None = None,
) -> CorrectionSignal:
    """One correcting turn of actor ana, answering "Done.", in conversation c1."""
    ctx = SessionContext("default", "c1", "ana", skill, "2026-01-01T00:00:00Z")
    return CorrectionSignal(
        ctx=ctx,
        aftermath=Aftermath.CORRECTION,
        directive=directive,
        raw=raw or directive,
        message_index=3,
        chain=0,
        situation="",
        query=query,
        previous_output="Done.",
        subjects=subjects or [],
    )
