#!/usr/bin/env python3
"""Multi-selects, modifier clicks and outcome waits through the real ghostlight-mcp binary,
driven by the official MCP Python SDK over stdio against BASE/conf/outcomes.

    form_outcomes.py --server PATH/ghostlight-mcp --base-url http://127.0.0.1:PORT \
        --audit FILE [-- SERVER ARGS...]

Every check is judged by what the page itself saw (it writes the selected options and the
modifier flags of the events it received into its own text, read back with browser_read) or
by the wait's own answer. The expected values given to value_equals never appear in any
envelope, and none of the typed values appear in the audit FILE.

Prints one JSON report on stdout ({"ok": bool, "checks": [...], "failed": {...}}); exits 0
only when every check passed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# What value_equals is asked to compare: it must never come back.
SECRET_CITY = "Paris"
SECRET_PASSWORD = "hunter2-outcomes"


class Failure(Exception):
    """A check failed."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


def describe(envelope: dict[str, Any]) -> str:
    return json.dumps({k: envelope.get(k) for k in ("status", "summary", "facts")})[:1500]


async def scenario(args: argparse.Namespace, checks: list[dict[str, Any]]) -> None:
    server = StdioServerParameters(command=args.server, args=args.server_args)
    texts: list[str] = []

    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(name: str, tool: str, arguments: dict[str, Any], expect: str = "succeeded") -> dict:
                checks.append({"check": name})
                result = await session.call_tool(tool, arguments)
                envelope = result.structured_content
                check(isinstance(envelope, dict), f"{name}: no structured content")
                texts.append(result.content[0].text)
                check(envelope["status"] == expect, f"{name}: expected {expect}, got {describe(envelope)}")
                checks[-1]["ok"] = True
                return envelope

            async def page_says(name: str, needle: str) -> None:
                read = await call(name, "browser_read", {"mode": "visible"})
                text = read["facts"]["text"]
                check(needle in text, f"{name}: the page does not say {needle!r}: {text[:600]!r}")

            await call("navigate", "browser_navigate", {"url": f"{args.base_url}/conf/outcomes"})

            # ----- a <select multiple> takes a list, by value or label -----
            toppings = {"name": "Toppings"}
            filled = await call(
                "multi-select list",
                "browser_fill_form",
                {"fields": [{"selector": toppings, "value": ["cheese", "Black olives"]}]},
            )
            check(filled["facts"]["filled_count"] == 1, describe(filled))
            await page_says("the page saw two options", "Picked: cheese,olives.")
            await call("multi-select one string", "browser_fill_form", {"fields": [{"selector": toppings, "value": "Ham"}]})
            await page_says("a string selects only that option", "Picked: ham.")
            await call("multi-select cleared", "browser_fill_form", {"fields": [{"selector": toppings, "value": []}]})
            await page_says("an empty list clears", "Picked: .")
            refused = await call(
                "a disabled option is refused",
                "browser_fill_form",
                {"fields": [{"selector": toppings, "value": ["ham", "Pineapple"]}]},
                "failed",
            )
            check(refused["effect"] == "none", describe(refused))
            size = {"name": "Size"}
            await call("a single select takes a list of one", "browser_fill_form", {"fields": [{"selector": size, "value": ["Large"]}]})
            await call(
                "a single select refuses two",
                "browser_fill_form",
                {"fields": [{"selector": size, "value": ["s", "m"]}]},
                "failed",
            )
            await call("the single select holds Large", "browser_wait", {"condition": "value_equals", "selector": size, "value": "l"})

            # ----- modifiers reach the page's events -----
            record = {"name": "Record", "role": "button"}
            clicked = await call("shift+alt click", "browser_click", {"selector": record, "modifiers": ["Shift", "Alt"]})
            check("with Alt and Shift held" not in clicked["summary"], clicked["summary"])
            check("with Shift and Alt held" in clicked["summary"], clicked["summary"])
            await page_says("the click carried Shift and Alt", "Click seen: shift=true alt=true ctrl=false meta=false.")
            await call("control+meta click", "browser_click", {"selector": record, "modifiers": ["Control", "Meta"]})
            await page_says("the click carried Control and Meta", "Click seen: shift=false alt=false ctrl=true meta=true.")
            await call("plain click", "browser_click", {"selector": record})
            await page_says("a plain click carries none", "Click seen: shift=false alt=false ctrl=false meta=false.")
            await call("shift hover", "browser_hover", {"selector": {"name": "Hover zone"}, "modifiers": ["Shift"]})
            await page_says("the hover carried Shift", "Hover seen: shift=true alt=false ctrl=false meta=false.")

            # ----- every wait condition, first not yet satisfied -----
            city = {"name": "City"}
            remember = {"name": "Remember me", "role": "checkbox"}
            items = {"name": "Item", "role": "button"}
            waits = [
                ("value_equals", {"selector": city, "value": SECRET_CITY}),
                ("checked", {"selector": remember}),
                ("title_contains", {"value": "Done"}),
                ("url_matches", {"value": "**/outcomes/done?step=2"}),
                ("count_at_least", {"selector": items, "value": 3}),
            ]
            for condition, arguments in waits:
                early = await call(
                    f"{condition} not yet",
                    "browser_wait",
                    {"condition": condition, "timeout_ms": 300, **arguments},
                    "failed",
                )
                check(early["facts"]["satisfied"] is False and early["facts"]["reason"] == "timeout", describe(early))
                check(early["effect"] == "none", describe(early))
            early_count = await call(
                "count seen before", "browser_wait",
                {"condition": "count_at_least", "selector": items, "value": 3, "timeout_ms": 100}, "failed",
            )
            check(early_count["facts"]["match_count"] == 0, describe(early_count))
            unchecked = await call("unchecked holds", "browser_wait", {"condition": "unchecked", "selector": {"name": "Newsletter"}})
            check(unchecked["facts"]["satisfied"] is True, describe(unchecked))
            await call("remember starts unchecked", "browser_wait", {"condition": "unchecked", "selector": remember})

            await call("later", "browser_click", {"selector": {"name": "Later"}})
            for condition, arguments in waits:
                held = await call(f"{condition} holds", "browser_wait", {"condition": condition, "timeout_ms": 5000, **arguments})
                check(held["facts"]["satisfied"] is True, describe(held))
            counted = await call(
                "count seen after", "browser_wait", {"condition": "count_at_least", "selector": items, "value": 3}
            )
            check(counted["facts"]["match_count"] == 3, describe(counted))
            late = await call(
                "checked is no longer unchecked",
                "browser_wait",
                {"condition": "unchecked", "selector": remember, "timeout_ms": 200},
                "failed",
            )
            check(late["facts"]["satisfied"] is False, describe(late))
            other = await call(
                "another value is not equal",
                "browser_wait",
                {"condition": "value_equals", "selector": city, "value": "Lyon", "timeout_ms": 200},
                "failed",
            )
            check(other["facts"]["reason"] == "timeout", describe(other))

            # ----- a credential field is never compared -----
            password = {"name": "Password"}
            refused = await call(
                "value_equals on a password",
                "browser_wait",
                {"condition": "value_equals", "selector": password, "value": SECRET_PASSWORD},
                "attention_required",
            )
            check(refused["facts"]["reason"] == "credential_handoff", describe(refused))
            check(refused["effect"] == "none", describe(refused))

    for text in texts:
        for secret in (SECRET_CITY, SECRET_PASSWORD, "Lyon"):
            # Paris is the page's own value too: read results may show it; no wait result may.
            if secret in text and '"condition"' in text:
                raise Failure(f"a wait result carries {secret!r}: {text[:400]!r}")
    if args.audit:
        audit = open(args.audit, encoding="utf-8").read()
        for secret in (SECRET_CITY, SECRET_PASSWORD, "Lyon", "Black olives"):
            check(secret not in audit, f"the audit file carries {secret!r}")
        checks.append({"check": "audit carries no value", "ok": True})


def leaf(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, help="the ghostlight-mcp binary")
    parser.add_argument("--base-url", required=True, help="the fixture site, http://127.0.0.1:PORT")
    parser.add_argument("--audit", help="the server's audit file, checked for values afterwards")
    parser.add_argument("server_args", nargs="*", help="arguments for the server")
    args = parser.parse_args()

    checks: list[dict[str, Any]] = []
    report: dict[str, Any] = {"ok": False, "checks": checks}
    try:
        asyncio.run(asyncio.wait_for(scenario(args, checks), timeout=240))
        report["ok"] = True
    except BaseException as error:  # noqa: BLE001 - report anything, including SDK errors
        cause = leaf(error)
        message = str(cause) if isinstance(cause, Failure) else f"{type(cause).__name__}: {cause}"
        report["failed"] = {"check": checks[-1]["check"] if checks else None, "message": message}
    print(json.dumps(report, indent=1))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
