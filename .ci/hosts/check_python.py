"""Feeds each listed tool to the Python converters hosts use, the way each host's MCP
integration does, and checks that every converter accepts it and keeps every property, every
required argument and every enum value (a `const` counts as a one-value enum):

* google-genai: `_mcp_utils.mcp_to_gemini_tool` (an MCP tool to a Gemini `Tool` whose
  `FunctionDeclaration.parameters` is a `Schema` made by `Schema.from_json_schema`);
* openai-agents: `MCPUtil.to_function_tool(..., convert_schemas_to_strict=True)`, which runs
  `agents.strict_schema.ensure_strict_json_schema` (strict mode must not be refused);
* LangChain: `langchain_mcp_adapters.tools.convert_mcp_tool_to_langchain_tool`, then
  `langchain_core.utils.function_calling.convert_to_openai_tool`.

Usage: check_python.py TOOLS_JSON EXEMPT_JSON. EXEMPT_JSON maps "example/tool" to why that
tool's schema is not portable on purpose: it is still converted and reported, never failed.
Prints a line per converter, and one per tool it refused or read with a loss; exits 1 on any
failure.
"""

import copy
import json
import logging
import sys

logging.disable(logging.CRITICAL)

from agents.mcp import MCPServer, MCPUtil  # noqa: E402
from agents.strict_schema import ensure_strict_json_schema  # noqa: E402
from google.genai import _mcp_utils  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from langchain_mcp_adapters.tools import convert_mcp_tool_to_langchain_tool  # noqa: E402
from mcp.types import Tool as McpTool  # noqa: E402


def facts(schema, where="", camel=True):
    """(properties, required, enum values) of a schema, each a set of (path, item)."""
    props, required, enums = set(), set(), set()
    any_of = "anyOf" if camel else "any_of"

    def walk(node, path):
        if not isinstance(node, dict):
            return
        for value in node.get("enum") or []:
            enums.add((path, json.dumps(value, sort_keys=True)))
        if "const" in node:
            enums.add((path, json.dumps(node["const"], sort_keys=True)))
        for name in node.get("required") or []:
            required.add((path, name))
        for name, child in (node.get("properties") or {}).items():
            props.add((path, name))
            walk(child, f"{path}.{name}")
        items = node.get("items")
        if isinstance(items, dict):
            walk(items, f"{path}[]")
        # Alternatives are compared as one: their order and grouping may change.
        for key in (any_of, "oneOf", "one_of"):
            for branch in node.get(key) or []:
                walk(branch, f"{path}|")

    walk(schema, where)
    return props, required, enums


def lost(original, converted, *, camel=True):
    """What `converted` lost of `original`'s properties, required names and enum values."""
    p0, r0, e0 = facts(original)
    p1, r1, e1 = facts(converted, camel=camel)
    losses = []
    for label, before, after in (("property", p0, p1), ("required", r0, r1), ("enum value", e0, e1)):
        for path, item in sorted(before - after):
            losses.append(f"{label} {item} at `{path or '(root)'}`")
    return losses


def mcp_tool(tool):
    return McpTool(
        name=tool["name"],
        description=tool.get("description") or "",
        inputSchema=copy.deepcopy(tool["inputSchema"]),
    )


def without_boolean_additional_properties(node):
    """The schema without `additionalProperties: true/false` (see `gemini`)."""
    if isinstance(node, dict):
        return {
            k: without_boolean_additional_properties(v)
            for k, v in node.items()
            if not (k == "additionalProperties" and isinstance(v, bool))
        }
    if isinstance(node, list):
        return [without_boolean_additional_properties(v) for v in node]
    return node


def gemini(tool):
    notes = []
    try:
        converted = _mcp_utils.mcp_to_gemini_tool(mcp_tool(tool))
    except AttributeError as e:
        # google-genai 3.3.0's MCP filter recurses into `additionalProperties` and fails on a
        # boolean (`'bool' object has no attribute 'items'`), whatever the rest of the schema;
        # Gemini's `Schema` has no use for it, so the tool is converted again without it.
        if "'bool' object has no attribute 'items'" not in str(e):
            raise
        notes.append("converted without boolean additionalProperties (google-genai bug)")
        plain = dict(tool, inputSchema=without_boolean_additional_properties(tool["inputSchema"]))
        converted = _mcp_utils.mcp_to_gemini_tool(mcp_tool(plain))
    declaration = converted.function_declarations[0]
    parameters = declaration.parameters.model_dump(mode="json", exclude_none=True)
    if parameters.get("type") != "OBJECT" and tool["inputSchema"].get("properties"):
        raise ValueError(f"parameters are not an object: {parameters.get('type')}")
    # Gemini's `Schema` writes enum values as strings.
    return lost(stringify_enums(tool["inputSchema"]), parameters, camel=False), notes


def stringify_enums(node):
    if isinstance(node, dict):
        out = {k: stringify_enums(v) for k, v in node.items()}
        if isinstance(node.get("enum"), list):
            out["enum"] = [v if isinstance(v, str) else json.dumps(v) for v in node["enum"]]
        return out
    if isinstance(node, list):
        return [stringify_enums(v) for v in node]
    return node


class ListedOnly(MCPServer):
    """A server that only lists: enough for `MCPUtil.to_function_tool`."""

    async def connect(self):
        raise NotImplementedError

    @property
    def name(self):
        return "listed-only"

    async def cleanup(self):
        pass

    async def list_tools(self, run_context=None, agent=None):
        return []

    async def call_tool(self, tool_name, arguments, meta=None):
        raise NotImplementedError

    async def list_prompts(self):
        raise NotImplementedError

    async def get_prompt(self, name, arguments=None):
        raise NotImplementedError


def openai_agents(tool):
    function_tool = MCPUtil.to_function_tool(mcp_tool(tool), ListedOnly(), convert_schemas_to_strict=True)
    if not function_tool.strict_json_schema:
        # The SDK fell back to a non-strict schema: say why.
        schema = copy.deepcopy(tool["inputSchema"])
        schema.setdefault("properties", {})
        try:
            ensure_strict_json_schema(schema, _reject_open_objects=True)
            reason = "unknown"
        except Exception as e:  # noqa: BLE001 - the reason is what is reported
            reason = f"{type(e).__name__}: {e}"
        raise ValueError(f"strict mode refused ({reason})")
    return lost(tool["inputSchema"], function_tool.params_json_schema), []


def langchain(tool):
    converted = convert_mcp_tool_to_langchain_tool(
        None, mcp_tool(tool), connection={"transport": "streamable_http", "url": "http://127.0.0.1:9/mcp"}
    )
    function = convert_to_openai_tool(converted)["function"]
    if function["name"] != tool["name"]:
        raise ValueError(f"renamed to {function['name']}")
    return lost(tool["inputSchema"], function["parameters"]), []


CONVERTERS = (("google-genai", gemini), ("openai-agents", openai_agents), ("langchain", langchain))


def main():
    tools = json.load(open(sys.argv[1], encoding="utf-8"))
    exempt = json.load(open(sys.argv[2], encoding="utf-8"))
    failures = 0
    for converter, convert in CONVERTERS:
        passed, exempted, notes_seen = 0, 0, {}
        for tool in tools:
            key = f"{tool['example']}/{tool['name']}"
            try:
                losses, notes = convert(tool)
                problem = "; ".join(losses) if losses else None
            except Exception as e:  # noqa: BLE001 - any refusal is a finding
                problem, notes = f"refused: {type(e).__name__}: {str(e)[:300]}", []
            for note in notes:
                notes_seen[note] = notes_seen.get(note, 0) + 1
            if problem is None:
                passed += 1
            elif key in exempt:
                exempted += 1
                print(f"  exempt  {converter}: {key}: {problem} [{exempt[key]}]")
            else:
                failures += 1
                print(f"  FAILED  {converter}: {key}: {problem}")
        summary = f"{converter}: {passed} of {len(tools)} tools accepted without loss"
        if exempted:
            summary += f", {exempted} exempt"
        for note, count in notes_seen.items():
            summary += f" ({count} {note})"
        print(summary)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
