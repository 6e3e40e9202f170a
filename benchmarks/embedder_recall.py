"""Compare the offline embedders: speed, and recall@3 of rules for paraphrased queries.

Each of 30 short rule directives has two queries: a direct paraphrase of the rule, and a
task request (the situation in which the rule applies, as a user would phrase it, mostly in
other words). A query "hits" when its own rule is among the k rules most cosine-similar
to it. Rules are embedded with `embed` and queries with `embed_query`, as dctx does (for
MiniLM: its quantized copy; the "exact" row embeds queries with the exact model too). Each
embedder is also scored with the rule vectors held as float16, as retrieval snapshots hold
them. Run: python benchmarks/embedder_recall.py
"""

from __future__ import annotations

import time

import numpy as np

from dctx.providers.base import Embedder, embed_query, forget_texts
from dctx.providers.embedders import get_embedder
from dctx.providers.minilm import MiniLMEmbedder

PAIRS: list[tuple[str, str]] = [
    (
        "Confirm the order id with the user before cancelling an order.",
        "The customer wants to call off a purchase they made yesterday.",
    ),
    (
        "Report revenue figures in millions of US dollars, one decimal place.",
        "Summarize Beta Inc's sales growth for the last fiscal year.",
    ),
    (
        "Never retry a declined card payment more than once.",
        "The credit card charge just failed; should I attempt it again?",
    ),
    (
        "Use the user's saved gift card before charging a credit card.",
        "Which payment method should cover this new booking?",
    ),
    (
        "Do not book flights with more than one layover.",
        "Find an itinerary from Boston to Tokyo with few connecting stops.",
    ),
    (
        "Ask for the zip code before looking up a user by name.",
        "Identify the account of the person who just messaged support.",
    ),
    (
        "Write dates in ISO 8601 format (YYYY-MM-DD).",
        "When should the meeting be scheduled? Give me the day.",
    ),
    (
        "Run the test suite before opening a pull request.",
        "I finished the feature; submit the change for code review.",
    ),
    (
        "Never push directly to the main branch.",
        "Commit this fix and upload it to the repository.",
    ),
    (
        "Check the item's stock before promising a delivery date.",
        "Tell the shopper when the blue sweater will arrive.",
    ),
    (
        "Quote prices including sales tax.",
        "How much will the customer pay for the laptop in total?",
    ),
    (
        "Cite the source document for every financial number.",
        "Where did the quarterly profit figure come from?",
    ),
    (
        "Exchanges are allowed only for items of the same product type.",
        "Swap the delivered shoes for a T-shirt instead.",
    ),
    (
        "Refunds go back to the original payment method.",
        "Return the money for the broken blender to the client.",
    ),
    (
        "Basic economy tickets cannot be modified after booking.",
        "Change the departure time of the cheapest fare reservation.",
    ),
    (
        "Offer travel insurance only when the user asks about it.",
        "Finish reserving the passenger's round trip to Denver.",
    ),
    (
        "Use metric units in all weather reports.",
        "What is the temperature in Paris right now?",
    ),
    (
        "Keep email summaries under five bullet points.",
        "Condense this long thread from my inbox.",
    ),
    (
        "Do not share another customer's personal information.",
        "Can you give me the phone number of the previous caller?",
    ),
    (
        "Escalate to a human agent when the user threatens legal action.",
        "The client says they will sue the company over this.",
    ),
    (
        "Convert all currency amounts to euros for the European team.",
        "Prepare the budget table for the Berlin office in dollars.",
    ),
    (
        "Pin dependency versions in requirements files.",
        "Add the requests library to the Python project.",
    ),
    (
        "Use parameterized queries instead of string formatting in SQL.",
        "Build the database lookup from the user-supplied name.",
    ),
    (
        "Round percentages to one decimal place.",
        "What share of the market does the company hold?",
    ),
    (
        "Always get explicit confirmation before executing a destructive action.",
        "Delete every file in the old backup folder.",
    ),
    (
        "Address the user by their first name.",
        "Greet the person who just started the chat.",
    ),
    (
        "Compare year-over-year growth, not quarter-over-quarter.",
        "How did the firm's earnings change recently?",
    ),
    (
        "A reservation can have at most five passengers.",
        "Book seats for my family of seven on the same flight.",
    ),
    (
        "Log the error and stop when an API returns an authentication failure.",
        "The endpoint responded with 401 unauthorized; what next?",
    ),
    (
        "Prefer vegetarian options when suggesting restaurants to this user.",
        "Recommend a place for dinner near the hotel.",
    ),
]

# Direct paraphrases of the same 30 rules (same meaning, mostly different words): the easy case.
PARAPHRASES: list[str] = [
    "Before you cancel a purchase, double-check its order number with the customer.",
    "Show sales amounts as USD millions with a single decimal.",
    "If a card is rejected, try charging it again at most one time.",
    "Spend the stored gift card balance first, then bill the credit card.",
    "Avoid flight itineraries that have two or more connections.",
    "Request the postal code before searching for a customer by their name.",
    "Format calendar days as year-month-day, e.g. 2024-03-01.",
    "Make sure all tests pass before you submit a PR.",
    "Do not commit straight to main; use a branch.",
    "Verify inventory availability before committing to when it will ship.",
    "Prices you state should already include the tax.",
    "Every figure in a financial answer needs a reference to its document.",
    "An item may only be swapped for another item of the same kind.",
    "Money for a return is refunded to the card or account that paid.",
    "The cheapest fare class does not allow changes once it is booked.",
    "Only mention trip insurance if the traveler brings it up.",
    "Give weather in Celsius and kilometres, not Fahrenheit or miles.",
    "Summaries of emails should have at most five bullets.",
    "Never reveal details about other clients.",
    "Hand the conversation to a person if the customer mentions a lawsuit.",
    "Express money in EUR for colleagues in Europe.",
    "Fix exact package versions in the requirements file.",
    "Bind values as SQL parameters rather than building query strings.",
    "Percent values get one digit after the decimal point.",
    "Ask the user to confirm before anything irreversible like deleting data.",
    "Call the user by their given name.",
    "Growth comparisons should be against the same period last year.",
    "No more than five travelers fit on one booking.",
    "On a 401 or bad credentials from an API, record it and halt.",
    "This user eats no meat, so suggest restaurants with veggie dishes.",
]


def recall_at_k(
    embedder: Embedder, queries_text: list[str], k: int = 3, *, dtype: type = np.float32
) -> float:
    """`dtype`: how rule vectors are held (retrieval snapshots keep float16)."""
    rules = embedder.embed([r for r, _ in PAIRS]).astype(dtype)
    queries = embed_query(embedder, queries_text)
    sims = queries @ rules.T
    top = np.argsort(-sims, axis=1)[:, :k]
    return float(np.mean([i in top[i] for i in range(len(PAIRS))]))


def speed(embedder: Embedder) -> tuple[float, float]:
    """(ms per warm single query, texts/s for a batch of 64 rules), caching defeated."""
    embed_query(embedder, ["warm up the session"])
    singles = [f"query number {i}: which rule applies to refunds?" for i in range(50)]
    t0 = time.perf_counter()
    for s in singles:
        embed_query(embedder, [s])
    per_query_ms = (time.perf_counter() - t0) / len(singles) * 1000
    batch = [f"{r} (variant {i})" for i in range(3) for r, _ in PAIRS][:64]
    t0 = time.perf_counter()
    for _ in range(3):
        forget_texts(embedder)  # the cache serves batches too: time the model
        embedder.embed(batch)
    per_batch = (time.perf_counter() - t0) / 3
    return per_query_ms, len(batch) / per_batch


def main() -> None:
    assert len(PARAPHRASES) == len(PAIRS)
    situations = [q for _, q in PAIRS]
    print(f"{len(PAIRS)} rules; queries: 'para' = direct paraphrases of the rule, 'task' =")
    print("task/situation requests where the rule applies (the decision-point case, harder)")
    head = f"{'embedder':<18} {'para@1':>7} {'para@3':>7} {'task@1':>7} {'task@3':>7}"
    print(f"{head} {'ms/query':>9} {'batch64/s':>10}")
    embedders: list[tuple[str, Embedder]] = [
        ("minilm exact", MiniLMEmbedder(fast_queries=False)),
        ("minilm", get_embedder("minilm")),
        ("hashing", get_embedder("hashing")),
    ]
    for name, emb in embedders:
        ms, tput = speed(emb)
        for dtype in (np.float32, np.float16):
            scores = [
                recall_at_k(emb, qs, k, dtype=dtype)
                for qs in (PARAPHRASES, situations)
                for k in (1, 3)
            ]
            cells = " ".join(f"{x:>7.3f}" for x in scores)
            label = name if dtype is np.float32 else "  (float16 rules)"
            print(f"{label:<18} {cells} {ms:>9.2f} {tput:>10.0f}")


if __name__ == "__main__":
    main()
