"""Generate cs.persistence.rout_10tick: a routing rule given on the first of ten tickets in one
long session must still be applied after nine unrelated tickets (and a second routing rule
about chargebacks must not leak into an unrelated test).

Run: python -m benchmarks.scenario_gen.cs_rout_10tick
"""

from __future__ import annotations

import random
from collections.abc import Callable
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

NAME = "cs_rout_10tick.py"
ACTOR = "soren"

PEOPLE = [
    ("Astrid", "Holm", "astrid.holm@telia.se"),
    ("Bongani", "Dlamini", "bongani.d@webmail.co.za"),
    ("Carys", "Llewellyn", "carys.llew@btinternet.com"),
    ("Dario", "Ferraro", "dario.ferraro@libero.it"),
    ("Elif", "Aydin", "elif.aydin@gmail.com"),
    ("Fintan", "Roche", "fintan.roche@eir.ie"),
    ("Greta", "Vogel", "greta.vogel@gmx.de"),
    ("Hamza", "Qureshi", "hamza.q@outlook.com"),
    ("Ilse", "Janssen", "ilse.janssen@ziggo.nl"),
    ("Jonah", "Whitaker", "jonah.whitaker@icloud.com"),
]


def _tools() -> list[dict[str, Any]]:
    s = {"type": "string"}
    return [
        tool("lookup_customer", "Brightnest customer by email.", {"email": s}, ["email"]),
        tool(
            "get_device",
            "The customer's thermostats with firmware and connectivity.",
            {"customer_id": s},
            ["customer_id"],
        ),
        tool(
            "get_subscription",
            "Brightnest Plus subscription and invoices.",
            {"customer_id": s},
            ["customer_id"],
        ),
        tool("search_kb", "Search help articles.", {"query": s}, ["query"]),
        tool("reset_password", "Send a password-reset email.", {"customer_id": s}, ["customer_id"]),
        tool(
            "refund",
            "Refund a subscription invoice.",
            {"invoice_id": s, "amount": {"type": "number"}, "reason": s},
            ["invoice_id", "amount", "reason"],
        ),
        tool(
            "create_ticket",
            "Open a ticket in a queue (support_general, privacy_ops, disputes, hardware_rma, "
            "product_feedback, billing).",
            {"customer_id": s, "queue": s, "summary": s},
            ["customer_id", "queue", "summary"],
        ),
        tool(
            "send_message",
            "Email the customer.",
            {"customer_id": s, "body": s},
            ["customer_id", "body"],
        ),
    ]


class _Desk:
    """Hands out customers and ids for one session."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.people = list(PEOPLE)
        rng.shuffle(self.people)
        self.n = rng.randint(200, 400)

    def customer(self) -> tuple[str, str, str]:
        first, _last, email = self.people.pop()
        self.n += self.rng.randint(7, 90)
        return first, email, f"BN-{51000 + self.n}"


def _lookup(t: Transcript, first: str, email: str, cid: str, plan: str = "Plus") -> None:
    t.call(
        "lookup_customer",
        {"email": email},
        {
            "customer_id": cid,
            "first_name": first,
            "email": email,
            "plan": plan,
            "country": "EU",
            "devices": 1,
        },
    )


def _privacy(t: Transcript, d: _Desk) -> None:
    first, email, cid = d.customer()
    t.user(
        f"ok first ticket of the day: {email} wants us to delete all the data we hold on her "
        "and close her account. Can you open a ticket and reply?"
    )
    _lookup(t, first, email, cid)
    t.call(
        "create_ticket",
        {
            "customer_id": cid,
            "queue": "support_general",
            "summary": "Customer requests deletion of all personal data and account closure",
        },
        {"ticket_id": "SG-70211", "queue": "support_general", "status": "new"},
    )
    t.assistant(
        "Opened SG-70211 in support_general for the deletion and account-closure request. "
        "Shall I send her the acknowledgement?"
    )
    t.user(
        "Not support_general, that's the wrong queue: data requests (deletion, export, 'what "
        "do you hold on me', anything GDPR) go to privacy_ops. Legal has a 30-day clock on "
        "those and general support can't see it. Move it and then reply."
    )
    t.call(
        "create_ticket",
        {
            "customer_id": cid,
            "queue": "privacy_ops",
            "summary": "GDPR erasure request: delete all personal data and close "
            "account (moved from SG-70211)",
        },
        {"ticket_id": "PRV-1182", "queue": "privacy_ops", "status": "new", "due": "30 days"},
    )
    t.call(
        "send_message",
        {
            "customer_id": cid,
            "body": f"Hi {first}, we've received your request to delete your data "
            "and close your account (ref PRV-1182). Our privacy team will "
            "confirm once it's done, within 30 days at the latest.",
        },
        {"message_id": "M-330120", "status": "sent"},
    )
    t.assistant(
        "Re-filed as PRV-1182 in privacy_ops and acknowledged with the 30-day timeline. "
        "SG-70211 can be closed as a duplicate. Data requests go to privacy_ops from now "
        "on."
    )
    t.user("👍")


def _password(t: Transcript, d: _Desk) -> None:
    first, email, cid = d.customer()
    t.user(f"next, {email} is locked out of the app")
    _lookup(t, first, email, cid, "Free")
    t.call(
        "reset_password",
        {"customer_id": cid},
        {"status": "reset_email_sent", "expires_in_minutes": 60},
    )
    t.call(
        "send_message",
        {
            "customer_id": cid,
            "body": f"Hi {first}, we've sent a password-reset link to this "
            "address; it's valid for an hour. Check spam if it isn't in "
            "your inbox in a few minutes.",
        },
        {"message_id": "M-330144", "status": "sent"},
    )
    t.assistant(f"Sent {first} a reset link (valid 60 minutes) and a heads-up email.")
    t.user("cheers")


def _offline(t: Transcript, d: _Desk) -> None:
    first, email, cid = d.customer()
    t.user(f"{email} says the thermostat shows offline in the app since the weekend")
    _lookup(t, first, email, cid)
    t.call(
        "get_device",
        {"customer_id": cid},
        {
            "devices": [
                {
                    "serial": "BNT3-88A1-20F4",
                    "model": "Brightnest T3",
                    "firmware": "4.2.1",
                    "wifi": {
                        "status": "disconnected",
                        "last_seen": "2026-02-14T22:41:00Z",
                        "band": "5GHz",
                    },
                }
            ]
        },
    )
    t.call(
        "search_kb",
        {"query": "thermostat offline 5GHz wifi"},
        {
            "results": [
                {
                    "id": "KB-NET-07",
                    "title": "T3 keeps going offline",
                    "snippet": "The T3 only supports 2.4 GHz. If your router combines bands "
                    "under one name, split them or enable legacy mode.",
                }
            ]
        },
    )
    t.call(
        "send_message",
        {
            "customer_id": cid,
            "body": f"Hi {first}, your T3 was last connected over 5 GHz, which it "
            "doesn't support reliably. Please connect it to a 2.4 GHz "
            "network (or split your router's bands) and it should come "
            "back online.",
        },
        {"message_id": "M-330177", "status": "sent"},
    )
    t.assistant(f"{first}'s T3 dropped off a 5 GHz network; sent the 2.4 GHz fix from KB-NET-07.")
    t.user("nice")


def _refund(t: Transcript, d: _Desk) -> None:
    first, email, cid = d.customer()
    t.user(f"{email} cancelled Plus last month but got charged again on the 1st")
    _lookup(t, first, email, cid)
    t.call(
        "get_subscription",
        {"customer_id": cid},
        {
            "plan": "Plus",
            "status": "cancelled",
            "cancelled_at": "2026-01-24",
            "invoices": [
                {"invoice_id": "INV-88120", "date": "2026-02-01", "amount": 4.99, "status": "paid"}
            ],
        },
    )
    t.call(
        "refund",
        {"invoice_id": "INV-88120", "amount": 4.99, "reason": "Charged after cancellation"},
        {"refund_id": "RF-12044", "status": "processed"},
    )
    t.call(
        "send_message",
        {
            "customer_id": cid,
            "body": f"Hi {first}, you're right, the February charge shouldn't "
            "have happened after you cancelled. We've refunded the EUR "
            "4.99; it'll reach your card in 5-7 business days.",
        },
        {"message_id": "M-330190", "status": "sent"},
    )
    t.assistant(f"Refunded INV-88120 (EUR 4.99) for {first}; the charge came after cancellation.")
    t.user("good")


def _chargeback(t: Transcript, d: _Desk) -> None:
    first, email, cid = d.customer()
    t.user(
        f"hmm, {email}'s bank says he filed a chargeback for the annual Plus fee. What do we do?"
    )
    _lookup(t, first, email, cid)
    t.call(
        "get_subscription",
        {"customer_id": cid},
        {
            "plan": "Plus (annual)",
            "status": "active",
            "invoices": [
                {
                    "invoice_id": "INV-87311",
                    "date": "2026-01-15",
                    "amount": 49.0,
                    "status": "chargeback_opened",
                }
            ],
        },
    )
    t.call(
        "create_ticket",
        {
            "customer_id": cid,
            "queue": "billing",
            "summary": "Chargeback opened on INV-87311 (EUR 49, annual Plus)",
        },
        {"ticket_id": "BIL-40917", "queue": "billing", "status": "new"},
    )
    t.assistant("Opened BIL-40917 in billing for the chargeback on INV-87311 (EUR 49).")
    t.user(
        "Chargebacks go to the disputes queue, billing just forwards them anyway and we lose "
        "a couple of days of the response window. Can you move it?"
    )
    t.call(
        "create_ticket",
        {
            "customer_id": cid,
            "queue": "disputes",
            "summary": "Chargeback opened on INV-87311 (EUR 49, annual Plus); moved from BIL-40917",
        },
        {
            "ticket_id": "DSP-2208",
            "queue": "disputes",
            "status": "new",
            "response_due": "2026-02-27",
        },
    )
    t.assistant(
        "Moved to disputes as DSP-2208 (response due 27 Feb). Chargebacks will go to disputes."
    )
    t.user("thx")


def _rma(t: Transcript, d: _Desk) -> None:
    first, email, cid = d.customer()
    t.user(f"{email}: display on the thermostat is flickering, it's 8 months old")
    _lookup(t, first, email, cid)
    t.call(
        "get_device",
        {"customer_id": cid},
        {
            "devices": [
                {
                    "serial": "BNT3-71C0-9B22",
                    "model": "Brightnest T3",
                    "firmware": "4.2.1",
                    "purchased": "2025-06-12",
                    "warranty_until": "2027-06-12",
                }
            ]
        },
    )
    t.call(
        "create_ticket",
        {
            "customer_id": cid,
            "queue": "hardware_rma",
            "summary": "T3 display flicker, in warranty (serial BNT3-71C0-9B22)",
        },
        {"ticket_id": "RMA-5530", "queue": "hardware_rma", "status": "new"},
    )
    t.call(
        "send_message",
        {
            "customer_id": cid,
            "body": f"Hi {first}, sorry about the flickering display. Your T3 is "
            "under warranty until 2027, so we're sending a replacement "
            "(ref RMA-5530) with a prepaid return label for the old one.",
        },
        {"message_id": "M-330231", "status": "sent"},
    )
    t.assistant(
        f"In warranty; opened RMA-5530 in hardware_rma and told {first} a replacement is "
        "on the way."
    )
    t.user("👌")


def _feature(t: Transcript, d: _Desk) -> None:
    first, email, cid = d.customer()
    t.user(f"{email} is asking if we'll ever support Home Assistant")
    _lookup(t, first, email, cid, "Free")
    t.call("search_kb", {"query": "Home Assistant integration"}, {"results": []})
    t.call(
        "create_ticket",
        {
            "customer_id": cid,
            "queue": "product_feedback",
            "summary": "Feature request: Home Assistant integration",
        },
        {"ticket_id": "PF-9920", "queue": "product_feedback", "status": "new", "votes": 214},
    )
    t.call(
        "send_message",
        {
            "customer_id": cid,
            "body": f"Hi {first}, there's no Home Assistant integration yet, but "
            "it's one of our most requested features and I've added your "
            "vote. We'll announce it in the app if it ships.",
        },
        {"message_id": "M-330260", "status": "sent"},
    )
    t.assistant(f"No HA integration today; logged {first}'s vote on PF-9920 (214 votes).")
    t.user("ok")


def _schedule(t: Transcript, d: _Desk) -> None:
    first, email, cid = d.customer()
    t.user(f"{email} wants to know how to set a different schedule for weekends")
    t.call(
        "search_kb",
        {"query": "weekend schedule"},
        {
            "results": [
                {
                    "id": "KB-SCH-03",
                    "title": "Weekday and weekend schedules",
                    "snippet": "Schedule > Edit > Copy Monday to, then untick Saturday and "
                    "Sunday and set them separately.",
                }
            ]
        },
    )
    _lookup(t, first, email, cid)
    t.call(
        "send_message",
        {
            "customer_id": cid,
            "body": f"Hi {first}, in the app go to Schedule > Edit, use 'Copy "
            "Monday to' for the weekdays, then untick Saturday and Sunday "
            "and set those two separately.",
        },
        {"message_id": "M-330288", "status": "sent"},
    )
    t.assistant(f"Sent {first} the weekend-schedule steps from KB-SCH-03.")
    t.user("ta")


def _energy(t: Transcript, d: _Desk) -> None:
    first, email, cid = d.customer()
    t.user(
        f"{email} says the monthly energy report says he used 40% more heating than January, "
        "doesn't believe it"
    )
    _lookup(t, first, email, cid)
    t.call(
        "get_device",
        {"customer_id": cid},
        {
            "devices": [
                {
                    "serial": "BNT3-2F19-C7E0",
                    "model": "Brightnest T3",
                    "heating_hours": {"2026-01": 212, "2026-02-partial": 171},
                    "avg_outdoor_temp_c": {"2026-01": 3.1, "2026-02-partial": -1.4},
                    "setpoint_changes": {"2026-02-partial": 38},
                }
            ]
        },
    )
    t.call(
        "send_message",
        {
            "customer_id": cid,
            "body": f"Hi {first}, the report looks right: February has been "
            "about 4.5C colder outside than January so far, and the "
            "setpoint was raised 38 times, so the boiler has run more. "
            "Eco mode at 19C would bring it back down.",
        },
        {"message_id": "M-330215", "status": "sent"},
    )
    t.assistant(
        f"{first}'s usage is genuine: colder weather plus 38 manual setpoint bumps. "
        "Suggested eco mode."
    )
    t.user("fair")


def _shipping(t: Transcript, d: _Desk) -> None:
    first, email, cid = d.customer()
    t.user(f"{email} ordered a second T3 a week ago, no shipping email yet")
    _lookup(t, first, email, cid)
    t.call(
        "get_device",
        {"customer_id": cid},
        {
            "devices": [{"serial": "BNT3-5510-AA90", "model": "Brightnest T3"}],
            "pending_orders": [
                {"order_id": "SO-771203", "status": "awaiting_stock", "eta_ship": "2026-02-24"}
            ],
        },
    )
    t.call(
        "send_message",
        {
            "customer_id": cid,
            "body": f"Hi {first}, your second T3 (order SO-771203) is waiting on "
            "stock and should ship by 24 February; you'll get tracking "
            "as soon as it leaves the warehouse.",
        },
        {"message_id": "M-330301", "status": "sent"},
    )
    t.assistant(f"{first}'s order SO-771203 is awaiting stock, ETA ship 24 Feb; told them.")
    t.user("thanks, that's plenty for today")


def build() -> dict[str, Any]:
    rng = random.Random(1010)
    desk = _Desk(rng)
    middle: list[Callable[[Transcript, _Desk], None]] = [
        _password,
        _offline,
        _refund,
        _rma,
        _feature,
        _schedule,
        _energy,
    ]
    rng.shuffle(middle)
    order = [_privacy, *middle[:4], _chargeback, *middle[4:], _shipping]
    t = Transcript("t")
    for handler in order:
        handler(t, desk)
    seed = [session("cs-r10-s1", ACTOR, "2026-02-18T08:30:00Z", t)]
    cid = "BN-59417"
    steps = [
        step(
            "lookup_customer",
            {"email": "marguerite.lefevre@orange.fr"},
            {
                "customer_id": cid,
                "first_name": "Marguerite",
                "email": "marguerite.lefevre@orange.fr",
                "plan": "Plus",
                "country": "EU",
                "devices": 2,
            },
        ),
        step(
            "create_ticket",
            {
                "customer_id": cid,
                "queue": "privacy_ops",
                "summary": "GDPR access request: copy of all personal data held",
            },
            {"ticket_id": "PRV-1260", "queue": "privacy_ops", "status": "new", "due": "30 days"},
        ),
        step(
            "send_message",
            {
                "customer_id": cid,
                "body": "Hi Marguerite, we've received your request for a copy of "
                "the personal data we hold about you (ref PRV-1260). Our "
                "privacy team will send it within 30 days.",
            },
            {"message_id": "M-331455", "status": "sent"},
        ),
    ]
    expect: list[dict[str, Any]] = [
        {
            "id": "route_privacy_ops",
            "mode": "positive",
            "weight": 3,
            "text": "Files the data-access request in the privacy_ops queue.",
            "by": {"before_call": 2},
            "match": {
                "all": ["privacy.?ops"],
                "any": [
                    "gdpr",
                    r"data (request|export|access|deletion)",
                    "personal data",
                    "delet",
                    "export",
                    "subject access",
                    r"\bdata\b",
                ],
                "none": [r"(don.?t|do not|never|stop|no longer) (\w+ ){0,5}privacy.?ops"],
            },
            "examples": {
                "good": [
                    "Data requests (deletion, export, 'what do you hold on me', anything GDPR) "
                    "go to privacy_ops.",
                    "RULE: GDPR / personal-data requests -> create_ticket(queue=privacy_ops).",
                    "Route data deletion and export requests to the privacy ops queue.",
                ],
                "bad": [
                    "Open tickets in support_general.",
                    "Chargebacks go to the disputes queue.",
                    "Don't send data export requests to privacy_ops.",
                ],
            },
        },
        {
            "id": "not_support_general",
            "mode": "positive",
            "weight": 1,
            "text": "Knows support_general is the wrong queue for data requests.",
            "by": {"before_call": 2},
            "match": {
                "all": ["privacy.?ops", "general"],
                "any": [r"\bnot\b", "instead", "rather than", "wrong", "can.?t"],
            },
            "examples": {
                "good": [
                    "Data requests go to privacy_ops, not support_general.",
                    "GDPR requests: privacy_ops instead of support_general (legal's 30-day clock).",
                ],
                "bad": [
                    "Data requests go to privacy_ops.",
                    "Use support_general for account questions.",
                ],
            },
        },
        {
            "id": "no_chargeback_noise",
            "mode": "negative",
            "weight": 1,
            "text": "Does not inject the unrelated chargeback routing rule.",
            "forbid": {"any": ["chargeback", "disputes"]},
            "examples": {
                "good": [
                    "Data requests go to privacy_ops, not support_general.",
                    "RULE: GDPR / personal-data requests -> create_ticket(queue=privacy_ops).",
                ],
                "bad": [
                    "Chargebacks go to the disputes queue.",
                    "Route disputes to the disputes queue, not billing.",
                ],
            },
        },
        {
            "id": "keeps_data_condition",
            "mode": "negative",
            "weight": 1,
            "text": "Does not route every ticket to privacy_ops.",
            "forbid": {
                "all": ["privacy.?ops"],
                "none": ["gdpr", r"\bdata\b", "personal", "delet", "export", "erasure"],
            },
            "examples": {
                "good": [
                    "Data requests go to privacy_ops, not support_general.",
                    "Route data deletion and export requests to the privacy ops queue.",
                ],
                "bad": [
                    "Open all tickets in privacy_ops.",
                    "Use the privacy_ops queue for new tickets.",
                ],
            },
        },
    ]
    return {
        "id": "cs.persistence.rout_10tick",
        "dimension": "persistence",
        "domain": "customer_support",
        "description": "A routing rule (data requests go to privacy_ops) given on the first of ten "
        "tickets in one long session must be applied after nine unrelated "
        "tickets; a later chargeback routing rule must not leak in.",
        "tools": _tools(),
        "seed": seed,
        "test": {
            "actor": ACTOR,
            "skill": "customer_support",
            "query": "marguerite.lefevre@orange.fr is asking for a copy of all the personal data "
            "we hold about her. Open a ticket and reply to her.",
            "steps": steps,
        },
        "expect": expect,
        "checks": [
            {
                "type": "tool_param_check",
                "tool": "create_ticket",
                "param": "queue",
                "equals": "privacy_ops",
            }
        ],
    }


def main(root: Path = SCENARIO_ROOT) -> Path:
    path = write(build(), "persistence/rout_10tick.yaml", NAME, root)
    print(path)
    return path


if __name__ == "__main__":
    main()
