"""How a user's sentence is read: a standing directive, a one-time request, or talk."""

from __future__ import annotations

import pytest

from dctx.capture.corrections import _classify_turn
from dctx.capture.cues import SentenceKind, classify_sentence, standing_cue, takes_away
from dctx.text import sentences


@pytest.mark.parametrize(
    "sentence",
    [
        "Compare the multiple to the company's own 5-year average instead.",  # "5-year" is no id
        "Compare to the current peer median instead, like you originally did.",
        "Webhook and API problems go to the platform_eng queue.",
        "Never value a REIT on EPS.",
        "For Business customers with orders older than 30 days, issue store credit instead.",
        "anything under 12 months of runway, I want a red-flag line right at the top.",
        "Subject lines should start with the ticket number, like '[CS-40212] Your exchange'.",
        "Next time pull the runbook for the alert first.",
        "For P3s also page the secondary on-call, not the primary.",
        "Same with 'customer attrition', we call that logo churn.",
        "Dates as YYYY-MM-DD please, always.",
        "We're not supposed to put full account numbers in chat transcripts.",
        "For Staff and above, any track, the loop needs a system design round.",
        "The 1-hour priority callback is for Platinum only, that's the rule for all of us.",
        "With the tier restructure that went live today, Gold members now also get the callback.",
        "You need a signed waiver for every climber under 16.",
        "Always print the boarding pass for him, he can't use the app.",  # standing, for one
    ],
)
def test_directive(sentence: str) -> None:
    assert classify_sentence(sentence) is SentenceKind.DIRECTIVE


@pytest.mark.parametrize(
    "sentence",
    [
        "Compare Acme and Globex on FY2025.",
        "0.06x should have been a red flag.",
        "dario@libero.it: display on the thermostat is flickering, it's 8 months old",
        "Cancel reservation XEHM4B.",
        "I'll make sure to find my user ID and get back to you.",
        "Take care!",
        "Change of plan.",
        "Transfer me to a human agent.",
        "First Name - Emily, Last Name - Smith.",
        "Screen both next week.",
        "Book Leo's HM chat at 2.",
        "Image-cdn 404 spike, open a SEV3.",
        "Priya says her tent hasn't arrived and wants to know our late delivery policy.",
        "The CEO signed off, she's presenting off the plane and needs to work on the deck.",
        "You need a break.",
        # a modal in a relative clause says what someone's lot is, not what the agent does
        "Skippers pay for every berth they don't use, and I'm the one who has to explain it.",
        "We have a purser who must sign every manifest.",
        # a command for one person in view is for that case
        "Use the old fare table for her, she booked before the change.",
        # a pause in the talk names nothing to do
        "hold on.",
        "Hang on!",
    ],
)
def test_not_a_directive(sentence: str) -> None:
    assert classify_sentence(sentence) is not SentenceKind.DIRECTIVE


def test_today_is_a_one_off_unless_it_dates_a_change() -> None:
    assert classify_sentence("cc me on anything else from Harbor Lane today") is (
        SentenceKind.ONE_OFF
    )
    assert classify_sentence("Gold members now also get it, the change went live today.") is (
        SentenceKind.DIRECTIVE
    )


def test_retiring_a_practice_is_a_withdrawal() -> None:
    sentence = "Let's stop cc'ing managers, a few complained about the noise."
    assert classify_sentence(sentence) is SentenceKind.WITHDRAWAL


def test_abbreviations_do_not_end_a_sentence() -> None:
    text = "When net burn is negative - i.e. cash flow is positive - skip it. Say so."
    assert len(sentences(text)) == 2


def test_a_title_before_a_name_ends_no_sentence() -> None:
    text = "St. Paul's pantry can't make Thursday. Send one to Dr. Brink instead. Done."
    assert sentences(text) == [
        "St. Paul's pantry can't make Thursday.",
        "Send one to Dr. Brink instead.",
        "Done.",
    ]


def test_a_stop_inside_brackets_ends_no_sentence() -> None:
    text = (
        "Tag late kilns with the fault code. This one's a 4 (glaze crawl? no, it's "
        "'underfired'... use 7), 20 minutes.\nNext (line"
    )
    assert sentences(text) == [
        "Tag late kilns with the fault code.",
        "This one's a 4 (glaze crawl? no, it's 'underfired'... use 7), 20 minutes.",
        "Next (line",
    ]


def test_do_it_like_that_makes_the_turns_requests_standing() -> None:
    turn = (
        "Can you redo it as a table? Columns: name, title, notice period. "
        "And drop the adjectives. Do it like that whenever you give me candidate lists."
    )
    _, directives = _classify_turn(turn, first_turn=False)
    assert len(directives) == 1
    text = directives[0][1]
    assert text.startswith("Whenever you give me candidate lists:")
    assert "table" in text and "notice period" in text and "adjectives" in text


def test_one_persons_preference_is_not_a_rule() -> None:
    turn = (
        "Grace is aisle and never Frontier, she has a dispute with them. "
        "That's just her thing, not a rule for everyone. "
        "But in general: read the profile notes for every traveler."
    )
    _, directives = _classify_turn(turn, first_turn=False)
    assert [d for _, d in directives] == ["in general: read the profile notes for every traveler."]


def test_use_that_field_is_not_an_anaphor() -> None:
    turn = "The ticket must carry the passport name. Use that field, never the display name."
    _, directives = _classify_turn(turn, first_turn=False)
    assert directives[-1][1] == "Use that field, never the display name."


def test_named_directive_inherits_the_turns_subject() -> None:
    turn = (
        "For Tidewater, never copy patient details into a ticket. "
        "Acknowledgements go to Colette Vance, not whichever admin wrote in."
    )
    _, directives = _classify_turn(turn, first_turn=False)
    assert [d for _, d in directives][1].startswith("For Tidewater, acknowledgements go to")


def test_a_verbless_follow_up_narrows_the_directive_before_it() -> None:
    turn = "Please mask account numbers going forward. Only the last four digits, like ****6612."
    _, directives = _classify_turn(turn, first_turn=False)
    assert [d for _, d in directives] == [
        "Please mask account numbers going forward - Only the last four digits, like ****6612."
    ]


def test_an_announcement_makes_the_turns_policy_standing() -> None:
    turn = (
        "Important update for everyone handling returns: the refund window is 14 days, not 30. "
        "Between day 15 and day 30 we give store credit instead of a refund. "
        "First one today: GH-74480, returned lip kit."
    )
    _, directives = _classify_turn(turn, first_turn=True)
    texts = [d for _, d in directives]
    assert len(texts) == 2 and "store credit" in texts[1]


def test_what_follows_a_withdrawal_in_a_first_turn_replaces_it() -> None:
    # nothing of this session can be withdrawn yet: the withdrawn rule is a standing one
    turn = (
        "Menu change, it replaces the old one. Forget the bread basket for every table: "
        "nobody eats it. Instead, before the mains, bring a small soup to each guest."
    )
    _, directives = _classify_turn(turn, first_turn=True)
    kinds = [k for k, _ in directives]
    assert kinds == [SentenceKind.WITHDRAWAL, SentenceKind.DIRECTIVE]
    assert "small soup" in directives[1][1]
    # with no withdrawal before it, the same command in a first turn is this task's request
    _, asked = _classify_turn(
        "Menu change tonight. Before the mains, bring a small soup to each guest.",
        first_turn=True,
    )
    assert asked == []


def test_an_acceptance_the_filler_hides_is_read_once_not_forever() -> None:
    # a real turn (agents3a corpus): the acceptance matched only after the filler was taken
    # off, so it was taken off nothing and read again until the stack overflowed
    sentence = "ah got it, you added the changes to league + season, not season as i requested."
    assert classify_sentence(sentence) in set(SentenceKind)


@pytest.mark.parametrize(
    ("command", "takes"),
    [
        ("drop the emojis, they don't survive the PDF export", True),
        ("scratch the phone call for 2+ day delays, send an SMS instead", True),
        ("please stop adding the disclaimer", True),
        ("never cc the account manager", True),
        ("tell them no soil or rubble in the brown bin", False),
        ("every turnover gets the locks rekeyed", False),
        ("send the customer an SMS instead", False),
    ],
)
def test_takes_away(command: str, takes: bool) -> None:
    # only a command that takes something out of what the agent does can take a rule back
    assert takes_away(command) is takes


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        # a phrase of time about any case says when the command holds, as a condition does
        ("Before any rollout, snapshot the database so we can go back.", SentenceKind.DIRECTIVE),
        ("After every release, tag the commit in the tracker.", SentenceKind.DIRECTIVE),
        # about this case: no sign that it holds beyond this task
        ("Before the rollout, snapshot the database.", SentenceKind.OTHER),
        (
            "Roll back to before you started refactoring as you probably broke a bunch of stuff.",
            SentenceKind.OTHER,
        ),
    ],
)
def test_a_phrase_of_time_about_any_case_makes_a_command_standing(
    sentence: str, kind: SentenceKind
) -> None:
    assert classify_sentence(sentence) is kind


@pytest.mark.parametrize(
    "sentence",
    ["Scrap the glaze notes in kiln logs.", "Ditch the weather line in the harbour report."],
)
def test_a_verb_of_removal_opens_a_command(sentence: str) -> None:
    """Removal verbs take something out of what the agent does; each is a command's verb."""
    assert classify_sentence(sentence) is SentenceKind.DIRECTIVE
    assert takes_away(sentence)


@pytest.mark.parametrize(
    ("turn", "directive"),
    [
        # a condition said in its own sentence before the command carries over to it
        (
            "The card was declined again. When the bank says do-not-honour, there's the "
            "phone line. Call the member before you retry.",
            "When the bank says do-not-honour, call the member before you retry.",
        ),
        # a condition read only to a word that opens a clause was cut off inside: none
        (
            "You sent the crew without a tarp. If it rains while it's uncovered, nobody "
            "notices. Check the forecast before every roof job.",
            "Check the forecast before every roof job.",
        ),
        # what might have been ("if it had lapsed") is no case the command holds in
        (
            "You skipped the cold-chain check. If the van had warmed up we'd have lost the "
            "lot. Check the van's logger before you load anything chilled.",
            "Check the van's logger before you load anything chilled.",
        ),
    ],
)
def test_a_condition_carries_over_unless_it_is_what_might_have_been(
    turn: str, directive: str
) -> None:
    _, directives = _classify_turn(turn, first_turn=False)
    assert [d for k, d in directives if k is SentenceKind.DIRECTIVE] == [directive]


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        # a complaint of how things went, with a word of recurrence in it
        (
            "The 'shift handover' note has been different every time, and nobody can read it.",
            "other",
        ),
        ("The handover note has to be the same every time.", "directive"),
        ("Every time a pallet ships, log the seal number.", "directive"),
    ],
)
def test_recurrence_said_of_the_past_is_no_instruction(sentence: str, kind: str) -> None:
    assert classify_sentence(sentence).value == kind


def test_the_second_verb_of_a_statement_about_someone_is_no_command() -> None:
    said = "Half of the tenants never read the notice and end up paying the late fee."
    assert classify_sentence(said) is not SentenceKind.DIRECTIVE
    assert classify_sentence("Read the notice first, and add the late fee.") is (
        SentenceKind.DIRECTIVE
    )


def test_a_stop_inside_double_quotes_ends_no_sentence() -> None:
    """A template line ('Then: "Questions? Call us."') or a quoted message is one sentence;
    a line break still ends it, closed or not."""
    assert sentences('Then: "Questions? Call us. We reply fast." then sign it. Done.') == [
        'Then: "Questions? Call us. We reply fast." then sign it.',
        "Done.",
    ]
    assert sentences("He wrote \u201cstop. now\u201d twice. Fine.") == [
        "He wrote \u201cstop. now\u201d twice.",
        "Fine.",
    ]
    assert sentences('A 12" board. Cut it.\nNext line.') == ['A 12" board. Cut it.', "Next line."]


def test_a_closing_quote_after_a_stop_ends_a_sentence_when_a_new_one_begins() -> None:
    text = (
        'Add the line "Gates open at 9." Parents ask every week. Tell them "Bring water." '
        "before the map, it gets hot."
    )
    assert sentences(text) == [
        'Add the line "Gates open at 9."',
        "Parents ask every week.",
        'Tell them "Bring water." before the map, it gets hot.',
    ]


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        # "never" before a verb in the past tells what happened
        ("Nine years a member, never missed a dues payment.", SentenceKind.OTHER),
        ("Never cc the landlord on these.", SentenceKind.DIRECTIVE),
        ("never cc the landlord on these.", SentenceKind.DIRECTIVE),
    ],
)
def test_what_only_seems_a_command_is_none(sentence: str, kind: SentenceKind) -> None:
    assert classify_sentence(sentence) is kind


def test_for_good_at_the_end_of_a_clause_says_it_stands() -> None:
    """ "this one's for good:" holds from now on, even in an opening request; "for good
    measure" says nothing of how long."""
    sentence = "Also, this one's for good: any refund over $50, copy the store manager."
    assert classify_sentence(sentence, first_turn=True) is SentenceKind.DIRECTIVE
    assert standing_cue("Drop the footer for good.")
    assert not standing_cue("Add a second seal for good measure.")


@pytest.mark.parametrize(
    ("turn", "directive"),
    [
        # a "no" that negates part of the sentence (a noun, "more", "longer") stays in the rule
        ("No dogs on the saloon deck from now on.", "No dogs on the saloon deck from now on."),
        ("ok no bikes in the lift, always the ramp.", "no bikes in the lift, always the ramp."),
        (
            "No more than two cars per booking from now on.",
            "No more than two cars per booking from now on.",
        ),
        # a "no" that answers is filler
        ("no, always sell the deck ticket first.", "always sell the deck ticket first."),
    ],
)
def test_a_no_that_negates_part_of_the_sentence_is_kept(turn: str, directive: str) -> None:
    _, directives = _classify_turn(turn, first_turn=False)
    assert [d for k, d in directives if k is SentenceKind.DIRECTIVE] == [directive]
