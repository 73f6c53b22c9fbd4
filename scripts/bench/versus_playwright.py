#!/usr/bin/env python3
"""Ghostlight next to Playwright MCP on the scenario harness (issue 32).

    versus_playwright.py [--reps 7] [--ghostlight PATH] [--playwright-mcp CLI_JS]
                         [--chromium /usr/bin/chromium] [--only SCENARIO ...] [--verbose]

What it measures. Six scenario families, each the sequence of tool calls a model would make on
each server to do the same task, written the natural way for that server and including the calls
a model needs to learn what to act on (Playwright MCP's `browser_snapshot` for refs, Ghostlight's
`browser_inspect` / `browser_find` for target handles) and to see the outcome:

* reading: open an article page (about 4 KB of prose between a nav and a footer) and read it;
* forms: fill six controls (text, email, select, checkbox, textarea, another text) and submit; the
  page writes a result line without navigating away;
* dialogs: click a button that opens `confirm`, accept it; the page writes the answer;
* uploads: attach a file to an `<input type=file>`; the page writes the file's name and size;
* frames: click a button inside a same-origin iframe; the frame writes its effect;
* links: click one of several links; the linked page (same host) is read.

Every run verifies its outcome from what the server returned (the article's last sentence, the
form's result line, the dialog's answer, the file's name and size, the frame's effect, the linked
page's text); a run that fails verification stops the harness with an error (exit 1), never a
timing.

Timing is wall clock at the client around a scenario's calls, after one warm-up run per scenario
per server; `--reps` repetitions (default 7), the two servers interleaved inside each repetition
(which goes first alternates) so machine load hits both alike. Browser start is excluded from the
scenarios and printed as its own row: from spawning the server to the first navigate's answer
(one sample per server per run). For each scenario it also counts the tool calls and the bytes of
tool results returned to the model (the UTF-8 length of the text content blocks: the model's
context cost; Ghostlight's structured content, which clients may also hand to the model, is
printed below the table).

Output: a Markdown table, scenario | Ghostlight median ms (min–max) | Playwright MCP median ms
(min–max) | ratio | calls | bytes, plus the versions (Chromium, Playwright MCP, Ghostlight git
revision).

What it needs:

* Python 3.11 with the official MCP Python SDK (`mcp`); the repository's `.venv-mcp` has it
  (`scripts/test.sh` creates it): `.venv-mcp/bin/python scripts/bench/versus_playwright.py`.
* Ghostlight built with `cargo build --release -p ghostlight-cli --all-features`
  (`target/release/ghostlight`, or `--ghostlight PATH`), chromedriver and Chromium on PATH.
* Playwright MCP from npm, without Playwright's browser download (it drives the system
  Chromium, `/usr/bin/chromium`, through `--executable-path`):
  `mkdir -p /tmp/pw-mcp && cd /tmp/pw-mcp && npm init -y &&
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm i @playwright/mcp@0.0.86`; the script runs
  `node /tmp/pw-mcp/node_modules/@playwright/mcp/cli.js` (or `--playwright-mcp PATH`).

Both browsers get the same Chromium arguments (`--disable-background-networking
--disable-component-update --disable-sync --disable-quic --no-first-run`: the browser's own
background traffic off), headless, sandbox off when running as root. Playwright MCP gets them
through its `--config` file (`browser.launchOptions.args`), Ghostlight through its configuration
file (`[browser] args`), which also allows the fixture host and names the upload root. The
fixtures are served on 127.0.0.1 only; every file the script writes lives in a temporary folder
it removes at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.server
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
UPLOAD_NAME = "quarterly-report.txt"
UPLOAD_SIZE = 2048

# --------------------------------------------------------------------------------------------
# Fixture pages
# --------------------------------------------------------------------------------------------

_SENTENCES = [
    "The harbour empties twice a day, and the boats settle on the mud at odd angles.",
    "Fishermen use the hours of low water to scrape hulls and mend the nets spread on the quay.",
    "Gulls work the exposed weed beds, turning stones for crabs that did not burrow in time.",
    "A narrow channel stays wet even at the lowest tides, marked by posts painted red and green.",
    "Visitors who walk out too far are warned by a bell that rings when the flood begins.",
    "The old customs house keeps a tide board that is chalked by hand every morning.",
    "In winter the mud freezes at the edges and the light turns the colour of pewter.",
    "Children search the pools below the sea wall for shrimp and the occasional lost coin.",
]
_CLOSING = "The lamp on the north mole is lit at dusk, whatever the tide."


def _article_paragraphs() -> list[str]:
    """About 4 KB of prose: eight paragraphs of the sentences above in rotating order."""
    paragraphs = []
    for n in range(8):
        rotated = _SENTENCES[n:] + _SENTENCES[:n]
        paragraphs.append(" ".join(rotated[:4]))
    paragraphs[-1] += " " + _CLOSING
    return paragraphs


def _page(title: str, body: str) -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{title}</title></head><body>{body}</body></html>"
    )


_NAV = (
    "<nav><a href='/'>Home</a> <a href='/links'>Harbour</a> <a href='/reading'>Stories</a> "
    "<a href='/forms'>Contact</a></nav>"
)
_FOOTER = "<footer><p>Harbour Trust, Quay Street. Open daily.</p><a href='/'>Privacy</a></footer>"

FIXTURES: dict[str, str] = {
    "/reading": _page(
        "The harbour at low water",
        _NAV
        + "<main><article><h1>The harbour at low water</h1>"
        + "".join(f"<p>{p}</p>" for p in _article_paragraphs())
        + "</article></main>"
        + _FOOTER,
    ),
    "/forms": _page(
        "Request a mooring",
        _NAV
        + """<main><h1>Request a mooring</h1>
<form id=f>
<p><label>Full name <input name=name required></label></p>
<p><label>Email <input type=email name=email required></label></p>
<p><label>Boat name <input name=boat></label></p>
<p><label>Plan <select name=plan><option>Basic</option><option>Pro</option>
<option>Team</option></select></label></p>
<p><label><input type=checkbox name=terms> I accept the terms</label></p>
<p><label>Notes <textarea name=notes></textarea></label></p>
<p><button type=submit>Send request</button></p>
</form><p id=result role=status></p></main>
<script>
document.getElementById('f').addEventListener('submit', (e) => {
  e.preventDefault();
  const f = e.target;
  document.getElementById('result').textContent = 'Request received for ' + f.name.value +
    ' (' + f.email.value + '), boat ' + f.boat.value + ', plan ' + f.plan.value + ', terms ' +
    (f.terms.checked ? 'accepted' : 'refused') + ', notes ' + f.notes.value.length + ' characters.';
});
</script>"""
        + _FOOTER,
    ),
    "/dialogs": _page(
        "Drafts",
        _NAV
        + """<main><h1>Drafts</h1><p>One draft: "Winter moorings".</p>
<button id=d>Delete draft</button><p id=answer role=status></p></main>
<script>
document.getElementById('d').addEventListener('click', () => {
  const ok = confirm('Delete the draft "Winter moorings"?');
  document.getElementById('answer').textContent =
    ok ? 'Draft deleted: the confirm was accepted' : 'Draft kept: the confirm was dismissed';
});
</script>"""
        + _FOOTER,
    ),
    "/uploads": _page(
        "Attach a report",
        _NAV
        + """<main><h1>Attach a report</h1>
<p><label>Attachment <input type=file id=file></label></p>
<p id=chosen role=status>No file chosen yet</p></main>
<script>
document.getElementById('file').addEventListener('change', (e) => {
  const f = e.target.files[0];
  document.getElementById('chosen').textContent =
    f ? 'Chosen: ' + f.name + ' (' + f.size + ' bytes)' : 'No file chosen';
});
</script>"""
        + _FOOTER,
    ),
    "/frames": _page(
        "Invoices",
        _NAV
        + "<main><h1>Invoices</h1><p>The approval panel below is a frame.</p>"
        "<iframe src='/frame-inner' title='Approval panel' width=500 height=200></iframe></main>"
        + _FOOTER,
    ),
    "/frame-inner": _page(
        "Approval panel",
        """<p>Invoice 4471 from Quay Chandlers awaits approval.</p>
<button id=a>Approve invoice</button><p id=s role=status></p>
<script>
document.getElementById('a').addEventListener('click', () => {
  document.getElementById('s').textContent = 'Invoice 4471 approved';
});
</script>""",
    ),
    "/links": _page(
        "Harbour",
        _NAV
        + """<main><h1>Harbour information</h1><ul>
<li><a href='/info/hours'>Opening hours</a></li>
<li><a href='/info/tides'>Tide tables</a></li>
<li><a href='/info/fees'>Harbour fees</a></li>
<li><a href='/info/moorings'>Visitor moorings</a></li>
<li><a href='/info/contact'>Contact the harbour master</a></li>
</ul></main>"""
        + _FOOTER,
    ),
    "/info/tides": _page(
        "Tide tables",
        _NAV
        + "<main><h1>Tide tables</h1><p>High water today at 06:12 and 18:37; "
        "low water at 00:05 and 12:24.</p></main>"
        + _FOOTER,
    ),
}
for _slug, _title in [("hours", "Opening hours"), ("fees", "Harbour fees"),
                      ("moorings", "Visitor moorings"), ("contact", "Contact")]:
    FIXTURES[f"/info/{_slug}"] = _page(_title, _NAV + f"<main><h1>{_title}</h1></main>" + _FOOTER)
FIXTURES["/"] = _page("Home", _NAV + "<main><h1>Home</h1></main>")


def serve_fixtures() -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve FIXTURES on 127.0.0.1 (a free port) in a daemon thread; return server and origin."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            page = FIXTURES.get(self.path.split("?", 1)[0])
            body = (page or "not found").encode()
            self.send_response(200 if page else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


# --------------------------------------------------------------------------------------------
# A server as the model sees it
# --------------------------------------------------------------------------------------------


class VerificationError(AssertionError):
    """A scenario run whose outcome the server's answers did not show."""


@dataclass
class Answer:
    """One tool result: its text blocks joined, its structured content, its sizes."""

    text: str
    structured: Any
    text_bytes: int
    structured_bytes: int
    is_error: bool


@dataclass
class Tally:
    """What one scenario run cost the model: calls and bytes returned."""

    calls: int = 0
    text_bytes: int = 0
    structured_bytes: int = 0
    steps: list[tuple[str, float]] = field(default_factory=list)


class Server:
    """One MCP stdio server: calls tools and tallies what each scenario run costs."""

    def __init__(self, name: str, session: ClientSession) -> None:
        self.name = name
        self.session = session
        self.tally = Tally()
        self.verbose = False

    async def call(self, tool: str, arguments: dict[str, Any]) -> Answer:
        """Call `tool`; a protocol-level error result raises (it is never a timing)."""
        began = time.perf_counter()
        result = await self.session.call_tool(tool, arguments)
        self.tally.steps.append((tool, (time.perf_counter() - began) * 1000))
        text = "".join(getattr(c, "text", "") for c in result.content)
        structured = result.structured_content
        answer = Answer(
            text=text,
            structured=structured,
            text_bytes=len(text.encode()),
            structured_bytes=len(json.dumps(structured, ensure_ascii=False).encode())
            if structured is not None
            else 0,
            is_error=bool(result.is_error),
        )
        self.tally.calls += 1
        self.tally.text_bytes += answer.text_bytes
        self.tally.structured_bytes += answer.structured_bytes
        if self.verbose:
            print(f"--- {self.name} {tool} {json.dumps(arguments)[:200]}\n{text[:1500]}",
                  file=sys.stderr)
        if answer.is_error:
            raise VerificationError(f"{self.name} {tool} answered an error: {text[:500]}")
        return answer


def expect(condition: bool, what: str, answer: Answer) -> None:
    """Raise VerificationError naming `what` unless `condition` holds."""
    if not condition:
        raise VerificationError(f"not verified: {what}; last answer: {answer.text[:800]}")


# --------------------------------------------------------------------------------------------
# Ghostlight: envelopes with facts; targets from inspect/find rows
# --------------------------------------------------------------------------------------------


def gl_ok(answer: Answer, what: str) -> dict[str, Any]:
    """The facts of a `succeeded` envelope; anything else fails verification."""
    envelope = answer.structured if answer.structured is not None else json.loads(answer.text)
    expect(envelope.get("status") == "succeeded", f"{what} succeeded", answer)
    return envelope.get("facts", {})


def gl_target(rows: list[list[Any]], role: str, name: str) -> str:
    """The handle of the first row with this role whose name contains `name`."""
    for row in rows:
        if row[1] == role and name in (row[2] if len(row) > 2 else ""):
            return row[0]
    raise VerificationError(f"no {role} named {name!r} in {rows!r}")


async def gl_reading(s: Server, origin: str) -> None:
    """Navigate, read the article."""
    gl_ok(await s.call("browser_navigate", {"url": f"{origin}/reading"}), "navigate")
    read = await s.call("browser_read", {})
    text = gl_ok(read, "read").get("text", "")
    expect(_CLOSING in text and _SENTENCES[0] in text, "the article's text was read", read)


async def gl_forms(s: Server, origin: str) -> None:
    """Navigate, inspect the form's controls, fill all six and submit in one call, read."""
    gl_ok(await s.call("browser_navigate", {"url": f"{origin}/forms"}), "navigate")
    rows = gl_ok(await s.call("browser_inspect", {}), "inspect")["items"]
    fields = [
        {"target": gl_target(rows, "textbox", "Full name"), "value": "Ada Lovelace"},
        {"target": gl_target(rows, "textbox", "Email"), "value": "ada@example.test"},
        {"target": gl_target(rows, "textbox", "Boat name"), "value": "Analytical"},
        {"target": gl_target(rows, "combobox", "Plan"), "value": "Pro"},
        {"target": gl_target(rows, "checkbox", "I accept the terms"), "value": True},
        {"target": gl_target(rows, "textbox", "Notes"), "value": "Berth near the slipway"},
    ]
    filled = await s.call("browser_fill_form", {
        "fields": fields, "submit_target": gl_target(rows, "button", "Send request")})
    facts = gl_ok(filled, "fill_form")
    expect(facts.get("filled_count") == 6 and facts.get("submitted") is True, "6 filled, submitted",
           filled)
    read = await s.call("browser_read", {})
    expect(FORM_RESULT in gl_ok(read, "read").get("text", ""), "the form's result line", read)


async def gl_dialogs(s: Server, origin: str) -> None:
    """Navigate, find the button, click it, accept the confirm, read the answer."""
    gl_ok(await s.call("browser_navigate", {"url": f"{origin}/dialogs"}), "navigate")
    rows = gl_ok(await s.call("browser_find", {"text": "Delete draft"}), "find")["matches"]
    gl_ok(await s.call("browser_click", {"target": gl_target(rows, "button", "Delete draft")}),
          "click")
    accepted = await s.call("browser_dialog", {"action": "accept"})
    expect(gl_ok(accepted, "dialog").get("handled") is True, "the confirm was handled", accepted)
    read = await s.call("browser_read", {})
    expect(DIALOG_RESULT in gl_ok(read, "read").get("text", ""), "the dialog's answer", read)


async def gl_uploads(s: Server, origin: str, upload: Path) -> None:
    """Navigate, inspect, attach the file by path, read what the page shows."""
    gl_ok(await s.call("browser_navigate", {"url": f"{origin}/uploads"}), "navigate")
    rows = gl_ok(await s.call("browser_inspect", {}), "inspect")["items"]
    target = gl_target(rows, "button", "Attachment")  # a file input's role is button
    uploaded = await s.call("browser_upload", {"target": target, "paths": [str(upload)]})
    expect(gl_ok(uploaded, "upload").get("uploaded_count") == 1, "one file uploaded", uploaded)
    read = await s.call("browser_read", {})
    expect(UPLOAD_RESULT in gl_ok(read, "read").get("text", ""), "the file's name and size", read)


async def gl_frames(s: Server, origin: str) -> None:
    """Navigate, inspect (frames included), click the frame's button, read."""
    gl_ok(await s.call("browser_navigate", {"url": f"{origin}/frames"}), "navigate")
    rows = gl_ok(await s.call("browser_inspect", {}), "inspect")["items"]
    gl_ok(await s.call("browser_click", {"target": gl_target(rows, "button", "Approve invoice")}),
          "click")
    read = await s.call("browser_read", {})
    expect(FRAME_RESULT in gl_ok(read, "read").get("text", ""), "the frame button's effect", read)


async def gl_links(s: Server, origin: str) -> None:
    """Navigate, find the link, click it, read the linked page."""
    gl_ok(await s.call("browser_navigate", {"url": f"{origin}/links"}), "navigate")
    rows = gl_ok(await s.call("browser_find", {"text": "Tide tables"}), "find")["matches"]
    clicked = await s.call("browser_click", {"target": gl_target(rows, "link", "Tide tables")})
    gl_ok(clicked, "click")
    read = await s.call("browser_read", {})
    expect(LINK_RESULT in gl_ok(read, "read").get("text", ""), "the linked page's text", read)


# --------------------------------------------------------------------------------------------
# Playwright MCP: Markdown answers; refs from the YAML snapshot
# --------------------------------------------------------------------------------------------


def pw_ref(snapshot: Answer, role: str, name: str) -> str:
    """The ref of the first `role "name…"` line of a snapshot."""
    match = re.search(rf'- {role} "{re.escape(name)}[^"]*"[^\n]*\[ref=(\w+)\]', snapshot.text)
    if match is None:
        raise VerificationError(f"no {role} {name!r} in snapshot: {snapshot.text[:800]}")
    return match.group(1)


async def pw_reading(s: Server, origin: str) -> None:
    """Navigate (its snapshot goes to a file), take the snapshot, which carries the text."""
    await s.call("browser_navigate", {"url": f"{origin}/reading"})
    snap = await s.call("browser_snapshot", {})
    expect(_CLOSING in snap.text and _SENTENCES[0] in snap.text, "the article's text", snap)


async def pw_forms(s: Server, origin: str) -> None:
    """Navigate, snapshot, fill six fields in one call, click submit, snapshot."""
    await s.call("browser_navigate", {"url": f"{origin}/forms"})
    snap = await s.call("browser_snapshot", {})
    fields = [
        ("Full name", "textbox", "Ada Lovelace"),
        ("Email", "textbox", "ada@example.test"),
        ("Boat name", "textbox", "Analytical"),
        ("Plan", "combobox", "Pro"),
        ("I accept the terms", "checkbox", "true"),
        ("Notes", "textbox", "Berth near the slipway"),
    ]
    await s.call("browser_fill_form", {"fields": [
        {"target": pw_ref(snap, kind, name), "name": name, "type": kind, "value": value}
        for name, kind, value in fields]})
    await s.call("browser_click", {"target": pw_ref(snap, "button", "Send request"),
                                   "element": "Send request button"})
    after = await s.call("browser_snapshot", {})
    expect(FORM_RESULT in after.text, "the form's result line", after)


async def pw_dialogs(s: Server, origin: str) -> None:
    """Navigate, snapshot, click (the answer names the open confirm), accept, snapshot."""
    await s.call("browser_navigate", {"url": f"{origin}/dialogs"})
    snap = await s.call("browser_snapshot", {})
    clicked = await s.call("browser_click", {"target": pw_ref(snap, "button", "Delete draft"),
                                             "element": "Delete draft button"})
    expect('"confirm" dialog' in clicked.text, "the click reports the confirm", clicked)
    await s.call("browser_handle_dialog", {"accept": True})
    after = await s.call("browser_snapshot", {})
    expect(DIALOG_RESULT in after.text, "the dialog's answer", after)


async def pw_uploads(s: Server, origin: str, upload: Path) -> None:
    """Navigate, snapshot, click the file input (a file chooser opens), upload, snapshot."""
    await s.call("browser_navigate", {"url": f"{origin}/uploads"})
    snap = await s.call("browser_snapshot", {})
    clicked = await s.call("browser_click", {"target": pw_ref(snap, "button", "Attachment"),
                                             "element": "Attachment file input"})
    expect("File chooser" in clicked.text or "file chooser" in clicked.text,
           "the click reports the file chooser", clicked)
    await s.call("browser_file_upload", {"paths": [str(upload)]})
    after = await s.call("browser_snapshot", {})
    expect(UPLOAD_RESULT in after.text, "the file's name and size", after)


async def pw_frames(s: Server, origin: str) -> None:
    """Navigate, snapshot (frames included), click the frame's button, snapshot."""
    await s.call("browser_navigate", {"url": f"{origin}/frames"})
    snap = await s.call("browser_snapshot", {})
    await s.call("browser_click", {"target": pw_ref(snap, "button", "Approve invoice"),
                                   "element": "Approve invoice button"})
    after = await s.call("browser_snapshot", {})
    expect(FRAME_RESULT in after.text, "the frame button's effect", after)


async def pw_links(s: Server, origin: str) -> None:
    """Navigate, snapshot, click the link, snapshot the linked page."""
    await s.call("browser_navigate", {"url": f"{origin}/links"})
    snap = await s.call("browser_snapshot", {})
    await s.call("browser_click", {"target": pw_ref(snap, "link", "Tide tables"),
                                   "element": "Tide tables link"})
    after = await s.call("browser_snapshot", {})
    expect(LINK_RESULT in after.text, "the linked page's text", after)


FORM_RESULT = ("Request received for Ada Lovelace (ada@example.test), boat Analytical, plan Pro, "
               "terms accepted, notes 22 characters.")
DIALOG_RESULT = "Draft deleted: the confirm was accepted"
UPLOAD_RESULT = f"Chosen: {UPLOAD_NAME} ({UPLOAD_SIZE} bytes)"
FRAME_RESULT = "Invoice 4471 approved"
LINK_RESULT = "High water today at 06:12 and 18:37"

Scenario = Callable[[Server, str], Awaitable[None]]


def scenarios(upload: Path) -> dict[str, dict[str, Scenario]]:
    """Scenario name -> server name -> the run."""
    return {
        "reading": {"Ghostlight": gl_reading, "Playwright MCP": pw_reading},
        "forms": {"Ghostlight": gl_forms, "Playwright MCP": pw_forms},
        "dialogs": {"Ghostlight": gl_dialogs, "Playwright MCP": pw_dialogs},
        "uploads": {"Ghostlight": lambda s, o: gl_uploads(s, o, upload),
                    "Playwright MCP": lambda s, o: pw_uploads(s, o, upload)},
        "frames": {"Ghostlight": gl_frames, "Playwright MCP": pw_frames},
        "links": {"Ghostlight": gl_links, "Playwright MCP": pw_links},
    }


# --------------------------------------------------------------------------------------------
# Starting the servers
# --------------------------------------------------------------------------------------------


def ghostlight_params(binary: Path, work: Path, origin: str,
                      chromium: str) -> StdioServerParameters:
    """`ghostlight mcp`, headless Chromium, authority: the fixture host, uploads from `work`."""
    host = origin.removeprefix("http://")
    config = work / "ghostlight.toml"
    config.write_text(
        "[browser]\nheadless = true\n"
        f"browser_path = {json.dumps(chromium)}\n"
        f"args = {json.dumps(CHROMIUM_ARGS)}\n"
        f"[hosts]\nallow = [{json.dumps(host)}]\n"
        f"[uploads]\nroots = [{json.dumps(str(work / 'uploads'))}]\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GHOSTLIGHT_")}
    return StdioServerParameters(command=str(binary), args=["mcp", "--config", str(config)],
                                 cwd=str(work), env=env)


def playwright_params(cli_js: Path, work: Path, chromium: str) -> StdioServerParameters:
    """Playwright MCP on the system Chromium, headless, isolated, through a config file."""
    config = work / "playwright-mcp.json"
    launch: dict[str, Any] = {"executablePath": chromium, "headless": True, "args": CHROMIUM_ARGS}
    config.write_text(json.dumps({"browser": {"browserName": "chromium", "isolated": True,
                                              "launchOptions": launch}}))
    args = [str(cli_js), "--config", str(config), "--browser", "chromium", "--executable-path",
            chromium, "--headless", "--isolated"]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    env = dict(os.environ, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
    return StdioServerParameters(command="node", args=args, cwd=str(work), env=env)


async def start(stack: contextlib.AsyncExitStack, name: str, params: StdioServerParameters,
                first_url: str, errlog: Any) -> tuple[Server, float]:
    """Spawn a server (its standard error to `errlog`), initialize it, navigate once; return it
    and the milliseconds from spawning to the navigate's answer."""
    began = time.perf_counter()
    read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    server = Server(name, session)
    await server.call("browser_navigate", {"url": first_url})
    return server, (time.perf_counter() - began) * 1000


# --------------------------------------------------------------------------------------------
# Running and reporting
# --------------------------------------------------------------------------------------------


@dataclass
class Samples:
    """One scenario on one server: wall times and per-run tallies."""

    ms: list[float] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)
    text_bytes: list[int] = field(default_factory=list)
    structured_bytes: list[int] = field(default_factory=list)
    steps: list[list[tuple[str, float]]] = field(default_factory=list)


async def run_once(server: Server, run: Scenario, origin: str) -> tuple[float, Tally]:
    """One verified scenario run: wall milliseconds and its tally."""
    server.tally = Tally()
    began = time.perf_counter()
    await run(server, origin)
    return (time.perf_counter() - began) * 1000, server.tally


def versions(ghostlight: Path, cli_js: Path, chromium: str) -> dict[str, str]:
    """Chromium, Playwright MCP (and its Playwright), Ghostlight (crate version and git rev)."""
    def out(*cmd: str) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
        except OSError as error:
            return f"unknown ({error})"

    package = json.loads((cli_js.parent / "package.json").read_text())
    rev = out("git", "-C", str(REPO), "rev-parse", "--short", "HEAD")
    dirty = out("git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no")
    return {
        "chromium": " ".join(out(chromium, "--version").split()[:2]),
        "playwright_mcp":
            f"{package['version']} (playwright {package['dependencies']['playwright']})",
        "ghostlight": f"{out(str(ghostlight), '--version').removeprefix('ghostlight ')} "
                      f"(git {rev}{'+dirty' if dirty else ''})",
    }


def span(values: list[float]) -> str:
    """`median (min–max)` in whole milliseconds."""
    return f"{statistics.median(values):,.0f} ({min(values):,.0f}–{max(values):,.0f})"


def load_average() -> str:
    """The 1-minute load average (the machine's other work during the run)."""
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "unknown"


def report(results: dict[str, dict[str, Samples]], starts: dict[str, float], reps: int,
           info: dict[str, str]) -> str:
    """The Markdown table and notes."""
    g, p = "Ghostlight", "Playwright MCP"
    lines = [
        f"{reps} repetitions after one warm-up, servers interleaved; medians, ms (min–max); "
        "calls and bytes of tool-result text per run (median).",
        "",
        "| scenario | Ghostlight ms | Playwright MCP ms | ratio G/P | calls G / P "
        "| result bytes G / P |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, by_server in results.items():
        gs, ps = by_server[g], by_server[p]
        ratio = statistics.median(gs.ms) / statistics.median(ps.ms)
        lines.append(
            f"| {name} | {span(gs.ms)} | {span(ps.ms)} | {ratio:.2f}× "
            f"| {statistics.median(gs.calls):.0f} / {statistics.median(ps.calls):.0f} "
            f"| {statistics.median(gs.text_bytes):,.0f} / {statistics.median(ps.text_bytes):,.0f} |"
        )
    lines.append(
        f"| browser start (spawn → first navigate answered, 1 sample) | {starts[g]:,.0f} "
        f"| {starts[p]:,.0f} | {starts[g] / starts[p]:.2f}× | | |"
    )
    structured = {n: statistics.median(s[g].structured_bytes) for n, s in results.items()}
    lines += ["", "Median ms per call, in order (which calls the time goes to):", ""]
    for name, by_server in results.items():
        for server in (g, p):
            runs = by_server[server].steps
            calls = [f"{tool.removeprefix('browser_')} "
                     f"{statistics.median(run[i][1] for run in runs):,.0f}"
                     for i, (tool, _) in enumerate(runs[0])]
            lines.append(f"* {name}, {server}: " + ", ".join(calls))
    lines += [
        "",
        "Ghostlight's structured content per run (the same envelope as JSON, which a client may "
        "also pass to the model): "
        + ", ".join(f"{n} {b:,.0f} B" for n, b in structured.items())
        + "; Playwright MCP returns none.",
        "",
        f"Versions: {info['chromium']}; Playwright MCP "
        f"{info['playwright_mcp']}; Ghostlight {info['ghostlight']}. 1-minute load average "
        f"{info['load_before']} before the run, {info['load_after']} after; {os.cpu_count()} CPUs.",
    ]
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> int:
    work = Path(tempfile.mkdtemp(prefix="ghostlight-vs-pw-"))
    (work / "uploads").mkdir()
    upload = work / "uploads" / UPLOAD_NAME
    upload.write_bytes((b"Quarterly moorings report. " * 100)[:UPLOAD_SIZE])
    httpd, origin = serve_fixtures()
    plan = {k: v for k, v in scenarios(upload).items() if not args.only or k in args.only}
    names = ["Ghostlight", "Playwright MCP"]
    results = {k: {n: Samples() for n in names} for k in plan}
    starts: dict[str, float] = {}
    load_before = load_average()
    try:
        async with contextlib.AsyncExitStack() as stack:
            servers: dict[str, Server] = {}
            for name, params in [
                ("Ghostlight", ghostlight_params(args.ghostlight, work, origin, args.chromium)),
                ("Playwright MCP", playwright_params(args.playwright_mcp, work, args.chromium)),
            ]:
                errlog = sys.stderr if args.verbose else stack.enter_context(
                    open(work / f"{name.split()[0].lower()}.stderr.log", "w"))
                servers[name], starts[name] = await start(stack, name, params, f"{origin}/", errlog)
                servers[name].verbose = args.verbose
                print(f"{name}: started, first navigate answered in {starts[name]:,.0f} ms",
                      file=sys.stderr)
            for scenario, runs in plan.items():  # warm-up, not timed
                for name in names:
                    await run_once(servers[name], runs[name], origin)
            for rep in range(args.reps):
                order = names if rep % 2 == 0 else names[::-1]
                for scenario, runs in plan.items():
                    for name in order:
                        ms, tally = await run_once(servers[name], runs[name], origin)
                        sample = results[scenario][name]
                        sample.ms.append(ms)
                        sample.calls.append(tally.calls)
                        sample.text_bytes.append(tally.text_bytes)
                        sample.structured_bytes.append(tally.structured_bytes)
                        sample.steps.append(tally.steps)
                print(f"repetition {rep + 1} of {args.reps} done", file=sys.stderr)
    finally:
        httpd.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    info = versions(args.ghostlight, args.playwright_mcp, args.chromium)
    info.update(load_before=load_before, load_after=load_average())
    print(report(results, starts, args.reps, info))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=7, help="timed repetitions (default 7)")
    parser.add_argument("--ghostlight", type=Path, default=REPO / "target/release/ghostlight",
                        help="the ghostlight binary (default target/release/ghostlight)")
    parser.add_argument("--playwright-mcp", type=Path,
                        default=Path("/tmp/pw-mcp/node_modules/@playwright/mcp/cli.js"),
                        help="Playwright MCP's cli.js")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium",
                        help="the Chromium both servers drive")
    parser.add_argument("--only", nargs="*", help="run only these scenarios")
    parser.add_argument("--verbose", action="store_true", help="print every answer to stderr")
    args = parser.parse_args()
    try:
        return asyncio.run(main_async(args))
    except VerificationError as error:  # a failed run is an error, never a timing
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
