"""Is a free-text DATA condition met by the query or a tool step?

A condition that compiles to no threshold, negated value or predicate ("when the invoice is
overdue") is judged by a fitted line over the vectors retrieval already has and the words:
the cosine between the condition's vector (the rule's trigger vector) and the text's (the
masked query at stage 1, the step summary at stage 2), and which of the condition's keyword
stems the text holds. A condition that lists alternatives ("webhook or API problems",
"maintenance requests (heating, leaks, mould)") is met by any one of them, so the words are
counted per alternative: the parts between commas, brackets, slashes and the conjunctions
or / nor / and ("and" before a determiner joins the subjects of one condition, as in "the lab
results and the referral letter disagree": one alternative). It fires when

    cosine * w_cos + all_seen * w_all + two_seen * w_two + share_seen * w_share + bias >= 0

with all_seen: every keyword of some alternative is there; two_seen: at least two keywords
are; share_seen: the largest share of an alternative's keywords that is there. all_seen and
two_seen count for a condition (their weights are bounded at zero from below); the share is
free, and is fitted negative: words a text shares with the condition raise the cosine by
themselves, so a text holding part of the words needs a higher cosine than a paraphrase that
shares none. One word of several is never enough alone: "the invoice is overdue" is not met
by a step that only mentions an invoice unless the step is also close in meaning.

The weights are fitted per embedder, since cosine scales differ, by
benchmarks/conditions/calibrate.py on benchmarks/conditions/labelled.yaml; an embedder
without its own fit is judged on the words alone (`WORDS_ONLY`, fitted by the same script
with --words-only).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence, Set
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dctx.models import Rule
from dctx.text import alternatives

__all__ = [
    "CONDITION_MODELS",
    "NOTHING_SEEN",
    "WORDS_ONLY",
    "ConditionModel",
    "Lexical",
    "alternatives",
    "condition_model",
    "names_subject",
]


def names_subject(rule: Rule) -> bool:
    """A subject-scoped rule triggered by its subject's name: a name, not a condition, so
    its words are matched as words (`data_condition_met`; the packed column `subject_named`
    is this test on table rows)."""
    return rule.scope.subject is not None and rule.trigger.text == rule.scope.subject


@dataclass(frozen=True, slots=True)
class Lexical:
    """What a text holds of a condition's words."""

    all_seen: bool
    two_seen: bool
    share: float

    @classmethod
    def of(cls, groups: Sequence[Set[Hashable]], seen_words: Set[Hashable]) -> Lexical:
        """From the condition's alternatives and the words a text holds (stems, or their
        codes in a snapshot's vocabulary)."""
        seen = [len(g & seen_words) / len(g) for g in groups if g]
        hits = len(set().union(*groups) & seen_words) if groups else 0
        best = max(seen, default=0.0)
        return cls(all_seen=best >= 1.0, two_seen=hits >= 2, share=best)


NOTHING_SEEN = Lexical(all_seen=False, two_seen=False, share=0.0)


@dataclass(frozen=True, slots=True)
class ConditionModel:
    """The fitted line; see the module docstring."""

    w_cos: float
    w_all: float
    w_two: float
    w_share: float
    bias: float

    def fires(
        self, cosines: npt.NDArray[np.float32], lexical: Sequence[Lexical]
    ) -> npt.NDArray[np.bool_]:
        """Per condition: met, given its cosine with the text and what the text holds of
        its words."""
        all_seen = np.array([x.all_seen for x in lexical], dtype=np.float32)
        two_seen = np.array([x.two_seen for x in lexical], dtype=np.float32)
        share = np.array([x.share for x in lexical], dtype=np.float32)
        score = (
            self.w_cos * np.asarray(cosines, dtype=np.float32)
            + self.w_all * all_seen
            + self.w_two * two_seen
            + self.w_share * share
            + self.bias
        )
        return np.asarray(score >= 0.0, dtype=np.bool_)

    def fires_among(
        self,
        cosines: npt.NDArray[np.float32],
        slots: npt.NDArray[np.int64],
        seen: dict[int, Lexical],
    ) -> npt.NDArray[np.bool_]:
        """`fires` for the conditions in `slots`, given what a text holds of the words of
        the few in `seen` (the others hold none): the words are weighed for those alone, so
        a decision point over a large rulebook builds no object per condition."""
        score = self.w_cos * np.asarray(cosines, dtype=np.float32) + np.float32(self.bias)
        if seen:
            at = np.flatnonzero(np.isin(slots, np.fromiter(seen, dtype=np.int64, count=len(seen))))
            score[at] += np.array(
                [self._words(seen[i]) for i in slots[at].tolist()], dtype=np.float32
            )
        return np.asarray(score >= 0.0, dtype=np.bool_)

    def _words(self, lex: Lexical) -> float:
        return self.w_all * lex.all_seen + self.w_two * lex.two_seen + self.w_share * lex.share

    def met(
        self, cosine: float, condition: str, keywords: Sequence[str], stems: Iterable[str]
    ) -> bool:
        """One condition against one text (explanations and tests)."""
        lex = Lexical.of(alternatives(condition, keywords), set(stems))
        return bool(self.fires(np.array([cosine], dtype=np.float32), [lex])[0])


# fitted by benchmarks/conditions/calibrate.py (--embedder minilm, and --words-only);
# refit and replace these when the labelled set, the step summary or an embedder changes
CONDITION_MODELS: dict[str, ConditionModel] = {
    "minilm-l6-v2-int8": ConditionModel(
        w_cos=6.62, w_all=3.998, w_two=0.0, w_share=-2.152, bias=-2.291
    ),
}
WORDS_ONLY = ConditionModel(w_cos=0.0, w_all=2.531, w_two=0.076, w_share=0.0, bias=-1.304)


def condition_model(embedder_id: str) -> ConditionModel:
    """The fitted model for an embedder's cosines, else the words-only one."""
    return CONDITION_MODELS.get(embedder_id, WORDS_ONLY)
