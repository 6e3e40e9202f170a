"""The parts of `Store.rule_index` both backends share: unpacked rows put oldest first, and
the vectors streamed into an index once the rules are read (the queries stay per backend)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any

import numpy.typing as npt

from dctx.models import Rule
from dctx.store._rows import RULE_COLUMNS, fill_vectors, rules_from_rows
from dctx.store.base import RuleIndex
from dctx.store.packed import PackedRules, kept_vectors

_CREATED = RULE_COLUMNS.index("created_at")


def oldest_first(rows: list[Sequence[Any]]) -> tuple[list[int], list[Rule]]:
    """Rule rows (RULE_COLUMNS, then the row key) as their keys and rules, oldest first."""
    n = len(RULE_COLUMNS)
    rows.sort(key=itemgetter(_CREATED, n))
    return [int(row[n]) for row in rows], rules_from_rows(rows) if rows else []


def assemble(
    generation: int,
    cursor: int,
    keys: list[int],
    rules: list[Rule],
    pack: PackedRules | None,
    vector_rows: Iterable[tuple[int, bytes | None, bytes | None]],
    dim: int,
    *,
    dtype: npt.DTypeLike,
    wire: str = "<f4",
) -> RuleIndex:
    """The index of rules read as `keys` (and `rules`, or `pack`), with the vectors of
    `vector_rows` (row key, text blob, trigger blob) streamed into place."""
    text, trigger = fill_vectors(
        vector_rows,
        {key: i for i, key in enumerate(keys)},
        dim,
        dtype=dtype,
        wire=wire,
        keep=kept_vectors(pack) if pack is not None else None,
    )
    return RuleIndex(
        generation,
        rules,
        text,
        trigger,
        seqs=keys,
        cursor=cursor,
        packed=pack,
        compact_vectors=pack is not None,
    )
