#!/usr/bin/env bash
# The benchmark in one command, from the repository root:
#
#     bash bench/run.sh
#
# Installs wrk (Debian) and valgrind if missing, builds the bench crate in release mode, runs
# the interleaved wrk rounds (about 6 minutes: 10 cases x 7 rounds x ~5 s) and the callgrind
# instruction counts (about 2 minutes), and writes both tables to target/h-bench/bench-*.md.
# Loopback only. Extra arguments go to the wrk rounds (e.g. --rounds 3 --secs 2).
#
#     bash bench/run.sh --clients
#
# runs only the many-clients family instead (`mcp-bench-clients`: up to 10,000 listen streams,
# about 3 minutes) and writes target/h-bench/bench-clients.md.
#
#     bash bench/run.sh --latency [--before REV] [...]
#
# runs only the latency benchmark instead (k6 clients, an I/O-bound tool, both eras, against raw
# axum doing the same I/O: bench/latency.sh, about 8 minutes) and writes
# target/h-bench/bench-latency.md.
#
#     bash bench/run.sh --gateway [...]
#
# runs only the cost of a proxied call instead (`mcp-bench-gateway`: a backend and a gateway
# mounting it over HTTP in one process, the same tools/call sent to each from 1 and 16
# keep-alive clients, 5 interleaved rounds, then instructions per call under callgrind) and writes target/h-bench/bench-gateway.md. Extra arguments go to the wall-clock
# rounds (e.g. --rounds 3 --secs 2 --clients 1,4,16).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--latency" ]; then
    shift
    exec bash bench/latency.sh "$@"
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/h-bench}"
if [ "${1:-}" = "--gateway" ]; then
    shift
    need=()
    command -v valgrind >/dev/null || need+=(valgrind)
    command -v taskset >/dev/null || need+=(util-linux)
    if ((${#need[@]})); then
        apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
    fi
    cargo build --release -p mcp-bench --features gateway --bin mcp-bench-gateway
    bin="$CARGO_TARGET_DIR/release"
    out="$CARGO_TARGET_DIR/bench-gateway.md"
    {
        echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
        echo
        timeout 600 "$bin/mcp-bench-gateway" "$@"
        timeout 900 "$bin/mcp-bench-gateway" --callgrind --calls 1000
    } | tee "$out"
    exit "${PIPESTATUS[0]}"
fi
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v valgrind >/dev/null || need+=(valgrind)
command -v taskset >/dev/null || need+=(util-linux)
if ((${#need[@]})); then
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
cargo build --release -p mcp-bench --bins
bin="$CARGO_TARGET_DIR/release"
if [ "${1:-}" = "--clients" ]; then
    shift
    timeout 1200 "$bin/mcp-bench-clients" "$@" | tee "$CARGO_TARGET_DIR/bench-clients.md"
    exit "${PIPESTATUS[0]}"
fi
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
timeout 900 "$bin/mcp-bench" --markdown "$CARGO_TARGET_DIR/bench-wrk.md" "$@"
timeout 600 "$bin/mcp-bench" --callgrind --calls 1000 --markdown "$CARGO_TARGET_DIR/bench-callgrind.md"
