"""The parser's reading of whether a clause opens with a command (dctx/grammar.py).

Sentences written for this test, in no benchmark's domain (gardening, a bakery, a school
office, a recording studio), so that they check the parser and not the word list.
"""

from __future__ import annotations

import pytest

from dctx import grammar
from dctx.capture.cues import SentenceKind, classify_sentence
from dctx.capture.verbs import IMPERATIVE_VERBS
from dctx.grammar import (
    _pipeline,
    for_a_kind,
    forget_clauses,
    names_a_class,
    names_nothing,
    names_without_verb,
    negates_with_no,
    open_case,
    opens_command,
    opens_with_pronoun_case,
    points_forward,
    says_how_you_handle,
    says_when,
    states_generally,
    values_for_a_case,
)


@pytest.mark.parametrize(
    "clause",
    [
        "prune the roses before the first frost",
        pytest.param(
            "staple the permission slips to the register",
            marks=pytest.mark.xfail(
                strict=True, reason="the small parser takes 'slips' for the verb"
            ),
        ),
        "dedupe the guest list",
        pytest.param(
            "mulch every bed after planting",
            marks=pytest.mark.xfail(strict=True, reason="the small tagger reads 'mulch' as a word"),
        ),
        "re-run the mixdown at 48 kHz",
        "Water the seedlings from below",
    ],
)
def test_commands_with_verbs_no_list_holds(clause: str) -> None:
    assert clause.split()[0].lower() not in IMPERATIVE_VERBS
    assert opens_command(clause)


@pytest.mark.parametrize(
    "clause",
    [
        "sourdough starters need feeding twice a day",  # a noun subject with its own verb
        "compost bins are full again",
        "title case for the playlist names",  # a noun phrase, no verb
        pytest.param(
            "serif fonts on the certificates",
            marks=pytest.mark.xfail(strict=True, reason="'serif' parses as a verb with an object"),
        ),
        "Name",  # a form's label, not a command
        "42 trays left in the cold room",
        "let's repot the ferns after lunch",  # a proposal, not an instruction
    ],
)
def test_noun_phrases_and_statements_are_not_commands(clause: str) -> None:
    assert not opens_command(clause)


@pytest.mark.parametrize(
    ("clause", "command"),
    [
        ("order the flour from the mill on Mondays", True),
        ("order of the tracks is wrong", False),  # a listed verb used as a noun
        ("report cards go home on Friday", False),
        ("report the absences to the office", True),
        ("flag missing or late homework to the form tutor", True),  # parsed as a noun phrase
    ],
)
def test_a_listed_verb_is_a_command_unless_it_is_a_noun(clause: str, command: bool) -> None:
    assert clause.split()[0] in IMPERATIVE_VERBS
    assert opens_command(clause, IMPERATIVE_VERBS) is command


def test_an_unlisted_command_is_a_directive_only_when_it_says_when_it_holds() -> None:
    # the verb of a task request ("prune the hedge") is read as a command by the parser,
    # but only a clause that says when it holds, or a sentence marked as standing, is a
    # standing directive
    assert classify_sentence("Prune the hedge by the gate.") is not SentenceKind.DIRECTIVE
    assert (
        classify_sentence("Prune the hedge whenever it covers the path.") is SentenceKind.DIRECTIVE
    )
    assert classify_sentence("From now on, prune the hedge in March.") is SentenceKind.DIRECTIVE
    assert (
        classify_sentence("When a tray comes out cracked, photograph it for the supplier.")
        is SentenceKind.DIRECTIVE
    )


@pytest.mark.parametrize(
    ("command", "nothing"),
    [
        ("Ask for the signed one.", True),  # no noun: the one the sentence before named
        ("Water it twice.", True),
        ("Use their surname on the certificate.", True),  # whose surname?
        ("Send parents their child's timetable.", False),  # "their" has a noun before it
        ("Re-run the mixdown at 48 kHz.", False),
        ("Set the oven to 220.", False),
        ("Label it 'gluten free'.", False),  # a quoted value names what to write
    ],
)
def test_a_command_names_nothing_of_its_own(command: str, nothing: bool) -> None:
    assert names_nothing(command) is nothing


def test_weights_other_than_the_tested_ones_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from dctx import grammar
    from dctx.errors import ConfigError

    monkeypatch.setitem(grammar._WEIGHTS, "parser", "0" * 64)
    grammar._pipeline.cache_clear()
    try:
        with pytest.raises(ConfigError, match="is not the parser dctx was tested with"):
            grammar._pipeline()
    finally:
        grammar._pipeline.cache_clear()  # the next caller loads the real weights again


@pytest.mark.parametrize(
    ("sentence", "general"),
    [
        # how a kind of thing is handled: a bare or universal subject, a present-tense verb
        ("Wedding cakes need a 30% deposit at booking.", True),
        ("Every overdue book gets a reminder on day three, then a fine.", True),
        ("Large-print titles go on the ground-floor shelves, the lift is slow.", True),
        ("Returns older than 60 days get refunded as store credit.", True),
        ("Interns should shadow the night shift first.", True),
        # a case in view, a named thing, a look, the speaker, a question, the past
        ("The oven on line two runs hot.", False),
        ("Bakery 4 isn't open on Sundays.", False),
        ("Pytest fixtures support async tests.", False),  # a named thing's behaviour
        ("All the order forms show a blank total.", False),  # all of the ones in view
        ("Icing looks too runny on this batch.", False),
        ("I want the totals in bold.", False),
        ("Do refunds need a receipt?", False),
        ("That order shipped on Monday.", False),
        ("Overdue notices have been rewritten for the new system.", False),  # something done
        ("It works now.", False),
        ("Phrases are sequences of notes or chords.", False),  # a definition
        # a part of the ones in view ("half of them") tells how it went, not how a kind is handled
        ("Half of them never check in and end up missing the sailing.", False),
        ("Most of us take the late ferry.", False),
        ("Copies of boarding passes go to the purser.", True),
        # under a condition said first, the main clause says it, "a" as any one
        ("If a parcel weighs over 30 kg, a second porter carries it up.", True),
        ("When the gate is locked, deliveries wait at the lodge.", True),
        ("A driver wants the gate code.", False),  # "a" without a condition: one case
        ("If you ask me, the oven on line two runs hot.", False),  # a case in view
        # after a phrase of where or for what, the main clause says it
        ("On my wedding orders, every cake gets a tasting box first.", True),
        ("For rush orders, couriers take the van.", True),
        ("In the end, the oven on line two runs hot.", False),  # no where, and a case in view
    ],
)
def test_a_sentence_states_how_a_kind_of_thing_is_handled(sentence: str, general: bool) -> None:
    assert states_generally(sentence) is general


@pytest.mark.parametrize(
    ("phrase", "forward"),
    [
        ("For the stock report, this is the layout", True),
        ("Here's how I want welcome emails", True),
        ("the steps are as follows", True),
        ("The table for this report", False),  # "this" determines a noun
        ("Send this report to Jo", False),
    ],
)
def test_a_demonstrative_for_what_follows_points_forward(phrase: str, forward: bool) -> None:
    assert points_forward(phrase) is forward


@pytest.mark.parametrize(
    ("sentence", "pronoun_case"),
    [
        ("When it's frosty, cover the seedlings.", True),
        ("If they ask for a gluten-free loaf, take the order by noon.", True),
        ("Whenever that happens, ring the studio manager.", True),
        ("If this baker calls in sick, move the proofing.", False),  # "this" names a baker
        ("When the mic clips, lower the gain.", False),
        ("Cover it when it's frosty.", False),  # the clause does not open the sentence
    ],
)
def test_an_opening_case_of_a_pronoun_is_a_case_of_what_came_before(
    sentence: str, pronoun_case: bool
) -> None:
    assert opens_with_pronoun_case(sentence) is pronoun_case


def test_a_forget_empties_every_cache_of_parsed_text() -> None:
    """A forget must leave no turn's words in any cache of this module."""
    cached = [f for f in vars(grammar).values() if hasattr(f, "cache_info") and f is not _pipeline]
    for question in cached:
        question.cache_clear()
    says_when("if any bread is left, freeze it")
    open_case("when a tray comes out, cool it")
    opens_with_pronoun_case("When it's frosty, cover the seedlings.")
    assert any(f.cache_info().currsize for f in cached)
    forget_clauses()
    assert [f.__name__ for f in cached if f.cache_info().currsize] == []


@pytest.mark.parametrize(
    ("sentence", "phrase", "past"),
    [
        ("The weekly summary has been late every time, and the board noticed.", "every time", True),
        ("You've sent it to the wrong desk every time I asked.", "every time", True),
        ("Every time you file one, put the docket number in the subject.", "Every time", False),
        ("the carrier changed, book with Norvale from now on", "from now on", False),
        ("It has to go out before noon every time.", "every time", False),
    ],
)
def test_a_word_of_recurrence_is_said_of_the_past_by_its_verb(
    sentence: str, phrase: str, past: bool
) -> None:
    assert grammar.said_of_the_past(sentence, sentence.index(phrase)) is past


@pytest.mark.parametrize(
    ("sentence", "clause", "statement"),
    [
        ("Half of the tenants never read it and end up paying the late fee.", "end up", True),
        ("The drivers check the seals and log the numbers.", "log", True),
        ("Check the seals and log the numbers.", "log", False),
        ("You check the seals and log the numbers.", "log", False),
    ],
)
def test_a_verb_conjoined_to_a_statement_about_someone_continues_it(
    sentence: str, clause: str, statement: bool
) -> None:
    assert grammar.continues_a_statement(sentence, sentence.index(clause)) is statement


@pytest.mark.parametrize(
    ("phrase", "without"),
    [
        ("Always 45 on anything I send you.", "Always 45 on anything ."),
        ("Every crate that leaves the yard gets a seal.", "Every crate gets a seal."),
        ("Seal the crate.", "Seal the crate."),
    ],
)
def test_a_phrase_without_its_relative_clauses(phrase: str, without: str) -> None:
    assert grammar.without_relative_clauses(phrase) == without


@pytest.mark.parametrize(
    ("clause", "past"),
    [
        ("never missed a payment", True),
        ("never even called back", True),
        ("never spelled out like 'Small'", False),  # a rule with its "to be" left out
        ("never copy the landlord", False),
        ("never send it twice", False),
    ],
)
def test_a_clause_whose_first_verb_is_past_tells_of_the_past(clause: str, past: bool) -> None:
    assert grammar.tells_of_the_past(clause) is past


@pytest.mark.parametrize(
    ("fragment", "names"),
    [
        ("the high_ropes session", True),
        ("express_lane", True),  # a code name, which the small tagger calls an adjective
        ("level_two", True),
        ("metric units", True),
        ("too small", False),
        ("that was wrong", False),
    ],
)
def test_names_without_verb_reads_code_names_as_names(fragment: str, names: bool) -> None:
    assert names_without_verb(fragment) is names


@pytest.mark.parametrize(
    ("phrase", "kind"),
    [
        ("Birthday parties", True),
        ("skate rentals", True),
        ("Two things", False),  # a number: framing
        ("Change of plan", False),  # singular
        ("my parties", False),  # a possessive: whose, not which kind
    ],
)
def test_names_a_class_reads_a_bare_plural(phrase: str, kind: bool) -> None:
    assert names_a_class(phrase) is kind


@pytest.mark.parametrize(
    ("sentence", "how"),
    [
        # a case named first, then what "you" do in it, in the present
        ("Tuning booked in a school, you send the tuner before 8, then call the caretaker.", True),
        ("If the lid is cracked, you don't move the piano yourself.", True),
        ("Before any concert hire, you check the stool is in the van.", True),
        # no case first, a verb of knowing or wanting, something done, a question
        ("You forgot the stool.", False),
        ("If it rains, you know where the covers are.", False),
        ("You move the piano and I'll sign the sheet.", False),
        ("After a hire, you check the stool?", False),
        ("If the lid is cracked, you should call me.", False),  # a modal: the cues read it
    ],
)
def test_a_sentence_says_how_you_handle_a_kind_of_case(sentence: str, how: bool) -> None:
    assert says_how_you_handle(sentence) is how


@pytest.mark.parametrize(
    ("sentence", "values"),
    [
        ("When a school books a tuning: the upright, never the grand.", True),
        ("If the hall is cold: the heavy covers, please.", True),
        ("When the tuner arrives: the side door, which stays unlocked.", True),  # a relative clause
        ("When the lid cracked: I called the workshop.", False),  # a clause, not values
        ("If you can: send it now.", False),
        ("The side door: always.", False),  # no case
        ("When is the tuner due: tomorrow?", False),
    ],
)
def test_values_named_for_a_case_said_first(sentence: str, values: bool) -> None:
    assert values_for_a_case(sentence) is values


@pytest.mark.parametrize(
    ("phrase", "negates"),
    [
        ("No dogs on the saloon deck.", True),
        ("no cash refunds after departure", True),
        ("No more paper tickets at the gate.", True),
        ("no longer sell day returns after six", True),
        ("no more than two cars per booking", True),
        ("no I meant the morning sailing", False),
        ("no that's the wrong pier", False),
        ("no send it to the purser instead", False),
    ],
)
def test_a_no_that_negates_something_of_the_phrase(phrase: str, negates: bool) -> None:
    assert negates_with_no(phrase) is negates


@pytest.mark.parametrize(
    ("phrase", "kind"),
    [
        ("For repair tickets", True),
        ("For new members", True),
        ("For the Hale bike", False),  # one in view
        ("For these", False),
        ("For Mr Hale's tickets", False),  # his, not a kind
        ("For two weeks", False),  # how long
        ("For example", False),
        ("For now", False),
    ],
)
def test_for_and_a_bare_plural_names_a_kind(phrase: str, kind: bool) -> None:
    assert for_a_kind(phrase) is kind
