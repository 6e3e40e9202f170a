"""Compile a human correction into scoped RULE directives (deterministic compiler).

One correction sentence may yield several atomic rules (so each can be withdrawn alone). Each
rule keeps its qualifiers, loses the seed subject's name unless it is about that subject, and
gets a trigger: ALWAYS for formatting, DATA for qualified rules, TOOL for rules that name a
tool, QUERY for the rest.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from dctx.capture.base import Aftermath, CorrectionSignal
from dctx.capture.condition_words import Condition
from dctx.capture.cues import ceases, command_words, is_directive
from dctx.capture.specs import opens_spec
from dctx.capture.subjects import generic_term, mask_instances, name_variants
from dctx.capture.verbs import STANDING_ADVERBS
from dctx.compile.changes import as_change
from dctx.compile.conditions import split_condition
from dctx.compile.ellipsis import said_again
from dctx.compile.phrasing import (
    drop_preamble,
    drop_reasons,
    imperative,
    lower_first,
    rule_type,
    split_directives,
)
from dctx.compile.predicates import compile_predicate, date_window
from dctx.compile.reach import PERSONAL, SHARED_SCOPE, TEAM_MARKER
from dctx.compile.topics import topic_head, under_topic
from dctx.grammar import BACK_POSSESSIVES, BACK_PRONOUNS
from dctx.models import (
    Evidence,
    EvidenceKind,
    Predicate,
    Rule,
    RuleSource,
    RuleType,
    Scope,
    Trigger,
    TriggerKind,
    new_id,
)
from dctx.text import content_stems, key_stems, words

UNIVERSAL = re.compile(
    r"\b(always|never|every time|from now on|going forward|in (the )?future|no matter what|"
    r"next time|in every|for every|for all|without exception)\b",
    re.IGNORECASE,
)
# a quote opens and closes outside a word: the apostrophes of "prod's" and "don't" quote nothing
_EXAMPLE = re.compile(
    r"(?<!\w)'[^']{2,80}'(?!\w)|\"[^\"]{2,80}\"|`[^`]{2,80}`|"
    r"\b(?:like|e\.g\.|for example|such as)\s+\S+",
    re.IGNORECASE,
)
_OUTPUT_CONDITION = re.compile(
    r"^you\s+(?:report|quote|mention|cite|give|show|present|write|discuss|list|use|state|"
    r"reference|describe|summari[sz]e)\b",
    re.IGNORECASE,
)
_ADVERB_LED = re.compile(r"^(only|never|always|then|and then)\s+\w+", re.IGNORECASE)
_THIS_SUBJECT = re.compile(
    r"\b(this|that) (company|customer|client|account|merchant|vendor|firm)\b|\bspecifically\b|"
    r"\bonly for\b",
    re.IGNORECASE,
)
_IDENTIFIER = re.compile(r"\b(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Z_])[A-Za-z0-9_\-]{4,}\b")


@dataclass(slots=True)
class Compiled:
    """What one signal compiles to: rules to add, or targets to withdraw."""

    rules: list[Rule] = field(default_factory=list)
    withdrawals: list[tuple[str, Evidence]] = field(default_factory=list)  # (text, evidence)
    evidence: list[Evidence] = field(default_factory=list)


def evidence_for(signal: CorrectionSignal, kind: EvidenceKind) -> Evidence:
    ctx = signal.ctx
    return Evidence(
        id=new_id("ev"),
        kind=kind,
        namespace=ctx.namespace,
        conversation_id=ctx.conversation_id,
        actor=ctx.actor,
        message_index=signal.message_index,
        text=signal.raw,
        timestamp=ctx.timestamp,
        source=ctx.source,
        node_id=signal.node_id,
    )


def compile_correction(signal: CorrectionSignal) -> Compiled:
    out = Compiled()
    if signal.aftermath is Aftermath.WITHDRAWAL:
        ev = evidence_for(signal, EvidenceKind.WITHDRAWAL)
        out.evidence.append(ev)
        out.withdrawals.append((signal.directive, ev))
        return out
    ev = evidence_for(signal, EvidenceKind.CORRECTION)
    out.evidence.append(ev)
    # a team marker in the sentence shares it; one elsewhere in the turn shares the turn's
    # other directives unless they are marked personal ("for me personally, ...")
    # and so does a decision of the organisation the turn passes on (capture's reading)
    shared = bool(SHARED_SCOPE.search(signal.directive)) or (
        (bool(SHARED_SCOPE.search(signal.raw)) or signal.announced)
        and not PERSONAL.search(signal.directive)
    )
    # the speaker's role may narrow or widen that (capture/roles.py): an end user's words
    # reach only themselves, and only a preference they stated as their own
    if signal.reach == "personal":
        if not PERSONAL.search(signal.directive):
            return Compiled()  # not stated as their own preference: nothing, not even evidence
        shared = False
    elif signal.reach == "team":
        shared = True
    topic = topic_head(signal)
    for said in said_again(signal) or [signal.directive]:
        out.rules.extend(_rules_of(signal, said, shared, ev, topic))
    if shared and signal.reach is None and not SHARED_SCOPE.search(signal.raw):
        for rule in out.rules:  # why it reaches the team, for `rules explain` and review
            rule.history.append(
                {"at": signal.ctx.timestamp, "event": "team rule", "why": ANNOUNCED_WHY}
            )
    return out


ANNOUNCED_WHY = "the turn passes on a decision of the organisation (announcement reader)"


def _unmarked(said: str) -> str:
    """The directive without the words that say whom it is for ("for everyone"), and without
    the space they leave before a comma."""
    return re.sub(r"\s+(?=[,;:.])", "", TEAM_MARKER.sub("", said)).strip(" ,:")


def _rules_of(
    signal: CorrectionSignal, said: str, shared: bool, ev: Evidence, topic: str | None
) -> list[Rule]:
    """The rules of one directive: its framing dropped, split into clauses and commands, each
    with its own condition, under the turn's topic."""
    directive = drop_reasons(drop_preamble(_unmarked(said)))
    directive = re.sub(r"^(?:for|on)\s*,\s*", "", directive, flags=re.IGNORECASE)
    # "From now on, if a company has debt maturing ..., flag it": the framing is kept in
    # signal.directive (it makes the rule universal); the condition follows it
    directive = re.sub(
        r"^(?:from now on|going forward|moving forward|in future|next time)\s*,\s*(?=(?:if|when|"
        r"whenever|for|once|any)\b)",
        "",
        directive,
        flags=re.IGNORECASE,
    )
    rules: list[Rule] = []
    for clause in _clauses(directive):
        cond = split_condition(clause, signal.subjects)
        if cond is not None and _refers_back(cond, clause):
            cond = None
        parts = _merge_statements(split_directives(cond.main if cond else clause))
        for main in _keep_thin_parts(parts, cond):
            rule = _build_rule(signal, main, cond, shared, ev)
            if rule is not None:
                if topic is not None:
                    rule.text = under_topic(topic, rule.text)
                rules.append(rule)
    return rules


# a condition whose subject is a pronoun
_PRONOUN_LED = re.compile(r"^(?:it|they|this|that|these|those)\b", re.IGNORECASE)


def _refers_back(cond: Condition, clause: str) -> bool:
    """ "make sure there's an Article 28 DPA and flag it if it's missing": a condition after the
    command whose subject is a pronoun is about the command's own object, not about data the run
    will see; it stays in the rule's words, and the rule is delivered as its command would be.
    A threshold or a value written as data ("if it's over 5%", "unless it's USD") still tests
    the data."""
    leading = clause.strip().lower().startswith(cond.qualifier.strip().lower() or "\0")
    return (
        not leading
        and cond.numeric is None
        and not cond.excluded
        and not cond.about_query
        and bool(_PRONOUN_LED.match(cond.text.strip()))
    )


def _merge_statements(mains: list[str]) -> list[str]:
    """ "for P3s, page the secondary; primary is drowning": a later part that only states
    something belongs to the rule before it (a reason or detail), not a second rule under the
    same condition."""
    out: list[str] = []
    for main in mains:
        if out and not is_directive(main) and not _ADVERB_LED.match(main):
            out[-1] = f"{out[-1]}; {main}"
        else:
            out.append(main)
    return out


def _keep_thin_parts(mains: list[str], cond: Condition | None) -> list[str]:
    """ "do a dry run and show me the output", "never make one yourself, ask the platform
    team": a part that names too little to be a rule alone (`_names_behaviour`) is a step of
    the part before it (or, first, of the one after it), so the two stay one rule instead of
    the thin part being dropped."""
    out: list[str] = []
    pending = ""  # thin parts before the first part that names a behaviour
    for main in mains:
        if out and _points_back(main):
            # "pull up the agency's profile and check their allergen restrictions": a step on
            # what the part before found is a step of that rule, not a rule of its own
            out[-1] = f"{out[-1]} and {main}"
        elif _names_behaviour(main, cond):
            out.append(f"{pending}, {main}" if pending else main)
            pending = ""
        elif out:
            out[-1] = f"{out[-1]} and {main}"
        else:
            pending = f"{pending}, {main}" if pending else main
    if pending:
        out.append(pending)  # nothing named anywhere: `_build_rule` drops it as before
    return out


def _points_back(main: str) -> bool:
    """Does the command act on something the part before it named ("check their allergen
    restrictions", "flag those")?"""
    said = command_words(main)
    return len(said) > 1 and said[1] in BACK_PRONOUNS | BACK_POSSESSIVES


def _names_behaviour(main: str, cond: Condition | None) -> bool:
    """Does the command name a behaviour that can apply elsewhere? "make it better" names
    none; under a condition one specific word does ("if it's two days late, get someone to
    phone the customer")."""
    body = imperative(main)
    named = 1 if cond is not None and (cond.keywords or cond.numeric) else 2
    return bool(body) and len(content_stems(body, drop_generic=True)) >= named


def _clauses(directive: str) -> list[str]:
    """Semicolon clauses that carry their own conditions: "set them to pending_customer; they
    auto-close after 72 hours if nobody replies" - the trailing "if" is the second clause's,
    and that clause states a fact, not a directive, so it is dropped. A leading condition
    ("for banks, X; Y"), a ladder ("a -> b; otherwise c") or a spec's items (capture/specs.py)
    keep the sentence whole."""
    parts = [p.strip() for p in re.split(r"\s*;\s*", directive) if p.strip()]
    if len(parts) < 2 or "->" in directive or "→" in directive or opens_spec(directive):
        return [directive]
    first = split_condition(parts[0], [])
    if first is not None and directive.lower().startswith(first.qualifier.lower() or "\0"):
        return [directive]
    return [parts[0]] + [p for p in parts[1:] if is_directive(p) or _ADVERB_LED.match(p)]


def _build_rule(
    signal: CorrectionSignal,
    main: str,
    cond: Condition | None,
    shared: bool,
    ev: Evidence,
) -> Rule | None:
    ctx = signal.ctx
    change = as_change(cond) if cond is not None else None
    predicate: Predicate | None
    if change is not None:  # "if deposits drop quarter on quarter": two values compared
        cond, predicate = change
    else:
        predicate = _predicate(cond)
    subject = _specific_subject(signal, main, cond)
    # "when a pod is in CrashLoopBackOff": a name that is a value of the predicate states the
    # state of a kind of item; it is neither the subject nor generalized away
    values = {v.lower() for v in predicate.values} if predicate and predicate.terms else set()
    if subject is not None and subject.lower() in values:
        subject = None
    if subject is not None and predicate is not None and predicate.soft and not predicate.unit:
        predicate = None  # "for Acme Corp": a subject's name is met by its words, not a field
    if not _names_behaviour(main, cond):
        return None
    body = imperative(main)
    qualifiers: list[str] = []
    if cond is not None and cond.qualifier:
        qualifiers.append(cond.qualifier)
    if subject is None:
        body = _generalize(body, signal, keep=values)
        qualifiers = [_generalize(q, signal, keep=values) for q in qualifiers]
    text = body
    if qualifiers:
        qual = qualifiers[0]
        text = f"{qual[0].upper()}{qual[1:]}, {lower_first(body)}"
    rtype = rule_type(body)
    trigger = _trigger(signal, body, cond, subject, rtype)
    if trigger.kind is TriggerKind.DATA and trigger.text == (cond.text if cond else None):
        trigger.predicate = predicate
    scope = Scope(
        namespace=ctx.namespace,
        skill=ctx.skill,
        actor=None if shared else ctx.actor,
        subject=subject,
    )
    return Rule(
        id=new_id("rule"),
        text=text,
        type=rtype,
        trigger=trigger,
        scope=scope,
        source=RuleSource.CORRECTION,
        actor=ctx.actor,
        group="g_" + "_".join(sorted(content_stems(body, drop_generic=True))[:6]),
        qualifiers=qualifiers,
        supporters=[ctx.actor],
        evidence_ids=[ev.id],
        conversation_id=ctx.conversation_id,
        created_at=ctx.timestamp,
        updated_at=ctx.timestamp,
    )


def _predicate(cond: Condition | None) -> Predicate | None:
    """The predicate over result items a plain condition compiles to (compile/predicates.py),
    or the date window a threshold in a unit of time states; negated values have their own
    test."""
    if cond is None or cond.excluded:
        return None
    if cond.numeric is not None:
        return date_window(cond.numeric)  # a threshold in days may be read off a date field
    return compile_predicate(cond.text, cond.keywords)


def _specific_subject(signal: CorrectionSignal, main: str, cond: Condition | None) -> str | None:
    """The subject a rule is about, when the user scoped it to one subject. Names match with
    their case: "the order currency" does not name a subject called "Order KA"."""
    if cond is not None:
        for subject in signal.subjects:
            if any(re.search(rf"\b{re.escape(v)}\b", cond.text) for v in name_variants(subject)):
                return subject
    main = _EXAMPLE.sub(" ", main)  # "like '[CS-40212] Your exchange'" shows a format
    mentioned = [
        s
        for s in signal.subjects
        if any(re.search(rf"\b{re.escape(v)}\b", main) for v in name_variants(s))
    ]
    if mentioned and (_IDENTIFIER.search(main) or _THIS_SUBJECT.search(main)):
        return mentioned[0]
    for subject in mentioned:
        if _states_fact_of(subject, main):
            return subject
    if _THIS_SUBJECT.search(signal.directive) and signal.subjects:
        return signal.subjects[0]
    return None


def _states_fact_of(subject: str, main: str) -> bool:
    """ "payments-prod's HPA floor is 6 replicas, don't scale it below that": a sentence that
    opens by stating what one subject's attribute is states a fact of that subject, and the
    command after it holds for that subject only (a rule that generalizes names the subject
    as an example, not as the owner of a value)."""
    for variant in name_variants(subject):
        found = re.match(
            rf"\W*{re.escape(variant)}['’]s\s+(?:[\w-]+\s+){{1,3}}(?:is|are|was|stays)\b",
            main,
            re.IGNORECASE,
        )
        if found:
            return True
    return False


def _generalize(
    text: str, signal: CorrectionSignal, keep: set[str] | frozenset[str] = frozenset()
) -> str:
    """Replace the seed subject's names with a generic term ("Acme's" -> "the company's"),
    except names in `keep` (lower-cased): values a condition tests."""
    for subject in sorted(signal.subjects, key=len, reverse=True):
        if subject.lower() in keep:
            continue
        key = signal.subject_keys.get(subject, "")
        if not key:
            continue  # a name seen only in text (a product, a person): part of what was meant
        term = generic_term(key)
        for variant in name_variants(subject):
            text = re.sub(
                rf"\b{re.escape(variant)}\b(?:'s)?",
                _possessive(term),
                text,
            )
    return text[0].upper() + text[1:] if text else text


def _trigger(
    signal: CorrectionSignal,
    body: str,
    cond: Condition | None,
    subject: str | None,
    rtype: RuleType,
) -> Trigger:
    if subject is not None:
        stems = content_stems(" ".join(name_variants(subject)[-1:]))
        # "payments-prod" is named whole: its parts ("prod") are words of other names too
        stems = [s for s in stems if "-" in s or "_" in s] or stems
        return Trigger(
            kind=TriggerKind.DATA,
            text=subject,
            keywords=stems,
            node_id=signal.node_id,
        )
    if cond is not None and cond.about_query:
        situation = re.sub(
            r"^(?:i|we|you|they|someone|anyone|the user|a user|people)\s+(?:ask|asks|asked|request|"
            r"requests|want|wants)\s+(?:you\s+)?(?:to\s+|for\s+)?|^(?:every|all|any|each)\s+",
            "",
            cond.text,
            flags=re.IGNORECASE,
        )
        return Trigger(
            kind=TriggerKind.QUERY, text=_situation(situation, signal), node_id=signal.node_id
        )
    if cond is not None and _OUTPUT_CONDITION.match(cond.text) and cond.numeric is None:
        # "whenever you report EPS, say whether it's GAAP or adjusted": a condition on what the
        # agent writes, unknown until it writes; the rule carries it, so deliver it up front
        return Trigger(kind=TriggerKind.ALWAYS, text=body, node_id=signal.node_id)
    acted = _tool_of_own_action(cond.text, signal.tools_seen) if cond is not None else None
    if acted is not None:
        # "whenever you do dispatch, put the readings in the notes": a condition on the agent's
        # own call of a tool it has used holds when it is about to make that call
        return Trigger(kind=TriggerKind.TOOL, text=body, tool=acted, node_id=signal.node_id)
    if cond is not None:
        return Trigger(
            kind=TriggerKind.DATA,
            text=cond.text,
            keywords=cond.keywords,
            numeric=cond.numeric,
            excluded=cond.excluded,
            node_id=signal.node_id,
        )
    tool = _mentioned_tool(body, signal.tools_seen)
    if tool is not None:
        return Trigger(kind=TriggerKind.TOOL, text=body, tool=tool, node_id=signal.node_id)
    if (
        rtype is RuleType.FORMAT
        or UNIVERSAL.search(signal.directive)
        or _universal_heading(signal)
        or any(w in STANDING_ADVERBS for w in words(body))
        or ceases(body)
    ):
        # formatting, and directives the user made universal ("always", "from now on", or
        # "stop pasting the raw JSON into summaries": a practice ended, like "never"), apply
        # to every run in scope: no similarity test (Finding 2)
        return Trigger(kind=TriggerKind.ALWAYS, text=body, node_id=signal.node_id)
    situation = _situation(signal.query, signal) if signal.query else body
    return Trigger(kind=TriggerKind.QUERY, text=situation, node_id=signal.node_id)


def by_request(rule: Rule, signal: CorrectionSignal) -> bool:
    """Is the rule delivered by resemblance to the request the correction was said on (no
    condition, nothing universal said)?"""
    return (
        rule.trigger.kind is TriggerKind.QUERY
        and bool(signal.query)
        and rule.trigger.text == _situation(signal.query, signal)
    )


def _universal_heading(signal: CorrectionSignal) -> bool:
    """ "Two things for anything metric-related, always: quote p99, not averages. And give
    times in UTC": a heading before the turn's first colon that makes what follows universal
    governs every directive the turn states after it, not only the sentence it opens."""
    head, colon, tail = signal.raw.partition(": ")
    if not colon or len(head.split()) > 14 or not UNIVERSAL.search(head):
        return False
    opening = " ".join(signal.directive.split()[:6]).lower()
    return bool(opening) and opening in " ".join(tail.split()).lower()


def _situation(text: str, signal: CorrectionSignal) -> str:
    """The request a QUERY rule answers, with names masked as `Run` masks the live query, so
    that similarity follows the task, not the subject ("Brief on X (X)")."""
    for subject in sorted(signal.subjects, key=len, reverse=True):
        for variant in name_variants(subject):
            text = re.sub(rf"\b{re.escape(variant)}\b(?:'s)?", "X", text)
    return mask_instances(text)


def _tool_of_own_action(condition: str, tools: list[str]) -> str | None:
    """The tool a condition on the agent's own action names by its verb ("you do dispatch"
    -> `dispatch_technician`), when the verb is a word of one tool's name; a light verb
    ("you get a 403", "you see a refund") names no action of its own."""
    said = _OWN_ACTION.match(condition.strip())
    if said is None or said.group("verb").lower() in _LIGHT_VERBS:
        return None
    verb = content_stems(said.group("verb"))
    for tool in tools:
        if verb and verb[0] in key_stems(tool):  # the words of its name ("dispatch_technician")
            return tool
    return None


# "you do dispatch", "we ever refund": the agent (or the team) as the one who acts
_OWN_ACTION = re.compile(r"^(?:you|we)\s+(?:do\s+|does\s+|ever\s+)?(?P<verb>[a-z]+)\b", re.I)
# verbs that say little of what is done: a closed class
_LIGHT_VERBS = frozenset("get got have has see find make take go do does is are be".split())


def _mentioned_tool(text: str, tools: list[str]) -> str | None:
    low = text.lower()
    for tool in tools:
        if tool.lower() in low or tool.lower().replace("_", " ") in low:
            return tool
    return None


def _possessive(term: str) -> Callable[[re.Match[str]], str]:
    """A replacement that keeps a possessive: "Acme's" -> "the company's"."""
    return lambda m: term + ("'s" if m.group(0).endswith("'s") else "")
