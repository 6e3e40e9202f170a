"""Rules as compact columns, for retrieval snapshots of 100,000-rule rulebooks.

A list of `Rule` objects costs over a kilobyte per rule in Python objects (strings, lists,
dataclasses). Deciding which rules apply at a decision point needs only a few fields per rule,
and the full rule only for the few that are returned. `PackedRules` keeps those fields as numpy
columns (names as integer codes of one vocabulary; keywords and numeric terms as flat code
lists with offsets) and each rule's row as JSON bytes in one buffer, decoded into a `Rule` on
demand (`rule`). Ids, conflict groups and stated request conditions are kept as 64-bit hashes
for equality tests inside one process; whoever needs certainty decodes the rule.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from dctx.models import Rule, TriggerKind
from dctx.store._rows import RULE_COLUMNS, _build, rule_to_row
from dctx.text import alternatives, lists_alternatives
from dctx.units import PERCENT

KINDS: tuple[TriggerKind, ...] = tuple(TriggerKind)  # kind code = position
OPS: tuple[str, ...] = ("<", "<=", ">", ">=")  # numeric operator code = position; -1: none
_COL = {name: i for i, name in enumerate(RULE_COLUMNS)}
_BODY = len(RULE_COLUMNS) - 1
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


class Vocab:
    """Names as integer codes: 0 is None or the empty name, then 1, 2, ... per new name."""

    __slots__ = ("codes", "names")

    def __init__(self) -> None:
        self.names: list[str] = [""]
        self.codes: dict[str, int] = {"": 0}

    def code(self, name: str | None) -> int:
        """The name's code, adding it when new."""
        if not name:
            return 0
        found = self.codes.get(name)
        if found is None:
            found = self.codes[name] = len(self.names)
            self.names.append(name)
        return found

    def get(self, name: str | None) -> int:
        """The name's code; -1 for a name never seen (it matches nothing)."""
        return self.codes.get(name, -1) if name else 0


def key_hash(value: Any) -> int:
    """A 64-bit hash for equality tests inside one process (never stored)."""
    return hash(value)


@dataclass(slots=True)
class PackedRules:
    """Rules by position: columns for retrieval, rows as JSON bytes for `rule(i)`."""

    vocab: Vocab = field(default_factory=Vocab)
    seq: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))  # backend row key
    created: npt.NDArray[np.bytes_] = field(default_factory=lambda: np.zeros(0, "S1"))
    id_hash: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    group_hash: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    stated_hash: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    skill: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))  # vocab codes
    scope_actor: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    kind: npt.NDArray[np.int8] = field(default_factory=lambda: np.zeros(0, np.int8))
    tool: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    after_tool: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    conditional: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    excluded: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    predicate: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    # a soft predicate: tested where a result has the field it names, else free text judges
    soft: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    # a soft predicate over a change of a numeric field (tested where a number names it)
    change: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    # a subject-scoped rule triggered by its subject's name (retrieve/condition_match.py)
    subject_named: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    # a threshold in percent: a fraction meets it as a fraction (retrieve/context.py)
    percent: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    num_op: npt.NDArray[np.int8] = field(default_factory=lambda: np.zeros(0, np.int8))
    num_value: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    kw_codes: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    kw_off: IntArray = field(default_factory=lambda: np.zeros(1, np.int64))
    term_codes: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    term_off: IntArray = field(default_factory=lambda: np.zeros(1, np.int64))
    # the alternatives a free-text condition lists ("heating, leaks or mould"), as keyword
    # codes per group; a rule whose condition lists none has no group here
    alt_codes: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    alt_off: IntArray = field(default_factory=lambda: np.zeros(1, np.int64))  # per group
    alt_rule_off: IntArray = field(default_factory=lambda: np.zeros(1, np.int64))  # per rule
    blob: bytearray = field(default_factory=bytearray)
    row_start: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    row_end: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.seq)

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[Any]]) -> PackedRules:
        """Pack table rows (RULE_COLUMNS, then the row key), one at a time: a whole
        rulebook's rows are never held at once. Rows keep the order they come in."""
        return _Packer().pack(rows)

    @classmethod
    def from_rules(cls, rules: Sequence[Rule], seqs: Sequence[int]) -> PackedRules:
        return cls.from_rows((*rule_to_row(r), q) for r, q in zip(rules, seqs, strict=True))

    def rule(self, i: int) -> Rule:
        """Decode rule i in full."""
        values = json.loads(bytes(self.blob[int(self.row_start[i]) : int(self.row_end[i])]))
        rest = values.pop()
        return _build([*values, None], rest)

    def keywords(self, i: int) -> IntArray:
        """Keyword stem codes of rule i, duplicates kept."""
        return self.kw_codes[self.kw_off[i] : self.kw_off[i + 1]]

    def terms(self, i: int) -> IntArray:
        """Field term codes of rule i (distinct): a threshold's numeric field, or the field
        a soft predicate names."""
        return self.term_codes[self.term_off[i] : self.term_off[i + 1]]

    def worded(self) -> BoolArray:
        """Rules with a free-text condition: DATA, keywords, neither a threshold nor a negated
        value, and not a subject's name (retrieve/condition_match.py judges them)."""
        worded: BoolArray = (
            (self.kind == _KIND_CODE[TriggerKind.DATA.value])
            & (self.num_op < 0)
            & (np.diff(self.kw_off) > 0)
            & ~self.excluded
            & ~self.subject_named
        )
        return worded

    def alternatives(self, i: int) -> list[IntArray]:
        """Keyword codes of each alternative rule i's condition lists; [all its keywords]
        when it lists none."""
        lo, hi = int(self.alt_rule_off[i]), int(self.alt_rule_off[i + 1])
        if lo == hi:
            return [self.keywords(i)]
        off = self.alt_off
        return [self.alt_codes[off[g] : off[g + 1]] for g in range(lo, hi)]

    def extend(self, other: PackedRules) -> None:
        """Append another pack's rules (codes translated into this pack's vocabulary)."""
        if not len(other):
            return
        remap = np.array([self.vocab.code(name) for name in other.vocab.names], dtype=np.int64)
        shift = len(self.blob)
        self.blob += other.blob
        self.row_start = np.append(self.row_start, other.row_start + shift)
        self.row_end = np.append(self.row_end, other.row_end + shift)
        self.kw_codes = np.append(self.kw_codes, remap[other.kw_codes])
        self.kw_off = np.append(self.kw_off, other.kw_off[1:] + self.kw_off[-1])
        self.term_codes = np.append(self.term_codes, remap[other.term_codes])
        self.term_off = np.append(self.term_off, other.term_off[1:] + self.term_off[-1])
        self.alt_codes = np.append(self.alt_codes, remap[other.alt_codes])
        self.alt_off = np.append(self.alt_off, other.alt_off[1:] + self.alt_off[-1])
        shift_groups = len(self.alt_off) - len(other.alt_off)  # groups before other's
        self.alt_rule_off = np.append(self.alt_rule_off, other.alt_rule_off[1:] + shift_groups)
        for name in ("skill", "scope_actor", "tool", "after_tool"):
            setattr(self, name, np.append(getattr(self, name), remap[getattr(other, name)]))
        for name in _PLAIN:
            setattr(self, name, np.append(getattr(self, name), getattr(other, name)))


def vector_needs(pack: PackedRules) -> tuple[BoolArray, BoolArray]:
    """Which rules' (text, trigger) vectors a decision point compares (retrieve/engine.py):
    text vectors only for QUERY rules; trigger vectors for QUERY rules and for DATA rules with
    free-text conditions (`PackedRules.worded`: the cosine is a feature of their match).
    ALWAYS and TOOL rules, thresholds and other DATA rules are decided without similarity,
    so a retrieval snapshot does not hold their vectors (a third of a rulebook's memory)."""
    query = pack.kind == _KIND_CODE[TriggerKind.QUERY.value]
    return query, query | pack.worded()


def kept_rows(keep: BoolArray) -> IntArray:
    """Row of each rule in a matrix of kept vectors only, after a leading zero row: 1, 2, ...
    for kept rules in order, 0 (the zero row) for the others."""
    rows: IntArray = np.cumsum(keep, dtype=np.int64) * keep
    return rows


def kept_vectors(pack: PackedRules) -> tuple[IntArray, IntArray]:
    """`kept_rows` of the text and trigger vectors retrieval compares (`vector_needs`)."""
    text, trigger = vector_needs(pack)
    return kept_rows(text), kept_rows(trigger)


# the true/false columns
_BOOLS = ("conditional", "excluded", "predicate", "soft", "change", "subject_named", "percent")
_PLAIN = (
    "seq",
    "created",
    "id_hash",
    "group_hash",
    "stated_hash",
    "kind",
    *_BOOLS,
    "num_op",
    "num_value",
)
_KIND_CODE = {k.value: i for i, k in enumerate(KINDS)}
_OP_CODE = {op: i for i, op in enumerate(OPS)}


class _Packer:
    """Column builders in typed arrays (no Python object per value) until `pack` ends."""

    def __init__(self) -> None:
        self.vocab = Vocab()
        self.ints = {name: array("q") for name in _INTS}
        self.flags = {name: array("b") for name in ("kind", "num_op")}
        self.bools = {name: array("b") for name in _BOOLS}
        self.num_value = array("d")
        self.kw_codes, self.kw_off = array("q"), array("q", [0])
        self.term_codes, self.term_off = array("q"), array("q", [0])
        self.alt_codes, self.alt_off, self.alt_rule_off = (
            array("q"),
            array("q", [0]),
            array("q", [0]),
        )
        self.created: list[bytes] = []
        self.blob = bytearray()
        self.starts, self.ends = array("q"), array("q")

    def pack(self, rows: Iterable[Sequence[Any]]) -> PackedRules:
        for row in rows:
            self.add(row)
        out = PackedRules(vocab=self.vocab)
        for name, values in self.ints.items():
            setattr(out, name, np.frombuffer(values, dtype=np.int64).copy())
        out.kind = np.frombuffer(self.flags["kind"], dtype=np.int8).copy()
        out.num_op = np.frombuffer(self.flags["num_op"], dtype=np.int8).copy()
        for name, flags in self.bools.items():
            setattr(out, name, np.frombuffer(flags, dtype=np.int8).astype(bool))
        out.num_value = np.frombuffer(self.num_value, dtype=np.float64).copy()
        out.kw_codes = np.frombuffer(self.kw_codes, dtype=np.int64).copy()
        out.kw_off = np.frombuffer(self.kw_off, dtype=np.int64).copy()
        out.term_codes = np.frombuffer(self.term_codes, dtype=np.int64).copy()
        out.term_off = np.frombuffer(self.term_off, dtype=np.int64).copy()
        for name in ("alt_codes", "alt_off", "alt_rule_off"):
            setattr(out, name, np.frombuffer(getattr(self, name), dtype=np.int64).copy())
        out.created = np.array(self.created, dtype=np.bytes_) if self.created else out.created
        out.blob = self.blob
        out.row_start = np.frombuffer(self.starts, dtype=np.int64).copy()
        out.row_end = np.frombuffer(self.ends, dtype=np.int64).copy()
        return out

    def add(self, row: Sequence[Any]) -> None:
        body: str = row[_BODY]
        rest = json.loads(body)
        trig = rest["trigger"]
        code = self.vocab.code
        trigger_text = row[_COL["trigger_text"]]
        ints = self.ints
        ints["seq"].append(int(row[len(RULE_COLUMNS)]))
        ints["id_hash"].append(key_hash(row[_COL["id"]]))
        ints["group_hash"].append(key_hash(row[_COL["rule_group"]]))
        qualifiers = rest.get("qualifiers") or []
        ints["stated_hash"].append(key_hash((row[_COL["actor"]], trigger_text, tuple(qualifiers))))
        ints["skill"].append(code(row[_COL["skill"]]))
        ints["scope_actor"].append(code(row[_COL["scope_actor"]]))
        ints["tool"].append(code(trig.get("tool")))
        ints["after_tool"].append(code(trig.get("after_tool")))
        self.flags["kind"].append(_KIND_CODE[trig["kind"]])
        self.bools["conditional"].append(bool(qualifiers))
        self.bools["excluded"].append(bool(trig.get("excluded")))
        predicate = trig.get("predicate")
        self.bools["predicate"].append(bool(predicate))
        self.bools["soft"].append(bool(predicate and predicate.get("soft")))
        self.bools["change"].append(bool(predicate and predicate.get("change")))
        subject = row[_COL["subject"]]
        self.bools["subject_named"].append(subject is not None and trigger_text == subject)
        numeric = trig.get("numeric")
        self.bools["percent"].append(bool(numeric) and numeric.get("unit") == PERCENT)
        if numeric:
            self.flags["num_op"].append(_OP_CODE[numeric["op"]])
            self.num_value.append(float(numeric["value"]))
            self.term_codes.extend(code(t) for t in dict.fromkeys(numeric["terms"]))
        else:
            self.flags["num_op"].append(-1)
            self.num_value.append(0.0)
            if predicate and predicate.get("soft"):  # the field a soft predicate names
                self.term_codes.extend(code(t) for t in dict.fromkeys(predicate.get("key") or []))
        self.term_off.append(len(self.term_codes))
        keywords = trig.get("keywords") or []
        self.kw_codes.extend(code(k) for k in keywords)
        self.kw_off.append(len(self.kw_codes))
        if keywords and not numeric and lists_alternatives(trigger_text):
            self._alternatives(trigger_text, keywords)
        self.alt_rule_off.append(len(self.alt_off) - 1)
        self.created.append(str(row[_COL["created_at"]]).encode())
        columns = json.dumps(list(row[:_BODY]), ensure_ascii=False)
        self.starts.append(len(self.blob))
        self.blob += f"{columns[:-1]},{body}]".encode()
        self.ends.append(len(self.blob))

    def _alternatives(self, condition: str, keywords: list[str]) -> None:
        """The groups of a condition that lists more than one alternative."""
        groups = alternatives(condition, keywords)
        if len(groups) < 2:
            return
        for group in groups:
            self.alt_codes.extend(self.vocab.code(k) for k in sorted(group))
            self.alt_off.append(len(self.alt_codes))


_INTS = (
    "seq",
    "id_hash",
    "group_hash",
    "stated_hash",
    "skill",
    "scope_actor",
    "tool",
    "after_tool",
)
