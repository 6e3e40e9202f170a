"""Compile the signals of a capture into rulebook changes (deterministic by default).

Corrections are processed in trace order so that later corrections supersede earlier ones and
withdrawals find what they withdraw; tool patterns follow. The rulebook holds the store's rules
of the namespace, so maintenance sees earlier captures too.

A `ChainCompiler` (an LLM: compiler_llm.py) may compile each correction chain instead; when it
gives up (None), the chain is compiled deterministically. Withdrawals always search the stored
rulebook here, since only it knows the rules of earlier captures.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from dctx.capture.base import Aftermath, CorrectionSignal, ToolPatternSignal
from dctx.capture.conduct import named_tool
from dctx.capture.cues import ceases, prohibits, standing_cue
from dctx.compile.behaviour import restate
from dctx.compile.branches import negated_trigger, says_negated, says_otherwise, threshold_side
from dctx.compile.corrections import by_request, compile_correction, evidence_for
from dctx.compile.maintain import Maintenance, Rulebook
from dctx.compile.phrasing import drop_preamble
from dctx.compile.tool_rules import compile_tool_signal
from dctx.models import Evidence, EvidenceKind, Rule, RuleStatus, Trigger, TriggerKind
from dctx.text import content_stems


@dataclass(slots=True)
class CompileResult:
    maintenance: Maintenance
    evidence: list[Evidence]
    withdrawn: list[str]


@runtime_checkable
class ChainCompiler(Protocol):
    """Compiles one correction chain (same conversation and actor, in order) into rules."""

    def compile_chain(
        self, chain: Sequence[CorrectionSignal], evidence: Sequence[Evidence]
    ) -> list[Rule] | None:
        """Rules to add (`evidence[i]` belongs to `chain[i]`; a rule's first evidence id
        names the correction it mostly rests on), or None to compile deterministically."""
        ...


class ForeseenChains:
    """A ChainCompiler whose answers were computed before the write transaction.

    `foresee` runs the inner compiler (an LLM) on every chain of a capture while no lock is
    held; `compile_chain` then hands each answer back once, its evidence ids mapped onto the
    evidence the real compile made. A chain not foreseen goes to the inner compiler.
    """

    def __init__(self, inner: ChainCompiler) -> None:
        self.inner = inner
        self._answers: dict[tuple[int, ...], tuple[list[Rule] | None, list[str]]] = {}

    def foresee(self, corrections: Sequence[CorrectionSignal]) -> list[Rule]:
        """Compile every chain now; returns the rules, so their texts can be embedded."""
        out: list[Rule] = []
        for chain in _chains(corrections):
            if _role_bound(chain):
                continue  # compiled deterministically (see _compile_chain): no model call
            evs = _chain_evidence(chain)
            rules = self.inner.compile_chain(chain, evs)
            self._answers[_identity(chain)] = (rules, [e.id for e in evs])
            out.extend(rules or [])
        return out

    def compile_chain(
        self, chain: Sequence[CorrectionSignal], evidence: Sequence[Evidence]
    ) -> list[Rule] | None:
        answer = self._answers.pop(_identity(chain), None)
        if answer is None:
            return self.inner.compile_chain(chain, evidence)
        rules, old_ids = answer
        ids = dict(zip(old_ids, (e.id for e in evidence), strict=True))
        for rule in rules or []:
            rule.evidence_ids = [ids.get(i, i) for i in rule.evidence_ids]
        return rules


def foreseen_texts(
    corrections: Sequence[CorrectionSignal],
    tool_signals: Sequence[ToolPatternSignal],
    chains: ForeseenChains | None = None,
) -> list[str]:
    """The rule and trigger texts a compile of these signals will embed (the deterministic
    compile of each, and what `chains` compiles), so they can be embedded ahead of it."""
    rules: list[Rule] = []
    for signal in corrections:
        rules.extend(compile_correction(signal).rules)
        if signal.aftermath is Aftermath.WITHDRAWAL:
            again = dataclasses.replace(signal, aftermath=Aftermath.CORRECTION)
            rules.extend(compile_correction(again).rules)
    for tool_signal in tool_signals:
        out = compile_tool_signal(tool_signal)
        if out is not None:
            rules.append(out[0])
    if chains is not None:
        rules.extend(chains.foresee(corrections))
    return [t for r in rules for t in (r.text, r.trigger.text or r.text)]


def _role_bound(chain: Sequence[CorrectionSignal]) -> bool:
    """A speaker's role bounds the chain's reach (capture/roles.py): only the deterministic
    compile enforces it."""
    return any(s.reach is not None for s in chain)


def _identity(chain: Sequence[CorrectionSignal]) -> tuple[int, ...]:
    return tuple(id(s) for s in chain)


def _chain_evidence(chain: Sequence[CorrectionSignal]) -> list[Evidence]:
    return [
        evidence_for(
            s,
            EvidenceKind.WITHDRAWAL
            if s.aftermath is Aftermath.WITHDRAWAL
            else EvidenceKind.CORRECTION,
        )
        for s in chain
    ]


def compile_signals(
    rulebook: Rulebook,
    corrections: Sequence[CorrectionSignal],
    tool_signals: Sequence[ToolPatternSignal],
    *,
    chain_compiler: ChainCompiler | None = None,
) -> CompileResult:
    evidence: list[Evidence] = []
    withdrawn: list[str] = []
    for chain in _chains(corrections):
        if chain_compiler is not None and _compile_chain(
            chain_compiler, chain, rulebook, evidence, withdrawn
        ):
            continue
        memo = _TurnMemo()
        for signal in chain:
            _compile_one(signal, rulebook, evidence, withdrawn, memo)
    for tool_signal in tool_signals:
        out = compile_tool_signal(tool_signal)
        if out is None:
            continue
        rule, ev = out
        evidence.append(ev)
        rulebook.add(rule)
    return CompileResult(rulebook.result, evidence, withdrawn)


def _chains(corrections: Sequence[CorrectionSignal]) -> Iterator[list[CorrectionSignal]]:
    """Consecutive signals of one (conversation, actor, chain number), in trace order."""
    chain: list[CorrectionSignal] = []
    for signal in corrections:
        if chain and _chain_key(chain[-1]) != _chain_key(signal):
            yield chain
            chain = []
        chain.append(signal)
    if chain:
        yield chain


def _chain_key(signal: CorrectionSignal) -> tuple[str, str, str, int]:
    ctx = signal.ctx
    return (ctx.namespace, ctx.conversation_id, ctx.actor, signal.chain)


def _compile_one(
    signal: CorrectionSignal,
    rulebook: Rulebook,
    evidence: list[Evidence],
    withdrawn: list[str],
    memo: _TurnMemo,
) -> None:
    """Compile one signal into the rulebook; `memo` carries what earlier signals of the same
    turn left for the later ones."""
    turn = (signal.ctx.conversation_id, signal.message_index)
    if signal.aftermath is Aftermath.CORRECTION and (ceases(signal.directive) or signal.revokes):
        # "stop adding the disclaimer" while a rule asks for the disclaimer revokes that rule,
        # and so does a command the reader read as taking an instruction back ("drop the
        # emojis"); with no such rule it is a correction like any other
        ev = evidence_for(signal, EvidenceKind.WITHDRAWAL)
        target = rulebook.withdraw(
            signal.directive,
            ev,
            actor=signal.ctx.actor,
            skill=signal.ctx.skill,
            revoking=True,
        )
        if target is not None:
            evidence.append(ev)
            withdrawn.append(target.id)
            if ceases(signal.directive):
                return
            # a read withdrawal's command also says what holds now ("scratch the phone call,
            # send an SMS instead"; "drop the emojis"): it is learned as well
    compiled = compile_correction(signal)
    evidence.extend(compiled.evidence)
    for text, ev in compiled.withdrawals:
        target = rulebook.withdraw(
            text,
            ev,
            actor=signal.ctx.actor,
            skill=signal.ctx.skill,
            previous_output=signal.previous_output,
        )
        if target is not None:
            withdrawn.append(target.id)
            memo.replaced[turn] = target
            if prohibits(_practice(text)):
                memo.prohibitions[turn] = _practice(text)
            continue
        # nothing to withdraw: "don't add the chart anymore" may be a correction, but the
        # reader did not read it as one, so it waits as a candidate until it recurs or a person
        # approves it
        again = compile_correction(dataclasses.replace(signal, aftermath=Aftermath.CORRECTION))
        for rule in again.rules:
            rule.evidence_ids = [ev.id]
            rule.status = RuleStatus.CANDIDATE
            rulebook.add(rule, raw=signal.raw)
    for rule in compiled.rules:
        if signal.candidate:
            rule.status = RuleStatus.CANDIDATE
        conditioned = memo.conditioned.get(turn)
        before = memo.last.get(turn)
        if before is not None and _refers_back(rule.trigger):
            # "pull the req and check the base is inside the band. If it's above the max,
            # don't send": what "it" is, the command before says; so does when this holds
            rule.trigger = copy.deepcopy(before.trigger)
        _branch_of(rule, conditioned, right_after=conditioned is before)
        if by_request(rule, signal) and (tool := named_tool(rule.text, signal.tools_seen)):
            # "image refs: resolve the tag to its sha256 and deploy that", said after the
            # agent called `deploy_image`: how to use a tool it called holds wherever that
            # tool is at hand, not only on requests like the one it was said on
            rule.trigger = Trigger(
                kind=TriggerKind.TOOL, text=rule.text, tool=tool, node_id=rule.trigger.node_id
            )
        if rule.trigger.kind is TriggerKind.DATA:
            memo.conditioned[turn] = rule
        memo.last[turn] = rule
        old = memo.replaced.get(turn)
        restated = restate(old.text, rule.text) if old is not None else None
        if old is not None and restated is not None:
            # "forget the eu-west rule; we use the us-east region now": the new value, in
            # the form and with the reach of the rule it replaces
            rule.text, rule.type, rule.qualifiers = restated, old.type, list(old.qualifiers)
            rule.trigger = copy.deepcopy(old.trigger)
            if old.trigger.text == old.text:
                rule.trigger.text = restated
        elif old is not None and turn in memo.prohibitions:
            # "we don't page anyone for P3s anymore. Just open the SEV4 incident": what
            # the turn took back was also a prohibition that holds now, and the command
            # after it is only the rest of the new practice
            said = memo.prohibitions.pop(turn).rstrip(" .!")
            rule.text = f"{said[:1].upper()}{said[1:]}; {_lower_first(rule.text)}"
        rulebook.add(rule, raw=signal.raw, revises=signal.revises, replaces=signal.replaces)


@dataclass(slots=True)
class _TurnMemo:
    """What a chain's earlier signals leave for later signals of the same turn, by
    (conversation, message): the rule a withdrawal of that turn took back (a directive later
    in the turn replaces it), the withdrawal's words when they were a prohibition, and the
    turn's last rule that tests data (see _branch_of)."""

    replaced: dict[tuple[str, int], Rule] = field(default_factory=dict)
    prohibitions: dict[tuple[str, int], str] = field(default_factory=dict)
    conditioned: dict[tuple[str, int], Rule] = field(default_factory=dict)
    last: dict[tuple[str, int], Rule] = field(default_factory=dict)  # the turn's latest rule


# a first-person subject before the practice it states ("we don't page for P3s anymore")
_FIRST_PERSON = re.compile(r"^(?:we|i)\s+", re.IGNORECASE)


def _practice(withdrawal: str) -> str:
    """A withdrawal's words as a command: the framing before a colon and a first-person
    subject dropped ("change of plan: we don't page anyone for P3s" -> "don't page anyone for
    P3s")."""
    return _FIRST_PERSON.sub("", drop_preamble(withdrawal).strip())


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


# a condition whose subject is a pronoun names nothing a result could be tested for
_PRONOUN_SUBJECT = frozenset("it it's its that that's this they they're these those".split())


def _refers_back(trigger: Trigger) -> bool:
    """Is the trigger a data condition about "it" ("if it's above the max")?"""
    words = trigger.text.lower().replace("’", "'").split()
    return trigger.kind is TriggerKind.DATA and bool(words) and words[0] in _PRONOUN_SUBJECT


def _branch_of(rule: Rule, conditioned: Rule | None, *, right_after: bool = False) -> None:
    """ "Whenever a candidate's record says they need sponsorship, hold the offer. Anyone who
    doesn't need sponsorship, send as normal.": a later command of the same turn that would be
    delivered by resemblance to the request, and that names what the earlier command's data
    condition tests, applies where that condition is tested, not before the run. Said with
    the other polarity, it is the other branch and carries the condition's negation (no data
    trigger when it has none, branches.py); said alike ("for those, also copy HR"), the same
    condition. A command right after the conditioned one that names nothing of it and says
    nothing of its own about when ("if the reading is flagged, hold the batch. call the
    supplier and log the lot number") is the next step of the same case (`_next_step`). A
    threshold's branches are told apart by the side of its number they state ("fewer than 4
    X: do A; 4 or more: do B"), whatever the later command was read as."""
    if conditioned is None:
        return
    cond = conditioned.trigger
    branchable = rule.trigger.kind in (TriggerKind.QUERY, TriggerKind.DATA, TriggerKind.ALWAYS)
    if cond.numeric is not None and branchable and rule.trigger.numeric is None:
        # "fewer than 4 bookings: call them; 4 or more: email": the threshold's number said
        # on its other side is the other branch, whatever the command was read as
        side = threshold_side(rule.text, cond.numeric)
        if side == "same":
            rule.trigger = copy.deepcopy(cond)
            return
        if side == "other":
            if (negated := negated_trigger(cond)) is not None:
                rule.trigger = negated
            return
    if branchable and says_otherwise(rule.text):
        # "Otherwise, one translator is fine": where the condition does not hold
        rule.trigger = negated_trigger(cond) or rule.trigger
        return
    if rule.trigger.kind is not TriggerKind.QUERY:
        return
    if not set(cond.keywords) & set(content_stems(rule.text, drop_generic=True)):
        if right_after and not standing_cue(rule.text):
            _next_step(rule, conditioned)
        return
    if says_negated(rule.text, cond.keywords) == says_negated(cond.text, cond.keywords):
        rule.trigger = copy.deepcopy(cond)
    elif (negated := negated_trigger(cond)) is not None:
        rule.trigger = negated


def _next_step(rule: Rule, conditioned: Rule) -> None:
    """The rule holds in the case the rule before it names: its trigger, and its condition
    in the rule's words."""
    rule.trigger = copy.deepcopy(conditioned.trigger)
    if conditioned.qualifiers and not rule.qualifiers:
        said = conditioned.qualifiers[0]
        rule.qualifiers = [said]
        rule.text = f"{said[:1].upper()}{said[1:]}, {_lower_first(rule.text)}"


def _compile_chain(
    compiler: ChainCompiler,
    chain: list[CorrectionSignal],
    rulebook: Rulebook,
    evidence: list[Evidence],
    withdrawn: list[str],
) -> bool:
    """Compile a chain with `compiler`; False (nothing done) when it gave up, or when a
    speaker's role bounds the chain's reach (the deterministic compile enforces it)."""
    if _role_bound(chain):
        return False
    evs = _chain_evidence(chain)
    rules = compiler.compile_chain(chain, evs)
    if rules is None:
        return False
    evidence.extend(evs)
    for signal, ev in zip(chain, evs, strict=True):
        if signal.aftermath is not Aftermath.WITHDRAWAL:
            continue
        target = rulebook.withdraw(
            signal.directive,
            ev,
            actor=signal.ctx.actor,
            skill=signal.ctx.skill,
            previous_output=signal.previous_output,
        )
        if target is not None:
            withdrawn.append(target.id)
    raw_of = {ev.id: s.raw for s, ev in zip(chain, evs, strict=True)}
    for rule in rules:
        first = rule.evidence_ids[0] if rule.evidence_ids else ""
        rulebook.add(rule, raw=raw_of.get(first, ""))
    return True
