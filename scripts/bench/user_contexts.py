#!/usr/bin/env python3
"""What a session costs in memory: a browser of its own, or a BiDi user context in a shared one.

    user_contexts.py [--engine chromium|firefox] [--sessions 8]

For each engine: starts the driver and one browser (WebDriver session with `webSocketUrl`),
serves a fixture page on 127.0.0.1, loads it in the first tab, then adds sessions the two ways
and prints the browser's proportional memory (PSS of the driver and browser process trees, from
/proc/*/smaps_rollup) after each:

* user contexts: `browser.createUserContext`, `browsingContext.create {type: tab, userContext}`
  and `browsingContext.navigate` to the page (wait: complete), in the one browser;
* browsers: a new driver and browser per session, the page loaded in its first tab (what the
  `ghostlight-mcp` binary does today over HTTP).

Also probes whether a second chromedriver session can attach to the running browser
(`goog:chromeOptions.debuggerAddress`) with BiDi, which per-session classic commands on a
shared browser would need, and checks the isolation the split gives (a cookie set in one
context is not seen in another).

Needs: chromedriver / geckodriver and the browsers on PATH, and the `websockets` package
(`python3 -m venv /tmp/bidi-venv && /tmp/bidi-venv/bin/pip install websockets`).
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from typing import Any

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


def serve() -> str:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/page"


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


def http_json(method: str, url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


class Driver:
    """A driver process and one WebDriver session with BiDi."""

    def __init__(self, engine: str, capabilities_extra: dict | None = None, reuse_port: int | None = None):
        self.engine = engine
        self.profile = tempfile.mkdtemp(prefix="gl-uc-")
        self.port = reuse_port or free_port()
        self.proc = None
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
        try:
            http_json("DELETE", f"http://127.0.0.1:{self.port}/session/{self.session}")
        except OSError:
            pass
        if self.proc:
            self.proc.terminate()
            self.proc.wait(timeout=10)
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


async def tab_in(bidi: Bidi, url: str, user_context: str | None) -> str:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=["chromium", "firefox", "both"], default="both")
    parser.add_argument("--sessions", type=int, default=8)
    args = parser.parse_args()
    url = serve()
    engines = ["chromium", "firefox"] if args.engine == "both" else [args.engine]
    for engine in engines:
        print(json.dumps(asyncio.run(measure(engine, args.sessions, url))), flush=True)


if __name__ == "__main__":
    main()
