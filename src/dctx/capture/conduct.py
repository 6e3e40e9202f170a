"""Whether a correction is about how the agent uses its own tools.

The turn reader learned from coding sessions, where a user's "when X, do Y" mostly specifies
the program being written ("when audio is displayed, show the transcript"): there a general
instruction is usually a task, and the reader rightly doubts one said once inside a longer,
polite turn. An agent with tools of its own domain is told how to use them: "before you send
any offer, pull the req and check the band" after it called `get_req` and `send_offer`. A
directive that says to what cases it applies (`dctx.grammar.says_when`) and names what
the agent's tools in this session act on is about the agent's conduct, not this task's
product; such a turn is admitted as a standing correction even where the reader doubts it.

What the agent fills in when it calls them counts too: the names of the arguments it passed
(`create_incident(title=...)`), so "Titles need to be like `[SEV3] api: symptom`", a standing
fact of how every title is written, is about its conduct.

Only the agent's own tool calls name the tools (never text inside a result, which is data),
and a configured LLM classifier still decides the turn (capture/corrections.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from dctx.capture.cues import ASKS_AGENT, SentenceKind, classify_sentence, standing_cue
from dctx.capture.verbs import IMPERATIVE_VERBS
from dctx.grammar import open_case, opens_command, says_when, states_generally
from dctx.models import ToolCall
from dctx.text import sentences

_WORD = re.compile(r"[A-Za-z]+")
_CAMEL = re.compile(r"([a-z])([A-Z])")
_MIN_CHARS = 3  # "req", "kb" is too short to name anything reliably
_STEM_CHARS = 6
# words of tool names that name no object of the domain: `get_user_details`, `mcp__x__list`
_GENERIC = frozenset(
    "api by data details detail for from get id ids info information mcp new of tool tools "
    "the to with".split()
)


def _stem(word: str) -> str:
    w = word.lower()
    if len(w) > _MIN_CHARS and w.endswith("s"):
        w = w[:-1]
    return w[:_STEM_CHARS]


def _name_words(name: str) -> list[str]:
    """The lower-cased words of a tool's name: `createTicket` -> create, ticket; of an MCP
    tool (mcp__<server>__<tool>), the tool's part only."""
    tool = name.rsplit("__", 1)[-1]
    return [w.lower() for w in _WORD.findall(_CAMEL.sub(r"\1 \2", tool))]


def tool_nouns(tool_names: Iterable[str]) -> frozenset[str]:
    """Stems of what the named tools act on: `send_offer` -> offer, `renew_loan` -> loan,
    `createTicket` -> ticket, `TodoWrite` -> todo. The verb of a name names no object, and a
    one-word name (`Read`, `Bash`) is a general-purpose tool that names none."""
    out: set[str] = set()
    for name in tool_names:
        words = _name_words(name)
        if len(words) < 2:
            continue
        if words[0] in IMPERATIVE_VERBS:
            words = words[1:]  # "get_req", "send_offer"
        elif words[-1] in IMPERATIVE_VERBS:
            words = words[:-1]  # "TodoWrite", "WebFetch"
        elif opens_command(f"{words[0]} the {' '.join(words[1:])}"):
            words = words[1:]  # "renew_loan": a verb no list holds, and its object
        stems = (_stem(w) for w in words if len(w) >= _MIN_CHARS)
        out.update(stem for stem in stems if stem not in _GENERIC)  # "news" is not "new"
    return frozenset(out)


# argument names that name no object of the domain: a key, a handle, a flag
_KEY_WORDS = frozenset("id ids key uuid ref url uri flag flags force dry run limit offset".split())


def argument_nouns(calls: Iterable[ToolCall]) -> frozenset[str]:
    """Stems of what the agent fills in when it calls its tools: the names of the arguments
    it passed (`create_incident(title=..., severity=...)` -> title, severity). The agent's
    own calls name them, never a result; an identifier (`customer_id`) names no thing the
    agent writes."""
    out: set[str] = set()
    for call in calls:
        for key in call.arguments:
            words = [w.lower() for w in _WORD.findall(_CAMEL.sub(r"\1 \2", key))]
            if not words or words[-1] in _KEY_WORDS:
                continue
            out.update(
                _stem(w) for w in words if len(w) >= _MIN_CHARS and w not in _GENERIC | _KEY_WORDS
            )
    return frozenset(out)


def named_tool(text: str, tool_names: Iterable[str]) -> str | None:
    """The tool, of those named, whose object the text names ("image refs: resolve the tag to
    its sha256 and deploy that" names `deploy_image`'s image); where several do, the one more
    of whose name's words the text holds (its verb too), the earlier on a tie. None when the
    text names no tool's object."""
    said = {_stem(w) for w in _WORD.findall(text)}
    best: tuple[int, str] | None = None
    for name in dict.fromkeys(tool_names):
        nouns = tool_nouns([name])
        if not nouns & said:
            continue
        score = len({_stem(w) for w in _name_words(name)} & said)
        if best is None or score > best[0]:
            best = (score, name)
    return best[1] if best else None


def about_conduct(text: str, nouns: frozenset[str], *, first_turn: bool = False) -> bool:
    """Does a sentence of the turn tell the agent, in general terms, how to work with what its
    tools act on (`conduct_directive`)?"""
    return conduct_directive(text, nouns, first_turn=first_turn) is not None


def conduct_directive(text: str, nouns: frozenset[str], *, first_turn: bool = False) -> str | None:
    """The first sentence of the turn that tells the agent, in general terms, how to work with
    what its tools act on or what it fills in when it calls them, as a command: a directive
    that says to what cases it applies, or a standing fact of how a kind of thing is handled
    ("Titles need to be like `[SEV3] api: symptom`"), that names one of `nouns`; or a polite
    question that asks for it from now on or in any case of a kind ("Could you check coverage
    before you set a reserve on anything?" -> "Check coverage before you set a reserve on
    anything."; not "Can you check every invoice before you send it?", which speaks of the
    invoices in view). None when no sentence does."""
    if not nouns or first_turn:
        return None
    for sentence in sentences(text):
        if "?" in sentence:
            asked = ASKS_AGENT.search(sentence)
            if asked is None:
                continue  # a question, unless a polite form of an instruction
            command = _as_command(sentence[asked.end() :])
        elif classify_sentence(sentence) is SentenceKind.DIRECTIVE or states_generally(sentence):
            command = sentence
        else:
            continue
        if not nouns.intersection(_stem(w) for w in _WORD.findall(command)):
            continue
        if standing_cue(command) or _of_any_case(command, asked="?" in sentence):
            return command
    return None


def _of_any_case(command: str, *, asked: bool) -> bool:
    """Does the command hold for a class of cases? Asked in a question, only by a clause of
    any case ("before you book anyone"); said, also by a universal word or a clause of when
    (grammar's `says_when`), or as a standing fact of a kind (`states_generally`: "Titles need
    to be like ...")."""
    if asked:
        return open_case(command)
    return says_when(command) or states_generally(command)


def _as_command(asked: str) -> str:
    """What a polite question asks for, as a command: "run the check first, please?" ->
    "Run the check first, please."."""
    core = asked.strip().rstrip("?").strip()
    return core[:1].upper() + core[1:] + "." if core else ""
