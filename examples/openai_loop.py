"""dctx in an OpenAI tool-calling loop. Run: OPENAI_API_KEY=... python examples/openai_loop.py

Any OpenAI-compatible endpoint works: set OPENAI_BASE_URL (e.g. http://127.0.0.1:8000/v1)
and OPENAI_MODEL. The memory is DCTX_DB (default: a fresh temporary file, seeded with two
earlier sessions from _demo.py).
"""

from __future__ import annotations

import os

from _demo import OPENAI_TOOLS, QUERY, get_price, open_memory, report
from openai import OpenAI

from dctx.integrations.openai_loop import run_openai_loop


def main() -> None:
    with open_memory() as mem:
        result = run_openai_loop(
            OpenAI(),  # reads OPENAI_API_KEY and OPENAI_BASE_URL
            mem,
            model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
            messages=[
                {"role": "system", "content": "You are a concise financial analyst."},
                {"role": "user", "content": QUERY},
            ],
            tools=OPENAI_TOOLS,
            functions={"get_price": get_price},
            actor="ana",
            skill="analyst",
        )
        report(result.text, result.outcomes, result.units)


if __name__ == "__main__":
    main()
