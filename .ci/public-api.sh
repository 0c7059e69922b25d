#!/usr/bin/env bash
# The public API of the three library crates, checked against the snapshots checked in under
# .ci/public-api/ (not beside the crates: they would be published with them), so that any
# change to the public API is deliberate:
#
#   mcp-runtime.txt               mcp-runtime, default features
#   mcp-runtime-all-features.txt  mcp-runtime, --all-features (jwt, client, tasks, mounts,
#                                 skills, metrics, otel, redis, lambda, lab, server-card,
#                                 result-views, regex, full-json-schema)
#   mcp-runtime-macros.txt        mcp-runtime-macros
#   mcp-runtime-skills.txt        mcp-runtime-skills
#
# Each is what `cargo public-api` (pinned below, installed if missing) lists from the crate's
# rustdoc JSON: one line an item, impl or method, in the tool's own sorted order (by path, each
# type followed by its impls), an item re-exported at several paths once for each path, without
# blanket impls (`impl<T> Any for T` and those of dependencies such as zerocopy's, which change
# with the dependency tree, not with this API). `#[doc(hidden)]` items (`__private`, ...) are not
# listed: rustdoc leaves them out of its JSON.
#
# Usage:
#   .ci/public-api.sh          compare; prints a unified diff and exits 1 when the API changed
#   .ci/public-api.sh --bless  rewrite the snapshots (then say what moved in CHANGELOG.md)
#
# Stable toolchain only: rustdoc's JSON output is unstable, so rustdoc alone runs with
# RUSTC_BOOTSTRAP=1 (through a wrapper given as RUSTDOC; the dependencies are compiled as usual,
# so the build cache of the other CI steps is reused and not invalidated). Each cargo-public-api
# release reads one rustdoc JSON format version: when a new toolchain writes another one, this
# script says so; pick the cargo-public-api release whose Cargo.lock has rustdoc-types 0.<N>.x
# and update the two pins below (and then the snapshots, if the rendering moved).
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_PUBLIC_API_VERSION=0.52.0 # its Cargo.lock: public-api 0.52.0, rustdoc-types 0.57.3
RUSTDOC_FORMAT_VERSION=57       # what rustdoc 1.95 writes and rustdoc-types 0.57 reads

bless=false
case "${1:-}" in
  "") ;;
  --bless) bless=true ;;
  *) echo "usage: $0 [--bless]" >&2; exit 2 ;;
esac

export CARGO_TERM_COLOR=never
# Flags for rustdoc from the environment (`--cfg docsrs`, ...) would change what is listed.
unset RUSTDOCFLAGS CARGO_ENCODED_RUSTDOCFLAGS

if [ "$(cargo public-api --version 2>/dev/null || true)" != "cargo-public-api $CARGO_PUBLIC_API_VERSION" ]; then
  echo "== installing cargo-public-api $CARGO_PUBLIC_API_VERSION"
  cargo install --locked --quiet "cargo-public-api@$CARGO_PUBLIC_API_VERSION"
fi

target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
work="$target_dir/public-api"
mkdir -p "$work"
real_rustdoc=$(command -v "${RUSTDOC:-rustdoc}")
printf '#!/bin/sh\nRUSTC_BOOTSTRAP=1 exec "%s" "$@"\n' "$real_rustdoc" >"$work/rustdoc"
chmod +x "$work/rustdoc"

changed=()
# snapshot package crate [cargo feature flags...]
check() {
  local snapshot=$1 package=$2 crate=$3
  shift 3
  local json="$target_dir/doc/$crate.json" listed
  listed="$work/$(basename "$snapshot")"
  rm -f "$json"
  RUSTDOC="$work/rustdoc" cargo rustdoc -q -p "$package" --lib "$@" -- \
    -Z unstable-options --output-format json
  local format
  format=$(grep -o '"format_version":[0-9]*' "$json" | tail -n 1 | cut -d: -f2)
  if [ "$format" != "$RUSTDOC_FORMAT_VERSION" ]; then
    echo "error: this rustdoc writes JSON format $format; cargo-public-api $CARGO_PUBLIC_API_VERSION reads $RUSTDOC_FORMAT_VERSION (see this script's header)" >&2
    exit 1
  fi
  cargo public-api --color never --omit blanket-impls --rustdoc-json "$json" >"$listed"
  if $bless; then
    cp "$listed" "$snapshot"
    echo "wrote $snapshot ($(wc -l <"$snapshot") lines)"
  elif ! diff -u --label "$snapshot (checked in)" --label "$snapshot (this tree)" "$snapshot" "$listed"; then
    changed+=("$snapshot")
  fi
}

snapshots=.ci/public-api
check $snapshots/mcp-runtime.txt mcp-runtime mcp_runtime
check $snapshots/mcp-runtime-all-features.txt mcp-runtime mcp_runtime --all-features
check $snapshots/mcp-runtime-macros.txt mcp-runtime-macros mcp_runtime_macros
check $snapshots/mcp-runtime-skills.txt mcp-runtime-skills mcp_runtime_skills --all-features

# The size of mcp-runtime's API with default features, from its listing:
# - names at the crate root: distinct X of the items declared or re-exported as `mcp_runtime::X`
#   (structs, enums, traits, functions, constants, macros, `pub use`), modules not counted; a
#   name in two namespaces (the trait and the derive macro `ElicitForm`) counts once;
# - public modules: `pub mod` lines at any depth, the crate itself not counted (those directly
#   at the root in parentheses);
# - ServerBuilder methods: distinct functions of the inherent `impl mcp_runtime::ServerBuilder`
#   (its setters and `build`), trait impls (`Default::default`, ...) not counted.
sizes=$(awk '
  function root_name(line,   rest, name, depth, i, c) {
    if (line !~ /^(#\[[^]]*\] )*pub ([a-z]+ )*(struct|enum|union|trait|fn|type|const|static|macro|use) mcp_runtime::/) return ""
    rest = line; sub(/^[^:]* mcp_runtime::/, "", rest)
    if (!match(rest, /^[A-Za-z0-9_]+/)) return ""
    name = substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
    if (substr(rest, 1, 1) == "<") {   # skip generics, `->` inside them included
      depth = 0
      for (i = 1; i <= length(rest); i++) {
        c = substr(rest, i, 1)
        if (c == "<") depth++
        else if (c == ">" && substr(rest, i - 1, 1) != "-") { depth--; if (depth == 0) break }
      }
      rest = substr(rest, i + 1)
    }
    return substr(rest, 1, 2) == "::" ? "" : name
  }
  /^impl/ { impl = $0; next }
  /^(#\[[^]]*\] )*pub ([a-z]+ )*(mod|struct|enum|union|trait|type|const|static|macro|use) / { impl = "" }
  /^pub mod mcp_runtime::/ { modules++; if ($3 !~ /^mcp_runtime::[A-Za-z0-9_]+::/) root_modules++ }
  {
    n = root_name($0); if (n != "") roots[n] = 1
    if (impl == "impl mcp_runtime::ServerBuilder" && match($0, /^pub ([a-z]+ )*fn mcp_runtime::ServerBuilder::[A-Za-z0-9_]+/))
      builder[substr($0, RSTART, RLENGTH)] = 1
  }
  END {
    for (n in roots) r++; for (m in builder) b++
    printf "%d names at the crate root, %d public modules (%d at the root), %d ServerBuilder methods", r, modules, root_modules, b
  }
' "$work/mcp-runtime.txt")
echo "public API of mcp-runtime (default features): $sizes; lines: $(for f in mcp-runtime mcp-runtime-all-features mcp-runtime-macros mcp-runtime-skills; do printf '%s %s, ' "$f" "$(wc -l <"$work/$f.txt")"; done | sed 's/, $//')"

if [ ${#changed[@]} -gt 0 ]; then
  echo >&2
  echo "error: the public API changed (${changed[*]}): if deliberate, run \`.ci/public-api.sh --bless\` and say what moved in CHANGELOG.md" >&2
  exit 1
fi
