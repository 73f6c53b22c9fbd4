#!/usr/bin/env python3
"""What WebDriver BiDi alone can reach: popups, pages under a dialog, classic element ids.

    bidi_reach.py [--engine chromium|firefox|both]

A user context per session in one shared browser (issue 32, item 3) needs every per-tab command
addressed to its browsing context, as BiDi does, instead of to the classic session's current
window. This probe checks the three places where that could fail, on each engine: the driver
and one browser with BiDi (`webSocketUrl`) and `unhandledPromptBehavior: ignore`, as the
adapter starts them, a page served on 127.0.0.1 with two buttons, clicked with BiDi
`input.performActions` (trusted):

* **popup**: a button runs `window.open('/child', '_blank')` (the popup keeps its opener); the
  probe waits for `contextCreated`, then asks the popup for `location.href` in its page realm
  and in a sandbox, and for a screenshot; then again after classic `GET window/handles`, after
  `browsingContext.activate` and after a classic switch and script in the popup;
* **dialog**: a button runs `alert()`; with the alert open the probe asks the page for
  `location.href` in its page realm and in a sandbox and for a screenshot, then accepts the
  alert with `browsingContext.handleUserPrompt`;
* **element ids**: a classic Find Element id used as a BiDi `sharedId`, and a BiDi `sharedId`
  used in classic Get Element Tag Name.

Every BiDi command gives up after a few seconds ("timeout" below: no answer at all). Prints one
line per check and engine. Needs chromedriver / geckodriver and the browsers on PATH, and the
`websockets` package (see `scripts/bench/user_contexts.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import user_contexts as uc  # noqa: E402  (the driver launcher and PSS helpers of the bench)

PAGES = {
    "/": b"<!doctype html><title>top</title><button id=pop onclick=\"window.open('/child','_blank')\">pop</button>"
         b"<button id=alert onclick=\"alert('hi')\">alert</button><p id=text>top</p>",
    "/child": b"<!doctype html><title>child</title><p>child page</p>",
}


def serve() -> str:
    """The probe's pages on 127.0.0.1; answers the base URL."""
    return uc.serve_pages(lambda path: PAGES.get(path, b"not found"))


class Mux:
    """One BiDi connection: answers matched by id, events kept."""

    def __init__(self, ws: Any):
        self.ws = ws
        self.next = 0
        self.pending: dict[int, asyncio.Future] = {}
        self.events: list[dict] = []
        self.reader = asyncio.ensure_future(self.read())

    async def read(self) -> None:
        async for raw in self.ws:
            message = json.loads(raw)
            waiter = self.pending.pop(message.get("id"), None)
            if waiter is not None and not waiter.done():
                waiter.set_result(message)
            elif message.get("type") == "event":
                self.events.append(message)

    async def call(self, method: str, params: dict, timeout: float = 4.0) -> str:
        """`ok <ms>`, `error <code> <ms>` or `timeout <ms>` (and the value, for scripts)."""
        self.next += 1
        waiter = asyncio.get_running_loop().create_future()
        self.pending[self.next] = waiter
        started = time.monotonic()
        await self.ws.send(json.dumps({"id": self.next, "method": method, "params": params}))
        try:
            answer = await asyncio.wait_for(waiter, timeout)
        except asyncio.TimeoutError:
            return f"timeout {round((time.monotonic() - started) * 1000)} ms"
        ms = round((time.monotonic() - started) * 1000)
        if answer.get("type") != "success":
            return f"error {answer.get('error')} {ms} ms"
        value = answer["result"].get("result", {}).get("value") if isinstance(answer.get("result"), dict) else None
        return f"ok {ms} ms" + (f" ({value})" if value is not None else "")

    async def value(self, method: str, params: dict) -> dict:
        self.next += 1
        waiter = asyncio.get_running_loop().create_future()
        self.pending[self.next] = waiter
        await self.ws.send(json.dumps({"id": self.next, "method": method, "params": params}))
        answer = await asyncio.wait_for(waiter, 10)
        if answer.get("type") != "success":
            raise RuntimeError(f"{method}: {answer.get('error')}: {answer.get('message')}")
        return answer["result"]


def href(context: str, sandbox: str | None = None) -> dict:
    target: dict[str, Any] = {"context": context}
    if sandbox:
        target["sandbox"] = sandbox
    return {"functionDeclaration": "() => location.href", "target": target, "awaitPromise": False}


async def click(bidi: Mux, context: str, selector: str) -> str:
    found = await bidi.value("script.callFunction", {
        "functionDeclaration": f"() => document.querySelector('{selector}')",
        "target": {"context": context}, "awaitPromise": False})
    element = {"sharedId": found["result"]["sharedId"]}
    return await bidi.call("input.performActions", {"context": context, "actions": [{
        "type": "pointer", "id": "mouse", "actions": [
            {"type": "pointerMove", "x": 0, "y": 0, "origin": {"type": "element", "element": element}},
            {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})


async def probe(engine: str, base: str) -> None:
    def say(check: str, what: str) -> None:
        print(f"[{engine}] {check}: {what}", flush=True)

    plain = uc.http_json

    def with_ignore(method: str, url: str, body: Any = None, timeout: float = 60) -> Any:
        if body and "capabilities" in body:
            body["capabilities"]["alwaysMatch"]["unhandledPromptBehavior"] = "ignore"
        return plain(method, url, body, timeout)

    uc.http_json = with_ignore
    try:
        driver = uc.Driver(engine)
    finally:
        uc.http_json = plain

    def classic(method: str, path: str, body: Any = None) -> Any:
        try:
            return plain(method, f"http://127.0.0.1:{driver.port}/session/{driver.session}/{path}", body, 10)["value"]
        except OSError as error:
            return f"error {str(error)[:100]}"

    try:
        async with websockets.connect(driver.ws_url, max_size=None) as ws:
            bidi = Mux(ws)
            await bidi.value("session.subscribe", {"events": ["browsingContext.contextCreated"]})
            top = (await bidi.value("browsingContext.getTree", {}))["contexts"][0]["context"]
            await bidi.value("browsingContext.navigate", {"context": top, "url": base + "/", "wait": "complete"})

            found = classic("POST", "element", {"using": "css selector", "value": "#text"})
            classic_id = next(iter(found.values())) if isinstance(found, dict) else None
            say("element ids: classic id as sharedId", await bidi.call("script.callFunction", {
                "functionDeclaration": "(e) => e.textContent", "arguments": [{"sharedId": classic_id}],
                "target": {"context": top}, "awaitPromise": False}))
            shared = (await bidi.value("script.callFunction", {
                "functionDeclaration": "() => document.querySelector('#pop')",
                "target": {"context": top}, "awaitPromise": False}))["result"]["sharedId"]
            say("element ids: sharedId in classic Get Element Tag Name", str(classic("GET", f"element/{shared}/name")))

            say("popup: trusted click on window.open", await click(bidi, top, "#pop"))
            await asyncio.sleep(1.0)
            popups = [e["params"]["context"] for e in bidi.events
                      if e["method"] == "browsingContext.contextCreated" and e["params"].get("originalOpener")]
            if not popups:
                say("popup", "no contextCreated with an opener within 1 s")
            else:
                popup = popups[-1]
                say("popup: page realm", await bidi.call("script.callFunction", href(popup)))
                say("popup: sandbox", await bidi.call("script.callFunction", href(popup, "probe")))
                say("popup: screenshot", await bidi.call("browsingContext.captureScreenshot", {"context": popup}))
                classic("GET", "window/handles")
                say("popup: page realm after classic window/handles", await bidi.call("script.callFunction", href(popup)))
                await bidi.call("browsingContext.activate", {"context": popup})
                say("popup: page realm after activate", await bidi.call("script.callFunction", href(popup)))
                classic("POST", "window", {"handle": popup})
                seen = classic("POST", "execute/sync", {"script": "return location.href", "args": []})
                say("popup: classic switch and script", str(seen))
                say("popup: page realm after the classic switch", await bidi.call("script.callFunction", href(popup)))
                classic("POST", "window", {"handle": top})
                await bidi.call("browsingContext.close", {"context": popup})

            say("dialog: trusted click on alert()", await click(bidi, top, "#alert"))
            say("dialog: page realm", await bidi.call("script.callFunction", href(top)))
            say("dialog: sandbox", await bidi.call("script.callFunction", href(top, "probe")))
            say("dialog: screenshot", await bidi.call("browsingContext.captureScreenshot", {"context": top}))
            say("dialog: handleUserPrompt accept", await bidi.call(
                "browsingContext.handleUserPrompt", {"context": top, "accept": True}))
            say("dialog: page realm after", await bidi.call("script.callFunction", href(top)))
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=["chromium", "firefox", "both"], default="both")
    args = parser.parse_args()
    base = serve()
    try:
        for engine in ["chromium", "firefox"] if args.engine == "both" else [args.engine]:
            asyncio.run(probe(engine, base))
    finally:
        for driver in list(uc.LIVE):
            driver.quit()


if __name__ == "__main__":
    main()
