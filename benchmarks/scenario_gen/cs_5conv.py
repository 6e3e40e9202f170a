"""Generate cs.persistence.5conv: two corrections made in the 1st and 3rd of five conversations
must both survive the later conversations and reach the test.

Run: python -m benchmarks.scenario_gen.cs_5conv
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

NAME = "cs_5conv.py"
ACTOR = "adaeze"
SURVEY = "How did we do? kelpie.co/rate"

FIRST = ["Hannah", "Oisin", "Priya", "Mateus", "Leonie", "Kwabena", "Saoirse", "Tobias", "Yuki"]
LAST = ["Gallagher", "Novak", "Iyer", "Carvalho", "Brandt", "Mensah", "Doyle", "Lindqvist", "Mori"]


def _tools() -> list[dict[str, Any]]:
    s = {"type": "string"}
    n = {"type": "number"}
    return [
        tool(
            "get_ticket",
            "Support ticket with the customer's message and linked order.",
            {"ticket_id": s},
            ["ticket_id"],
        ),
        tool(
            "get_order",
            "Order with items, totals, delivery and return status.",
            {"order_id": s},
            ["order_id"],
        ),
        tool(
            "search_kb",
            "Search Kelpie Outdoor help articles and policies.",
            {"query": s},
            ["query"],
        ),
        tool(
            "request_approval",
            "Ask a shift manager to approve a refund.",
            {"ticket_id": s, "amount": n, "reason": s},
            ["ticket_id", "amount", "reason"],
        ),
        tool(
            "refund",
            "Refund an order to the original payment method.",
            {"order_id": s, "amount": n, "reason": s},
            ["order_id", "amount", "reason"],
        ),
        tool(
            "send_message",
            "Email the customer on a ticket.",
            {"ticket_id": s, "subject": s, "body": s},
            ["ticket_id", "subject", "body"],
        ),
    ]


class _Ids:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tickets = iter(sorted(rng.sample(range(40100, 41700), 14)))
        self.orders = iter(rng.sample(range(310000, 389999), 14))
        self.names = rng.sample([f"{first} {last}" for first in FIRST for last in LAST], 14)

    def ticket(self) -> str:
        return f"CS-{next(self.tickets)}"

    def order(self) -> str:
        return f"KO-{next(self.orders)}"

    def name(self) -> str:
        return self.names.pop()


def _ticket(t: Transcript, tid: str, name: str, oid: str, subject: str, msg: str) -> None:
    domain = ["gmail.com", "outlook.com", "proton.me"][len(name) % 3]
    email = name.lower().replace(" ", ".") + "@" + domain
    t.call(
        "get_ticket",
        {"ticket_id": tid},
        {
            "ticket_id": tid,
            "customer": {"name": name, "email": email},
            "subject": subject,
            "order_id": oid,
            "message": msg,
            "status": "open",
        },
    )


def _conv1(ids: _Ids) -> Transcript:
    t = Transcript("c1")
    tid, oid, name = ids.ticket(), ids.order(), ids.name()
    first = name.split()[0]
    t.user(f"Morning! Let's start on the queue. {tid} first, looks like a sizing exchange.")
    _ticket(
        t,
        tid,
        name,
        oid,
        "Exchange for a smaller size?",
        "Hi, the Corrie insulated jacket I got is too big (L). Can I swap it for an M?",
    )
    t.call(
        "search_kb",
        {"query": "exchange for a different size"},
        {
            "results": [
                {
                    "id": "KB-EX-02",
                    "title": "Exchanging for a different size",
                    "snippet": "Free size exchanges within 45 days. Start at kelpie.co/returns, "
                    "choose Exchange, and we ship the new size once the original "
                    "is scanned by the carrier.",
                }
            ]
        },
    )
    body = (
        f"Hi {first}, no problem at all. Size exchanges are free within 45 days: start at "
        "kelpie.co/returns, choose Exchange and pick size M. We'll ship the M as soon as the "
        f"carrier scans your parcel. {SURVEY}"
    )
    t.call(
        "send_message",
        {"ticket_id": tid, "subject": "Your exchange", "body": body},
        {"message_id": "EM-700121", "status": "sent"},
    )
    t.assistant(
        f"Replied on {tid}: free exchange within 45 days via kelpie.co/returns; the M "
        "ships once the carrier scans the L."
    )
    t.user(
        "Small thing: subject lines on customer emails should start with the ticket number in "
        f"square brackets, like '[{tid}] Your exchange'. Otherwise when they reply it lands "
        "outside the ticket and someone has to merge it by hand. Can you resend with that?"
    )
    t.call(
        "send_message",
        {"ticket_id": tid, "subject": f"[{tid}] Your exchange", "body": body},
        {"message_id": "EM-700127", "status": "sent"},
    )
    t.assistant(
        f"Resent with the subject '[{tid}] Your exchange'. I'll start every customer "
        "email subject with the bracketed ticket number from now on."
    )
    tid2, oid2, name2 = ids.ticket(), ids.order(), ids.name()
    t.user(f"great. {tid2} next")
    _ticket(
        t,
        tid2,
        name2,
        oid2,
        "Where is my order?",
        "It's been a week, tracking hasn't moved since Tuesday.",
    )
    t.call(
        "get_order",
        {"order_id": oid2},
        {
            "order_id": oid2,
            "items": [{"name": "Tarn 45L Rucksack", "price": 129.0}],
            "total": 129.0,
            "currency": "USD",
            "status": "in_transit",
            "carrier": "UPS",
            "last_scan": {"at": "2026-01-27T18:02:00Z", "where": "Louisville, KY hub"},
            "estimated_delivery": "2026-02-04",
        },
    )
    t.call(
        "send_message",
        {
            "ticket_id": tid2,
            "subject": f"[{tid2}] Your Tarn 45L Rucksack",
            "body": f"Hi {name2.split()[0]}, your rucksack is with UPS; its last scan was at the "
            "Louisville hub and UPS now estimates delivery on 4 February. Hub delays like "
            f"this usually clear within a day or two. {SURVEY}",
        },
        {"message_id": "EM-700133", "status": "sent"},
    )
    t.assistant(
        f"{tid2}: the rucksack is stuck at the UPS Louisville hub; UPS estimates 4 Feb. "
        "Replied with the bracketed ticket number in the subject."
    )
    t.user("👍 that's it for me today")
    return t


def _conv2(ids: _Ids, rng: random.Random) -> Transcript:
    t = Transcript("c2")
    tid, oid, name = ids.ticket(), ids.order(), ids.name()
    amount = float(rng.choice([34, 38, 42]))
    t.user(f"{tid}: zip broke on first use, she just wants her money back for the fleece.")
    _ticket(
        t,
        tid,
        name,
        oid,
        "Broken zip",
        "The zip on my Skerry fleece came off the track the first time I wore it.",
    )
    t.call(
        "get_order",
        {"order_id": oid},
        {
            "order_id": oid,
            "items": [{"name": "Skerry Half-Zip Fleece", "price": amount}],
            "total": amount,
            "currency": "USD",
            "status": "delivered",
            "delivered_at": "2026-01-30",
        },
    )
    t.call(
        "refund",
        {"order_id": oid, "amount": amount, "reason": "Defective zip"},
        {"refund_id": "RF-51008", "amount": amount, "status": "processed"},
    )
    t.call(
        "send_message",
        {
            "ticket_id": tid,
            "subject": f"[{tid}] Refund for your Skerry fleece",
            "body": f"Hi {name.split()[0]}, sorry about the zip. We've refunded ${amount:.2f} to "
            "your original payment method; it should show in 5-7 business days and you "
            f"don't need to send the fleece back. {SURVEY}",
        },
        {"message_id": "EM-701410", "status": "sent"},
    )
    t.assistant(f"Refunded ${amount:.2f} (RF-51008) on {tid} and told her no return is needed.")
    t.user("great")
    tid2, oid2, name2 = ids.ticket(), ids.order(), ids.name()
    t.user(f"{tid2} is a product question, can you answer it")
    _ticket(
        t,
        tid2,
        name2,
        oid2,
        "Waterproof enough for Scotland?",
        "Is the Fionn shell actually waterproof or just water resistant? Hiking Skye in May.",
    )
    t.call(
        "search_kb",
        {"query": "Fionn shell waterproof rating"},
        {
            "results": [
                {
                    "id": "KB-PR-118",
                    "title": "Fionn 3L Shell specs",
                    "snippet": "3-layer membrane, 20,000 mm hydrostatic head, 15,000 g/m2 "
                    "breathability, fully taped seams.",
                }
            ]
        },
    )
    t.call(
        "send_message",
        {
            "ticket_id": tid2,
            "subject": f"[{tid2}] Fionn shell waterproofing",
            "body": f"Hi {name2.split()[0]}, the Fionn is fully waterproof: a 3-layer membrane "
            "rated 20,000 mm with taped seams, so it's built for exactly that kind of "
            f"weather. {SURVEY}",
        },
        {"message_id": "EM-701418", "status": "sent"},
    )
    t.assistant(f"Answered {tid2}: Fionn is fully waterproof (20,000 mm, taped seams).")
    t.user("nice one, thanks")
    return t


def _conv3(ids: _Ids) -> Transcript:
    t = Transcript("c3")
    tid, oid, name = ids.ticket(), ids.order(), ids.name()
    first = name.split()[0]
    t.user(f"Busy one today. {tid} - returned jacket, wants a refund.")
    _ticket(
        t,
        tid,
        name,
        oid,
        "Refund please",
        "Sent the Ben Nevis down jacket back last week, it was the wrong colour. Refund please.",
    )
    t.call(
        "get_order",
        {"order_id": oid},
        {
            "order_id": oid,
            "items": [{"name": "Ben Nevis Down Jacket", "price": 260.0}],
            "total": 260.0,
            "currency": "USD",
            "status": "returned",
            "return": {"received_at": "2026-02-05", "condition": "unworn, tags on"},
        },
    )
    t.assistant(
        "The jacket came back unworn with tags on, so it qualifies. I'll refund the full "
        "$260.00 to the original payment method now, then email her."
    )
    t.user(
        "Whoa, hang on. Anything over $200 needs a shift manager's approval first: call "
        "request_approval before you refund. Under 200 you can just go ahead like you have "
        "been."
    )
    t.call(
        "request_approval",
        {"ticket_id": tid, "amount": 260.0, "reason": "Return received unworn, wrong colour"},
        {"approval_id": "AP-3307", "status": "approved", "approver": "shift-manager-1"},
    )
    t.call(
        "refund",
        {"order_id": oid, "amount": 260.0, "reason": "Return, wrong colour"},
        {"refund_id": "RF-51230", "amount": 260.0, "status": "processed"},
    )
    t.call(
        "send_message",
        {
            "ticket_id": tid,
            "subject": f"[{tid}] Your refund",
            "body": f"Hi {first}, we've received the Ben Nevis jacket and refunded $260.00 to your "
            f"original payment method. It should appear within 5-7 business days. {SURVEY}",
        },
        {"message_id": "EM-702055", "status": "sent"},
    )
    t.assistant(
        f"Approval AP-3307 came through, refunded $260.00 (RF-51230) and emailed {first}. "
        "Refunds over $200 will go through request_approval first from now on."
    )
    tid2, oid2, name2 = ids.ticket(), ids.order(), ids.name()
    t.user(f"thanks. {tid2} is a small one")
    _ticket(
        t, tid2, name2, oid2, "Missing item", "My order came without the merino beanie I paid for."
    )
    t.call(
        "get_order",
        {"order_id": oid2},
        {
            "order_id": oid2,
            "items": [
                {"name": "Merino Beanie", "price": 28.0, "shipped": False},
                {"name": "Trail Socks 3-pack", "price": 24.0, "shipped": True},
            ],
            "total": 52.0,
            "currency": "USD",
            "status": "partially_shipped",
        },
    )
    t.call(
        "refund",
        {"order_id": oid2, "amount": 28.0, "reason": "Beanie not shipped"},
        {"refund_id": "RF-51236", "amount": 28.0, "status": "processed"},
    )
    t.call(
        "send_message",
        {
            "ticket_id": tid2,
            "subject": f"[{tid2}] Your missing beanie",
            "body": f"Hi {name2.split()[0]}, the beanie didn't make it into your parcel, sorry. "
            f"We've refunded the $28.00 for it. {SURVEY}",
        },
        {"message_id": "EM-702061", "status": "sent"},
    )
    t.assistant(
        f"{tid2}: the beanie never shipped; refunded $28.00 directly since it's under $200."
    )
    t.user("perfect")
    return t


def _conv4(ids: _Ids) -> Transcript:
    t = Transcript("c4")
    tid, oid, name = ids.ticket(), ids.order(), ids.name()
    first = name.split()[0]
    t.user(f"{tid} is a bit of a fire. Late order for a trip, she's already emailed three times.")
    _ticket(
        t,
        tid,
        name,
        oid,
        "THIRD TIME ASKING",
        "My boots were meant to arrive before my trip on Saturday. Where are they?!",
    )
    t.call(
        "get_order",
        {"order_id": oid},
        {
            "order_id": oid,
            "items": [{"name": "Cairn GTX Hiking Boot", "price": 189.0}],
            "total": 189.0,
            "currency": "USD",
            "status": "in_transit",
            "carrier": "FedEx",
            "estimated_delivery": "2026-02-10",
            "service": "Ground",
        },
    )
    t.user(
        "For this one leave the satisfaction survey link off the email, she's furious "
        "enough already. Offer to upgrade the shipping for free."
    )
    t.call(
        "send_message",
        {
            "ticket_id": tid,
            "subject": f"[{tid}] Your Cairn boots",
            "body": f"Hi {first}, I'm sorry for the wait and for the back-and-forth. "
            "Your boots are with FedEx and due on Tuesday 10 February, before your trip. "
            "If anything slips, reply here and we'll send a replacement pair overnight at no cost.",
        },
        {"message_id": "EM-703118", "status": "sent"},
    )
    t.assistant(
        "Sent without the survey link: the boots are due Tuesday 10 Feb, and I offered a "
        "free overnight replacement if FedEx slips."
    )
    tid2, oid2, name2 = ids.ticket(), ids.order(), ids.name()
    t.user(f"ok. {tid2}?")
    _ticket(
        t,
        tid2,
        name2,
        oid2,
        "Change delivery address",
        "Can you send my order to my office instead? 400 Pine St, Seattle WA 98101.",
    )
    t.call(
        "get_order",
        {"order_id": oid2},
        {
            "order_id": oid2,
            "items": [{"name": "Loch Packable Vest", "price": 89.0}],
            "total": 89.0,
            "currency": "USD",
            "status": "dispatched",
            "carrier": "USPS",
        },
    )
    t.call(
        "send_message",
        {
            "ticket_id": tid2,
            "subject": f"[{tid2}] Delivery address",
            "body": f"Hi {name2.split()[0]}, your vest has already been dispatched with USPS, "
            "so we can't change the address on our side. You can redirect it for free with USPS "
            f"Package Intercept using the tracking number in your dispatch email. {SURVEY}",
        },
        {"message_id": "EM-703124", "status": "sent"},
    )
    t.assistant(f"{tid2}: already dispatched, so I pointed them to USPS Package Intercept.")
    t.user("cool")
    return t


def _conv5(ids: _Ids, rng: random.Random) -> Transcript:
    t = Transcript("c5")
    tid, oid, name = ids.ticket(), ids.order(), ids.name()
    amount = float(rng.choice([115, 120, 135]))
    t.user(f"Quiet Thursday. {tid}: tent footprint was the wrong model, they returned it.")
    _ticket(
        t,
        tid,
        name,
        oid,
        "Returned wrong footprint",
        "Ordered the footprint for the Corrie 2 but got the Corrie 3 one. Sent it back.",
    )
    t.call(
        "get_order",
        {"order_id": oid},
        {
            "order_id": oid,
            "items": [{"name": "Corrie 3 Footprint", "price": amount}],
            "total": amount,
            "currency": "USD",
            "status": "returned",
            "return": {"received_at": "2026-02-11", "condition": "unused"},
        },
    )
    t.call(
        "refund",
        {"order_id": oid, "amount": amount, "reason": "Wrong model shipped"},
        {"refund_id": "RF-51802", "amount": amount, "status": "processed"},
    )
    t.call(
        "send_message",
        {
            "ticket_id": tid,
            "subject": f"[{tid}] Your refund",
            "body": f"Hi {name.split()[0]}, sorry we sent the wrong footprint. We've refunded "
            f"${amount:.2f}; you'll see it in 5-7 business days. {SURVEY}",
        },
        {"message_id": "EM-704007", "status": "sent"},
    )
    t.assistant(f"Refunded ${amount:.2f} on {tid} (under $200, no approval needed).")
    tid2, oid2, name2 = ids.ticket(), ids.order(), ids.name()
    t.user(f"ta. last one, {tid2}")
    _ticket(
        t,
        tid2,
        name2,
        oid2,
        "Washing instructions",
        "How do I wash the down jacket without ruining it?",
    )
    t.call(
        "search_kb",
        {"query": "wash down jacket"},
        {
            "results": [
                {
                    "id": "KB-CARE-04",
                    "title": "Caring for down",
                    "snippet": "Front-loader, 30C, down-specific wash, extra rinse; tumble dry "
                    "low with two clean tennis balls until fully dry.",
                }
            ]
        },
    )
    t.call(
        "send_message",
        {
            "ticket_id": tid2,
            "subject": f"[{tid2}] Washing your down jacket",
            "body": f"Hi {name2.split()[0]}, wash it in a front-loader at 30C with a down-specific "
            "wash and an extra rinse, then tumble dry on low with two clean tennis balls "
            f"until it's completely dry (it takes a while). {SURVEY}",
        },
        {"message_id": "EM-704015", "status": "sent"},
    )
    t.assistant(f"Answered {tid2} with the down-care steps from KB-CARE-04.")
    t.user("lovely, that's the queue cleared")
    return t


def build() -> dict[str, Any]:
    rng = random.Random(5005)
    ids = _Ids(rng)
    seed = [
        session("cs-5c-conv1", ACTOR, "2026-02-02T09:05:00Z", _conv1(ids)),
        session("cs-5c-conv2", ACTOR, "2026-02-04T10:20:00Z", _conv2(ids, rng)),
        session("cs-5c-conv3", ACTOR, "2026-02-06T13:45:00Z", _conv3(ids)),
        session("cs-5c-conv4", ACTOR, "2026-02-09T16:10:00Z", _conv4(ids)),
        session("cs-5c-conv5", ACTOR, "2026-02-12T11:30:00Z", _conv5(ids, rng)),
    ]
    tid, oid = "CS-41877", "KO-402915"
    steps = [
        step(
            "get_ticket",
            {"ticket_id": tid},
            {
                "ticket_id": tid,
                "customer": {"name": "Ruairi Quinlan", "email": "ruairi.quinlan@eircom.net"},
                "subject": "Bent pole",
                "order_id": oid,
                "status": "open",
                "message": "The Corrie 4 tent arrived with a bent main pole. I've sent it back, "
                "please refund me.",
            },
        ),
        step(
            "get_order",
            {"order_id": oid},
            {
                "order_id": oid,
                "items": [{"name": "Corrie 4 Tunnel Tent", "price": 340.0}],
                "total": 340.0,
                "currency": "USD",
                "status": "returned",
                "return": {"received_at": "2026-02-15", "condition": "pole damaged in transit"},
            },
        ),
        step(
            "request_approval",
            {
                "ticket_id": tid,
                "amount": 340.0,
                "reason": "Tent returned with pole damaged in transit",
            },
            {"approval_id": "AP-3491", "status": "approved", "approver": "shift-manager-2"},
        ),
        step(
            "refund",
            {"order_id": oid, "amount": 340.0, "reason": "Damaged in transit"},
            {"refund_id": "RF-52210", "amount": 340.0, "status": "processed"},
        ),
        step(
            "send_message",
            {
                "ticket_id": tid,
                "subject": f"[{tid}] Your refund",
                "body": "Hi Ruairi, sorry the tent arrived damaged. We've refunded $340.00 to your "
                f"original payment method; it should appear in 5-7 business days. {SURVEY}",
            },
            {"message_id": "EM-705230", "status": "sent"},
        ),
    ]
    expect: list[dict[str, Any]] = [
        {
            "id": "subject_ticket_number",
            "mode": "positive",
            "weight": 3,
            "text": "Starts the customer email subject with the bracketed ticket number "
            "([CS-41877] ...).",
            "by": "start",
            "match": {
                "all": ["subject"],
                "any": [r"ticket[ _-]?(number|id|#|no\b)", r"\[", r"\bCS-\d"],
                "none": [r"(don.?t|do not|never) (put|include|add|start)"],
            },
            "examples": {
                "good": [
                    "Start every customer email subject with the ticket number in square "
                    "brackets, e.g. '[CS-40211] Your exchange'.",
                    "RULE: send_message subject = '[<ticket id>] <topic>'.",
                    "Subject lines on customer emails should start with the ticket number.",
                ],
                "bad": [
                    "Keep email subjects short.",
                    "Don't put ticket numbers in the subject line.",
                ],
            },
        },
        {
            "id": "approval_over_200",
            "mode": "positive",
            "weight": 3,
            "text": "Gets manager approval (request_approval) before refunding more than $200.",
            "by": {"before_call": 3},
            "match": {"all": ["approv", r"\b200\b"]},
            "examples": {
                "good": [
                    "Refunds over $200 need a shift manager's approval: call request_approval "
                    "before refund.",
                    "RULE: amount > 200 -> request_approval first; under 200 refund directly.",
                ],
                "bad": [
                    "Refund returned items to the original payment method.",
                    "Get approval before every refund.",
                ],
            },
        },
        {
            "id": "keeps_threshold",
            "mode": "negative",
            "weight": 1,
            "text": "Does not drop the $200 threshold (approval for every refund).",
            "forbid": {
                "all": ["approv"],
                "none": [r"\b200\b", "over", "above", "more than", "threshold"],
            },
            "examples": {
                "good": [
                    "Refunds over $200 need approval first.",
                    "RULE: amount > 200 -> request_approval first.",
                ],
                "bad": [
                    "Get approval before every refund.",
                    "Always call request_approval before refunding.",
                ],
            },
        },
        {
            "id": "no_one_off_survey",
            "mode": "negative",
            "weight": 1,
            "text": "Does not carry over the one-off instruction to leave the survey link off.",
            "forbid": {"any": ["survey"]},
            "examples": {
                "good": [
                    "Start every customer email subject with the ticket number in brackets.",
                    "Refunds over $200 need approval first.",
                ],
                "bad": [
                    "Leave the satisfaction survey link off emails to upset customers.",
                    "Don't include the survey link.",
                ],
            },
        },
    ]
    return {
        "id": "cs.persistence.5conv",
        "dimension": "persistence",
        "domain": "customer_support",
        "description": "Two corrections from the 1st and 3rd of five conversations (bracketed "
        "ticket number in email subjects; approval for refunds over $200) must "
        "both persist to the test; a one-off from the 4th must not.",
        "tools": _tools(),
        "seed": seed,
        "test": {
            "actor": ACTOR,
            "skill": "customer_support",
            "query": f"{tid}: customer sent back a tent that arrived with a bent pole and wants a "
            "refund. Please handle it and email him.",
            "steps": steps,
        },
        "expect": expect,
        "checks": [{"type": "output_contains", "text": tid}],
    }


def main(root: Path = SCENARIO_ROOT) -> Path:
    path = write(build(), "persistence/5conv.yaml", NAME, root)
    print(path)
    return path


if __name__ == "__main__":
    main()
