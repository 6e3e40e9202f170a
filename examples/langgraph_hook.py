"""dctx in a LangGraph ReAct agent. Run: OPENAI_API_KEY=... python examples/langgraph_hook.py

Needs `pip install 'dctx[langgraph]' langchain-openai`; the model is ChatOpenAI, so
OPENAI_BASE_URL / OPENAI_MODEL point it at any OpenAI-compatible endpoint. The memory is
DCTX_DB (default: a fresh temporary file, seeded from _demo.py).
"""

from __future__ import annotations

import os
from typing import Any

from _demo import QUERY, open_memory, report
from _demo import get_price as price_impl
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import tool
from langgraph.prebuilt import create_react_agent

from dctx.integrations.langgraph_hook import DctxHook


@tool
def get_price(ticker: str, source: str = "polygon") -> dict[str, Any]:
    """Quote for a ticker from a market-data source (polygon or yahoo_legacy)."""
    return price_impl(ticker, source)


def chat_model() -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))  # type: ignore[no-any-return]


def main(model: BaseChatModel | None = None) -> None:
    with open_memory() as mem:
        hook = DctxHook(mem, actor="ana", skill="analyst")
        agent = create_react_agent(
            model or chat_model(), hook.wrap_tools([get_price]), pre_model_hook=hook
        )
        state = agent.invoke({"messages": [("user", QUERY)]})
        hook.capture(state["messages"])
        assert hook.session is not None
        report(str(state["messages"][-1].content), hook.session.outcomes, hook.session.units)


if __name__ == "__main__":
    main()
