"""Find human corrections (and withdrawals) in a session.

Every user turn that follows an assistant output is split into sentences and each sentence is
classified (capture/cues.py): directives become `CorrectionSignal`s, withdrawals become
withdrawal signals, one-off asks persist nothing, acceptances close the current correction
chain. Only user turns create signals: text in tool results or assistant messages is context.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Sequence

from dctx.capture.base import (
    Aftermath,
    AftermathClassifier,
    CorrectionSignal,
    session_context,
)
from dctx.capture.conduct import argument_nouns, conduct_directive, tool_nouns
from dctx.capture.cues import (
    _CLAUSE_SPLIT,
    _LEAD_CONDITION,
    ASKING,
    SentenceKind,
    announces,
    classify_sentence,
    command_words,
    continues,
    looks_ahead,
    only_marks_one_off,
    prohibits,
    strip_filler,
    takes_away,
)
from dctx.capture.reading.announcements import announcement_reader_for
from dctx.capture.reading.base import TurnClassifier, TurnInput, TurnKind, TurnVerdict
from dctx.capture.reading.default import ReadingBands, bands_for, default_reader
from dctx.capture.reading.lessons import lesson_reader_for
from dctx.capture.reading.policies import policy_reader_for
from dctx.capture.revisions import Revision, replacement, revision, withdrawal
from dctx.capture.self_repair import repaired
from dctx.capture.specs import spelled_out_spec, stands
from dctx.capture.subjects import SubjectTracker, mask_names
from dctx.capture.turns import describe_calls, user_turn_inputs
from dctx.capture.verbless import as_imperative, with_lone_adverbs
from dctx.grammar import (
    BACK_PRONOUNS,
    CONDITION_OPENER,
    names_nothing,
    names_without_verb,
    opens_with_pronoun_case,
    past_perfect,
    says_how_you_handle,
    says_when,
    speaks_of_any_case,
    states_generally,
    values_for_a_case,
)
from dctx.models import Message, Session
from dctx.text import content_stems, sentences


def describe_step(msg: Message) -> str:
    """A compact text form of one message for the accumulated situation text."""
    if msg.role == "assistant" and msg.tool_calls:
        return describe_calls(msg) + (f" {msg.content}" if msg.content else "")
    if msg.role == "tool":
        return f"result {msg.tool_name or ''}: {msg.content}"
    return f"{msg.role}: {msg.content}"


def find_corrections(
    session: Session,
    classifier: AftermathClassifier | None = None,
    reader: TurnClassifier | None = None,
    teaches: Callable[[Message], bool] | None = None,
    rulebook: Sequence[str] = (),
) -> list[CorrectionSignal]:
    """All correction and withdrawal signals of a session, in order.

    Every user turn is read without what was pasted into it (capture/pasted.py) and decided by
    the turn reader (capture/reading): only a turn it reads as a standing correction or a
    withdrawal yields signals, as an active rule when it is sure and as a candidate when less
    so. A turn that sets out a spec whose head says it stands ("Every delivery note from now
    on: ...", capture/specs.py) is one, the opening request too, however the reader, weighing
    a long list of items, reads it; so is a turn the reader doubts (candidate band) whose
    command says it holds from now on, a turn that gives a new value for one of the speaker's
    rules (`rulebook`: the texts of their active rules, oldest first; capture/revisions.py) or
    takes one of them back ("Drop the review link from my texts."), and one that tells the
    agent how to work with what its tools act on (capture/conduct.py). `classifier` (an LLM,
    when configured) decides every turn the reader does not rule out, and its reading stands.
    `teaches` (capture/roles.py) says which user turns may teach at all: the others (an end
    user's requests) are context, never read as corrections.
    """
    ctx = session_context(session)
    reader = reader or default_reader()
    admit = bands_for(reader)
    turns = user_turn_inputs(session)
    taught = [(m, t) for m, t in turns if teaches is None or teaches(m)]
    verdicts = reader.read([t for _, t in taught])
    decided = dict(zip((m.index for m, _ in taught), verdicts, strict=True))
    meant, spelled = _spell_out_fragments(taught, decided, reader)
    specs = _read_specs_alone(taught, decided, reader, meant)
    _read_standing_alone(taught, decided, reader, meant, spelled)
    tracker = SubjectTracker()
    signals: list[CorrectionSignal] = []
    situation: list[str] = []
    query = ""
    previous_output = ""
    tools_seen: list[str] = []
    # what the agent's calls in this session act on, those that answer a correction too
    # ("could you run the eligibility check before you book anyone?", then check_insurance)
    calls = [c for m in session.messages for c in m.tool_calls]
    acted_on = tool_nouns(c.name for c in calls) | argument_nouns(calls)
    last_tool: str | None = None
    chain = 0
    seen_assistant = False
    said_before = ""  # the last directives of the chain: what an elliptical turn says again
    asked = ""  # the last user turn that asked for something, until the agent acts on it
    own_words = {m.index: t.text for m, t in turns}
    known = list(rulebook)  # the speaker's rules, and what this session added to them
    for msg in session.messages:
        if msg.role == "system":
            continue
        if msg.role == "assistant":
            seen_assistant = True
            if msg.tool_calls and asked and asked != query:
                # the agent acts on the last request: a correction of that action is about it
                # ("put billing-ui 2.2.4 on it", then "image refs: digest, not tag")
                query = asked
                tracker.observe_text(asked)
            for call in msg.tool_calls:
                tracker.observe_call(call.name, call.arguments)
                tools_seen.append(call.name)
            previous_output = describe_step(msg)
            situation.append(previous_output)
            continue
        if msg.role == "tool":
            last_tool = msg.tool_name or last_tool
            situation.append(describe_step(msg)[:600])
            continue
        # user turn: the user's own words only
        text = own_words.get(msg.index, "")
        verdict = decided.get(msg.index)
        spec = specs.get(msg.index, "")
        if not query and text:
            query = text
            tracker.observe_text(text)
        if verdict is None or not text:
            continue
        asked_for = ""  # how to work with what the agent's tools act on, as a command
        if verdict.kind is not TurnKind.WITHDRAWAL:
            said = meant.get(msg.index, text)
            asked_for = conduct_directive(said, acted_on, first_turn=not seen_assistant) or ""
            if verdict.p_lasting < admit.active:
                if asked_for:
                    verdict = _admitted(verdict, admit, by="conduct")
                if stands(spec):
                    verdict = _admitted(verdict, admit, by="spec")
                if _says_ahead(said, first_turn=not seen_assistant):
                    verdict = _admitted(verdict, admit, by="looks ahead")
        revised = _revised(verdict, text, known, admit)
        if revised is not None:
            verdict = _admitted(verdict, admit, by="revision")
        withdrawn = _withdrawn(verdict, text, known, admit)
        if withdrawn is not None:
            verdict = TurnVerdict(
                TurnKind.WITHDRAWAL, admit.active, dict(verdict.probs), by="withdrawal"
            )
        policies = (
            _opening_policies(verdict, text, reader, admit)
            if not seen_assistant and revised is None and withdrawn is None
            else []
        )
        if policies:
            verdict = _admitted(verdict, admit, by="opening policy")
        verdict = _overrule(classifier, verdict, previous_output, text, admit)
        # a request the agent may act on next; a lasting turn is no request of its own
        asked = text if verdict.p_lasting < admit.candidate else ""
        if seen_assistant and verdict.kind is TurnKind.TASK:
            # a new task in a long session: later corrections are about this request, so it is
            # their situation, not the session's opening line
            query = text
            tracker.observe_text(text)
        directives = _directives(
            repaired(meant.get(msg.index, text)),
            verdict,
            spec,
            asked_for,
            first_turn=not seen_assistant,
            reader=reader,
            admit=admit,
        )
        if revised is not None and verdict.by != "revision":
            revised = None  # another reading of the turn decided it (an LLM's)
        if revised is not None:
            directives = [(SentenceKind.DIRECTIVE, " ".join(revised.sentences))]
        if policies and verdict.by == "opening policy":
            directives = [(SentenceKind.DIRECTIVE, policy) for policy in policies]
        if withdrawn is not None and verdict.by == "withdrawal":
            directives = [(SentenceKind.WITHDRAWAL, withdrawn)]
            instead = replacement(text, withdrawn)
            if instead is not None:
                directives.append((SentenceKind.DIRECTIVE, strip_filler(instead)))
        extends = ""
        opening = next(iter(sentences(text)), "") if said_before else ""
        if opening and verdict.p_lasting >= admit.candidate and elliptical_subject(opening):
            # "same with anything flagged hazmat class 3": the turn before, for that too; what
            # the turn says after it are directives of their own
            again = [(SentenceKind.DIRECTIVE, strip_filler(opening))]
            after = text[text.find(opening) + len(opening) :]
            rest = _classify_turn(after, first_turn=False)[1] if after.strip() else []
            directives, extends = again + rest, said_before
        first_directive = next(
            (k for k, (kind, _) in enumerate(directives) if kind is SentenceKind.DIRECTIVE), None
        )
        announced = first_directive is not None and _announces(text, reader)
        for k, (kind, sentence) in enumerate(directives):
            signals.append(
                CorrectionSignal(
                    ctx=ctx,
                    aftermath=(
                        Aftermath.WITHDRAWAL
                        if kind is SentenceKind.WITHDRAWAL
                        else Aftermath.CORRECTION
                    ),
                    directive=sentence,
                    raw=text,
                    message_index=msg.index,
                    chain=chain,
                    situation="\n".join(situation[-12:]),
                    query=query,
                    previous_output=previous_output,
                    subjects=tracker.subjects(),
                    subject_keys=tracker.keys(),
                    tools_seen=list(dict.fromkeys(tools_seen)),
                    last_tool=last_tool,
                    confidence=verdict.p_lasting,
                    candidate=verdict.p_lasting < admit.active,
                    revokes=(
                        verdict.kind is TurnKind.WITHDRAWAL
                        and k == first_directive
                        and takes_away(sentence)
                    ),
                    extends=extends,
                    revises=revised.rule if revised is not None else "",
                    replaces=verdict.by != "opening policy",
                    announced=announced,
                )
            )

        commands = [d for kind, d in directives if kind is SentenceKind.DIRECTIVE]
        if verdict.p_lasting >= admit.active:
            known.extend(commands)
        if commands:
            said_before = extends or "\n".join(commands)
        if verdict.kind in (TurnKind.ACCEPTANCE, TurnKind.TASK):
            chain += 1
            said_before = ""
        situation.append(f"user: {text}"[:600])
    return signals


def _spell_out_fragments(
    taught: list[tuple[Message, TurnInput]],
    decided: dict[int, TurnVerdict],
    reader: TurnClassifier,
) -> tuple[dict[int, str], dict[int, frozenset[str]]]:
    """Turns with a verbless standing correction ("metric units, always"), spelled out as
    the imperative they mean (capture/verbless.py) and read again: the reader's reading of
    the spelled-out turn stands when it is the more lasting one. Returns the spelled-out text
    of each turn so read, by message index (the directives are taken from it either way), and
    the spelled-out commands of each turn that has some."""
    spelled: dict[int, TurnInput] = {}
    commands: dict[int, frozenset[str]] = {}
    out: dict[int, str] = {}
    for msg, turn in taught:
        said = sentences(turn.text)
        parts = with_lone_adverbs(said)
        imperatives = [as_imperative(p) for p in parts]
        rewritten = [meant or p for meant, p in zip(imperatives, parts, strict=True)]
        if any(imperatives):
            commands[msg.index] = frozenset(i for i in imperatives if i)
        if rewritten != parts:
            spelled[msg.index] = dataclasses.replace(turn, text=" ".join(rewritten))
        elif parts != said:  # only joined ("... first. every time."): the same words
            out[msg.index] = " ".join(parts)
    if not spelled:
        return out, commands
    again = reader.read(list(spelled.values()))
    for (index, turn), verdict in zip(spelled.items(), again, strict=True):
        if verdict.p_lasting > decided[index].p_lasting:
            decided[index] = verdict
        out[index] = turn.text  # what was meant, whichever reading admits the turn
    return out, commands


def _read_specs_alone(
    taught: list[tuple[Message, TurnInput]],
    decided: dict[int, TurnVerdict],
    reader: TurnClassifier,
    meant: dict[int, str],
) -> dict[int, str]:
    """The spec each turn sets out (capture/specs.py), by message index, each read again
    alone: a complaint before it and a request for this task after it ("Can you send her a
    corrected one?") are what the reader weighs against a lasting reading. The more lasting
    reading stands."""
    specs: dict[int, str] = {}
    alone: list[TurnInput] = []
    for msg, turn in taught:
        spec = spelled_out_spec(meant.get(msg.index, turn.text))
        if spec:
            specs[msg.index] = spec
            alone.append(dataclasses.replace(turn, text=spec))
    if not alone:
        return specs
    for index, verdict in zip(specs, reader.read(alone), strict=True):
        if verdict.p_lasting > decided[index].p_lasting:
            decided[index] = verdict
    return specs


def _read_standing_alone(
    taught: list[tuple[Message, TurnInput]],
    decided: dict[int, TurnVerdict],
    reader: TurnClassifier,
    meant: dict[int, str],
    spelled: dict[int, frozenset[str]],
) -> None:
    """Each turn's commands said to hold from now on ("Going forward please hold a seat and
    send me the options first", cues' `looks_ahead`) and its verbless standing corrections
    spelled out ("Dentals: £50 deposit, taken at booking. Always." -> "Dentals: always use
    £50 deposit, taken at booking.", capture/verbless.py), read again without the rest of the
    turn: a complaint and a request for this task beside them are what the reader weighs
    against a lasting reading. The more lasting reading stands."""
    alone: dict[int, TurnInput] = {}
    for msg, turn in taught:
        parts = sentences(meant.get(msg.index, turn.text))
        if len(parts) < 2:
            continue
        commands = spelled.get(msg.index, frozenset())
        marked = [
            p for p in parts if p in commands or _looks_ahead_command(p, first_turn=turn.first_turn)
        ]
        if marked and len(marked) < len(parts):
            alone[msg.index] = dataclasses.replace(turn, text=" ".join(marked))
    if not alone:
        return
    for index, verdict in zip(alone, reader.read(list(alone.values())), strict=True):
        if verdict.p_lasting > decided[index].p_lasting:
            decided[index] = verdict


def _says_ahead(text: str, *, first_turn: bool) -> bool:
    """Does a command of the turn say it holds from now on ("From now on, if a connection
    is under 75 minutes, skip that itinerary")? Whatever the reader makes of the rest of
    the turn, that command says it lasts: on the labelled real sessions two turns have one
    (one standing), neither an opening request."""
    return any(_looks_ahead_command(p, first_turn=first_turn) for p in sentences(text))


def _looks_ahead_command(sentence: str, *, first_turn: bool) -> bool:
    """Is the sentence a command said to hold from now on (cues' `looks_ahead`)?"""
    return (
        looks_ahead(sentence)
        and classify_sentence(sentence, first_turn=first_turn) is SentenceKind.DIRECTIVE
    )


def _revised(
    verdict: TurnVerdict, text: str, known: Sequence[str], admit: ReadingBands
) -> Revision | None:
    """The speaker's rule a turn the reader does not admit gives a new value for
    (capture/revisions.py), if any."""
    if verdict.p_lasting >= admit.candidate or verdict.kind is TurnKind.WITHDRAWAL:
        return None
    return revision(text, known)


def _withdrawn(
    verdict: TurnVerdict, text: str, known: Sequence[str], admit: ReadingBands
) -> str | None:
    """The sentence by which a turn the reader does not admit takes back one of its speaker's
    rules (capture/revisions.py), if any."""
    if verdict.p_lasting >= admit.candidate or verdict.kind is TurnKind.WITHDRAWAL:
        return None
    return withdrawal(text, known)


def _opening_policies(
    verdict: TurnVerdict, text: str, reader: TurnClassifier, admit: ReadingBands
) -> list[str]:
    """The sentences of an opening request the reader does not admit that state a standing
    policy ("Copies are $1 now." before "Can you put in a scan for ..."), read by the learned
    opening-policy reader (capture/reading/policies.py); none for a reader without one."""
    if verdict.p_lasting >= admit.candidate or verdict.kind is TurnKind.WITHDRAWAL:
        return []
    policy_reader = policy_reader_for(reader)
    return policy_reader.policies(text) if policy_reader is not None else []


def _announces(text: str, reader: TurnClassifier) -> bool:
    """Does the turn pass on a decision of the organisation (capture/reading/
    announcements.py)? Never for a reader without the learned reader's embedder."""
    announcements = announcement_reader_for(reader)
    return announcements is not None and announcements.announces(text)


def _admitted(verdict: TurnVerdict, admit: ReadingBands, *, by: str) -> TurnVerdict:
    """The verdict lifted to a standing correction the reader's surest band would admit."""
    return TurnVerdict(
        TurnKind.STANDING, max(admit.active, verdict.p_lasting), dict(verdict.probs), by=by
    )


# how sure the reader must be to take a turn in which the cues find no directive sentence
_SURE_WITHOUT_CUES = 0.9

_AFTERMATH_KIND = {
    Aftermath.CORRECTION: TurnKind.STANDING,
    Aftermath.WITHDRAWAL: TurnKind.WITHDRAWAL,
    Aftermath.ACCEPTANCE: TurnKind.ACCEPTANCE,
    Aftermath.NEW_REQUEST: TurnKind.TASK,
    Aftermath.ONE_OFF: TurnKind.ONE_OFF,
}


def _overrule(
    classifier: AftermathClassifier | None,
    verdict: TurnVerdict,
    previous_output: str,
    text: str,
    admit: ReadingBands,
) -> TurnVerdict:
    """Let a configured classifier decide every turn the reader does not rule out, the opening
    request too (a standing instruction can come before any output, and so can a task the
    cues misread as one); its decision stands, and a lasting one is admitted as the reader's
    surest would be. On real turns even the reader's surest band is mostly wrong (`dctx bench
    real`), so no reading is trusted over the classifier's."""
    if classifier is None:
        return verdict
    if verdict.p_lasting < admit.consult_below:
        return verdict
    decided = classifier.classify(previous_output, text)
    if decided is None:
        return verdict
    kind = _AFTERMATH_KIND[decided]
    lasting = kind in (TurnKind.STANDING, TurnKind.WITHDRAWAL)
    return TurnVerdict(kind, 1.0 if lasting else 0.0, {kind: 1.0}, by="classifier")


def _directives(
    text: str,
    verdict: TurnVerdict,
    spec: str,
    conduct: str,
    *,
    first_turn: bool,
    reader: TurnClassifier,
    admit: ReadingBands,
) -> list[tuple[SentenceKind, str]]:
    """The directive sentences of a turn the reader took as lasting (none otherwise). The
    sentence cues find which sentences carry it; a spec the turn sets out (capture/specs.py) is
    one directive with its items, also where the cues find no command in them (an admitted
    turn's "Every delay report like this: first line flight and date. Then ..."); when they
    find none and there is no spec, the `conduct` a polite question asked for
    (capture/conduct.py) is one, else the sentences the reader itself reads as lasting are."""
    if verdict.p_lasting < admit.candidate:
        return []
    # an opening request's spec is this task's, unless its head says it stands
    spec = spec if not first_turn or stands(spec) else ""
    _kinds, directives = _classify_turn(text, first_turn=first_turn)
    # what the lesson reader adds where the cues found no command: beside the cues' own
    # directives, or beside the spec or conduct that stands for them
    extra: list[tuple[SentenceKind, str]] = []
    lessons = _lessons(text, verdict, reader) if not first_turn else set()
    if lessons:
        _kinds, with_lessons = _classify_turn(text, first_turn=first_turn, lessons=lessons)
        if directives:
            directives = with_lessons
        else:
            extra = with_lessons
    if directives:
        if not first_turn and verdict.p_lasting >= admit.active:
            # beside a command, a standing fact of how a kind of thing is handled said in
            # the same turn ("Every turnover gets the locks rekeyed. ... add that too")
            directives = _in_turn_order(text, directives, _stated_generally(text, directives))
        if verdict.kind is TurnKind.WITHDRAWAL:
            return directives
        # a standing turn's withdrawals stand only where a replacement follows them ("forget
        # the staging rule; we use the qa namespace now")
        replaced = {
            i
            for i, (k, _) in enumerate(directives[:-1])
            if k is SentenceKind.WITHDRAWAL and directives[i + 1][0] is SentenceKind.DIRECTIVE
        }
        kept = [
            (k, d)
            for i, (k, d) in enumerate(directives)
            if k is SentenceKind.DIRECTIVE or i in replaced
        ]
        if not any(k is SentenceKind.DIRECTIVE for k, _ in kept):
            return directives
        return _gathered(kept, spec) if spec else kept
    if spec and verdict.p_lasting >= admit.active:
        return [(SentenceKind.DIRECTIVE, spec), *((k, d) for k, d in extra if d not in spec)]
    if conduct:  # asked for in a polite question, which the cues read as this task's request
        return [(SentenceKind.DIRECTIVE, conduct), *((k, d) for k, d in extra if d not in conduct)]
    if extra:
        return extra
    if not first_turn and verdict.p_lasting >= admit.active:
        # no command, but a standing fact of how a kind of thing is handled ("Couriers fly
        # economy, and the per diem is £120 a day. Please rebook."), of how the agent
        # handles a kind of case ("Zero refills left, you fax the prescriber yourself") or
        # of what it uses in one ("When you show me SQL: lowercase keywords"): that lasts
        stripped = [(p, strip_filler(p)) for p in sentences(text)]
        general = [
            said
            for p, said in stripped
            if states_generally(p) or says_how_you_handle(said) or values_for_a_case(said)
        ]
        if general:
            return [(SentenceKind.DIRECTIVE, p) for p in general[:2] if p]
    if first_turn or verdict.p_lasting < _SURE_WITHOUT_CUES:
        return []  # no directive sentence: only a sure reading of a reply stands for one
    parts = [p for p in sentences(text) if p.strip()]
    if len(parts) > 1:
        read = reader.read([TurnInput(text=p) for p in parts])
        parts = [p for p, v in zip(parts, read, strict=True) if v.p_lasting >= 0.5]
    kind = (
        SentenceKind.WITHDRAWAL if verdict.kind is TurnKind.WITHDRAWAL else SentenceKind.DIRECTIVE
    )
    return [(kind, strip_filler(p)) for p in parts[:2] if strip_filler(p)]


def _stated_generally(text: str, taken: list[tuple[SentenceKind, str]]) -> list[str]:
    """The sentences of a turn that state how a kind of thing is handled (grammar's
    `states_generally`) and that the cues took as nothing else. One that speaks of what a
    command of the turn speaks of is that command's reason ("Engineering bounces every bug
    from a patched install" beside "if the install has an external patch, don't file a
    bug"), not a rule of its own; so is one said right after a command ("Always 45 on anything
    I send you. Closings slip, and ...")."""
    said = {d for _, d in taken}
    parts = [strip_filler(s) for s in sentences(text)]
    return [
        p
        for k, p in enumerate(parts)
        if p
        and p not in said
        and (k == 0 or parts[k - 1] not in said)
        and classify_sentence(p) is SentenceKind.OTHER
        and states_generally(p)
        and not any(_speaks_of_the_same(p, d) for _, d in taken)
    ]


_REASON_OVERLAP = 2  # content words a statement shares with a command it gives the reason of


def _speaks_of_the_same(statement: str, command: str) -> bool:
    """Does a statement speak of what a command of its turn speaks of (two content words
    shared), so that it is that command's reason or scope, not a rule of its own?"""
    shared = set(content_stems(statement)) & set(content_stems(command))
    return len(shared) >= _REASON_OVERLAP


def _in_turn_order(
    text: str, directives: list[tuple[SentenceKind, str]], added: list[str]
) -> list[tuple[SentenceKind, str]]:
    """The directives with the `added` sentences put where the turn says them: a later
    directive takes the subject of an earlier one (`_carry_subject`), so order is meaning."""
    out = list(directives)
    for sentence in added:
        at = text.find(sentence)
        k = next(
            (i for i, (_, d) in enumerate(out) if 0 <= at < text.find(d[:40])),
            len(out),
        )
        out.insert(k, (SentenceKind.DIRECTIVE, sentence))
    return out


def _gathered(
    directives: list[tuple[SentenceKind, str]], spec: str
) -> list[tuple[SentenceKind, str]]:
    """The directives with those said inside the spec replaced by the spec, once, where the
    first of them was: the items of a spec are one rule, not a rule each. So is the sentence
    whose last clause opens the spec ("Patrons keep calling, so here's the format I want for
    arrival notices, every time.")."""
    within = _plain(spec)
    if any(_plain(d).find(within) >= 0 for k, d in directives if k is SentenceKind.DIRECTIVE):
        return directives  # the spec is already part of a directive that says more
    # the head, up to its colon: the sentence that says it may go on past the head with an
    # aside ("this is how every email should look from now on, I'm tired of rewriting them:")
    opening = _plain(sentences(spec)[0].partition(":")[0])
    out: list[tuple[SentenceKind, str]] = []
    for kind, directive in directives:
        plain = _plain(directive)
        if kind is SentenceKind.DIRECTIVE and (plain in within or opening in plain):
            if (kind, spec) not in out:
                out.append((kind, spec))
        else:
            out.append((kind, directive))
    return out if (SentenceKind.DIRECTIVE, spec) in out else [*out, (SentenceKind.DIRECTIVE, spec)]


def _plain(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


# "do it like that whenever ...", "use that format for every ..." - but not "use that field"
_ANAPHOR = re.compile(
    r"^(?:please\s+)?(?:do|keep doing|apply|use|follow) (?:that|this|it|the same)(?: format| way| "
    r"approach| layout| structure| like (?:that|this))?\b\s*"
    r"(?P<rest>(?:for|going forward|from now on|whenever|when|every|each|on|in|with|always|"
    r"next time|in future)\b.*|[,.!]?\s*)$",
    re.IGNORECASE,
)
# "That's just her thing, not a rule for everyone": the directive before is about one person
_NOT_GENERAL = re.compile(
    r"\b(just|only) (her|his|their|this \w+'s) (thing|preference|quirk)|"
    r"not a (rule|policy) for (everyone|everybody|all|the team)|"
    r"(that'?s|it'?s) (just )?(her|his|their) (thing|preference|quirk)",
    re.IGNORECASE,
)
_ASKED = re.compile(rf"^{ASKING}\s+(?:please\s+)?", re.IGNORECASE)


_WHOLE_TURN_ONE_OFF = re.compile(
    r"\b(all|these|those|everything)\b[^.]{0,30}\b(just|only)\b[^.]{0,20}\bthis\b|"
    r"\bback to normal\b|\bafter this (one|memo|report|ticket|time)\b",
    re.IGNORECASE,
)
_COND_SENTENCE = re.compile(
    rf"\b({CONDITION_OPENER})\b\s+(?P<cond>[^,]{{3,120}}?)(?=,|\s+there|\s+it|"
    r"\s+you|\s+we|$)",
    re.IGNORECASE,
)


# the words after which a clause goes on (subordinators, conjunctions): a condition read to
# end on one was cut off inside, a closed grammatical class
_OPENS_A_CLAUSE = frozenset(
    "while because since until unless although though after before when whenever if "
    "and or but".split()
)


# a reply that opens by rejecting what the agent did ("no - ...", "nope, ...")
_REJECTS = re.compile(r"^\W*(?:no|nope|nah|wrong|not like that)\b", re.IGNORECASE)


def _says_instead(before: str, prohibition: str) -> bool:
    """Is `before` a rejection that names, without a verb, what to use instead of what the
    prohibition after it rules out ("no - bn and m." before "never spell out billion")?"""
    rest = strip_filler(before)
    return (
        bool(_REJECTS.match(before))
        and rest != before.strip()
        and prohibits(prohibition)
        and names_without_verb(rest)
    )


def _lessons(text: str, verdict: TurnVerdict, reader: TurnClassifier) -> set[str]:
    """The sentences of an admitted reply the lesson reader reads as carrying its lesson
    (capture/reading/lessons.py); none for a withdrawal, or without the reader's MiniLM."""
    lesson_reader = lesson_reader_for(reader)
    if lesson_reader is None or verdict.kind is TurnKind.WITHDRAWAL:
        return set()
    return lesson_reader.lessons(text)


def _classify_turn(
    text: str, *, first_turn: bool, lessons: Collection[str] = ()
) -> tuple[list[SentenceKind], list[tuple[SentenceKind, str]]]:
    """Each part of the turn's sentences read by the cues, and the directives they make. A
    sentence in `lessons` (the lesson reader's) that the cues read as a request or as
    nothing is a directive: the cues know a command by its verb, the reader by its sense."""
    kinds: list[SentenceKind] = []
    directives: list[tuple[SentenceKind, str]] = []
    pairs = [(p, s) for s in sentences(text) for p in _withdraw_and_replace(s, first_turn)]
    parts = [p for p, _ in pairs]
    if _WHOLE_TURN_ONE_OFF.search(text):
        # "a few tweaks, all just for this memo: ...; back to normal after this one"
        return [SentenceKind.ONE_OFF] * len(parts), []
    scoped_to: str | None = None  # the subject an earlier directive of the turn was scoped to
    announced = False  # "Update for everyone: ..." makes the turn's later policy standing
    for k, sentence in enumerate(parts):
        kind = classify_sentence(sentence, first_turn=first_turn, announced=announced)
        if pairs[k][1] in lessons and kind in (SentenceKind.OTHER, SentenceKind.REQUEST):
            kind = SentenceKind.DIRECTIVE
        # nothing of a session can be withdrawn in its first turn: a withdrawal there is of a
        # standing rule, and what the turn says after it replaces that rule ("Forget the
        # deposit for new clients. Instead, request the pet's records before the first visit.")
        announced = (
            announced or announces(sentence) or (first_turn and kind is SentenceKind.WITHDRAWAL)
        )
        kinds.append(kind)
        if _NOT_GENERAL.search(sentence) and directives:
            directives.pop()  # stated as one person's preference, not a rule
            continue
        if kind is SentenceKind.ONE_OFF and k > 0 and kinds[k - 1] is SentenceKind.DIRECTIVE:
            if directives and only_marks_one_off(sentence):
                directives.pop()  # "Send a crew anyway. Don't make a habit of it."
            continue
        if kind is SentenceKind.OTHER and directives and _ELABORATES.match(strip_filler(sentence)):
            if k > 0 and kinds[k - 1] is SentenceKind.DIRECTIVE:
                # "Mask account numbers. Only the last four digits, like ****6612."
                was, said = directives[-1]
                directives[-1] = (was, f"{said.rstrip('. ?!')} - {strip_filler(sentence)}")
            continue
        if kind not in (SentenceKind.DIRECTIVE, SentenceKind.WITHDRAWAL):
            continue
        cleaned = strip_filler(sentence)
        # "Use this from now on:" acts on what follows its colon, not on the sentence before
        ahead = cleaned.endswith(":")
        anaphor = _ANAPHOR.match(cleaned) if kind is SentenceKind.DIRECTIVE and not ahead else None
        if anaphor and k > 0:
            # "Do it like that whenever you give me lists": what the turn asked for, made standing
            asked = _asked_before(parts[:k], kinds[:k])
            prev = " ".join(asked).rstrip(". ")
            while directives and directives[-1][1].rstrip(". ") in {a.rstrip(". ") for a in asked}:
                directives.pop()
            rest = anaphor.group("rest").strip(" ,.!")
            if rest and _LEADS_WITH_CONDITION.match(rest):
                cleaned = f"{rest[0].upper()}{rest[1:]}: {prev}"
            else:
                cleaned = f"{prev} {rest}".strip()
        elif kind is SentenceKind.DIRECTIVE and k > 0 and _says_instead(parts[k - 1], cleaned):
            # "no - bn and m. never spell out billion / million": what to use instead
            said = strip_filler(parts[k - 1]).rstrip(" .!")
            cleaned = f"Use {said}; {cleaned[0].lower()}{cleaned[1:]}"
        elif kind is SentenceKind.DIRECTIVE and k > 0 and kinds[k - 1] is SentenceKind.OTHER:
            # a condition stated in the sentence before ("when the status comes back suspended
            # there's no point ...") carries over to an unconditional directive
            cond = _COND_SENTENCE.match(
                re.sub(
                    r"^\W*(?:\w+\W+){0,2}?(?=when|if|once)",
                    "",
                    strip_filler(parts[k - 1]),
                    flags=re.IGNORECASE,
                )
            )
            if (
                cond
                and not re.match(r"^(when|whenever|if|for|once)\b", cleaned, re.IGNORECASE)
                # "If it had lapsed we'd be on the hook": what might have been, no case
                and not past_perfect(cond.group(0))
                # "If she falls while it's down, nobody knows" read to "she falls while": a
                # clause cut off inside, no condition
                and cond.group("cond").split()[-1].lower() not in _OPENS_A_CLAUSE
            ):
                cleaned = f"When {cond.group('cond').strip()}, {cleaned[0].lower()}{cleaned[1:]}"
        if (
            kind is SentenceKind.DIRECTIVE
            and k > 0
            and not ahead
            and cleaned == strip_filler(sentence)
            and (
                _leans_back(cleaned)
                or _of_the_class_before(cleaned, parts[k - 1], kinds[k - 1])
                or (
                    # "When it's missing, write to the author": a case of what was named before
                    opens_with_pronoun_case(cleaned) and _names_cases(parts[k - 1], kinds[k - 1])
                )
            )
        ):
            cleaned = _with_antecedent(cleaned, parts[k - 1], kinds[k - 1], directives)
        if kind is SentenceKind.DIRECTIVE:
            cleaned, scoped_to = _carry_subject(cleaned, scoped_to)
        if kind is SentenceKind.DIRECTIVE and cleaned and _states_its_norm(cleaned, directives):
            # "Mask account numbers ... We're not supposed to put full account numbers in chat
            # transcripts.": the norm behind the command, and where it holds, is part of it
            was, said = directives[-1]
            directives[-1] = (was, f"{said.rstrip()} {cleaned}")
            continue
        if cleaned:
            directives.append((kind, cleaned))
    return kinds, directives


# a statement of what the speaker's side may or must do: its subject (not the agent told what
# to do), then a modal or a word of permission or duty ("we're not supposed to", "we can't")
_SPEAKERS_NORM = re.compile(
    r"^(?:we|i|they)(?:'re|'m| are| am)?\s+(?:not\s+)?"
    r"(?:supposed|allowed|required|permitted|meant|obliged|must|should|can'?t|cannot|may not|"
    r"need to|have to)\b",
    re.IGNORECASE,
)


def _states_its_norm(sentence: str, directives: list[tuple[SentenceKind, str]]) -> bool:
    """Is a directive sentence, said as a statement of what the speaker's side may or must do
    ("We're not supposed to put full account numbers in chat transcripts"), the norm behind
    the command just before it, on the same thing? Then it is that command's reason and
    scope, not a second rule."""
    if not directives or directives[-1][0] is not SentenceKind.DIRECTIVE:
        return False
    if not _SPEAKERS_NORM.match(sentence):
        return False
    return _speaks_of_the_same(sentence, directives[-1][1])


# what a command refers back to: "same with X", "anything lower, ...", "set them to X"
_SAME = re.compile(r"^(?:the\s+)?same\s+(?:with|for|goes for)\b", re.IGNORECASE)


def elliptical_subject(text: str) -> str | None:
    """ "same with anything flagged hazmat class 3" -> "anything flagged hazmat class 3": what
    a turn that only says "the same" extends the instruction before it to; None otherwise."""
    core = strip_filler(text).strip().rstrip(".!")
    found = _SAME.match(core)
    if found is None:
        return None
    rest = core[found.end() :].strip(" ,:")
    return rest if rest and len(rest.split()) <= 12 and "." not in rest else None


_NO_STANDARD = re.compile(
    r"^(?:any|every|no|some)(?:thing|one|body)\s+(?:\w+er|more|less)\s*,", re.I
)


def _leans_back(directive: str) -> bool:
    """Does the command only make sense with the sentence before it? It extends that one
    ("Same with 'customer attrition', we call that logo churn"), compares with a standard it
    does not state ("anything lower, mark it red"), or its object is a bare plural pronoun
    ("Set them to pending_customer"), or it names nothing of its own ("Ask for itemized.",
    "Use their name"); not one that opens with a condition ("when those fail, ...")?"""
    if _SAME.match(directive) or _NO_STANDARD.match(directive):
        return True
    if _LEAD_CONDITION.match(directive):
        return False
    toks = command_words(directive)
    # "Same institution as any author, or co-authored in the last three years: skip them":
    # the command after a colon acts on what the sentence before named
    after = command_words(directive.rpartition(":")[2]) if ":" in directive else []
    return any(len(t) > 1 and t[1] in BACK_PRONOUNS for t in (toks, after)) or names_nothing(
        directive
    )


def _states_cases(before: str, kind_before: SentenceKind) -> bool:
    """Is the sentence before a statement of what holds in a class of cases ("Every crate
    over 30 kilos needs a tilt sticker", "Anything home-prepared we can't accept")?"""
    return kind_before is SentenceKind.OTHER and says_when(before)


def _names_cases(before: str, kind_before: SentenceKind) -> bool:
    """Is the sentence before a directive, or a statement about a class of cases, that a
    case of "it" can be one of?"""
    return kind_before is SentenceKind.DIRECTIVE or _states_cases(before, kind_before)


def _of_the_class_before(directive: str, before: str, kind_before: SentenceKind) -> bool:
    """Does the command act on "it" where the statement before names a class of cases
    ("Anything home-prepared (jams, salsas, baked goods) we can't accept. Log it as
    declined.")? Then "it" is any of that class, and the two sentences are one rule."""
    toks = command_words(directive)
    return len(toks) > 1 and toks[1] == "it" and _states_cases(before, kind_before)


def _with_antecedent(
    directive: str,
    before: str,
    kind_before: SentenceKind,
    directives: list[tuple[SentenceKind, str]],
) -> str:
    """The command with the sentence it refers back to, as one directive of two sentences
    (compile keeps them one rule): the directive before it, or a statement before it ("we
    don't close tickets ourselves"). A question or a long statement is left out: it is not
    what the command refers to."""
    if kind_before is SentenceKind.DIRECTIVE and directives:
        if directives[-1][0] is SentenceKind.DIRECTIVE:
            _, said = directives.pop()
            return f"{said.rstrip(' .!?')}. {directive[:1].upper()}{directive[1:]}"
        return directive
    said = strip_filler(before).rstrip(" .!")
    if kind_before is not SentenceKind.OTHER or not said or said.endswith("?"):
        return directive
    if len(said.split()) > 25:
        return directive
    toks = command_words(directive)
    if (
        len(toks) > 1
        and toks[1] == "it"
        and not (speaks_of_any_case(said) or states_generally(said))
    ):
        # "Hettie Moss's dental, on the 24th if there's room. Book it please.": "it" is the
        # case the statement is about, and the command this task's request
        return directive
    return f"{said[:1].upper()}{said[1:]}. {directive[:1].upper()}{directive[1:]}"


def _withdraw_and_replace(sentence: str, first_turn: bool) -> list[str]:
    """ "forget the staging rule; we use the qa namespace now": a withdrawal and, after a
    clause break, the directive that replaces it, as two sentences (the withdrawal first)."""
    if classify_sentence(sentence, first_turn=first_turn) is not SentenceKind.WITHDRAWAL:
        return [sentence]
    for brk in _CLAUSE_SPLIT.finditer(sentence):
        head, tail = sentence[: brk.start()].strip(), sentence[brk.end() :].strip()
        if (
            head
            and classify_sentence(head, first_turn=first_turn) is SentenceKind.WITHDRAWAL
            and classify_sentence(tail, first_turn=first_turn) is SentenceKind.DIRECTIVE
            and not continues(tail)  # "drop the bold rule, keep the rest": nothing replaces it
        ):
            return [head, tail]
    return [sentence]


def _asked_before(parts: list[str], kinds: list[SentenceKind]) -> list[str]:
    """The turn's sentences before an anaphoric directive that asked for something ("Can you
    redo it as a table? Columns: name, title. Drop the adjectives."), questions made commands."""
    keep = {SentenceKind.DIRECTIVE, SentenceKind.REQUEST, SentenceKind.OTHER}
    out = [
        _ASKED.sub("", strip_filler(p)).rstrip("?").strip()
        for p, kind in zip(parts, kinds, strict=True)
        if kind in keep
    ]
    return [s for s in out if s] or [strip_filler(parts[-1])]


# a verbless follow-up that narrows or shows the directive before it
_ELABORATES = re.compile(
    r"^(?:only|just|e\.g\.|like|such as|i\.e\.|['\"‘“`])(?!.*\b(?:i|we|you|they|he|she|it|is|are|"
    r"was|were|has|have)\b)",
    re.IGNORECASE,
)


_FOR_NAME = re.compile(
    r"^(?:[Ff]or|[Ww]ith)\s+(?P<name>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3})\s*,"
)


def _carry_subject(directive: str, scoped_to: str | None) -> tuple[str, str | None]:
    """ "For Tidewater, never copy patient details. Acknowledgements go to Colette Vance": a
    later directive of the turn that names someone, with no condition of its own, is about the
    subject the turn scoped, not a rule for everyone."""
    m = _FOR_NAME.match(directive)
    if m:
        return directive, m.group("name")
    if (
        scoped_to is not None
        and not _LEADS_WITH_CONDITION.match(directive)
        and mask_names(directive) != directive
    ):
        return f"For {scoped_to}, {directive[0].lower()}{directive[1:]}", scoped_to
    return directive, scoped_to


_LEADS_WITH_CONDITION = re.compile(
    r"^(when|whenever|if|for|once|unless|every|each|any ?time)\b", re.IGNORECASE
)
