#!/usr/bin/env python3
"""Ghostlight 1.0 conformance: the spec walked section by section through the MCP binary.

    conformance.py --server PATH/ghostlight-mcp --browser chromium|firefox \
        --base-url http://127.0.0.1:PORT --denied-url http://127.0.0.2:PORT \
        --config MAIN.toml --private-config PRIVATE.toml --upload-root DIR --audit FILE

A client that is not Ghostlight's (the official MCP Python SDK) drives the real binary over stdio
against fixture pages (`ghostlight-cli/tests/support/conformance/*.html`, served by the Rust test
`tests/conformance.rs`). The contract is `ghostlight-1.0.md` with `CLARIFICATIONS.md`; every
observable rule is one named check below, in spec order (Contract rules, browser_flow, Result
envelope, Catalog, each tool's section, policy_explain), and each check's docstring quotes the
sentence it holds. Checks over every result seen during the run (both renderings, enums, output
schemas, audit) come last.

Three servers take part: MAIN (`--config`: read, action, write and execute allowed, the denied
host 127.0.0.2 refused, upload folder DIR, audit to FILE), PRIVATE (`--private-config`:
`privacy.preserve_target_names = false`, `tabs.close = "forbidden"`, built-in capabilities) and
MANUAL (`--startup manual`, no browser at all).

Prints one line per check (PASS, FAIL, XFAIL, XPASS) and a final count; exits 1 when a check
that is not a known deviation fails. `--only PART,PART` runs the checks whose names contain one of
the parts (the first contract check expects a session without tabs); CONFORMANCE_PROFILE=1 adds
the time spent per tool. Checks never assert on timing: they wait on page conditions. KNOWN_DEVIATIONS maps a check name (or `name[engine]`) to
the product's departure from the spec: such a check still runs and prints XFAIL, or XPASS
loudly when the product has been fixed (then remove the entry).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import re
import shutil
import struct
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

import jsonschema
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

# --------------------------------------------------------------------------------------------
# Known deviations of the product from the spec (check name, or `name[engine]` -> reason).
# --------------------------------------------------------------------------------------------

KNOWN_DEVIATIONS: dict[str, str] = {
}

# --------------------------------------------------------------------------------------------
# The contract's tables, transcribed from ghostlight-1.0.md and CLARIFICATIONS.md
# --------------------------------------------------------------------------------------------

SPEC_TOOLS = [
    "browser_tabs", "browser_navigate", "browser_history", "browser_window", "browser_read",
    "browser_inspect", "browser_find", "browser_screenshot", "browser_click", "browser_scroll",
    "browser_hover", "browser_fill_form", "browser_type_text", "browser_press_key", "browser_drag",
    "browser_wait", "browser_dialog", "browser_upload", "browser_execute", "browser_sequence",
    "browser_flow", "browser_record", "browser_diagnose", "policy_explain",
]

# `T` stands for any target handle in the spec's `"target_..."` examples.
T = object()

SPEC_SHORTEST: dict[str, Any] = {
    "browser_tabs": {"action": "list"},
    "browser_navigate": {"url": "https://example.com"},
    "browser_history": {"action": "back"},
    "browser_window": {"action": "zoom", "percent": 100},
    "browser_read": {},
    "browser_inspect": {},
    "browser_find": {"text": "Submit"},
    "browser_screenshot": {},
    "browser_click": {"target": T},
    "browser_scroll": {},
    "browser_hover": {"target": T},
    "browser_fill_form": {"fields": [{"target": T, "value": "Ada"}]},
    "browser_type_text": {"target": T, "text": "Ada"},
    "browser_press_key": {"key": "Enter"},
    "browser_drag": {"source_target": T, "destination_target": T},
    "browser_wait": {"condition": "load_ready"},
    "browser_dialog": {"action": "status"},
    "browser_upload": {"target": T, "paths": ["C:\\path\\document.pdf"]},
    "browser_execute": {"script": "document.title"},
    "browser_sequence": {"steps": [{"action": "click", "target": T}, {"action": "wait", "condition": "load_ready"}]},
    "browser_flow": {"steps": [{"id": "open", "tool": "browser_navigate", "arguments": {"url": "https://example.com"}}]},
    "browser_record": {"action": "start"},
    "browser_diagnose": {},
    "policy_explain": {},
}

def concrete(value: Any) -> Any:
    """A spec example with `T` replaced by a well-formed target handle."""
    if value is T:
        return "target_conformance"
    if isinstance(value, dict):
        return {k: concrete(v) for k, v in value.items()}
    if isinstance(value, list):
        return [concrete(v) for v in value]
    return value


SPEC_SHORTEST_CONCRETE: dict[str, Any] = {name: concrete(example) for name, example in SPEC_SHORTEST.items()}

# Required top-level inputs (conditional branches are enforced by the decoder, not `required`).
SPEC_REQUIRED: dict[str, set[str]] = {
    "browser_tabs": {"action"}, "browser_navigate": {"url"}, "browser_history": {"action"},
    "browser_window": {"action"}, "browser_read": set(), "browser_inspect": set(),
    "browser_find": {"text"}, "browser_screenshot": set(), "browser_click": set(),
    "browser_scroll": set(), "browser_hover": set(), "browser_fill_form": {"fields"},
    "browser_type_text": {"text"}, "browser_press_key": set(), "browser_drag": set(),
    "browser_wait": {"condition"}, "browser_dialog": {"action"}, "browser_upload": set(),
    "browser_execute": {"script"}, "browser_sequence": {"steps"}, "browser_flow": {"steps"},
    "browser_record": {"action"}, "browser_diagnose": set(), "policy_explain": set(),
}

# Tools whose inputs list `timeout_ms` ("`timeout_ms` is accepted only by the tools whose inputs
# list it in the spec").
SPEC_TIMEOUT_TOOLS = {
    "browser_navigate", "browser_history", "browser_screenshot", "browser_click", "browser_scroll",
    "browser_hover", "browser_fill_form", "browser_type_text", "browser_drag", "browser_wait",
    "browser_upload", "browser_execute", "browser_sequence", "browser_flow",
}

# (tool, property) -> the spec's closed values.
SPEC_ENUMS: dict[tuple[str, str], list[str]] = {
    ("browser_tabs", "action"): ["list", "focus", "close"],
    ("browser_navigate", "reuse"): ["domain", "never"],
    ("browser_navigate", "beforeunload"): ["discard"],
    ("browser_history", "action"): ["back", "forward", "reload"],
    ("browser_window", "action"): ["zoom", "resize"],
    ("browser_read", "mode"): ["article", "visible"],
    ("browser_inspect", "scope"): ["controls", "structure", "all", "document"],
    ("browser_find", "scope"): ["any", "control", "text"],
    ("browser_click", "button"): ["primary", "middle", "secondary"],
    ("browser_scroll", "direction"): ["up", "down", "left", "right"],
    ("browser_scroll", "amount"): ["small", "medium", "large", "page"],
    ("browser_press_key", "modifiers[]"): ["Alt", "Control", "Meta", "Shift"],
    ("browser_wait", "condition"): [
        "load_ready", "url_contains", "text_present", "text_absent", "target_present",
        "target_absent", "selector_present", "duration",
    ],
    ("browser_dialog", "action"): ["status", "accept", "dismiss", "respond"],
    ("browser_sequence", "steps[].action"): ["click", "fill", "type_text", "press_key", "scroll", "hover", "wait"],
    ("browser_flow", "on_error"): ["stop", "continue"],
    ("browser_record", "action"): ["start", "status", "stop", "save", "discard"],
    ("browser_diagnose", "source"): ["both", "console", "network"],
    ("browser_diagnose", "detail"): ["problems", "all"],
}

# (tool, property) -> values Ghostlight adds to the spec's closed set, each an additive
# extension of the 1.0 contract recorded in docs/DECISIONS.md.
EXTENSION_ENUMS: dict[tuple[str, str], list[str]] = {
    ("browser_inspect", "scope"): ["forms"],  # issue 33: a form snapshot
    # issue 33: outcome checks that answer only `satisfied`
    ("browser_wait", "condition"): ["value_equals", "checked", "unchecked", "title_contains", "url_matches", "count_at_least"],
}

# (tool, property) -> the spec's default.
SPEC_DEFAULTS: dict[tuple[str, str], Any] = {
    ("browser_navigate", "new_tab"): False,
    ("browser_navigate", "reuse"): "domain",
    ("browser_history", "bypass_cache"): False,
    ("browser_read", "max_chars"): 8000,
    ("browser_inspect", "scope"): "controls",
    ("browser_inspect", "max_items"): 80,
    ("browser_find", "scope"): "any",
    ("browser_find", "max_results"): 20,
    ("browser_click", "button"): "primary",
    ("browser_click", "click_count"): 1,
    ("browser_scroll", "direction"): "down",
    ("browser_scroll", "amount"): "medium",
    ("browser_type_text", "clear_first"): False,
    ("browser_press_key", "repeat"): 1,
    ("browser_execute", "max_result_chars"): 8000,
    ("browser_flow", "on_error"): "stop",
    ("browser_flow", "dry_run"): False,
    ("browser_diagnose", "source"): "both",
    ("browser_diagnose", "detail"): "problems",
    ("browser_diagnose", "limit"): 50,
}
for _tool in SPEC_TIMEOUT_TOOLS:
    SPEC_DEFAULTS[(_tool, "timeout_ms")] = 8000

# (tool, property) -> (min, max): integer ranges and item counts the spec states.
SPEC_BOUNDS: dict[tuple[str, str], tuple[int, int]] = {
    ("browser_window", "percent"): (25, 500),
    ("browser_window", "width"): (320, 7680),
    ("browser_window", "height"): (240, 4320),
    ("browser_read", "max_chars"): (500, 50000),
    ("browser_inspect", "max_depth"): (1, 12),
    ("browser_inspect", "max_items"): (1, 200),
    ("browser_find", "max_results"): (1, 50),
    ("browser_click", "click_count"): (1, 3),
    ("browser_scroll", "ticks"): (1, 10),
    ("browser_fill_form", "fields"): (1, 30),
    ("browser_press_key", "strokes"): (1, 20),
    ("browser_press_key", "repeat"): (1, 100),
    ("browser_upload", "paths"): (1, 5),
    ("browser_upload", "files"): (1, 5),
    ("browser_execute", "script"): (1, 20000),
    ("browser_execute", "max_result_chars"): (100, 20000),
    ("browser_sequence", "steps"): (2, 8),
    ("browser_flow", "steps"): (1, 20),
    ("browser_diagnose", "limit"): (1, 200),
}
for _tool in SPEC_TIMEOUT_TOOLS:
    SPEC_BOUNDS[(_tool, "timeout_ms")] = (100, 30000)

# The capabilities each tool (branch) requires: "Capability: ...".
SPEC_CAPABILITIES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("browser_tabs", {"action": "list"}, ["read"]),
    ("browser_tabs", {"action": "focus", "tab": "tab_conformance"}, []),
    ("browser_tabs", {"action": "close", "tab": "tab_conformance"}, ["action"]),
    ("browser_navigate", {"url": "https://example.com"}, ["read"]),
    ("browser_history", {"action": "reload"}, ["action"]),
    ("browser_window", {"action": "zoom", "percent": 100}, ["read"]),
    # An unknown tab: resize is not bound to the tab's page, so a real tab would really resize.
    ("browser_window", {"action": "resize", "width": 1280, "height": 800, "tab": "tab_conformance"}, []),
    ("browser_read", {}, ["read"]),
    ("browser_inspect", {}, ["read"]),
    ("browser_find", {"text": "Submit"}, ["read"]),
    ("browser_screenshot", {}, ["read"]),
    ("browser_click", {"target": "target_conformance"}, ["action"]),
    ("browser_scroll", {}, ["read"]),
    ("browser_hover", {"target": "target_conformance"}, ["read"]),
    ("browser_fill_form", {"fields": [{"target": "target_conformance", "value": "Ada"}]}, ["read", "write"]),
    ("browser_fill_form", {"fields": [{"target": "target_conformance", "value": "Ada"}], "submit_target": "target_conformance2"}, ["read", "write", "action"]),
    ("browser_type_text", {"target": "target_conformance", "text": "Ada"}, ["action"]),
    ("browser_press_key", {"key": "Enter"}, ["action"]),
    ("browser_drag", {"source_target": "target_conformance", "destination_target": "target_conformance2"}, ["action"]),
    ("browser_wait", {"condition": "load_ready"}, ["read"]),
    ("browser_dialog", {"action": "status"}, ["read"]),
    ("browser_dialog", {"action": "accept"}, ["action"]),
    ("browser_dialog", {"action": "dismiss"}, ["action"]),
    ("browser_dialog", {"action": "respond", "text": "Ada"}, ["action"]),
    ("browser_upload", {"target": "target_conformance", "files": [{"name": "a.txt", "data_base64": "YQ=="}]}, ["write"]),
    ("browser_execute", {"script": "document.title"}, ["execute"]),
    ("browser_record", {"action": "start"}, ["read"]),
    ("browser_record", {"action": "status"}, []),
    ("browser_record", {"action": "stop"}, []),
    ("browser_record", {"action": "discard"}, []),
    ("browser_record", {"action": "save"}, ["read"]),
    ("browser_record", {"action": "save", "download": True}, ["read"]),
    ("browser_record", {"action": "save", "target": "target_conformance"}, ["write"]),
    ("browser_diagnose", {}, ["read"]),
    ("policy_explain", {}, []),
]

STATUSES = {"succeeded", "blocked", "failed", "cancelled", "attention_required", "unknown"}
EFFECTS = {"none", "applied", "partial", "unknown"}
READINESS = {"not_applicable", "loading", "interactive", "complete", "unknown"}
ENVELOPE_FIELDS = ("invocation", "status", "effect", "readiness", "repeat_safe", "summary", "facts", "next_steps")
ERROR_STATUSES = {"failed", "blocked", "attention_required", "cancelled", "unknown"}
ROLE_TOKENS = {
    "button", "link", "checkbox", "radio", "switch", "textbox", "searchbox", "combobox", "listbox",
    "option", "slider", "spinbutton", "tab", "menuitem", "treeitem", "heading", "img", "dialog", "control",
}
ROLE_NOUNS = {
    "button": "button", "link": "link", "checkbox": "checkbox", "radio": "radio button",
    "switch": "switch", "textbox": "text field", "searchbox": "search field", "combobox": "combo box",
    "listbox": "list box", "option": "option", "slider": "slider", "spinbutton": "spin button",
    "tab": "tab", "menuitem": "menu item", "treeitem": "tree item", "heading": "heading",
    "img": "image", "dialog": "dialog", "control": "control",
}
NAMED_KEYS = [
    "Enter", "Tab", "Escape", "Backspace", "Delete", "Insert", "Home", "End", "PageUp", "PageDown",
    "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Space",
] + [f"F{n}" for n in range(1, 13)]
HANDLE_RE = re.compile(r"^(tab|target|view|snap|rec|inv)_[A-Za-z0-9]+$")
# Secrets the run types, fills, answers, runs or uploads: none may reach the audit.
SECRETS = {
    "typed": "Typed-Secret-7f3a",
    "fill": "Fill-Secret-91c2",
    "dialog": "Dialog-Secret-55e0",
    "script": "Script-Secret-c0de",
    "result": "Result-Secret-beef",
    "upload_name": "upload-secret-name.txt",
    "upload_data": "VXBsb2FkLVNlY3JldC1kYXRh",  # base64 of "Upload-Secret-data"
    "upload_file": "conformance-upload.txt",
}
PROBE = {"restrict_capabilities": [], "restrict_hosts": []}


def tiny_png() -> bytes:
    """A valid 1x1 PNG, for inline uploads."""
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00\xff")) + chunk(b"IEND", b"")


class CheckFailed(Exception):
    """A check's expectation did not hold."""


def expect(condition: Any, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def short(value: Any, limit: int = 600) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


# --------------------------------------------------------------------------------------------
# Calls and their outcomes
# --------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """One tools/call result, with its envelope pulled out."""

    server: str
    tool: str
    args: dict[str, Any]
    raw: Any
    error: str | None = None
    elapsed: float = 0.0

    @property
    def env(self) -> dict[str, Any]:
        return self.raw.structured_content or {} if self.raw is not None else {}

    @property
    def status(self) -> str | None:
        return self.env.get("status")

    @property
    def effect(self) -> str | None:
        return self.env.get("effect")

    @property
    def facts(self) -> dict[str, Any]:
        facts = self.env.get("facts")
        return facts if isinstance(facts, dict) else {}

    @property
    def summary(self) -> str:
        return self.env.get("summary") or ""

    @property
    def next_steps(self) -> list[str]:
        return self.env.get("next_steps") or []

    @property
    def reason(self) -> str | None:
        return self.facts.get("reason")

    @property
    def images(self) -> list[Any]:
        return [block for block in (self.raw.content[1:] if self.raw is not None else []) if block.type == "image"]

    def describe(self) -> str:
        if self.raw is None:
            return f"{self.tool}: no result ({self.error})"
        return short({"status": self.status, "effect": self.effect, "summary": self.summary, "facts": self.facts})

    def ok(self) -> "Outcome":
        expect(self.status == "succeeded", f"{self.tool} {short(self.args, 200)} did not succeed: {self.describe()}")
        return self


class Server:
    """One MCP session with a ghostlight-mcp process."""

    def __init__(self, name: str, session: ClientSession, run: "Run"):
        self.name = name
        self.session = session
        self.run = run

    async def call(self, tool: str, args: dict[str, Any] | None = None, *, timeout: float = 25.0) -> Outcome:
        args = {} if args is None else args
        started = time.monotonic()
        try:
            raw = await asyncio.wait_for(self.session.call_tool(tool, args), timeout)
        except RuntimeError as error:
            # The SDK re-validates a successful result against the tool's outputSchema.
            outcome = Outcome(self.name, tool, args, None, f"the SDK refused the result: {error}")
            self.run.seen.append(outcome)
            raise CheckFailed(f"{tool}: {outcome.error}") from error
        outcome = Outcome(self.name, tool, args, raw)
        outcome.elapsed = time.monotonic() - started
        self.run.seen.append(outcome)
        return outcome


# --------------------------------------------------------------------------------------------
# The run: servers, fixture, helpers shared by checks
# --------------------------------------------------------------------------------------------


@dataclass
class Run:
    args: argparse.Namespace
    engine: str
    base: str
    denied: str
    seen: list[Outcome] = field(default_factory=list)
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    main: Server | None = None
    private: Server | None = None
    manual: Server | None = None
    main_tab: str | None = None
    host: str = ""
    denied_host: str = ""
    upload_root: str = ""
    scratch: str = ""

    # ---- pages -----------------------------------------------------------------------------

    def url(self, path: str) -> str:
        return f"{self.base}{path}"

    async def page(self, path: str, server: Server | None = None) -> Outcome:
        """Navigate the main tab (the run's one controlled tab) to `path` on the fixture, leaving
        whatever page it shows even if that page asks to confirm leaving."""
        server = server or self.main
        args: dict[str, Any] = {"url": self.url(path), "beforeunload": "discard"}
        if server is self.main and self.main_tab:
            args["tab"] = self.main_tab
        opened = (await server.call("browser_navigate", args)).ok()
        if server is self.main:
            self.main_tab = opened.facts["tab"]
        return opened

    async def targets(self, scope: str = "all", server: Server | None = None, **extra: Any) -> dict[str, str]:
        """Name -> target handle from an inspection of the current page."""
        server = server or self.main
        inspected = (await server.call("browser_inspect", {"scope": scope, "max_items": 200, **extra})).ok()
        return {row[2]: row[0] for row in inspected.facts["items"] if len(row) > 2 and row[2]}

    async def js(self, script: str) -> Any:
        """Evaluate `script` in the main tab's page (execute is allowed on MAIN)."""
        ran = (await self.main.call("browser_execute", {"script": script})).ok()
        return ran.facts["value"]

    async def hovered(self) -> str:
        return await self.js("document.getElementById('hovered').textContent")

    async def out(self) -> str:
        return await self.js("document.getElementById('out') ? document.getElementById('out').textContent : ''")

    async def clean(self, thorough: bool) -> None:
        """Leave MAIN with its one tab (and, when `thorough`, no dialog and no recording)."""
        server = self.main
        if self.main_tab is None:
            return
        listed = await server.call("browser_tabs", {"action": "list"})
        others = [row["tab"] for row in listed.facts.get("tabs", []) if row["tab"] != self.main_tab]
        for tab in others:
            await server.call("browser_tabs", {"action": "close", "tab": tab})
        await server.call("browser_tabs", {"action": "focus", "tab": self.main_tab})
        if not thorough:
            return
        dialog = await server.call("browser_dialog", {"action": "status", "tab": self.main_tab})
        if dialog.facts.get("present"):
            await server.call("browser_dialog", {"action": "dismiss", "tab": self.main_tab})
        for _ in range(4):
            status = await server.call("browser_record", {"action": "status"})
            if status.reason == "ambiguous_recording":
                for recording in status.facts.get("recordings", []):
                    await server.call("browser_record", {"action": "discard", "recording": recording})
            elif status.status == "succeeded" and status.facts.get("state") != "discarded":
                await server.call("browser_record", {"action": "discard", "recording": status.facts["recording"]})
            else:
                break

    # ---- expectations on decoding ------------------------------------------------------------

    async def refused(self, tool: str, args: dict[str, Any], pointer: str, rules: set[str] | None = None,
                      server: Server | None = None) -> Outcome:
        """The call is a decode error naming `pointer`: the spec's error shape, nothing dispatched."""
        server = server or self.main
        outcome = await server.call(tool, args)
        expect_decode_error(outcome, pointer, rules)
        return outcome

    async def decodes(self, tool: str, args: dict[str, Any], server: Server | None = None) -> Outcome:
        """The call decodes: under empty restrictions it is refused by authority, not by the decoder."""
        server = server or self.main
        outcome = await server.call(tool, {**args, **PROBE})
        expect(
            outcome.reason != "invalid_arguments",
            f"{tool} {short(args, 300)} was refused by the decoder: {outcome.describe()}",
        )
        expect(outcome.effect == "none", f"{tool} {short(args, 200)} under empty restrictions had an effect: {outcome.describe()}")
        return outcome


def expect_decode_error(outcome: Outcome, pointer: str, rules: set[str] | None = None) -> None:
    """CLARIFICATIONS: "Invalid input (decode errors) comes back as an envelope, never as a protocol
    error: status `failed`, effect `none`, `repeat_safe: false`, MCP `isError: true`." The facts name
    the field (`pointer`) and the rule."""
    env = outcome.env
    expect(outcome.reason == "invalid_arguments", f"{outcome.tool} {short(outcome.args, 300)}: expected a decode error at {pointer}, got {outcome.describe()}")
    expect(env["status"] == "failed" and env["effect"] == "none" and env["repeat_safe"] is False,
           f"decode error shape: {outcome.describe()}")
    expect(outcome.raw.is_error is True, "a decode error without isError")
    expect(outcome.facts.get("pointer") == pointer, f"{outcome.tool}: pointer {outcome.facts.get('pointer')!r}, expected {pointer!r} ({outcome.summary})")
    expect(outcome.facts.get("tool") == outcome.tool, f"the decode error names tool {outcome.facts.get('tool')!r}")
    expect(isinstance(outcome.facts.get("rule"), str) and outcome.facts["rule"], "a decode error without a rule")
    if rules is not None:
        expect(outcome.facts["rule"] in rules, f"{outcome.tool} at {pointer}: rule {outcome.facts['rule']!r}, expected one of {sorted(rules)}")
    expect(pointer in outcome.summary, f"the summary does not name {pointer}: {outcome.summary!r}")


def expect_blocked(outcome: Outcome, reason: str | None = None) -> None:
    expect(outcome.status == "blocked", f"{outcome.tool} {short(outcome.args, 200)}: expected blocked, got {outcome.describe()}")
    expect(outcome.effect == "none" and outcome.env.get("repeat_safe") is False, f"a refusal with an effect: {outcome.describe()}")
    if reason is not None:
        expect(outcome.reason == reason, f"blocked for {outcome.reason!r}, expected {reason!r}: {outcome.summary}")


def expect_failed(outcome: Outcome, reason: str | None = None) -> None:
    expect(outcome.status == "failed", f"{outcome.tool} {short(outcome.args, 200)}: expected failed, got {outcome.describe()}")
    if reason is not None:
        expect(outcome.reason == reason, f"failed for {outcome.reason!r}, expected {reason!r}: {outcome.summary}")


def png_size(data: bytes) -> tuple[int, int]:
    expect(data[:8] == b"\x89PNG\r\n\x1a\n", "the image block is not a PNG")
    return struct.unpack(">II", data[16:24])


def matches_example(value: Any, spec: Any) -> bool:
    if spec is T:
        return isinstance(value, str) and value.startswith("target_")
    if isinstance(spec, dict):
        return isinstance(value, dict) and value.keys() == spec.keys() and all(matches_example(value[k], spec[k]) for k in spec)
    if isinstance(spec, list):
        return isinstance(value, list) and len(value) == len(spec) and all(matches_example(v, s) for v, s in zip(value, spec))
    return value == spec


def typed_branch(node: dict[str, Any], kind: str) -> dict[str, Any]:
    """The branch of a multi-type value (`anyOf` of single-type branches) that holds `kind`, or
    the node itself when it is not a union."""
    for branch in node.get("anyOf") or []:
        if isinstance(branch, dict) and branch.get("type") == kind:
            return branch
    return node


def schema_prop(tool_schema: dict[str, Any], path: str) -> dict[str, Any] | None:
    """A property schema by a dotted path (`steps[].action`, `modifiers[]`)."""
    node: Any = tool_schema
    for part in path.split("."):
        items = part.endswith("[]")
        name = part[:-2] if items else part
        node = (node.get("properties") or {}).get(name) if name else node
        if node is None:
            return None
        if items:
            node = node.get("items")
            if node is None:
                return None
    return node


def walk_objects(schema: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every object schema inside `schema` with its path."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            found.append((path or "/", schema))
        for key, value in (schema.get("properties") or {}).items():
            found.extend(walk_objects(value, f"{path}/{key}"))
        if isinstance(schema.get("items"), dict):
            found.extend(walk_objects(schema["items"], f"{path}/[]"))
    return found


# --------------------------------------------------------------------------------------------
# The registry of checks
# --------------------------------------------------------------------------------------------

CheckFn = Callable[[Run], Awaitable[None]]
CHECKS: list[tuple[str, str, CheckFn]] = []


def check(section: str) -> Callable[[CheckFn], CheckFn]:
    def register(fn: CheckFn) -> CheckFn:
        CHECKS.append((section, fn.__name__, fn))
        return fn

    return register


S_CONTRACT = "Contract rules"
S_FLOW_CONTRACT = "Contract rules: browser_flow"
S_ENVELOPE = "Result envelope"
S_CATALOG = "Catalog"
S_EVERY = "Every result of the run"


# ============================================================================================
# Contract rules
# ============================================================================================


@check(S_CONTRACT)
async def contract_no_controlled_tab_points_to_browser_tabs(run: Run) -> None:
    """"Omission selects the only controlled tab, or the sole active controlled tab when ownership
    is unambiguous. Otherwise the call is rejected and points to `browser_tabs`." (Before any tab
    exists.)"""
    expect(run.main_tab is None, "this check must run before MAIN opens a tab")
    read = await run.main.call("browser_read", {})
    expect_failed(read)
    expect(read.effect == "none", f"effect {read.effect}")
    expect(any("browser_tabs" in step for step in read.next_steps), f"no next step points to browser_tabs: {read.next_steps}")


@check(S_CONTRACT)
async def contract_catalog_is_exactly_the_24_tools(run: Run) -> None:
    """"The 24 tools below are the complete 1.0 catalog." """
    names = list(run.tools)
    expect(len(names) == 24, f"{len(names)} tools listed")
    expect(set(names) == set(SPEC_TOOLS), f"missing {set(SPEC_TOOLS) - set(names)}, extra {set(names) - set(SPEC_TOOLS)}")


@check(S_CONTRACT)
async def contract_input_objects_are_closed(run: Run) -> None:
    """"Input objects and nested objects set `additionalProperties` to `false`." (A flow step's
    `arguments` is another tool's argument object, closed by that tool's decoder.)"""
    open_objects = []
    for name, tool in run.tools.items():
        for path, obj in walk_objects(tool["inputSchema"]):
            if name == "browser_flow" and path == "/steps/[]/arguments":
                continue
            if obj.get("additionalProperties") is not False:
                open_objects.append(f"{name}{path}")
    expect(not open_objects, f"objects without additionalProperties: false: {open_objects}")


@check(S_CONTRACT)
async def contract_flow_arguments_object_is_decoded_closed(run: Run) -> None:
    """"Input objects and nested objects set `additionalProperties` to `false`." -- the one open
    object, a flow step's `arguments`, still refuses a member its tool does not declare."""
    await run.refused("browser_flow", {"steps": [{"id": "a", "tool": "browser_read", "arguments": {"bogus": 1}}]},
                      "/steps/0/arguments/bogus", {"unknown_field"})


@check(S_CONTRACT)
async def contract_input_schemas_are_flat_objects(run: Run) -> None:
    """"Every input schema is a top-level object without root-level `oneOf`, `allOf`, or `anyOf`"
    and "Conditional inputs advertise one portable teaching envelope"."""
    bad = []

    def nested(name: str, node: Any, at: str) -> None:
        """Below the root, no oneOf/allOf, and anyOf only as the portable spelling of a value of
        several types (one branch per type, each a scalar or an array of one scalar type: a fill
        value's option list, issue 33): never around objects, never a second shape."""
        if isinstance(node, dict):
            for key in ("oneOf", "allOf"):
                if key in node:
                    bad.append(f"{name}{at}: {key}")
            branches = node.get("anyOf")
            if branches is not None:
                scalars = ("string", "integer", "number", "boolean", "null")

                def branch_ok(b: Any) -> bool:
                    if not isinstance(b, dict):
                        return False
                    if b.get("type") == "array":
                        items = b.get("items")
                        return isinstance(items, dict) and items.get("type") in scalars and "anyOf" not in items
                    return b.get("type") in scalars

                scalar = isinstance(branches, list) and all(branch_ok(b) for b in branches)
                if not scalar:
                    bad.append(f"{name}{at}: anyOf that is not a union of scalar types")
            for key, value in node.items():
                nested(name, value, f"{at}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                nested(name, value, f"{at}/{index}")

    for name, tool in run.tools.items():
        schema = tool["inputSchema"]
        if schema.get("type") != "object":
            bad.append(f"{name}: type {schema.get('type')!r}")
        for key in ("oneOf", "allOf", "anyOf"):
            if key in schema:
                bad.append(f"{name}: root-level {key}")
        for key, value in schema.items():
            nested(name, value, f"/{key}")
    expect(not bad, f"{bad}")


@check(S_CONTRACT)
async def contract_decoder_enforces_the_branch_before_governance(run: Run) -> None:
    """"the typed decoder enforces the exact branch before governance or browser dispatch": a call
    mixing two branches is a decode error even under restrictions that would block it."""
    cases = [
        ("browser_click", {"target": "target_a", "view": "view_a", "x": 1, "y": 1}),
        ("browser_screenshot", {"target": "target_a", "full_page": True}),
        ("browser_drag", {"source_target": "target_a", "destination_target": "target_b", "view": "view_a", "start_x": 0, "start_y": 0, "end_x": 1, "end_y": 1}),
        ("browser_upload", {"target": "target_a", "paths": ["/a.txt"], "files": [{"name": "a", "data_base64": "YQ=="}]}),
        ("browser_scroll", {"target": "target_a", "view": "view_a", "x": 1, "y": 1, "ticks": 1, "direction": "down"}),
        ("browser_press_key", {"key": "a", "strokes": ["b"]}),
    ]
    for tool, args in cases:
        outcome = await run.main.call(tool, {**args, **PROBE})
        expect(outcome.reason == "invalid_arguments", f"{tool} {short(args)} was not refused by the decoder first: {outcome.describe()}")
        expect_decode_error(outcome, outcome.facts["pointer"], {"conflict"})


@check(S_CONTRACT)
async def contract_declarations_describe_every_field(run: Run) -> None:
    """"Each declaration includes concise field descriptions" """
    missing = []

    def walk(schema: dict[str, Any], path: str) -> None:
        for key, prop in (schema.get("properties") or {}).items():
            if not isinstance(prop.get("description"), str) or not prop["description"].strip():
                missing.append(f"{path}/{key}")
            walk(prop, f"{path}/{key}")
            if isinstance(prop.get("items"), dict):
                walk(prop["items"], f"{path}/{key}/[]")

    for name, tool in run.tools.items():
        expect(isinstance(tool.get("description"), str) and tool["description"].strip(), f"{name} has no description")
        walk(tool["inputSchema"], name)
    expect(not missing, f"properties without a description: {missing}")


@check(S_CONTRACT)
async def contract_declarations_carry_the_shortest_example(run: Run) -> None:
    """"Each declaration includes ... one shortest valid example" -- the spec's shortest call."""
    wrong = []
    for name in SPEC_TOOLS:
        examples = run.tools[name]["inputSchema"].get("examples")
        if not (isinstance(examples, list) and len(examples) == 1 and matches_example(examples[0], SPEC_SHORTEST[name])):
            wrong.append(f"{name}: {short(examples, 200)}")
    expect(not wrong, f"examples differ from the spec's shortest calls: {wrong}")


@check(S_CONTRACT)
async def contract_declared_examples_decode(run: Run) -> None:
    """"one shortest valid example": every advertised example passes the tool's own decoder."""
    for name in SPEC_TOOLS:
        for example in run.tools[name]["inputSchema"].get("examples") or []:
            await run.decodes(name, example)


@check(S_CONTRACT)
async def contract_output_schema_is_the_envelope(run: Run) -> None:
    """"Each declaration includes ... a truthful output schema": every tool's outputSchema is the
    envelope object with the spec's closed `status`, `effect` and `readiness` values."""
    for name, tool in run.tools.items():
        schema = tool.get("outputSchema")
        expect(isinstance(schema, dict) and schema.get("type") == "object", f"{name}: no object outputSchema")
        props = schema.get("properties") or {}
        expect(set(ENVELOPE_FIELDS) <= set(props), f"{name}: outputSchema lacks {set(ENVELOPE_FIELDS) - set(props)}")
        expect(set(ENVELOPE_FIELDS) <= set(schema.get("required") or []), f"{name}: outputSchema does not require {set(ENVELOPE_FIELDS) - set(schema.get('required') or [])}")
        expect(set(props["status"].get("enum") or []) == STATUSES, f"{name}: status enum {props['status'].get('enum')}")
        expect(set(props["effect"].get("enum") or []) == EFFECTS, f"{name}: effect enum {props['effect'].get('enum')}")
        expect(set(props["readiness"].get("enum") or []) == READINESS, f"{name}: readiness enum {props['readiness'].get('enum')}")


@check(S_CONTRACT)
async def contract_standard_annotations(run: Run) -> None:
    """"Each declaration includes ... standard MCP annotations" (and `policy_explain` is
    "Read-only")."""
    for name, tool in run.tools.items():
        annotations = tool.get("annotations") or {}
        for hint in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
            expect(isinstance(annotations.get(hint), bool), f"{name}: annotation {hint} is {annotations.get(hint)!r}")
    expect(run.tools["policy_explain"]["annotations"]["readOnlyHint"] is True, "policy_explain is not readOnlyHint")


@check(S_CONTRACT)
async def contract_schema_defaults_are_the_stated_defaults(run: Run) -> None:
    """"Omitted optional fields use the defaults stated here." -- every stated default is the
    advertised one."""
    wrong = []
    for (tool, prop), default in SPEC_DEFAULTS.items():
        node = schema_prop(run.tools[tool]["inputSchema"], prop)
        if node is None or node.get("default") != default:
            wrong.append(f"{tool}.{prop}: {None if node is None else node.get('default')!r} (spec {default!r})")
    expect(not wrong, f"{wrong}")


@check(S_CONTRACT)
async def contract_selector_bounds_are_advertised(run: Run) -> None:
    """"The implementation owns bounds and defaults as named constants shared by schema rendering
    and decoding." -- the typed selector's enforced bounds (a name of at most 200 characters, a
    role from the closed set) appear in its schema."""
    outcome = await run.main.call("browser_click", {"selector": {"name": "a" * 201}, **PROBE})
    enforced_name = outcome.reason == "invalid_arguments"
    outcome = await run.main.call("browser_click", {"selector": {"name": "Send", "role": "widget"}, **PROBE})
    enforced_role = outcome.reason == "invalid_arguments"
    selector = schema_prop(run.tools["browser_click"]["inputSchema"], "selector") or {}
    name = (selector.get("properties") or {}).get("name") or {}
    role = (selector.get("properties") or {}).get("role") or {}
    problems = []
    if enforced_name and name.get("maxLength") != 200:
        problems.append(f"selector.name is refused past 200 characters but advertises maxLength {name.get('maxLength')!r}")
    # The role filter is advertised enum-free by a documented decision (docs/DECISIONS.md: it
    # repeats on most tools; issue 18 keeps it so): a described string, whose refusal lists the
    # whole closed set.
    if enforced_role and not (role.get("type") == "string" and role.get("description")):
        problems.append(f"selector.role is refused outside the closed role set but is not described: {short(role, 120)}")
    if enforced_role and "button" not in json.dumps(outcome.env):
        problems.append("the role refusal does not list the closed role set")
    expect(not problems, "; ".join(problems))


@check(S_CONTRACT)
async def contract_every_tool_takes_the_restrictions(run: Run) -> None:
    """"Every tool may accept these flat request restrictions: `restrict_hosts` (string array),
    `restrict_capabilities` (string array)" and "Capabilities are `read`, `action`, `write`, and
    `execute`." """
    for name, tool in run.tools.items():
        props = tool["inputSchema"].get("properties") or {}
        hosts, caps = props.get("restrict_hosts"), props.get("restrict_capabilities")
        expect(hosts and hosts.get("type") == "array" and hosts.get("items", {}).get("type") == "string", f"{name}: restrict_hosts {short(hosts)}")
        expect(caps and caps.get("type") == "array" and set(caps.get("items", {}).get("enum") or []) == {"read", "action", "write", "execute"},
               f"{name}: restrict_capabilities {short(caps)}")
        expect("restrict_hosts" not in (tool["inputSchema"].get("required") or []), f"{name} requires restrict_hosts")


@check(S_CONTRACT)
async def contract_empty_restrictions_narrow_to_nothing(run: Run) -> None:
    """CLARIFICATIONS: "`restrict_capabilities: []` and `restrict_hosts: []` narrow to nothing" """
    await run.page("/hello")
    expect_blocked(await run.main.call("browser_read", {"restrict_capabilities": []}), "capability_denied")
    blocked = await run.main.call("browser_navigate", {"url": run.url("/conf/main"), "restrict_hosts": []})
    expect_blocked(blocked, "host_denied")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    expect(listed.facts["tabs"][0]["url"].endswith("/hello"), "a navigation refused by restrict_hosts moved the tab")


@check(S_CONTRACT)
async def contract_unknown_capability_is_a_decode_error(run: Run) -> None:
    """CLARIFICATIONS: "an unknown capability name is a decode error." """
    await run.refused("browser_read", {"restrict_capabilities": ["teleport"]}, "/restrict_capabilities/0")


@check(S_CONTRACT)
async def contract_restrictions_only_reduce_authority(run: Run) -> None:
    """"Restrictions can only reduce configured authority." -- naming a denied capability or host
    in a restriction does not grant it."""
    await run.page("/hello", server=run.private)
    refused = await run.private.call("browser_execute", {"script": "1", "restrict_capabilities": ["execute"]})
    expect_blocked(refused, "capability_denied")
    for pattern in (run.denied_host.split(":")[0], run.denied_host, "*"):
        denied = await run.main.call("browser_navigate", {"url": f"{run.denied}/hello", "restrict_hosts": [pattern]})
        expect_blocked(denied, "host_denied")


@check(S_CONTRACT)
async def contract_restrict_hosts_admits_matching_patterns(run: Run) -> None:
    """"`restrict_hosts`: Allow only these host patterns for this invocation." """
    await run.page("/hello")
    (await run.main.call("browser_read", {"restrict_hosts": ["127.0.0.1"]})).ok()
    (await run.main.call("browser_read", {"restrict_hosts": [run.host]})).ok()
    outside = await run.main.call("browser_read", {"restrict_hosts": ["example.com"]})
    expect_blocked(outside)
    expect(outside.facts.get("url") in (None, f"http://{run.host}"), f"a refused page's URL carries more than scheme://host:port: {outside.facts.get('url')}")


@check(S_CONTRACT)
async def contract_omitted_tab_selects_the_only_tab(run: Run) -> None:
    """"Omission selects the only controlled tab" """
    await run.page("/hello")
    read = (await run.main.call("browser_read", {})).ok()
    expect(read.facts["tab"] == run.main_tab, f"read tab {read.facts['tab']} is not the only tab {run.main_tab}")


@check(S_CONTRACT)
async def contract_omitted_tab_selects_the_sole_active_tab(run: Run) -> None:
    """"Omission selects ... the sole active controlled tab when ownership is unambiguous." """
    await run.page("/hello")
    other = (await run.main.call("browser_navigate", {"url": run.url("/conf/article"), "new_tab": True})).ok()
    tab = other.facts["tab"]
    expect(tab != run.main_tab, "new_tab reused the main tab")
    read = (await run.main.call("browser_read", {})).ok()
    expect(read.facts["tab"] == tab, f"with the new tab active, the default tab was {read.facts['tab']}")
    (await run.main.call("browser_tabs", {"action": "focus", "tab": run.main_tab})).ok()
    read = (await run.main.call("browser_read", {})).ok()
    expect(read.facts["tab"] == run.main_tab, f"after focusing the main tab, the default tab was {read.facts['tab']}")
    (await run.main.call("browser_tabs", {"action": "close", "tab": tab})).ok()


@check(S_CONTRACT)
async def contract_navigating_a_closed_handle_recreates_its_tab(run: Run) -> None:
    """"navigating by a handle whose tab has closed recreates that tab through the governed open
    path under the same handle and says so in the summary." """
    await run.page("/hello")
    other = (await run.main.call("browser_navigate", {"url": run.url("/hello"), "new_tab": True})).ok()
    tab = other.facts["tab"]
    (await run.main.call("browser_tabs", {"action": "close", "tab": tab})).ok()
    again = (await run.main.call("browser_navigate", {"url": run.url("/conf/article"), "tab": tab})).ok()
    expect(again.facts["tab"] == tab, f"the handle changed: {again.facts['tab']}")
    expect(again.facts.get("created") is True, f"created {again.facts.get('created')}")
    expect(tab in again.summary or "closed" in again.summary, f"the summary does not say the tab was recreated: {again.summary!r}")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    expect(tab in [row["tab"] for row in listed.facts["tabs"]], "the recreated tab is not listed")
    (await run.main.call("browser_tabs", {"action": "close", "tab": tab})).ok()
    blocked = await run.main.call("browser_navigate", {"url": f"{run.denied}/hello", "tab": tab})
    expect_blocked(blocked, "host_denied")


@check(S_CONTRACT)
async def contract_closing_a_gone_tab_succeeds_untouched(run: Run) -> None:
    """"Closing a handle whose tab is already gone succeeds without touching the browser." """
    await run.page("/hello")
    other = (await run.main.call("browser_navigate", {"url": run.url("/hello"), "new_tab": True})).ok()
    tab = other.facts["tab"]
    (await run.main.call("browser_tabs", {"action": "close", "tab": tab})).ok()
    again = (await run.main.call("browser_tabs", {"action": "close", "tab": tab})).ok()
    expect(again.effect == "none", f"effect {again.effect}")
    expect(again.facts.get("closed") is True and again.facts.get("tab") == tab, f"facts {again.facts}")


@check(S_CONTRACT)
async def contract_target_handles_are_tied_to_one_tab(run: Run) -> None:
    """"A target handle is tied to one tab and document generation" """
    await run.page("/conf/main")
    targets = await run.targets()
    other = (await run.main.call("browser_navigate", {"url": run.url("/conf/main"), "new_tab": True})).ok()
    wrong = await run.main.call("browser_click", {"target": targets["Count clicks"], "tab": other.facts["tab"]})
    expect_failed(wrong)
    expect(wrong.effect == "none", f"effect {wrong.effect}")
    (await run.main.call("browser_tabs", {"action": "close", "tab": other.facts["tab"]})).ok()
    expect(await run.out() == "", "a target of another tab acted")


@check(S_CONTRACT)
async def contract_navigation_makes_targets_stale(run: Run) -> None:
    """"a committed navigation makes prior target handles stale, and acting on one forces
    re-inspection of a page the model has actually seen." """
    await run.page("/conf/main")
    targets = await run.targets()
    await run.page("/conf/main")
    stale = await run.main.call("browser_click", {"target": targets["Count clicks"]})
    expect_failed(stale)
    expect(stale.effect == "none", f"effect {stale.effect}")
    expect(any("browser_inspect" in s or "browser_find" in s for s in stale.next_steps), f"no re-inspection step: {stale.next_steps}")
    expect(await run.out() == "", "a stale target acted")


@check(S_CONTRACT)
async def contract_selectors_are_accepted_wherever_targets_are(run: Run) -> None:
    """"Typed semantic selectors (name, optional role, optional exact match) are accepted wherever
    target handles are, including `selector_present` waits" """
    for tool in run.tools:
        props = run.tools[tool]["inputSchema"].get("properties") or {}
        for target_field, selector_field in (("target", "selector"), ("submit_target", "submit_selector"),
                                              ("source_target", "source_selector"), ("destination_target", "destination_selector")):
            if target_field in props:
                expect(selector_field in props, f"{tool} takes {target_field} but not {selector_field}")
    await run.page("/conf/main")
    (await run.main.call("browser_click", {"selector": {"name": "Count clicks", "role": "button"}})).ok()
    expect((await run.out()).startswith("clicks=1"), "the selector click did not reach the button")
    (await run.main.call("browser_hover", {"selector": {"name": "Hover target"}})).ok()
    expect(await hovered(run) == "hovered", "the selector hover did not reach the button")
    (await run.main.call("browser_scroll", {"selector": {"name": "Drop zone"}})).ok()
    (await run.main.call("browser_screenshot", {"selector": {"name": "Drop zone"}})).ok()
    (await run.main.call("browser_read", {"selector": {"name": "Conformance", "role": "heading"}})).ok()
    (await run.main.call("browser_type_text", {"selector": {"name": "Full name"}, "text": "Ada"})).ok()
    (await run.main.call("browser_fill_form", {"fields": [{"selector": {"name": "Count"}, "value": 3}]})).ok()
    (await run.main.call("browser_drag", {"source_selector": {"name": "Drag source"}, "destination_selector": {"name": "Drop zone"}})).ok()
    expect(await run.out() == "dropped on zone", f"the selector drag did not land: {await run.out()!r}")
    (await run.main.call("browser_wait", {"condition": "selector_present", "selector": {"name": "Submit form"}})).ok()


@check(S_CONTRACT)
async def contract_selector_matching(run: Run) -> None:
    """CLARIFICATIONS: "`exact` defaults to `false` (case-insensitive match on the normalized
    accessible name, exact names ranked first); `role` filters. One visible match is used; several
    after ranking refuse the call as ambiguous, with up to five candidates (role and name) in facts
    and a next step to use `browser_find`." """
    await run.page("/conf/main")
    (await run.main.call("browser_click", {"selector": {"name": "count CLICKS"}})).ok()
    expect((await run.out()).startswith("clicks=1"), "a case-insensitive selector did not match")
    missing = await run.main.call("browser_click", {"selector": {"name": "count CLICKS", "exact": True}})
    expect_failed(missing)
    ambiguous = await run.main.call("browser_click", {"selector": {"name": "Show", "role": "button"}})
    expect_failed(ambiguous)
    candidates = ambiguous.facts.get("candidates") or []
    expect(2 <= len(candidates) <= 5, f"candidates {candidates}")
    expect(all(set(c) >= {"role", "name"} and c["role"] in ROLE_TOKENS for c in candidates), f"candidates without a role token and a name: {candidates}")
    hidden = await run.main.call("browser_click", {"selector": {"name": "Hidden button"}})
    expect(hidden.status == "failed" and hidden.effect == "none", f"a hidden control was used: {hidden.describe()}")
    expect(any("browser_find" in s for s in ambiguous.next_steps), f"no next step to browser_find: {ambiguous.next_steps}")
    # `role` filters: "Count" names a spin button and, by prefix, the "Count clicks" button.
    (await run.main.call("browser_click", {"selector": {"name": "Count clicks", "role": "button"}})).ok()
    wrong_role = await run.main.call("browser_click", {"selector": {"name": "Count clicks", "role": "link"}})
    expect_failed(wrong_role)
    expect((await run.out()).startswith("clicks=2"), f"page state {await run.out()!r}")


@check(S_CONTRACT)
async def contract_view_handles_bind_geometry(run: Run) -> None:
    """"View handles ... bind rendered coordinates to one tab, document generation, viewport origin,
    viewport size, device scale, and zoom. Coordinate input is rejected when that binding is no
    longer current." """
    await run.page("/conf/main")
    view = (await run.main.call("browser_screenshot", {})).ok().facts["view"]
    (await run.main.call("browser_scroll", {"direction": "down", "amount": "small"})).ok()
    stale = await run.main.call("browser_click", {"view": view, "x": 5, "y": 5})
    expect_failed(stale)
    expect(stale.effect == "none", f"effect {stale.effect}")
    view = (await run.main.call("browser_screenshot", {})).ok().facts["view"]
    (await run.main.call("browser_window", {"action": "resize", "width": 1100, "height": 760})).ok()
    expect_failed(await run.main.call("browser_click", {"view": view, "x": 5, "y": 5}))
    (await run.main.call("browser_window", {"action": "resize", "width": 1280, "height": 800})).ok()
    view = (await run.main.call("browser_screenshot", {})).ok().facts["view"]
    await run.page("/conf/main")
    expect_failed(await run.main.call("browser_hover", {"view": view, "x": 5, "y": 5}))
    view = (await run.main.call("browser_screenshot", {})).ok().facts["view"]
    other = (await run.main.call("browser_navigate", {"url": run.url("/conf/main"), "new_tab": True})).ok()
    wrong_tab = await run.main.call("browser_click", {"view": view, "x": 5, "y": 5, "tab": other.facts["tab"]})
    expect_failed(wrong_tab)
    (await run.main.call("browser_tabs", {"action": "close", "tab": other.facts["tab"]})).ok()
    expect(await run.out() == "", "a stale view acted")


async def center_of(run: Run, element_id: str) -> tuple[float, float, float, float]:
    return tuple(await run.js(
        f"var r = document.getElementById('{element_id}').getBoundingClientRect(); [r.left, r.top, r.width, r.height]"))  # type: ignore[return-value]


@check(S_CONTRACT)
async def contract_coordinates_are_image_pixels(run: Run) -> None:
    """"Coordinates use the returned image dimensions, with the top-left pixel at `(0, 0)`. A bounded
    region screenshot returns a new view with its own transform, so another region can be selected
    from the magnified image." """
    await run.page("/conf/main")
    shot = (await run.main.call("browser_screenshot", {})).ok()
    inner_width = await run.js("window.innerWidth")
    scale = shot.facts["width"] / inner_width
    left, top, width, height = await center_of(run, "counter")
    x, y = int((left + width / 2) * scale), int((top + height / 2) * scale)
    (await run.main.call("browser_click", {"view": shot.facts["view"], "x": x, "y": y})).ok()
    expect((await run.out()).startswith("clicks=1"), f"a click at the button's image pixel missed: {await run.out()!r}")
    rx, ry = max(0, int(left * scale) - 10), max(0, int(top * scale) - 10)
    rw, rh = int(width * scale) + 20, int(height * scale) + 20
    region = (await run.main.call("browser_screenshot", {"view": shot.facts["view"], "x": rx, "y": ry, "width": rw, "height": rh})).ok()
    expect(region.facts["view"] != shot.facts["view"], "the region did not return a new view")
    expect(region.facts["width"] >= rw and region.facts["height"] >= rh, f"the region is not magnified: {region.facts}")
    rwidth, rheight = region.facts["width"], region.facts["height"]
    (await run.main.call("browser_click", {"view": region.facts["view"], "x": rwidth // 2, "y": rheight // 2})).ok()
    expect((await run.out()).startswith("clicks=2"), f"a click at the region's centre missed: {await run.out()!r}")
    for x, y in ((shot.facts["width"], 0), (0, shot.facts["height"]), (shot.facts["width"] + 5, 5)):
        outside = await run.main.call("browser_click", {"view": shot.facts["view"], "x": x, "y": y})
        expect(outside.status == "failed" and outside.effect == "none", f"a point outside the image ({x}, {y}) was accepted: {outside.describe()}")
    inner = (await run.main.call("browser_screenshot", {"view": region.facts["view"], "x": rwidth // 4, "y": rheight // 4,
                                                        "width": rwidth // 2, "height": rheight // 2})).ok()
    (await run.main.call("browser_click", {"view": inner.facts["view"], "x": inner.facts["width"] // 2, "y": inner.facts["height"] // 2})).ok()
    expect((await run.out()).startswith("clicks=3"), f"a click through a region of a region missed: {await run.out()!r}")


@check(S_CONTRACT)
async def contract_timeouts_are_bounded(run: Run) -> None:
    """"Timeouts are bounded from 100 to 30000 milliseconds and default to 8000 milliseconds." """
    for tool in sorted(SPEC_TIMEOUT_TOOLS):
        node = schema_prop(run.tools[tool]["inputSchema"], "timeout_ms") or {}
        expect((node.get("minimum"), node.get("maximum"), node.get("default")) == (100, 30000, 8000), f"{tool}.timeout_ms {short(node)}")
    await run.refused("browser_wait", {"condition": "load_ready", "timeout_ms": 99}, "/timeout_ms", {"out_of_range"})
    await run.refused("browser_wait", {"condition": "load_ready", "timeout_ms": 30001}, "/timeout_ms", {"out_of_range"})
    await run.decodes("browser_wait", {"condition": "load_ready", "timeout_ms": 100})
    await run.decodes("browser_wait", {"condition": "load_ready", "timeout_ms": 30000})


@check(S_CONTRACT)
async def contract_timeout_only_where_listed(run: Run) -> None:
    """CLARIFICATIONS: "`timeout_ms` is accepted only by the tools whose inputs list it in the spec;
    elsewhere it is an unknown field." """
    for tool in SPEC_TOOLS:
        props = run.tools[tool]["inputSchema"].get("properties") or {}
        expect(("timeout_ms" in props) == (tool in SPEC_TIMEOUT_TOOLS), f"{tool}: timeout_ms advertised={'timeout_ms' in props}")
    for tool in sorted(set(SPEC_TOOLS) - SPEC_TIMEOUT_TOOLS):
        args = {"browser_tabs": {"action": "list"}, "browser_window": {"action": "zoom", "percent": 100},
                "browser_find": {"text": "a"}, "browser_dialog": {"action": "status"},
                "browser_record": {"action": "status"}}.get(tool, {"key": "a"} if tool == "browser_press_key" else {})
        await run.refused(tool, {**args, "timeout_ms": 1000}, "/timeout_ms", {"unknown_field"})


@check(S_CONTRACT)
async def contract_text_is_bounded(run: Run) -> None:
    """"Text is UTF-8 and bounded." -- every free-text input advertises a length bound, and text past
    it is refused."""
    handle_fields = {"tab", "target", "view", "root", "recording", "source_image", "submit_target",
                     "source_target", "destination_target", "after"}
    unbounded = []
    for name, tool in run.tools.items():
        def walk(schema: dict[str, Any], path: str) -> None:
            for key, prop in (schema.get("properties") or {}).items():
                types = prop.get("type")
                types = types if isinstance(types, list) else [types]
                # A value of several types bounds its text in the string branch of its anyOf.
                types += [b.get("type") for b in prop.get("anyOf") or [] if isinstance(b, dict)]
                bounded = "maxLength" in prop or "maxLength" in typed_branch(prop, "string")
                # The typed selector's name and role are held by contract_selector_bounds_are_advertised.
                in_selector = path.endswith("selector")
                if "string" in types and "enum" not in prop and key not in handle_fields and not key.startswith("restrict_") \
                        and not bounded and not in_selector:
                    unbounded.append(f"{name}{path}/{key}")
                walk(prop, f"{path}/{key}")
                if isinstance(prop.get("items"), dict):
                    items = prop["items"]
                    if items.get("type") == "string" and "enum" not in items and not key.startswith("restrict_") and "maxLength" not in items:
                        unbounded.append(f"{name}{path}/{key}/[]")
                    walk(items, f"{path}/{key}/[]")
        walk(tool["inputSchema"], "")
    await run.refused("browser_type_text", {"target": "target_a", "text": "é" * 10001}, "/text", {"length"})
    await run.refused("browser_find", {"text": "é" * 201}, "/text", {"length"})
    expect(not unbounded, f"free-text inputs without an advertised maxLength: {unbounded}")


@check(S_CONTRACT)
async def contract_urls_are_absolute_http_or_https(run: Run) -> None:
    """"URLs must be absolute `http` or `https` URLs." """
    for url in ("ftp://example.com/", "/relative/path", "javascript:alert(1)", "file:///etc/passwd", "example.com"):
        await run.refused("browser_navigate", {"url": url}, "/url")
    await run.decodes("browser_navigate", {"url": "https://example.com/path?q=1"})
    await run.decodes("browser_navigate", {"url": "http://example.com:8080/"})


@check(S_CONTRACT)
async def contract_handles_carry_their_kind(run: Run) -> None:
    """CLARIFICATIONS: "Handles are opaque strings with a kind prefix: `tab_`, `target_`, `view_`,
    `snap_`, `rec_`, `inv_`. A handle of the wrong kind is refused naming both kinds." """
    refused = await run.refused("browser_tabs", {"action": "focus", "tab": "target_abc"}, "/tab", {"invalid_handle"})
    expect("tab" in refused.summary and "target" in refused.summary, f"the refusal does not name both kinds: {refused.summary!r}")
    refused = await run.refused("browser_click", {"target": "view_abc"}, "/target", {"invalid_handle"})
    expect("target" in refused.summary and "view" in refused.summary, f"the refusal does not name both kinds: {refused.summary!r}")
    await run.refused("browser_click", {"view": "tab_abc", "x": 1, "y": 1}, "/view", {"invalid_handle"})
    await run.refused("browser_record", {"action": "status", "recording": "snap_abc"}, "/recording", {"invalid_handle"})


@check(S_CONTRACT)
async def contract_invalid_arguments_dispatch_nothing(run: Run) -> None:
    """"the typed decoder enforces the exact branch before governance or browser dispatch" -- a
    refused call leaves the page as it was."""
    await run.page("/conf/main")
    targets = await run.targets()
    await run.refused("browser_click", {"target": targets["Count clicks"], "click_count": 4}, "/click_count", {"out_of_range"})
    await run.refused("browser_fill_form", {"fields": [{"target": targets["Full name"], "value": "Ada", "bogus": 1}]}, "/fields/0/bogus", {"unknown_field"})
    await run.refused("browser_navigate", {"url": run.url("/hello"), "timeout_ms": 50}, "/timeout_ms", {"out_of_range"})
    expect(await run.out() == "", "a refused click reached the page")
    expect(await run.js("document.getElementById('name').value") == "", "a refused fill reached the page")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    expect(listed.facts["tabs"][0]["url"].endswith("/conf/main"), "a refused navigation moved the tab")


# ============================================================================================
# Contract rules: browser_flow
# ============================================================================================


def step(step_id: str, tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"id": step_id, "tool": tool}
    if arguments is not None:
        row["arguments"] = arguments
    return row


def ref(step_id: str, pointer: str) -> dict[str, Any]:
    return {"flow_ref": {"step": step_id, "pointer": pointer}}


@check(S_FLOW_CONTRACT)
async def flow_contract_one_to_twenty_uniquely_named_steps(run: Run) -> None:
    """"`browser_flow` composes one to twenty uniquely named steps." """
    await run.refused("browser_flow", {"steps": []}, "/steps", {"length"})
    await run.refused("browser_flow", {"steps": [step(f"s{n}", "browser_read") for n in range(21)]}, "/steps", {"length"})
    await run.refused("browser_flow", {"steps": [step("a", "browser_read"), step("a", "browser_read")]}, "/steps/1/id", {"duplicate"})
    await run.decodes("browser_flow", {"steps": [step(f"s{n}", "browser_read") for n in range(20)]})


@check(S_FLOW_CONTRACT)
async def flow_contract_steps_name_advertised_non_composite_tools(run: Run) -> None:
    """"Each step names a current advertised non-composite tool and supplies its argument object" """
    for tool in ("browser_flow", "browser_sequence", "browser_teleport"):
        await run.refused("browser_flow", {"steps": [step("a", tool, {})]}, "/steps/0/tool")
    for tool in SPEC_TOOLS:
        if tool in ("browser_flow", "browser_sequence"):
            continue
        outcome = await run.main.call("browser_flow", {"steps": [step("a", tool, SPEC_SHORTEST_CONCRETE[tool])], "dry_run": True})
        expect(outcome.reason != "invalid_arguments", f"{tool} is refused as a flow step: {outcome.describe()}")


@check(S_FLOW_CONTRACT)
async def flow_contract_references_resolve_before_the_child_decoder(run: Run) -> None:
    """"any argument value may be an explicit `{"flow_ref":{"step","pointer"}}` reference into an
    earlier step's canonical result envelope. References resolve before the ordinary child decoder
    runs again on the substituted arguments." """
    await run.page("/conf/main")
    flow = (await run.main.call("browser_flow", {"steps": [
        step("find", "browser_find", {"text": "Count clicks"}),
        step("click", "browser_click", {"target": ref("find", "/facts/matches/0/0")}),
    ]})).ok()
    expect(flow.facts["completed"] == 2, f"facts {short(flow.facts)}")
    expect((await run.out()).startswith("clicks=1"), f"the referenced target was not clicked: {await run.out()!r}")
    # The substituted value meets the child decoder: an integer where `text` needs a string.
    typed = await run.main.call("browser_flow", {"steps": [
        step("find", "browser_find", {"text": "Count clicks"}),
        step("again", "browser_find", {"text": ref("find", "/facts/document_generation")}),
    ]})
    expect(typed.status == "failed", f"a substituted value of the wrong type passed: {typed.describe()}")
    row = typed.facts["steps"][1]
    expect(row["status"] == "failed" and row["effect"] == "none", f"step row {short(row)}")
    inner = row.get("envelope") or {}
    expect((inner.get("facts") or {}).get("pointer", "").endswith("/text") or "text" in inner.get("summary", ""),
           f"the child's decode error does not name text: {short(inner)}")


@check(S_FLOW_CONTRACT)
async def flow_contract_references_at_any_depth(run: Run) -> None:
    """CLARIFICATIONS: "`flow_ref` may appear as any argument value at any depth of a step's
    `arguments`." """
    await run.page("/conf/main")
    (await run.main.call("browser_flow", {"steps": [
        step("find", "browser_find", {"text": "Full name"}),
        step("fill", "browser_fill_form", {"fields": [{"target": ref("find", "/facts/matches/0/0"), "value": "Deep"}]}),
    ]})).ok()
    expect(await run.js("document.getElementById('name').value") == "Deep", "the nested reference did not fill the field")


@check(S_FLOW_CONTRACT)
async def flow_contract_unresolved_reference_fails_its_step_without_effect(run: Run) -> None:
    """"A reference that does not resolve fails its step without effect." """
    await run.page("/conf/main")
    flow = await run.main.call("browser_flow", {"steps": [
        step("find", "browser_find", {"text": "Count clicks"}),
        step("click", "browser_click", {"target": ref("find", "/facts/nothing/here")}),
    ]})
    expect_failed(flow)
    row = flow.facts["steps"][1]
    expect(row["status"] == "failed" and row["effect"] == "none", f"step row {short(row)}")
    expect(await run.out() == "", "an unresolved reference clicked")


@check(S_FLOW_CONTRACT)
async def flow_contract_steps_carry_no_restrictions(run: Run) -> None:
    """"steps may not carry their own restriction fields" (CLARIFICATIONS: "Restriction fields are
    refused inside a step and inside a step's `arguments`.")"""
    await run.refused("browser_flow", {"steps": [{**step("a", "browser_read"), "restrict_hosts": []}]}, "/steps/0/restrict_hosts")
    await run.refused("browser_flow", {"steps": [step("a", "browser_read", {"restrict_capabilities": ["read"]})]},
                      "/steps/0/arguments/restrict_capabilities")


@check(S_FLOW_CONTRACT)
async def flow_contract_children_authorize_under_the_invocation_snapshot(run: Run) -> None:
    """"Children classify and authorize normally under the invocation's immutable authority
    snapshot" """
    await run.page("/conf/main")
    flow = await run.main.call("browser_flow", {"restrict_capabilities": ["read"], "on_error": "continue", "steps": [
        step("read", "browser_read"),
        step("click", "browser_click", {"selector": {"name": "Count clicks"}}),
        step("run", "browser_execute", {"script": "1"}),
    ]})
    rows = flow.facts["steps"]
    expect([row["status"] for row in rows] == ["succeeded", "blocked", "blocked"], f"step statuses {[r['status'] for r in rows]}")
    expect(rows[1]["envelope"]["facts"].get("reason") == "capability_denied", f"{short(rows[1])}")
    expect(await run.out() == "", "a blocked child acted")


@check(S_FLOW_CONTRACT)
async def flow_contract_on_error_defaults_to_stop(run: Run) -> None:
    """"`on_error` defaults to `stop`" """
    await run.page("/conf/main")
    flow = await run.main.call("browser_flow", {"steps": [
        step("bad", "browser_click", {"selector": {"name": "No such control anywhere"}}),
        step("click", "browser_click", {"selector": {"name": "Count clicks"}}),
    ]})
    expect_failed(flow)
    expect(flow.facts.get("stopped") is True, f"stopped {flow.facts.get('stopped')}")
    expect(len(flow.facts["steps"]) == 1, f"rows after the failure: {short(flow.facts['steps'])}")
    expect(await run.out() == "", "a step after the failure ran")


@check(S_FLOW_CONTRACT)
async def flow_contract_dry_run_dispatches_nothing(run: Run) -> None:
    """"`dry_run` decodes and classifies without dispatching" """
    await run.page("/conf/main")
    flow = (await run.main.call("browser_flow", {"dry_run": True, "steps": [
        step("click", "browser_click", {"selector": {"name": "Count clicks"}}),
        step("open", "browser_navigate", {"url": run.url("/hello")}),
    ]})).ok()
    expect(flow.effect == "none", f"effect {flow.effect}")
    expect(all("capabilities" in row for row in flow.facts["steps"]), f"steps were not classified: {short(flow.facts['steps'])}")
    expect(flow.facts["steps"][0]["capabilities"] == ["action"], f"click classified as {flow.facts['steps'][0]['capabilities']}")
    expect(await run.out() == "", "a dry run clicked")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    expect(listed.facts["tabs"][0]["url"].endswith("/conf/main") and len(listed.facts["tabs"]) == 1, "a dry run navigated")


@check(S_FLOW_CONTRACT)
async def flow_contract_capture_budget_keeps_running(run: Run) -> None:
    """"captured step envelopes stop being recorded past a bounded total budget while execution
    continues to a truthful terminal aggregate." """
    await run.page("/conf/main")
    big = {"script": "'y'.repeat(20000)", "max_result_chars": 20000}
    flow = (await run.main.call("browser_flow", {"steps": [step(f"s{n}", "browser_execute", big) for n in range(6)]
                                                 + [step("last", "browser_click", {"selector": {"name": "Count clicks"}})]})).ok()
    rows = flow.facts["steps"]
    expect(len(rows) == 7 and all(row["status"] == "succeeded" for row in rows), f"rows {[r.get('status') for r in rows]}")
    expect("envelope" in rows[0], "the first step's envelope was not captured")
    expect(any("envelope" not in row for row in rows), "no envelope was left out past the budget")
    expect(flow.facts["completed"] == 7 and flow.facts["total"] == 7, f"aggregate {short({k: v for k, v in flow.facts.items() if k != 'steps'})}")
    expect(flow.effect == "applied", f"aggregate effect {flow.effect}")
    expect((await run.out()).startswith("clicks=1"), "the step past the budget did not run")
    expect(len(json.dumps(flow.env)) < 200_000, f"the aggregate is {len(json.dumps(flow.env))} bytes")


# ============================================================================================
# Result envelope
# ============================================================================================


def rendering_problems(outcome: Outcome) -> list[str]:
    """How a result breaks "The MCP edge renders the complete envelope twice": structuredContent,
    then a text block of the summary, the next steps, and compact JSON of the same envelope."""
    raw = outcome.raw
    problems: list[str] = []
    structured = raw.structured_content
    if not isinstance(structured, dict):
        return ["no structuredContent object"]
    for name in ENVELOPE_FIELDS:
        if name not in structured:
            problems.append(f"lacks {name}")
    if not raw.content or raw.content[0].type != "text":
        return problems + ["the first block is not text"]
    text = raw.content[0].text
    head, sep, tail = text.partition("\n\n")
    if sep != "\n\n":
        return problems + ["no blank line before the JSON"]
    try:
        if json.loads(tail) != structured:
            problems.append("the text JSON differs from structuredContent")
    except ValueError as error:
        problems.append(f"the text JSON does not parse: {error}")
    lines = head.split("\n")
    if lines[0] != structured.get("summary"):
        problems.append("the text does not start with the summary")
    if [line.removeprefix("Next: ") for line in lines[1:]] != structured.get("next_steps") or not all(l.startswith("Next: ") for l in lines[1:]):
        problems.append("the Next: lines differ from next_steps")
    serialized = json.dumps(structured)
    for block in raw.content[1:]:
        if block.type != "image":
            problems.append(f"a {block.type} block after the text")
        elif block.data in text or block.data in serialized:
            problems.append("image bytes inside the envelope")
    return problems


@check(S_ENVELOPE)
async def envelope_every_status_is_one_envelope(run: Run) -> None:
    """"Every invocation returns one envelope" with `invocation`, `status`, `effect`, `readiness`,
    `repeat_safe`, `summary`, `facts`, `next_steps` -- for success, refusal, failure, attention and
    unknown alike."""
    await run.page("/conf/main")
    samples = [
        (await run.main.call("browser_read", {})),
        (await run.main.call("browser_read", {"restrict_capabilities": []})),
        (await run.main.call("browser_read", {"max_chars": 1})),
        (await run.main.call("browser_execute", {"script": "throw new Error('conformance')"})),
        (await run.manual.call("browser_navigate", {"url": run.url("/hello")})),
    ]
    expect([o.status for o in samples] == ["succeeded", "blocked", "failed", "unknown", "attention_required"],
           f"statuses {[o.status for o in samples]}")
    for outcome in samples:
        env = outcome.env
        expect(not rendering_problems(outcome), f"{outcome.tool}: {rendering_problems(outcome)}")
        expect(isinstance(env["invocation"], str) and env["invocation"].startswith("inv_"), f"invocation {env['invocation']!r}")
        expect(env["status"] in STATUSES and env["effect"] in EFFECTS and env["readiness"] in READINESS, f"closed values {short(env)}")
        expect(isinstance(env["repeat_safe"], bool) and isinstance(env["summary"], str) and env["summary"], "repeat_safe/summary types")
        expect(isinstance(env["facts"], dict) and isinstance(env["next_steps"], list), "facts/next_steps types")
        expect(len(env["next_steps"]) <= 2 and all(isinstance(s, str) and s for s in env["next_steps"]), f"next_steps {env['next_steps']}")
    expect(samples[3].effect == "unknown" and samples[3].env["repeat_safe"] is False, f"a thrown script: {samples[3].describe()}")


@check(S_ENVELOPE)
async def envelope_rendered_twice_for_clients(run: Run) -> None:
    """"`structuredContent` retains the machine-readable object, and the ordinary text block
    contains the authored summary and safe next steps followed by compact JSON for the same opaque
    envelope. A client that ignores `structuredContent` therefore still receives every canonical
    fact." """
    await run.page("/conf/main")
    outcome = await run.main.call("browser_wait", {"condition": "text_present", "value": "never on the page", "timeout_ms": 100})
    expect(outcome.next_steps, "this failure was expected to carry next steps")
    expect(not rendering_problems(outcome), f"{rendering_problems(outcome)}")
    compact = outcome.raw.content[0].text.partition("\n\n")[2]
    expect("\n" not in compact and ": " not in compact.replace('": "', ''), "the JSON projection is not compact")


@check(S_ENVELOPE)
async def envelope_screenshot_returns_an_image_block(run: Run) -> None:
    """"`browser_screenshot` returns an image block." ... "Image bytes are not copied into structured
    facts or the textual JSON projection." """
    await run.page("/conf/main")
    shot = (await run.main.call("browser_screenshot", {})).ok()
    expect(len(shot.images) == 1 and len(shot.raw.content) == 2, f"{len(shot.images)} image blocks")
    image = shot.images[0]
    expect(image.mime_type == "image/png" == shot.facts["mime_type"], f"mime {image.mime_type}, facts {shot.facts.get('mime_type')}")
    expect(png_size(base64.b64decode(image.data)) == (shot.facts["width"], shot.facts["height"]), "the image size differs from the facts")
    expect(not rendering_problems(shot), f"{rendering_problems(shot)}")


@check(S_ENVELOPE)
async def envelope_record_gif_only_for_the_client(run: Run) -> None:
    """"`browser_record` save returns a GIF image block only when the caller asked for the replay
    itself; a save that stays inside the browser returns none." """
    await run.page("/conf/main")
    targets = await run.targets()
    started = (await run.main.call("browser_record", {"action": "start"})).ok()
    recording = started.facts["recording"]
    try:
        client = (await run.main.call("browser_record", {"action": "save", "recording": recording})).ok()
        expect(len(client.images) == 1 and client.images[0].mime_type == "image/gif", f"client save blocks {[(b.type, getattr(b, 'mime_type', None)) for b in client.raw.content]}")
        expect(base64.b64decode(client.images[0].data)[:6] in (b"GIF89a", b"GIF87a"), "the client save is not a GIF")
        download = (await run.main.call("browser_record", {"action": "save", "recording": recording, "download": True})).ok()
        expect(not download.images, "a download save returned an image block")
        attach = (await run.main.call("browser_record", {"action": "save", "recording": recording, "target": targets["Attachment"]})).ok()
        expect(not attach.images, "an attach save returned an image block")
        for outcome in (client, download, attach):
            expect(not rendering_problems(outcome), f"{rendering_problems(outcome)}")
    finally:
        await run.main.call("browser_record", {"action": "discard", "recording": recording})


@check(S_ENVELOPE)
async def envelope_sentence_values_are_in_the_facts(run: Run) -> None:
    """"A sentence that names a host, count, or capture size carries the same value in that
    projection." """
    await run.page("/article")
    read = (await run.main.call("browser_read", {"max_chars": 600})).ok()
    expect(str(read.facts.get("characters", len(read.facts["text"]))) in read.summary.replace(",", ""), f"{read.summary!r} vs {read.facts.get('characters')}")
    expect(run.host in read.summary and read.facts.get("host") == run.host, f"host: {read.summary!r}, facts {read.facts.get('host')}")
    await run.page("/controls")
    inspected = (await run.main.call("browser_inspect", {"max_items": 7})).ok()
    expect("7" in inspected.summary and len(inspected.facts["items"]) == 7, f"{inspected.summary!r}")
    found = (await run.main.call("browser_find", {"text": "Control 1", "max_results": 3})).ok()
    expect(str(len(found.facts["matches"])) in found.summary, f"{found.summary!r} vs {len(found.facts['matches'])} matches")
    shot = (await run.main.call("browser_screenshot", {})).ok()
    expect(f"{shot.facts['width']}×{shot.facts['height']}" in shot.summary, f"{shot.summary!r} vs {shot.facts['width']}x{shot.facts['height']}")
    await run.page("/conf/main")
    targets = await run.targets()
    filled = (await run.main.call("browser_fill_form", {"fields": [{"target": targets["Full name"], "value": "Ada"}, {"target": targets["I agree"], "value": True}]})).ok()
    expect("2" in filled.summary and filled.facts["filled_count"] == 2, f"{filled.summary!r}")
    uploaded = (await run.main.call("browser_upload", {"target": targets["Attachment"], "files": [{"name": "a.txt", "data_base64": base64.b64encode(b"x" * 1234).decode()}]})).ok()
    expect("1,234" in uploaded.summary and uploaded.facts["uploaded_bytes"] == 1234, f"{uploaded.summary!r}")


@check(S_ENVELOPE)
async def envelope_action_receipt_names_role_and_name(run: Run) -> None:
    """"The browser may return the role and accessible name of the physical element in the same
    action receipt ... so an action can say `Clicked the "Save" button on example.com.`" """
    await run.page("/conf/main")
    clicked = (await run.main.call("browser_click", {"selector": {"name": "Count clicks"}})).ok()
    expect(clicked.summary == f'Clicked the "Count clicks" button on {run.host}.', f"{clicked.summary!r}")
    typed = (await run.main.call("browser_type_text", {"selector": {"name": "Full name"}, "text": "Ada"})).ok()
    expect('the "Full name" text field' in typed.summary, f"{typed.summary!r}")
    hovered = (await run.main.call("browser_hover", {"selector": {"name": "Go to hello"}})).ok()
    expect('the "Go to hello" link' in hovered.summary, f"{hovered.summary!r}")


@check(S_ENVELOPE)
async def envelope_unknown_role_becomes_control(run: Run) -> None:
    """"The role is narrowed to a closed Ghostlight noun; an unknown role becomes `control`." """
    await run.page("/conf/main")
    inspected = (await run.main.call("browser_inspect", {"scope": "all", "max_items": 200})).ok()
    roles = {row[1] for row in inspected.facts["items"]}
    expect(roles <= ROLE_TOKENS, f"roles outside the closed set: {roles - ROLE_TOKENS}")
    feed = [row for row in inspected.facts["items"] if len(row) > 2 and row[2] == "News feed"]
    expect(feed and feed[0][1] == "control", f"the role=feed element is {feed}")
    clicked = (await run.main.call("browser_click", {"target": feed[0][0]})).ok()
    expect('the "News feed" control' in clicked.summary, f"{clicked.summary!r}")


@check(S_ENVELOPE)
async def envelope_target_names_normalized_and_bounded(run: Run) -> None:
    """"The name is normalized, bounded to 80 visible characters, and included by default" """
    await run.page("/conf/main")
    found = (await run.main.call("browser_find", {"text": "A very long button"})).ok()
    name = found.facts["matches"][0][2]
    expect(len(name) <= 80, f"the name has {len(name)} characters: {name!r}")
    expect(name == name.strip() and "  " not in name, f"the name is not normalized: {name!r}")
    expect(name.startswith("A very long button name"), f"{name!r}")
    clicked = (await run.main.call("browser_click", {"target": found.facts["matches"][0][0]})).ok()
    expect(f'"{name}"' in clicked.summary, f"the action names it differently: {clicked.summary!r}")


@check(S_ENVELOPE)
async def envelope_editable_values_are_never_names(run: Run) -> None:
    """"Editable values are never name sources." """
    await run.page("/conf/main")
    inspected = (await run.main.call("browser_inspect", {"scope": "all", "max_items": 200})).ok()
    expect("prefilled-value-xyz" not in json.dumps(inspected.facts), "an editable value became a name")
    await run.js("document.getElementById('name').value = 'Typed-Value-Only'")
    inspected = (await run.main.call("browser_inspect", {})).ok()
    expect("Typed-Value-Only" not in json.dumps(inspected.facts), "a typed value became a name")
    unlabeled = [row for row in inspected.facts["items"] if row[1] == "textbox" and (len(row) < 3 or not row[2])]
    expect(unlabeled, "the unlabeled text field is missing")
    typed = (await run.main.call("browser_type_text", {"target": unlabeled[0][0], "text": "z"})).ok()
    expect("prefilled" not in typed.summary, f"{typed.summary!r}")


@check(S_ENVELOPE)
async def envelope_names_withheld_when_governance_says_so(run: Run) -> None:
    """"Governance may remove all target names with `privacy.preserve_target_names: false`, leaving
    `Clicked a button on example.com.`" (CLARIFICATIONS: "perception tools (`browser_inspect`,
    `browser_find`) still return names.")"""
    await run.page("/conf/main", server=run.private)
    clicked = (await run.private.call("browser_click", {"selector": {"name": "Count clicks"}})).ok()
    expect(clicked.summary == f"Clicked a button on {run.host}.", f"{clicked.summary!r}")
    typed = (await run.private.call("browser_type_text", {"selector": {"name": "Full name"}, "text": "Ada"})).ok()
    expect("Full name" not in typed.summary and "Full name" not in json.dumps(typed.facts), f"{typed.summary!r}")
    for tool, args in (("browser_hover", {"selector": {"name": "Hover target"}}),
                       ("browser_drag", {"source_selector": {"name": "Drag source"}, "destination_selector": {"name": "Drop zone"}}),
                       ("browser_press_key", {"key": "a", "selector": {"name": "Full name"}}),
                       ("browser_scroll", {"selector": {"name": "Submit form"}})):
        done = (await run.private.call(tool, args)).ok()
        for name in ("Hover target", "Drag source", "Drop zone", "Full name", "Submit form"):
            expect(name not in done.summary, f"{tool} names {name!r}: {done.summary!r}")
    found = (await run.private.call("browser_find", {"text": "Count clicks"})).ok()
    expect(found.facts["matches"][0][2] == "Count clicks", f"find lost the name: {found.facts['matches']}")
    inspected = (await run.private.call("browser_inspect", {})).ok()
    expect("Count clicks" in json.dumps(inspected.facts["items"]), "inspect lost the names")


@check(S_ENVELOPE)
async def envelope_uncertain_effects_are_not_repeat_safe(run: Run) -> None:
    """"A result with `effect` equal to `partial` or `unknown`, or with a committed effect unsafe to
    duplicate, has `repeat_safe: false` and does not suggest replay." """
    await run.page("/conf/main")
    thrown = await run.main.call("browser_execute", {"script": "throw new Error('boom')"})
    expect(thrown.effect == "unknown" and thrown.env["repeat_safe"] is False, f"{thrown.describe()}")
    partial = await run.main.call("browser_sequence", {"steps": [
        {"action": "click", "selector": {"name": "Count clicks"}},
        {"action": "wait", "condition": "text_present", "value": "never on this page", "timeout_ms": 100},
    ]})
    expect(partial.effect == "partial" and partial.env["repeat_safe"] is False, f"{partial.describe()}")
    clicked = (await run.main.call("browser_click", {"selector": {"name": "Count clicks"}})).ok()
    expect(clicked.env["repeat_safe"] is False, "a click is marked repeat-safe")
    opened = (await run.main.call("browser_navigate", {"url": run.url("/hello"), "new_tab": True})).ok()
    expect(opened.env["repeat_safe"] is False, "opening a new tab is marked repeat-safe")
    await run.main.call("browser_tabs", {"action": "close", "tab": opened.facts["tab"]})
    for outcome in (thrown, partial):
        replay = [s for s in outcome.next_steps if re.search(r"\b(repeat|retry|replay)\b", s, re.I)]
        expect(not replay, f"{outcome.tool} suggests replay: {replay}")


@check(S_ENVELOPE)
async def envelope_manual_startup_addresses_the_model(run: Run) -> None:
    """"When no browser is connected and startup is left to the person -- because `browser.startup`
    is `manual` ... the refusal addresses the MCP model: ask the user to open one of the eligible
    installed browser windows it names ... then repeat the call. Facts carry the closed
    `browser_startup_manual` reason and a `browsers` array; one choice also retains the singular
    `browser` fact. The summary contains the whole recovery instruction, so `next_steps` is empty.
    ... No browser refusal ever says that Ghostlight declined to choose." """
    for tool, args in (("browser_navigate", {"url": run.url("/hello")}), ("browser_tabs", {"action": "list"})):
        refused = await run.manual.call(tool, args)
        expect(refused.status == "attention_required" and refused.effect == "none", f"{refused.describe()}")
        expect(refused.reason == "browser_startup_manual", f"reason {refused.reason}")
        browsers = refused.facts.get("browsers")
        expect(isinstance(browsers, list) and browsers, f"browsers {browsers}")
        expect(("browser" in refused.facts) == (len(browsers) == 1), f"browser fact with {len(browsers)} choices")
        if len(browsers) == 1:
            expect(refused.facts["browser"] == browsers[0], "browser differs from browsers[0]")
        expect(refused.next_steps == [], f"next_steps {refused.next_steps}")
        expect("Ask the user" in refused.summary and "repeat the call" in refused.summary, f"{refused.summary!r}")
        expect(all(b in refused.summary for b in browsers), f"the summary does not name {browsers}")
        expect(not re.search(r"choos|chose|declin", refused.summary, re.I), f"{refused.summary!r}")
    expect(run.engine in " ".join(browsers).lower(), f"the eligible browsers {browsers} do not include {run.engine}")


@check(S_ENVELOPE)
async def envelope_unknown_tool_is_a_protocol_error(run: Run) -> None:
    """CLARIFICATIONS: "Only an unknown tool name is a protocol error." """
    try:
        await run.main.session.call_tool("browser_teleport", {})
    except MCPError as error:
        expect(error.code == -32602, f"error code {error.code}")
    else:
        raise CheckFailed("an unknown tool answered a result")
    outcome = await run.main.call("browser_read", {"bogus": True})
    expect_decode_error(outcome, "/bogus", {"unknown_field"})


# ============================================================================================
# Catalog (tools/list against the spec)
# ============================================================================================


@check(S_CATALOG)
async def catalog_required_inputs(run: Run) -> None:
    """Each tool's required inputs are the spec's: "required `url`", "required `action`", "required
    `fields`", ... (conditional branches are enforced by the decoder)."""
    wrong = []
    for tool, required in SPEC_REQUIRED.items():
        advertised = set(run.tools[tool]["inputSchema"].get("required") or [])
        if advertised != required:
            wrong.append(f"{tool}: {sorted(advertised)} (spec {sorted(required)})")
    expect(not wrong, f"{wrong}")


@check(S_CATALOG)
async def catalog_closed_values(run: Run) -> None:
    """Each closed input lists exactly the spec's values (actions, scopes, modes, buttons,
    directions, amounts, modifiers, conditions, sources, details, `on_error`, `reuse`,
    `beforeunload`), plus the documented extensions (EXTENSION_ENUMS)."""
    wrong = []
    for (tool, prop), values in SPEC_ENUMS.items():
        node = schema_prop(run.tools[tool]["inputSchema"], prop)
        values = values + EXTENSION_ENUMS.get((tool, prop), [])
        if node is None or sorted(node.get("enum") or []) != sorted(values):
            wrong.append(f"{tool}.{prop}: {None if node is None else node.get('enum')} (spec {values})")
    expect(not wrong, f"{wrong}")


@check(S_CATALOG)
async def catalog_stated_bounds(run: Run) -> None:
    """Each stated bound is the advertised one ("`percent` is an integer from 25 to 500", "`max_chars`
    from 500 to 50000", "1 to 30 typo-closed objects", "two to eight fully specified steps", ...)."""
    wrong = []
    for (tool, prop), (low, high) in SPEC_BOUNDS.items():
        node = schema_prop(run.tools[tool]["inputSchema"], prop) or {}
        kind = node.get("type")
        if kind == "array":
            got = (node.get("minItems"), node.get("maxItems"))
        elif kind == "string":
            got = (node.get("minLength"), node.get("maxLength"))
        else:
            got = (node.get("minimum"), node.get("maximum"))
        if got != (low, high):
            wrong.append(f"{tool}.{prop}: {got} (spec {(low, high)})")
    wait_value = typed_branch(schema_prop(run.tools["browser_wait"]["inputSchema"], "value") or {}, "integer")
    if (wait_value.get("minimum"), wait_value.get("maximum")) != (0, 10000):
        wrong.append(f"browser_wait.value: {(wait_value.get('minimum'), wait_value.get('maximum'))} (spec (0, 10000))")
    paths = schema_prop(run.tools["browser_upload"]["inputSchema"], "paths") or {}
    if paths.get("uniqueItems") is not True:
        wrong.append("browser_upload.paths is not uniqueItems (spec: unique absolute local paths)")
    modifiers = schema_prop(run.tools["browser_press_key"]["inputSchema"], "modifiers") or {}
    if modifiers.get("uniqueItems") is not True:
        wrong.append("browser_press_key.modifiers is not uniqueItems (spec: optional unique modifiers)")
    expect(not wrong, f"{wrong}")


def _set_path(args: dict[str, Any], pointer: str, value: Any) -> dict[str, Any]:
    """A deep copy of `args` with `value` at a simple pointer such as `/fields/0/value`."""
    args = json.loads(json.dumps(args))
    parts = pointer.strip("/").split("/")
    node: Any = args
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return args


@dataclass
class Bound:
    """One advertised bound to probe: `pointer` inside `base`, values built by `make(n)`."""

    pointer: str
    base: dict[str, Any]
    make: Callable[[int], Any] = lambda n: n
    low: int | None = None
    high: int | None = None
    valid_edges: bool = True


VIEW_POINT = {"view": "view_conformance", "x": 0, "y": 0}
BOUND_PROBES: dict[str, list[Bound]] = {
    "browser_navigate": [
        Bound("/url", {"url": ""}, lambda n: "https://example.com/" + "a" * (n - 20), high=8192),
        Bound("/timeout_ms", {"url": "https://example.com"}),
    ],
    "browser_history": [Bound("/timeout_ms", {"action": "reload"})],
    "browser_window": [
        Bound("/percent", {"action": "zoom"}),
        Bound("/width", {"action": "resize", "height": 800, "tab": "tab_conformance"}),
        Bound("/height", {"action": "resize", "width": 1280, "tab": "tab_conformance"}),
    ],
    "browser_read": [Bound("/max_chars", {})],
    "browser_inspect": [Bound("/max_items", {}), Bound("/max_depth", {"scope": "document"})],
    "browser_find": [Bound("/text", {}, lambda n: "a" * n, low=1, high=200), Bound("/max_results", {"text": "a"})],
    "browser_screenshot": [
        Bound("/x", {"view": "view_conformance", "y": 0, "width": 1, "height": 1}),
        Bound("/y", {"view": "view_conformance", "x": 0, "width": 1, "height": 1}),
        Bound("/width", {"view": "view_conformance", "x": 0, "y": 0, "height": 1}),
        Bound("/height", {"view": "view_conformance", "x": 0, "y": 0, "width": 1}),
        Bound("/timeout_ms", {}),
    ],
    "browser_click": [
        Bound("/click_count", {"target": "target_conformance"}),
        Bound("/x", {"view": "view_conformance", "y": 0}),
        Bound("/y", {"view": "view_conformance", "x": 0}),
        Bound("/timeout_ms", {"target": "target_conformance"}),
    ],
    "browser_scroll": [
        Bound("/ticks", {**VIEW_POINT, "direction": "down"}),
        Bound("/x", {**VIEW_POINT, "ticks": 1, "direction": "down"}),
        Bound("/y", {**VIEW_POINT, "ticks": 1, "direction": "down"}),
        Bound("/timeout_ms", {}),
    ],
    "browser_hover": [
        Bound("/x", {"view": "view_conformance", "y": 0}),
        Bound("/y", {"view": "view_conformance", "x": 0}),
        Bound("/timeout_ms", {"target": "target_conformance"}),
    ],
    "browser_fill_form": [
        Bound("/fields", {}, lambda n: [{"target": f"target_c{k}", "value": "x"} for k in range(n)]),
        Bound("/fields/0/value", {"fields": [{"target": "target_conformance", "value": ""}]}, lambda n: "a" * n, low=0, high=10000),
        Bound("/timeout_ms", {"fields": [{"target": "target_conformance", "value": "x"}]}),
    ],
    "browser_type_text": [
        Bound("/text", {"target": "target_conformance", "clear_first": True}, lambda n: "a" * n, low=0, high=10000),
        Bound("/timeout_ms", {"target": "target_conformance", "text": "a"}),
    ],
    "browser_press_key": [
        Bound("/strokes", {}, lambda n: ["a"] * n),
        Bound("/strokes/0", {"strokes": ["a"]}, lambda n: "ArrowRight"[:n] if n == 10 else "a" * n, low=1, high=10),
        Bound("/repeat", {"key": "a"}),
    ],
    "browser_drag": [
        Bound(f"/{name}", {"view": "view_conformance", "start_x": 0, "start_y": 0, "end_x": 0, "end_y": 0})
        for name in ("start_x", "start_y", "end_x", "end_y")
    ] + [Bound("/timeout_ms", {"source_target": "target_conformance", "destination_target": "target_conformance2"})],
    "browser_wait": [
        Bound("/value", {"condition": "duration"}, low=0, high=10000),
        Bound("/value", {"condition": "text_present"}, lambda n: "a" * n, low=1, high=2000),
        Bound("/timeout_ms", {"condition": "load_ready"}),
    ],
    "browser_dialog": [Bound("/text", {"action": "respond"}, lambda n: "a" * n, low=0, high=10000)],
    "browser_upload": [
        Bound("/paths", {"target": "target_conformance"}, lambda n: [f"/conformance/file{k}.txt" for k in range(n)]),
        Bound("/paths/0", {"target": "target_conformance", "paths": ["/a"]}, lambda n: "/" + "a" * (n - 1) if n else "", low=1, high=4096, valid_edges=False),
        Bound("/files", {"target": "target_conformance"}, lambda n: [{"name": f"f{k}.txt", "data_base64": "YQ=="} for k in range(n)]),
        Bound("/files/0/name", {"target": "target_conformance", "files": [{"name": "a", "data_base64": "YQ=="}]}, lambda n: "a" * n, low=1, high=255),
        Bound("/x", {"source_image": "view_conformance", "view": "view_conformance2", "y": 0}),
        Bound("/y", {"source_image": "view_conformance", "view": "view_conformance2", "x": 0}),
        Bound("/timeout_ms", {"target": "target_conformance", "files": [{"name": "a", "data_base64": "YQ=="}]}),
    ],
    "browser_execute": [
        Bound("/script", {}, lambda n: "1" + " " * (n - 1) if n else ""),
        Bound("/max_result_chars", {"script": "1"}),
        Bound("/timeout_ms", {"script": "1"}),
    ],
    "browser_sequence": [
        Bound("/steps", {}, lambda n: [{"action": "wait", "condition": "load_ready"}] * n),
        Bound("/timeout_ms", {"steps": [{"action": "wait", "condition": "load_ready"}] * 2}),
    ],
    "browser_flow": [
        Bound("/steps", {}, lambda n: [{"id": f"s{k}", "tool": "browser_read"} for k in range(n)]),
        Bound("/steps/0/id", {"steps": [{"id": "a", "tool": "browser_read"}]}, lambda n: "a" * n, low=1, high=64),
        Bound("/steps/0/tool", {"steps": [{"id": "a", "tool": "browser_read"}]}, lambda n: "b" * n, low=1, high=32, valid_edges=False),
        Bound("/timeout_ms", {"steps": [{"id": "a", "tool": "browser_read"}]}),
    ],
    "browser_diagnose": [
        Bound("/limit", {}),
        Bound("/match", {}, lambda n: "a" * n, low=1, high=200),
    ],
}


def advertised_bound(tool_schema: dict[str, Any], pointer: str) -> tuple[int | None, int | None]:
    node: Any = tool_schema
    for part in pointer.strip("/").split("/"):
        node = node.get("items") if part.isdigit() else (node.get("properties") or {}).get(part)
        if node is None:
            return None, None
    if "anyOf" in node:
        # A value of several types: its bounds sit in the branch of the bounded type.
        string = typed_branch(node, "string")
        if "maxLength" in string or "minLength" in string:
            return string.get("minLength"), string.get("maxLength")
        number = typed_branch(node, "integer")
        return number.get("minimum"), number.get("maximum")
    kinds = node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]
    if "array" in kinds:
        return node.get("minItems"), node.get("maxItems")
    if "string" in kinds and ("maxLength" in node or "minLength" in node):
        return node.get("minLength"), node.get("maxLength")
    return node.get("minimum"), node.get("maximum")


def make_bounds_check(tool: str) -> CheckFn:
    async def bounds(run: Run) -> None:
        schema = run.tools[tool]["inputSchema"]
        for probe in BOUND_PROBES[tool]:
            low, high = probe.low, probe.high
            if low is None and high is None:
                low, high = advertised_bound(schema, probe.pointer)
            else:
                advertised = advertised_bound(schema, probe.pointer)
                if probe.pointer != "/value":
                    expect(advertised[1] == high, f"{probe.pointer}: the decoder bound {high} is advertised as {advertised}")
            expect(high is not None, f"{probe.pointer}: no advertised bound")
            above = _set_path(probe.base, probe.pointer, probe.make(high + 1)) if "/" in probe.pointer[1:] else {**probe.base, probe.pointer[1:]: probe.make(high + 1)}
            await run.refused(tool, {**above, **PROBE}, probe.pointer)
            if low is not None and low > 0:
                below_value = probe.make(low - 1)
                below = _set_path(probe.base, probe.pointer, below_value) if "/" in probe.pointer[1:] else {**probe.base, probe.pointer[1:]: below_value}
                await run.refused(tool, {**below, **PROBE}, probe.pointer)
            if probe.valid_edges:
                for edge in {low if low is not None else 0, high}:
                    value = probe.make(edge)
                    inside = _set_path(probe.base, probe.pointer, value) if "/" in probe.pointer[1:] else {**probe.base, probe.pointer[1:]: value}
                    await run.decodes(tool, inside)

    bounds.__name__ = f"catalog_{tool}_bounds_enforced"
    bounds.__doc__ = (f'"The implementation owns bounds and defaults as named constants shared by schema rendering and '
                      f'decoding." -- every bound {tool} advertises holds at its edges: one past it is a decode error '
                      f'naming the field, the edge itself decodes.')
    return bounds


for _tool in BOUND_PROBES:
    check(S_CATALOG)(make_bounds_check(_tool))


# ============================================================================================
# Each tool's section
# ============================================================================================


def make_capability_check(tool: str) -> CheckFn:
    rows = [(args, caps) for name, args, caps in SPEC_CAPABILITIES if name == tool]

    async def capability(run: Run) -> None:
        if run.main_tab is None:
            await run.page("/hello")
        for args, caps in rows:
            # Every capability named is needed: without any one of them the call is refused.
            for missing in caps:
                granted = [c for c in caps if c != missing]
                refused = await run.main.call(tool, {**args, "restrict_capabilities": granted})
                expect(refused.status == "blocked" and "capabilit" in (refused.reason or ""),
                       f"{tool} {short(args)} without {missing}: {refused.describe()}")
            # And they are enough: granting exactly them passes the capability check.
            admitted = await run.main.call(tool, {**args, "restrict_capabilities": caps, "restrict_hosts": []})
            expect(admitted.reason not in ("invalid_arguments", "capability_denied") and "capabilit" not in (admitted.reason or ""),
                   f"{tool} {short(args)} with {caps}: {admitted.describe()}")
            expect(admitted.effect == "none", f"{tool} under restrict_hosts [] had an effect: {admitted.describe()}")

    capability.__name__ = f"{tool.removeprefix('browser_')}_capability"
    capability.__doc__ = f'"Capability: ..." -- {tool} requires exactly ' + "; ".join(
        f"{short(args, 80)} -> {caps or 'no capability'}" for args, caps in rows)
    return capability


def tool_section(tool: str) -> str:
    return tool


# ---- browser_tabs ----------------------------------------------------------------------------

check(tool_section("browser_tabs"))(make_capability_check("browser_tabs"))


@check(tool_section("browser_tabs"))
async def tabs_list_facts(run: Run) -> None:
    """"Facts for list contain `tabs`, each with `tab`, bounded `title`, governed `url`, `active`, and
    `readiness`." """
    await run.page("/hello")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    rows = listed.facts["tabs"]
    expect(len(rows) == 1, f"{len(rows)} tabs listed")
    row = rows[0]
    expect(set(row) >= {"tab", "title", "url", "active", "readiness"}, f"row {row}")
    expect(row["tab"] == run.main_tab and row["title"] == "Hello fixture" and row["url"] == run.url("/hello"), f"row {row}")
    expect(row["active"] is True and row["readiness"] in READINESS, f"row {row}")


@check(tool_section("browser_tabs"))
async def tabs_list_titles_are_bounded_and_live(run: Run) -> None:
    """"The list is read live from the connected browser on every call" ... "each with `tab`,
    bounded `title`" """
    await run.page("/hello")
    await run.js("document.title = 'Retitled by the page'; 1")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    expect(listed.facts["tabs"][0]["title"] == "Retitled by the page", f"the list is not live: {listed.facts['tabs']}")
    await run.js("document.title = 'T'.repeat(5000); 1")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    read = (await run.main.call("browser_read", {})).ok()
    for title in (listed.facts["tabs"][0]["title"], read.facts["title"]):
        expect(0 < len(title) <= 200, f"a {len(title)}-character title")


@check(tool_section("browser_tabs"))
async def tabs_list_is_read_live(run: Run) -> None:
    """"The list is read live from the connected browser on every call and names only this
    workspace's bound tabs" -- a tab its page closed is gone from the next list."""
    await run.page("/conf/opener")
    opened = (await run.main.call("browser_click", {"selector": {"name": "Open a tab"}})).ok()
    new_tabs = [row["tab"] for row in opened.facts.get("opened_tabs") or []]
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    handles = [row["tab"] for row in listed.facts["tabs"]]
    expect(len(handles) == 2, f"the page's new tab is not listed: {handles}")
    other = next(h for h in handles if h != run.main_tab)
    expect(not new_tabs or new_tabs == [other], f"opened_tabs {new_tabs} vs list {handles}")
    await run.main.call("browser_click", {"selector": {"name": "Close this tab"}, "tab": other})
    # The page closes itself after the click returns: wait on the list, not on time.
    for _ in range(40):
        listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
        if [row["tab"] for row in listed.facts["tabs"]] == [run.main_tab]:
            break
    expect([row["tab"] for row in listed.facts["tabs"]] == [run.main_tab], f"a closed tab is still listed: {listed.facts['tabs']}")


@check(tool_section("browser_tabs"))
async def tabs_list_requires_a_browser(run: Run) -> None:
    """"so it requires a connected browser and refuses without one." """
    refused = await run.manual.call("browser_tabs", {"action": "list"})
    expect(refused.status == "attention_required" and refused.effect == "none", f"{refused.describe()}")


@check(tool_section("browser_tabs"))
async def tabs_actions_take_their_tab(run: Run) -> None:
    """"`list`: no `tab`" ... "`focus`: required `tab`" ... "`close`: required exact `tab`" """
    await run.page("/hello")
    await run.refused("browser_tabs", {"action": "list", "tab": run.main_tab}, "/tab")
    await run.refused("browser_tabs", {"action": "focus"}, "/tab", {"missing_field"})
    await run.refused("browser_tabs", {"action": "close"}, "/tab", {"missing_field"})


@check(tool_section("browser_tabs"))
async def tabs_focus_facts(run: Run) -> None:
    """"Focus facts include `tab`, `active`, and `window_focused`." """
    await run.page("/hello")
    other = (await run.main.call("browser_navigate", {"url": run.url("/hello"), "new_tab": True})).ok()
    focused = (await run.main.call("browser_tabs", {"action": "focus", "tab": run.main_tab})).ok()
    expect(focused.facts.get("tab") == run.main_tab and focused.facts.get("active") is True, f"facts {focused.facts}")
    expect(isinstance(focused.facts.get("window_focused"), bool), f"window_focused {focused.facts.get('window_focused')!r}")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    active = [row["tab"] for row in listed.facts["tabs"] if row["active"]]
    expect(active == [run.main_tab], f"active tabs after focus: {active}")
    (await run.main.call("browser_tabs", {"action": "close", "tab": other.facts["tab"]})).ok()


@check(tool_section("browser_tabs"))
async def tabs_close_facts(run: Run) -> None:
    """"Close facts include `tab` and `closed`." """
    await run.page("/hello")
    other = (await run.main.call("browser_navigate", {"url": run.url("/hello"), "new_tab": True})).ok()
    closed = (await run.main.call("browser_tabs", {"action": "close", "tab": other.facts["tab"]})).ok()
    expect(closed.facts.get("tab") == other.facts["tab"] and closed.facts.get("closed") is True, f"facts {closed.facts}")
    expect(closed.effect == "applied", f"effect {closed.effect}")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    expect([row["tab"] for row in listed.facts["tabs"]] == [run.main_tab], "the closed tab is still listed")


@check(tool_section("browser_tabs"))
async def tabs_close_respects_the_tab_close_policy(run: Run) -> None:
    """"`close`: ... capability `action` and the tab-close policy constraint." (CLARIFICATIONS:
    refused by the tab-close policy -> `blocked`.)"""
    opened = await run.page("/hello", server=run.private)
    refused = await run.private.call("browser_tabs", {"action": "close", "tab": opened.facts["tab"]})
    expect_blocked(refused)
    listed = (await run.private.call("browser_tabs", {"action": "list"})).ok()
    expect(opened.facts["tab"] in [row["tab"] for row in listed.facts["tabs"]], "a refused close closed the tab")


# ---- browser_navigate ------------------------------------------------------------------------

check(tool_section("browser_navigate"))(make_capability_check("browser_navigate"))


@check(tool_section("browser_navigate"))
async def navigate_facts(run: Run) -> None:
    """"Facts: `tab`, governed `url`, bounded `title`, `created`, `reused`, and
    `document_generation`." """
    await run.page("/hello")
    opened = await run.page("/conf/article")
    facts = opened.facts
    expect(facts.get("tab") == run.main_tab and facts.get("url") == run.url("/conf/article"), f"facts {facts}")
    expect(facts.get("title") == "Conformance article", f"title {facts.get('title')!r}")
    expect(facts.get("created") is False and facts.get("reused") is False, f"created/reused {facts}")
    expect(isinstance(facts.get("document_generation"), int), f"document_generation {facts.get('document_generation')!r}")
    again = await run.page("/hello")
    expect(again.facts["document_generation"] != facts["document_generation"], "a new document kept its generation")
    expect(again.summary.endswith(f"{run.host}."), f"{again.summary!r}")


@check(tool_section("browser_navigate"))
async def navigate_opens_a_tab_when_none_exists(run: Run) -> None:
    """"With neither, it uses the unambiguous controlled tab, and when none exists it opens one" --
    the session's first navigation created its tab."""
    first = next((o for o in run.seen if o.server == "main" and o.tool == "browser_navigate" and o.status == "succeeded"), None)
    expect(first is not None, "MAIN never navigated")
    expect(first.facts.get("created") is True, f"the first navigation did not create a tab: {first.describe()}")
    await run.page("/hello")
    again = (await run.main.call("browser_navigate", {"url": run.url("/conf/article")})).ok()
    expect(again.facts["tab"] == run.main_tab and again.facts["created"] is False, f"the unambiguous tab was not used: {again.facts}")


@check(tool_section("browser_navigate"))
async def navigate_new_tab_and_tab(run: Run) -> None:
    """"With `new_tab:true`, Ghostlight creates and navigates a new controlled tab. With `tab`, it
    navigates that exact tab." """
    await run.page("/hello")
    other = (await run.main.call("browser_navigate", {"url": run.url("/conf/article"), "new_tab": True})).ok()
    expect(other.facts["created"] is True and other.facts["tab"] != run.main_tab, f"facts {other.facts}")
    (await run.main.call("browser_navigate", {"url": run.url("/conf/opener"), "tab": run.main_tab})).ok()
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    urls = {row["tab"]: row["url"] for row in listed.facts["tabs"]}
    expect(urls == {run.main_tab: run.url("/conf/opener"), other.facts["tab"]: run.url("/conf/article")}, f"tabs {urls}")
    (await run.main.call("browser_tabs", {"action": "close", "tab": other.facts["tab"]})).ok()


@check(tool_section("browser_navigate"))
async def navigate_conflicting_inputs(run: Run) -> None:
    """"`tab` and `new_tab:true` cannot be combined, and `reuse` cannot be combined with `new_tab`."
    (CLARIFICATIONS: `new_tab: false` with `tab` is accepted; "`reuse` is refused only together with
    `new_tab: true`.")"""
    await run.page("/hello")
    await run.refused("browser_navigate", {"url": run.url("/hello"), "tab": run.main_tab, "new_tab": True}, "/tab", {"conflict"})
    await run.refused("browser_navigate", {"url": run.url("/hello"), "reuse": "never", "new_tab": True}, "/reuse", {"conflict"})
    (await run.main.call("browser_navigate", {"url": run.url("/hello"), "tab": run.main_tab, "new_tab": False})).ok()
    (await run.main.call("browser_navigate", {"url": run.url("/hello"), "tab": run.main_tab, "reuse": "never"})).ok()
    (await run.main.call("browser_navigate", {"url": run.url("/hello"), "reuse": "domain"})).ok()


@check(tool_section("browser_navigate"))
async def navigate_blocking_prompt_is_reported_not_accepted(run: Run) -> None:
    """"Without `beforeunload`, a blocking prompt stops the navigation and is reported, never
    accepted." and "`beforeunload` whose only value is `discard`, accepting just that navigation's
    own unsaved-change prompt" """
    await run.page("/conf/unload")
    (await run.main.call("browser_type_text", {"selector": {"name": "Draft"}, "text": "unsaved words"})).ok()
    stopped = await run.main.call("browser_navigate", {"url": run.url("/hello")})
    expect(stopped.status != "succeeded" and stopped.effect == "none", f"{stopped.describe()}")
    expect("beforeunload" in json.dumps(stopped.facts) or "leav" in stopped.summary, f"the prompt is not reported: {stopped.describe()}")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    expect(listed.facts["tabs"][0]["url"] == run.url("/conf/unload"), f"the tab left the page: {listed.facts['tabs']}")
    status = (await run.main.call("browser_dialog", {"action": "status"})).ok()
    expect(status.facts.get("present") is not True or status.facts.get("dialog_type") == "beforeunload", f"{status.describe()}")
    expect(await run.js("document.getElementById('draft').value") == "unsaved words", "the unsaved draft was lost")
    await run.refused("browser_navigate", {"url": run.url("/hello"), "beforeunload": "accept"}, "/beforeunload")


@check(tool_section("browser_navigate"))
async def navigate_beforeunload_discard_leaves_the_page(run: Run) -> None:
    """"optional `beforeunload` whose only value is `discard`, accepting just that navigation's own
    unsaved-change prompt" -- the navigation then lands where it was asked to go."""
    await run.page("/conf/unload")
    (await run.main.call("browser_type_text", {"selector": {"name": "Draft"}, "text": "unsaved words"})).ok()
    left = (await run.main.call("browser_navigate", {"url": run.url("/hello"), "beforeunload": "discard"})).ok()
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    expect(left.facts["url"] == run.url("/hello") and left.facts.get("title") == "Hello fixture",
           f"facts {left.facts}; the tab then lists as {listed.facts['tabs']}")
    expect(listed.facts["tabs"][0]["url"] == run.url("/hello"), f"the tab lists as {listed.facts['tabs']}")


@check(tool_section("browser_navigate"))
async def navigate_destination_is_governed(run: Run) -> None:
    """Navigation is authorized for its destination (CLARIFICATIONS: "refused by authority (...
    host ...) -> `blocked`"), before the browser moves."""
    await run.page("/hello")
    refused = await run.main.call("browser_navigate", {"url": f"{run.denied}/hello"})
    expect_blocked(refused, "host_denied")
    expect(run.denied_host in refused.summary, f"{refused.summary!r}")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    expect(listed.facts["tabs"][0]["url"] == run.url("/hello"), "a refused navigation moved the tab")


@check(tool_section("browser_navigate"))
async def navigate_governed_url_never_carries_userinfo(run: Run) -> None:
    """CLARIFICATIONS: "A governed URL never carries userinfo." and "A host in a sentence is the host,
    plus `:port` when the port is not the scheme's default." """
    opened = (await run.main.call("browser_navigate", {"url": run.base.replace("http://", "http://ada:secret@") + "/hello", "tab": run.main_tab})).ok()
    expect("ada" not in json.dumps(opened.env) and "secret" not in json.dumps(opened.env), f"userinfo leaked: {opened.describe()}")
    expect(opened.facts["url"] == run.url("/hello"), f"url {opened.facts['url']}")
    expect(f"{run.host}." in opened.summary, f"{opened.summary!r}")


# ---- browser_history -------------------------------------------------------------------------

check(tool_section("browser_history"))(make_capability_check("browser_history"))


@check(tool_section("browser_history"))
async def history_moves_and_facts(run: Run) -> None:
    """"Move through history or reload." ... "Facts: `tab`, `action`, governed `url`, bounded
    `title`, and `document_generation`." """
    await run.page("/hello")
    await run.page("/conf/article")
    back = (await run.main.call("browser_history", {"action": "back"})).ok()
    expect(back.facts.get("action") == "back" and back.facts.get("url") == run.url("/hello"), f"facts {back.facts}")
    expect(back.facts.get("title") == "Hello fixture" and back.facts.get("tab") == run.main_tab, f"facts {back.facts}")
    expect(isinstance(back.facts.get("document_generation"), int), f"facts {back.facts}")
    forward = (await run.main.call("browser_history", {"action": "forward"})).ok()
    expect(forward.facts.get("url") == run.url("/conf/article"), f"facts {forward.facts}")
    reload = (await run.main.call("browser_history", {"action": "reload"})).ok()
    expect(reload.facts.get("url") == run.url("/conf/article"), f"facts {reload.facts}")
    expect(reload.facts["document_generation"] != forward.facts["document_generation"], "a reload kept the document generation")


@check(tool_section("browser_history"))
async def history_bypass_cache_only_for_reload(run: Run) -> None:
    """"optional `bypass_cache`, default `false`, valid only for reload" (CLARIFICATIONS: "Explicit
    default values are accepted ... `bypass_cache: false` with back/forward")."""
    await run.page("/hello")
    await run.page("/conf/article")
    await run.refused("browser_history", {"action": "back", "bypass_cache": True}, "/bypass_cache", {"conflict"})
    (await run.main.call("browser_history", {"action": "back", "bypass_cache": False})).ok()
    reloaded = (await run.main.call("browser_history", {"action": "reload", "bypass_cache": True})).ok()
    expect(reloaded.facts["url"] == run.url("/hello"), f"facts {reloaded.facts}")


# ---- browser_window --------------------------------------------------------------------------

check(tool_section("browser_window"))(make_capability_check("browser_window"))


@check(tool_section("browser_window"))
async def window_zoom(run: Run) -> None:
    """"Zoom: `{"action":"zoom","percent":100}`. `percent` is an integer from 25 to 500" ... "Facts
    include the selected tab, action, requested dimensions or zoom, and observed geometry."
    (CLARIFICATIONS: engine `unsupported` -> `failed`.)"""
    await run.page("/conf/main")
    zoomed = await run.main.call("browser_window", {"action": "zoom", "percent": 150})
    if zoomed.status == "failed":
        expect(zoomed.reason == "unsupported" and zoomed.effect == "none", f"{zoomed.describe()}")
        return
    zoomed.ok()
    expect(zoomed.facts.get("tab") == run.main_tab and zoomed.facts.get("action") == "zoom" and zoomed.facts.get("percent") == 150, f"facts {zoomed.facts}")
    observed = zoomed.facts.get("observed") or {}
    expect(observed.get("zoom") == 150, f"observed {observed}")
    view = (await run.main.call("browser_screenshot", {})).ok().facts["view"]
    (await run.main.call("browser_window", {"action": "zoom", "percent": 100})).ok()
    expect_failed(await run.main.call("browser_click", {"view": view, "x": 1, "y": 1}))


@check(tool_section("browser_window"))
async def window_resize(run: Run) -> None:
    """"Resize: `{"action":"resize","width":1280,"height":800}`. Required integer `width` from 320 to
    7680 and `height` from 240 to 4320" ... "Facts include the selected tab, action, requested
    dimensions or zoom, and observed geometry." """
    await run.page("/conf/main")
    resized = (await run.main.call("browser_window", {"action": "resize", "width": 1000, "height": 700})).ok()
    facts = resized.facts
    expect(facts.get("tab") == run.main_tab and facts.get("action") == "resize", f"facts {facts}")
    expect(facts.get("width") == 1000 and facts.get("height") == 700, f"requested {facts}")
    observed = facts.get("observed") or {}
    expect(observed and all(isinstance(v, int) for k, v in observed.items() if k != "zoom"), f"observed {observed}")
    inner = await run.js("[window.outerWidth, window.innerWidth]")
    expect(inner[0] == 1000 or observed.get("window_width") == 1000, f"the window is {inner}")
    (await run.main.call("browser_window", {"action": "resize", "width": 1280, "height": 800})).ok()
    await run.refused("browser_window", {"action": "resize", "width": 1000}, "/height", {"missing_field"})
    await run.refused("browser_window", {"action": "resize", "width": 1000, "height": 700, "percent": 100}, "/percent")
    await run.refused("browser_window", {"action": "zoom", "percent": 100, "width": 1000}, "/width")


# ---- browser_read ----------------------------------------------------------------------------

check(tool_section("browser_read"))(make_capability_check("browser_read"))


@check(tool_section("browser_read"))
async def read_facts(run: Run) -> None:
    """"Facts: `tab`, governed `url`, bounded `title`, `text`, `truncated`, and
    `document_generation`." """
    await run.page("/hello")
    read = (await run.main.call("browser_read", {})).ok()
    facts = read.facts
    expect(facts.get("tab") == run.main_tab and facts.get("url") == run.url("/hello") and facts.get("title") == "Hello fixture", f"facts {facts}")
    expect("Ghostlight reads this sentence from a fixture page." in facts.get("text", ""), f"text {facts.get('text')!r}")
    expect(facts.get("truncated") is False and isinstance(facts.get("document_generation"), int), f"facts {facts}")
    expect(read.effect == "none", f"effect {read.effect}")


@check(tool_section("browser_read"))
async def read_max_chars(run: Run) -> None:
    """"optional `max_chars` from 500 to 50000, default 8000" """
    await run.page("/article")
    default = (await run.main.call("browser_read", {})).ok()
    expect(len(default.facts["text"]) == 8000 and default.facts["truncated"] is True, f"{len(default.facts['text'])} characters, truncated {default.facts['truncated']}")
    small = (await run.main.call("browser_read", {"max_chars": 500})).ok()
    expect(len(small.facts["text"]) <= 500 and small.facts["truncated"] is True, f"{len(small.facts['text'])} characters")
    large = (await run.main.call("browser_read", {"max_chars": 50000})).ok()
    expect(8000 < len(large.facts["text"]) <= 50000, f"{len(large.facts['text'])} characters")


@check(tool_section("browser_read"))
async def read_article_first_then_visible(run: Run) -> None:
    """"optional `mode` of `article` or `visible` (article text first, falling back to visible text;
    ignored with `target`)" (CLARIFICATIONS: "`browser_read` without `mode`: article text first,
    falling back to visible text.")"""
    await run.page("/conf/article")
    default = (await run.main.call("browser_read", {})).ok().facts["text"]
    article = (await run.main.call("browser_read", {"mode": "article"})).ok().facts["text"]
    visible = (await run.main.call("browser_read", {"mode": "visible"})).ok().facts["text"]
    expect("The article body begins here." in default and "Site navigation" not in default and "Footer boilerplate" not in default, f"default read {default[:300]!r}")
    expect("The article body begins here." in article and "Footer boilerplate" not in article, f"article read {article[:300]!r}")
    expect("Site navigation home" in visible and "Footer boilerplate text" in visible, f"visible read {visible[:300]!r}")
    await run.page("/conf/opener")
    fallback = (await run.main.call("browser_read", {})).ok().facts["text"]
    expect("Open a tab" in fallback, f"no fallback to visible text: {fallback!r}")


@check(tool_section("browser_read"))
async def read_target_ignores_mode(run: Run) -> None:
    """"Read useful bounded prose from a page or target." ... "optional `mode` ... ignored with
    `target`" """
    await run.page("/conf/article")
    heading = (await run.main.call("browser_find", {"text": "The article heading"})).ok().facts["matches"][0][0]
    for mode in ("article", "visible"):
        read = (await run.main.call("browser_read", {"target": heading, "mode": mode})).ok()
        expect(read.facts["text"].strip() == "The article heading", f"mode {mode}: {read.facts['text']!r}")


@check(tool_section("browser_read"))
async def read_visible_excludes_hidden_text(run: Run) -> None:
    """"`visible`" text is what the page shows: hidden content stays out."""
    await run.page("/conf/main")
    text = (await run.main.call("browser_read", {"mode": "visible", "max_chars": 50000})).ok().facts["text"]
    expect("Hidden paragraph text" not in text and "Hidden button" not in text, "hidden text was read")
    expect("Bottom of the page" in text, "visible text is missing")


# ---- browser_inspect -------------------------------------------------------------------------

check(tool_section("browser_inspect"))(make_capability_check("browser_inspect"))


def rows_of(facts: dict[str, Any], key: str = "items") -> list[dict[str, Any]]:
    columns = facts.get("columns") or ["target", "role", "name", "state", "credential"]
    return [dict(zip(columns, row)) if isinstance(row, list) else row for row in facts.get(key) or []]


@check(tool_section("browser_inspect"))
async def inspect_items(run: Run) -> None:
    """"Facts: `tab`, `document_generation`, and `items`. Each item has a target handle, semantic
    role, bounded accessible name, state, and credential-class flag. Selectors are not exposed." """
    opened = await run.page("/conf/main")
    inspected = (await run.main.call("browser_inspect", {})).ok()
    facts = inspected.facts
    expect(facts.get("tab") == run.main_tab and facts.get("document_generation") == opened.facts["document_generation"], f"facts {short(facts)}")
    rows = rows_of(facts)
    expect(rows, "no items")
    for row in rows:
        expect(isinstance(row.get("target"), str) and row["target"].startswith("target_"), f"item {row}")
        expect(row.get("role") in ROLE_TOKENS, f"item role {row}")
        expect(isinstance(row.get("name", ""), str) and len(row.get("name", "")) <= 80, f"item name {row}")
        expect(isinstance(row.get("state", []), list), f"item state {row}")
        expect(isinstance(row.get("credential", False), bool), f"item credential {row}")
        expect(set(row) <= {"target", "role", "name", "state", "credential"}, f"item fields {row}")
    expect(not re.search(r'["\'](#|\.)[A-Za-z][\w-]*["\']|\binput\[|nth-child|//\w+', json.dumps(facts["items"])), "a selector leaked into the items")
    names = {row.get("name") for row in rows}
    expect({"Full name", "I agree", "Color", "Count", "Submit form", "Go to hello"} <= names, f"controls missing from {sorted(n for n in names if n)}")


@check(tool_section("browser_inspect"))
async def inspect_credential_class_flag(run: Run) -> None:
    """"Each item has ... credential-class flag." """
    await run.page("/conf/main")
    rows = rows_of((await run.main.call("browser_inspect", {})).ok().facts)
    flagged = [row.get("name") for row in rows if row.get("credential")]
    expect(flagged == ["Password"], f"credential-class items: {flagged}")


@check(tool_section("browser_inspect"))
async def inspect_scopes_and_max_items(run: Run) -> None:
    """"optional `scope` of `controls`, `structure`, `all`, or `document`, default `controls`" ...
    "optional `max_items` from 1 to 200, default 80" """
    await run.page("/conf/main")
    controls = rows_of((await run.main.call("browser_inspect", {})).ok().facts)
    structure = rows_of((await run.main.call("browser_inspect", {"scope": "structure"})).ok().facts)
    everything = rows_of((await run.main.call("browser_inspect", {"scope": "all", "max_items": 200})).ok().facts)
    expect("heading" not in {r["role"] for r in controls}, "scope controls listed a heading")
    expect("heading" in {r["role"] for r in structure} and "button" not in {r["role"] for r in structure}, f"structure roles {[r['role'] for r in structure]}")
    expect({r["role"] for r in everything} >= {"heading", "button", "textbox"}, f"all roles {[r['role'] for r in everything]}")
    await run.page("/controls")
    default = (await run.main.call("browser_inspect", {})).ok()
    expect(len(default.facts["items"]) == 80, f"{len(default.facts['items'])} items by default")
    few = (await run.main.call("browser_inspect", {"max_items": 5})).ok()
    expect(len(few.facts["items"]) == 5, f"{len(few.facts['items'])} items for max_items 5")
    many = (await run.main.call("browser_inspect", {"max_items": 200})).ok()
    expect(len(many.facts["items"]) == 200, f"{len(many.facts['items'])} items for max_items 200")


@check(tool_section("browser_inspect"))
async def inspect_document_snapshots_and_diff(run: Run) -> None:
    """"A `document` scope returns one bounded structure-only tree, records it under a snapshot handle
    that is superseded per tab, and reports a structural diff against the current prior snapshot
    when one exists." """
    await run.page("/conf/main")
    first = (await run.main.call("browser_inspect", {"scope": "document"})).ok()
    snapshot = first.facts.get("snapshot")
    expect(isinstance(snapshot, str) and snapshot.startswith("snap_"), f"snapshot {snapshot!r}")
    expect("diff" not in first.facts or not first.facts.get("diff"), f"a first snapshot reported a diff: {first.facts.get('diff')}")
    await run.js("var h = document.createElement('h2'); h.textContent = 'A new section'; document.body.appendChild(h); 1")
    second = (await run.main.call("browser_inspect", {"scope": "document"})).ok()
    expect(second.facts.get("snapshot") not in (None, snapshot), "the snapshot handle was not renewed")
    expect(second.facts.get("previous_snapshot") == snapshot, f"previous_snapshot {second.facts.get('previous_snapshot')!r}")
    diff = second.facts.get("diff") or {}
    expect(isinstance(diff, dict) and sum(v for v in diff.values() if isinstance(v, int)) >= 1, f"diff {diff}")
    expect(any(row[2] == "A new section" for row in second.facts["items"] if len(row) > 2), "the new heading is not in the tree")


@check(tool_section("browser_inspect"))
async def inspect_document_root_and_depth(run: Run) -> None:
    """"with `document`, an optional bounded subtree `root` handle and `max_depth` from 1 to 12"
    (CLARIFICATIONS: "`root` (a target handle) and `max_depth` are refused outside scope
    `document`.")"""
    await run.page("/conf/main")
    tree = (await run.main.call("browser_inspect", {"scope": "document", "max_depth": 1})).ok()
    depths = [row[3] for row in tree.facts["items"]]
    expect(depths and max(depths) <= 1, f"depths {depths}")
    root = tree.facts["items"][-1][0]
    (await run.main.call("browser_inspect", {"scope": "document", "root": root, "max_depth": 2})).ok()
    await run.refused("browser_inspect", {"scope": "controls", "max_depth": 2}, "/max_depth")
    await run.refused("browser_inspect", {"root": root}, "/root")
    await run.refused("browser_inspect", {"scope": "all", "root": root}, "/root")


@check(tool_section("browser_inspect"))
async def inspect_never_returns_values_or_hidden_content(run: Run) -> None:
    """"Editable values are never returned; hidden content is excluded." """
    await run.page("/conf/main")
    await run.js("document.getElementById('name').value = 'Secret-Field-Value'; document.getElementById('count').value = '4242'; 1")
    for scope in ("controls", "structure", "all", "document", "forms"):
        facts = (await run.main.call("browser_inspect", {"scope": scope, "max_items": 200})).ok().facts
        dumped = json.dumps(facts)
        expect("Secret-Field-Value" not in dumped and "4242" not in dumped and "prefilled-value-xyz" not in dumped, f"scope {scope} returned a value")
        expect("Hidden button" not in dumped and "Hidden paragraph" not in dumped, f"scope {scope} returned hidden content")


# ---- browser_find ----------------------------------------------------------------------------

check(tool_section("browser_find"))(make_capability_check("browser_find"))


@check(tool_section("browser_find"))
async def find_ranked_matches(run: Run) -> None:
    """"Facts: `tab`, `document_generation`, and bounded ranked `matches` with target, role, name,
    and state." """
    opened = await run.page("/conf/main")
    found = (await run.main.call("browser_find", {"text": "Count"})).ok()
    facts = found.facts
    expect(facts.get("tab") == run.main_tab and facts.get("document_generation") == opened.facts["document_generation"], f"facts {short(facts)}")
    rows = rows_of(facts, "matches")
    expect(len(rows) >= 2, f"matches {rows}")
    expect(rows[0].get("name") == "Count", f"the exact name is not ranked first: {[r.get('name') for r in rows]}")
    expect(any(r.get("name") == "Count clicks" for r in rows), "the prefix match is missing")
    for row in rows:
        expect(row["target"].startswith("target_") and row["role"] in ROLE_TOKENS and isinstance(row.get("state", []), list), f"match {row}")
    clicked = (await run.main.call("browser_click", {"target": next(r["target"] for r in rows if r.get("name") == "Count clicks")})).ok()
    expect((await run.out()).startswith("clicks=1"), f"a found target did not act: {clicked.summary}")


@check(tool_section("browser_find"))
async def find_scopes(run: Run) -> None:
    """"optional `scope` of `any`, `control`, or `text`, default `any`" -- finding "by visible or
    accessible text"."""
    await run.page("/conf/main")
    text = rows_of((await run.main.call("browser_find", {"text": "Bottom of the page", "scope": "text"})).ok().facts, "matches")
    control = rows_of((await run.main.call("browser_find", {"text": "Bottom of the page", "scope": "control"})).ok().facts, "matches")
    anywhere = rows_of((await run.main.call("browser_find", {"text": "Bottom of the page"})).ok().facts, "matches")
    expect(text and not control and anywhere, f"text {text}, control {control}, any {anywhere}")
    buttons = rows_of((await run.main.call("browser_find", {"text": "Submit form", "scope": "control"})).ok().facts, "matches")
    expect(buttons and buttons[0]["role"] == "button", f"control scope {buttons}")
    hidden = rows_of((await run.main.call("browser_find", {"text": "Hidden button"})).ok().facts, "matches")
    expect(not hidden, f"hidden content was found: {hidden}")


@check(tool_section("browser_find"))
async def find_max_results(run: Run) -> None:
    """"optional `max_results` from 1 to 50, default 20" """
    await run.page("/controls")
    default = (await run.main.call("browser_find", {"text": "Control"})).ok()
    expect(len(default.facts["matches"]) == 20, f"{len(default.facts['matches'])} matches by default")
    two = (await run.main.call("browser_find", {"text": "Control", "max_results": 2})).ok()
    expect(len(two.facts["matches"]) == 2, f"{len(two.facts['matches'])} matches for max_results 2")
    fifty = (await run.main.call("browser_find", {"text": "Control", "max_results": 50})).ok()
    expect(len(fifty.facts["matches"]) == 50, f"{len(fifty.facts['matches'])} matches for max_results 50")


@check(tool_section("browser_find"))
async def find_text_is_required_and_non_empty(run: Run) -> None:
    """"Inputs: required non-empty `text`" """
    await run.refused("browser_find", {}, "/text", {"missing_field"})
    await run.refused("browser_find", {"text": ""}, "/text")


# ---- browser_screenshot ----------------------------------------------------------------------

check(tool_section("browser_screenshot"))(make_capability_check("browser_screenshot"))


@check(tool_section("browser_screenshot"))
async def screenshot_viewport(run: Run) -> None:
    """"Every capture returns a view handle for later coordinate actions" ... "Facts: `tab`, `view`,
    `mime_type`, `width`, and `height`, plus one bounded MCP image content block." """
    await run.page("/conf/main")
    shot = (await run.main.call("browser_screenshot", {})).ok()
    facts = shot.facts
    expect(facts.get("tab") == run.main_tab and str(facts.get("view", "")).startswith("view_") and facts.get("mime_type") == "image/png", f"facts {facts}")
    inner = await run.js("[window.innerWidth, window.innerHeight, window.devicePixelRatio]")
    expect(abs(facts["width"] - inner[0] * inner[2]) <= 20 and abs(facts["height"] - inner[1] * inner[2]) <= 20, f"a viewport capture of {facts['width']}x{facts['height']} for a viewport of {inner}")
    expect(len(shot.images) == 1 and png_size(base64.b64decode(shot.images[0].data)) == (facts["width"], facts["height"]), "image block")
    expect(shot.effect == "none", f"effect {shot.effect}")


@check(tool_section("browser_screenshot"))
async def screenshot_full_page_and_target(run: Run) -> None:
    """"Capture the viewport, full page, one target, or a magnified region from a current view." """
    await run.page("/conf/main")
    page = (await run.main.call("browser_screenshot", {"full_page": True})).ok()
    size = await run.js("[document.documentElement.scrollWidth, document.documentElement.scrollHeight, window.devicePixelRatio, window.innerHeight]")
    expect(page.facts["height"] >= size[1] * size[2] - 20 and page.facts["height"] > size[3], f"a full page of {page.facts['width']}x{page.facts['height']} for a document of {size}")
    expect(png_size(base64.b64decode(page.images[0].data)) == (page.facts["width"], page.facts["height"]), "full-page image size")
    target = (await run.main.call("browser_find", {"text": "Count clicks"})).ok().facts["matches"][0][0]
    element = (await run.main.call("browser_screenshot", {"target": target})).ok()
    _, _, width, height = await center_of(run, "counter")
    expect(abs(element.facts["width"] - width * size[2]) <= 12 and abs(element.facts["height"] - height * size[2]) <= 12,
           f"a target capture of {element.facts['width']}x{element.facts['height']} for an element of {width}x{height}")
    expect(str(element.facts.get("view", "")).startswith("view_") and element.facts["view"] != page.facts["view"], "views are not fresh per capture")
    # "Every capture returns a view handle for later coordinate actions or another region capture."
    region = (await run.main.call("browser_screenshot", {"view": element.facts["view"], "x": 0, "y": 0,
                                                         "width": element.facts["width"] // 2, "height": element.facts["height"] // 2})).ok()
    expect(region.facts["view"] not in (element.facts["view"], page.facts["view"]), f"facts {region.facts}")
    (await run.main.call("browser_screenshot", {"full_page": False})).ok()


@check(tool_section("browser_screenshot"))
async def screenshot_branches_do_not_combine(run: Run) -> None:
    """"Target, full-page, and region capture cannot be combined." """
    await run.refused("browser_screenshot", {"target": "target_a", "full_page": True}, "/target", {"conflict"})
    outcome = await run.main.call("browser_screenshot", {"view": "view_a", "x": 0, "y": 0, "width": 1, "height": 1, "full_page": True})
    expect_decode_error(outcome, outcome.facts.get("pointer", "?"), {"conflict"})
    outcome = await run.main.call("browser_screenshot", {"view": "view_a", "x": 0, "y": 0, "width": 1, "height": 1, "target": "target_a"})
    expect_decode_error(outcome, outcome.facts.get("pointer", "?"), {"conflict"})
    await run.refused("browser_screenshot", {"view": "view_a", "x": 0, "y": 0, "width": 1}, "/height", {"missing_field"})


@check(tool_section("browser_screenshot"))
async def screenshot_region_inside_the_current_view(run: Run) -> None:
    """"Region coordinates are image pixels and must form a positive rectangle wholly inside the
    current view." """
    await run.page("/conf/main")
    shot = (await run.main.call("browser_screenshot", {})).ok()
    view, width, height = shot.facts["view"], shot.facts["width"], shot.facts["height"]
    outside = await run.main.call("browser_screenshot", {"view": view, "x": width - 10, "y": 0, "width": 20, "height": 10})
    expect_failed(outside)
    expect(not outside.images, "a refused region returned an image")
    expect_failed(await run.main.call("browser_screenshot", {"view": view, "x": 0, "y": height - 5, "width": 10, "height": 6}))
    await run.refused("browser_screenshot", {"view": view, "x": 0, "y": 0, "width": 0, "height": 5}, "/width")
    region = (await run.main.call("browser_screenshot", {"view": view, "x": width - 100, "y": height - 50, "width": 100, "height": 50})).ok()
    expect(region.facts["view"] != view and region.facts["width"] >= 100 and region.facts["height"] >= 50, f"facts {region.facts}")
    expect(png_size(base64.b64decode(region.images[0].data)) == (region.facts["width"], region.facts["height"]), "region image size")


# ---- browser_click ---------------------------------------------------------------------------

check(tool_section("browser_click"))(make_capability_check("browser_click"))


@check(tool_section("browser_click"))
async def click_target(run: Run) -> None:
    """"Click a current semantic target" ... "Facts: `tab`, optional `target`, optional `view`,
    `activated`, and any governed committed landing." """
    await run.page("/conf/main")
    targets = await run.targets()
    clicked = (await run.main.call("browser_click", {"target": targets["Count clicks"]})).ok()
    expect(clicked.facts.get("tab") == run.main_tab and clicked.facts.get("target") == targets["Count clicks"], f"facts {clicked.facts}")
    expect(clicked.facts.get("activated") is True and clicked.effect == "applied", f"{clicked.describe()}")
    expect("landing" not in clicked.facts, f"a click without navigation reports a landing: {clicked.facts}")
    expect(await run.out() == "clicks=1 detail=1", f"page {await run.out()!r}")


@check(tool_section("browser_click"))
async def click_buttons_and_counts(run: Run) -> None:
    """"optional `button` of `primary`, `middle`, or `secondary`, default `primary`; optional
    `click_count` from 1 to 3 for single, double, or triple, default 1" """
    await run.page("/conf/main")
    target = (await run.targets())["Count clicks"]
    (await run.main.call("browser_click", {"target": target, "click_count": 2})).ok()
    expect((await run.out()).endswith("detail=2"), f"a double click: {await run.out()!r}")
    (await run.main.call("browser_click", {"target": target, "click_count": 3})).ok()
    expect((await run.out()).endswith("detail=3"), f"a triple click: {await run.out()!r}")
    (await run.main.call("browser_click", {"target": target, "button": "secondary"})).ok()
    expect(await run.out() == "context menu", f"a secondary click: {await run.out()!r}")
    (await run.main.call("browser_click", {"target": target, "button": "middle"})).ok()
    expect(await run.out() == "context menu", f"a middle click ran the primary action: {await run.out()!r}")
    (await run.main.call("browser_click", {"target": target, "button": "primary"})).ok()
    expect((await run.out()).endswith("detail=1"), f"a primary click: {await run.out()!r}")


@check(tool_section("browser_click"))
async def click_exactly_one_location(run: Run) -> None:
    """"Inputs use exactly one location branch: required `target`, or required `view`, `x`, and
    `y`." """
    await run.refused("browser_click", {}, "/target", {"missing_field"})
    await run.refused("browser_click", {"view": "view_a", "x": 1}, "/y", {"missing_field"})
    await run.refused("browser_click", {"x": 1, "y": 1}, "/view", {"missing_field"})
    outcome = await run.main.call("browser_click", {"target": "target_a", "selector": {"name": "Send"}})
    expect_decode_error(outcome, "/selector", {"conflict"})


@check(tool_section("browser_click"))
async def click_point_in_a_view(run: Run) -> None:
    """"Click ... a point in a current screenshot." """
    await run.page("/conf/main")
    shot = (await run.main.call("browser_screenshot", {})).ok()
    scale = shot.facts["width"] / await run.js("window.innerWidth")
    left, top, width, height = await center_of(run, "counter")
    clicked = (await run.main.call("browser_click", {"view": shot.facts["view"], "x": int((left + width / 2) * scale), "y": int((top + height / 2) * scale)})).ok()
    expect(clicked.facts.get("view") == shot.facts["view"] and clicked.facts.get("activated") is True, f"facts {clicked.facts}")
    expect(await run.out() == "clicks=1 detail=1", f"page {await run.out()!r}")


@check(tool_section("browser_click"))
async def click_reports_the_governed_landing(run: Run) -> None:
    """"Facts: ... any governed committed landing." """
    await run.page("/conf/main")
    clicked = (await run.main.call("browser_click", {"selector": {"name": "Go to hello"}})).ok()
    landing = clicked.facts.get("landing") or {}
    expect(landing.get("url") == run.url("/hello") and landing.get("title", "Hello fixture") == "Hello fixture", f"landing {landing}")
    expect(isinstance(landing.get("document_generation"), int), f"landing {landing}")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    expect(listed.facts["tabs"][0]["url"] == run.url("/hello"), "the tab did not land")


@check(tool_section("browser_click"))
async def click_landing_outside_authority_is_withheld(run: Run) -> None:
    """CLARIFICATIONS: "Inside authority it is the full URL; outside authority only
    `scheme://host[:port]` appears." -- for a click whose link leads to a denied host, which
    authority on the wire stops before anything is sent: the click is `blocked`, its sentence
    names the host and says nothing was sent, the refused request counts in `blocked_requests`
    as its origin only, and the tab stays on its page."""
    await run.page(f"/conf/main?away={run.denied}")
    clicked = await run.main.call("browser_click", {"selector": {"name": "Leave for the denied site"}})
    denied_host = run.denied.split("://", 1)[1]
    expect(clicked.status == "blocked", f"{clicked.describe()}")
    expect(f"tried to open {denied_host}, which is outside authority; nothing was sent." in clicked.summary, f"{clicked.describe()}")
    blocked = clicked.facts.get("blocked_requests") or {}
    expect(blocked.get("count", 0) >= 1 and run.denied in (blocked.get("origins") or []), f"blocked_requests {blocked}")
    expect("/hello" not in json.dumps(clicked.env) and "Hello fixture" not in json.dumps(clicked.env), f"the refused page leaked: {clicked.describe()}")
    listed = (await run.main.call("browser_tabs", {"action": "list"})).ok()
    expect(listed.facts["tabs"][0]["url"].startswith(f"{run.base}/conf/main"), f"tabs {listed.facts['tabs']}")
    await run.page("/hello")


# ---- browser_scroll --------------------------------------------------------------------------

check(tool_section("browser_scroll"))(make_capability_check("browser_scroll"))


@check(tool_section("browser_scroll"))
async def scroll_default_down_medium(run: Run) -> None:
    """"Shortest call: `{}`, which scrolls down by a medium amount." ... "Facts: `tab`, optional
    `target`, `scrolled`, and observed horizontal and vertical offsets." """
    await run.page("/conf/main")
    scrolled = (await run.main.call("browser_scroll", {})).ok()
    facts = scrolled.facts
    expect(facts.get("tab") == run.main_tab and facts.get("scrolled") is True, f"facts {facts}")
    y = await run.js("window.scrollY")
    height = await run.js("window.innerHeight")
    expect(y > 0 and y < height, f"a medium scroll moved {y} of a {height} viewport")
    offsets = [v for k, v in facts.items() if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in ("ticks",)]
    expect(any(abs(v - y) <= 1 for v in offsets), f"the observed vertical offset {y} is not in the facts {facts}")


@check(tool_section("browser_scroll"))
async def scroll_directions_and_amounts(run: Run) -> None:
    """"optional `direction` of `up`, `down`, `left`, or `right` defaulting to `down`, and optional
    `amount` of `small`, `medium`, `large`, or `page` defaulting to `medium`" """
    await run.page("/conf/main")
    moved = {}
    for amount in ("small", "medium", "large", "page"):
        await run.js("window.scrollTo(0, 0); 1")
        (await run.main.call("browser_scroll", {"direction": "down", "amount": amount})).ok()
        moved[amount] = await run.js("window.scrollY")
    expect(0 < moved["small"] < moved["medium"] < moved["large"] < moved["page"] + 1, f"distances {moved}")
    (await run.main.call("browser_scroll", {"direction": "up", "amount": "page"})).ok()
    expect(await run.js("window.scrollY") < moved["page"], "up did not scroll up")
    (await run.main.call("browser_scroll", {"direction": "right", "amount": "small"})).ok()
    x = await run.js("window.scrollX")
    expect(x > 0, "right did not scroll right")
    (await run.main.call("browser_scroll", {"direction": "left", "amount": "page"})).ok()
    expect(await run.js("window.scrollX") < x, "left did not scroll left")


@check(tool_section("browser_scroll"))
async def scroll_reveals_a_target(run: Run) -> None:
    """"Scroll in a direction or reveal a semantic target." """
    await run.page("/conf/main")
    bottom = (await run.main.call("browser_find", {"text": "Bottom of the page"})).ok().facts["matches"][0][0]
    revealed = (await run.main.call("browser_scroll", {"target": bottom})).ok()
    expect(revealed.facts.get("target") == bottom, f"facts {revealed.facts}")
    visible = await run.js("var r = document.getElementById('bottom').getBoundingClientRect(); r.top >= 0 && r.bottom <= window.innerHeight")
    expect(visible is True, "the target is not in view")
    await run.refused("browser_scroll", {"target": bottom, "direction": "down"}, "/direction")


@check(tool_section("browser_scroll"))
async def scroll_wheel_at_a_point(run: Run) -> None:
    """"coordinate wheel input with required `view`, `x`, `y`, and `ticks` from 1 to 10 plus a
    two-way `direction` of `up` or `down`." """
    await run.page("/conf/main")
    view = (await run.main.call("browser_screenshot", {})).ok().facts["view"]
    (await run.main.call("browser_scroll", {"view": view, "x": 100, "y": 100, "ticks": 2, "direction": "down"})).ok()
    expect(await run.js("window.scrollY") > 0, "the wheel did not scroll")
    view = (await run.main.call("browser_screenshot", {})).ok().facts["view"]
    await run.refused("browser_scroll", {"view": view, "x": 100, "y": 100, "ticks": 1, "direction": "left"}, "/direction")
    await run.refused("browser_scroll", {"view": view, "x": 100, "y": 100, "direction": "down"}, "/ticks", {"missing_field"})
    await run.refused("browser_scroll", {"view": view, "x": 100, "y": 100, "ticks": 1, "amount": "small"}, "/amount")


@check(tool_section("browser_scroll"))
async def scroll_takes_tab_in_every_branch(run: Run) -> None:
    """CLARIFICATIONS: "`browser_scroll` accepts `tab` in every branch." """
    await run.page("/conf/main")
    bottom = (await run.main.call("browser_find", {"text": "Bottom of the page"})).ok().facts["matches"][0][0]
    (await run.main.call("browser_scroll", {"tab": run.main_tab, "target": bottom})).ok()
    (await run.main.call("browser_scroll", {"tab": run.main_tab, "direction": "up", "amount": "page"})).ok()
    view = (await run.main.call("browser_screenshot", {})).ok().facts["view"]
    (await run.main.call("browser_scroll", {"tab": run.main_tab, "view": view, "x": 10, "y": 10, "ticks": 1, "direction": "down"})).ok()


# ---- browser_hover ---------------------------------------------------------------------------

check(tool_section("browser_hover"))(make_capability_check("browser_hover"))


@check(tool_section("browser_hover"))
async def hover_target_and_point(run: Run) -> None:
    """"Hover a current semantic target or a point in a current screenshot." ... "Facts: `tab`,
    optional `target`, optional `view`, and `hovered`." """
    await run.page("/conf/main")
    target = (await run.targets())["Hover target"]
    done = (await run.main.call("browser_hover", {"target": target})).ok()
    expect(done.facts.get("tab") == run.main_tab and done.facts.get("target") == target and done.facts.get("hovered") is True, f"facts {done.facts}")
    expect(await hovered(run) == "hovered", f"page {await hovered(run)!r}")
    await run.page("/conf/main")
    shot = (await run.main.call("browser_screenshot", {})).ok()
    scale = shot.facts["width"] / await run.js("window.innerWidth")
    left, top, width, height = await center_of(run, "hover")
    pointed = (await run.main.call("browser_hover", {"view": shot.facts["view"], "x": int((left + width / 2) * scale), "y": int((top + height / 2) * scale)})).ok()
    expect(pointed.facts.get("view") == shot.facts["view"] and pointed.facts.get("hovered") is True, f"facts {pointed.facts}")
    expect(await hovered(run) == "hovered", f"page {await hovered(run)!r}")
    await run.refused("browser_hover", {}, "/target", {"missing_field"})
    await run.refused("browser_hover", {"target": target, "view": shot.facts["view"], "x": 1, "y": 1}, "/view", {"conflict"})


# ---- browser_fill_form -----------------------------------------------------------------------

check(tool_section("browser_fill_form"))(make_capability_check("browser_fill_form"))


async def form_state(run: Run) -> dict[str, Any]:
    return await run.js(
        "({name: document.getElementById('name').value, pw: document.getElementById('pw').value,"
        " agree: document.getElementById('agree').checked, color: document.getElementById('color').value,"
        " count: document.getElementById('count').value, out: document.getElementById('out').textContent})")


@check(tool_section("browser_fill_form"))
async def fill_form_fills_without_submitting(run: Run) -> None:
    """"Fill one or more ordinary controls. It does not submit unless `submit_target` is present."
    ... "a value is a bounded string, a boolean for checkboxes and radios, or a finite number for
    numeric inputs" ... "Facts: `tab`, `filled_count`, `submitted`" """
    await run.page("/conf/main")
    targets = await run.targets()
    filled = (await run.main.call("browser_fill_form", {"fields": [
        {"target": targets["Full name"], "value": "Ada"},
        {"target": targets["I agree"], "value": True},
        {"target": targets["Color"], "value": "Green"},
        {"target": targets["Count"], "value": 7},
    ]})).ok()
    expect(filled.facts.get("tab") == run.main_tab and filled.facts.get("filled_count") == 4 and filled.facts.get("submitted") is False, f"facts {filled.facts}")
    state = await form_state(run)
    expect(state == {"name": "Ada", "pw": "", "agree": True, "color": "g", "count": "7", "out": ""}, f"page {state}")


@check(tool_section("browser_fill_form"))
async def fill_form_values_fit_their_controls(run: Run) -> None:
    """CLARIFICATIONS: "a string for text-like controls and selects (matched by option value, then
    visible label), a boolean for checkboxes and radios, a number (or numeric string) for number
    and range inputs. A value that does not fit its control refuses the whole call before any field
    is filled." """
    await run.page("/conf/main")
    targets = await run.targets()
    (await run.main.call("browser_fill_form", {"fields": [{"target": targets["Color"], "value": "g"}, {"target": targets["Count"], "value": "42"}]})).ok()
    state = await form_state(run)
    expect(state["color"] == "g" and state["count"] == "42", f"page {state}")
    (await run.main.call("browser_fill_form", {"fields": [{"target": targets["Color"], "value": "Red"}]})).ok()
    expect((await form_state(run))["color"] == "r", "a select was not matched by its label")
    refused = await run.main.call("browser_fill_form", {"fields": [{"target": targets["Full name"], "value": "Grace"}, {"target": targets["I agree"], "value": "yes"}]})
    expect_failed(refused)
    expect(refused.effect == "none", f"effect {refused.effect}")
    expect((await form_state(run))["name"] == "", "a refused fill filled the first field")
    refused = await run.main.call("browser_fill_form", {"fields": [{"target": targets["Count"], "value": "many"}]})
    expect_failed(refused)


@check(tool_section("browser_fill_form"))
async def fill_form_submit_target_submits(run: Run) -> None:
    """"It does not submit unless `submit_target` is present." """
    await run.page("/conf/main")
    targets = await run.targets()
    filled = (await run.main.call("browser_fill_form", {"fields": [{"target": targets["Full name"], "value": "Grace"}], "submit_target": targets["Submit form"]})).ok()
    expect(filled.facts.get("submitted") is True and filled.facts.get("filled_count") == 1, f"facts {filled.facts}")
    expect((await form_state(run))["out"].startswith("Submitted: name=Grace"), f"page {await form_state(run)}")
    (await run.main.call("browser_fill_form", {"fields": [{"selector": {"name": "Full name"}, "value": "Ada"}], "submit_selector": {"name": "Submit form"}})).ok()
    expect((await form_state(run))["out"].startswith("Submitted: name=Ada"), "submit_selector did not submit")


@check(tool_section("browser_fill_form"))
async def fill_form_credentials_go_to_the_person(run: Run) -> None:
    """"Credential-class targets stop before any value dispatch and request visible user handoff."
    (CLARIFICATIONS: a credential handoff -> `attention_required`.)"""
    await run.page("/conf/main")
    targets = await run.targets()
    stopped = await run.main.call("browser_fill_form", {"fields": [{"target": targets["Full name"], "value": "Ada"}, {"target": targets["Password"], "value": SECRETS["fill"]}]})
    expect(stopped.status == "attention_required" and stopped.effect == "none", f"{stopped.describe()}")
    expect(SECRETS["fill"] not in json.dumps(stopped.env), "the credential value was echoed")
    state = await form_state(run)
    expect(state["name"] == "" and state["pw"] == "", f"a value was dispatched: {state}")


@check(tool_section("browser_fill_form"))
async def fill_form_field_locations(run: Run) -> None:
    """"required `fields` array of 1 to 30 typo-closed objects, each with required `value` and exactly
    one location (`target` or typed semantic `selector`)" """
    await run.refused("browser_fill_form", {"fields": [{"value": "x"}]}, "/fields/0/target", {"missing_field"})
    await run.refused("browser_fill_form", {"fields": [{"target": "target_a", "selector": {"name": "x"}, "value": "x"}]}, "/fields/0/selector", {"conflict"})
    await run.refused("browser_fill_form", {"fields": [{"target": "target_a"}]}, "/fields/0/value", {"missing_field"})
    await run.refused("browser_fill_form", {"fields": [{"target": "target_a", "value": "x", "label": "y"}]}, "/fields/0/label", {"unknown_field"})
    await run.refused("browser_fill_form", {"fields": [{"target": "target_a", "value": None}]}, "/fields/0/value")


# ---- browser_type_text -----------------------------------------------------------------------

check(tool_section("browser_type_text"))(make_capability_check("browser_type_text"))


@check(tool_section("browser_type_text"))
async def type_text_through_input_events(run: Run) -> None:
    """"Type ordinary text through browser input events." ... "Facts: `tab`, `target`, `typed`,
    `character_count`" (CLARIFICATIONS: "`character_count` counts Unicode scalar values.")"""
    await run.page("/conf/main")
    target = (await run.targets())["Full name"]
    typed = (await run.main.call("browser_type_text", {"target": target, "text": "abc"})).ok()
    expect(typed.facts.get("tab") == run.main_tab and typed.facts.get("target") == target and typed.facts.get("typed") is True, f"facts {typed.facts}")
    expect(typed.facts.get("character_count") == 3, f"character_count {typed.facts.get('character_count')}")
    expect(await run.js("document.getElementById('keys').textContent") == "keys:a b c", "no per-character key events")
    unicode = (await run.main.call("browser_type_text", {"target": target, "text": "é🙂"})).ok()
    expect(unicode.facts.get("character_count") == 2, f"character_count {unicode.facts.get('character_count')} for 2 scalar values")
    value = await run.js("document.getElementById('name').value")
    expect(value == "abcé🙂", f"value {value!r}")
    expect("abc" not in typed.summary, f"the typed text was echoed: {typed.summary!r}")


@check(tool_section("browser_type_text"))
async def type_text_locations(run: Run) -> None:
    """"Inputs use one location: `target` with bounded `text`; or `selector` with `text`; or
    `focused:true` to type into the currently focused editable control." """
    await run.page("/conf/main")
    (await run.main.call("browser_type_text", {"selector": {"name": "Full name"}, "text": "A"})).ok()
    (await run.main.call("browser_type_text", {"focused": True, "text": "B"})).ok()
    expect(await run.js("document.getElementById('name').value") == "AB", "focused typing went elsewhere")
    await run.refused("browser_type_text", {"text": "x"}, "/target", {"missing_field"})
    outcome = await run.main.call("browser_type_text", {"target": "target_a", "focused": True, "text": "x"})
    expect_decode_error(outcome, outcome.facts.get("pointer", "?"), {"conflict"})


@check(tool_section("browser_type_text"))
async def type_text_clear_first(run: Run) -> None:
    """"Optional `clear_first`, default `false`" ... "Empty text is valid only as an explicit clear
    together with `clear_first:true`." """
    await run.page("/conf/main")
    target = (await run.targets())["Full name"]
    (await run.main.call("browser_type_text", {"target": target, "text": "old"})).ok()
    (await run.main.call("browser_type_text", {"target": target, "text": "new"})).ok()
    expect(await run.js("document.getElementById('name').value") == "oldnew", "typing without clear_first cleared")
    (await run.main.call("browser_type_text", {"target": target, "text": "fresh", "clear_first": True})).ok()
    expect(await run.js("document.getElementById('name').value") == "fresh", "clear_first did not clear")
    await run.refused("browser_type_text", {"target": target, "text": ""}, "/text")
    (await run.main.call("browser_type_text", {"target": target, "text": "", "clear_first": True})).ok()
    expect(await run.js("document.getElementById('name').value") == "", "an explicit clear left text")


@check(tool_section("browser_type_text"))
async def type_text_credentials_stop(run: Run) -> None:
    """"Credential-class targets stop before text dispatch." """
    await run.page("/conf/main")
    target = (await run.targets())["Password"]
    stopped = await run.main.call("browser_type_text", {"target": target, "text": SECRETS["typed"]})
    expect(stopped.status == "attention_required" and stopped.effect == "none", f"{stopped.describe()}")
    expect(await run.js("document.getElementById('pw').value") == "", "text reached the password field")
    expect(SECRETS["typed"] not in json.dumps(stopped.env), "the text was echoed")


# ---- browser_press_key -----------------------------------------------------------------------

check(tool_section("browser_press_key"))(make_capability_check("browser_press_key"))


async def keys_seen(run: Run) -> str:
    return await run.js("document.getElementById('keys').textContent")


@check(tool_section("browser_press_key"))
async def press_key_one_key(run: Run) -> None:
    """"Send one explicit keyboard action." ... "Facts: `tab`, `key`, `pressed`" """
    await run.page("/conf/main")
    pressed = (await run.main.call("browser_press_key", {"key": "Escape"})).ok()
    expect(pressed.facts.get("tab") == run.main_tab and pressed.facts.get("pressed") is True and pressed.facts.get("key"), f"facts {pressed.facts}")
    expect(await keys_seen(run) == "keys:Escape", f"keys {await keys_seen(run)!r}")


@check(tool_section("browser_press_key"))
async def press_key_closed_key_list(run: Run) -> None:
    """"required `key` as one character or one named key from the closed list" (CLARIFICATIONS:
    "Named keys for `browser_press_key`: Enter, Tab, Escape, Backspace, Delete, Insert, Home, End,
    PageUp, PageDown, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Space, F1–F12.")"""
    for key in NAMED_KEYS + ["a", "Z", "7", "é", "/"]:
        await run.decodes("browser_press_key", {"key": key})
    for key in ("ab", "Return", "ArrowLeftt", "F13", "Ctrl", "enter"):
        await run.refused("browser_press_key", {"key": key}, "/key")
    await run.decodes("browser_press_key", {"strokes": ["Tab", "x", "Enter"]})
    await run.refused("browser_press_key", {"strokes": ["Tab", "Return"]}, "/strokes/1")


@check(tool_section("browser_press_key"))
async def press_key_key_or_strokes(run: Run) -> None:
    """"exactly one of required `key` ... or required `strokes`, an ordered sequence of 1 to 20 of the
    same items, with optional `repeat` from 1 to 100 defaulting to 1" (CLARIFICATIONS: "`repeat`
    (1–100) applies to `strokes` and to a single `key`.")"""
    await run.refused("browser_press_key", {}, "/key", {"missing_field"})
    outcome = await run.main.call("browser_press_key", {"key": "a", "strokes": ["b"]})
    expect_decode_error(outcome, outcome.facts.get("pointer", "?"), {"conflict"})
    await run.page("/conf/main")
    target = (await run.targets())["Full name"]
    (await run.main.call("browser_press_key", {"key": "x", "repeat": 3, "target": target})).ok()
    expect(await run.js("document.getElementById('name').value") == "xxx", "repeat did not apply to a single key")
    (await run.main.call("browser_press_key", {"strokes": ["a", "b"], "repeat": 2, "target": target})).ok()
    expect(await run.js("document.getElementById('name').value") == "xxxabab", "strokes were not pressed in order, repeated")
    (await run.main.call("browser_press_key", {"strokes": ["ArrowLeft", "ArrowLeft", "Backspace"], "target": target})).ok()
    expect(await run.js("document.getElementById('name').value") == "xxxaab", "named strokes did not act in order")


@check(tool_section("browser_press_key"))
async def press_key_modifiers(run: Run) -> None:
    """"optional unique `modifiers` from `Alt`, `Control`, `Meta`, and `Shift`" """
    await run.page("/conf/main")
    target = (await run.targets())["Full name"]
    (await run.main.call("browser_press_key", {"key": "a", "modifiers": ["Shift"], "target": target})).ok()
    expect(await run.js("document.getElementById('name').value") == "A", "Shift was not held")
    (await run.main.call("browser_press_key", {"key": "k", "modifiers": ["Control"], "target": target})).ok()
    expect("Control+k" in await keys_seen(run), f"keys {await keys_seen(run)!r}")
    await run.refused("browser_press_key", {"key": "a", "modifiers": ["Shift", "Shift"]}, "/modifiers/1")
    await run.refused("browser_press_key", {"key": "a", "modifiers": ["Hyper"]}, "/modifiers/0")


@check(tool_section("browser_press_key"))
async def press_key_target_receives_the_keys(run: Run) -> None:
    """"optional `target`" -- keys go to that control."""
    await run.page("/conf/main")
    targets = await run.targets()
    pressed = (await run.main.call("browser_press_key", {"key": "q", "target": targets["Full name"]})).ok()
    expect(pressed.facts.get("target") == targets["Full name"], f"facts {pressed.facts}")
    expect(await run.js("document.activeElement.id") == "name" and await run.js("document.getElementById('name').value") == "q", "the target did not receive the key")


# ---- browser_drag ----------------------------------------------------------------------------

check(tool_section("browser_drag"))(make_capability_check("browser_drag"))


@check(tool_section("browser_drag"))
async def drag_between_targets(run: Run) -> None:
    """"Drag one semantic target to another" ... "Facts: `tab`, `dragged`, and any governed committed
    landing." """
    await run.page("/conf/main")
    targets = await run.targets()
    dragged = (await run.main.call("browser_drag", {"source_target": targets["Drag source"], "destination_target": targets["Drop zone"]})).ok()
    expect(dragged.facts.get("tab") == run.main_tab and dragged.facts.get("dragged") is True and dragged.effect == "applied", f"facts {dragged.facts}")
    expect(await run.out() == "dropped on zone", f"page {await run.out()!r}")


@check(tool_section("browser_drag"))
async def drag_between_points(run: Run) -> None:
    """"or drag between two points in a current screenshot." """
    await run.page("/conf/main")
    shot = (await run.main.call("browser_screenshot", {})).ok()
    scale = shot.facts["width"] / await run.js("window.innerWidth")
    sl, st, sw, sh = await center_of(run, "src")
    dl, dt, dw, dh = await center_of(run, "dst")
    dragged = (await run.main.call("browser_drag", {
        "view": shot.facts["view"], "start_x": int((sl + sw / 2) * scale), "start_y": int((st + sh / 2) * scale),
        "end_x": int((dl + dw / 2) * scale), "end_y": int((dt + dh / 2) * scale)})).ok()
    expect(dragged.facts.get("dragged") is True, f"facts {dragged.facts}")
    expect(await run.out() == "dropped on zone", f"page {await run.out()!r}")


@check(tool_section("browser_drag"))
async def drag_exactly_one_branch(run: Run) -> None:
    """"Inputs use exactly one schema branch: required `source_target` and `destination_target`; or
    required `view`, `start_x`, `start_y`, `end_x`, and `end_y`." """
    await run.refused("browser_drag", {"source_target": "target_a"}, "/destination_target", {"missing_field"})
    await run.refused("browser_drag", {"view": "view_a", "start_x": 0, "start_y": 0, "end_x": 1}, "/end_y", {"missing_field"})
    outcome = await run.main.call("browser_drag", {"source_target": "target_a", "destination_target": "target_b", "view": "view_a", "start_x": 0, "start_y": 0, "end_x": 1, "end_y": 1})
    expect_decode_error(outcome, outcome.facts.get("pointer", "?"), {"conflict"})
    await run.refused("browser_drag", {}, "/source_target", {"missing_field"})


# ---- browser_wait ----------------------------------------------------------------------------

check(tool_section("browser_wait"))(make_capability_check("browser_wait"))


@check(tool_section("browser_wait"))
async def wait_load_ready(run: Run) -> None:
    """"Wait for one explicit observable condition." ... "Facts: `tab`, `condition`, `satisfied`,
    `elapsed_ms`, and governed readiness." """
    await run.page("/conf/main")
    waited = (await run.main.call("browser_wait", {"condition": "load_ready"})).ok()
    facts = waited.facts
    expect(facts.get("tab") == run.main_tab and facts.get("condition") == "load_ready" and facts.get("satisfied") is True, f"facts {facts}")
    expect(isinstance(facts.get("elapsed_ms"), int) and facts["elapsed_ms"] >= 0, f"elapsed_ms {facts.get('elapsed_ms')!r}")
    expect(waited.env["readiness"] == "complete" and facts.get("readiness", "complete") in READINESS, f"readiness {waited.env['readiness']}")
    expect(waited.effect == "none", f"effect {waited.effect}")


@check(tool_section("browser_wait"))
async def wait_branch_inputs(run: Run) -> None:
    """"`load_ready` accepts neither value nor target; `url_contains`, `text_present`, and
    `text_absent` require `value`; `target_present` and `target_absent` require `target`;
    `selector_present` requires a typed `selector`" """
    await run.refused("browser_wait", {"condition": "load_ready", "value": "x"}, "/value")
    await run.refused("browser_wait", {"condition": "load_ready", "target": "target_a"}, "/target")
    for condition in ("url_contains", "text_present", "text_absent"):
        await run.refused("browser_wait", {"condition": condition}, "/value", {"missing_field"})
        await run.refused("browser_wait", {"condition": condition, "value": "x", "target": "target_a"}, "/target")
    for condition in ("target_present", "target_absent"):
        await run.refused("browser_wait", {"condition": condition}, "/target", {"missing_field"})
        await run.refused("browser_wait", {"condition": condition, "target": "target_a", "value": "x"}, "/value")
    await run.refused("browser_wait", {"condition": "selector_present"}, "/selector", {"missing_field"})
    await run.refused("browser_wait", {"condition": "duration"}, "/value", {"missing_field"})
    await run.refused("browser_wait", {"condition": "duration", "value": "150"}, "/value")
    await run.refused("browser_wait", {"condition": "duration", "value": 1.5}, "/value")
    await run.refused("browser_wait", {"condition": "text_present", "value": 5}, "/value")


@check(tool_section("browser_wait"))
async def wait_text_and_url_conditions(run: Run) -> None:
    """"`url_contains`, `text_present`, and `text_absent` require `value`" -- and wait until they
    hold."""
    await run.page("/conf/main")
    (await run.main.call("browser_wait", {"condition": "url_contains", "value": "/conf/main"})).ok()
    (await run.main.call("browser_wait", {"condition": "text_present", "value": "Bottom of the page"})).ok()
    (await run.main.call("browser_click", {"selector": {"name": "Remove intro"}})).ok()
    gone = (await run.main.call("browser_wait", {"condition": "text_absent", "value": "one control of each kind"})).ok()
    expect(gone.facts["satisfied"] is True, f"facts {gone.facts}")
    expect(await run.js("document.getElementById('intro') === null"), "the wait returned before the text went away")
    (await run.main.call("browser_click", {"selector": {"name": "Go to hello"}})).ok()
    (await run.main.call("browser_wait", {"condition": "url_contains", "value": "/hello"})).ok()


@check(tool_section("browser_wait"))
async def wait_target_conditions(run: Run) -> None:
    """"`target_present` and `target_absent` require `target`" """
    await run.page("/conf/main")
    targets = await run.targets()
    (await run.main.call("browser_wait", {"condition": "target_present", "target": targets["Vanishing button"]})).ok()
    (await run.main.call("browser_click", {"target": targets["Remove intro"]})).ok()
    gone = (await run.main.call("browser_wait", {"condition": "target_absent", "target": targets["Vanishing button"]})).ok()
    expect(gone.facts["satisfied"] is True, f"facts {gone.facts}")
    expect(await run.js("document.getElementById('vanish') === null"), "the wait returned before the target went away")


@check(tool_section("browser_wait"))
async def wait_selector_present_polls_the_live_page(run: Run) -> None:
    """"`selector_present` requires a typed `selector` and polls the live page until a control
    matching it exists" """
    await run.page("/conf/main")
    (await run.main.call("browser_click", {"selector": {"name": "Add later"}})).ok()
    waited = (await run.main.call("browser_wait", {"condition": "selector_present", "selector": {"name": "Late arrival", "role": "button"}})).ok()
    expect(waited.facts["satisfied"] is True, f"facts {waited.facts}")
    expect(await run.js("Array.from(document.querySelectorAll('button')).some(function (b) { return b.textContent === 'Late arrival'; })"),
           "the wait returned before the control existed")


@check(tool_section("browser_wait"))
async def wait_duration(run: Run) -> None:
    """"`duration` requires a whole millisecond `value` from 0 to 10000 and waits executor-side."
    (CLARIFICATIONS: "A `duration` wait of up to 10,000 ms is not cut short by the default timeout;
    an explicit `timeout_ms` smaller than the duration is refused.")"""
    await run.page("/conf/main")
    waited = (await run.main.call("browser_wait", {"condition": "duration", "value": 150})).ok()
    expect(waited.facts["satisfied"] is True and waited.facts["elapsed_ms"] >= 150, f"facts {waited.facts}")
    (await run.main.call("browser_wait", {"condition": "duration", "value": 0})).ok()
    await run.refused("browser_wait", {"condition": "duration", "value": 500, "timeout_ms": 200}, "/timeout_ms")
    await run.decodes("browser_wait", {"condition": "duration", "value": 10000})
    await run.decodes("browser_wait", {"condition": "duration", "value": 9000, "timeout_ms": 9000})


@check(tool_section("browser_wait"))
async def wait_timeout_is_an_unsatisfied_failure(run: Run) -> None:
    """CLARIFICATIONS: "A wait that times out has `satisfied: false`, status `failed`, effect
    `none`." """
    await run.page("/conf/main")
    for args in ({"condition": "text_present", "value": "never on this page"}, {"condition": "url_contains", "value": "nowhere"},
                 {"condition": "selector_present", "selector": {"name": "No such control"}}):
        timed_out = await run.main.call("browser_wait", {**args, "timeout_ms": 200})
        expect(timed_out.status == "failed" and timed_out.effect == "none" and timed_out.facts.get("satisfied") is False, f"{timed_out.describe()}")
        expect(timed_out.env["repeat_safe"] is False, "a timed-out wait is repeat-safe")


# ---- browser_dialog --------------------------------------------------------------------------

check(tool_section("browser_dialog"))(make_capability_check("browser_dialog"))


async def open_dialog(run: Run, button: str) -> None:
    (await run.main.call("browser_click", {"selector": {"name": button}})).ok()


@check(tool_section("browser_dialog"))
async def dialog_status(run: Run) -> None:
    """"`{"action":"status"}` reports whether a dialog is blocking" ... "Facts: `tab`, `dialog_type`,
    `present`, `accepted`, and `handled` as applicable." """
    await run.page("/conf/main")
    none = (await run.main.call("browser_dialog", {"action": "status"})).ok()
    expect(none.facts.get("present") is False and none.facts.get("tab") == run.main_tab, f"facts {none.facts}")
    await open_dialog(run, "Show confirm")
    blocking = (await run.main.call("browser_dialog", {"action": "status"})).ok()
    expect(blocking.facts.get("present") is True and blocking.facts.get("dialog_type") == "confirm", f"facts {blocking.facts}")
    expect(blocking.effect == "none", f"effect {blocking.effect}")
    still = (await run.main.call("browser_dialog", {"action": "status"})).ok()
    expect(still.facts.get("present") is True, "status resolved the dialog")
    (await run.main.call("browser_dialog", {"action": "dismiss"})).ok()


@check(tool_section("browser_dialog"))
async def dialog_accept_and_dismiss(run: Run) -> None:
    """"`{"action":"accept"}` accepts it" ... "`{"action":"dismiss"}` dismisses it" """
    await run.page("/conf/main")
    await open_dialog(run, "Show confirm")
    accepted = (await run.main.call("browser_dialog", {"action": "accept"})).ok()
    expect(accepted.facts.get("accepted") is True and accepted.facts.get("handled") is True and accepted.facts.get("dialog_type") == "confirm", f"facts {accepted.facts}")
    expect(accepted.effect == "applied", f"effect {accepted.effect}")
    expect(await run.out() == "confirm:true", f"page {await run.out()!r}")
    await open_dialog(run, "Show confirm")
    dismissed = (await run.main.call("browser_dialog", {"action": "dismiss"})).ok()
    expect(dismissed.facts.get("accepted") is False and dismissed.facts.get("handled") is True, f"facts {dismissed.facts}")
    expect(await run.out() == "confirm:false", f"page {await run.out()!r}")
    await open_dialog(run, "Show alert")
    alert = (await run.main.call("browser_dialog", {"action": "accept"})).ok()
    expect(alert.facts.get("dialog_type") == "alert", f"facts {alert.facts}")
    expect(await run.out() == "alert closed", f"page {await run.out()!r}")
    nothing = await run.main.call("browser_dialog", {"action": "accept"})
    expect_failed(nothing)
    expect(nothing.effect == "none", f"effect {nothing.effect}")


@check(tool_section("browser_dialog"))
async def dialog_respond_supplies_prompt_text(run: Run) -> None:
    """"`{"action":"respond","text":"Ada"}` supplies non-secret prompt text" (CLARIFICATIONS: "respond
    text is not checked for secrets but is never audited or echoed.")"""
    await run.page("/conf/main")
    await open_dialog(run, "Show prompt")
    status = (await run.main.call("browser_dialog", {"action": "status"})).ok()
    expect(status.facts.get("dialog_type") == "prompt", f"facts {status.facts}")
    answered = (await run.main.call("browser_dialog", {"action": "respond", "text": SECRETS["dialog"]})).ok()
    expect(answered.facts.get("handled") is True, f"facts {answered.facts}")
    expect(SECRETS["dialog"] not in json.dumps(answered.env), "the respond text was echoed")
    expect(await run.out() == f"prompt:{SECRETS['dialog']}", f"page {await run.out()!r}")


@check(tool_section("browser_dialog"))
async def dialog_text_only_for_respond(run: Run) -> None:
    """"`text` is required only for `respond` and is invalid for every other action." """
    for action in ("status", "accept", "dismiss"):
        await run.refused("browser_dialog", {"action": action, "text": "x"}, "/text")
    await run.refused("browser_dialog", {"action": "respond"}, "/text", {"missing_field"})
    await run.decodes("browser_dialog", {"action": "respond", "text": ""})


@check(tool_section("browser_dialog"))
async def dialog_blocks_other_page_work(run: Run) -> None:
    """"Inspect or resolve the current JavaScript dialog." -- while one blocks, page work is refused
    and points to `browser_dialog`."""
    await run.page("/conf/main")
    await open_dialog(run, "Show alert")
    blocked = await run.main.call("browser_read", {})
    expect(blocked.status in ("failed", "blocked") and blocked.effect == "none", f"{blocked.describe()}")
    expect(any("browser_dialog" in s for s in blocked.next_steps), f"no step to browser_dialog: {blocked.next_steps}")
    (await run.main.call("browser_dialog", {"action": "accept"})).ok()
    (await run.main.call("browser_read", {})).ok()


# ---- browser_upload --------------------------------------------------------------------------

check(tool_section("browser_upload"))(make_capability_check("browser_upload"))


async def files_seen(run: Run) -> str:
    return await run.js("document.getElementById('files').textContent")


def upload_path(run: Run, name: str) -> str:
    return os.path.join(run.upload_root, name)


@check(tool_section("browser_upload"))
async def upload_paths(run: Run) -> None:
    """"Attach explicitly supplied files ... to one ordinary file input" ... "`paths`, an array of 1
    to 5 unique absolute local paths" ... "Facts: `tab`, `target`, `uploaded_count`, and
    `uploaded_bytes`." """
    await run.page("/conf/main")
    target = (await run.targets())["Attachment"]
    uploaded = (await run.main.call("browser_upload", {"target": target, "paths": [upload_path(run, SECRETS["upload_file"]), upload_path(run, "second.txt")]})).ok()
    facts = uploaded.facts
    sizes = [os.path.getsize(upload_path(run, SECRETS["upload_file"])), os.path.getsize(upload_path(run, "second.txt"))]
    expect(facts.get("tab") == run.main_tab and facts.get("target") == target, f"facts {facts}")
    expect(facts.get("uploaded_count") == 2 and facts.get("uploaded_bytes") == sum(sizes), f"facts {facts}")
    expect(await files_seen(run) == f"files=2 sizes={sizes[0]},{sizes[1]}", f"page {await files_seen(run)!r}")
    (await run.main.call("browser_upload", {"selector": {"name": "Attachment"}, "paths": [upload_path(run, "second.txt")]})).ok()
    expect(await files_seen(run) == f"files=1 sizes={sizes[1]}", f"page {await files_seen(run)!r}")


@check(tool_section("browser_upload"))
async def upload_inline_files(run: Run) -> None:
    """"or `files`, 1 to 5 inline objects with `name` and base64 `data_base64`" """
    await run.page("/conf/main")
    target = (await run.targets())["Attachment"]
    data = tiny_png()
    uploaded = (await run.main.call("browser_upload", {"target": target, "files": [
        {"name": "one.png", "data_base64": base64.b64encode(data).decode()},
        {"name": SECRETS["upload_name"], "data_base64": SECRETS["upload_data"]},
    ]})).ok()
    expect(uploaded.facts.get("uploaded_count") == 2 and uploaded.facts.get("uploaded_bytes") == len(data) + 18, f"facts {uploaded.facts}")
    expect(await files_seen(run) == f"files=2 sizes={len(data)},18", f"page {await files_seen(run)!r}")
    await run.refused("browser_upload", {"target": target, "files": [{"name": "a.txt"}]}, "/files/0/data_base64", {"missing_field"})


@check(tool_section("browser_upload"))
async def upload_captured_image(run: Run) -> None:
    """"or one `source_image` handle from an earlier capture, optionally with `view`, `x`, and `y` to
    drop it at a point instead of attaching." """
    await run.page("/conf/main")
    target = (await run.targets())["Attachment"]
    image = (await run.main.call("browser_screenshot", {"selector": {"name": "Count clicks"}})).ok()
    png = base64.b64decode(image.images[0].data)
    attached = (await run.main.call("browser_upload", {"target": target, "source_image": image.facts["view"]})).ok()
    expect(attached.facts.get("uploaded_count") == 1 and attached.facts.get("uploaded_bytes") == len(png), f"facts {attached.facts} for a {len(png)}-byte capture")
    expect(await files_seen(run) == f"files=1 sizes={len(png)}", f"page {await files_seen(run)!r}")
    shot = (await run.main.call("browser_screenshot", {})).ok()
    scale = shot.facts["width"] / await run.js("window.innerWidth")
    left, top, width, height = await center_of(run, "dst")
    dropped = (await run.main.call("browser_upload", {"source_image": image.facts["view"], "view": shot.facts["view"],
                                                      "x": int((left + width / 2) * scale), "y": int((top + height / 2) * scale)})).ok()
    expect(dropped.facts.get("uploaded_count") == 1, f"facts {dropped.facts}")
    expect(await run.out() == "dropped files=1 type=image/png", f"page {await run.out()!r}")


@check(tool_section("browser_upload"))
async def upload_exactly_one_source(run: Run) -> None:
    """"Inputs: exactly one source of required `paths` ... or `files` ... or one `source_image`" and
    "The destination is optional `target` or typed semantic `selector`." """
    await run.refused("browser_upload", {"target": "target_a"}, "/paths", {"missing_field"})
    outcome = await run.main.call("browser_upload", {"target": "target_a", "paths": ["/a"], "source_image": "view_a"})
    expect_decode_error(outcome, outcome.facts.get("pointer", "?"), {"conflict"})
    outcome = await run.main.call("browser_upload", {"target": "target_a", "selector": {"name": "x"}, "paths": ["/a"]})
    expect_decode_error(outcome, outcome.facts.get("pointer", "?"), {"conflict"})
    # CLARIFICATIONS: "`source_image` takes a view handle ...; an attach needs `target` or `selector`"
    await run.refused("browser_upload", {"source_image": "view_a"}, "/target", {"missing_field"})
    await run.refused("browser_upload", {"files": [{"name": "a", "data_base64": "YQ=="}]}, "/target", {"missing_field"})
    await run.refused("browser_upload", {"target": "target_a", "source_image": "target_b"}, "/source_image", {"invalid_handle"})
    outcome = await run.main.call("browser_upload", {"source_image": "view_a", "view": "view_b", "x": 1, "y": 1, "target": "target_a"})
    expect_decode_error(outcome, outcome.facts.get("pointer", "?"), {"conflict"})
    await run.refused("browser_upload", {"target": "target_a", "paths": ["relative/file.txt"]}, "/paths/0")
    await run.refused("browser_upload", {"target": "target_a", "paths": ["/a.txt", "/a.txt"]}, "/paths/1")


@check(tool_section("browser_upload"))
async def upload_rejects_bad_files_before_dispatch(run: Run) -> None:
    """"Ghostlight rejects directories, missing files, any file larger than 5,000,000 bytes, and a
    combined payload larger than 5,000,000 bytes before browser dispatch" """
    await run.page("/conf/main")
    target = (await run.targets())["Attachment"]
    big = base64.b64encode(b"z" * 2_600_000).decode()
    cases = [
        {"paths": [upload_path(run, "folder")]},
        {"paths": [upload_path(run, "missing.txt")]},
        {"paths": [upload_path(run, "too-big.bin")]},
        {"paths": [upload_path(run, "half-a.bin"), upload_path(run, "half-b.bin")]},
        {"files": [{"name": "big.bin", "data_base64": base64.b64encode(b"z" * 5_000_001).decode()}]},
        {"files": [{"name": "a.bin", "data_base64": big}, {"name": "b.bin", "data_base64": big}]},
    ]
    for case in cases:
        refused = await run.main.call("browser_upload", {"target": target, **case})
        expect(refused.status in ("failed", "blocked") and refused.effect == "none", f"{short(case, 120)}: {refused.describe()}")
        expect(await files_seen(run) == "", f"{short(case, 120)} reached the page")
    (await run.main.call("browser_upload", {"target": target, "paths": [upload_path(run, "exactly-limit.bin")]})).ok()


@check(tool_section("browser_upload"))
async def upload_inline_bytes_decode_after_authorization(run: Run) -> None:
    """"Inline bytes decode only after authorization and credential preflight." """
    await run.page("/conf/main")
    targets = await run.targets()
    refused = await run.main.call("browser_upload", {"target": targets["Attachment"], "files": [{"name": "a", "data_base64": "@@not base64@@"}], "restrict_capabilities": ["read"]})
    expect_blocked(refused)
    handoff = await run.main.call("browser_upload", {"target": targets["Password"], "files": [{"name": "a", "data_base64": "@@not base64@@"}]})
    expect(handoff.status == "attention_required", f"credential preflight did not come first: {handoff.describe()}")
    bad = await run.main.call("browser_upload", {"target": targets["Attachment"], "files": [{"name": "a", "data_base64": "@@not base64@@"}]})
    expect(bad.status == "failed" and bad.effect == "none", f"{bad.describe()}")


@check(tool_section("browser_upload"))
async def upload_names_paths_and_contents_stay_out_of_presentation(run: Run) -> None:
    """"File paths, names, and contents never enter audit or presentation." """
    await run.page("/conf/main")
    target = (await run.targets())["Attachment"]
    outcomes = [
        (await run.main.call("browser_upload", {"target": target, "paths": [upload_path(run, SECRETS["upload_file"])]})).ok(),
        (await run.main.call("browser_upload", {"target": target, "files": [{"name": SECRETS["upload_name"], "data_base64": SECRETS["upload_data"]}]})).ok(),
        await run.main.call("browser_upload", {"target": target, "paths": [upload_path(run, "missing-" + SECRETS["upload_file"])]}),
    ]
    for outcome in outcomes:
        shown = outcome.summary + " ".join(outcome.next_steps)
        for secret in (run.upload_root, SECRETS["upload_file"], SECRETS["upload_name"], "Upload-Secret", SECRETS["upload_data"]):
            expect(secret not in shown, f"{secret!r} entered the presentation: {outcome.summary!r}")
        expect(SECRETS["upload_name"] not in json.dumps(outcome.facts) and run.upload_root not in json.dumps(outcome.facts), f"facts {outcome.facts}")


@check(tool_section("browser_upload"))
async def upload_sentence_names_the_destination_by_its_role(run: Run) -> None:
    """"The role is narrowed to a closed Ghostlight noun" (CLARIFICATIONS: textbox renders as "text
    field") -- an upload aimed at a text field says so rather than calling it a file input."""
    await run.page("/conf/main")
    target = (await run.targets())["Full name"]
    refused = await run.main.call("browser_upload", {"target": target, "files": [{"name": "a.txt", "data_base64": "YQ=="}]})
    expect(refused.status == "failed" and refused.effect == "none", f"{refused.describe()}")
    expect('"Full name" file input' not in refused.summary, f"a text field is called a file input: {refused.summary!r}")


# ---- browser_execute -------------------------------------------------------------------------

check(tool_section("browser_execute"))(make_capability_check("browser_execute"))


@check(tool_section("browser_execute"))
async def execute_returns_the_value(run: Run) -> None:
    """"Execute explicit bounded JavaScript in the page." ... "Facts: `tab`, `value`, `truncated`" """
    await run.page("/conf/main")
    ran = (await run.main.call("browser_execute", {"script": "document.title"})).ok()
    expect(ran.facts.get("tab") == run.main_tab and ran.facts.get("value") == "Conformance main" and ran.facts.get("truncated") is False, f"facts {ran.facts}")
    structured = (await run.main.call("browser_execute", {"script": "return {a: 1, b: [true, null, 'x']}"})).ok()
    expect(structured.facts.get("value") == {"a": 1, "b": [True, None, "x"]}, f"value {structured.facts.get('value')!r}")
    mutated = (await run.main.call("browser_execute", {"script": "document.getElementById('out').textContent = 'mutated'; 1"})).ok()
    expect(mutated.effect in ("applied", "unknown") and await run.out() == "mutated", f"{mutated.describe()}")


@check(tool_section("browser_execute"))
async def execute_max_result_chars(run: Run) -> None:
    """"optional `max_result_chars` from 100 to 20000, default 8000" """
    await run.page("/conf/main")
    cut = (await run.main.call("browser_execute", {"script": "'x'.repeat(500)", "max_result_chars": 100})).ok()
    expect(cut.facts.get("truncated") is True and len(json.dumps(cut.facts["value"])) <= 110, f"facts {short(cut.facts)}")
    default = (await run.main.call("browser_execute", {"script": "'y'.repeat(9000)"})).ok()
    expect(default.facts.get("truncated") is True and 7900 <= len(str(default.facts["value"])) <= 8002, f"{len(str(default.facts['value']))} characters kept by default")
    whole = (await run.main.call("browser_execute", {"script": "'z'.repeat(7000)"})).ok()
    expect(whole.facts.get("truncated") is False and whole.facts["value"] == "z" * 7000, "a result under the default was cut")


@check(tool_section("browser_execute"))
async def execute_reports_the_governed_landing(run: Run) -> None:
    """"It may read, mutate, or navigate" ... "Facts: ... any governed committed landing." """
    await run.page("/conf/main")
    ran = (await run.main.call("browser_execute", {"script": "location.href = '/hello'; 'moving'"})).ok()
    landing = ran.facts.get("landing") or {}
    expect(landing.get("url") == run.url("/hello"), f"landing {landing}")
    expect(ran.env["repeat_safe"] is False, "a navigating script is repeat-safe")


@check(tool_section("browser_execute"))
async def execute_script_stays_out_of_presentation(run: Run) -> None:
    """"Script source and result never enter audit or presentation." (CLARIFICATIONS: the result
    travels in facts, never the script source.)"""
    await run.page("/conf/main")
    script = f"var marker = '{SECRETS['script']}'; '{SECRETS['result']}'"
    ran = (await run.main.call("browser_execute", {"script": script})).ok()
    shown = ran.summary + " ".join(ran.next_steps)
    expect(SECRETS["script"] not in shown and SECRETS["result"] not in shown, f"{ran.summary!r}")
    expect(SECRETS["script"] not in json.dumps(ran.facts), "the script source is in the facts")
    expect(ran.facts.get("value") == SECRETS["result"], f"value {ran.facts.get('value')!r}")
    failed = await run.main.call("browser_execute", {"script": f"throw new Error('{SECRETS['result']}')"})
    expect(SECRETS["result"] not in failed.summary + " ".join(failed.next_steps), f"{failed.summary!r}")


@check(tool_section("browser_execute"))
async def execute_is_denied_by_the_built_in_defaults(run: Run) -> None:
    """"Capability: `execute`." -- refused where the authority does not grant it (PRIVATE keeps the
    built-in capabilities), with `policy_explain` as the way to learn why."""
    await run.page("/conf/main", server=run.private)
    refused = await run.private.call("browser_execute", {"script": "document.title"})
    expect_blocked(refused, "capability_denied")
    expect(any("policy_explain" in s for s in refused.next_steps), f"next steps {refused.next_steps}")


# ---- browser_sequence ------------------------------------------------------------------------


@check(tool_section("browser_sequence"))
async def sequence_runs_steps_on_one_tab(run: Run) -> None:
    """"Run two to eight fully specified steps on one controlled tab." ... "Facts: `tab`,
    `completed_steps`, `total_steps`, and bounded per-step statuses." """
    await run.page("/conf/main")
    targets = await run.targets()
    ran = (await run.main.call("browser_sequence", {"steps": [
        {"action": "fill", "fields": [{"target": targets["Full name"], "value": "Ann"}]},
        {"action": "type_text", "target": targets["Full name"], "text": "e"},
        {"action": "hover", "target": targets["Hover target"]},
        {"action": "scroll", "direction": "down", "amount": "small"},
        {"action": "press_key", "key": "Tab", "target": targets["Full name"]},
        {"action": "click", "target": targets["Count clicks"]},
        {"action": "wait", "condition": "text_present", "value": "clicks=1"},
    ]})).ok()
    facts = ran.facts
    expect(facts.get("tab") == run.main_tab and facts.get("completed_steps") == 7 and facts.get("total_steps") == 7, f"facts {short(facts)}")
    expect([row.get("status") for row in facts.get("steps", [])] == ["succeeded"] * 7, f"steps {facts.get('steps')}")
    expect(await run.js("document.getElementById('name').value") == "Anne", "the fill and typing did not both land")
    expect(ran.env["repeat_safe"] is False, "a sequence with a click is repeat-safe")


@check(tool_section("browser_sequence"))
async def sequence_step_actions_are_closed(run: Run) -> None:
    """"A step is a typo-closed discriminated object. Allowed actions are `click`, `fill`,
    `type_text`, `press_key`, `scroll`, `hover`, and `wait`; other catalog operations are not
    silently accepted." """
    wait = {"action": "wait", "condition": "load_ready"}
    for action in ("navigate", "execute", "upload", "drag", "read"):
        await run.refused("browser_sequence", {"steps": [{"action": action}, wait]}, "/steps/0/action")
    # A whole navigate step is refused too (the decoder may name its first foreign member).
    outcome = await run.main.call("browser_sequence", {"steps": [{"action": "navigate", "url": "https://example.com"}, wait]})
    expect_decode_error(outcome, outcome.facts.get("pointer", "?"))
    expect(outcome.facts["pointer"] in ("/steps/0/action", "/steps/0/url"), f"pointer {outcome.facts['pointer']}")
    await run.refused("browser_sequence", {"steps": [{"action": "click", "target": "target_a", "colour": "red"}, wait]}, "/steps/0/colour", {"unknown_field"})
    await run.refused("browser_sequence", {"steps": [{"action": "click", "target": "target_a", "restrict_hosts": []}, wait]}, "/steps/0/restrict_hosts")
    await run.refused("browser_sequence", {"steps": [{"action": "click", "target": "target_a", "tab": "tab_a"}, wait]}, "/steps/0/tab")
    await run.refused("browser_sequence", {"steps": [{"action": "wait", "condition": "load_ready", "value": "x"}, wait]}, "/steps/0/value")


@check(tool_section("browser_sequence"))
async def sequence_stops_at_the_first_non_success(run: Run) -> None:
    """"Execution stops at the first non-success. Partial sequences are never repeat-safe." """
    await run.page("/conf/main")
    target = (await run.targets())["Count clicks"]
    stopped = await run.main.call("browser_sequence", {"steps": [
        {"action": "click", "target": target},
        {"action": "wait", "condition": "text_present", "value": "never on this page", "timeout_ms": 150},
        {"action": "click", "target": target},
    ]})
    expect_failed(stopped)
    expect(stopped.facts.get("completed_steps") == 1 and stopped.facts.get("total_steps") == 3, f"facts {short(stopped.facts)}")
    expect(len(stopped.facts.get("steps", [])) == 2, f"rows {stopped.facts.get('steps')}")
    expect(stopped.effect == "partial" and stopped.env["repeat_safe"] is False, f"{stopped.describe()}")
    expect(await run.out() == "clicks=1 detail=1", f"a step after the failure ran: {await run.out()!r}")


@check(tool_section("browser_sequence"))
async def sequence_wrapper_needs_no_capability(run: Run) -> None:
    """"The sequence wrapper requires no RAWX capability. Every step is classified, admitted, and
    audited independently through the same executor path as a direct call." """
    await run.page("/conf/main")
    targets = await run.targets()
    (await run.main.call("browser_sequence", {"restrict_capabilities": ["read"], "steps": [
        {"action": "hover", "target": targets["Hover target"]}, {"action": "wait", "condition": "text_present", "value": "hovered"}]})).ok()
    expect(await hovered(run) == "hovered", "the hover step did not reach the page")
    refused = await run.main.call("browser_sequence", {"restrict_capabilities": ["read"], "steps": [
        {"action": "hover", "target": targets["Hover target"]}, {"action": "click", "target": targets["Count clicks"]}]})
    expect(refused.status == "blocked", f"{refused.describe()}")
    expect([row.get("status") for row in refused.facts.get("steps", [])] == ["succeeded", "blocked"], f"steps {refused.facts.get('steps')}")
    expect(await run.out() == "", "the refused click ran")


@check(tool_section("browser_sequence"))
async def sequence_steps_use_the_direct_executor(run: Run) -> None:
    """"Direct and sequence steps use the same operation executor and browser port." -- a step
    refuses what the direct call refuses (a stale target, a credential field)."""
    await run.page("/conf/main")
    targets = await run.targets()
    handoff = await run.main.call("browser_sequence", {"steps": [
        {"action": "type_text", "target": targets["Password"], "text": SECRETS["typed"]}, {"action": "wait", "condition": "load_ready"}]})
    expect(handoff.status == "attention_required", f"{handoff.describe()}")
    expect(await run.js("document.getElementById('pw').value") == "", "a sequence typed into a password field")
    await run.page("/conf/main")
    stale = await run.main.call("browser_sequence", {"steps": [
        {"action": "click", "target": targets["Count clicks"]}, {"action": "wait", "condition": "load_ready"}]})
    expect_failed(stale)


# ---- browser_flow ----------------------------------------------------------------------------


@check(tool_section("browser_flow"))
async def flow_aggregate_facts(run: Run) -> None:
    """"Facts: `completed`, `total`, `stopped`, and bounded per-step rows with each step's envelope
    where the budget allowed." """
    await run.page("/conf/main")
    flow = (await run.main.call("browser_flow", {"steps": [
        step("open", "browser_navigate", {"url": run.url("/conf/main")}),
        step("find", "browser_find", {"text": "Count clicks"}),
        step("click", "browser_click", {"target": ref("find", "/facts/matches/0/0")}),
    ]})).ok()
    facts = flow.facts
    expect(facts.get("completed") == 3 and facts.get("total") == 3 and facts.get("stopped") is False, f"facts {short({k: v for k, v in facts.items() if k != 'steps'})}")
    rows = facts["steps"]
    expect([row.get("id") for row in rows] == ["open", "find", "click"], f"rows {[row.get('id') for row in rows]}")
    for row in rows:
        envelope = row.get("envelope") or {}
        expect(set(ENVELOPE_FIELDS) <= set(envelope), f"step {row.get('id')} has no whole envelope: {short(row)}")
        expect(envelope.get("status") == row.get("status") == "succeeded", f"step {short(row)}")
    expect(flow.effect == "applied", f"effect {flow.effect}")


@check(tool_section("browser_flow"))
async def flow_on_error_continue(run: Run) -> None:
    """"optional `on_error` of `stop` or `continue`" ... "A flow with failed or unknown work is never
    repeat-safe." """
    await run.page("/conf/main")
    flow = await run.main.call("browser_flow", {"on_error": "continue", "steps": [
        step("bad", "browser_click", {"selector": {"name": "No such control anywhere"}}),
        step("click", "browser_click", {"selector": {"name": "Count clicks"}}),
    ]})
    expect(flow.status == "failed" and flow.env["repeat_safe"] is False, f"{flow.describe()}")
    expect([row["status"] for row in flow.facts["steps"]] == ["failed", "succeeded"], f"rows {short(flow.facts['steps'])}")
    expect(flow.facts.get("stopped") is False and flow.effect in ("applied", "partial"), f"{flow.describe()}")
    expect((await run.out()).startswith("clicks=1"), "the step after the failure did not run")


@check(tool_section("browser_flow"))
async def flow_aggregate_reports_partial_effects(run: Run) -> None:
    """"execution continues to a truthful terminal aggregate; the aggregate reports applied, partial,
    or unknown effects. A flow with failed or unknown work is never repeat-safe." """
    await run.page("/conf/main")
    flow = await run.main.call("browser_flow", {"steps": [
        step("click", "browser_click", {"selector": {"name": "Count clicks"}}),
        step("bad", "browser_click", {"selector": {"name": "No such control anywhere"}}),
    ]})
    expect(flow.status == "failed" and flow.effect == "partial" and flow.env["repeat_safe"] is False, f"{flow.describe()}")
    expect((await run.out()).startswith("clicks=1"), "the first step did not run")


@check(tool_section("browser_flow"))
async def flow_dry_run_checks_references_structurally(run: Run) -> None:
    """"`dry_run:true` decodes and classifies every step without dispatching anything."
    (CLARIFICATIONS: "`dry_run` checks each reference structurally (an earlier step, a valid JSON
    Pointer) and classifies every step by its tool and branch; it resolves no reference and
    dispatches nothing.")"""
    await run.page("/conf/main")
    good = (await run.main.call("browser_flow", {"dry_run": True, "steps": [
        step("find", "browser_find", {"text": "Count clicks"}),
        step("click", "browser_click", {"target": ref("find", "/facts/matches/0/0")}),
    ]})).ok()
    expect(all(row.get("status") == "succeeded" for row in good.facts["steps"]), f"rows {short(good.facts['steps'])}")
    forward = await run.main.call("browser_flow", {"dry_run": True, "steps": [
        step("click", "browser_click", {"target": ref("find", "/facts/matches/0/0")}),
        step("find", "browser_find", {"text": "Count clicks"}),
    ]})
    expect(forward.facts["steps"][0].get("status") != "succeeded", f"a forward reference was admitted: {short(forward.facts['steps'][0])}")
    pointer = await run.main.call("browser_flow", {"dry_run": True, "steps": [
        step("find", "browser_find", {"text": "Count clicks"}),
        step("click", "browser_click", {"target": ref("find", "facts/no-leading-slash")}),
    ]})
    expect(pointer.reason == "invalid_arguments" or pointer.facts.get("steps", [{}, {}])[1].get("status") != "succeeded",
           f"an invalid JSON Pointer was admitted: {pointer.describe()}")
    expect(await run.out() == "", "a dry run dispatched")


@check(tool_section("browser_flow"))
async def flow_runs_on_one_tab(run: Run) -> None:
    """CLARIFICATIONS: "A flow runs on one tab: the flow's `tab`, or the default tab at its start; a
    step that names a different tab or asks for `new_tab: true` is refused." """
    await run.page("/conf/main")
    await run.refused("browser_flow", {"steps": [step("open", "browser_navigate", {"url": run.url("/hello"), "new_tab": True})]}, "/steps/0/arguments/new_tab")
    other = (await run.main.call("browser_navigate", {"url": run.url("/hello"), "new_tab": True})).ok()
    refused = await run.main.call("browser_flow", {"tab": run.main_tab, "steps": [step("read", "browser_read", {"tab": other.facts["tab"]})]})
    expect(refused.status != "succeeded" and refused.effect == "none", f"a step on another tab ran: {refused.describe()}")
    on_tab = (await run.main.call("browser_flow", {"tab": run.main_tab, "steps": [step("read", "browser_read")]})).ok()
    expect(on_tab.facts["steps"][0]["envelope"]["facts"]["tab"] == run.main_tab, "the flow's tab was not used")
    (await run.main.call("browser_tabs", {"action": "close", "tab": other.facts["tab"]})).ok()


@check(tool_section("browser_flow"))
async def flow_opens_its_tab_when_none_exists(run: Run) -> None:
    """CLARIFICATIONS: "When no tab exists yet, the first `browser_navigate` step opens one and the
    flow is bound to it." """
    await run.page("/hello")
    (await run.main.call("browser_tabs", {"action": "close", "tab": run.main_tab})).ok()
    flow = (await run.main.call("browser_flow", {"steps": [
        step("open", "browser_navigate", {"url": run.url("/conf/main")}),
        step("read", "browser_read"),
    ]})).ok()
    opened = flow.facts["steps"][0]["envelope"]["facts"]
    read = flow.facts["steps"][1]["envelope"]["facts"]
    expect(opened.get("created") is True and read["tab"] == opened["tab"], f"open {opened}, read tab {read.get('tab')}")
    run.main_tab = opened["tab"]


# ---- browser_record --------------------------------------------------------------------------

check(tool_section("browser_record"))(make_capability_check("browser_record"))

RECORD_FACTS = {"recording", "state", "frames", "captured_frames", "bytes", "duration_ms", "width", "height", "delivery", "stop_reason",
                "capture_deadline_ms", "retention_deadline_ms"}


@check(tool_section("browser_record"))
async def record_lifecycle(run: Run) -> None:
    """"Usual flow: `{"action":"start"}`, ordinary browser calls, then `{"action":"save"}`." ...
    "`status` ... report state and deadlines" ... "`stop`: ... capture a final frame, stop, and
    freeze" ... "Save can be repeated until retention expires" ... "Discard is destructive." """
    await run.page("/conf/main")
    started = (await run.main.call("browser_record", {"action": "start"})).ok()
    recording = started.facts.get("recording")
    expect(isinstance(recording, str) and recording.startswith("rec_"), f"recording {recording!r}")
    try:
        expect(started.facts.get("state") == "recording", f"facts {started.facts}")
        status = (await run.main.call("browser_record", {"action": "status"})).ok()
        expect(status.facts.get("recording") == recording and status.facts.get("state") == "recording", f"facts {status.facts}")
        expect(isinstance(status.facts.get("capture_deadline_ms"), int), f"no capture deadline: {status.facts}")
        (await run.main.call("browser_click", {"selector": {"name": "Count clicks"}})).ok()
        stopped = (await run.main.call("browser_record", {"action": "stop"})).ok()
        expect(stopped.facts.get("state") == "stopped" and stopped.facts.get("frames", 0) >= 1, f"facts {stopped.facts}")
        expect(isinstance(stopped.facts.get("retention_deadline_ms"), int), f"no retention deadline: {stopped.facts}")
        first = (await run.main.call("browser_record", {"action": "save"})).ok()
        second = (await run.main.call("browser_record", {"action": "save"})).ok()
        expect(len(first.images) == len(second.images) == 1, "a repeated save returned no replay")
        expect(first.facts.get("duration_ms") == second.facts.get("duration_ms"), "the frozen recording changed between saves")
    finally:
        discarded = (await run.main.call("browser_record", {"action": "discard", "recording": recording})).ok()
    expect(discarded.facts.get("state") == "discarded" and discarded.effect == "applied", f"facts {discarded.facts}")
    after = await run.main.call("browser_record", {"action": "save", "recording": recording})
    expect(after.status != "succeeded" and not after.images, f"a discarded recording saved: {after.describe()}")


@check(tool_section("browser_record"))
async def record_save_auto_stops_and_reports(run: Run) -> None:
    """"`save`: optional `recording`; auto-stop if active." ... "A saved replay's sentence says how
    long it plays and where it went" ... "How many frames survived, how many were captured, and how
    many bytes they became are real and stay in the facts, alongside `recording`, state,
    deadlines, stop reason, exact `duration_ms`, dimensions, and the delivery disposition." """
    await run.page("/conf/main")
    recording = (await run.main.call("browser_record", {"action": "start"})).ok().facts["recording"]
    try:
        saved = (await run.main.call("browser_record", {"action": "save"})).ok()
        facts = saved.facts
        expect(RECORD_FACTS <= set(facts), f"missing facts {RECORD_FACTS - set(facts)}")
        expect(facts["state"] == "stopped" and facts["stop_reason"], f"save did not stop the recording: {facts}")
        expect(facts["delivery"] and isinstance(facts["duration_ms"], int) and facts["bytes"] > 0, f"facts {facts}")
        seconds = facts["duration_ms"] / 1000
        expect(re.search(r"\d+(\.\d+)?-second", saved.summary) and ("client" in saved.summary or "returned" in saved.summary), f"{saved.summary!r}")
        expect(f"{seconds:g}" in saved.summary or f"{seconds:.1f}" in saved.summary, f"the sentence does not say {seconds} s: {saved.summary!r}")
        expect(str(facts["bytes"]) not in saved.summary and "frame" not in saved.summary, f"the sentence carries counts: {saved.summary!r}")
    finally:
        await run.main.call("browser_record", {"action": "discard", "recording": recording})


@check(tool_section("browser_record"))
async def record_one_replay_one_place(run: Run) -> None:
    """"One replay goes to one place: with `target`, the browser attaches it to that file input ...
    with `"download": true`, the browser saves it as a file ... with neither, the GIF is returned
    to the client" ... "`target` and `download` together are refused." ... "a target or download
    delivery is a real effect each time and is not thereby repeat-safe." """
    await run.page("/conf/main")
    targets = await run.targets()
    recording = (await run.main.call("browser_record", {"action": "start"})).ok().facts["recording"]
    try:
        attached = (await run.main.call("browser_record", {"action": "save", "target": targets["Attachment"]})).ok()
        expect(attached.env["repeat_safe"] is False and await files_seen(run) == f"files=1 sizes={attached.facts['bytes']}", f"{attached.describe()} page {await files_seen(run)!r}")
        downloaded = (await run.main.call("browser_record", {"action": "save", "download": True})).ok()
        expect(downloaded.env["repeat_safe"] is False, "a download save is repeat-safe")
        expect(attached.facts["delivery"] != downloaded.facts["delivery"], f"deliveries {attached.facts['delivery']}, {downloaded.facts['delivery']}")
        for saved in (attached, downloaded):
            expect(not re.search(r"accept|receiv", saved.summary, re.I), f"a save claims remote acceptance: {saved.summary!r}")
        await run.refused("browser_record", {"action": "save", "target": targets["Attachment"], "download": True}, "/download", {"conflict"})
        await run.refused("browser_record", {"action": "start", "download": True}, "/download")
        await run.refused("browser_record", {"action": "stop", "target": targets["Attachment"]}, "/target")
    finally:
        await run.main.call("browser_record", {"action": "discard", "recording": recording})


@check(tool_section("browser_record"))
async def record_recording_omitted_only_when_unambiguous(run: Run) -> None:
    """"`recording` may be omitted only when exactly one owned recording can be resolved." """
    await run.page("/conf/main")
    first = (await run.main.call("browser_record", {"action": "start"})).ok().facts["recording"]
    second = (await run.main.call("browser_record", {"action": "start"})).ok().facts["recording"]
    try:
        for action in ("status", "stop", "save", "discard"):
            ambiguous = await run.main.call("browser_record", {"action": action})
            expect(ambiguous.status == "failed" and ambiguous.effect == "none" and not ambiguous.images, f"{action}: {ambiguous.describe()}")
        (await run.main.call("browser_record", {"action": "status", "recording": first})).ok()
    finally:
        await run.main.call("browser_record", {"action": "discard", "recording": first})
        await run.main.call("browser_record", {"action": "discard", "recording": second})
    unknown = await run.main.call("browser_record", {"action": "status", "recording": "rec_conformance"})
    expect_failed(unknown)


# ---- browser_diagnose ------------------------------------------------------------------------

check(tool_section("browser_diagnose"))(make_capability_check("browser_diagnose"))


async def diagnosed(run: Run, args: dict[str, Any], needed: Callable[[list[dict[str, Any]]], bool]) -> Outcome:
    """`browser_diagnose` with `args`, read again until `needed(entries)` holds: browser events
    arrive on their own schedule, so wait on the evidence rather than on time (bounded)."""
    for _ in range(50):
        outcome = (await run.main.call("browser_diagnose", args)).ok()
        if needed(outcome.facts.get("entries") or []):
            return outcome
    return outcome


def has(*texts: str) -> Callable[[list[dict[str, Any]]], bool]:
    return lambda entries: all(any(text in json.dumps(e) for e in entries) for text in texts)


async def diagnose_page(run: Run) -> None:
    """Open the diagnostics page in a tab of its own, start tracking, make trouble, and call the
    denied site. The new tab is the active one, so calls without `tab` reach it."""
    (await run.main.call("browser_navigate", {"url": run.url(f"/conf/diag?away={run.denied}"), "new_tab": True})).ok()
    (await run.main.call("browser_diagnose", {})).ok()
    (await run.main.call("browser_click", {"selector": {"name": "Make trouble"}})).ok()
    (await run.main.call("browser_wait", {"condition": "text_present", "value": "fetched 404"})).ok()
    (await run.main.call("browser_click", {"selector": {"name": "Call the denied site"}})).ok()
    (await run.main.call("browser_wait", {"condition": "text_present", "value": "called away"})).ok()


async def hovered(run: Run) -> str:
    return await run.hovered()


def entry_text(entry: dict[str, Any]) -> str:
    return json.dumps(entry)


@check(tool_section("browser_diagnose"))
async def diagnose_tracking_is_opt_in(run: Run) -> None:
    """"Tracking is opt-in." ... "The first call enables bounded volatile observation and may contain
    no earlier evidence; reproduce or reload when needed." """
    (await run.main.call("browser_navigate", {"url": run.url("/conf/diag"), "new_tab": True})).ok()
    (await run.main.call("browser_click", {"selector": {"name": "Make trouble"}})).ok()
    (await run.main.call("browser_wait", {"condition": "text_present", "value": "fetched 404"})).ok()
    first = (await run.main.call("browser_diagnose", {})).ok()
    expect(first.effect == "none", f"effect {first.effect}")
    expect(first.next_steps or "reproduce" in first.summary.lower() or first.facts.get("entries"), f"the first call does not say how to see evidence: {first.describe()}")
    (await run.main.call("browser_click", {"selector": {"name": "Make trouble"}})).ok()
    (await run.main.call("browser_wait", {"condition": "text_present", "value": "fetched 404"})).ok()
    second = await diagnosed(run, {}, has("conformance console error"))
    expect(any("conformance console error" in entry_text(e) for e in second.facts.get("entries", [])), f"no evidence after tracking started: {second.describe()}")


@check(tool_section("browser_diagnose"))
async def diagnose_problems_by_default(run: Run) -> None:
    """"Shortest call: `{}`, which selects both sources and returns problems only." ... "Problems are
    console warnings, errors, exceptions, failed requests, and HTTP error responses." """
    await diagnose_page(run)
    entries = (await diagnosed(run, {}, has("conformance console error", "conformance long warning", "missing-resource"))).facts["entries"]
    dumped = json.dumps(entries)
    expect("conformance console error" in dumped and "conformance long warning" in dumped, f"console problems missing: {short(entries)}")
    expect("/conf/missing-resource" in dumped and "404" in dumped, f"the HTTP error response is missing: {short(entries)}")
    expect("conformance ordinary log" not in dumped and '"/hello"' not in dumped and run.url("/hello") not in dumped, f"non-problems returned: {short(entries)}")


@check(tool_section("browser_diagnose"))
async def diagnose_all_detail(run: Run) -> None:
    """"All detail also includes ordinary console events and successful requests." """
    await diagnose_page(run)
    dumped = json.dumps((await diagnosed(run, {"detail": "all"}, has("conformance ordinary log", run.url("/hello")))).facts["entries"])
    expect("conformance ordinary log" in dumped and run.url("/hello") in dumped and "conformance console error" in dumped, f"entries {short(dumped)}")


@check(tool_section("browser_diagnose"))
async def diagnose_source_and_match(run: Run) -> None:
    """"optional `source` of `both`, `console`, or `network`, default `both`" ... "optional
    case-insensitive literal `match`" """
    await diagnose_page(run)
    await diagnosed(run, {"detail": "all"}, has("conformance ordinary log", "missing-resource"))
    console = (await run.main.call("browser_diagnose", {"source": "console", "detail": "all"})).ok().facts["entries"]
    network = (await run.main.call("browser_diagnose", {"source": "network", "detail": "all"})).ok().facts["entries"]
    expect(console and "missing-resource" not in json.dumps(console), f"console entries {short(console)}")
    expect(network and "conformance" not in json.dumps(network), f"network entries {short(network)}")
    matched = (await run.main.call("browser_diagnose", {"detail": "all", "match": "ORDINARY LOG"})).ok().facts["entries"]
    expect(matched and all("conformance ordinary log" in entry_text(e) for e in matched), f"matched {short(matched)}")
    literal = (await run.main.call("browser_diagnose", {"detail": "all", "match": "conformance.*error"})).ok().facts["entries"]
    expect(not literal, f"match is not literal: {short(literal)}")


@check(tool_section("browser_diagnose"))
async def diagnose_cursor_limit_and_non_destructive_reads(run: Run) -> None:
    """"optional opaque `after` cursor; optional `limit` from 1 to 200, default 50" ... "Reads are
    non-destructive. There is no clear input." ... "Results contain ordered bounded entries, an
    opaque next cursor, truncation and eviction facts" """
    await diagnose_page(run)
    await diagnosed(run, {"detail": "all", "limit": 200}, has("conformance ordinary log", "missing-resource", run.url("/hello")))
    whole = (await run.main.call("browser_diagnose", {"detail": "all", "limit": 200})).ok()
    again = (await run.main.call("browser_diagnose", {"detail": "all", "limit": 200})).ok()
    expect(whole.facts["entries"] == again.facts["entries"] and len(whole.facts["entries"]) >= 4, "a read consumed the evidence")
    for key in ("next_cursor", "truncated", "evicted"):
        expect(key in whole.facts, f"no {key} fact: {sorted(whole.facts)}")
    first = (await run.main.call("browser_diagnose", {"detail": "all", "limit": 1})).ok()
    expect(len(first.facts["entries"]) == 1 and first.facts.get("truncated") is True and first.facts.get("next_cursor"), f"facts {short(first.facts)}")
    rest = (await run.main.call("browser_diagnose", {"detail": "all", "limit": 200, "after": first.facts["next_cursor"]})).ok()
    expect(first.facts["entries"] + rest.facts["entries"] == whole.facts["entries"], "paging does not continue where the first page ended")
    await run.refused("browser_diagnose", {"clear": True}, "/clear", {"unknown_field"})


@check(tool_section("browser_diagnose"))
async def diagnose_bounded_minimal_evidence(run: Run) -> None:
    """"Console text is length-bounded. Network facts exclude headers, bodies, cookies, authorization,
    post data, query strings, and fragments." """
    await diagnose_page(run)
    entries = (await diagnosed(run, {"detail": "all"}, has("conformance long warning", "missing-resource"))).facts["entries"]
    warning = next((e for e in entries if "conformance long warning" in entry_text(e)), None)
    expect(warning is not None and len(entry_text(warning)) < 20000, f"the long warning is {len(entry_text(warning or {}))} characters")
    network = [e for e in entries if "missing-resource" in entry_text(e)]
    expect(network, "no network entry")
    dumped = json.dumps(network).lower()
    expect("secret=query" not in dumped and "#frag" not in dumped and "?" not in dumped, f"a query or fragment leaked: {network}")
    for word in ("header", "cookie", "authorization", "body", "post_data"):
        expect(word not in json.dumps([list(e) for e in network]).lower(), f"a {word} field in {network}")


@check(tool_section("browser_diagnose"))
async def diagnose_host_filtered_counts(run: Run) -> None:
    """"Results contain ... counts of host-filtered entries." -- evidence about a host outside
    authority is counted, not shown."""
    await diagnose_page(run)
    facts = (await diagnosed(run, {"detail": "all"}, has("missing-resource"))).facts
    for _ in range(50):
        if any(isinstance(v, int) and v >= 1 for k, v in facts.items() if "filter" in k):
            break
        facts = (await run.main.call("browser_diagnose", {"detail": "all"})).ok().facts
    network = [e for e in facts["entries"] if e.get("source") == "network"]
    expect(network and run.denied_host.split(":")[0] not in json.dumps(network), f"the denied host's requests are shown: {short(network)}")
    counts = [v for k, v in facts.items() if "filter" in k]
    expect(counts and any(isinstance(v, int) and v >= 1 for v in counts), f"no host-filtered count: {short({k: v for k, v in facts.items() if k != 'entries'})}")


# ---- policy_explain --------------------------------------------------------------------------

check(tool_section("policy_explain"))(make_capability_check("policy_explain"))


@check(tool_section("policy_explain"))
async def policy_explain_compiled_answer(run: Run) -> None:
    """"Read the authority in force as one compiled answer: situation sentence, one line per
    capability stating its polarity and deciding layer, the rules behind those lines, authored
    settings, permanent ceilings, browser startup posture, organization identity, and passport
    provenance." """
    explained = (await run.main.call("policy_explain", {})).ok()
    facts = explained.facts
    expect(isinstance(facts.get("situation"), str) and facts["situation"], f"situation {facts.get('situation')!r}")
    lines = facts.get("capabilities") or []
    expect(sorted(line.get("capability") for line in lines) == ["action", "execute", "read", "write"], f"capability lines {short(lines)}")
    for line in lines:
        expect(line.get("polarity") in ("allowed", "denied") and line.get("layer") and line.get("line"), f"line {line}")
    by_cap = {line["capability"]: line for line in lines}
    expect(all(by_cap[c]["polarity"] == "allowed" for c in ("read", "action", "write", "execute")), f"MAIN allows all four: {short(lines)}")
    for key in ("rules", "settings", "ceilings", "startup", "organization", "provenance"):
        expect(key in facts, f"no {key} in {sorted(facts)}")
    expect(facts["startup"] == "auto", f"startup {facts['startup']!r}")
    expect(any("127.0.0.2" in json.dumps(rule) for rule in facts["rules"]), "the host rule behind the lines is missing")
    private = (await run.private.call("policy_explain", {})).ok().facts
    expect({line["capability"]: line["polarity"] for line in private["capabilities"]}["execute"] == "denied", "PRIVATE's execute line")
    manual = (await run.manual.call("policy_explain", {})).ok().facts
    expect(manual["startup"] == "manual", f"the manual posture is not reported: {manual.get('startup')!r}")


@check(tool_section("policy_explain"))
async def policy_explain_always_available_and_read_only(run: Run) -> None:
    """"Available under every authority including all-open" ... "Capability: empty requirement set
    (always available). Read-only, never dispatches a browser, holds no workspace lease, and writes
    nothing." """
    narrowed = (await run.main.call("policy_explain", {"restrict_capabilities": [], "restrict_hosts": []})).ok()
    expect(narrowed.effect == "none" and narrowed.env["readiness"] == "not_applicable", f"{narrowed.describe()}")
    expect(all(line["polarity"] == "denied" for line in narrowed.facts["capabilities"]), "the restrictions are not reflected")
    manual = (await run.manual.call("policy_explain", {})).ok()
    expect(manual.effect == "none", f"effect {manual.effect}")
    still = await run.manual.call("browser_tabs", {"action": "list"})
    expect(still.reason == "browser_startup_manual", "policy_explain started a browser")


@check(tool_section("policy_explain"))
async def policy_explain_holds_no_workspace_lease(run: Run) -> None:
    """"Read-only, never dispatches a browser, holds no workspace lease, and writes nothing." -- it
    answers while a wait holds the tab."""
    await run.page("/conf/main")
    started = asyncio.Event()

    async def progress(_progress: float, _total: float | None, _message: str | None) -> None:
        started.set()

    waiting = asyncio.ensure_future(run.main.session.call_tool(
        "browser_wait", {"condition": "duration", "value": 1500}, progress_callback=progress))
    try:
        await asyncio.wait_for(started.wait(), timeout=10)
        explained = await run.main.call("policy_explain", {})
        expect(explained.status == "succeeded", f"{explained.describe()}")
        expect(not waiting.done(), "policy_explain waited for the tab's lease")
    finally:
        await asyncio.wait_for(waiting, timeout=20)


@check(tool_section("policy_explain"))
async def policy_explain_withholds_documents_and_paths(run: Run) -> None:
    """"with layer document texts and filesystem paths withheld from model results." """
    explained = (await run.main.call("policy_explain", {})).ok()
    dumped = json.dumps(explained.env)
    for secret in (run.upload_root, run.args.config, run.args.private_config, run.args.audit, "[capabilities]", "destination ="):
        expect(secret not in dumped, f"{secret!r} appears in policy_explain")


@check(tool_section("policy_explain"))
async def policy_explain_summary_names_its_measurement(run: Run) -> None:
    """"The summary names its measurement: capability areas explained over layers in force." """
    explained = (await run.main.call("policy_explain", {})).ok()
    layers = explained.facts.get("provenance", {}).get("layers") or []
    match = re.search(r"(\d+) capability areas? over (\d+) layers? in force", explained.summary)
    expect(match, f"{explained.summary!r}")
    expect(int(match.group(1)) == len(explained.facts["capabilities"]) and int(match.group(2)) == len(layers), f"{explained.summary!r} vs {len(layers)} layers")


@check(tool_section("policy_explain"))
async def policy_explain_explains_refusals(run: Run) -> None:
    """"use it to learn why another call was refused or what is allowed before acting." -- a call's
    restrictions and a layer's denial show in the lines."""
    narrowed = (await run.main.call("policy_explain", {"restrict_capabilities": ["read"]})).ok()
    lines = {line["capability"]: line for line in narrowed.facts["capabilities"]}
    expect(lines["read"]["polarity"] == "allowed" and all(lines[c]["polarity"] == "denied" for c in ("action", "write", "execute")), f"lines {short(lines)}")
    expect("restrict" in lines["action"]["line"] or lines["action"]["layer"] == "restriction", f"line {lines['action']}")
    private = (await run.private.call("policy_explain", {})).ok()
    setting = {s.get("name"): s.get("value") for s in private.facts["settings"]}
    expect(setting.get("privacy.preserve_target_names") is False and setting.get("tabs.close") == "forbidden", f"settings {setting}")


# ============================================================================================
# Every result of the run
# ============================================================================================


def results(run: Run) -> list[Outcome]:
    return [o for o in run.seen if o.raw is not None]


@check(S_EVERY)
async def every_result_is_rendered_twice(run: Run) -> None:
    """"The MCP edge renders the complete envelope twice for client compatibility" -- for every
    result of the run."""
    bad = [f"{o.tool}: {p}" for o in results(run) for p in rendering_problems(o)]
    expect(not bad, f"{len(bad)} results: {bad[:5]}")


@check(S_EVERY)
async def every_result_uses_the_closed_values(run: Run) -> None:
    """"`status` enum `succeeded`, `blocked`, `failed`, `cancelled`, `attention_required`, or
    `unknown`; `effect` `none`, `applied`, `partial`, or `unknown`; `readiness` `not_applicable`,
    `loading`, `interactive`, `complete`, or `unknown`; `repeat_safe` boolean; `next_steps` zero to
    two Ghostlight-authored safe suggestions." """
    bad = []
    for o in results(run):
        env = o.env
        if env.get("status") not in STATUSES or env.get("effect") not in EFFECTS or env.get("readiness") not in READINESS:
            bad.append(f"{o.tool}: {env.get('status')}/{env.get('effect')}/{env.get('readiness')}")
        if not isinstance(env.get("repeat_safe"), bool) or not isinstance(env.get("facts"), dict):
            bad.append(f"{o.tool}: repeat_safe/facts types")
        steps = env.get("next_steps")
        if not isinstance(steps, list) or len(steps) > 2 or not all(isinstance(s, str) and s.strip() for s in steps):
            bad.append(f"{o.tool}: next_steps {steps}")
    expect(not bad, f"{len(bad)} results: {bad[:5]}")


@check(S_EVERY)
async def every_result_is_error_matches_its_status(run: Run) -> None:
    """CLARIFICATIONS: decode errors carry MCP `isError: true`; the edge sets `isError` for every
    status but `succeeded` (README's one rule)."""
    bad = [f"{o.tool}: {o.status} isError={o.raw.is_error}" for o in results(run) if bool(o.raw.is_error) != (o.status in ERROR_STATUSES)]
    expect(not bad, f"{len(bad)} results: {bad[:5]}")


@check(S_EVERY)
async def every_result_with_uncertain_effect_is_not_repeat_safe(run: Run) -> None:
    """"A result with `effect` equal to `partial` or `unknown` ... has `repeat_safe: false`" (and a
    decode error is never repeat-safe)."""
    bad = [f"{o.tool}: {o.effect}" for o in results(run)
           if (o.effect in ("partial", "unknown") or o.reason == "invalid_arguments") and o.env.get("repeat_safe") is not False]
    expect(not bad, f"{bad[:5]}")


@check(S_EVERY)
async def every_summary_is_bounded_and_authored(run: Run) -> None:
    """"`summary` string: Bounded Ghostlight-authored explanation." (one sentence block, at most the
    chosen 600 characters, never page text.)"""
    bad = [f"{o.tool}: {len(o.summary)} characters" for o in results(run) if not (0 < len(o.summary) <= 600) or "\n" in o.summary]
    leaked = [o.tool for o in results(run) if re.search(r"Ghostlight reads this sentence|The article body begins|Paragraph \d+\.", o.summary)]
    expect(not bad and not leaked, f"unbounded: {bad[:5]}; page text in summaries: {leaked[:5]}")


@check(S_EVERY)
async def every_sentence_host_is_in_the_facts(run: Run) -> None:
    """"A sentence that names a host, count, or capture size carries the same value in that
    projection." -- every host a summary names appears in its facts."""
    bad = []
    for o in results(run):
        for host in set(re.findall(r"127\.0\.0\.\d+(?::\d+)?", o.summary)):
            if host not in json.dumps(o.facts):
                bad.append(f"{o.tool}: {host} in {o.summary!r}")
    expect(not bad, f"{bad[:5]}")


COUNT_NOUNS = r"(?:characters?|controls?|matches|match|fields?|files?|bytes?|tabs?|entries|entry|problems?|elements?|nodes?|items?|steps?|structure elements?|structure nodes?|capability areas?|layers?|recordings?)"


def fact_numbers(value: Any) -> set[int]:
    found: set[int] = set()
    if isinstance(value, bool):
        return found
    if isinstance(value, (int, float)) and float(value).is_integer():
        found.add(int(value))
    elif isinstance(value, dict):
        for inner in value.values():
            found |= fact_numbers(inner)
    elif isinstance(value, list):
        found.add(len(value))
        for inner in value:
            found |= fact_numbers(inner)
    return found


@check(S_EVERY)
async def every_sentence_count_is_in_the_facts(run: Run) -> None:
    """"A sentence that names a host, count, or capture size carries the same value in that
    projection." -- every count a summary states ("Read 324 characters", "2 of 3 steps", "(1280×657)")
    is a number of its facts."""
    bad = []
    for o in results(run):
        if o.reason == "invalid_arguments":
            continue
        summary = re.sub(r'"[^"]*"', '""', o.summary)  # quoted names and texts are not counts
        summary = re.sub(r"\b[\w.-]+:\d+\b|\b(?:tab|target|view|snap|rec|inv)_\w+", "X", summary)  # hosts, handles
        numbers = fact_numbers(o.facts)
        stated = [int(n.replace(",", "")) for n in re.findall(r"\b(\d[\d,]*) (?:of (?:\d[\d,]*) )?" + COUNT_NOUNS, summary)]
        stated += [int(n.replace(",", "")) for n in re.findall(r"\b\d[\d,]* of (\d[\d,]*) " + COUNT_NOUNS, summary)]
        for width, height in re.findall(r"\((\d+)×(\d+)\)", summary):
            stated += [int(width), int(height)]
        missing = [n for n in stated if n not in numbers]
        if missing:
            bad.append(f"{o.tool}: {missing} in {o.summary!r}")
    unique = sorted(set(re.sub(r"\d+", "N", line) for line in bad))
    expect(not bad, f"{len(bad)} summaries, {len(unique)} shapes: {unique[:8]}")


@check(S_EVERY)
async def every_result_matches_its_output_schema(run: Run) -> None:
    """"a truthful output schema" -- every envelope of the run, refusals included, validates against
    its tool's outputSchema."""
    bad = []
    validators = {name: jsonschema.Draft202012Validator(tool["outputSchema"]) for name, tool in run.tools.items()}
    for o in results(run):
        errors = list(validators[o.tool].iter_errors(o.raw.structured_content)) if o.tool in validators else []
        if errors:
            bad.append(f"{o.tool}: {errors[0].message[:200]} at {list(errors[0].absolute_path)}")
    sdk = [o.error for o in run.seen if o.raw is None]
    expect(not bad and not sdk, f"{len(bad)} results: {bad[:5]}; SDK refusals: {sdk[:3]}")


@check(S_EVERY)
async def every_decode_error_has_the_spec_shape(run: Run) -> None:
    """CLARIFICATIONS: "Invalid input (decode errors) comes back as an envelope, never as a protocol
    error: status `failed`, effect `none`, `repeat_safe: false`, MCP `isError: true`." -- naming the
    field and the rule."""
    bad = []
    count = 0
    for o in results(run):
        if o.reason != "invalid_arguments":
            continue
        count += 1
        pointer = o.facts.get("pointer")
        if (o.status, o.effect, o.env.get("repeat_safe"), o.raw.is_error) != ("failed", "none", False, True) \
                or not isinstance(pointer, str) or not o.facts.get("rule") or (pointer and pointer not in o.summary):
            bad.append(f"{o.tool}: {o.describe()}")
    expect(count > 50, f"only {count} decode errors were seen")
    expect(not bad, f"{bad[:3]}")


@check(S_EVERY)
async def every_handle_carries_its_kind(run: Run) -> None:
    """CLARIFICATIONS: "Handles are opaque strings with a kind prefix: `tab_`, `target_`, `view_`,
    `snap_`, `rec_`, `inv_`." -- and every invocation handle is its own."""
    kinds = {"tab": "tab_", "target": "target_", "view": "view_", "snapshot": "snap_", "recording": "rec_", "invocation": "inv_",
             "previous_snapshot": "snap_", "parent_view": "view_", "source_image": "view_"}
    bad = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                if key in kinds and isinstance(inner, str) and not (inner.startswith(kinds[key]) and HANDLE_RE.match(inner)):
                    bad.append(f"{key}={inner!r}")
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    invocations = []
    for o in results(run):
        walk({"invocation": o.env.get("invocation"), **o.facts} if o.reason != "invalid_arguments" else {"invocation": o.env.get("invocation")})
        invocations.append((o.server, o.env.get("invocation")))
    expect(not bad, f"{sorted(set(bad))[:8]}")
    expect(len(set(invocations)) == len(invocations), "an invocation handle was reused")


@check(S_EVERY)
async def every_audit_record_is_payload_free(run: Run) -> None:
    """"Dialog text is never audited." "File paths, names, and contents never enter audit" "Script
    source and result never enter audit" (CLARIFICATIONS: "`policy_explain` is audited like any
    invocation (payload-free).") -- MAIN's audit file after the whole run."""
    with open(run.args.audit, encoding="utf-8") as handle:
        text = handle.read()
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    expect(records, "the audit file is empty")
    for name, secret in SECRETS.items():
        expect(secret not in text, f"the {name} secret reached the audit")
    for secret in (run.upload_root, "Ghostlight reads this sentence", "conformance console error", "conformance long warning"):
        expect(secret not in text, f"{secret!r} reached the audit")
    audited = {r.get("invocation") for r in records}
    main = [o for o in results(run) if o.server == "main"]
    missing = [o.tool for o in main if o.env.get("invocation") not in audited]
    expect(not missing, f"{len(missing)} MAIN invocations are not audited, e.g. {missing[:5]}")
    expect(any(r.get("tool") == "policy_explain" for r in records), "policy_explain is not audited")


# ============================================================================================
# Running
# ============================================================================================


def touched_tabs(run: Run, outcomes: list[Outcome]) -> bool:
    """Whether these MAIN calls may have left another tab open, or the main tab unselected."""
    for o in outcomes:
        if o.server != "main" or o.raw is None:
            continue
        if o.tool == "browser_tabs" and o.args.get("action") in ("focus", "close"):
            return True
        if o.tool in ("browser_navigate", "browser_flow") and (o.facts.get("tab") not in (None, run.main_tab) or o.args.get("new_tab")):
            return True
        if "opened_tabs" in json.dumps(o.facts):
            return True
    return False


def known(name: str, engine: str) -> str | None:
    return KNOWN_DEVIATIONS.get(f"{name}[{engine}]") or KNOWN_DEVIATIONS.get(name)


def leaf(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def prepare_uploads(root: str) -> None:
    """The files the upload checks attach or refuse, inside the configured upload folder."""
    os.makedirs(os.path.join(root, "folder"), exist_ok=True)
    with open(os.path.join(root, SECRETS["upload_file"]), "w", encoding="utf-8") as handle:
        handle.write("Upload-Secret-file contents\n")
    with open(os.path.join(root, "second.txt"), "w", encoding="utf-8") as handle:
        handle.write("second\n")
    for name, size in (("too-big.bin", 5_000_001), ("half-a.bin", 2_600_000), ("half-b.bin", 2_600_000), ("exactly-limit.bin", 5_000_000)):
        with open(os.path.join(root, name), "wb") as handle:
            handle.truncate(size)


async def conformance(args: argparse.Namespace) -> tuple[int, int, int, int]:
    base = args.base_url.rstrip("/")
    denied = args.denied_url.rstrip("/")
    run = Run(args=args, engine=args.browser, base=base, denied=denied, upload_root=os.path.realpath(args.upload_root))
    run.host = base.split("://", 1)[1]
    run.denied_host = denied.split("://", 1)[1]
    prepare_uploads(run.upload_root)
    home = tempfile.mkdtemp(prefix="ghostlight-conformance-home-")
    env = {"GHOSTLIGHT_MCP_LOG": os.environ.get("GHOSTLIGHT_MCP_LOG", "warn"), "XDG_CONFIG_HOME": home, "PATH": os.environ.get("PATH", "")}
    common = ["--browser", args.browser]
    servers = {
        "main": StdioServerParameters(command=args.server, args=common + ["--config", args.config], env=env),
        "private": StdioServerParameters(command=args.server, args=common + ["--config", args.private_config], env=env),
        "manual": StdioServerParameters(command=args.server, args=common + ["--startup", "manual"], env=env),
    }
    counts = [0, 0, 0, 0]  # passed, failed, xfail, xpass
    async with contextlib.AsyncExitStack() as stack:
        stack.callback(shutil.rmtree, home, ignore_errors=True)  # last, once the servers have exited
        for name, params in servers.items():
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            setattr(run, name, Server(name, session, run))
        listed = await run.main.session.list_tools()
        run.tools = {t.name: t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.tools}
        for server in (run.private, run.manual):
            await server.session.list_tools()
        section = None
        for section_name, name, fn in CHECKS:
            if args.only and not any(part in name for part in args.only.split(",")):
                continue
            if section_name != section:
                section = section_name
                print(f"== {section}", flush=True)
            started = time.monotonic()
            first_call = len(run.seen)
            problem: str | None = None
            try:
                await asyncio.wait_for(fn(run), timeout=60)
            except CheckFailed as error:
                problem = str(error)
            except BaseException as error:  # noqa: BLE001 - a check's crash is its failure
                cause = leaf(error)
                if isinstance(cause, CheckFailed):
                    problem = str(cause)
                elif isinstance(cause, (KeyboardInterrupt, SystemExit)):
                    raise
                else:
                    problem = f"{type(cause).__name__}: {cause}\n{''.join(traceback.format_exception(cause)[-3:])}"
            elapsed = time.monotonic() - started
            deviation = known(name, args.browser)
            if problem is None and deviation is None:
                counts[0] += 1
                print(f"PASS  {name} ({elapsed:.1f}s)", flush=True)
            elif problem is None:
                counts[3] += 1
                print(f"XPASS {name} !!! listed as a known deviation ({deviation}) but it passes: remove it from KNOWN_DEVIATIONS", flush=True)
            elif deviation is not None:
                counts[2] += 1
                print(f"XFAIL {name}: {deviation}\n      observed: {short(problem, 400)}", flush=True)
            else:
                counts[1] += 1
                print(f"FAIL  {name}: {short(problem, 1500)}", flush=True)
            thorough = problem is not None or name.startswith(("record_", "dialog_"))
            if thorough or touched_tabs(run, run.seen[first_call:]):
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(run.clean(thorough=thorough), timeout=30)
        if os.environ.get("CONFORMANCE_PROFILE"):
            by_tool: dict[str, list[float]] = {}
            for o in run.seen:
                by_tool.setdefault(f"{o.server}:{o.tool}", []).append(o.elapsed)
            for key, times in sorted(by_tool.items(), key=lambda kv: -sum(kv[1]))[:15]:
                print(f"PROFILE {key}: {len(times)} calls, {sum(times):.1f} s, max {max(times):.2f} s")
    return tuple(counts)  # type: ignore[return-value]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, help="the ghostlight-mcp binary")
    parser.add_argument("--browser", required=True, choices=["chromium", "firefox"])
    parser.add_argument("--base-url", required=True, help="the fixture site, http://127.0.0.1:PORT")
    parser.add_argument("--denied-url", required=True, help="a fixture site on a host MAIN denies, http://127.0.0.2:PORT")
    parser.add_argument("--config", required=True, help="MAIN's configuration file")
    parser.add_argument("--private-config", required=True, help="PRIVATE's configuration file")
    parser.add_argument("--upload-root", required=True, help="the upload folder MAIN's configuration allows")
    parser.add_argument("--audit", required=True, help="the audit file MAIN's configuration writes")
    parser.add_argument("--only", help="run only checks whose names contain one of these comma-separated parts")
    args = parser.parse_args()
    started = time.monotonic()
    try:
        passed, failed, xfail, xpass = asyncio.run(asyncio.wait_for(conformance(args), timeout=600))
    except BaseException as error:  # noqa: BLE001 - report any crash of the harness itself
        cause = leaf(error)
        print(f"ERROR the conformance run did not complete: {type(cause).__name__}: {cause}")
        traceback.print_exception(cause)
        return 2
    elapsed = time.monotonic() - started
    total = passed + failed + xfail + xpass
    print(f"conformance ({args.browser}): {total} checks: {passed} passed, {xfail} xfail (known deviations), "
          f"{xpass} xpass, {failed} failed in {elapsed:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
