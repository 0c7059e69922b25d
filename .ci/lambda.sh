#!/usr/bin/env bash
# The Lambda target for real: examples/lambda.rs (the study server, `--features lambda`) served
# by the Lambda runtime loop of lambda_http against cargo-lambda's Runtime API emulator
# (`cargo lambda watch --only-lambda-apis`, pinned on PyPI), driven over HTTP through the
# emulator's Function URL front (/lambda-url/<function>/): server/discover, a tools/call, the
# endpoint's refusals (a missing MCP-Protocol-Version header, a 2025-11-25 initialize, a listen
# stream), a task tool run in its call, and a multi-round request whose first round is answered
# by one function process and whose retry, once that process is gone, by another that shares
# only MCP_STATE_KEY. Then a process with response streaming on answers a call that reports
# progress as Server-Sent Events, and one without a key refuses to start.
#
# Runs from a clean checkout (CI=true is fine): a Python venv with cargo-lambda (PyPI's wheel
# carries the binary), `cargo build` of the example. Every step is bounded in time; every process
# it starts is ended by its id. Output: LAMBDA_OUTPUT_DIR (default target/lambda-results).
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR=never
OUT_DIR="${LAMBDA_OUTPUT_DIR:-target/lambda-results}"
VENV="${LAMBDA_VENV:-target/cargo-lambda-venv}"
CARGO_LAMBDA_VERSION=1.9.2

rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"

echo "== cargo-lambda $CARGO_LAMBDA_VERSION (PyPI) in $VENV"
if ! "$VENV/bin/cargo-lambda" lambda --version 2>/dev/null | grep -q "^cargo-lambda $CARGO_LAMBDA_VERSION "; then
  python3 -m venv "$VENV"
  timeout 600 "$VENV/bin/pip" install --quiet --disable-pip-version-check "cargo-lambda==$CARGO_LAMBDA_VERSION"
fi
"$VENV/bin/cargo-lambda" lambda --version

echo "== cargo build --features lambda --example lambda"
timeout 1800 cargo build --features lambda --example lambda
BIN="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug/examples/lambda"

PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
echo "== cargo lambda watch --only-lambda-apis on 127.0.0.1:$PORT"
PATH="$PWD/$VENV/bin:$PATH" timeout 600 cargo lambda watch --only-lambda-apis \
  -A 127.0.0.1 -P "$PORT" >"$OUT_DIR/watch.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do
  grep -q "starting Runtime server" "$OUT_DIR/watch.log" && break
  sleep 0.1
done
grep -q "starting Runtime server" "$OUT_DIR/watch.log" || { cat "$OUT_DIR/watch.log"; exit 1; }

KEY="$(python3 -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())')"
# One function process, as the Lambda service starts one: the runtime API, the function's name
# (`_`: the emulator's function when it starts none itself), its settings; then the example's.
start_function() {
  local name="$1"
  shift
  env AWS_LAMBDA_RUNTIME_API="http://127.0.0.1:$PORT/.rt" AWS_LAMBDA_FUNCTION_NAME=_ \
    AWS_LAMBDA_FUNCTION_VERSION=1 AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512 RUST_BACKTRACE=0 \
    "$@" timeout 300 "$BIN" >"$OUT_DIR/$name.log" 2>&1 &
  FUNCTION_PID=$!
  PIDS+=("$FUNCTION_PID")
}
stop_function() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

cat >"$OUT_DIR/drive.py" <<'PY'
"""Drives the function through the emulator's Function URL front; one phase per call."""
import json, sys, time, urllib.error, urllib.request

port, phase, state_file = sys.argv[1], sys.argv[2], sys.argv[3]
URL = f"http://127.0.0.1:{port}/lambda-url/_/mcp"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
CAPS = {"roots": {}, "sampling": {}, "elicitation": {}}
ARGS = {"topic": "release safety"}


def post(message, headers=None, drop=()):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": message["method"]}
    if message["method"] == "tools/call":
        h["Mcp-Name"] = message["params"]["name"]
    h.update(headers or {})
    for name in drop:
        h.pop(name, None)
    req = urllib.request.Request(URL, json.dumps(message).encode(), h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, resp.headers, resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def rpc(id, method, params, meta=None):
    params = dict(params, _meta=dict(META, **(meta or {})))
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": params}


def check(cond, what, got):
    if not cond:
        sys.exit(f"FAIL {what}: {got}")
    print(f"ok   {what}")


if phase == "first":
    started = time.monotonic()
    status, _, body = post(rpc(1, "server/discover", {}))
    v = json.loads(body)
    check(status == 200 and v["result"]["supportedVersions"] == ["2026-07-28"],
          f"server/discover (first invocation after {time.monotonic() - started:.3f} s)", body)
    caps = v["result"]["capabilities"]
    check("io.modelcontextprotocol/tasks" not in caps.get("extensions", {})
          and "listChanged" not in caps["tools"], "no tasks extension, no listChanged", caps)
    status, _, body = post(rpc(2, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}))
    check(status == 200 and json.loads(body)["result"]["content"][0]["text"] == "5",
          "tools/call add", body)
    digest = rpc(3, "tools/call", {"name": "digest", "arguments": {"text": "a b c"}},
                 {"io.modelcontextprotocol/clientCapabilities":
                  {"extensions": {"io.modelcontextprotocol/tasks": {}}}})
    status, _, body = post(digest)
    check(status == 200 and json.loads(body)["result"]["resultType"] == "complete",
          "a task tool runs to completion in its call", body)
    status, _, body = post(rpc(4, "tools/list", {}), drop=["MCP-Protocol-Version"])
    check(status == 400 and json.loads(body)["error"]["code"] == -32020,
          "no MCP-Protocol-Version: 400, -32020", body)
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "old", "version": "1"}}}
    status, _, body = post(init, drop=["MCP-Protocol-Version", "Mcp-Method"])
    check(status == 400 and "AWS Lambda" in json.loads(body)["error"]["message"],
          "a 2025-11-25 initialize: 400, saying why", body)
    status, _, body = post(rpc(5, "subscriptions/listen",
                               {"notifications": {"toolsListChanged": True}}))
    check(status == 404 and json.loads(body)["error"]["code"] == -32601,
          "subscriptions/listen: 404, -32601", body)
    first = rpc(6, "tools/call", {"name": "prepare_review", "arguments": ARGS},
                {"io.modelcontextprotocol/clientCapabilities": CAPS})
    status, _, body = post(first)
    result = json.loads(body)["result"]
    check(status == 200 and result["resultType"] == "input_required"
          and sorted(result["inputRequests"]) == ["review_goal", "review_sample", "workspace_scope"],
          "prepare_review, first round: input_required", body)
    with open(state_file, "w") as f:
        f.write(result["requestState"])
elif phase == "retry":
    with open(state_file) as f:
        state = f.read()
    retry = rpc(7, "tools/call", {
        "name": "prepare_review", "arguments": ARGS, "requestState": state,
        "inputResponses": {
            "workspace_scope": {"roots": [{"uri": "file:///srv/release", "name": "release"}]},
            "review_sample": {"role": "assistant", "model": "m", "stopReason": "endTurn",
                              "content": {"type": "text", "text": "Check rollback risk."}},
            "review_goal": {"action": "accept", "content": {"goal": "correctness"}}}},
        {"io.modelcontextprotocol/clientCapabilities": CAPS})
    started = time.monotonic()
    status, _, body = post(retry)
    result = json.loads(body)["result"]
    summary = json.loads(result["content"][0]["text"])
    check(status == 200 and result["resultType"] == "complete" and summary["goal"] == "correctness"
          and summary["rootCount"] == 1,
          f"prepare_review, retry on another process: complete ({time.monotonic() - started:.3f} s)",
          body)
elif phase == "stream":
    call = rpc(8, "tools/call", {"name": "add", "arguments": {"a": 20, "b": 22}},
               {"progressToken": "p-8"})
    status, headers, body = post(call)
    events = [json.loads(line[len("data: "):]) for line in body.splitlines()
              if line.startswith("data: ")]
    check(status == 200 and headers["Content-Type"] == "text/event-stream"
          and [e.get("method") for e in events[:2]] == ["notifications/progress"] * 2
          and events[-1]["result"]["content"][0]["text"] == "42",
          "response streaming: progress as Server-Sent Events, then the result", body)
PY

STATE="$OUT_DIR/request-state"
echo "== instance A: discover, a call, the refusals, a task tool, MRTR's first round"
start_function a MCP_STATE_KEY="$KEY"
A=$FUNCTION_PID
timeout 120 python3 "$OUT_DIR/drive.py" "$PORT" first "$STATE" | tee -a "$OUT_DIR/checks.log"
stop_function "$A"

echo "== instance B (A is gone; only MCP_STATE_KEY is shared): MRTR's retry"
start_function b MCP_STATE_KEY="$KEY"
B=$FUNCTION_PID
timeout 120 python3 "$OUT_DIR/drive.py" "$PORT" retry "$STATE" | tee -a "$OUT_DIR/checks.log"
stop_function "$B"

echo "== instance C, MCP_LAMBDA_STREAMING=1: progress streamed"
start_function c MCP_STATE_KEY="$KEY" MCP_LAMBDA_STREAMING=1
C=$FUNCTION_PID
timeout 120 python3 "$OUT_DIR/drive.py" "$PORT" stream "$STATE" | tee -a "$OUT_DIR/checks.log"
stop_function "$C"

echo "== instance D without MCP_STATE_KEY: refuses to start"
start_function d
D=$FUNCTION_PID
status=0
wait "$D" || status=$?
if [ "$status" -eq 0 ] || ! grep -q "MCP_STATE_KEY" "$OUT_DIR/d.log"; then
  echo "FAIL an instance without MCP_STATE_KEY started (exit $status):" >&2
  cat "$OUT_DIR/d.log" >&2
  exit 1
fi
echo "ok   exit $status: $(tail -n 1 "$OUT_DIR/d.log" | head -c 200)..." | tee -a "$OUT_DIR/checks.log"

echo "lambda: $(grep -c '^ok ' "$OUT_DIR/checks.log") passed, 0 failed"
