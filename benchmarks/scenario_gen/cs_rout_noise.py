"""Generate cs.persistence.rout_noise: a routing rule dropped casually in the middle of a long,
noisy session (chit-chat, a rate-limited search retried unchanged, an empty search, a
regenerated reply, a one-off nickname request) must survive; none of the noise may.

Run: python -m benchmarks.scenario_gen.cs_rout_noise
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from benchmarks.scenario_gen.cs_common import (
    SCENARIO_ROOT,
    Transcript,
    session,
    step,
    tool,
    write,
)

NAME = "cs_rout_noise.py"
ACTOR = "marisol"
# "RMA" as a word, but not the queue name rma_logistics itself.
_RMA = r"\brmas?\b(?![ _-]?logistics)"


def _tools() -> list[dict[str, Any]]:
    s = {"type": "string"}
    return [
        tool(
            "lookup_customer",
            "Vantage Bikes customer by email or phone.",
            {"email": s, "phone": s},
            [],
        ),
        tool(
            "get_bike",
            "The customer's registered e-bikes with serials, purchase date and "
            "warranty status of frame, motor, battery and display.",
            {"customer_id": s},
            ["customer_id"],
        ),
        tool(
            "check_order", "Order status for parts and accessories.", {"order_id": s}, ["order_id"]
        ),
        tool("search_kb", "Search the Vantage service knowledge base.", {"query": s}, ["query"]),
        tool(
            "create_ticket",
            "Open a ticket in a queue (returns_general, rma_logistics, service_booking, billing).",
            {"customer_id": s, "queue": s, "summary": s},
            ["customer_id", "queue", "summary"],
        ),
        tool(
            "send_message",
            "Email or text the customer.",
            {"customer_id": s, "body": s},
            ["customer_id", "body"],
        ),
    ]


def _session(rng: random.Random) -> Transcript:
    t = Transcript("n")
    ids = iter(rng.sample(range(20000, 29999), 8))

    def cid() -> str:
        return f"VB-{next(ids)}"

    # 1. chit-chat and an easy order check
    c1 = cid()
    t.user(
        "morning!! ugh, the office coffee machine is broken again so bear with me. first up: "
        "noor.haddad@gmail.com asking where her pannier bags are, order VO-55120"
    )
    t.call(
        "check_order",
        {"order_id": "VO-55120"},
        {
            "order_id": "VO-55120",
            "items": [{"name": "Commuter Pannier Pair", "qty": 1}],
            "status": "shipped",
            "carrier": "DHL",
            "tracking": "JD014600006281930214",
            "eta": "2026-02-20",
        },
    )
    t.call(
        "lookup_customer",
        {"email": "noor.haddad@gmail.com"},
        {"customer_id": c1, "name": "Noor Haddad", "bikes": 1},
    )
    t.call(
        "send_message",
        {
            "customer_id": c1,
            "body": "Hi Noor, your Commuter Pannier Pair shipped with DHL "
            "(tracking JD014600006281930214) and should arrive on 20 "
            "February.",
        },
        {"message_id": "SM-81001", "status": "sent"},
    )
    t.assistant("Panniers shipped with DHL, ETA 20 Feb; sent Noor the tracking number.")
    t.user("lovely. honestly might go get a proper coffee at lunch, I'm off at 1 btw")
    t.assistant("Noted. I'll keep going on the queue; just send the next one over when ready.")

    # 2. rate-limited search retried unchanged (noise)
    c2 = cid()
    t.user("+31 6 1234 8870 asks how often the chain needs oiling on the Vantage Metro")
    t.call(
        "search_kb",
        {"query": "Metro chain lubrication interval"},
        {"error": {"code": 429, "message": "rate limit exceeded", "retry_after_s": 1}},
        is_error=True,
    )
    t.call(
        "search_kb",
        {"query": "Metro chain lubrication interval"},
        {
            "results": [
                {
                    "id": "SV-021",
                    "title": "Chain care for Metro and Metro+",
                    "snippet": "Clean and lube every 200-300 km, or after every wet ride. "
                    "Use a wet lube in winter.",
                }
            ]
        },
    )
    t.call(
        "lookup_customer",
        {"phone": "+31 6 1234 8870"},
        {"customer_id": c2, "name": "Joost van Dijk", "bikes": 1},
    )
    t.call(
        "send_message",
        {
            "customer_id": c2,
            "body": "Hi Joost, clean and lube the Metro's chain every 200-300 km, "
            "or after any wet ride; a wet lube works best in winter.",
        },
        {"message_id": "SM-81007", "status": "sent"},
    )
    t.assistant("Answered Joost from SV-021: every 200-300 km or after wet rides.")
    t.user("perfect")

    # 3. the routing rule, buried next to a new request
    c3 = cid()
    t.user(
        "oh and before I forget, hardware RMAs (dead batteries, motor faults, display "
        "failures, that kind of thing) go to the rma_logistics queue now, not returns_general. "
        "changed last week when the warehouse split. anyway: beatrice.oduya@yahoo.com, she "
        "wants to return a helmet that doesn't fit, and call her Bea in the reply, she signs "
        "everything Bea"
    )
    t.call(
        "lookup_customer",
        {"email": "beatrice.oduya@yahoo.com"},
        {
            "customer_id": c3,
            "name": "Beatrice Oduya",
            "bikes": 0,
            "recent_orders": [
                {"order_id": "VO-55311", "item": "Aero Urban Helmet M", "delivered": "2026-02-11"}
            ],
        },
    )
    t.call(
        "create_ticket",
        {
            "customer_id": c3,
            "queue": "returns_general",
            "summary": "Return: Aero Urban Helmet M (fit), order VO-55311",
        },
        {"ticket_id": "RG-40113", "queue": "returns_general", "status": "new"},
    )
    t.call(
        "send_message",
        {
            "customer_id": c3,
            "body": "Hi Bea, no problem: we've opened return RG-40113 for the "
            "Aero Urban Helmet. A prepaid label is on its way by email.",
        },
        {"message_id": "SM-81015", "status": "sent"},
    )
    t.assistant(
        "Helmet return is an accessory, not a hardware RMA, so it went to returns_general "
        "(RG-40113); replied to Bea. And noted: battery, motor and display RMAs go to "
        "rma_logistics."
    )
    t.user("yep exactly, accessories stay in returns_general")

    # 4. empty search (noise)
    c4 = cid()
    t.user("g.moreau@free.fr asks if the Metro+ can take a child seat on the rear rack")
    t.call("search_kb", {"query": "Metro+ rear rack child seat"}, {"results": []})
    t.call(
        "get_bike",
        {"customer_id": c4},
        {
            "bikes": [
                {
                    "model": "Metro+",
                    "serial": "VMP-22-004417",
                    "rear_rack": {
                        "type": "integrated",
                        "max_load_kg": 27,
                        "child_seat_compatible": True,
                    },
                }
            ]
        },
    )
    t.call(
        "lookup_customer",
        {"email": "g.moreau@free.fr"},
        {"customer_id": c4, "name": "Gaspard Moreau", "bikes": 1},
    )
    t.call(
        "send_message",
        {
            "customer_id": c4,
            "body": "Hi Gaspard, yes: the Metro+ rack is rated for 27 kg and is "
            "child-seat compatible; rack-mounted seats up to 22 kg fit "
            "best.",
        },
        {"message_id": "SM-81022", "status": "sent"},
    )
    t.assistant(
        "No KB article, but the bike spec says the Metro+ rack takes 27 kg and is "
        "child-seat compatible; answered Gaspard."
    )
    t.user("nice, didn't know that")

    # 5. regenerated answer (ambiguous signal, no rule)
    c5 = cid()
    t.user("dmitri.sokolov@mail.ru wants to book his first free service")
    t.call(
        "lookup_customer",
        {"email": "dmitri.sokolov@mail.ru"},
        {"customer_id": c5, "name": "Dmitri Sokolov", "bikes": 1},
    )
    t.call(
        "get_bike",
        {"customer_id": c5},
        {
            "bikes": [
                {
                    "model": "Ridge",
                    "serial": "VRG-23-118230",
                    "purchased": "2025-12-02",
                    "free_service_due": "2026-03-02",
                    "odometer_km": 412,
                }
            ]
        },
    )
    t.assistant(
        "Dmitri's Ridge was bought on 2 December and has done 412 km. The first free "
        "service is included within three months of purchase, so it's due by 2 March. "
        "I can open a service_booking ticket so the workshop calls him to pick a slot, or "
        "send him the self-booking link. Which would you prefer?"
    )
    t.assistant(
        "Dmitri's first free service is due by 2 March (Ridge, 412 km). Want me to open "
        "a service_booking ticket or send the self-booking link?",
        regenerated=True,
    )
    t.user("ticket is fine")
    t.call(
        "create_ticket",
        {
            "customer_id": c5,
            "queue": "service_booking",
            "summary": "First free service for Ridge VRG-23-118230, due by 2026-03-02",
        },
        {"ticket_id": "SB-7781", "queue": "service_booking", "status": "new"},
    )
    t.assistant("Opened SB-7781 in service_booking; the workshop will call Dmitri to pick a slot.")

    # 6. another accessory question, more chit-chat
    c6 = cid()
    t.user(
        "ok, did you see the snow forecast?? anyway. h.lindqvist@telia.se says the phone mount "
        "she ordered came with the wrong adapter"
    )
    t.call(
        "lookup_customer",
        {"email": "h.lindqvist@telia.se"},
        {
            "customer_id": c6,
            "name": "Hanna Lindqvist",
            "bikes": 1,
            "recent_orders": [
                {
                    "order_id": "VO-55402",
                    "item": "QuadLock-style phone mount",
                    "delivered": "2026-02-14",
                }
            ],
        },
    )
    t.call(
        "create_ticket",
        {
            "customer_id": c6,
            "queue": "returns_general",
            "summary": "Wrong adapter shipped with phone mount, order VO-55402",
        },
        {"ticket_id": "RG-40131", "queue": "returns_general", "status": "new"},
    )
    t.call(
        "send_message",
        {
            "customer_id": c6,
            "body": "Hi Hanna, sorry about the wrong adapter. We're sending the "
            "correct one today (ref RG-40131); no need to return the "
            "other.",
        },
        {"message_id": "SM-81040", "status": "sent"},
    )
    t.assistant("Accessory issue, so returns_general (RG-40131); the correct adapter ships today.")
    t.user("👍 ok that's lunch, back in an hour")
    return t


def build() -> dict[str, Any]:
    rng = random.Random(4242)
    seed = [session("cs-rn-s1", ACTOR, "2026-02-17T09:15:00Z", _session(rng))]
    cid = "VB-31877"
    steps = [
        step(
            "lookup_customer",
            {"email": "ewan.mackay@btinternet.com"},
            {"customer_id": cid, "name": "Ewan MacKay", "bikes": 1},
        ),
        step(
            "get_bike",
            {"customer_id": cid},
            {
                "bikes": [
                    {
                        "model": "Metro+",
                        "serial": "VMP-23-009821",
                        "purchased": "2025-04-19",
                        "battery": {"model": "VB-500Wh", "cycles": 212, "health": "fault_code_E31"},
                        "warranty": {"battery_until": "2027-04-19"},
                    }
                ]
            },
        ),
        step(
            "create_ticket",
            {
                "customer_id": cid,
                "queue": "rma_logistics",
                "summary": "Battery RMA: VB-500Wh fault E31, no longer charges "
                "(Metro+ VMP-23-009821, in warranty)",
            },
            {"ticket_id": "RMA-3390", "queue": "rma_logistics", "status": "new"},
        ),
        step(
            "send_message",
            {
                "customer_id": cid,
                "body": "Hi Ewan, your battery is showing a fault and is under "
                "warranty until 2027, so we're replacing it (ref "
                "RMA-3390). You'll get a collection slot by email.",
            },
            {"message_id": "SM-82207", "status": "sent"},
        ),
    ]
    expect: list[dict[str, Any]] = [
        {
            "id": "route_rma_logistics",
            "mode": "positive",
            "weight": 3,
            "text": "Files the battery RMA in the rma_logistics queue.",
            "by": {"before_call": 3},
            "match": {
                "all": ["rma.?logistics"],
                "any": [_RMA, "hardware", "batter", "motor", "display"],
                "none": [r"(don.?t|do not|never|stop|no longer) (\w+ ){0,5}rma.?logistics"],
            },
            "examples": {
                "good": [
                    "Hardware RMAs (dead batteries, motor faults, display failures) go to the "
                    "rma_logistics queue, not returns_general.",
                    "RULE: battery/motor/display RMA -> create_ticket(queue=rma_logistics).",
                    "Route hardware returns under warranty to rma logistics.",
                ],
                "bad": [
                    "Open returns in returns_general.",
                    "Use rma_logistics for all returns.",
                    "Don't send battery RMAs to rma_logistics.",
                ],
            },
        },
        {
            "id": "not_returns_general",
            "mode": "positive",
            "weight": 2,
            "text": "Knows returns_general is no longer the queue for hardware RMAs.",
            "by": {"before_call": 3},
            "match": {
                "all": ["rma.?logistics", r"returns.?general"],
                "any": [r"\bnot\b", "instead", "rather", "no longer", "chang"],
            },
            "examples": {
                "good": [
                    "Hardware RMAs go to the rma_logistics queue now, not returns_general.",
                    "Battery and motor RMAs: rma_logistics instead of returns_general; "
                    "accessories stay in returns_general.",
                ],
                "bad": [
                    "Hardware RMAs go to rma_logistics.",
                    "Accessory returns go to returns_general.",
                ],
            },
        },
        {
            "id": "keeps_hardware_condition",
            "mode": "negative",
            "weight": 1,
            "text": "Does not route accessory returns (or all returns) to rma_logistics.",
            "forbid": {
                "all": ["rma.?logistics"],
                "none": [_RMA, "hardware", "batter", "motor", "display"],
            },
            "examples": {
                "good": [
                    "Hardware RMAs go to the rma_logistics queue, not returns_general.",
                    "RULE: battery/motor/display RMA -> create_ticket(queue=rma_logistics).",
                ],
                "bad": [
                    "Use rma_logistics for all returns.",
                    "Send helmet and accessory returns to rma_logistics.",
                ],
            },
        },
        {
            "id": "no_nickname_one_off",
            "mode": "negative",
            "weight": 1,
            "text": "Does not carry over the one-off request to call one customer Bea.",
            "forbid": {"any": [r"\bbea\b", "nickname"]},
            "examples": {
                "good": [
                    "Hardware RMAs go to the rma_logistics queue, not returns_general.",
                    "Greet customers by first name.",
                ],
                "bad": ["Call the customer Bea in replies.", "Use the customer's nickname."],
            },
        },
        {
            "id": "no_noise_rules",
            "mode": "negative",
            "weight": 1,
            "text": "Injects nothing learned from chit-chat or from the rate-limited KB search.",
            "forbid": {
                "any": [
                    "lunch",
                    "coffee",
                    "snow",
                    r"search_kb.{0,40}(avoid|unreliable|"
                    r"don.?t|never|skip)",
                    r"(avoid|don.?t use|never use|skip)\w*.{0,20}search_kb",
                ]
            },
            "examples": {
                "good": [
                    "Hardware RMAs go to the rma_logistics queue, not returns_general.",
                    "If search_kb has no article, check the bike's spec with get_bike.",
                ],
                "bad": ["The rep takes lunch at 1pm.", "Avoid search_kb; it is rate limited."],
            },
        },
    ]
    return {
        "id": "cs.persistence.rout_noise",
        "dimension": "persistence",
        "domain": "customer_support",
        "description": "A routing rule (hardware RMAs go to rma_logistics) dropped casually in "
        "the middle of a long, noisy session must be applied later; chit-chat, a "
        "rate-limited retry, an empty search, a regenerated reply and a one-off "
        "must teach nothing.",
        "tools": _tools(),
        "seed": seed,
        "test": {
            "actor": ACTOR,
            "skill": "customer_support",
            "query": "ewan.mackay@btinternet.com says his e-bike battery stopped charging "
            "completely, the display shows E31. Get a replacement going and let him "
            "know.",
            "steps": steps,
        },
        "expect": expect,
        "checks": [
            {
                "type": "tool_param_check",
                "tool": "create_ticket",
                "param": "queue",
                "equals": "rma_logistics",
            }
        ],
    }


def main(root: Path = SCENARIO_ROOT) -> Path:
    path = write(build(), "persistence/rout_noise.yaml", NAME, root)
    print(path)
    return path


if __name__ == "__main__":
    main()
