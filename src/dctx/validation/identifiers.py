"""Identifiers (actor, skill, namespace, conversation / rule / run ids): checked and normalized
once, at every entry point, so two spellings never name one scope and one never names two.

An identifier is a string of 1 to `Limits.identifier_chars` printable characters (no control,
format, surrogate or private-use characters, no NUL, no space at either end), compared exactly
after Unicode NFC normalization: "alice\\x00" is rejected, not read as "alice"; "é" composed
and decomposed are one actor.
"""

from __future__ import annotations

import unicodedata

from dctx.errors import InvalidIdentifierError
from dctx.validation.limits import DEFAULT_LIMITS, Limits


def identifier(value: object, field: str, *, limits: Limits = DEFAULT_LIMITS) -> str:
    """`value` as an NFC identifier, or InvalidIdentifierError naming `field`."""
    if not isinstance(value, str):
        raise InvalidIdentifierError(field, f"must be a string, got {type(value).__name__}")
    text = unicodedata.normalize("NFC", value)
    if not text:
        raise InvalidIdentifierError(field, "must not be empty")
    if len(text) > limits.identifier_chars:
        raise InvalidIdentifierError(
            field, f"is {len(text)} characters long; the limit is {limits.identifier_chars}"
        )
    if not text.isprintable():
        bad = next(ch for ch in text if not ch.isprintable())
        raise InvalidIdentifierError(
            field, f"contains the non-printable character U+{ord(bad):04X}; remove it"
        )
    if text != text.strip():
        raise InvalidIdentifierError(field, "must not start or end with a space")
    return text


def optional_identifier(
    value: object, field: str, *, limits: Limits = DEFAULT_LIMITS
) -> str | None:
    """Like `identifier`, but None stays None (an unset filter or id)."""
    return None if value is None else identifier(value, field, limits=limits)


__all__ = ["identifier", "optional_identifier"]
