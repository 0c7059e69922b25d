#!/usr/bin/env bash
# Requests/s of tools/call through nginx (deploy/nginx.conf) with 1, 2 and 3 instances of the
# study server sharing one Redis, against one instance reached directly; then the fan-out of
# one change to listen streams spread by nginx over 3 instances (FANOUT_STREAMS, default 1000
# and 3000; the change made on one instance reaches the others through Redis). All on this
# machine's loopback. Bounded: 3 windows of 5 s per configuration, 5 changes per fan-out.
#
#   bash bench/scaleout.sh
#
# Installs wrk, redis-server and nginx from Debian when missing; builds the study-server
# example and mcp-bench in release mode with the redis feature (CARGO_TARGET_DIR, default
# target/h-bench: rebuild mcp-bench without it before `bench/run.sh`, which `run.sh` does).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=deploy/nginx-conf.sh
source deploy/nginx-conf.sh

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/h-bench}"
SECONDS_PER_WINDOW="${WINDOW:-5}"
WINDOWS="${WINDOWS:-3}"
for tool in wrk redis-server nginx; do
  if ! command -v "$tool" >/dev/null; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      wrk redis-server nginx-light >/dev/null
    break
  fi
done

cargo build --release --example study-server --features redis
BIN="$CARGO_TARGET_DIR/release/examples/study-server"
RUN_DIR="$(mktemp -d)"
PIDS=()
stop_all() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  PIDS=()
}
trap 'stop_all; rm -rf "$RUN_DIR"' EXIT
trap "exit 130" INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }

cat >"$RUN_DIR/call.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "add"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":40,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
LUA

REDIS_PORT="$(free_port)"
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no >/dev/null 2>&1 &
REDIS_PID=$!
wait_port "$REDIS_PORT"
export MCP_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/"
MCP_STATE_KEY="$(head -c 32 /dev/urandom | base64)"
export MCP_STATE_KEY

# Requests/s of one wrk window against URL (1 thread, 32 connections); non-2xx answers fail.
measure() {
  local out
  out="$(wrk -t1 -c32 -d"${SECONDS_PER_WINDOW}s" -s "$RUN_DIR/call.lua" "$1")"
  if grep -q "Non-2xx" <<<"$out"; then
    echo "error: wrk saw non-2xx answers: $out" >&2
    exit 1
  fi
  awk '/Requests\/sec/ {print int($2)}' <<<"$out"
}

report() {
  local label="$1" url="$2" runs=()
  wrk -t1 -c32 -d1s -s "$RUN_DIR/call.lua" "$url" >/dev/null # warm-up
  for _ in $(seq 1 "$WINDOWS"); do runs+=("$(measure "$url")"); done
  printf '| %s | %s |\n' "$label" "$(IFS=' – '; echo "${runs[*]}" | sed 's/ / – /g')"
}

echo "| configuration (tools/call add, wrk -t1 -c32, ${SECONDS_PER_WINDOW} s windows) | requests/s per window |"
echo "|---|---:|"
for n in 1 2 3; do
  servers=""
  for i in $(seq 1 "$n"); do
    port="$(free_port)"
    "$BIN" --addr "127.0.0.1:$port" >"$RUN_DIR/instance-$i.log" 2>&1 &
    PIDS+=("$!")
    wait_port "$port"
    servers+="        server 127.0.0.1:$port;"$'\n'
    first_port="${first_port:-$port}"
  done
  if [ "$n" -eq 1 ]; then
    report "one instance, direct (no nginx)" "http://127.0.0.1:$first_port/mcp"
  fi
  nginx_port="$(free_port)"
  nginx_conf "$RUN_DIR/nginx-$n" "$nginx_port" "$servers"
  nginx -p "$RUN_DIR/nginx-$n" -c "$RUN_DIR/nginx-$n/nginx.conf" &
  PIDS+=("$!")
  wait_port "$nginx_port"
  report "$n instance(s) behind nginx" "http://127.0.0.1:$nginx_port/mcp"
  stop_all
  unset first_port
done

# Fan-out across instances: mcp-bench-ours's many-clients server (its `touch` tool announces a
# resource update) on Redis's change bus, 3 instances behind nginx (more connections allowed
# than deploy/nginx.conf's 4096: each stream holds two).
cargo build --release -p mcp-bench --bins --features redis
OURS="$CARGO_TARGET_DIR/release/mcp-bench-ours"
CLIENTS="$CARGO_TARGET_DIR/release/mcp-bench-clients"
servers=""
first_port=""
for i in 1 2 3; do
  port="$(free_port)"
  "$OURS" --observe clients --addr "127.0.0.1:$port" >"$RUN_DIR/fanout-$i.log" 2>&1 &
  PIDS+=("$!")
  wait_port "$port"
  servers+="        server 127.0.0.1:$port;"$'\n'
  first_port="${first_port:-$port}"
done
nginx_port="$(free_port)"
nginx_conf "$RUN_DIR/nginx-fanout" "$nginx_port" "$servers" 16384
nginx -p "$RUN_DIR/nginx-fanout" -c "$RUN_DIR/nginx-fanout/nginx.conf" &
PIDS+=("$!")
wait_port "$nginx_port"
sleep 0.5 # the instances' buses subscribe
echo
echo "Fan-out: one \`touch\` on instance 1 → \`resources/updated\` read on every stream (streams spread by nginx over 3 instances):"
for n in ${FANOUT_STREAMS:-1000 3000}; do
  "$CLIENTS" --streams "$n" --front "$nginx_port" --touch "$first_port" --rounds 5
done
stop_all
kill "$REDIS_PID" 2>/dev/null || true
