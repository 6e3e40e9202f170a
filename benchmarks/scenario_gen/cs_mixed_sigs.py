"""Generate cs.persistence.mixed_sigs: one long session mixing a human correction (how to word
refunds), a recurring tool lesson (order ids need the SO- prefix), acceptances, an empty
search, a regenerated reply and a one-off coupon. Both real lessons must persist; the
one-off and the noise must not.

Run: python -m benchmarks.scenario_gen.cs_mixed_sigs
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

NAME = "cs_mixed_sigs.py"
ACTOR = "keanu"
BAD_ID = {"error": "INVALID_ORDER_ID", "message": "order not found; order ids look like SO-1234567"}


def _tools() -> list[dict[str, Any]]:
    s = {"type": "string"}
    return [
        tool("get_order", "Sundial Home order by order id.", {"order_id": s}, ["order_id"]),
        tool("search_kb", "Search help-center articles.", {"query": s}, ["query"]),
        tool(
            "refund",
            "Refund an order line to the original payment method.",
            {"order_id": s, "amount": {"type": "number"}, "reason": s},
            ["order_id", "amount", "reason"],
        ),
        tool(
            "send_message",
            "Email the customer about an order.",
            {"order_id": s, "body": s},
            ["order_id", "body"],
        ),
    ]


def _order(oid: str, name: str, item: str, price: float, **extra: Any) -> dict[str, Any]:
    return {
        "order_id": oid,
        "customer": name,
        "items": [{"name": item, "price": price}],
        "total": price,
        "currency": "USD",
        **extra,
    }


def _session(rng: random.Random) -> Transcript:
    t = Transcript("m")
    nums = rng.sample(range(4400000, 4489999), 6)
    o = [f"SO-{n}" for n in nums]

    # ticket 1: refund; the wording correction arrives next to the next request
    t.user(
        f"hey, long queue today. {o[0]} - the ceramic vase arrived cracked, customer sent a "
        "photo already. refund it and let her know"
    )
    t.call(
        "get_order",
        {"order_id": o[0]},
        _order(
            o[0],
            "Lena Fischer",
            "Ridged Ceramic Vase, sand",
            48.0,
            status="delivered",
            delivered_at="2026-02-12",
        ),
    )
    t.call(
        "refund",
        {"order_id": o[0], "amount": 48.0, "reason": "Arrived cracked"},
        {"refund_id": "RF-60110", "amount": 48.0, "status": "processed"},
    )
    t.call(
        "send_message",
        {
            "order_id": o[0],
            "body": "Hi Lena, sorry your vase arrived cracked! We've refunded "
            "$48.00. No need to send it back.",
        },
        {"message_id": "EM-91002", "status": "sent"},
    )
    t.assistant(f"Refunded $48.00 on {o[0]} (RF-60110) and emailed Lena; no return needed.")
    t.user(
        "ok. when you tell a customer about a refund, always say it goes back to the original "
        "payment method and takes 5-7 business days, otherwise they email again three days "
        "later asking where it is. next one's a number she gave us without the prefix, "
        "4471093, asking about delivery"
    )

    # ticket 2: bare order number fails, prefixed retry succeeds
    t.call("get_order", {"order_id": "4471093"}, BAD_ID, is_error=True)
    t.call(
        "get_order",
        {"order_id": "SO-4471093"},
        _order(
            "SO-4471093",
            "Priya Raman",
            "Linen Duvet Set, king",
            139.0,
            status="in_transit",
            carrier="FedEx",
            estimated_delivery="2026-02-19",
        ),
    )
    t.call(
        "send_message",
        {
            "order_id": "SO-4471093",
            "body": "Hi Priya, your Linen Duvet Set is with FedEx and is "
            "estimated to arrive on 19 February.",
        },
        {"message_id": "EM-91010", "status": "sent"},
    )
    t.assistant(
        "SO-4471093 is with FedEx, estimated 19 Feb; told Priya. Also noted on refunds: "
        "original payment method, 5-7 business days."
    )
    t.user("👍")

    # ticket 3: empty KB search (noise)
    t.user(f"{o[1]}: can the walnut side table go outside on a covered porch?")
    t.call("search_kb", {"query": "walnut side table outdoor use"}, {"results": []})
    t.call(
        "get_order",
        {"order_id": o[1]},
        _order(
            o[1],
            "Tom Becker",
            "Solid Walnut Side Table",
            220.0,
            status="delivered",
            care={"finish": "hardwax oil", "use": "indoor only"},
        ),
    )
    t.call(
        "send_message",
        {
            "order_id": o[1],
            "body": "Hi Tom, the walnut side table has a hardwax-oil finish meant "
            "for indoor use only; humidity on a porch would make the top "
            "swell and the finish peel.",
        },
        {"message_id": "EM-91018", "status": "sent"},
    )
    t.assistant("No KB article, but the product care data says indoor only; answered Tom.")
    t.user("good call")

    # ticket 4: one-off coupon
    t.user(
        f"{o[2]} is late again, third time for this customer. for this one add a 10% coupon, "
        "code SORRY10, she's earned it"
    )
    t.call(
        "get_order",
        {"order_id": o[2]},
        _order(
            o[2],
            "Aoife Kelly",
            "Boucle Armchair, oat",
            389.0,
            status="delayed",
            estimated_delivery="2026-02-24",
            delay_reason="carrier capacity",
        ),
    )
    t.call(
        "send_message",
        {
            "order_id": o[2],
            "body": "Hi Aoife, I'm sorry your armchair is late again; the carrier "
            "now estimates 24 February. As a thank-you for your patience, "
            "here's 10% off your next order with code SORRY10.",
        },
        {"message_id": "EM-91025", "status": "sent"},
    )
    t.assistant("Told Aoife the new estimate (24 Feb) and included SORRY10 for this one.")

    # ticket 5: second bare number, same lesson
    t.user("next: 4452718, customer asks if she can still add a cushion to it")
    t.call("get_order", {"order_id": "4452718"}, BAD_ID, is_error=True)
    t.call(
        "get_order",
        {"order_id": "SO-4452718"},
        _order("SO-4452718", "Maja Nowak", "Rattan Lounge Chair", 249.0, status="packed"),
    )
    t.call(
        "send_message",
        {
            "order_id": "SO-4452718",
            "body": "Hi Maja, your order is already packed, so we can't add to it, "
            "but cushions ship free on their own if you order one now.",
        },
        {"message_id": "EM-91031", "status": "sent"},
    )
    t.assistant("SO-4452718 was already packed; told Maja a cushion can ship separately for free.")

    # ticket 6: partial refund, regenerated reply
    t.user(f"{o[3]} - one of the four wine glasses was broken, partial refund")
    t.call(
        "get_order",
        {"order_id": o[3]},
        _order(o[3], "Sam Okafor", "Hand-blown Wine Glasses (set of 4)", 64.0, status="delivered"),
    )
    t.call(
        "refund",
        {"order_id": o[3], "amount": 16.0, "reason": "1 of 4 glasses broken"},
        {"refund_id": "RF-60131", "amount": 16.0, "status": "processed"},
    )
    t.assistant(
        "Refunded $16.00 (a quarter of the $64.00 set) on " + o[3] + ". Draft for Sam: "
        "'Hi Sam, so sorry one of your glasses broke in transit. We have refunded $16.00 "
        "to your original payment method, and you'll see it in 5-7 business days. "
        "Enjoy the other three!'"
    )
    t.assistant(
        "Refunded $16.00 on " + o[3] + ". Draft: 'Hi Sam, sorry one of the glasses "
        "arrived broken. We've refunded $16.00 to your original payment method; it takes "
        "5-7 business days to show.'",
        regenerated=True,
    )
    t.user("send that")
    t.call(
        "send_message",
        {
            "order_id": o[3],
            "body": "Hi Sam, sorry one of the glasses arrived broken. We've "
            "refunded $16.00 to your original payment method; it takes "
            "5-7 business days to show.",
        },
        {"message_id": "EM-91040", "status": "sent"},
    )
    t.assistant("Sent.")
    t.user("perfect, nice work today")
    return t


def build() -> dict[str, Any]:
    rng = random.Random(777)
    seed = [session("cs-ms-s1", ACTOR, "2026-02-16T10:00:00Z", _session(rng))]
    oid = "SO-4490518"
    steps = [
        step(
            "get_order",
            {"order_id": oid},
            _order(
                oid,
                "Ines Carvalho",
                "Arc Floor Lamp, brass",
                179.0,
                status="delivered",
                delivered_at="2026-03-06",
            ),
        ),
        step(
            "refund",
            {"order_id": oid, "amount": 179.0, "reason": "Arrived with a dented shade"},
            {"refund_id": "RF-61877", "amount": 179.0, "status": "processed"},
        ),
        step(
            "send_message",
            {
                "order_id": oid,
                "body": "Hi Ines, sorry the lamp arrived dented. We've refunded "
                "$179.00 to your original payment method; it takes 5-7 "
                "business days to show.",
            },
            {"message_id": "EM-93302", "status": "sent"},
        ),
    ]
    expect: list[dict[str, Any]] = [
        {
            "id": "order_id_prefix",
            "mode": "positive",
            "weight": 3,
            "text": "Calls get_order with the SO- prefixed id (SO-4490518), not the bare number.",
            "by": "start",
            "match": {
                "all": [r"\bSO-"],
                "any": ["prefix", r"order.?id", "get_order", "order number"],
            },
            "examples": {
                "good": [
                    "get_order needs the SO- prefix: bare order numbers fail with "
                    "INVALID_ORDER_ID.",
                    "RULE: when a customer gives a bare order number, call get_order with "
                    "'SO-' + number.",
                    "Order ids look like SO-1234567; add the prefix.",
                ],
                "bad": [
                    "Look up the order before replying.",
                    "Call get_order with the number the customer gave.",
                ],
            },
        },
        {
            "id": "refund_wording",
            "mode": "positive",
            "weight": 3,
            "text": "Tells the customer the refund goes to the original payment method and takes "
            "5-7 business days.",
            "by": "final",
            "match": {
                "all": ["refund"],
                "any": ["original payment", r"5\s?(-|to|–)\s?7", "business days"],
            },
            "examples": {
                "good": [
                    "When you tell a customer about a refund, always say it goes back to the "
                    "original payment method and takes 5-7 business days.",
                    "RULE: refund messages must state 'original payment method, 5 to 7 "
                    "business days'.",
                ],
                "bad": [
                    "Refund damaged items without asking for a return.",
                    "Tell the customer the order is on its way.",
                ],
            },
        },
        {
            "id": "no_one_off_coupon",
            "mode": "negative",
            "weight": 2,
            "text": "Does not carry over the one-off 10% coupon.",
            "forbid": {"any": ["coupon", "sorry10", r"10 ?%"]},
            "examples": {
                "good": [
                    "When you mention a refund, say original payment method, 5-7 business days.",
                    "get_order needs the SO- prefix.",
                ],
                "bad": [
                    "Add a 10% coupon (SORRY10) when an order is late.",
                    "Offer coupon code SORRY10 to unhappy customers.",
                ],
            },
        },
        {
            "id": "no_empty_search_lesson",
            "mode": "negative",
            "weight": 1,
            "text": "Learns nothing from the single empty KB search.",
            "forbid": {
                "all": [r"search_kb|knowledge base|\bkb\b"],
                "any": ["avoid", "don.?t", "never", "skip", "useless", "unreliable"],
            },
            "examples": {
                "good": [
                    "get_order needs the SO- prefix.",
                    "If the KB has nothing, check the product care data on the order.",
                ],
                "bad": [
                    "Avoid search_kb; it returns nothing.",
                    "Skip the knowledge base for product questions.",
                ],
            },
        },
    ]
    return {
        "id": "cs.persistence.mixed_sigs",
        "dimension": "persistence",
        "domain": "customer_support",
        "description": "A long session mixes a refund-wording correction, a recurring tool "
        "lesson (order ids need the SO- prefix), acceptances, an empty search, a "
        "regenerated reply and a one-off coupon; only the two real lessons may "
        "persist.",
        "tools": _tools(),
        "seed": seed,
        "test": {
            "actor": ACTOR,
            "skill": "customer_support",
            "query": "Customer says her floor lamp (order number 4490518) arrived with a dented "
            "shade. Refund it and let her know.",
            "steps": steps,
        },
        "expect": expect,
        "checks": [
            {"type": "source_not_called", "tool": "get_order", "arguments": {"order_id": "4490518"}}
        ],
    }


def main(root: Path = SCENARIO_ROOT) -> Path:
    path = write(build(), "persistence/mixed_sigs.yaml", NAME, root)
    print(path)
    return path


if __name__ == "__main__":
    main()
