#!/usr/bin/env python3
"""Drive the real ghostlight-mcp binary with the official MCP Python SDK (a client that is not
ours), over stdio, against a fixture page and headless Chromium.

    e2e_session.py --server PATH/ghostlight-mcp --base-url http://127.0.0.1:PORT --catalog FILE

Checks: initialize; tools/list (24 tools, each equal to the core catalog entry in FILE); then a
session on BASE/form: policy_explain, navigate, browser_execute refused (execute is denied by
default), inspect (controls, then a document tree), fill the form, click Send, read the page's own confirmation, list tabs, take
a screenshot (one image/png block whose size matches the facts); an unknown tool is a protocol
error. Every envelope is checked in both renderings: structured_content equals the JSON in the
text block, the text starts with the summary and lists next_steps as "Next: " lines, is_error
matches the status, and image bytes appear in neither rendering.

Prints one JSON report on stdout ({"ok": bool, "steps": [...], "failed": {...}}); exits 0 only
when every step passed. The SDK itself validates each successful result's structured content
against the tool's outputSchema.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import struct
import sys
from typing import Any

from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

ERROR_STATUSES = {"failed", "blocked", "attention_required", "cancelled", "unknown"}
ENVELOPE_FIELDS = ("invocation", "status", "effect", "readiness", "repeat_safe", "summary", "facts", "next_steps")
TOOL_KEYS = ("name", "description", "inputSchema", "outputSchema", "annotations")


class Failure(Exception):
    """A check failed."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


def envelope_of(result: Any) -> dict[str, Any]:
    """Check both renderings of a CallToolResult and return the envelope."""
    structured = result.structured_content
    check(isinstance(structured, dict), f"no structured_content object: {result!r}")
    for field in ENVELOPE_FIELDS:
        check(field in structured, f"the envelope lacks {field}: {structured}")
    check(len(result.content) >= 1 and result.content[0].type == "text", "the first block is not text")
    text = result.content[0].text
    head, sep, tail = text.partition("\n\n")
    check(sep == "\n\n", f"no blank line before the JSON in the text block: {text!r}")
    check(json.loads(tail) == structured, "the text block's JSON differs from structured_content")
    lines = head.split("\n")
    check(lines[0] == structured["summary"], f"the text does not start with the summary: {lines[0]!r}")
    check(
        [line.removeprefix("Next: ") for line in lines[1:]] == structured["next_steps"]
        and all(line.startswith("Next: ") for line in lines[1:]),
        f"the Next: lines differ from next_steps: {lines[1:]} vs {structured['next_steps']}",
    )
    is_error = structured["status"] in ERROR_STATUSES
    check(result.is_error == is_error, f"is_error={result.is_error} for status {structured['status']}")
    serialized = json.dumps(structured)
    for block in result.content[1:]:
        check(block.type == "image", f"a non-image block after the text: {block.type}")
        check(block.data not in text and block.data not in serialized, "image bytes leaked into the envelope")
    return structured


def describe(envelope: dict[str, Any]) -> str:
    return json.dumps({k: envelope.get(k) for k in ("status", "summary", "facts")})[:1500]


def png_size(data: bytes) -> tuple[int, int]:
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "the image is not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def find_item(facts: dict[str, Any], role: str, name: str) -> str:
    """The target of the inspect row with this role and name (rows are named by `columns`)."""
    columns = facts["columns"]
    rows = [dict(zip(columns, row)) for row in facts["items"]]
    for item in rows:
        if item.get("role") == role and item.get("name") == name:
            return item["target"]
    raise Failure(f"inspect found no {role} named {name!r} among {[(i.get('role'), i.get('name')) for i in rows]}")


async def scenario(args: argparse.Namespace, steps: list[dict[str, Any]]) -> None:
    catalog = {tool["name"]: tool for tool in json.load(open(args.catalog, encoding="utf-8"))}
    env = {"GHOSTLIGHT_MCP_LOG": os.environ.get("GHOSTLIGHT_MCP_LOG", "info")}
    server = StdioServerParameters(command=args.server, args=args.server_args, env=env)

    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:

            async def step(name: str, tool: str, arguments: dict[str, Any], expect: str = "succeeded") -> Any:
                steps.append({"step": name, "tool": tool})
                result = await session.call_tool(tool, arguments)
                envelope = envelope_of(result)
                steps[-1]["status"] = envelope["status"]
                check(envelope["status"] == expect, f"{tool}: expected {expect}, got {describe(envelope)}")
                steps[-1]["ok"] = True
                return result, envelope

            steps.append({"step": "initialize"})
            init = await session.initialize()
            check(init.server_info.name == "ghostlight-mcp", f"server name {init.server_info.name}")
            check(init.capabilities.tools is not None, "no tools capability")
            steps[-1].update(ok=True, protocol=init.protocol_version)

            steps.append({"step": "tools/list"})
            listed = await session.list_tools()
            check(len(listed.tools) == 24, f"{len(listed.tools)} tools listed")
            check([t.name for t in listed.tools] == list(catalog), "tool order differs from the catalog")
            for tool in listed.tools:
                dumped = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
                got = {key: dumped.get(key) for key in TOOL_KEYS}
                check(got == catalog[tool.name], f"{tool.name} differs from the catalog")
            steps[-1]["ok"] = True

            _, explained = await step("policy_explain", "policy_explain", {})
            check(explained["effect"] == "none", "policy_explain had an effect")

            form = f"{args.base_url}/form"
            _, opened = await step("navigate", "browser_navigate", {"url": form})
            check(opened["facts"]["title"] == "Ghostlight fixture", f"title {opened['facts'].get('title')!r}")
            tab = opened["facts"]["tab"]

            _, refused = await step("execute refused", "browser_execute", {"script": "document.title"}, "blocked")
            check(refused["effect"] == "none", "a refused execute had an effect")

            _, inspected = await step("inspect", "browser_inspect", {})
            facts = inspected["facts"]
            name_field = find_item(facts, "textbox", "Name")
            agree = find_item(facts, "checkbox", "I agree")
            send = find_item(facts, "button", "Send")

            # Scope document rows hold a depth where other scopes hold states: the SDK checks
            # them against the tool's outputSchema.
            _, tree = await step("inspect document", "browser_inspect", {"scope": "document", "max_depth": 4})
            check(tree["facts"]["columns"][3] == "depth", f"document columns {tree['facts'].get('columns')}")
            check(all(isinstance(row[3], int) for row in tree["facts"]["items"]), "a document row without a depth")

            fields = [{"target": name_field, "value": "Ada"}, {"target": agree, "value": True}]
            _, filled = await step("fill_form", "browser_fill_form", {"fields": fields})
            check(filled["facts"]["filled_count"] == 2, f"filled {filled['facts'].get('filled_count')}")

            _, clicked = await step("click", "browser_click", {"target": send})
            check(clicked["effect"] == "applied", f"click effect {clicked['effect']}")

            _, read = await step("read confirmation", "browser_read", {"mode": "visible"})
            text = read["facts"]["text"]
            check("Thank you, Ada. Agreed: yes." in text, f"the page's own result is missing: {text[:400]!r}")
            steps[-1]["confirmation"] = "Thank you, Ada. Agreed: yes."

            _, tabs = await step("tabs", "browser_tabs", {"action": "list"})
            check([t["tab"] for t in tabs["facts"]["tabs"]] == [tab], f"tabs {tabs['facts']['tabs']}")

            shot, shot_envelope = await step("screenshot", "browser_screenshot", {})
            images = [block for block in shot.content if block.type == "image"]
            check(len(images) == 1, f"{len(images)} image blocks")
            check(images[0].mime_type == "image/png", f"mime type {images[0].mime_type}")
            facts = shot_envelope["facts"]
            check(facts["mime_type"] == "image/png", f"facts mime_type {facts.get('mime_type')}")
            width, height = png_size(base64.b64decode(images[0].data))
            check((width, height) == (facts["width"], facts["height"]), f"PNG {width}x{height} vs facts {facts}")
            steps[-1]["image"] = f"{width}x{height}"

            steps.append({"step": "unknown tool"})
            try:
                await session.call_tool("browser_teleport", {})
            except MCPError as error:
                check(error.code == -32602, f"unknown tool error code {error.code}")
                steps[-1]["ok"] = True
            else:
                raise Failure("an unknown tool did not raise a protocol error")


def leaf(error: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups: the SDK's task groups wrap the
    scenario's own failure."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, help="the ghostlight-mcp binary")
    parser.add_argument("--base-url", required=True, help="the fixture site, http://127.0.0.1:PORT")
    parser.add_argument("--catalog", required=True, help="the core catalog as JSON (render_catalog())")
    parser.add_argument("server_args", nargs="*", help="arguments for the server")
    args = parser.parse_args()

    steps: list[dict[str, Any]] = []
    report: dict[str, Any] = {"ok": False, "steps": steps}
    try:
        asyncio.run(asyncio.wait_for(scenario(args, steps), timeout=180))
        report["ok"] = True
    except BaseException as error:  # noqa: BLE001 - report anything, including SDK errors
        cause = leaf(error)
        message = str(cause) if isinstance(cause, Failure) else f"{type(cause).__name__}: {cause}"
        report["failed"] = {"step": steps[-1]["step"] if steps else None, "message": message}
    print(json.dumps(report, indent=1))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
