#!/usr/bin/env bash
# Packaging: what crates.io would receive, built and run the way a user would build it.
#
#   1. `cargo package` for the four published crates together (mcp-runtime-skills,
#      mcp-runtime-macros, mcp-runtime, and the command line cargo-mcp-runtime with the
#      templates of its `new`): each `.crate` is made from the files Cargo would upload
#      and built on its own (the crates depend on each other at a version none of them has on
#      crates.io yet, so Cargo verifies them together, each one against the others' packages).
#      A dependency with a path and no version fails here, and so does a file left out of a
#      package, unless only a feature's code reads it (the lab page's files): step 2 builds
#      with `lab`.
#   2. A throwaway server in target/package-check/server, built from the unpacked `.crate` files
#      only ([patch.crates-io] points at them; nothing points into this checkout): a `#[tool]`, a
#      `#[resource]` and `skills!` over a skill folder of its own, so the macros, the runtime and
#      the skills crate are all compiled from their packages. It is run with `--stdio` and
#      answers server/discover, tools/call, resources/read and skills/list.
#   3. A scratch crate from exactly the README's dependency snippet (between
#      `<!-- dependency-snippet -->` and `<!-- /dependency-snippet -->`, its path pointed at this
#      checkout's mcp-runtime) and the README's quick start (its first ```rust block) as main.rs,
#      built and asked to add two numbers over stdio: the README's lines cannot rot.
#
# Runs from a clean checkout (CI=true is fine); outside CI it packages a dirty work tree too
# (`--allow-dirty`). Each step has a time limit; any failure exits non-zero. The scratch crates
# take the workspace's Cargo.lock (the versions it is tested with) and build in its target dir,
# without debug info like `cargo package`'s own builds here, so that they reuse what those built.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0
# The verification and scratch builds need no debug info: less to write, less disk.
export CARGO_PROFILE_DEV_DEBUG=false

ROOT="$PWD"
CRATES=(mcp-runtime-skills mcp-runtime-macros mcp-runtime cargo-mcp-runtime)

fail() {
  echo "error: $*" >&2
  exit 1
}

# The workspace's target dir and version (cargo metadata: CARGO_TARGET_DIR is honoured).
read -r TARGET VERSION < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
m = json.load(sys.stdin)
versions = {p["name"]: p["version"] for p in m["packages"]}
print(m["target_directory"], versions["mcp-runtime"])
')
[ -n "${VERSION:-}" ] || fail "cargo metadata did not name mcp-runtime's version"
SCRATCH="$TARGET/package-check"
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH/crates"

# Cargo keeps what it unpacked from the temporary registry its verification builds from under
# the name and version only (the registry's folder is the same for every clone at one path):
# an earlier tree's package would be built instead of this one.
for name in "${CRATES[@]}"; do
  rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/"$name-$VERSION"
done
echo "== cargo package (${CRATES[*]} $VERSION, verified together)"
dirty=()
[ -n "${CI:-}" ] || dirty=(--allow-dirty)
package_args=()
for name in "${CRATES[@]}"; do package_args+=(-p "$name"); done
timeout 1800 cargo package --locked "${dirty[@]}" "${package_args[@]}" \
  || fail "cargo package failed (a file missing from a package, or a dependency without a version?)"
for name in "${CRATES[@]}"; do
  crate="$TARGET/package/$name-$VERSION.crate"
  [ -f "$crate" ] || fail "$crate was not made"
  # -m: the files are dated now, not with the fixed date Cargo gives every file of a package,
  # so that Cargo rebuilds them after a change.
  tar -xzmf "$crate" -C "$SCRATCH/crates"
  printf '%-22s %4s files, %s bytes\n' "$name" \
    "$(tar -tzf "$crate" | grep -vc '/$')" "$(wc -c <"$crate" | tr -d ' ')"
done

# Runs $1 (a server binary) with --stdio on the requests in $2 (one JSON-RPC message a line),
# and checks the answers with the Python expression file $3 (`answers`: id -> message).
serve_and_check() {
  local bin="$1" requests="$2" checks="$3" log
  log="$(dirname "$requests")/stdio"
  if ! timeout 60 "$bin" --stdio <"$requests" >"$log.out" 2>"$log.err"; then
    cat "$log.err" >&2
    fail "$bin --stdio did not answer and exit within 60 s"
  fi
  python3 - "$log.out" "$checks" <<'PY' || { cat "$log.err" >&2; fail "wrong answers from $bin"; }
import json, sys
answers = {}
for line in open(sys.argv[1]):
    message = json.loads(line)
    answers[message.get("id")] = message
for check in open(sys.argv[2]).read().strip().split("\n"):
    ok = False
    try:
        ok = eval(check, {"answers": answers})
    except Exception as e:
        print(f"  {check}: {type(e).__name__}: {e}", file=sys.stderr)
    if not ok:
        print("failed:", check, file=sys.stderr)
        print(json.dumps(answers, indent=1)[:4000], file=sys.stderr)
        sys.exit(1)
    print("  ok:", check)
PY
}

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
request() { # id method params-without-braces
  printf '{"jsonrpc":"2.0","id":%s,"method":"%s","params":{%s%s%s}}\n' "$1" "$2" "$3" "${3:+,}" "$META"
}

echo "== a server built from the packages alone"
server="$SCRATCH/server"
mkdir -p "$server/src" "$server/skills/package-check"
cp Cargo.lock "$server/Cargo.lock"
patches=""
for name in "${CRATES[@]}"; do
  patches+="$name = { path = \"../crates/$name-$VERSION\" }"$'\n'
done
cat >"$server/Cargo.toml" <<EOF
[package]
name = "package-check-server"
version = "0.0.0"
edition = "2024"
publish = false

# Not a member of the framework's workspace.
[workspace]

[dependencies]
mcp-runtime = { version = "=$VERSION", features = ["lab", "skills"] } # lab: the page's files are in the package; skills: skills!
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"

# The unpacked .crate files stand in for crates.io.
[patch.crates-io]
$patches
EOF
cat >"$server/src/main.rs" <<'EOF'
//! A server compiled from the packaged crates: macros, runtime and skills.
use mcp_runtime::prelude::*;

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// A fixed greeting.
#[resource("check://greeting", name = "greeting", mime_type = "text/plain")]
fn greeting() -> &'static str {
    "hello from the packaged crates"
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    Server::from_inventory()
        .name("package-check")
        .version("0.0.0")
        .skills(skills!("../skills"))
        .build()?
        .run()
        .await
}
EOF
cat >"$server/skills/package-check/SKILL.md" <<'EOF'
---
name: package-check
description: How this scratch server is checked. Use when reading its answers.
---

Call `add` with two integers, then read `check://greeting`.
EOF
(
  cd "$server"
  timeout 1800 cargo build --target-dir "$TARGET" || fail "the server did not build from the packages"
  # Every mcp-runtime* crate in the build came from an unpacked .crate, none from this checkout.
  cargo metadata --format-version 1 | python3 -c '
import json, os, sys
crates = os.path.realpath(sys.argv[1])
used = {p["name"]: os.path.realpath(p["manifest_path"]) for p in json.load(sys.stdin)["packages"]
        if p["name"].startswith("mcp-runtime")}
assert len(used) == 3, used
for name, path in sorted(used.items()):
    assert path.startswith(crates + os.sep), f"{name} is built from {path}, not from its package"
    print(f"  {name}: {os.path.relpath(path, crates)}")
' "$SCRATCH/crates" || fail "the server was not built from the packages alone"
)
{
  request 1 server/discover ""
  request 2 tools/call '"name":"add","arguments":{"a":2,"b":3}'
  request 3 resources/read '"uri":"check://greeting"'
  request 4 skills/list ""
} >"$server/requests"
cat >"$server/checks" <<'EOF'
"io.modelcontextprotocol/skills" in answers[1]["result"]["capabilities"]["extensions"]
answers[2]["result"]["content"][0]["text"] == "5"
answers[3]["result"]["contents"][0]["text"] == "hello from the packaged crates"
[s["frontmatter"]["name"] for s in answers[4]["result"]["skills"]] == ["package-check"]
EOF
serve_and_check "$TARGET/debug/package-check-server" "$server/requests" "$server/checks"

echo "== the README's dependency snippet and quick start"
readme="$SCRATCH/readme"
mkdir -p "$readme/src"
cp Cargo.lock "$readme/Cargo.lock"
python3 - README.md "$ROOT/mcp-runtime" "$readme" <<'PY' || fail "README.md: no dependency snippet or quick start to build"
import re, sys
text = open(sys.argv[1]).read()
snippet = re.search(r"<!-- dependency-snippet -->\s*```toml\n(.*?)```\s*<!-- /dependency-snippet -->", text, re.S)
assert snippet, "no ```toml block between <!-- dependency-snippet --> and <!-- /dependency-snippet -->"
toml, count = re.subn(r'^(mcp-runtime = \{ path = )"[^"]*"', lambda m: f'{m.group(1)}"{sys.argv[2]}"',
                      snippet.group(1), flags=re.M)
assert count == 1, "the snippet has no `mcp-runtime = { path = \"...\"` line to point at this checkout"
quick_start = re.search(r"^```rust[^\n]*\n(.*?)^```", text, re.S | re.M)
assert quick_start, "no ```rust block"
header = '[package]\nname = "readme-check"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n[workspace]\n\n'
open(f"{sys.argv[3]}/Cargo.toml", "w").write(header + toml)
open(f"{sys.argv[3]}/src/main.rs", "w").write(quick_start.group(1))
print(toml, end="")
PY
(
  cd "$readme"
  timeout 1800 cargo build --target-dir "$TARGET" || fail "the README's snippet and quick start do not build"
)
{
  request 1 server/discover ""
  request 2 tools/call '"name":"add","arguments":{"a":40,"b":2}'
} >"$readme/requests"
cat >"$readme/checks" <<'EOF'
"tools" in answers[1]["result"]["capabilities"]
answers[2]["result"]["content"][0]["text"] == "42"
EOF
serve_and_check "$TARGET/debug/readme-check" "$readme/requests" "$readme/checks"

echo "packaging: ${#CRATES[@]} crates packaged, verified, and served from their packages; the README builds"
