#!/usr/bin/env python3
"""What a session costs: a browser of its own, or a BiDi user context in a shared one.

    user_contexts.py [--engine chromium|firefox|both] [--sessions 8]          # memory (default)
    user_contexts.py --spin [--engine chromium|firefox|both] [--spin-seconds 8]
    user_contexts.py --throughput [--engine chromium|firefox|both] [--points 1,2,4,8]
                     [--window 10] [--warmup 3] [--timeout 30]
                     [--ways browsers,contexts,contexts-conns,contexts-attached]

Memory (the default). For each engine: starts the driver and one browser (WebDriver session with
`webSocketUrl`), serves a fixture page on 127.0.0.1, loads it in the first tab, then adds
sessions the two ways and prints the browser's proportional memory (PSS of the driver and
browser process trees, from /proc/*/smaps_rollup) after each:

* user contexts: `browser.createUserContext`, `browsingContext.create {type: tab, userContext}`
  and `browsingContext.navigate` to the page (wait: complete), in the one browser;
* browsers: a new driver and browser per session, the page loaded in its first tab (what the
  `ghostlight-mcp` binary does today over HTTP).

Also probes whether a second chromedriver session can attach to the running browser
(`goog:chromeOptions.debuggerAddress`) with BiDi, which per-session classic commands on a
shared browser would need, and checks the isolation the split gives (a cookie set in one
context is not seen in another).

Throughput (`--throughput`). For each engine and each session count in `--points`, sets the
sessions up one way, runs every session's loop at once for `--warmup` seconds not counted and
then `--window` seconds counted, and prints one JSON line per point, then a table. A session's
iteration, all over raw WebDriver BiDi: `browsingContext.navigate` its tab to the fixture page
(wait: complete), one `script.callFunction` reading `document.title` and the length of
`document.body.innerText`, one `script.callFunction` filling the form's text input and reading
its value back (both checked). Counted: iterations completed inside the window, across all
sessions (iterations/s; speed-up against 1 session of the same way), p50/p95 of an iteration,
the CPU the driver and browser trees used per iteration, how busy the whole machine was in the
window, and the PSS of the driver and browser trees at the end of the window (same run as the
throughput). The ways (`--ways`):

* browsers: a driver and browser per session, one BiDi connection each (today);
* contexts: one driver and browser; session 1 in the first tab, each further session in a user
  context of its own with one tab; every session's commands sent concurrently over the one
  BiDi connection (answers matched by id);
* contexts-conns: the same, but a BiDi connection per session to the same WebDriver session
  (chromedriver and geckodriver both accept several connections to a session's webSocketUrl);
* contexts-attached (Chromium only): the same, but each further session a WebDriver session of
  its own attached through `goog:chromeOptions.debuggerAddress`, with its own BiDi connection
  and BiDi mapper (chromedriver 156 often refuses such an attach with "unexpected alert open"
  once another session is attached: each attach is tried up to 5 times, the refusals printed).

`--context-type window` gives each further user context a window instead of a tab: Firefox
opens a tab in the background (`document.visibilityState` hidden, printed per point), a window
is visible, as a browser of its own is.

Spin (`--spin`). One browser with two user contexts, a tab each on the fixture page; the first
tab's page holds its main thread for `--spin-seconds` (a busy loop started by
`script.evaluate`, as a hostile page would), and meanwhile the second context is sent a script,
a screenshot, a click and a navigation over the same BiDi connection: prints how long each took
(whether one session's page can stall another's commands in a shared browser).

Every BiDi command times out after `--timeout` seconds; each point's setup and loop are bounded;
every driver started is quit and the browser processes it started are killed (only those).
Develop with `--window 2 --warmup 1`; for figures, run on a quiet machine.

Needs: chromedriver / geckodriver and the browsers on PATH, and the `websockets` package
(`python3 -m venv /tmp/bidi-venv && /tmp/bidi-venv/bin/pip install websockets`, then
`/tmp/bidi-venv/bin/python scripts/bench/user_contexts.py --throughput`).
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable

import websockets

PAGE = """<!doctype html><html><head><meta charset=utf-8><title>Session page</title></head><body>
<h1>A form and some text</h1><form><label>Name <input name=n></label><label><input type=checkbox> Agree</label>
<select><option>One</option><option>Two</option></select><button>Send</button></form>
""" + "".join(f"<p>Paragraph {n}: a session's page holds ordinary text, links and controls.</p>" for n in range(200)) + """
<script>document.cookie = 'seen=' + Math.random();</script></body></html>"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_pages(respond: Callable[[str], bytes]) -> str:
    """Serve `respond(path)` as HTML on 127.0.0.1 (a thread per request); answers the base URL."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = respond(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    class Server(http.server.ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a load the browser abandoned (the window closed mid-navigation): nothing to report

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def serve() -> str:
    """The fixture page (every path answers it); answers its URL."""
    return serve_pages(lambda _path: PAGE.encode()) + "/page"


def children(pid: int) -> list[int]:
    """`pid` and its descendants (children of every thread)."""
    out = [pid]
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for task in tasks:
        try:
            kids = open(f"/proc/{pid}/task/{task}/children").read().split()
        except OSError:
            continue
        for kid in kids:
            out.extend(children(int(kid)))
    return out


def pss_mib(root_pids: list[int]) -> float:
    total = 0
    seen: set[int] = set()
    for root in root_pids:
        for pid in children(root):
            if pid in seen:
                continue
            seen.add(pid)
            try:
                for line in open(f"/proc/{pid}/smaps_rollup"):
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
            except OSError:
                pass
    return total / 1024


def http_json(method: str, url: str, body: Any = None, timeout: float = 60) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:  # what the driver said, not only its status
        raise DriverError(f"HTTP {error.code}: {error.read()[:300]!r}") from None


class DriverError(OSError):
    pass


LIVE: list["Driver"] = []  # every driver this script started and has not quit yet


class Driver:
    """A driver process and one WebDriver session with BiDi."""

    def __init__(self, engine: str, capabilities_extra: dict | None = None, reuse_port: int | None = None):
        self.engine = engine
        self.profile = tempfile.mkdtemp(prefix="gl-uc-")
        self.port = reuse_port or free_port()
        self.proc = None
        self.session = None
        LIVE.append(self)
        if reuse_port is None:
            if engine == "chromium":
                cmd = ["chromedriver", f"--port={self.port}"]
            else:
                cmd = ["geckodriver", "--port", str(self.port), "--websocket-port", str(free_port())]
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            for _ in range(100):
                try:
                    http_json("GET", f"http://127.0.0.1:{self.port}/status")
                    break
                except OSError:
                    time.sleep(0.1)
        if engine == "chromium":
            args = ["--headless=new", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--disable-quic", "--no-first-run", f"--user-data-dir={self.profile}"]
            if os.geteuid() == 0:
                args.append("--no-sandbox")
            options: dict[str, Any] = {"args": args, "binary": shutil.which("chromium") or "/usr/bin/chromium"}
            options.update((capabilities_extra or {}).get("goog:chromeOptions", {}))
            if "debuggerAddress" in options:
                options = {"debuggerAddress": options["debuggerAddress"]}
            caps: dict[str, Any] = {"browserName": "chrome", "goog:chromeOptions": options, "webSocketUrl": True}
        else:
            caps = {"browserName": "firefox", "webSocketUrl": True,
                    "moz:firefoxOptions": {"args": ["-headless", "-profile", self.profile]}}
        answer = http_json("POST", f"http://127.0.0.1:{self.port}/session", {"capabilities": {"alwaysMatch": caps}})
        value = answer["value"]
        self.session = value["sessionId"]
        self.capabilities = value["capabilities"]
        self.ws_url = self.capabilities.get("webSocketUrl")

    def quit(self) -> None:
        if self in LIVE:
            LIVE.remove(self)
        tree = children(self.proc.pid)[1:] if self.proc else []
        if self.session:
            try:
                http_json("DELETE", f"http://127.0.0.1:{self.port}/session/{self.session}", timeout=30)
            except OSError:
                pass
        if self.proc:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            # The browser this driver started, should it outlive the driver: only our own pids.
            for pid in tree:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        shutil.rmtree(self.profile, ignore_errors=True)


class Bidi:
    def __init__(self, ws: Any):
        self.ws = ws
        self.next = 0

    async def call(self, method: str, params: dict) -> dict:
        self.next += 1
        ident = self.next
        await self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(await self.ws.recv())
            if message.get("id") == ident:
                if message.get("type") == "error":
                    raise RuntimeError(f"{method}: {message.get('error')}: {message.get('message')}")
                return message["result"]


async def tab_in(bidi: "Bidi | Mux", url: str, user_context: str | None) -> str:
    params: dict[str, Any] = {"type": "tab"}
    if user_context:
        params["userContext"] = user_context
    context = (await bidi.call("browsingContext.create", params))["context"]
    await bidi.call("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
    return context


async def measure(engine: str, sessions: int, url: str) -> dict[str, Any]:
    report: dict[str, Any] = {"engine": engine}
    first = Driver(engine)
    roots = [first.proc.pid] if first.proc else []
    async with websockets.connect(first.ws_url, max_size=None) as ws:
        bidi = Bidi(ws)
        tree = await bidi.call("browsingContext.getTree", {})
        top = tree["contexts"][0]["context"]
        await bidi.call("browsingContext.navigate", {"context": top, "url": url, "wait": "complete"})
        time.sleep(1)
        base = pss_mib(roots)
        series = [round(base)]
        contexts = []
        for _ in range(sessions - 1):
            user_context = (await bidi.call("browser.createUserContext", {}))["userContext"]
            contexts.append((user_context, await tab_in(bidi, url, user_context)))
            time.sleep(1)
            series.append(round(pss_mib(roots)))
        report["user_contexts_pss_mib"] = series
        report["per_added_user_context_mib"] = round((series[-1] - series[0]) / max(1, sessions - 1), 1)
        # Isolation: each context's page set its own cookie; the default context's is not seen.
        if contexts:
            seen = await bidi.call("script.evaluate", {"expression": "document.cookie", "awaitPromise": False,
                                                         "target": {"context": contexts[0][1]}})
            other = await bidi.call("script.evaluate", {"expression": "document.cookie", "awaitPromise": False,
                                                          "target": {"context": top}})
            report["cookies_differ"] = seen["result"]["value"] != other["result"]["value"]
        if engine == "chromium":
            address = first.capabilities.get("goog:chromeOptions", {}).get("debuggerAddress")
            try:
                second = Driver(engine, {"goog:chromeOptions": {"debuggerAddress": address}}, reuse_port=first.port)
                report["attach_second_session_with_bidi"] = bool(second.ws_url)
                handles = http_json("GET", f"http://127.0.0.1:{first.port}/session/{second.session}/window/handles")
                report["attached_session_sees_windows"] = len(handles["value"])
                http_json("DELETE", f"http://127.0.0.1:{first.port}/session/{second.session}")
            except Exception as error:  # noqa: BLE001 - the probe reports what the driver said
                report["attach_second_session_with_bidi"] = f"refused: {str(error)[:160]}"
        else:
            try:
                Driver(engine, reuse_port=first.port)
                report["second_session_on_one_driver"] = True
            except Exception as error:  # noqa: BLE001
                report["second_session_on_one_driver"] = f"refused: {str(error)[:160]}"
    first.quit()

    # Browsers: one per session.
    drivers: list[Driver] = []
    series = []
    for _ in range(sessions):
        driver = Driver(engine)
        drivers.append(driver)
        async with websockets.connect(driver.ws_url, max_size=None) as ws:
            bidi = Bidi(ws)
            top = (await bidi.call("browsingContext.getTree", {}))["contexts"][0]["context"]
            await bidi.call("browsingContext.navigate", {"context": top, "url": url, "wait": "complete"})
        time.sleep(1)
        series.append(round(pss_mib([d.proc.pid for d in drivers if d.proc])))
    for driver in drivers:
        driver.quit()
    report["browsers_pss_mib"] = series
    report["per_added_browser_mib"] = round((series[-1] - series[0]) / max(1, sessions - 1), 1)
    return report


# --- Throughput -------------------------------------------------------------------------------

READ = "() => document.title + '|' + document.body.innerText.length"
FILL = """(value) => {
  const input = document.querySelector('input[name=n]');
  input.focus();
  input.value = value;
  input.dispatchEvent(new Event('input', {bubbles: true}));
  return document.querySelector('input[name=n]').value;
}"""


class Mux:
    """One BiDi connection; commands from any number of tasks sent at once, answers matched by id."""

    def __init__(self, ws: Any, timeout: float):
        self.ws = ws
        self.timeout = timeout
        self.next = 0
        self.pending: dict[int, asyncio.Future] = {}
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        error: BaseException = ConnectionError("BiDi connection closed")
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                future = self.pending.pop(message.get("id"), None)
                if future is not None and not future.done():
                    future.set_result(message)
        except Exception as failure:  # noqa: BLE001 - handed to every waiting command
            error = failure
        for future in self.pending.values():
            if not future.done():
                future.set_exception(error)
        self.pending.clear()

    async def call(self, method: str, params: dict) -> dict:
        self.next += 1
        ident = self.next
        future = asyncio.get_running_loop().create_future()
        self.pending[ident] = future
        try:
            await asyncio.wait_for(self.ws.send(json.dumps({"id": ident, "method": method, "params": params})),
                                   self.timeout)
            message = await asyncio.wait_for(future, self.timeout)
        finally:
            self.pending.pop(ident, None)
        if message.get("type") == "error" or "error" in message:
            raise RuntimeError(f"{method}: {message.get('error')}: {message.get('message')}")
        return message["result"]

    async def close(self) -> None:
        self.reader.cancel()
        try:
            await asyncio.wait_for(self.ws.close(), 5)
        except Exception:  # noqa: BLE001 - closing what the browser may have closed already
            pass


async def connect(url: str, timeout: float) -> Mux:
    ws = await asyncio.wait_for(websockets.connect(url, max_size=None, ping_interval=None), timeout)
    return Mux(ws, timeout)


async def iteration(mux: Mux, context: str, url: str, tag: str) -> None:
    """One session's unit of work: load the page, read its text and state, fill the form's input."""
    await mux.call("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
    target = {"context": context}
    read = await mux.call("script.callFunction", {"functionDeclaration": READ, "awaitPromise": False,
                                                  "target": target, "resultOwnership": "none"})
    if read.get("type") != "success" or not read["result"].get("value", "").startswith("Session page|"):
        raise RuntimeError(f"read: {str(read)[:200]}")
    fill = await mux.call("script.callFunction", {"functionDeclaration": FILL, "awaitPromise": False,
                                                  "arguments": [{"type": "string", "value": tag}],
                                                  "target": target, "resultOwnership": "none"})
    if fill.get("type") != "success" or fill["result"].get("value") != tag:
        raise RuntimeError(f"fill: {str(fill)[:200]}")


def tree_cpu_s(roots: list[int]) -> float:
    """CPU seconds (user + system) the driver and browser process trees have used so far."""
    ticks = 0
    for root in roots:
        for pid in set(children(root)):
            try:
                fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
                ticks += int(fields[11]) + int(fields[12])
            except (OSError, IndexError, ValueError):
                pass
    return ticks / os.sysconf("SC_CLK_TCK")


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    fields = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


async def drive(sessions: list[tuple[Mux, str]], roots: list[int], url: str, warmup: float,
                window: float) -> dict[str, Any]:
    """Every session loops `iteration` at once; counts the iterations completed inside the window."""
    start = time.monotonic() + warmup
    end = start + window
    counts = [0] * len(sessions)
    latencies: list[float] = []
    marks: dict[str, Any] = {}

    async def mark_start() -> None:
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        marks["cpu"] = cpu_ticks()
        marks["client"] = time.process_time()
        marks["browser"] = tree_cpu_s(roots)

    async def mark_end() -> None:
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        marks["cpu_end"] = cpu_ticks()
        marks["client_end"] = time.process_time()
        marks["browser_end"] = tree_cpu_s(roots)

    async def session(k: int, mux: Mux, context: str) -> None:
        n = 0
        while time.monotonic() < end:
            began = time.monotonic()
            await iteration(mux, context, url, f"session {k} iteration {n}")
            done = time.monotonic()
            n += 1
            if start <= done <= end:
                counts[k] += 1
                if began >= start:
                    latencies.append(done - began)

    await asyncio.gather(mark_start(), mark_end(),
                         *(session(k, mux, context) for k, (mux, context) in enumerate(sessions)))
    busy0, total0 = marks["cpu"]
    # The window closed while the last iterations were in flight: they are not counted.
    busy1, total1 = marks["cpu_end"]
    browser_cpu = marks["browser_end"] - marks["browser"]
    latencies.sort()
    return {
        "iterations": sum(counts),
        "per_session": counts,
        "iterations_per_s": round(sum(counts) / window, 2),
        "p50_ms": round(1000 * statistics.median(latencies)) if latencies else None,
        "p95_ms": round(1000 * latencies[int(0.95 * (len(latencies) - 1))]) if latencies else None,
        "machine_busy": round((busy1 - busy0) / max(1, total1 - total0), 2),
        "client_cpu_s": round(marks["client_end"] - marks["client"], 2),
        # Browser processes that ended inside the window take their CPU time with them: a floor.
        "browser_cpu_ms_per_iteration": round(1000 * browser_cpu / max(1, sum(counts))),
    }


async def browsers_each(engine: str, n: int, url: str, timeout: float, drivers: list[Driver],
                        muxes: list[Mux]) -> tuple[list[tuple[Mux, str]], list[int]]:
    sessions = []
    for _ in range(n):
        driver = await asyncio.to_thread(Driver, engine)
        drivers.append(driver)
        mux = await connect(driver.ws_url, timeout)
        muxes.append(mux)
        top = (await mux.call("browsingContext.getTree", {}))["contexts"][0]["context"]
        sessions.append((mux, top))
    return sessions, [d.proc.pid for d in drivers if d.proc]


ATTACH_TRIES = 5
attach_failures: list[int] = []  # refused attaches of the current point (contexts-attached)
CONTEXT_TYPE = "tab"  # --context-type: what browsingContext.create opens for a further session


async def contexts_in_one(engine: str, n: int, url: str, timeout: float, drivers: list[Driver], muxes: list[Mux],
                          connections: str) -> tuple[list[tuple[Mux, str]], list[int]]:
    """One browser; session 0 in its first tab (default user context), each further session in a
    user context of its own with one tab. `connections`: "one" (every session over one BiDi
    connection), "each" (a connection per session to the same WebDriver session) or "attached"
    (Chromium: a WebDriver session per browser session attached through `debuggerAddress`, so a
    BiDi connection and mapper of its own)."""
    first = await asyncio.to_thread(Driver, engine)
    drivers.append(first)
    first_mux = await connect(first.ws_url, timeout)
    muxes.append(first_mux)
    top = (await first_mux.call("browsingContext.getTree", {}))["contexts"][0]["context"]
    sessions = [(first_mux, top)]
    address = first.capabilities.get("goog:chromeOptions", {}).get("debuggerAddress")
    for _ in range(n - 1):
        if connections == "one":
            mux = first_mux
        elif connections == "each":
            mux = await connect(first.ws_url, timeout)
            muxes.append(mux)
        else:
            # chromedriver 156: an attached session's first window can be another session's
            # "BiDi-CDP Mapper" tab, and attaching with BiDi then fails ("unexpected alert open",
            # no alert on any page), often but not always: tried up to ATTACH_TRIES times.
            for attempt in range(1, ATTACH_TRIES + 1):
                try:
                    attached = await asyncio.to_thread(
                        Driver, engine, {"goog:chromeOptions": {"debuggerAddress": address}}, first.port)
                    break
                except DriverError:
                    attach_failures.append(attempt)
                    if attempt == ATTACH_TRIES:
                        raise
                    await asyncio.sleep(0.5)
            drivers.append(attached)
            mux = await connect(attached.ws_url, timeout)
            muxes.append(mux)
        user_context = (await mux.call("browser.createUserContext", {}))["userContext"]
        context = (await mux.call("browsingContext.create", {"type": CONTEXT_TYPE,
                                                                "userContext": user_context}))["context"]
        sessions.append((mux, context))
    return sessions, [first.proc.pid]


WAYS = {  # name on the command line → (what the table calls it, how its sessions are set up)
    "browsers": ("browser each (today)", lambda e, n, u, t, d, m: browsers_each(e, n, u, t, d, m)),
    "contexts": ("user contexts, one connection", lambda e, n, u, t, d, m: contexts_in_one(e, n, u, t, d, m, "one")),
    "contexts-conns": ("user contexts, a connection each",
                       lambda e, n, u, t, d, m: contexts_in_one(e, n, u, t, d, m, "each")),
    "contexts-attached": ("user contexts, an attached session each",
                          lambda e, n, u, t, d, m: contexts_in_one(e, n, u, t, d, m, "attached")),
}


async def throughput_point(engine: str, way: str, n: int, url: str, warmup: float, window: float,
                           timeout: float) -> dict[str, Any]:
    drivers: list[Driver] = []
    muxes: list[Mux] = []
    attach_failures.clear()
    try:
        sessions, roots = await asyncio.wait_for(WAYS[way][1](engine, n, url, timeout, drivers, muxes), 60 + 30 * n)
        # Every session's tab on the page once before the clock starts.
        await asyncio.gather(*(iteration(mux, context, url, "warm") for mux, context in sessions))
        visibility: dict[str, int] = {}
        for mux, context in sessions:
            state = (await mux.call("script.evaluate", {"expression": "document.visibilityState", "awaitPromise": False,
                                                        "target": {"context": context}}))["result"].get("value")
            visibility[state] = visibility.get(state, 0) + 1
        result = await asyncio.wait_for(drive(sessions, roots, url, warmup, window), warmup + window + 3 * timeout)
        result["pss_mib"] = round(pss_mib(roots))
        extra: dict[str, Any] = {"context_type": CONTEXT_TYPE} if way != "browsers" else {}
        if way == "contexts-attached":
            extra["refused_attaches"] = len(attach_failures)
        return {"engine": engine, "way": way, "sessions": n, **result, "tabs_visibility": visibility, **extra}
    finally:
        for mux in muxes:
            await mux.close()
        for driver in reversed(drivers):
            await asyncio.to_thread(driver.quit)


async def throughput(engine: str, points: list[int], ways: list[str], url: str, warmup: float, window: float,
                     timeout: float) -> list[dict[str, Any]]:
    rows = []
    for n in points:  # the ways interleaved, so that the machine's drift touches them alike
        for way in ways:
            if way == "contexts-attached" and engine != "chromium":
                continue
            try:
                row = await throughput_point(engine, way, n, url, warmup, window, timeout)
            except Exception as error:  # noqa: BLE001 - a point that fails is reported, the rest still run
                row = {"engine": engine, "way": way, "sessions": n, "error": f"{type(error).__name__}: {error}"[:300]}
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


async def spin(engine: str, url: str, seconds: float, timeout: float) -> dict[str, Any]:
    """Commands to one user context's tab while another context's page spins (see the docstring)."""
    driver = Driver(engine)
    mux = None
    try:
        mux = await connect(driver.ws_url, max(timeout, seconds * 3))
        tabs = []
        for _ in range(2):
            user_context = (await mux.call("browser.createUserContext", {}))["userContext"]
            tabs.append(await tab_in(mux, url, user_context))
        spinning, other = tabs
        busy = f"const end = Date.now() + {int(seconds * 1000)}; while (Date.now() < end) {{}} 1"
        held = asyncio.get_running_loop().create_task(mux.call(
            "script.evaluate", {"expression": busy, "awaitPromise": False, "target": {"context": spinning}}))
        await asyncio.sleep(0.3)
        click = [{"type": "pointer", "id": "mouse", "actions": [
            {"type": "pointerMove", "x": 20, "y": 20}, {"type": "pointerDown", "button": 0},
            {"type": "pointerUp", "button": 0}]}]
        probes = [
            ("script", "script.evaluate", {"expression": "1 + 1", "awaitPromise": False, "target": {"context": other}}),
            ("screenshot", "browsingContext.captureScreenshot", {"context": other}),
            ("click", "input.performActions", {"context": other, "actions": click}),
            ("navigate", "browsingContext.navigate", {"context": other, "url": url + "?again", "wait": "complete"}),
        ]
        took: dict[str, Any] = {"engine": engine, "spin_s": seconds}
        for name, method, params in probes:
            started = time.monotonic()
            await mux.call(method, params)
            took[f"{name}_ms"] = round((time.monotonic() - started) * 1000, 1)
        took["spinning_page_still_busy"] = not held.done()
        await held
        return took
    finally:
        if mux is not None:
            await mux.close()
        driver.quit()


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| engine | way | sessions | iterations/s | speed-up | p50 / p95 ms | browser CPU ms/iteration "
             "| machine busy | PSS MiB |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    base: dict[tuple[str, str], float] = {}
    for row in sorted(rows, key=lambda r: (r["engine"], list(WAYS).index(r["way"]), r["sessions"])):
        key = (row["engine"], row["way"])
        if "error" in row:
            lines.append(f"| {row['engine']} | {WAYS[row['way']][0]} | {row['sessions']} | failed: {row['error'][:80]} | | | | | |")
            continue
        if row["sessions"] == 1:
            base[key] = row["iterations_per_s"]
        speed = f"{row['iterations_per_s'] / base[key]:.2f}×" if base.get(key) else "–"
        lines.append(f"| {row['engine']} | {WAYS[row['way']][0]} | {row['sessions']} | {row['iterations_per_s']:.1f} | {speed} "
                     f"| {row['p50_ms']} / {row['p95_ms']} | {row['browser_cpu_ms_per_iteration']} "
                     f"| {row['machine_busy']:.0%} | {row['pss_mib']:,} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=["chromium", "firefox", "both"], default="both")
    parser.add_argument("--sessions", type=int, default=8, help="memory: sessions added one by one")
    parser.add_argument("--throughput", action="store_true", help="measure throughput at --points sessions instead")
    parser.add_argument("--points", default="1,2,4,8", help="throughput: session counts, comma-separated")
    parser.add_argument("--window", type=float, default=10.0, help="throughput: seconds counted per point")
    parser.add_argument("--warmup", type=float, default=3.0, help="throughput: seconds run, not counted, first")
    parser.add_argument("--timeout", type=float, default=30.0, help="throughput: seconds any one BiDi command may take")
    parser.add_argument("--ways", default=",".join(WAYS),
                        help=f"throughput: which ways, comma-separated, of {', '.join(WAYS)}")
    parser.add_argument("--context-type", choices=["tab", "window"], default="tab",
                        help="throughput: a further session's user context gets a tab (Firefox opens it in "
                             "the background: hidden) or a window of its own")
    parser.add_argument("--spin", action="store_true",
                        help="time commands to one user context while another context's page spins")
    parser.add_argument("--spin-seconds", type=float, default=8.0, help="spin: how long the page holds its thread")
    args = parser.parse_args()
    global CONTEXT_TYPE
    CONTEXT_TYPE = args.context_type
    url = serve()
    engines = ["chromium", "firefox"] if args.engine == "both" else [args.engine]
    try:
        if args.spin:
            for engine in engines:
                print(json.dumps(asyncio.run(spin(engine, url, args.spin_seconds, args.timeout))), flush=True)
            return
        if not args.throughput:
            for engine in engines:
                print(json.dumps(asyncio.run(measure(engine, args.sessions, url))), flush=True)
            return
        points = [int(p) for p in args.points.split(",")]
        ways = [w.strip() for w in args.ways.split(",")]
        for way in ways:
            if way not in WAYS:
                parser.error(f"unknown way {way!r}; known: {', '.join(WAYS)}")
        rows = []
        for engine in engines:
            rows += asyncio.run(throughput(engine, points, ways, url, args.warmup, args.window, args.timeout))
        print(table(rows), flush=True)
    finally:
        for driver in list(LIVE):
            driver.quit()


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    main()
