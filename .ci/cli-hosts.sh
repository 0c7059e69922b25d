#!/usr/bin/env bash
# `cargo mcp-runtime` checked by the tools it writes for: the notes example installed into
# Claude Code, Gemini CLI and Codex (pinned from npm under .ci/cli-hosts/, run with HOME in a
# scratch folder and no credentials), over stdio and over HTTP, then read back by each host's
# own command line (`claude mcp list`, `gemini mcp list`, `codex mcp get`): Claude Code and
# Gemini CLI connect to the server and say so, and Codex's app-server lists and calls its
# tools. A second install leaves the file byte for byte; `--remove` takes the entry out. Then
# `pack`'s bundle through Anthropic's `mcpb` (validate, info, unpack, and the server started
# from its manifest), `new`'s crates (each template) through their own tests and a call as the
# current crate, `dev` serving it again on an edit (a round of input started before the
# restart finished after it), a call answered at a pseudo-terminal's prompts, and `check` on
# every example served over HTTP. Every step is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR=never
ROOT="$PWD"
DIR=.ci/cli-hosts
SCRATCH="$ROOT/target/cli-hosts-home"

echo "== npm ci (Claude Code, Gemini CLI, Codex, mcpb, from the lock file)"
(cd "$DIR" && timeout 900 npm ci --no-audit --no-fund --loglevel=error)
BIN="$ROOT/$DIR/node_modules/.bin"

echo "== cargo build: the command line and the examples"
cargo build -p cargo-mcp-runtime -p mcp-examples --example notes --example study-server \
  --example minimal --example acme-knowledge --example everything --example apps --example gateway
CLI="$ROOT/target/debug/cargo-mcp-runtime"
NOTES="$ROOT/target/debug/examples/notes"

rm -rf "$SCRATCH"
mkdir -p "$SCRATCH/project"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
URL="http://127.0.0.1:$PORT/mcp"
"$NOTES" --addr "127.0.0.1:$PORT" >"$SCRATCH/notes-http.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
python3 - "$PORT" <<'PY'
import socket, sys, time
deadline = time.time() + 30
while time.time() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("the notes example did not start listening")
PY

cd "$SCRATCH/project"
export HOME="$SCRATCH"
export NOTES_TOKEN="not-a-secret"
fail() {
  echo "error: $*" >&2
  exit 1
}
install() {
  timeout 300 "$CLI" mcp-runtime install "$@"
}
expect() { # what, pattern, command...
  local what="$1" pattern="$2"
  shift 2
  local out
  out="$(timeout 180 "$@" 2>&1 || true)"
  echo "$out" | grep -E -q -- "$pattern" || fail "$what: expected /$pattern/ in:
$out"
  echo "ok: $what"
}

echo "== Claude Code"
install claude-code --name notes -- "$NOTES" --stdio
install claude-code --name notes-http --url "$URL" --bearer-env NOTES_TOKEN
expect "claude mcp list: stdio, connected" 'notes: .*notes --stdio - ✔ Connected' "$BIN/claude" mcp list
expect "claude mcp list: HTTP, connected" "notes-http: $URL \(HTTP\) - ✔ Connected" "$BIN/claude" mcp list
cp "$HOME/.claude.json" "$SCRATCH/claude.before"
install claude-code --name notes -- "$NOTES" --stdio
cmp -s "$HOME/.claude.json" "$SCRATCH/claude.before" || fail "a second install changed ~/.claude.json"
install claude-code --name notes-http --remove
expect "claude mcp list: removed" '^notes: ' "$BIN/claude" mcp list
"$BIN/claude" mcp list 2>&1 | grep -q 'notes-http' && fail "notes-http still listed after --remove"

echo "== Gemini CLI"
# The scratch project is trusted the way a person trusts a folder (its trust file).
mkdir -p "$HOME/.gemini"
printf '{"%s": "TRUST_FOLDER"}\n' "$SCRATCH/project" >"$HOME/.gemini/trustedFolders.json"
install gemini --name notes -- "$NOTES" --stdio
install gemini --scope project --name notes-http --url "$URL" --bearer-env NOTES_TOKEN
expect "gemini mcp list: stdio, connected" '✓ notes: .*\(stdio\) - Connected' "$BIN/gemini" mcp list
expect "gemini mcp list: HTTP, connected" "✓ notes-http: $URL \(http\) - Connected" "$BIN/gemini" mcp list

echo "== Codex"
install codex --name notes -- "$NOTES" --stdio
install codex --name notes-http --url "$URL" --bearer-env NOTES_TOKEN
expect "codex mcp get: stdio" 'transport: stdio' "$BIN/codex" mcp get notes
expect "codex mcp get: HTTP" 'bearer_token_env_var: NOTES_TOKEN|NOTES_TOKEN' "$BIN/codex" mcp get notes-http
expect "codex mcp list: both" 'notes-http' "$BIN/codex" mcp list
# Codex's app-server (its JSON-RPC API, no model): each server's tools listed, one called.
timeout 150 python3 "$ROOT/$DIR/codex_app_server.py" "$BIN/codex" notes search_notes \
  create_note '{"text": "Written over stdio by the Codex app-server", "tags": ["codex"]}' 'Written over stdio by the Codex app-server'
timeout 150 python3 "$ROOT/$DIR/codex_app_server.py" "$BIN/codex" notes-http search_notes \
  create_note '{"text": "Written over HTTP by the Codex app-server", "tags": ["codex"]}' 'Written over HTTP by the Codex app-server'

echo "== cargo mcp-runtime pack: the notes example as an MCP Bundle, read by mcpb (Claude Desktop's bundle tool)"
# Cargo and rustup live under the real HOME, not the scratch one. A debug build: the one above.
REAL_HOME="$(getent passwd "$(id -u)" | cut -d: -f6)"
BUNDLE="$SCRATCH/notes.mcpb"
UNPACKED="$SCRATCH/notes-bundle"
(cd "$ROOT" && HOME="$REAL_HOME" timeout 900 "$CLI" mcp-runtime pack --example notes --debug \
  --author "The mcp-runtime developers" --output "$BUNDLE")
python3 - "$BUNDLE" <<'PY'
import json, sys, zipfile
archive = zipfile.ZipFile(sys.argv[1])
names = sorted(archive.namelist())
assert names == ["manifest.json", "server/notes"], names
mode = archive.getinfo("server/notes").external_attr >> 16
assert mode & 0o777 == 0o755, oct(mode)
manifest = json.loads(archive.read("manifest.json"))
assert manifest["server"]["type"] == "binary", manifest["server"]
tools = sorted(t["name"] for t in manifest["tools"])
assert tools == ["create_note", "delete_tagged", "reindex", "search_notes"], tools
assert [p["name"] for p in manifest["prompts"]] == ["summarize_tag"], manifest["prompts"]
print("ok: the archive holds manifest.json and server/notes (0755), with the tools and prompt the server lists")
PY
rm -rf "$UNPACKED"
expect "mcpb info: read" 'File: notes.mcpb' "$BIN/mcpb" info "$BUNDLE"
expect "mcpb unpack" 'unpacked successfully' "$BIN/mcpb" unpack "$BUNDLE" "$UNPACKED"
expect "mcpb validate: the manifest" 'Manifest schema validation passes!' "$BIN/mcpb" validate "$UNPACKED/manifest.json"
[ -x "$UNPACKED/server/notes" ] || fail "mcpb unpack left server/notes not executable"
# The server started as Claude Desktop starts it: mcp_config, ${__dirname} the unpacked folder.
mapfile -t STARTED < <(python3 - "$UNPACKED" <<'PY'
import json, sys
config = json.load(open(sys.argv[1] + "/manifest.json"))["server"]["mcp_config"]
for word in [config["command"], *config["args"]]:
    print(word.replace("${__dirname}", sys.argv[1]))
PY
)
expect "the bundle's server lists its tools" '^search_notes' "$CLI" mcp-runtime list tools -- "${STARTED[@]}"

echo "== new: a crate that builds, whose tests pass, and that the command line calls as the current crate"
# Outside this repository: a crate inside a workspace that does not list it does not build.
NEW_PARENT="$(mktemp -d)"
NEW="$NEW_PARENT/adder"
(cd "$SCRATCH" && HOME="$REAL_HOME" timeout 60 "$CLI" mcp-runtime new adder --path "$NEW" --runtime "$ROOT/mcp-runtime")
(cd "$NEW" && HOME="$REAL_HOME" CARGO_TARGET_DIR="$ROOT/target/new-crates" timeout 1200 cargo test) \
  || fail "the crate made by new does not pass its own tests"
(
  cd "$NEW"
  export HOME="$REAL_HOME" CARGO_TARGET_DIR="$ROOT/target/new-crates"
  expect "call, on the current crate" '^42$' "$CLI" mcp-runtime call add a=2 b=40 --quiet
)
# The other templates: an OAuth resource server (its tests call it over HTTP with tokens) and
# a tool with an MCP Apps view.
for template in auth apps; do
  (cd "$SCRATCH" && HOME="$REAL_HOME" timeout 60 "$CLI" mcp-runtime new "my-$template" --template "$template" \
    --path "$NEW_PARENT/my-$template" --runtime "$ROOT/mcp-runtime")
  (cd "$NEW_PARENT/my-$template" && HOME="$REAL_HOME" CARGO_TARGET_DIR="$ROOT/target/new-crates" timeout 1200 cargo test) \
    || fail "the crate made by new --template $template does not pass its own tests"
  echo "ok: new --template $template: its tests pass"
done


echo "== dev: the crate served, edited, served again on the same address; a round of input survives the restart"
# A tool that asks the user first (an elicitation): its round starts before a restart.
cat >>"$NEW/src/lib.rs" <<'RS'

/// A confirmation form.
#[derive(Debug, serde::Deserialize, mcp_runtime::ElicitForm)]
pub struct Proceed {
    /// Whether to go on.
    pub proceed: bool,
}

/// Ask the user before going on.
#[tool]
pub fn confirm(#[elicit(message = "Go on?")] answer: Elicitation<Proceed>) -> String {
    match answer {
        Elicitation::Accepted(p) => format!("proceed = {}", p.proceed),
        _ => "not answered".to_owned(),
    }
}
RS
DEV_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
DEV_URL="http://127.0.0.1:$DEV_PORT/mcp"
(
  cd "$NEW"
  export HOME="$REAL_HOME" CARGO_TARGET_DIR="$ROOT/target/new-crates"
  exec "$CLI" mcp-runtime dev --addr "127.0.0.1:$DEV_PORT" >"$SCRATCH/dev.log" 2>&1
) &
DEV=$!
trap 'kill $SERVER 2>/dev/null || true; kill $DEV 2>/dev/null || true' EXIT
served() { grep -c '^dev: serving' "$SCRATCH/dev.log" || true; }
wait_served() { # count
  for _ in $(seq 1 1200); do
    [ "$(served)" -ge "$1" ] && return 0
    sleep 0.5
  done
  fail "dev did not serve a build $1 within 10 minutes: $(tail -20 "$SCRATCH/dev.log")"
}
wait_served 1
round() { # step (start | finish)
  python3 - "$DEV_URL" "$SCRATCH/round.json" "$1" <<'PY'
import json, sys, urllib.request
url, saved, step = sys.argv[1:]
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
params = {"name": "confirm", "arguments": {}, "_meta": meta}
if step == "finish":
    started = json.load(open(saved))
    params["inputResponses"] = {key: {"action": "accept", "content": {"proceed": True}}
                                for key in started["inputRequests"]}
    params["requestState"] = started["requestState"]
request = urllib.request.Request(url, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode(), {
    "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "confirm"})
answer = json.loads(urllib.request.urlopen(request, timeout=30).read())
result = answer["result"]
if step == "start":
    assert result["resultType"] == "input_required", answer
    json.dump(result, open(saved, "w"))
    print("ok: a round started (input_required, sealed requestState)")
else:
    assert result["content"][0]["text"] == "proceed = true", answer
    print("ok: the round finished on the restarted server")
PY
}
round start
# An edit to a tool's description: the time from the save to the change listed.
SAVED_AT="$(date +%s.%N)"
sed -i 's|/// Add two integers. Use only for arithmetic addition.|/// Add two whole numbers. Use only for arithmetic addition.|' "$NEW/src/lib.rs"
for _ in $(seq 1 1200); do
  "$CLI" mcp-runtime list tools --url "$DEV_URL" 2>/dev/null | grep -q 'whole numbers' && break
  sleep 0.1
done
LISTED_AT="$(date +%s.%N)"
"$CLI" mcp-runtime list tools --url "$DEV_URL" | grep -q 'whole numbers' || fail "dev never served the edit"
echo "ok: from save to listed: $(python3 -c "print(f'{$LISTED_AT - $SAVED_AT:.1f}')") s"
round finish
# A broken edit: the compiler's messages, and the last good server still serving.
BEFORE="$(served)"
printf '\nfn broken( {}\n' >>"$NEW/src/lib.rs"
for _ in $(seq 1 1200); do
  grep -q 'the last good server still serves' "$SCRATCH/dev.log" && break
  sleep 0.5
done
grep -q 'the last good server still serves' "$SCRATCH/dev.log" || fail "dev said nothing of the failed build: $(tail -20 "$SCRATCH/dev.log")"
grep -q '^error' "$SCRATCH/dev.log" || fail "the compiler's messages were not shown"
expect "the last good server serves on" 'whole numbers' "$CLI" mcp-runtime list tools --url "$DEV_URL"
[ "$(served)" = "$BEFORE" ] || fail "a failed build replaced the server"
kill -TERM $DEV
wait $DEV 2>/dev/null || true
python3 -c "import socket; socket.create_connection(('127.0.0.1', $DEV_PORT), timeout=1)" 2>/dev/null \
  && fail "the server outlived dev"
echo "ok: dev stopped, its server with it"
rm -rf "$NEW_PARENT"

echo "== call in a terminal: the study server's three input requests answered at the prompts of a pseudo-terminal"
timeout 300 python3 "$ROOT/$DIR/pty_call.py" "$CLI" "$ROOT/target/debug/examples/study-server"

echo "== check: green on the notes example, and on every other example served over HTTP"
expect "check notes" '0 failed' "$CLI" mcp-runtime check "$URL"
# `observability` and `lambda` need features of their own (their CI steps serve them); the
# gateway fronts the notes example over stdio.
printf '{"mcpServers": {"notes": {"command": "%s", "args": ["--stdio"]}}}\n' "$NOTES" >"$SCRATCH/gateway.json"
for example in minimal study-server acme-knowledge everything apps gateway; do
  # Its command line is strict: `--help` prints the usage, an unknown argument is refused.
  expect "$example --help" '^usage: ' "$ROOT/target/debug/examples/$example" --help
  "$ROOT/target/debug/examples/$example" --no-such-flag >"$SCRATCH/$example.refused" 2>&1 \
    && fail "$example took an unknown argument"
  grep -q 'unknown argument `--no-such-flag`' "$SCRATCH/$example.refused" \
    || fail "$example did not name the unknown argument: $(cat "$SCRATCH/$example.refused")"
  EXAMPLE_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  extra=()
  [ "$example" = gateway ] && extra=(--config "$SCRATCH/gateway.json")
  "$ROOT/target/debug/examples/$example" --addr "127.0.0.1:$EXAMPLE_PORT" "${extra[@]}" >"$SCRATCH/$example.log" 2>&1 &
  EXAMPLE=$!
  trap 'kill $SERVER $EXAMPLE 2>/dev/null || true' EXIT
  for _ in $(seq 1 300); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $EXAMPLE_PORT), timeout=1)" 2>/dev/null && break
    sleep 0.1
  done
  expect "check $example" '^0 failed' "$CLI" mcp-runtime check "http://127.0.0.1:$EXAMPLE_PORT/mcp"
  kill $EXAMPLE 2>/dev/null || true
  wait $EXAMPLE 2>/dev/null || true
done

echo "cli hosts: Claude Code and Gemini CLI connect to what install wrote (stdio and HTTP); Codex lists and calls the tools of both entries (app-server); pack's bundle passes mcpb 2.1.2; new's crates pass their tests (basic, auth, apps); dev restarts it on an edit (a round survives); a call answered in a terminal; check is green on every example served over HTTP"
