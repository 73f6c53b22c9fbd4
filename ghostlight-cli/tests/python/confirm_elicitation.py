#!/usr/bin/env python3
"""Confirmation outside the page through MCP elicitation, with the official MCP Python SDK
answering as the person would, against the real ghostlight-mcp binary over stdio.

    confirm_elicitation.py --server PATH/ghostlight-mcp --base-url http://127.0.0.1:PORT \
        --audit FILE [-- SERVER ARGS...]

The server's configuration asks for `[confirm] actions = ["submit"]`. Four sessions, each its
own server, click the fixture's "Record" button (a button: a possible submit) on
BASE/conf/outcomes; the page writes what it received ("Click seen: ...") into its own text:

* accept (`{"confirm": true}`): the click succeeds and the page saw it;
* decline: `blocked`, reason `declined`, effect none, and the page saw nothing;
* cancel: the same as decline;
* a client without elicitation: `attention_required`, reason `confirmation_unavailable`, the
  page saw nothing, and nothing was asked.

Each question must name the tool, the action, the host and the control, and its schema must
be a single boolean `confirm`. A typed value never appears in a question or the audit FILE.

Prints one JSON report on stdout ({"ok": bool, "checks": [...], "failed": {...}}); exits 0
only when every check passed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SECRET = "Paris-7781"


class Failure(Exception):
    """A check failed."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


def describe(envelope: dict[str, Any]) -> str:
    return json.dumps({k: envelope.get(k) for k in ("status", "effect", "summary", "facts")})[:1500]


async def session_with(args: argparse.Namespace, answer: str | None, checks: list[dict[str, Any]]) -> list[Any]:
    """One server and one client; `answer` is accept, accept_false, decline, cancel, or None
    for a client that declares no elicitation. Returns the questions asked."""
    asked: list[Any] = []

    async def elicit(context: Any, params: Any) -> Any:
        asked.append(params)
        if answer == "accept":
            return types.ElicitResult(action="accept", content={"confirm": True})
        if answer == "accept_false":
            return types.ElicitResult(action="accept", content={"confirm": False})
        if answer == "decline":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="cancel")

    server = StdioServerParameters(command=args.server, args=args.server_args)
    async with stdio_client(server) as (read, write):
        callback = elicit if answer is not None else None
        async with ClientSession(read, write, elicitation_callback=callback) as session:
            await session.initialize()

            async def call(name: str, tool: str, arguments: dict[str, Any], expect: str) -> dict[str, Any]:
                checks.append({"check": f"{answer}: {name}"})
                result = await session.call_tool(tool, arguments)
                envelope = result.structured_content
                check(isinstance(envelope, dict), f"{name}: no structured content")
                check(envelope["status"] == expect, f"{name}: expected {expect}, got {describe(envelope)}")
                check(SECRET not in json.dumps(envelope), f"{name}: the typed value came back")
                checks[-1]["ok"] = True
                return envelope

            async def page_text() -> str:
                read = await call("read", "browser_read", {"mode": "visible"}, "succeeded")
                return read["facts"]["text"]

            await call("navigate", "browser_navigate", {"url": f"{args.base_url}/conf/outcomes"}, "succeeded")
            # A value typed first (no confirmation: typing is no submit) must never reach a question.
            await call("type", "browser_type_text", {"selector": {"name": "City"}, "text": SECRET}, "succeeded")
            check(not asked, f"typing asked: {asked}")
            record = {"name": "Record", "role": "button"}
            if answer == "accept":
                clicked = await call("click", "browser_click", {"selector": record}, "succeeded")
                check(clicked["effect"] == "applied", describe(clicked))
                text = await page_text()
                check("Click seen:" in text, f"the page did not see the accepted click: {text[:400]!r}")
            elif answer is None:
                refused = await call("click", "browser_click", {"selector": record}, "attention_required")
                check(refused["facts"]["reason"] == "confirmation_unavailable", describe(refused))
                check(refused["effect"] == "none", describe(refused))
                text = await page_text()
                check("Click seen:" not in text, f"the page saw a click nobody confirmed: {text[:400]!r}")
            else:
                refused = await call("click", "browser_click", {"selector": record}, "blocked")
                check(refused["facts"]["reason"] == "declined", describe(refused))
                check(refused["effect"] == "none", describe(refused))
                check(refused["repeat_safe"] is False, describe(refused))
                text = await page_text()
                check("Click seen:" not in text, f"the page saw a declined click: {text[:400]!r}")
    return asked


async def scenario(args: argparse.Namespace, checks: list[dict[str, Any]]) -> None:
    host = args.base_url.split("://", 1)[1].rstrip("/")
    for answer in ("accept", "decline", "cancel", "accept_false", None):
        asked = await session_with(args, answer, checks)
        checks.append({"check": f"{answer}: the question"})
        if answer is None:
            check(asked == [], f"a client without elicitation was asked: {asked}")
        else:
            check(len(asked) == 1, f"expected one question, got {len(asked)}")
            params = asked[0]
            message = params.message
            for needle in ("browser_click", "submit", host, '"Record" button'):
                check(needle in message, f"the question does not name {needle!r}: {message!r}")
            check(SECRET not in message, "a typed value reached the question")
            schema = params.requested_schema
            check(list(schema.get("properties", {})) == ["confirm"], f"schema: {schema}")
            check(schema["properties"]["confirm"].get("type") == "boolean", f"schema: {schema}")
            check(schema.get("required") == ["confirm"], f"schema: {schema}")
        checks[-1]["ok"] = True

    checks.append({"check": "audit"})
    with open(args.audit, encoding="utf-8") as audit:
        lines = [json.loads(line) for line in audit if line.strip()]
    text = json.dumps(lines)
    check(SECRET not in text, "a typed value reached the audit file")
    answers = [line["confirmation"]["answer"] for line in lines if "confirmation" in line]
    check(answers == ["accepted", "declined", "cancelled", "declined", "unavailable"], f"audited answers: {answers}")
    statuses = [line["status"] for line in lines if "confirmation" in line]
    check(statuses == ["succeeded", "blocked", "blocked", "blocked", "attention_required"], f"statuses: {statuses}")
    checks[-1]["ok"] = True


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--audit", required=True)
    parser.add_argument("server_args", nargs="*")
    args = parser.parse_args()
    checks: list[dict[str, Any]] = []
    failed: dict[str, Any] | None = None
    try:
        asyncio.run(scenario(args, checks))
    except Exception as error:  # report any failure as JSON
        failed = {"check": checks[-1]["check"] if checks else None, "error": f"{type(error).__name__}: {error}"}
    print(json.dumps({"ok": failed is None, "checks": checks, "failed": failed}, indent=1))
    return 0 if failed is None else 1


if __name__ == "__main__":
    sys.exit(main())
