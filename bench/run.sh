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
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--latency" ]; then
    shift
    exec bash bench/latency.sh "$@"
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/h-bench}"
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
