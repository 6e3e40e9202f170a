"""Read a user turn as it really is: the user's own words apart from what they pasted.

Real user turns carry pasted code, diffs, stack traces, terminal output and logs, quoted text,
and text the client inserted (system reminders, slash-command expansions, image placeholders).
None of it is the user speaking to the agent, so none of it may become a rule. The markdown
structure is read by markdown-it-py (fenced and indented code, block quotes, HTML blocks);
unfenced pastes are recognised line by line from their shape (symbol density, diff and trace
line forms, log timestamps, shell prompts), never from their words.

Client markers are signals, not text: "[Request interrupted by user]" says the step before
was unwanted; "... for tool use]" says the user rejected a tool call. The words after a marker
are what the user wanted instead.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

INTERRUPTED = "[Request interrupted by user]"
REJECTED_TOOL = "[Request interrupted by user for tool use]"

# <system-reminder>...</system-reminder>, <command-name>...</command-name>, <local-command-stdout>:
# text a client wraps in its own tags; <command-args> holds what the user typed after a command
_CLIENT_TAG = re.compile(r"<(?P<tag>[a-z][a-z0-9]*(?:-[a-z0-9]+)+)>(?P<body>.*?)</(?P=tag)>", re.S)
_KEEP_TAG_BODY = frozenset({"command-args", "user-prompt-submit-hook"})
_IMAGE = re.compile(r"\[(?:image|Image)(?:[ #:][^\]]{0,200})?\]")
_MARKER = re.compile(r"\[Request interrupted by user(?: for tool use)?\]")

# line shapes of pasted material
_TRACE_LINE = re.compile(r'^\s*(?:File ".+", line \d+|at [\w$.<>]+\(.*\)|Traceback \(most recent)')
_DIFF_LINE = re.compile(r"^(?:@@ .* @@|diff --git |index [0-9a-f]{6,}|[+-]{3} [ab/])")
_LOG_LINE = re.compile(r"^\s*\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|^\s*\d\d:\d\d:\d\d[.,\s]")
_PROMPT_LINE = re.compile(r"^\s*(?:\$|>>>|PS [A-Z]:\\|[\w.-]+@[\w.-]+:\S*[$#]) ")
_CODE_CHARS = frozenset("{}()[];=<>&|$\\")


@dataclass(frozen=True, slots=True)
class UserTurn:
    """A user turn split into the user's own words and what was pasted or inserted."""

    raw: str
    text: str  # the user's own words, pasted material and client text removed
    interrupted: bool = False  # the user stopped the previous step
    rejected_tool: bool = False  # the user rejected the tool call the agent was about to make
    pasted_share: float = 0.0  # share of the raw characters that were pasted or inserted

    @property
    def empty(self) -> bool:
        return not self.text.strip()


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark")


def read_user_turn(raw: str) -> UserTurn:
    """The user's own words of a turn, with the client's markers read as signals."""
    rejected = REJECTED_TOOL in raw
    interrupted = rejected or INTERRUPTED in raw
    said = _IMAGE.sub(" ", _MARKER.sub(" ", raw)).strip()
    text = _CLIENT_TAG.sub(_tag_body, said)
    text = _own_lines(text)
    text = "\n".join(line for line in _prose_lines(text) if line.strip())
    share = 0.0 if not said else max(0.0, 1.0 - len(text.strip()) / len(said))
    return UserTurn(
        raw=raw,
        text=text.strip(),
        interrupted=interrupted,
        rejected_tool=rejected,
        pasted_share=round(share, 3),
    )


def _tag_body(m: re.Match[str]) -> str:
    return f" {m.group('body')} " if m.group("tag") in _KEEP_TAG_BODY else " "


def _own_lines(text: str) -> str:
    """Drop the lines markdown reads as code or HTML blocks, and quoted lines ("> ..."). A
    quote is its marked lines only: chat users do not write CommonMark's lazy continuations."""
    lines = text.split("\n")
    drop = {k for k, line in enumerate(lines) if line.lstrip().startswith(">")}
    for token in _markdown().parse(text):
        if token.type in ("fence", "code_block", "html_block") and token.map is not None:
            drop.update(range(token.map[0], token.map[1]))
    return "\n".join(line for k, line in enumerate(lines) if k not in drop)


def _prose_lines(text: str) -> list[str]:
    """Lines that are prose; a run of two or more code-shaped lines is pasted as a whole, and a
    single code-shaped line only when it has almost no words."""
    lines = text.split("\n")
    shaped = [_code_shaped(line) for line in lines]
    for k in range(1, len(lines)):  # an indented line under code is the code's body
        shaped[k] = shaped[k] or (shaped[k - 1] and lines[k].startswith(("  ", "\t")))
    out: list[str] = []
    for k, line in enumerate(lines):
        neighbour = (k > 0 and shaped[k - 1]) or (k + 1 < len(lines) and shaped[k + 1])
        if shaped[k] and (neighbour or _wordless(line) or _line_form(line)):
            continue
        out.append(line)
    return out


def _code_shaped(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if _line_form(line):
        return True
    if stripped.endswith((";", "{", "}", "):", "=>")):
        return True
    share = _code_token_share(stripped)
    return share >= 0.25 if line.startswith(("    ", "\t", "+", "-")) else share >= 0.4


def _line_form(line: str) -> bool:
    """A line in the form of a trace, a diff, a log or a shell prompt: pasted, whatever else."""
    return any(rx.match(line) for rx in (_TRACE_LINE, _DIFF_LINE, _LOG_LINE, _PROMPT_LINE))


def _code_token_share(line: str) -> float:
    """Share of a line's tokens shaped like code: punctuation inside a token (`f(x)`, `a=b`,
    `&x`), dotted or snake_case names, camelCase."""
    tokens = line.split()
    if len(tokens) < 2:
        return 1.0 if tokens and code_token(tokens[0]) else 0.0
    return sum(code_token(t) for t in tokens) / len(tokens)


def code_token(token: str) -> bool:
    """Is this whitespace-separated token shaped like code rather than a word?"""
    core = token.strip(",.:;!?'\"")
    if any(ch in _CODE_CHARS for ch in core):
        return True
    if "_" in core.strip("_") or "::" in core:
        return True
    inner = core.strip(".")
    if "." in inner and not inner.replace(".", "").isdigit() and " " not in inner:
        return inner.count(".") >= 1 and not inner.endswith(("e.g", "i.e"))
    return any(a.islower() and b.isupper() for a, b in itertools.pairwise(core))


def _wordless(line: str) -> bool:
    letters = sum(ch.isalpha() for ch in line)
    return letters < 0.5 * len(line.strip())
