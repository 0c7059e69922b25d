#!/usr/bin/env bash
# The lab page in a real browser: Debian's headless Chromium, driven over the DevTools protocol by
# puppeteer-core (pinned in .ci/lab/package-lock.json), plays the host on the /lab page of the
# acme-knowledge, study-server, everything and apps examples (the page as an MCP Apps host), and
# calls the endpoint from pages of other origins (CORS). .ci/lab/lab-test.mjs says what it checks.
# Then .ci/lab/bridge-test.mjs renders the apps example's views in a host built from the official
# SDK (ext-apps' AppBridge and the @modelcontextprotocol/client Client, bundled with esbuild).
#
# Runs from a clean checkout (CI=true is fine): installs Debian's `chromium` when it is missing
# (apt-get, as root or through sudo), `npm ci` in .ci/lab (puppeteer-core, esbuild, ext-apps and
# the client) and in examples/apps (the ext-apps SDK the apps example embeds when compiled),
# `cargo build` of the four examples. Every step is bounded in time. Screenshots and results:
# LAB_OUTPUT_DIR (default target/lab-results). `bash .ci/lab.sh --update-docs` also refreshes the
# screenshots in docs/lab/ and docs/apps/.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR=never
DIR=.ci/lab
OUT_DIR="${LAB_OUTPUT_DIR:-target/lab-results}"
MCP_SHARED_DIR="${MCP_SHARED_DIR:-$(cd .. && pwd)/shared}"
SEED="$(ls "$MCP_SHARED_DIR"/seeds/002_*.txt 2>/dev/null | head -n 1 || true)"
if [ -z "$SEED" ]; then
  echo "error: seed 002 not found under $MCP_SHARED_DIR/seeds" >&2
  exit 1
fi

CHROMIUM="${CHROMIUM:-$(command -v chromium || true)}"
if [ -z "$CHROMIUM" ]; then
  echo "== apt-get install chromium"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  timeout 900 $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive timeout 1800 $SUDO apt-get install -y -qq --no-install-recommends \
    chromium fonts-dejavu-core >/dev/null
  CHROMIUM="$(command -v chromium)"
fi
echo "$("$CHROMIUM" --version 2>/dev/null)"

echo "== npm ci (puppeteer-core, from the lock file)"
(cd "$DIR" && timeout 900 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
echo "== npm ci --prefix examples/apps (@modelcontextprotocol/ext-apps, from the lock file)"
timeout 900 npm ci --prefix examples/apps --ignore-scripts --no-audit --no-fund --loglevel=error
node --check mcp-runtime/src/transport/http/lab/lab.js

echo "== cargo build --example acme-knowledge --example study-server --example everything --example apps"
artifacts="$(timeout 3600 cargo build --example acme-knowledge --example study-server --example everything \
  --example apps --message-format=json-render-diagnostics)"
executable() {
  printf '%s\n' "$artifacts" | node -e '
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

echo "== the lab page in headless Chromium"
CHROMIUM="$CHROMIUM" timeout --kill-after=10 600 node "$DIR/lab-test.mjs" \
  --acme "$(executable acme-knowledge)" --study "$(executable study-server)" \
  --everything "$(executable everything)" --apps "$(executable apps)" --seed "$SEED" --out "$OUT_DIR" "$@"

echo "== the apps example's views in a host built from the official AppBridge (.ci/lab/bridge-test.mjs)"
BRIDGE_DOCS=""
for arg in "$@"; do
  if [ "$arg" = "--update-docs" ]; then BRIDGE_DOCS="--update-docs"; fi
done
CHROMIUM="$CHROMIUM" timeout --kill-after=10 300 node "$DIR/bridge-test.mjs" \
  --apps "$(executable apps)" --out "$OUT_DIR/bridge" ${BRIDGE_DOCS:+"$BRIDGE_DOCS"}
