"""Talk to `dctx serve` with httpx: capture a correction, then get it back in a run.

dctx serve --db memory.db &            # or: DCTX_API_KEY=s3cret dctx serve ...
python examples/http_client.py         # DCTX_URL / DCTX_API_KEY pick the server
"""

from __future__ import annotations

import os

import httpx

URL = os.environ.get("DCTX_URL", "http://127.0.0.1:8765")
KEY = os.environ.get("DCTX_API_KEY")
NS = os.environ.get("DCTX_NAMESPACE", "default")

SESSION = [
    {"role": "user", "content": "Summarize Corvid Systems' growth for FY2025."},
    {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_segments", "arguments": '{"company": "Corvid Systems"}'},
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "c1",
        "content": '{"segments": [{"name": "Defense", "revenue": 610.0, "revenue_prior": 480.2}]}',
    },
    {"role": "assistant", "content": "Corvid grew revenue 9.6% to $1.64B."},
    {
        "role": "user",
        "content": "9.6% hides the story. Whenever a company reports segments, "
        "give growth per segment, not just the consolidated number.",
    },
    {"role": "assistant", "content": "Defense grew 27.0%."},
    {"role": "user", "content": "Exactly."},
]


def main() -> None:
    headers = {"X-API-Key": KEY} if KEY else {}
    with httpx.Client(base_url=f"{URL}/v1/{NS}", headers=headers, timeout=30) as api:
        learned = (
            api.post(
                "/capture",
                json={"actor": "kenji", "skill": "financial_analyst", "messages": SESSION},
            )
            .raise_for_status()
            .json()
        )
        for rule in learned["added"]:
            print("learned:", rule["text"])

        run = api.post(
            "/runs",
            json={
                "actor": "kenji",
                "skill": "financial_analyst",
                "query": "How did Sable Networks grow in FY2025?",
            },
        )
        run_id = run.raise_for_status().json()["run_id"]
        step = api.post(
            f"/runs/{run_id}/observe",
            json={
                "tool": "get_segments",
                "arguments": {"company": "Sable Networks"},
                "result": {"segments": [{"name": "Cloud", "revenue": 88.0}]},
            },
        ).raise_for_status()
        for unit in step.json()["units"]:
            print("after get_segments:", unit["text"])
        api.delete(f"/runs/{run_id}").raise_for_status()

        for rule in api.get("/rules", params={"actor": "kenji"}).raise_for_status().json():
            print("rule:", rule["id"], rule["status"], rule["text"])


if __name__ == "__main__":
    main()
