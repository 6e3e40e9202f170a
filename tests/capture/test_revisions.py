"""A turn that gives a new value for a rule its speaker already has revises that rule, however
the turn reader reads the turn ("it's 14 days now", news to the reader): the old value must not
stay active beside the new one, and nothing else the speaker says with a number does that."""

from __future__ import annotations

from pathlib import Path

import pytest

from dctx.capture.parse import parse_messages
from dctx.capture.revisions import quantities, replacement, revision, withdrawal
from dctx.memory import Memory
from dctx.models import RuleStatus, Session, TriggerKind
from stub_reader import SureOf

_RULE = "Quote 10 working days for a replacement library card."
_NEWS = "The county office prints the cards now, so it's 14 working days. Quote 14 working days."


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("refunds up to $40 without approval", {("$", "40")}),
        ("quote 14 working days", {("work", "14")}),
        ("a 15% restocking fee", {("%", "15")}),
        ("the loaner pool has 12 laptops", {("laptop", "12")}),
        ("ticket LIB-2210 and build 3.4.0 on v2", set()),  # identifiers are names
        ("a 10-day pickup window", {("day", "10")}),  # a compound adjective
        ("capped at 30 a week, $2 per card", {("week", "30"), ("$", "2")}),  # rates
        ("COVID-19 closures and the v2-beta site", set()),  # names again
        ("call back after 3 and before 5", set()),  # bare numbers: no kind to compare
        ("send the reminder on day 5, not in week 2", {("day", "5"), ("week", "2")}),
        ("room 12 at gate 4, step 3 of the form", set()),  # no unit of time: a name
    ],
)
def test_a_quantity_is_a_number_with_its_kind(text: str, found: set[tuple[str, str]]) -> None:
    assert quantities(text) == found


def test_a_new_value_for_the_rules_subject_revises_it() -> None:
    found = revision(_NEWS, ["Shelve new arrivals by Friday.", _RULE])
    assert found is not None
    assert found.rule == _RULE
    assert found.sentences == ("Quote 14 working days.",)  # the command, not the news


def test_an_amount_is_said_not_pasted() -> None:
    rule = "Waive the late fee on replacement cards up to $5."
    found = revision("Replacement cards: the late fee cap is $8 now. Waive up to $8.", [rule])
    assert found is not None
    assert found.sentences == ("Waive up to $8.",)


_TWO_VALUES = "Charge $2 for a replacement card and hold it for a 10-day pickup window."


def test_what_the_turn_keeps_of_the_rule_is_in_the_new_rule() -> None:
    # the new rule supersedes the old one: the value the speaker keeps must be said in it
    turn = "Replacement cards cost $3 now. Keep the 10-day pickup window. Do member 5520's card."
    found = revision(turn, [_TWO_VALUES])
    assert found is not None and found.rule == _TWO_VALUES
    assert found.sentences == ("Replacement cards cost $3 now.", "Keep the 10-day pickup window.")


def test_each_new_value_keeps_the_sentence_that_says_it() -> None:
    # a verbless new value beside a command with another: the command does not stand for both
    rule = "Hold a season ferry pass at the kiosk 10 days and text a reminder on day 7."
    turn = (
        "Back to 14 days on season pass holds. The short hold annoyed commuters. "
        "Keep the reminder text, but send it on day 5 instead of day 7. Do the Okafor pass."
    )
    found = revision(turn, [rule])
    assert found is not None and found.rule == rule
    assert found.sentences == (
        "Back to 14 days on season pass holds.",
        "Keep the reminder text, but send it on day 5 instead of day 7.",
    )


@pytest.mark.parametrize(
    ("turn", "revises"),
    [
        # the label tells when the news came: it does not limit the new value to this morning
        ("The harbour office sent a memo this morning: season pass holds are 14 days now.", True),
        ("For this morning only: season pass holds are 14 days.", False),  # a one-off
    ],
)
def test_a_label_that_tells_of_the_past_dates_the_news(turn: str, revises: bool) -> None:
    rule = "Hold a season ferry pass at the kiosk 10 days."
    assert (revision(f"{turn} Do the Okafor pass.", [rule]) is not None) is revises


@pytest.mark.parametrize(
    "other",
    [
        "Keep the receipts in the blue tray.",  # none of the rule's values
        "The 10-day window was what the printer needed.",  # a value in a story: the past
    ],
)
def test_a_sentence_that_keeps_no_value_of_the_rule_is_not_kept(other: str) -> None:
    turn = f"Replacement cards cost $3 now. {other}"
    found = revision(turn, [_TWO_VALUES])
    assert found is not None
    assert found.sentences == ("Replacement cards cost $3 now.",)


def test_the_old_value_may_be_said_beside_the_new_one() -> None:
    # "it goes up to 14, so the 10 days are gone": naming the old value retires it, and the
    # sentence that carries the new one is the new rule
    turn = (
        "Card printing moved to the county. It's 14 working days now, the 10 working days are gone."
    )
    found = revision(turn, [_RULE])
    assert found is not None and found.rule == _RULE
    assert found.sentences == ("It's 14 working days now, the 10 working days are gone.",)


@pytest.mark.parametrize(
    "turn",
    [
        "Order 14 working lamps for the reading room.",  # same kind, another subject
        "Replacement library cards: still 10 working days, quote that.",  # the same value
        "How many working days for a replacement library card now? 14?",  # a question
        "Replacement library card for member LIB-2210, please.",  # no quantity
        "[W] replacement library card queue: 14 working days, see cards.queue_eta",  # output
        "Quote 14 working days for this one replacement card, the printer is down.",  # one-off
    ],
)
def test_no_new_value_for_the_same_subject_revises_nothing(turn: str) -> None:
    assert revision(turn, [_RULE]) is None


def _capture(memory: Memory, turn: str, *, cid: str, actor: str, when: str) -> None:
    messages = [
        {"role": "user", "content": "member 4471 lost their card, sort out a replacement"},
        {"role": "assistant", "content": "Replacement ordered; I told them 10 working days."},
        {"role": "user", "content": turn},
        {"role": "assistant", "content": "Noted."},
    ]
    memory.capture(messages, actor=actor, skill="circulation", conversation_id=cid, timestamp=when)


def _active(memory: Memory) -> list[tuple[str | None, str]]:
    return [(r.actor, r.text) for r in memory.rules(status=RuleStatus.ACTIVE)]


def test_capture_supersedes_the_old_value_though_the_reader_reads_news(tmp_path: Path) -> None:
    # the reader is sure of the first correction only: the later turn is a task to it
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(_RULE)) as memory:
        _capture(memory, _RULE, cid="c1", actor="noor", when="2026-03-01T09:00:00Z")
        _capture(memory, _NEWS, cid="c2", actor="noor", when="2026-04-01T09:00:00Z")
        assert _active(memory) == [("noor", "Quote 14 working days.")]
        old = memory.rules(status=RuleStatus.SUPERSEDED)
        assert [r.text for r in old] == [_RULE]


def test_a_later_session_of_the_same_capture_revises_an_earlier_ones_rule(
    tmp_path: Path,
) -> None:
    # a transcript file of many sessions is one capture: the rule its first session set is
    # the speaker's when a later session changes its value
    def session(turn: str, cid: str, when: str) -> Session:
        messages = [
            {"role": "user", "content": "member 4471 lost their card, sort out a replacement"},
            {"role": "assistant", "content": "Replacement ordered; I told them 10 working days."},
            {"role": "user", "content": turn},
            {"role": "assistant", "content": "Noted."},
        ]
        return parse_messages(
            messages, actor="noor", skill="circulation", conversation_id=cid, timestamp=when
        )

    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(_RULE)) as memory:
        memory.capture_sessions(
            [
                session(_RULE, "c1", "2026-03-01T09:00:00Z"),
                session(_NEWS, "c2", "2026-04-01T09:00:00Z"),
            ]
        )
        assert _active(memory) == [("noor", "Quote 14 working days.")]
        assert [r.text for r in memory.rules(status=RuleStatus.SUPERSEDED)] == [_RULE]


def test_the_revised_rule_keeps_what_the_speaker_keeps(tmp_path: Path) -> None:
    turn = "Replacement cards cost $3 now. Keep the 10-day pickup window. Do member 5520's card."
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(_TWO_VALUES)) as memory:
        _capture(memory, _TWO_VALUES, cid="c1", actor="noor", when="2026-03-01T09:00:00Z")
        _capture(memory, turn, cid="c2", actor="noor", when="2026-04-01T09:00:00Z")
        assert _active(memory) == [
            ("noor", "Replacement cards cost $3 now. Keep the 10-day pickup window.")
        ]


def test_the_revised_rule_is_superseded_however_unlike_the_new_words(tmp_path: Path) -> None:
    # the revision found the rule by its quantity: compile supersedes that rule, not one it
    # finds alike (a short new value reads little like a long rule)
    rule = (
        "Replacement cards are $2 for adults, and children under 12 get theirs free with "
        "a guardian's card on the account."
    )
    turn = "Adults pay $3 for a replacement card now."
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(rule)) as memory:
        _capture(memory, rule, cid="c1", actor="noor", when="2026-03-01T09:00:00Z")
        _capture(memory, turn, cid="c2", actor="noor", when="2026-04-01T09:00:00Z")
        assert _active(memory) == [("noor", turn)]
        assert [r.text for r in memory.rules(status=RuleStatus.SUPERSEDED)] == [rule]


def test_another_actor_revises_nothing_of_anothers_rules(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(_RULE)) as memory:
        _capture(memory, _RULE, cid="c1", actor="noor", when="2026-03-01T09:00:00Z")
        _capture(memory, _NEWS, cid="c2", actor="sam", when="2026-04-01T09:00:00Z")
        assert _active(memory) == [("noor", _RULE)]


def test_a_value_changed_later_in_the_same_session_revises_it(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "member 4471 lost their card, sort out a replacement"},
        {"role": "assistant", "content": "Replacement ordered."},
        {"role": "user", "content": _RULE},
        {"role": "assistant", "content": "Will do."},
        {"role": "user", "content": _NEWS},
        {"role": "assistant", "content": "Noted."},
    ]
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(_RULE)) as memory:
        memory.capture(messages, actor="noor", skill="circulation", conversation_id="c1")
        assert _active(memory) == [("noor", "Quote 14 working days.")]


def test_the_new_value_reaches_the_tool_calls_the_old_one_did(tmp_path: Path) -> None:
    # the old rule holds where its tool is called; the revision, said on a request of its own,
    # replaces it there, not only on requests like the one it was said in
    called = [
        {"role": "user", "content": "member 4471 lost their card, sort out a replacement"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "order_card", "arguments": '{"member": "4471"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"order": "RC-88", "eta_days": 10}'},
        {"role": "assistant", "content": "Replacement ordered; I told them 10 working days."},
        {"role": "user", "content": _RULE},
        {"role": "assistant", "content": "Noted."},
    ]
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(_RULE)) as memory:
        memory.capture(called, actor="noor", skill="circulation", conversation_id="c1")
        (old,) = memory.rules(status=RuleStatus.ACTIVE)
        _capture(memory, _NEWS, cid="c2", actor="noor", when="2026-04-01T09:00:00Z")
        (new,) = memory.rules(status=RuleStatus.ACTIVE)
    assert old.trigger.kind is TriggerKind.TOOL and old.trigger.tool == "order_card"
    assert new.text == "Quote 14 working days."
    assert new.trigger.kind is TriggerKind.TOOL and new.trigger.tool == "order_card"


_LINK = "Add the reading-club link to the end of my overdue notices."
_DROP = "Drop the reading-club link from my overdue notices. Two members said it felt pushy."


def test_a_command_of_removal_on_the_rules_subject_takes_it_back() -> None:
    rules = ["Shelve new arrivals by Friday.", _LINK]
    assert withdrawal(_DROP, rules) == "Drop the reading-club link from my overdue notices."


@pytest.mark.parametrize(
    "turn",
    [
        "Drop the duplicate holds from the queue.",  # another subject
        "Can we drop the reading-club link from my overdue notices?",  # asked, not said
        "Add the reading-club link to my overdue notices for the summer too.",  # adds to it
    ],
)
def test_other_turns_take_nothing_back(turn: str) -> None:
    assert withdrawal(turn, [_LINK]) is None


def test_capture_withdraws_the_rule_though_the_reader_reads_a_request(tmp_path: Path) -> None:
    # the reader is sure of the first correction only: the removal is a task to it
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(_LINK)) as memory:
        _capture(memory, _LINK, cid="c1", actor="noor", when="2026-03-01T09:00:00Z")
        _capture(memory, _DROP, cid="c2", actor="sam", when="2026-03-15T09:00:00Z")
        assert _active(memory) == [("noor", _LINK)]  # not sam's to take back
        _capture(memory, _DROP, cid="c3", actor="noor", when="2026-04-01T09:00:00Z")
        assert _active(memory) == []


_REPLACED = (
    "Drop the reading-club link from my overdue notices. Two members said it felt pushy. "
    "Put the 'Renew online?' link there instead."
)


def test_a_command_of_what_holds_instead_replaces_the_rule_it_takes_back() -> None:
    said = "Drop the reading-club link from my overdue notices."
    assert replacement(_REPLACED, said) == "Put the 'Renew online?' link there instead."
    assert replacement(_DROP, said) is None  # a reason, and nothing in its place


def test_capture_learns_the_replacement_of_a_rule_it_takes_back(tmp_path: Path) -> None:
    """Withdraw and replace in one turn the reader reads as a request: the old rule goes,
    the one said instead comes."""
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(_LINK)) as memory:
        _capture(memory, _LINK, cid="c1", actor="noor", when="2026-03-01T09:00:00Z")
        _capture(memory, _REPLACED, cid="c2", actor="noor", when="2026-04-01T09:00:00Z")
        assert [t for _, t in _active(memory)] == ["Put the 'Renew online?' link there instead."]
