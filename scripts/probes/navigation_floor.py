#!/usr/bin/env python3
"""The floor of a WebDriver navigation: a bare client's page load and its first scripts.

    navigation_floor.py [padding]

Starts chromedriver and headless Chromium (the adapter's flags, a fresh profile), serves a small
page on 127.0.0.1, then 15 times: `POST /url` to it (a new query each time), one Execute Script
reading `document.readyState`, `location.href` and `document.title`, and the same script again.
Prints the medians: the navigation, the first script in the new document (which pays for the
document's new script context) and the second. `padding` adds that many characters of comment
to the script (its size barely matters). Ghostlight's `browser_navigate` is a navigation and one
page read after it (plus a read before it unless the executor has just read the page), so these
medians are what any WebDriver client pays for "open a page and look at it".

Needs chromedriver and chromium on PATH; standard library only.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

PAGE = b"<!doctype html><title>t</title><p>hello " + b"x" * 2000
ARGS = ["--headless=new", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-quic", "--no-first-run"]
LOADS = 15


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve() -> str:
    """The page on 127.0.0.1; answers its URL."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


def main() -> None:
    padding = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    site = serve()
    port = free_port()
    driver = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)

    def command(method: str, path: str, body: object = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                         headers={"content-type": "application/json"})
        return json.loads(urllib.request.urlopen(request, timeout=60).read())

    for _ in range(100):
        try:
            command("GET", "/status")
            break
        except OSError:
            time.sleep(0.1)
    args = ARGS + [f"--user-data-dir={tempfile.mkdtemp(prefix='gl-nav-floor-')}"]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    capabilities = {"browserName": "chrome", "goog:chromeOptions": {"args": args}, "pageLoadStrategy": "normal"}
    session = command("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})["value"]["sessionId"]
    script = "return [document.readyState, location.href, document.title];/*" + "y" * padding + "*/"
    try:
        rows = []
        for i in range(LOADS):
            started = time.perf_counter()
            command("POST", f"/session/{session}/url", {"url": f"{site}?{i}"})
            loaded = time.perf_counter()
            command("POST", f"/session/{session}/execute/sync", {"script": script, "args": []})
            first = time.perf_counter()
            command("POST", f"/session/{session}/execute/sync", {"script": script, "args": []})
            second = time.perf_counter()
            rows.append(((loaded - started) * 1000, (first - loaded) * 1000, (second - first) * 1000))
        medians = [statistics.median(row[k] for row in rows) for k in range(3)]
        print("navigation %.2f ms, first script %.2f ms, second script %.2f ms (medians of %d)"
              % (*medians, LOADS))
    finally:
        command("DELETE", f"/session/{session}")
        driver.kill()


if __name__ == "__main__":
    main()
