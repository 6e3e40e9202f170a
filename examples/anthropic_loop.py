"""dctx in an Anthropic tool-use loop. Run: ANTHROPIC_API_KEY=... python examples/anthropic_loop.py

Set ANTHROPIC_BASE_URL for another endpoint speaking the Messages API, ANTHROPIC_MODEL for the
model. The memory is DCTX_DB (default: a fresh temporary file, seeded from _demo.py).
"""

from __future__ import annotations

import os

from _demo import ANTHROPIC_TOOLS, QUERY, get_price, open_memory, report
from anthropic import Anthropic

from dctx.integrations.anthropic_loop import run_anthropic_loop


def main() -> None:
    with open_memory() as mem:
        result = run_anthropic_loop(
            Anthropic(),  # reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL
            mem,
            model=os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-5"),
            max_tokens=1024,
            system="You are a concise financial analyst.",
            messages=[{"role": "user", "content": QUERY}],
            tools=ANTHROPIC_TOOLS,
            functions={"get_price": get_price},
            actor="ana",
            skill="analyst",
        )
        report(result.text, result.outcomes, result.units)


if __name__ == "__main__":
    main()
