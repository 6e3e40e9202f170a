"""dctx in a LangChain / LangGraph agent. Run: OPENAI_API_KEY=... python examples/langgraph_hook.py

Needs `pip install 'dctx[langgraph]'` (LangGraph, LangChain and langchain-openai). The agent is
LangChain's `create_agent` (the prebuilt agent of LangGraph 1.x) with `DctxMiddleware`; one
compiled agent serves every user, who is named per call in `config["configurable"]`. The model
is ChatOpenAI, so OPENAI_BASE_URL / OPENAI_MODEL point it at any OpenAI-compatible endpoint.
The memory is DCTX_DB (default: a fresh temporary file, seeded from _demo.py). On the older
`langgraph.prebuilt.create_react_agent`, use `DctxHook` as its `pre_model_hook` instead.
"""

from __future__ import annotations

import os
from typing import Any

from _demo import QUERY, open_memory, report
from _demo import get_price as price_impl
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import tool

from dctx.integrations.langchain_middleware import DctxMiddleware


@tool
def get_price(ticker: str, source: str = "polygon") -> dict[str, Any]:
    """Quote for a ticker from a market-data source (polygon or yahoo_legacy)."""
    return price_impl(ticker, source)


def chat_model() -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))


def main(model: BaseChatModel | None = None) -> None:
    with open_memory() as mem:
        dctx = DctxMiddleware(mem)
        agent = create_agent(model or chat_model(), [get_price], middleware=[dctx])
        config: Any = {"configurable": {"actor": "ana", "skill": "analyst", "thread_id": "1"}}
        state = agent.invoke({"messages": [("user", QUERY)]}, config)
        dctx.capture(state["messages"], config)
        session = dctx.hook.session
        assert session is not None
        report(str(state["messages"][-1].content), session.outcomes, session.units)


if __name__ == "__main__":
    main()
