#!/usr/bin/env bash
# Three instances of a server behind nginx, sharing one Redis and one requestState key, all on
# loopback: try scale-out on one machine. Needs `redis-server` and `nginx` (Debian: apt-get
# install redis-server nginx-light). Ports: REDIS_PORT (6390), the instances 8101-8103, nginx
# NGINX_PORT (8100). Ctrl-C stops everything.
#
#   bash deploy/run.sh                        the study-server example (built with `redis`)
#   bash deploy/run.sh PATH/TO/SERVER ARGS…   any server binary that takes `--addr HOST:PORT`
#
# then point a client at http://127.0.0.1:8100/mcp. Each instance gets `--addr`, then ARGS,
# and MCP_STATE_KEY and MCP_REDIS_URL in its environment (a server of yours shares its tasks
# and changes through Redis when it reads MCP_REDIS_URL, as the study-server example does:
# `mcp_runtime::redis`).
#
# The instances trust this nginx (loopback) to name each client in X-Forwarded-For, so that
# every client has shares of its own (the example's Redis mode: MCP_TRUSTED_PROXIES, loopback
# when unset). Ctrl-C drains them (SIGTERM: /health 503, streams ended, requests finished).
#
# On Kubernetes, deploy/k8s is the same setup: replicas, nginx, Redis, a rolling update that
# drains.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=deploy/nginx-conf.sh
source deploy/nginx-conf.sh

REDIS_PORT="${REDIS_PORT:-6390}"
NGINX_PORT="${NGINX_PORT:-8100}"
PORTS=(8101 8102 8103)
RUN_DIR="$(mktemp -d)"
PIDS=()
stop() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$RUN_DIR"
}
trap stop EXIT
trap "exit 130" INT TERM

for tool in redis-server nginx; do
  command -v "$tool" >/dev/null || { echo "error: $tool is not installed" >&2; exit 1; }
done

if [ "$#" -gt 0 ]; then
  BIN="$1"
  shift
  [ -x "$BIN" ] || { echo "error: $BIN is not an executable file (give the server binary's path)" >&2; exit 1; }
else
  echo "== cargo build --example study-server --features redis"
  cargo build --example study-server --features redis
  BIN="target/debug/examples/study-server"
fi
ARGS=("$@")

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no >"$RUN_DIR/redis.log" 2>&1 &
PIDS+=("$!")
export MCP_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/"
# One requestState key for every instance, so that a retry may land on any of them.
MCP_STATE_KEY="$(head -c 32 /dev/urandom | base64)"
export MCP_STATE_KEY
sleep 0.5

SERVERS=""
for port in "${PORTS[@]}"; do
  "$BIN" --addr "127.0.0.1:$port" "${ARGS[@]}" >"$RUN_DIR/instance-$port.log" 2>&1 &
  PIDS+=("$!")
  SERVERS+="        server 127.0.0.1:$port max_fails=1 fail_timeout=2s;"$'\n'
done

nginx_conf "$RUN_DIR/nginx" "$NGINX_PORT" "$SERVERS"
nginx -p "$RUN_DIR/nginx" -c "$RUN_DIR/nginx/nginx.conf" &
PIDS+=("$!")

sleep 1
for port in "${PORTS[@]}"; do
  printf 'instance 127.0.0.1:%s: ' "$port"
  if ! status="$(curl -s -o "$RUN_DIR/health-$port" -w '%{http_code}' "http://127.0.0.1:$port/health")"; then
    echo "not answering; see $RUN_DIR/instance-$port.log"
  elif [ "$status" = 404 ]; then
    echo "answering (no /health: HttpOptions::health turns it on)"
  else
    echo "/health $status $(cat "$RUN_DIR/health-$port")"
  fi
done
echo "MCP endpoint: http://127.0.0.1:$NGINX_PORT/mcp (Ctrl-C stops everything)"
wait
