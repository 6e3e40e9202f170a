"""Talk to `dctx mcp` with the official MCP Python client.

python examples/mcp_client.py memory.db              # spawns `dctx mcp --db memory.db`
DCTX_MCP_URL=http://127.0.0.1:8766/mcp python examples/mcp_client.py   # a running server
(DCTX_API_KEY adds the X-API-Key header for the HTTP transport)
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


def connect() -> Client:
    url = os.environ.get("DCTX_MCP_URL")
    if url:
        key = os.environ.get("DCTX_API_KEY")
        http = httpx2.AsyncClient(headers={"X-API-Key": key} if key else {}, timeout=30)
        return Client(streamable_http_client(url, http_client=http))
    db = sys.argv[1] if len(sys.argv) > 1 else "dctx.db"
    return Client(StdioServerParameters(command="dctx", args=["mcp", "--db", db]))


async def main() -> None:
    async with connect() as client:
        tools = await client.list_tools()
        print("tools:", ", ".join(t.name for t in tools.tools))
        learned = await client.call_tool(
            "record_correction",
            {
                "actor": "kenji",
                "skill": "financial_analyst",
                "query": "Compare Halvard Energy and Brightwater Utilities on margins.",
                "answer": "Brightwater's operating margin is 17.0% vs Halvard's 15.0%.",
                "correction": "I can't scan prose. Always put company comparisons in a table, "
                "one column per company and metrics as rows.",
            },
        )
        data: Any = learned.structured_content
        for rule in data["added"]:
            print("learned:", rule["text"])
        guidance = await client.call_tool(
            "get_guidance",
            {
                "actor": "kenji",
                "skill": "financial_analyst",
                "query": "Compare Corvid and Sable Networks on FY2025 margins.",
            },
        )
        for unit in (guidance.structured_content or {})["latest"]:
            print("guidance:", unit["text"])


if __name__ == "__main__":
    asyncio.run(main())
