"""Vectors by snapshot slot, holding only the rules whose vectors retrieval compares.

A decision point compares text vectors of QUERY rules and trigger vectors of QUERY and
keyword-DATA rules only (`store.packed.vector_needs`); the others are never read. A
`SlotVectors` keeps a matrix of the kept rows after one zero row, and the row of each slot
(0 for a slot without a kept vector, or emptied): `vectors[slots]` reads like a dense matrix
indexed by slot, at a fraction of its memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from dctx.store.packed import IntArray

Matrix = npt.NDArray[Any]


@dataclass(slots=True)
class SlotVectors:
    """`matrix[:used]`: a zero row, then the kept vectors; `rows[slot]`: the slot's row."""

    matrix: Matrix  # (capacity >= used, dim); rows past `used` unused
    rows: IntArray  # by slot
    used: int

    @classmethod
    def compact(cls, matrix: Matrix, rows: IntArray) -> SlotVectors:
        """From a matrix whose row 0 is zero and `rows` into it (as a compact index has)."""
        return cls(matrix, rows, int(matrix.shape[0]))

    @classmethod
    def keep(cls, dense: Matrix, keep: npt.NDArray[np.bool_]) -> SlotVectors:
        """From a dense matrix by slot, keeping the rows of `keep` only."""
        dim = dense.shape[1] if dense.ndim == 2 else 0
        matrix = np.zeros((1 + int(keep.sum()), dim), dtype=dense.dtype)
        matrix[1:] = dense[keep]
        rows: IntArray = np.cumsum(keep, dtype=np.int64) * keep
        return cls.compact(matrix, rows)

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.matrix.dtype

    @property
    def shape(self) -> tuple[int, int]:
        """(slots, dim), as the dense matrix by slot would have."""
        return len(self.rows), self.dim

    @property
    def kept(self) -> int:
        """Vectors held (the zero row aside)."""
        return self.used - 1

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes + self.rows.nbytes)

    def __getitem__(self, slots: Any) -> Matrix:
        """The vectors of these slots (zero for a slot without one)."""
        found: Matrix = self.matrix[self.rows[slots]]
        return found

    def clear(self, slot: int) -> None:
        """Forget the slot's vector: its row is zeroed, the slot points at the zero row."""
        row = int(self.rows[slot])
        if row:
            self.matrix[row] = 0.0
            self.rows[slot] = 0

    def extend(self, more: SlotVectors) -> None:
        """Append another one's slots, growing the matrix by a quarter when full: a change
        applied to a 100,000-rule snapshot copies the whole matrix only now and then."""
        if self.used <= 1 and self.dim != more.dim:  # nothing kept yet: take its size
            self.matrix = np.zeros((1, more.dim), dtype=self.matrix.dtype)
        added = more.used - 1
        need = self.used + added
        if need > self.matrix.shape[0]:
            size = max(need, self.used + self.used // 4 + 64)
            bigger = np.zeros((size, self.matrix.shape[1]), dtype=self.matrix.dtype)
            bigger[: self.used] = self.matrix[: self.used]
            self.matrix = bigger
        self.matrix[self.used : need] = more.matrix[1 : more.used]
        shifted = np.where(more.rows > 0, more.rows + (self.used - 1), 0)
        self.rows = np.append(self.rows, shifted)
        self.used = need
