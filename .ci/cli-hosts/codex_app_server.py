"""Codex's app-server as an MCP client, with no model: it lists a configured server's tools and
calls one of them directly (`mcpServer/tool/call`), the way Codex itself talks to the server.

Usage: python3 codex_app_server.py CODEX_BIN SERVER_NAME EXPECTED_TOOL [TOOL JSON_ARGS EXPECTED_TEXT]

The app-server (checked against @openai/codex 0.171.0, whose `app-server generate-ts` dumps the
protocol) speaks JSON-RPC 2.0 without the "jsonrpc" member, one JSON object a line on stdio. It
reads HOME (and CODEX_HOME, if set) from the environment, so ~/.codex/config.toml is the one
`cargo mcp-runtime install codex` wrote. Every wait is bounded; the whole run stops within ~120 s.
"""

import collections
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time

DEADLINE = time.monotonic() + 110  # every wait below ends by then
codex_bin, server, expected_tool, *call = sys.argv[1:]
if len(call) not in (0, 3):
    sys.exit(__doc__)
try:  # the call's arguments read before anything starts
    call_args = json.loads(call[1]) if call else None
except ValueError as e:
    sys.exit(f"error: JSON_ARGS is not JSON: {e}")

# The app-server in its own process group (so it and the MCP servers it starts can be ended
# together), its log kept aside to show on a failure.
log = tempfile.TemporaryFile()
try:
    child = subprocess.Popen([codex_bin, "app-server"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=log, start_new_session=True)
except OSError as e:
    sys.exit(f"error: cannot start {codex_bin} app-server: {e}")
inbox = queue.Queue()
recent = collections.deque(maxlen=8)  # the last messages received, for the failure message


def stop():
    """End the app-server's process group (ours): closing its input first, then a kill."""
    try:
        child.stdin.close()
        child.wait(timeout=3)
    except Exception:
        pass
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    child.wait()


def fail(why):
    stop()
    log.seek(0)
    tail = log.read().decode(errors="replace").splitlines()[-10:]
    sys.exit(f"error: {why}\nlast messages received:\n" + "\n".join(recent) +
             "\napp-server log (tail):\n" + "\n".join(tail))


# A backstop for anything the deadline does not cover (a write blocked on a full pipe).
signal.signal(signal.SIGALRM, lambda *_: fail("no end within 120 s"))
signal.alarm(120)


def read_lines():
    """Each line the app-server writes, parsed, into the inbox; None when its output closes."""
    for line in child.stdout:
        try:
            inbox.put(json.loads(line))
        except ValueError:
            inbox.put({"unparsed": line.decode(errors="replace").strip()})
    inbox.put(None)


threading.Thread(target=read_lines, daemon=True).start()


def send(message):
    child.stdin.write(json.dumps(message).encode() + b"\n")
    child.stdin.flush()


next_id = 0


def request(method, params, timeout=30):
    """Send a request and wait (bounded) for its answer; notifications seen meanwhile are kept in
    `recent`, and a request from the app-server to us (an approval, an elicitation) is declined."""
    global next_id
    next_id += 1
    send({"id": next_id, "method": method, "params": params})
    until = min(time.monotonic() + timeout, DEADLINE)
    while True:
        try:
            message = inbox.get(timeout=max(0.0, until - time.monotonic()))
        except queue.Empty:
            fail(f"no answer to {method} within {timeout} s")
        if message is None:
            fail(f"the app-server exited (status {child.wait()}) before answering {method}")
        recent.append(json.dumps(message)[:600])
        if "method" in message and "id" in message:
            send({"id": message["id"], "error": {"code": -32601, "message": "not handled by this check"}})
        elif message.get("id") == next_id:
            if "error" in message:
                fail(f"{method} answered an error: {message['error']}")
            return message["result"]


# 1. The handshake: `initialize` (who we are), then the `initialized` notification.
info = request("initialize", {"clientInfo": {"name": "mcp_runtime_ci", "title": None, "version": "0"},
                              "capabilities": None})
send({"method": "initialized"})
print(f"ok: app-server initialized ({info.get('userAgent')}; home {info.get('codexHome')})")

# 2. `mcpServerStatus/list`, narrowed to the one server: the app-server connects to it (stdio or
#    HTTP, as config.toml says) and lists the tools it got back.
listed = request("mcpServerStatus/list", {"serverName": server, "detail": "toolsAndAuthOnly"}, 60)
entry = next((s for s in listed.get("data", []) if s.get("name") == server), None)
if entry is None:
    fail(f"mcpServerStatus/list has no server {server!r}")
if entry.get("toolsError"):
    fail(f"{server}: tool discovery failed: {entry['toolsError']}")
tools = sorted(entry.get("tools") or {})
if expected_tool not in tools:
    fail(f"{server}: {expected_tool!r} not among the tools listed: {tools}")
print(f"ok: mcpServerStatus/list: {server} ({entry.get('authStatus')}) lists {', '.join(tools)}")

# 3. A direct call. `mcpServer/tool/call` goes through a thread's MCP connections, so an
#    in-memory thread is started first (no turn, so no model); then the tool is called on it.
if call:
    tool, expected_text = call[0], call[2]
    thread = request("thread/start", {"ephemeral": True, "approvalPolicy": "never",
                                      "sandbox": "read-only"}, 60)["thread"]
    result = request("mcpServer/tool/call", {"threadId": thread["id"], "server": server,
                                             "tool": tool, "arguments": call_args}, 60)
    text = " ".join(c.get("text", "") for c in result.get("content", []) if isinstance(c, dict))
    if result.get("isError"):
        fail(f"{tool} answered an error: {text}")
    if expected_text not in text + json.dumps(result.get("structuredContent")):
        fail(f"{tool}: {expected_text!r} not in its result: {json.dumps(result)[:600]}")
    print(f"ok: mcpServer/tool/call: {server}.{tool} answered {text[:200]}")

stop()
