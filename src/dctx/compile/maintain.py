"""Rulebook maintenance: dedup and merge agreements, supersede, withdraw, group conflicts.

Runs inside the capture transaction against the rules already stored. Nothing is deleted here:
superseded and withdrawn rules stay as history (never injected).

Dedup never crosses scope: a rule merges only into one of the same namespace, skill, actor
scope and subject; the same lesson in another scope is a rule of its own (in the same conflict
group). A CANDIDATE is matched like a DRAFT: a recurrence of the same lesson adds its support
and its sighting, and promotes it once `Admission` is met (compile/admission.py).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from dctx.capture.cues import prohibits
from dctx.capture.revisions import quantities
from dctx.capture.verbs import STANDING_ADVERBS
from dctx.compile.admission import DEFAULT_ADMISSION, Admission, sightings, unconfirmed
from dctx.compile.behaviour import amounts, contradicts, different_slots, identity, resets
from dctx.compile.reach import PERSONAL
from dctx.models import (
    Evidence,
    Rule,
    RuleSource,
    RuleStatus,
    Scope,
    Trigger,
    TriggerKind,
    to_dict,
    utcnow,
)
from dctx.providers.base import Embedder, Vector
from dctx.text import content_stems, words

DUPLICATE = 0.90  # cosine at which two rules say the same thing
SAME_TOPIC = 0.72  # cosine at which two rules are about the same behavior
SAME_TOPIC_WITH_CUE = 0.45  # ... when the newer one says "instead", "actually", "no longer"
WITHDRAW_MIN = 0.30
REVOKE_MIN = 0.5  # ... for a command that ends a practice, which is a correction otherwise
# statuses a new rule can merge into: live ones, and those waiting for a person or evidence
_MERGEABLE = (RuleStatus.ACTIVE, RuleStatus.DRAFT, RuleStatus.CANDIDATE)

_REPLACEMENT_CUE = re.compile(
    r"\b(instead|actually|rather|no longer|change|switch|not anymore|any more|now|from now on|"
    r"going forward|update|updated|new policy|wrong|scratch|correction|replace)\b",
    re.IGNORECASE,
)
# cues that the turn replaces something it names ("X is too casual, use Y instead")
_NAMES_REPLACEMENT = re.compile(
    r"\b(instead|rather than|replaces?|scratch|no longer|not anymore|any more|switch(ed)? to|"
    r"stop [\w']+ing|no more|"
    r"too (casual|formal|long|short|much|vague|noisy))\b",
    re.IGNORECASE,
)
_WITHDRAW_WORDS = re.compile(
    r"\b(forget|about|never ?mind|ignore|what i said|no longer|need|needed|necessary|required|"
    r"want|stop|doing|that|this|it|the|my|earlier|previous|old|rule|requirement|instruction|"
    r"preference|policy|thing|you can|please|drop|scrap|remove|retire|discard|cancel|undo|"
    r"revert|lift|disregard|anymore|any more|any longer|scratch|don'?t|do not|have to|bother|"
    r"with|so|ok|okay|we|i|us|our|let'?s)\b",
    re.IGNORECASE,
)


RelationKind = Literal["agreed", "restated", "reinforced", "superseded", "conflict", "withdrawn"]


@dataclass(slots=True)
class Relation:
    """How a new signal met a rule already in the rulebook: the same lesson again (agreed,
    restated in another scope, a tool lesson reinforced) or against it (superseded, in
    conflict, withdrawn). Outcome tracking reads these (compile/outcomes.py)."""

    rule_id: str  # the rule that was there
    kind: RelationKind
    by: str | None  # the new rule, when there is one
    conversation_id: str | None  # where the new signal was seen
    evidence_ids: list[str] = field(default_factory=list)
    similarity: float | None = None  # text cosine of the two rules, when compared


@dataclass(slots=True)
class Maintenance:
    """Outcome of merging new rules into the rulebook."""

    new_rules: list[Rule] = field(default_factory=list)
    new_vectors: dict[str, Vector] = field(default_factory=dict)  # text vector of each new rule
    changed: dict[str, Rule] = field(default_factory=dict)  # existing rules modified, by id
    log: list[str] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)


class Rulebook:
    """The rules one capture can touch, with their text vectors, kept in step as it merges."""

    def __init__(
        self,
        rules: Sequence[Rule],
        vectors: Vector,
        embedder: Embedder,
        *,
        admission: Admission = DEFAULT_ADMISSION,
        promote_to: RuleStatus = RuleStatus.ACTIVE,
    ) -> None:
        self.rules = list(rules)
        self.admission = admission
        self.promote_to = promote_to  # DRAFT in review mode: a person still decides
        n = len(self.rules)
        # capacity grows by doubling, so adding a rule does not copy the whole matrix
        self._matrix = np.zeros((max(2 * n, 16), embedder.dim), dtype=np.float32)
        if n:
            self._matrix[:n] = vectors
        self.embedder = embedder
        self.result = Maintenance()
        # rules added by this capture -> (conversation, turn text): one turn's rules coexist
        self._turn: dict[str, tuple[str | None, str]] = {}
        # turns (conversation, text) that withdrew a rule: their "instead" names that rule
        self._withdrew_in: set[tuple[str | None, str]] = set()
        # turns whose rule replaced an older one: (the request it was said on, the reach it took)
        self._reach: dict[tuple[str | None, str], tuple[str, Trigger]] = {}

    @property
    def vectors(self) -> Vector:
        """Text vectors, row i for `rules[i]`."""
        return self._matrix[: len(self.rules)]

    # ------------------------------------------------------------------ merge
    def add(self, rule: Rule, raw: str = "", revises: str = "", replaces: bool = True) -> None:
        """Merge `rule` in: agree with, restate, supersede or conflict with the rules there.
        `revises` is the text of the speaker's rule whose value the turn changed (capture
        found it by its quantities), superseded by `rule` whatever the two texts share.
        Without `replaces` (a reading too unsure to take a rule's place), `rule` agrees or
        is added, supersedes only a rule that sets the same parameter, and conflicts with
        nothing."""
        vec = self.embedder.embed([rule.text])[0]
        reach = self._reach.get((rule.conversation_id, raw)) if raw else None
        if reach is not None and _said_on(rule, reach[0]):
            # said in the turn that replaced an older rule, on the same request: the turn's
            # rules go where its replacement went ("the refund window is 14 days now. Between
            # day 15 and 30 we give store credit")
            rule.trigger = _reaching(reach[1], rule)
        if rule.source is RuleSource.SELF_ASSESSMENT:
            self._add_tool_rule(rule, vec)
            return
        revised = self._revised(rule, revises) if revises else None
        if revised is not None:
            self._replace(revised, rule, raw)
            self._keep(rule, vec, raw)
            return
        own, own_sim = self._best_match(rule, vec, exact_scope=True)
        if own is not None and own_sim >= DUPLICATE and not resets(own, rule):
            self._agree(own, rule)
            self._relate(own, "agreed", rule, None, own_sim)
            return
        best, sim = self._best_match(rule, vec)
        if best is not None and sim >= DUPLICATE and not resets(best, rule):
            # the same directive in another scope (another person's, or team-wide): a rule of
            # its own, in the same group
            rule.group = best.group
            self._append(rule, vec)
            self._relate(best, "restated", rule, rule.id, sim)
            return
        if rule.status is RuleStatus.CANDIDATE:
            # a correction not yet admitted replaces and conflicts with nothing until it is
            self._append(rule, vec)
            return
        earlier = self._same_setting(rule)
        if not replaces:
            # an unsure reading replaces only a rule that sets the same parameter: the slot
            # says it is the same setting, where shared words and a cue may be a one-off's
            if earlier is not None:
                self._replace(earlier, rule, raw, SAME_TOPIC)
            self._keep(rule, vec, raw)
            return
        if earlier is not None:
            # the same parameter set again to another value: the slot decides, not the words
            best, sim = earlier, max(sim if best is earlier else 0.0, SAME_TOPIC)
        cue = bool(_REPLACEMENT_CUE.search(raw)) or (
            best is not None
            and (_names_old_behavior(best, rule, raw) or self._narrows(best, rule, raw))
        )
        threshold = SAME_TOPIC_WITH_CUE if cue else SAME_TOPIC
        if best is not None and sim >= threshold and not different_slots(best, rule):
            same_turn = bool(set(best.evidence_ids) & set(rule.evidence_ids)) or (
                bool(raw) and self._turn.get(best.id) == (rule.conversation_id, raw)
            )
            if same_turn:
                rule.group = f"{best.group}+{rule.id}"  # one turn's rules never replace each other
            elif best.scope.subject == rule.scope.subject and (
                best.actor == rule.actor or _team_update(best, rule, raw)
            ):
                self._replace(best, rule, raw, sim)
            elif contradicts(best, rule, sim, contrasted=_contrasts(best, rule, raw)):
                # another person's rule for the same slot with another value: resolved per
                # querying actor at injection (retrieve/conflicts.py)
                rule.group = best.group
                self.result.log.append(f"conflict group {best.group}: {best.id} vs {rule.id}")
                self._relate(best, "conflict", rule, rule.id, sim)
        elif (
            raw
            and _NAMES_REPLACEMENT.search(raw)
            and (rule.conversation_id, raw) not in self._withdrew_in
        ):
            # "..., send an SMS instead": the older rule the turn names is replaced, unless
            # the turn already took back what its new rule replaces
            named = self._named_in_turn(rule, raw)
            if named is not None:
                self._replace(named, rule, raw)
        self._keep(rule, vec, raw)

    def _replace(self, old: Rule, new: Rule, raw: str, sim: float | None = None) -> None:
        """`new` takes `old`'s place: in its conflict group, superseding it."""
        new.group = old.group
        self._supersede(old, new, raw)
        self._relate(old, "superseded", new, new.id, sim)

    def _keep(self, rule: Rule, vec: Vector, raw: str) -> None:
        """Add `rule` to the rulebook, remembering the turn it was said in."""
        self._append(rule, vec)
        if raw:
            self._turn[rule.id] = (rule.conversation_id, raw)

    def _revised(self, rule: Rule, text: str) -> Rule | None:
        """The live rule of `rule`'s actor whose text is `text`, if the rulebook holds it."""
        said = _norm(text)
        for other in reversed(self.rules):
            if (
                other.status in (RuleStatus.ACTIVE, RuleStatus.DRAFT)
                and other.source is RuleSource.CORRECTION
                and other.actor == rule.actor
                and _norm(other.text) == said
            ):
                return other
        return None

    def _same_setting(self, rule: Rule) -> Rule | None:
        """The latest live rule of the same actor, scope and condition that sets one of the
        parameters `rule` sets, to another value (compile/behaviour.py)."""
        if not identity(rule.text).settings:
            return None
        for other in reversed(self.rules):
            if (
                other.status in (RuleStatus.ACTIVE, RuleStatus.DRAFT)
                and other.source is RuleSource.CORRECTION
                and other.actor == rule.actor
                and same_scope(other.scope, rule.scope)
                and _same_condition(other, rule)
                and resets(other, rule)
            ):
                return other
        return None

    def _narrows(self, old: Rule, new: Rule, raw: str) -> bool:
        """The turn splits an older universal rule by scope ("go back to '3pm' in letters,
        keep 24-hour times in the rota"): it says something else for one part already, and
        `new` keeps the old behaviour, without the universal adverb, for another."""
        sibling = any(
            said == (new.conversation_id, raw) and rid != new.id for rid, said in self._turn.items()
        )
        return bool(raw) and sibling and _universal(old.text) and not _universal(new.text)

    def _add_tool_rule(self, rule: Rule, vec: Vector) -> None:
        for existing in self.rules:
            if (
                existing.group != rule.group
                or existing.status not in _MERGEABLE
                or not same_scope(existing.scope, rule.scope)
            ):
                continue
            waiting = RuleStatus.CANDIDATE in (existing.status, rule.status)
            if waiting and _norm(existing.text) != _norm(rule.text):
                continue  # a recurrence must be the same lesson, not one about the same tool
            existing.support += rule.support
            existing.evidence_ids.extend(rule.evidence_ids)
            existing.updated_at = rule.updated_at
            existing.history.append({"at": utcnow(), "event": "reinforced", "by": rule.id})
            if existing.status is RuleStatus.CANDIDATE and unconfirmed(rule):
                existing.history.extend(sightings(rule))  # kept; admission waits for more
            elif existing.status is RuleStatus.CANDIDATE:
                self._sighted(existing, rule)
            self._changed(existing)
            self._relate(existing, "reinforced", rule, None, None)
            return
        self._append(rule, vec)

    def _sighted(self, candidate: Rule, again: Rule) -> None:
        """Record a recurrence of a candidate; promote it when the evidence is independent
        enough, or when this sighting owes nothing to tool output."""
        trusted = again.status is not RuleStatus.CANDIDATE
        if trusted:
            seen = {"at": utcnow(), "event": "seen", "conversation": again.conversation_id}
            candidate.history.append({**seen, "actor": None, "trusted": True})
        candidate.history.extend(sightings(again))
        if trusted or self.admission.admits(candidate):
            candidate.status = self.promote_to
            reason = "seen without tool output" if trusted else "seen independently"
            candidate.history.append({"at": utcnow(), "event": "promoted", "why": reason})
            self.result.log.append(f"{candidate.id} promoted to {candidate.status.value}")
        else:
            candidate.from_tool_output = list(
                dict.fromkeys([*candidate.from_tool_output, *again.from_tool_output])
            )

    def _best_match(
        self, rule: Rule, vec: Vector, *, exact_scope: bool = False
    ) -> tuple[Rule | None, float]:
        """The most similar correction rule under the same condition in the same skill (and,
        with `exact_scope`, of exactly the same scope)."""
        if not self.rules:
            return None, 0.0
        sims = self.vectors @ vec
        best: Rule | None = None
        best_sim = 0.0
        for i in np.argsort(-sims)[:20]:
            other = self.rules[int(i)]
            if other.status not in _MERGEABLE:
                continue
            if other.source is RuleSource.SELF_ASSESSMENT:
                continue
            if (
                other.scope.skill != rule.scope.skill
                or other.scope.namespace != rule.scope.namespace
            ):
                continue
            if exact_scope and not same_scope(other.scope, rule.scope):
                continue
            if not _same_condition(other, rule):
                continue
            sim = float(sims[int(i)])
            if sim < SAME_TOPIC and _lexical_topic(other.text, rule.text):
                sim = SAME_TOPIC
            if sim > best_sim:
                best, best_sim = other, sim
        return best, best_sim

    def _named_in_turn(self, rule: Rule, raw: str) -> Rule | None:
        """The actor's older rule that a replacing turn names ("Cheers is too casual ... make
        it 'Kind regards' instead"), however little the new rule's own words resemble it."""
        said = set(content_stems(raw, drop_generic=True))
        new = set(content_stems(rule.text, drop_generic=True))
        best: Rule | None = None
        best_hits = 0
        for other in self.rules:
            if (
                other.actor != rule.actor
                or other.source is not RuleSource.CORRECTION
                or other.status not in (RuleStatus.ACTIVE, RuleStatus.DRAFT)
                or other.scope.skill != rule.scope.skill
                or other.scope.subject != rule.scope.subject
                or self._turn.get(other.id) == (rule.conversation_id, raw)
                or bool(set(other.evidence_ids) & set(rule.evidence_ids))
            ):
                continue
            hits = len((set(content_stems(other.text, drop_generic=True)) - new) & said)
            if hits > best_hits:
                best, best_hits = other, hits
        return best

    def _agree(self, existing: Rule, rule: Rule) -> None:
        """`rule` says what `existing` (of the same scope) says: one more supporter. What they
        said is kept with the agreement, so the rule can outlive its author (forget_actor)."""
        existing.support += 1
        if rule.actor and rule.actor not in existing.supporters:
            existing.supporters.append(rule.actor)
        existing.evidence_ids.extend(rule.evidence_ids)
        existing.updated_at = rule.updated_at
        existing.history.append(
            {
                "at": utcnow(),
                "event": "agreed",
                "actor": rule.actor,
                "evidence": list(rule.evidence_ids),
                "conversation": rule.conversation_id,
                "said": {
                    "text": rule.text,
                    "type": rule.type.value,
                    "trigger": to_dict(rule.trigger),
                    "qualifiers": list(rule.qualifiers),
                },
            }
        )
        if (
            existing.status is RuleStatus.CANDIDATE
            and not existing.from_tool_output
            and (
                rule.status is not RuleStatus.CANDIDATE
                or rule.conversation_id != existing.conversation_id
            )
        ):
            # a correction the reader was unsure of, said again in another session or said
            # with confidence: admitted
            existing.status = self.promote_to
            existing.history.append({"at": utcnow(), "event": "admitted", "by": rule.id})
        self._changed(existing)

    def _relate(
        self, old: Rule, kind: RelationKind, new: Rule, by: str | None, sim: float | None
    ) -> None:
        self.result.relations.append(
            Relation(old.id, kind, by, new.conversation_id, list(new.evidence_ids), sim)
        )

    def _supersede(self, old: Rule, new: Rule, raw: str = "") -> None:
        if new.trigger.kind is TriggerKind.QUERY and old.trigger.kind in (
            TriggerKind.ALWAYS,
            TriggerKind.TOOL,
            TriggerKind.QUERY,
        ):
            # the replacement reaches where the rule it replaces did (every run, every call of
            # its tool, or the requests the old rule was learned on: "the refund window is 14
            # days now", said on any errand, answers the returns "30 days" answered), not only
            # requests like the one it was said on
            asked_on = new.trigger.text
            new.trigger = _reaching(old.trigger, new)
            if raw:
                self._reach[(new.conversation_id, raw)] = (asked_on, old.trigger)
        if old.scope.actor is None and new.scope.actor is not None and not _own(new):
            # the team's rule said again with a new value is still the team's ("Keep the 6
            # months, but the down payment's back: 10% now"), unless marked the speaker's own
            new.scope = dataclasses.replace(new.scope, actor=None)
        old.status = RuleStatus.SUPERSEDED
        old.superseded_by = new.id
        old.history.append({"at": utcnow(), "event": "superseded", "by": new.id})
        self._changed(old)
        self.result.log.append(f"{new.id} supersedes {old.id}")

    def _append(self, rule: Rule, vec: Vector) -> None:
        n = len(self.rules)
        if n == len(self._matrix):
            grown = np.zeros((2 * n, self._matrix.shape[1]), dtype=np.float32)
            grown[:n] = self._matrix
            self._matrix = grown
        self._matrix[n] = vec
        self.rules.append(rule)
        self.result.new_rules.append(rule)
        self.result.new_vectors[rule.id] = vec

    def _changed(self, rule: Rule) -> None:
        if rule.id in self.result.new_vectors:
            return  # a rule added by this capture is written whole anyway
        self.result.changed[rule.id] = rule

    # ------------------------------------------------------------------ withdraw
    def withdraw(
        self,
        text: str,
        evidence: Evidence,
        *,
        actor: str,
        skill: str,
        previous_output: str = "",
        revoking: bool = False,
    ) -> Rule | None:
        """Withdraw the actor's rule that `text` refers to; None when nothing matches.
        `revoking`: `text` is a command that ends a practice ("stop adding the footer"), so
        only a rule that asks for the practice, and clearly the one named, is withdrawn."""
        mine = [
            (i, r)
            for i, r in enumerate(self.rules)
            if r.actor == actor
            and r.scope.skill == skill
            and r.status in (RuleStatus.ACTIVE, RuleStatus.DRAFT)
            and not (revoking and prohibits(r.text))
        ]
        if not mine:
            return None
        # what is withdrawn is named up front ("let's stop cc'ing managers, a few complained"):
        # the first clause, with "cc'ing" read as "cc"
        head = re.split(r",\s|\s[-–—]\s|;", text, maxsplit=1)[0]
        residual = _WITHDRAW_WORDS.sub(" ", re.sub(r"(\w+)'ing\b", r"\1", head))
        stems = set(content_stems(residual))
        target: Rule | None = None
        if stems:
            vec = self.embedder.embed([residual])[0]
            best_score = 0.0
            for i, r in mine:
                overlap = len(stems & set(content_stems(r.text))) / len(stems)
                score = 0.5 * float(self.vectors[i] @ vec) + 0.5 * overlap
                if score > best_score:
                    target, best_score = r, score
            if best_score < (REVOKE_MIN if revoking else WITHDRAW_MIN):
                target = None
        elif revoking:
            return None
        elif previous_output:
            vec = self.embedder.embed([previous_output])[0]
            i, target = max(mine, key=lambda ir: float(self.vectors[ir[0]] @ vec))
        else:
            target = mine[-1][1]
        if target is None:
            return None
        target.status = RuleStatus.WITHDRAWN
        self._withdrew_in.add((evidence.conversation_id, evidence.text))
        target.evidence_ids.append(evidence.id)
        target.history.append(
            {"at": utcnow(), "event": "withdrawn", "actor": actor, "evidence": evidence.id}
        )
        self._changed(target)
        self.result.relations.append(
            Relation(target.id, "withdrawn", None, evidence.conversation_id, [evidence.id])
        )
        return target


def _team_update(old: Rule, new: Rule, raw: str) -> bool:
    """Is `new` a colleague's update of the team rule `old`: both the team's, and the turn
    names what it replaces ("Lane rentals are $14 an hour for everyone now, not $12")? Two
    team policies said without naming each other stay a conflict, resolved per querying
    actor; another person's own rule is never replaced."""
    return old.scope.actor is None and new.scope.actor is None and _contrasts(old, new, raw)


def _own(rule: Rule) -> bool:
    """Is the rule marked as its speaker's own ("for my texts", "for me")?"""
    return any(PERSONAL.search(t) for t in (rule.text, *rule.qualifiers))


def same_scope(a: Scope, b: Scope) -> bool:
    """Exactly the same reach: namespace, skill, actor scope and subject."""
    return (a.namespace, a.skill, a.actor, a.subject) == (b.namespace, b.skill, b.actor, b.subject)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _names_old_behavior(old: Rule, new: Rule, raw: str) -> bool:
    """The correction's turn names what the older rule asked for and the new one drops
    ("Trailing numbers are useless ... P/E should be on forward earnings"): the user is
    replacing that behavior, not adding a second one."""
    if not raw:
        return False
    dropped = set(content_stems(old.text, drop_generic=True)) - set(
        content_stems(new.text, drop_generic=True)
    )
    return bool(dropped & set(content_stems(raw, drop_generic=True)))


def _contrasts(old: Rule, new: Rule, raw: str) -> bool:
    """The newer rule's turn says what it replaces: a contrast cue, or it names what the
    older rule asks for and the new one drops, or the amount it changes."""
    return (
        bool(raw and _NAMES_REPLACEMENT.search(raw))
        or _names_old_behavior(old, new, raw)
        or _names_old_amount(old, new, raw)
    )


def _names_old_amount(old: Rule, new: Rule, raw: str) -> bool:
    """The turn gives an amount of the older rule a new value and names the old one ("$14 an
    hour now, not $12")."""
    before, after, said = amounts(old.text), amounts(new.text), quantities(raw)
    return any(
        (kind, number) in said
        for kind in before.keys() & after.keys()
        for number in before[kind] - after[kind]
    )


def _universal(text: str) -> bool:
    """Said to hold everywhere, always: a standing adverb (capture/verbs.py) in the rule."""
    return any(w in STANDING_ADVERBS for w in words(text))


def _lexical_topic(a: str, b: str) -> bool:
    """Two directives that differ in a word or two ("report growth as ARR" / "... as QRR")
    are about the same behavior even when embeddings of acronyms disagree."""
    wa, wb = words(a), words(b)
    if min(len(wa), len(wb)) < 3:
        return False
    return difflib.SequenceMatcher(a=wa, b=wb, autojunk=False).ratio() >= 0.75


def _same_condition(a: Rule, b: Rule) -> bool:
    """Rules only replace or conflict with rules under the same condition and subject."""
    if a.scope.subject != b.scope.subject:
        return False
    if a.trigger.kind != b.trigger.kind and "data" in (a.trigger.kind, b.trigger.kind):
        return False
    return set(a.trigger.keywords) == set(b.trigger.keywords)


def _said_on(rule: Rule, asked_on: str) -> bool:
    """Is the rule delivered by resemblance to the request `asked_on` (its situation)?"""
    return rule.trigger.kind is TriggerKind.QUERY and rule.trigger.text == asked_on


def _reaching(reach: Trigger, rule: Rule) -> Trigger:
    """The rule's trigger with the reach of `reach` (a QUERY rule's situation, every run, or
    every call of a tool); a trigger that is the rule's own words says the rule's."""
    return dataclasses.replace(
        rule.trigger,
        kind=reach.kind,
        text=reach.text if reach.kind is TriggerKind.QUERY else rule.text,
        tool=reach.tool,
        after_tool=reach.after_tool,
    )
