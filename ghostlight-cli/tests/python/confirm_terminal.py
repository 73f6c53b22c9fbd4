#!/usr/bin/env python3
"""`ghostlight call` asks the person on its controlling terminal: the real binary under a
pseudo-terminal (Python's `pty`), answering `y`, `n` and end of input, and once without any
terminal.

    confirm_terminal.py --ghostlight PATH/ghostlight --url URL [-- CALL ARGS...]

The configuration given in CALL ARGS asks for `[confirm] actions = ["new_host"]`, so the
first `browser_navigate` to URL's host asks. Checks, by the envelope printed with --json:

* `y` on the terminal: the question names the tool, the action and the host; `succeeded`;
* `n`: `blocked`, reason `declined`, effect `none`;
* end of input (Ctrl-D): `blocked`, reason `declined`;
* no terminal at all (a new session, pipes only): nothing asked, `attention_required`, reason
  `confirmation_unavailable`.

Prints one JSON report on stdout ({"ok": bool, "checks": [...], "failed": {...}}).
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import subprocess
import sys
import time
from typing import Any


class Failure(Exception):
    """A check failed."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


def envelope_in(text: str) -> dict[str, Any]:
    start, end = text.find("{"), text.rfind("}")
    check(start >= 0 and end > start, f"no JSON envelope in the output: {text[-2000:]!r}")
    return json.loads(text[start : end + 1])


def under_pty(command: list[str], reply: bytes | None, timeout: float = 90.0) -> tuple[str, str, int]:
    """Run `command` with a pseudo-terminal as its controlling terminal; when the prompt
    appears, type `reply` (None: end of input). Returns (prompt text, output after it, exit)."""
    pid, master = pty.fork()
    if pid == 0:
        os.execv(command[0], command)
    seen = b""
    prompt = b""
    answered = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
        if not answered and b"[y/N]" in seen:
            prompt, seen = seen, b""
            answered = True
            os.write(master, (reply + b"\r") if reply is not None else b"\x04")
    _, status = os.waitpid(pid, 0)
    os.close(master)
    return prompt.decode(errors="replace"), seen.decode(errors="replace"), os.waitstatus_to_exitcode(status)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ghostlight", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("call_args", nargs="*")
    args = parser.parse_args()
    host = args.url.split("://", 1)[1].split("/", 1)[0]
    command = [args.ghostlight, "call", "browser_navigate", json.dumps({"url": args.url}), "--json", *args.call_args]
    checks: list[dict[str, Any]] = []
    failed = None
    try:
        for reply, status, reason in ((b"y", "succeeded", None), (b"n", "blocked", "declined"), (None, "blocked", "declined")):
            checks.append({"check": f"answer {reply!r}"})
            prompt, output, code = under_pty(command, reply)
            check("[y/N]" in prompt, f"no prompt on the terminal: {output[-2000:]!r}")
            for needle in ("browser_navigate", "open a new host", host):
                check(needle in prompt, f"the prompt does not name {needle!r}: {prompt!r}")
            envelope = envelope_in(output)
            check(envelope["status"] == status, f"expected {status}: {json.dumps(envelope)[:1500]}")
            if reason is not None:
                check(envelope["facts"]["reason"] == reason, json.dumps(envelope)[:1500])
                check(envelope["effect"] == "none", json.dumps(envelope)[:1500])
                check(code == 1, f"exit {code}")
            else:
                check(code == 0, f"exit {code}")
            checks[-1]["ok"] = True

        checks.append({"check": "no terminal"})
        done = subprocess.run(
            command, stdin=subprocess.DEVNULL, capture_output=True, text=True, start_new_session=True, timeout=90
        )
        check("[y/N]" not in done.stderr, f"asked without a terminal: {done.stderr!r}")
        envelope = envelope_in(done.stdout)
        check(envelope["status"] == "attention_required", json.dumps(envelope)[:1500])
        check(envelope["facts"]["reason"] == "confirmation_unavailable", json.dumps(envelope)[:1500])
        check(done.returncode == 1, f"exit {done.returncode}")
        checks[-1]["ok"] = True
    except Exception as error:  # report any failure as JSON
        failed = {"check": checks[-1]["check"] if checks else None, "error": f"{type(error).__name__}: {error}"}
    print(json.dumps({"ok": failed is None, "checks": checks, "failed": failed}, indent=1))
    return 0 if failed is None else 1


if __name__ == "__main__":
    sys.exit(main())
