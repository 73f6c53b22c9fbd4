#!/usr/bin/env python3
"""What a session that speaks only WebDriver BiDi can do, in a user context of a shared browser.

    bidi_only_session.py [--engine chromium|firefox|both]

Firefox keeps a browser per Ghostlight session because geckodriver allows one WebDriver
session per browser (issue 32, item 3; BENCHMARKS.md: a user context costs about 12 MiB where a
browser costs about 300). Sessions sharing one Firefox would share that WebDriver session, so
every command of theirs must address its browsing context itself, as BiDi commands do, and
none may go over classic WebDriver (whose current window is the session's). This probe tries
each operation the adapter needs, over BiDi only, in a tab of a user context of its own (the
way a second session would live), against pages served on 127.0.0.1:

* network authority per session: a user context created with its own HTTP proxy
  (`browser.createUserContext {proxy}`), whose requests must reach that proxy (a fake one here
  that records request lines) and not the site;
* navigation (`browsingContext.navigate`, wait complete), history (`traverseHistory`),
  reload;
* scripts in the page realm and in a sandbox; trusted pointer and key input
  (`input.performActions`); files (`input.setFiles`);
* screenshots of the viewport, the whole document (`origin: document`) and a clip; the
  viewport's size (`browsingContext.setViewport`) and the window's (`browser.setClientWindowState`);
* dialogs: an alert announced (`userPromptOpened`, with the user context) and accepted
  (`handleUserPrompt`); a prompt answered with text; a leave-page prompt a navigation raises;
* a popup a click opens (`contextCreated` with the user context and `originalOpener`);
* cookies in the user context's partition (`storage.setCookie`, `storage.getCookies`);
* a page that never yields: whether a navigation, or closing the tab, still answers while a
  script spins (BiDi has no script timeout: a client must bound its own commands).

Every command gives up after a few seconds ("timeout": no answer). Prints one line per check.
Needs chromedriver / geckodriver and the browsers on PATH, and the `websockets` package (see
`scripts/bench/user_contexts.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import socket
import struct
import sys
import threading
import zlib
from pathlib import Path
from typing import Any

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import user_contexts as uc  # noqa: E402  (the driver launcher of the bench)
from bidi_reach import Mux  # noqa: E402  (one BiDi connection, answers by id, events kept)

PAGES = {
    "/": b"<!doctype html><title>top</title><style>body{margin:0}</style>"
         b"<button id=count onclick=\"this.dataset.n = (+this.dataset.n || 0) + 1\">count</button>"
         b"<input id=field><input id=file type=file>"
         b"<button id=alert onclick=\"alert('hi')\">alert</button>"
         b"<button id=ask onclick=\"document.title = prompt('name?')\">ask</button>"
         b"<button id=pop onclick=\"window.open('/child','_blank')\">pop</button>"
         b"<button id=arm onclick=\"onbeforeunload = (e) => { e.preventDefault(); e.returnValue = ''; }\">arm</button>"
         b"<div style='height:3000px'>tall</div>",
    "/child": b"<!doctype html><title>child</title><p>child page</p>",
    "/next": b"<!doctype html><title>next</title><p>next page</p>",
}
PROXIED = b"<!doctype html><title>through the proxy</title><p>proxied</p>"


def fake_proxy() -> tuple[int, list[str]]:
    """A proxy on 127.0.0.1 that records each request line and answers a page itself."""
    seen: list[str] = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)

    def serve() -> None:
        while True:
            connection, _ = listener.accept()
            with connection:
                head = connection.recv(65536).decode("latin-1")
                seen.append(head.split("\r\n", 1)[0])
                connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\n"
                                   + f"content-length: {len(PROXIED)}\r\n\r\n".encode() + PROXIED)

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1], seen


def png_size(data: str) -> tuple[int, int]:
    raw = base64.b64decode(data)
    return struct.unpack(">II", raw[16:24])


def script(context: str, body: str, sandbox: str | None = None, gesture: bool = False) -> dict:
    target: dict[str, Any] = {"context": context}
    if sandbox:
        target["sandbox"] = sandbox
    params: dict[str, Any] = {"functionDeclaration": body, "target": target, "awaitPromise": True}
    if gesture:
        params["userActivation"] = True
    return params


async def element(bidi: Mux, context: str, selector: str) -> dict:
    found = await bidi.value("script.callFunction", script(context, f"() => document.querySelector('{selector}')"))
    return {"sharedId": found["result"]["sharedId"]}


async def click(bidi: Mux, context: str, selector: str) -> str:
    origin = {"type": "element", "element": await element(bidi, context, selector)}
    return await bidi.call("input.performActions", {"context": context, "actions": [{
        "type": "pointer", "id": "mouse", "actions": [
            {"type": "pointerMove", "x": 0, "y": 0, "origin": origin},
            {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})


async def read(bidi: Mux, context: str, expression: str, sandbox: str | None = None) -> Any:
    answer = await bidi.value("script.callFunction", script(context, f"() => {expression}", sandbox))
    return answer.get("result", {}).get("value")


async def probe(engine: str, base: str) -> None:
    def say(check: str, what: Any) -> None:
        print(f"[{engine}] {check}: {what}", flush=True)

    plain = uc.http_json

    def with_ignore(method: str, url: str, body: Any = None, timeout: float = 60) -> Any:
        if body and "capabilities" in body:
            body["capabilities"]["alwaysMatch"]["unhandledPromptBehavior"] = {
                "default": "ignore", "beforeUnload": "ignore"}
        return plain(method, url, body, timeout)

    uc.http_json = with_ignore
    try:
        driver = uc.Driver(engine)
    finally:
        uc.http_json = plain
    try:
        async with websockets.connect(driver.ws_url, max_size=None) as ws:
            bidi = Mux(ws)
            await bidi.value("session.subscribe", {"events": [
                "browsingContext.contextCreated", "browsingContext.userPromptOpened",
                "browsingContext.userPromptClosed"]})

            # Network authority per session: the user context's own proxy.
            proxy_port, proxied = fake_proxy()
            proxy = {"proxyType": "manual", "httpProxy": f"127.0.0.1:{proxy_port}", "sslProxy": f"127.0.0.1:{proxy_port}"}
            made = await bidi.call("browser.createUserContext", {"proxy": proxy})
            say("user context with its own proxy", made)
            if made.startswith("ok"):
                contexts = (await bidi.value("browser.getUserContexts", {}))["userContexts"]
                proxied_context = contexts[-1]["userContext"]
                tab = (await bidi.value("browsingContext.create", {"type": "tab", "userContext": proxied_context}))["context"]
                went = await bidi.call("browsingContext.navigate", {"context": tab, "url": "http://probe.test/page", "wait": "complete"}, 8)
                say("  navigate a non-loopback host", f"{went}; the proxy saw {proxied}")
                proxied.clear()
                went = await bidi.call("browsingContext.navigate", {"context": tab, "url": base + "/", "wait": "complete"}, 8)
                say("  navigate 127.0.0.1", f"{went}; the proxy saw {proxied}")
                await bidi.call("browser.removeUserContext", {"userContext": proxied_context})

            seat = (await bidi.value("browser.createUserContext", {}))["userContext"]
            tab = (await bidi.value("browsingContext.create", {"type": "tab", "userContext": seat}))["context"]
            say("navigate", await bidi.call("browsingContext.navigate", {"context": tab, "url": base + "/", "wait": "complete"}))
            say("script, page realm", await bidi.call("script.callFunction", script(tab, "() => document.title")))
            say("script, sandbox", await bidi.call("script.callFunction", script(tab, "() => document.title", "gl")))

            say("trusted click", await click(bidi, tab, "#count"))
            say("  the page counted", await read(bidi, tab, "document.querySelector('#count').dataset.n"))
            await click(bidi, tab, "#field")
            keys = [a for ch in "abc" for a in ({"type": "keyDown", "value": ch}, {"type": "keyUp", "value": ch})]
            say("typed keys", await bidi.call("input.performActions", {"context": tab, "actions": [
                {"type": "key", "id": "keyboard", "actions": keys}]}))
            say("  the field holds", await read(bidi, tab, "document.querySelector('#field').value"))
            say("release actions", await bidi.call("input.releaseActions", {"context": tab}))
            upload = Path("/tmp/gl-bidi-probe.txt")
            upload.write_text("probe file\n")
            say("setFiles", await bidi.call("input.setFiles", {
                "context": tab, "element": await element(bidi, tab, "#file"), "files": [str(upload)]}))
            say("  the input holds", await read(bidi, tab, "[...document.querySelector('#file').files].map(f => f.name + ':' + f.size)"))

            shot = await bidi.value("browsingContext.captureScreenshot", {"context": tab})
            say("screenshot, viewport", png_size(shot["data"]))
            shot = await bidi.value("browsingContext.captureScreenshot", {"context": tab, "origin": "document"})
            say("screenshot, whole document", png_size(shot["data"]))
            shot = await bidi.value("browsingContext.captureScreenshot", {"context": tab, "clip": {
                "type": "element", "element": await element(bidi, tab, "#count")}})
            say("screenshot, an element", png_size(shot["data"]))
            say("setViewport 800x600", await bidi.call("browsingContext.setViewport", {
                "context": tab, "viewport": {"width": 800, "height": 600}}))
            say("  innerWidth x innerHeight", await read(bidi, tab, "[innerWidth, innerHeight]"))
            await bidi.call("browsingContext.setViewport", {"context": tab, "viewport": None})
            windows = await bidi.call("browser.getClientWindows", {})
            say("getClientWindows", windows)
            if windows.startswith("ok"):
                tree = await bidi.value("browsingContext.getTree", {"root": tab, "maxDepth": 0})
                window = tree["contexts"][0].get("clientWindow")
                say("setClientWindowState 1000x700", await bidi.call("browser.setClientWindowState", {
                    "clientWindow": window, "state": "normal", "width": 1000, "height": 700}))
                say("  outerWidth x outerHeight", await read(bidi, tab, "[outerWidth, outerHeight]"))

            bidi.events.clear()
            await click(bidi, tab, "#alert")
            await asyncio.sleep(0.3)
            opened = [e["params"] for e in bidi.events if e["method"] == "browsingContext.userPromptOpened"]
            say("alert announced", [(p.get("type"), p.get("context") == tab, p.get("userContext", "-") == seat) for p in opened])
            say("  a page read meanwhile", await bidi.call("script.callFunction", script(tab, "() => 1"), 2))
            say("  accept", await bidi.call("browsingContext.handleUserPrompt", {"context": tab, "accept": True}))
            await click(bidi, tab, "#ask")
            await asyncio.sleep(0.3)
            say("prompt answered with text", await bidi.call("browsingContext.handleUserPrompt", {
                "context": tab, "accept": True, "userText": "Ada"}))
            say("  the page got", await read(bidi, tab, "document.title"))

            bidi.events.clear()
            await click(bidi, tab, "#pop")
            await asyncio.sleep(1.0)
            made = [e["params"] for e in bidi.events if e["method"] == "browsingContext.contextCreated"]
            say("popup announced", [(p.get("userContext") == seat, p.get("originalOpener") == tab) for p in made])
            for popup in made:
                say("  popup script", await bidi.call("script.callFunction", script(popup["context"], "() => location.pathname"), 3))
                await bidi.call("browsingContext.close", {"context": popup["context"]})

            say("setCookie", await bidi.call("storage.setCookie", {
                "cookie": {"name": "sid", "value": {"type": "string", "value": "seat"}, "domain": "127.0.0.1"},
                "partition": {"type": "storageKey", "userContext": seat}}))
            cookies = await bidi.value("storage.getCookies", {"partition": {"type": "storageKey", "userContext": seat}})
            say("  getCookies (seat)", [c["name"] for c in cookies["cookies"]])
            cookies = await bidi.value("storage.getCookies", {"partition": {"type": "storageKey", "userContext": "default"}})
            say("  getCookies (default)", [c["name"] for c in cookies["cookies"]])

            say("navigate on", await bidi.call("browsingContext.navigate", {"context": tab, "url": base + "/next", "wait": "complete"}))
            say("traverseHistory -1", await bidi.call("browsingContext.traverseHistory", {"context": tab, "delta": -1}))
            await asyncio.sleep(0.3)
            say("  the page", await read(bidi, tab, "location.pathname"))
            say("reload", await bidi.call("browsingContext.reload", {"context": tab, "wait": "complete"}))

            await click(bidi, tab, "#arm")
            bidi.events.clear()
            leaving = asyncio.ensure_future(bidi.call("browsingContext.navigate", {
                "context": tab, "url": base + "/next", "wait": "complete"}, 6))
            await asyncio.sleep(0.8)
            opened = [e["params"].get("type") for e in bidi.events if e["method"] == "browsingContext.userPromptOpened"]
            say("leave-page prompt a navigation raises", opened)
            say("  dismiss", await bidi.call("browsingContext.handleUserPrompt", {"context": tab, "accept": False}))
            say("  the navigation answered", await leaving)
            say("  the page", await read(bidi, tab, "location.pathname"))
            await bidi.call("script.callFunction", script(tab, "() => { onbeforeunload = null; }"))

            spin = asyncio.ensure_future(bidi.call("script.evaluate", {
                "expression": "while (true) {}", "target": {"context": tab}, "awaitPromise": False}, 30))
            await asyncio.sleep(0.5)
            say("a page that never yields: navigate it", await bidi.call("browsingContext.navigate", {
                "context": tab, "url": base + "/next", "wait": "complete"}, 10))
            say("  the spinning script answered", await asyncio.wait_for(spin, 30) if spin.done() else "not yet")
            say("  close the tab", await bidi.call("browsingContext.close", {"context": tab, "promptUnload": False}, 10))
            say("  the spinning script answered", await asyncio.wait_for(spin, 12))
            say("remove the user context", await bidi.call("browser.removeUserContext", {"userContext": seat}, 10))
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=["chromium", "firefox", "both"], default="firefox")
    args = parser.parse_args()
    base = uc.serve_pages(lambda path: PAGES.get(path.split("?")[0], b"not found"))
    try:
        for engine in ["chromium", "firefox"] if args.engine == "both" else [args.engine]:
            asyncio.run(probe(engine, base))
    finally:
        for driver in list(uc.LIVE):
            driver.quit()


if __name__ == "__main__":
    main()
