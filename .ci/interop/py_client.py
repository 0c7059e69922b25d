"""Drive one example server with the official Python client (`mcp` on PyPI, pinned in
requirements.txt) in its default `mode="auto"`: connect (a `server/discover` probe), list
tools/resources/prompts, call a tool, read a resource, get a prompt and, where cases.json has one,
a multi-round-trip (MRTR) tool call fulfilled by the client's own callbacks.

Usage: python py_client.py <case name in cases.json> <http://127.0.0.1:PORT/mcp>

Exits non-zero, with the reason on stderr, on any error or unexpected result. Every HTTP request
the client makes is recorded through an httpx event hook, so the run also proves that nothing fell
back to the 2025 `initialize` handshake and that each POST carried the 2026-07-28 headers and `_meta`.
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from pathlib import Path
from typing import Any

import httpx2 as httpx
from mcp import types
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

CASES = json.loads((Path(__file__).parent / "cases.json").read_text())
META_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


class Failure(Exception):
    pass


def text_of(blocks: Any) -> str:
    return "\n".join(getattr(b, "text", "") or "" for b in blocks or [])


def expect_set(what: str, got: list[str], want: list[str]) -> None:
    missing = [w for w in want if w not in got]
    if missing:
        raise Failure(f"{what}: missing {missing} in {got}")


def expect_text(what: str, text: str, needle: str) -> None:
    if needle not in text:
        raise Failure(f"{what}: expected {needle!r} in {text!r}")


async def run(case: str, url: str, wire: list[dict[str, Any]]) -> None:
    expected = CASES["servers"][case]
    version = CASES["protocolVersion"]
    tag = f"[py-client {case}]"
    mrtr = expected.get("mrtr")

    async def record(request: httpx.Request) -> None:
        if request.method != "POST":
            return
        try:
            body = json.loads(request.content)
        except (ValueError, httpx.RequestNotRead):
            return
        for m in body if isinstance(body, list) else [body]:
            if isinstance(m, dict) and isinstance(m.get("method"), str):
                meta = (m.get("params") or {}).get("_meta") or {}
                wire.append(
                    {
                        "method": m["method"],
                        "headerVersion": request.headers.get("mcp-protocol-version"),
                        "headerMethod": request.headers.get("mcp-method"),
                        "metaVersion": meta.get(META_VERSION_KEY),
                    }
                )

    async def list_roots(_context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///work/interop", name="interop")])

    async def sample(_context: Any, _params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        assert mrtr is not None
        return types.CreateMessageResult(
            role="assistant", model="interop-stub", content=types.TextContent(type="text", text=mrtr["sample"])
        )

    async def elicit(_context: Any, _params: types.ElicitRequestParams) -> types.ElicitResult:
        assert mrtr is not None
        return types.ElicitResult(action="accept", content={"goal": mrtr["goal"]})

    http = httpx.AsyncClient(event_hooks={"request": [record]}, timeout=30.0)
    transport = streamable_http_client(url, http_client=http)
    async with http, Client(
        transport,
        client_info=types.Implementation(name="mcp-interop-py-client", version="1.0.0"),
        list_roots_callback=list_roots if mrtr else None,
        sampling_callback=sample if mrtr else None,
        elicitation_callback=elicit if mrtr else None,
        read_timeout_seconds=30.0,
    ) as client:
        if client.protocol_version != version:
            raise Failure(f"negotiated protocol version {client.protocol_version}, not {version}")
        print(f"{tag} connected: version {client.protocol_version}, mode auto")

        tools = (await client.list_tools()).tools
        expect_set("tools/list", [t.name for t in tools], expected["tools"])
        resources = (await client.list_resources()).resources
        expect_set("resources/list", [str(r.uri) for r in resources], expected["resources"])
        prompts = (await client.list_prompts()).prompts
        expect_set("prompts/list", [p.name for p in prompts], expected["prompts"])
        print(f"{tag} listed {len(tools)} tools, {len(resources)} resources, {len(prompts)} prompts")

        call = expected["call"]
        called = await client.call_tool(call["name"], call["arguments"])
        if called.is_error:
            raise Failure(f"tools/call {call['name']} returned isError: {text_of(called.content)}")
        expect_text(f"tools/call {call['name']}", text_of(called.content), call["text"])
        print(f"{tag} called {call['name']}: {text_of(called.content)!r}")

        read = expected["read"]
        contents = (await client.read_resource(read["uri"])).contents
        expect_text(f"resources/read {read['uri']}", text_of(contents), read["text"])
        print(f"{tag} read {read['uri']} ({len(contents)} content item(s))")

        get = expected["get"]
        got = await client.get_prompt(get["name"], get["arguments"])
        expect_text(f"prompts/get {get['name']}", text_of([m.content for m in got.messages]), get["text"])
        print(f"{tag} got prompt {get['name']} ({len(got.messages)} message(s))")

        if mrtr:
            before = len(wire)
            res = await client.call_tool(mrtr["name"], mrtr["arguments"])
            if res.is_error:
                raise Failure(f"tools/call {mrtr['name']} returned isError: {text_of(res.content)}")
            expect_text(f"tools/call {mrtr['name']}", text_of(res.content), mrtr["text"])
            rounds = sum(1 for w in wire[before:] if w["method"] == "tools/call")
            if rounds < 2:
                raise Failure(f"tools/call {mrtr['name']} finished in {rounds} round(s); expected an MRTR retry")
            print(f"{tag} called {mrtr['name']} through MRTR in {rounds} rounds: {text_of(res.content)}")

    methods = [w["method"] for w in wire]
    if "initialize" in methods:
        raise Failure(f"the client sent initialize: {methods}")
    if not methods or methods[0] != "server/discover":
        raise Failure(f"the first request was {methods[:1]}, not server/discover")
    for w in wire:
        if w["headerVersion"] != version:
            raise Failure(f"{w['method']} went with MCP-Protocol-Version {w['headerVersion']}")
        if w["headerMethod"] != w["method"]:
            raise Failure(f"{w['method']} went with Mcp-Method {w['headerMethod']}")
        if not w["method"].startswith("notifications/") and w["metaVersion"] != version:
            raise Failure(f"{w['method']} went with _meta protocolVersion {w['metaVersion']}")
    print(f"{tag} wire: {', '.join(methods)}")
    print(f"{tag} OK")


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in CASES["servers"]:
        print("usage: python py_client.py <study-server|acme-knowledge> <url>", file=sys.stderr)
        return 2
    case, url = sys.argv[1], sys.argv[2]
    wire: list[dict[str, Any]] = []
    try:
        asyncio.run(run(case, url, wire))
    except BaseException as err:  # noqa: BLE001 - report anything, including exception groups
        print(f"[py-client {case}] FAILED: {err!r}", file=sys.stderr)
        traceback.print_exc()
        print(f"[py-client {case}] wire so far: {json.dumps(wire)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
