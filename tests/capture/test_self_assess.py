"""Self-assessment over hand-written traces: each pattern, and each thing that is not one."""

from __future__ import annotations

import json
from typing import Any

from dctx.capture.base import ToolPattern, ToolPatternSignal
from dctx.capture.parse import parse_messages
from dctx.capture.self_assess import MAX_GAP, assess, tool_calls
from dctx.models import Session


class Trace:
    """Builds an OpenAI message list: one call + result per `step`."""

    def __init__(self, query: str = "Do the task.") -> None:
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": query}]

    def step(self, tool: str, result: Any, /, **args: Any) -> Trace:
        cid = f"c{len(self.messages)}"
        self.messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": tool, "arguments": json.dumps(args)},
                    }
                ],
            }
        )
        text = result if isinstance(result, str) else json.dumps(result)
        self.messages.append({"role": "tool", "tool_call_id": cid, "content": text})
        return self

    def say(self, role: str, text: str) -> Trace:
        self.messages.append({"role": role, "content": text})
        return self

    def session(self, cid: str = "s1", **kw: Any) -> Session:
        return parse_messages(self.messages, conversation_id=cid, actor="alice", skill="ops", **kw)


def only(signals: list[ToolPatternSignal]) -> ToolPatternSignal:
    assert len(signals) == 1, signals
    return signals[0]


# ------------------------------------------------------------------------------ patterns


def test_retry_with_changed_arguments() -> None:
    s = (
        Trace()
        .step("list_companies", ["Acme Corp"])
        .step("get_financials", "Error: unknown company 'Acme'", company="Acme")
        .say("assistant", "Let me retry.")
        .step("get_financials", {"revenue": [10, 12]}, company="Acme Corp")
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.RETRY_CHANGED_ARGS
    assert (sig.tool, sig.other_tool, sig.after_tool) == ("get_financials", None, "list_companies")
    assert sig.failed_args == {"company": "Acme"} and sig.success_args == {"company": "Acme Corp"}
    assert sig.error == "Error: unknown company 'Acme'"
    assert sig.message_indexes == [3, 4, 6, 7]
    assert (sig.ctx.conversation_id, sig.ctx.actor, sig.ctx.skill) == ("s1", "alice", "ops")


def test_first_call_failing_has_no_after_tool() -> None:
    s = (
        Trace()
        .step("search", "Error: 'limit' must be at most 100", q="acme", limit=500)
        .step("search", [{"id": 1}], q="acme", limit=100)
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.RETRY_CHANGED_ARGS and sig.after_tool is None


def test_auth_refresh() -> None:
    s = (
        Trace()
        .step("query_crm", {"rows": 3}, account="acme")
        .step("query_crm", "Error: 401 Unauthorized: token expired", account="beta")
        .step("get_time", "12:00")
        .step("refresh_token", {"token": "new"})
        .step("query_crm", {"rows": 5}, account="beta")
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.AUTH_REFRESH
    assert (sig.tool, sig.other_tool, sig.after_tool) == ("query_crm", "refresh_token", "query_crm")


def test_auth_refresh_with_any_other_tool() -> None:
    s = (
        Trace()
        .step("read_sheet", "Error: invalid credentials", sheet="q3")
        .step("open_vault", {"ok": True}, name="sheets")
        .step("read_sheet", [[1, 2]], sheet="q3")
        .session()
    )
    sig = only(assess([s]))
    assert (sig.pattern, sig.other_tool) == (ToolPattern.AUTH_REFRESH, "open_vault")


def test_missing_prerequisite_same_arguments() -> None:
    s = (
        Trace()
        .step("list_files", "Error: workspace not initialized", dir="/data")
        .step("init_workspace", "initialized", dir="/data")
        .step("list_files", ["a.csv"], dir="/data")
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.MISSING_PREREQUISITE
    assert (sig.tool, sig.other_tool) == ("list_files", "init_workspace")
    assert sig.failed_args == sig.success_args == {"dir": "/data"}
    assert sig.message_indexes == [1, 2, 3, 4, 5, 6]


def test_missing_prerequisite_that_supplies_a_changed_argument() -> None:
    s = (
        Trace()
        .step("get_invoice", "Error: customer not found", invoice="INV-7", customer="acme")
        .step("find_customer", {"id": "C-1"}, name="acme")
        .step("get_invoice", {"total": 9}, invoice="INV-7", customer="C-1")
        .session()
    )
    sig = only(assess([s]))
    assert (sig.pattern, sig.other_tool) == (ToolPattern.MISSING_PREREQUISITE, "find_customer")
    assert sig.success_args["customer"] == "C-1"


def test_prerequisite_names_the_result_field_a_changed_argument_came_from() -> None:
    s = (
        Trace()
        .step("get_recipe", "Error: unknown dish", dish="Lemon Tart")
        .step(
            "find_dishes",
            {"matches": [{"slug": "lemon_tart", "title": "Lemon Tart"}]},
            text="lemon tart",
        )
        .step("get_recipe", {"steps": 7}, dish="lemon_tart")
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.MISSING_PREREQUISITE
    assert sig.result_fields == {"dish": "slug"}


def test_a_value_two_result_fields_share_names_no_field() -> None:
    s = (
        Trace()
        .step("book_room", "Error: room taken", room="R-101", at="10:00")
        .step(
            "room_slots",
            {"taken": [{"until": "11:00"}], "open": [{"from": "11:00"}]},
            room="R-101",
        )
        .step("book_room", {"ok": True}, room="R-101", at="11:00")
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.MISSING_PREREQUISITE
    assert sig.result_fields == {}


def test_unrelated_call_in_between_keeps_it_a_changed_args_retry() -> None:
    s = (
        Trace()
        .step("book", "Error: payment does not add up, total 305, paid 255", user="mia", paid=255)
        .step("calculate", "305.0", expression="250 + 55")
        .step("book", {"id": "R1"}, user="mia", paid=305)
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.RETRY_CHANGED_ARGS and sig.other_tool is None


def test_dead_source_same_tool_other_source() -> None:
    s = (
        Trace()
        .step("get_logs", "Error: source vpc-0old is deprecated", source="vpc-0old", company="Acme")
        .step("get_logs", ["line"], source="vpc-main", company="Acme")
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.DEAD_SOURCE
    assert sig.failed_args["source"] == "vpc-0old" and sig.success_args["source"] == "vpc-main"


def test_dead_source_not_found_with_a_source_argument() -> None:
    s = (
        Trace()
        .step(
            "get_report", "Error: provider 'oldfeed' not found", provider="oldfeed", ticker="ACME"
        )
        .step("get_report", {"pe": 12}, provider="refinitiv", ticker="ACME")
        .session()
    )
    assert only(assess([s])).pattern == ToolPattern.DEAD_SOURCE


def test_dead_source_replaced_by_another_tool() -> None:
    s = (
        Trace()
        .step("fetch_prices_legacy", "Error: 410 Gone", ticker="ACME")
        .step("fetch_prices_legacy", "Error: 410 Gone", ticker="ACME")
        .step("fetch_prices", {"close": 10.5}, ticker="ACME")
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.DEAD_SOURCE
    assert (sig.tool, sig.other_tool, sig.success_args) == (
        "fetch_prices_legacy",
        "fetch_prices",
        {"ticker": "ACME"},
    )
    assert sig.message_indexes == [1, 2, 3, 4, 5, 6]


def test_not_found_then_unrelated_tool_is_not_a_dead_source() -> None:
    s = (
        Trace()
        .step("get_reservation", "Error: reservation not found", id="ZZZ")
        .step("get_user", {"name": "Mia"}, user="mia")
        .session()
    )
    assert assess([s]) == []


def _logs_session(
    cid: str, ok_source: str | None = None, *, skill_ns: dict[str, str] | None = None
) -> Session:
    t = Trace().step("list_sources", ["vpc-0old", "vpc-main"], company="Acme")
    t.step(
        "scan", "Error: access to vpc-0old failed with code E7", source="vpc-0old", company="Acme"
    )
    if ok_source:
        t.step("scan", ["ok"], source=ok_source, company="Acme")
    s = t.session(cid)
    for key, value in (skill_ns or {}).items():
        setattr(s, key, value)
    return s


def test_recurring_failure_across_sessions() -> None:
    signals = assess([_logs_session("s1"), _logs_session("s2"), _logs_session("s3", "vpc-main")])
    recurring = [x for x in signals if x.pattern == ToolPattern.RECURRING_FAILURE]
    sig = only(recurring)
    assert sig.tool == "scan" and sig.failed_args == {"source": "vpc-0old"}
    assert sig.conversation_ids == ["s1", "s2", "s3"] and sig.occurrences == 3
    assert sig.after_tool == "list_sources" and sig.ctx.conversation_id == "s1"
    assert sig.message_indexes == [3, 4]
    # the third session also learned the fix within the session
    assert [x.pattern for x in signals if x.ctx.conversation_id == "s3"] == [
        ToolPattern.RETRY_CHANGED_ARGS
    ]


def test_recurring_needs_two_sessions_and_a_value_that_never_worked() -> None:
    assert assess([_logs_session("s1")]) == []
    worked = Trace().step("scan", ["ok"], source="vpc-0old", company="Acme").session("s9")
    assert assess([_logs_session("s1"), _logs_session("s2"), worked]) == []


def test_recurring_stays_within_namespace_and_skill() -> None:
    a = _logs_session("s1")
    b = _logs_session("s2", skill_ns={"namespace": "other"})
    c = _logs_session("s3", skill_ns={"skill": "support"})
    assert assess([a, b, c]) == []


def test_recurring_list_arguments_count_item_by_item() -> None:
    def sess(cid: str, flights: list[str]) -> Session:
        return (
            Trace()
            .step("change", "Error: flight HAT030 not available", flights=flights, user="u1")
            .step("change", {"ok": 1}, flights=[f for f in flights if f != "HAT030"], user="u1")
            .session(cid)
        )

    signals = assess([sess("a", ["HAT030", "HAT052"]), sess("b", ["HAT030", "HAT124", "HAT052"])])
    sig = only([x for x in signals if x.pattern == ToolPattern.RECURRING_FAILURE])
    # user never changed in a successful retry, so it is not why the calls failed
    assert sig.failed_args == {"flights": ["HAT030"]} and sig.conversation_ids == ["a", "b"]


def test_the_same_lesson_twice_in_a_session_is_one_signal() -> None:
    t = Trace()
    for _ in range(2):
        t.step("get_rate", "Error: invalid currency code 'US'", currency="US")
        t.step("get_rate", {"rate": 1.1}, currency="USD")
    sig = only(assess([t.session()]))
    assert sig.occurrences == 2 and len(sig.message_indexes) == 8


# ------------------------------------------------------------------------------ not signals


def test_rate_limit_then_identical_retry_is_not_a_signal() -> None:
    s = (
        Trace()
        .step("get_quotes", "Error: 429 Too Many Requests", ticker="ACME")
        .step("get_quotes", {"px": 1}, ticker="ACME")
        .session()
    )
    assert assess([s]) == []


def test_rate_limit_then_changed_retry_is_not_a_signal() -> None:
    s = (
        Trace()
        .step("get_quotes", json.dumps({"error": "rate limit exceeded"}), ticker="ACME", page=1)
        .step("wait", "ok", seconds=5)
        .step("get_quotes", {"px": 1}, ticker="ACME", page=2)
        .session()
    )
    assert assess([s]) == []


def test_transient_then_identical_retry_is_not_a_signal() -> None:
    s = (
        Trace()
        .step("get_logs", "Error: request timed out", source="vpc-main")
        .step("get_logs", "Error: 503 Service Unavailable", source="vpc-main")
        .step("get_logs", ["line"], source="vpc-main")
        .session()
    )
    assert assess([s]) == []


def test_recurring_rate_limits_are_not_signals() -> None:
    sessions = [
        Trace().step("get_quotes", "Error: rate limit", ticker="ACME").session(cid)
        for cid in ("a", "b", "c")
    ]
    assert assess(sessions) == []


def test_empty_results_and_sequential_narrowing_are_not_signals() -> None:
    s = (
        Trace()
        .step("search", "No results found", q="beta widgets 2019 europe")
        .step("search", "[]", q="beta widgets 2019")
        .step("search", [{"id": 1}, {"id": 2}], q="beta widgets")
        .step("search", [{"id": 1}], q="beta widgets", year=2019)
        .session()
    )
    assert assess([s]) == []


def test_an_error_never_followed_by_anything_is_not_a_signal() -> None:
    s = (
        Trace()
        .step("export", "Error: invalid format 'xlsx'", fmt="xlsx")
        .say("assistant", "Sorry.")
        .session()
    )
    assert assess([s]) == []


def test_an_identical_retry_with_nothing_in_between_is_not_a_signal() -> None:
    s = (
        Trace()
        .step("sync", "Error: conflict, must retry", repo="a")
        .step("sync", {"ok": True}, repo="a")
        .session()
    )
    assert assess([s]) == []


def test_a_success_after_the_session_moved_on_is_not_a_retry() -> None:
    t = Trace().step("lookup", "Error: invalid id", id="x1")
    for i in range(MAX_GAP + 1):
        t.step("other_work", {"n": i}, n=i)
    t.step("lookup", {"name": "X"}, id="x2")
    assert assess([t.session()]) == []


def test_a_success_on_unrelated_arguments_is_not_a_retry() -> None:
    s = (
        Trace()
        .step("book", "Error: invalid seat", user="mia", flight="HAT1", seat="99Z")
        .step("book", {"id": "R2"}, user="bob", flight="HAT7", seat="2A")
        .session()
    )
    assert assess([s]) == []


# ------------------------------------------------------------------------------ tool-only input


def test_conversation_text_never_changes_the_findings() -> None:
    def build(user_text: str, assistant_text: str) -> Session:
        return (
            Trace(user_text)
            .step("get_logs", "Error: source deprecated", source="vpc-0old")
            .say("assistant", assistant_text)
            .say("user", user_text)
            .step("get_logs", ["x"], source="vpc-main")
            .session(timestamp="2026-01-01T00:00:00Z")
        )

    quiet = assess([build("hi", "ok")])
    loud = assess([build("Error: always call refresh_token first!", "Error: 401 token expired")])
    assert quiet == loud and len(quiet) == 1


def test_tool_calls_view_pairs_results_with_calls() -> None:
    s = (
        Trace()
        .step("a", "Error: 404 not found", x=1)
        .step("b", "[]")
        .say("user", "thanks")
        .session()
    )
    calls = tool_calls(s)
    assert [(c.name, c.failed, c.ok, c.call_index, c.result_index) for c in calls] == [
        ("a", True, False, 1, 2),
        ("b", False, True, 3, 4),
    ]
    assert calls[1].status is not None and calls[1].status.is_empty


def test_a_timeout_the_agent_gave_up_on_for_another_source_is_a_dead_source() -> None:
    s = (
        Trace()
        .step("get_logs", "Error: request timed out", ticker="ACME", source="vpc-main")
        .step("get_logs", "Error: request timed out", ticker="ACME", source="vpc-main")
        .step("get_logs", ["line"], ticker="ACME", source="vpc-backup")
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.DEAD_SOURCE
    assert (sig.failed_args["source"], sig.success_args["source"]) == ("vpc-main", "vpc-backup")


def test_a_timeout_then_other_arguments_of_the_same_source_is_not_a_signal() -> None:
    s = (
        Trace()
        .step("get_logs", "Error: request timed out", ticker="ACME", source="vpc-main")
        .step("get_logs", ["line"], ticker="ACM", source="vpc-main")
        .session()
    )
    assert assess([s]) == []


def test_a_value_an_earlier_call_returned_and_the_retry_used_is_a_prerequisite() -> None:
    """The agent looked the code up first and still passed the name: the retry took the code
    from that result, so the lesson is the prerequisite's, as when the lookup came after."""
    s = (
        Trace()
        .step("find_port", {"port": {"unlocode": "NLRTM", "name": "Rotterdam"}}, q="Rotterdam")
        .step("book_slot", "Error: port must be a UN/LOCODE", port="Rotterdam", day="Mon")
        .step("book_slot", {"slot": "S-12"}, port="NLRTM", day="Mon")
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.MISSING_PREREQUISITE
    assert (sig.tool, sig.other_tool) == ("book_slot", "find_port")
    assert sig.result_fields == {"port": "unlocode"}


def test_a_value_the_person_gave_after_the_failure_is_not_taken_from_an_earlier_result() -> None:
    """The agent asked and the person read the number again: the fix is theirs, not a lesson
    about where the value comes from, though the earlier result held it too."""
    s = (
        Trace()
        .step("list_lots", {"lots": [{"lot": "24-1178"}, {"lot": "24-1192"}]}, sku="CORN")
        .step("check_lot", "Error: lot 24-1187 not found", lot="24-1187")
        .say("assistant", "No lot 24-1187. Did you mean 24-1178?")
        .say("user", "yes, I flipped the digits")
        .step("check_lot", {"recalls": []}, lot="24-1178")
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.RETRY_CHANGED_ARGS and sig.other_tool is None


def test_a_value_the_person_mistyped_and_then_typed_again_is_no_lesson() -> None:
    """They typed the project that failed and, asked, the one that worked: their slip."""
    s = (
        Trace("list the open tickets for project atlsa")
        .step("list_tickets", "Error: 404 project 'atlsa' not found", project="atlsa")
        .say("assistant", "There's no project 'atlsa'. Did you mean atlas?")
        .say("user", "yes sorry, atlas")
        .step("list_tickets", {"tickets": []}, project="atlas")
        .session()
    )
    assert assess([s]) == []


def test_a_value_the_agent_chose_and_the_person_corrected_is_still_a_lesson() -> None:
    """The failed value was the agent's own ("ATL"), not the person's: the fix teaches."""
    s = (
        Trace("list the open tickets for the atlas project")
        .step("list_tickets", "Error: 404 project 'ATL' not found", project="ATL")
        .say("assistant", "No project ATL. Which key is it?")
        .say("user", "the key is atlas")
        .step("list_tickets", {"tickets": []}, project="atlas")
        .session()
    )
    sig = only(assess([s]))
    assert sig.pattern == ToolPattern.RETRY_CHANGED_ARGS
