"""Drive one example server with the official Python client (`mcp` on PyPI, pinned in
requirements.txt) in its legacy mode (`mode="legacy"`: the 2025-11-25 `initialize` handshake, an
Mcp-Session-Id on every later request, the GET stream, and DELETE when the client closes): list
tools/resources/prompts, call a tool, read a resource, get a prompt and, where cases.json has one,
call the tool that needs client input: the server asks roots/list, sampling/createMessage and
elicitation/create as real server-to-client requests on the POST's SSE stream, and the client's
own callbacks answer them (POSTed back as JSON-RPC responses).

Usage: python py_legacy_client.py <case name in cases.json> <http://127.0.0.1:PORT/mcp>

Exits non-zero, with the reason on stderr, on any error or unexpected result. Every HTTP request
the client makes goes through a recording httpx transport (which also reads a copy of each POST's
SSE stream), so the run also proves on the wire that it spoke 2025-11-25: its first POST was
initialize, every later request carried the session id the server handed out and
MCP-Protocol-Version 2025-11-25, the server's requests came on the tool call's own stream, and the
client's answers were accepted with 202.
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
from mcp import types
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

CASES = json.loads((Path(__file__).parent / "cases.json").read_text())
BRIDGED = ["roots/list", "sampling/createMessage", "elicitation/create"]


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


class TeeStream(httpx.AsyncByteStream):
    """Passes an SSE response body through unchanged, noting the method (or `response`) of each
    JSON-RPC message its `data:` lines carry into `streamed`."""

    def __init__(self, inner: httpx.AsyncByteStream, streamed: list[str]) -> None:
        self._inner = inner
        self._streamed = streamed
        self._buffer = b""
        self._data: list[str] = []

    def _feed(self, chunk: bytes) -> None:
        self._buffer += chunk
        while b"\n" in self._buffer:
            raw, self._buffer = self._buffer.split(b"\n", 1)
            line = raw.rstrip(b"\r").decode("utf-8", "replace")
            if line.startswith("data:"):
                self._data.append(line[5:].lstrip(" "))
            elif line == "" and self._data:
                try:
                    message = json.loads("\n".join(self._data))
                except ValueError:
                    message = None  # a priming event: not a message
                if isinstance(message, dict):
                    method = message.get("method")
                    self._streamed.append(method if isinstance(method, str) else "response")
                self._data = []

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._feed(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class RecordingTransport(httpx.AsyncBaseTransport):
    """Records one entry per HTTP request (POSTs split into their JSON-RPC messages): the session
    and version headers it went with, and the status, content type and session id it got back."""

    def __init__(self, wire: list[dict[str, Any]]) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._wire = wire

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        entries: list[dict[str, Any]] = []
        if request.method == "POST":
            try:
                body = json.loads(request.content)
            except (ValueError, httpx.RequestNotRead):
                body = None
            for m in body if isinstance(body, list) else [body]:
                if isinstance(m, dict):
                    method = m.get("method")
                    entries.append(
                        {
                            "http": "POST",
                            "kind": method if isinstance(method, str) else "response",
                            "id": m.get("id"),
                            "error": m.get("error"),
                        }
                    )
        else:
            entries.append({"http": request.method, "kind": request.method})
        response = await self._inner.handle_async_request(request)
        content_type = response.headers.get("content-type", "").split(";")[0].strip()
        for e in entries:
            e["sessionSent"] = request.headers.get("mcp-session-id")
            e["versionSent"] = request.headers.get("mcp-protocol-version")
            e["status"] = response.status_code
            e["contentType"] = content_type
            e["sessionGot"] = response.headers.get("mcp-session-id")
            self._wire.append(e)
        if (
            request.method == "POST"
            and len(entries) == 1
            and entries[0]["kind"] != "response"
            and content_type == "text/event-stream"
        ):
            entries[0]["streamed"] = []
            return httpx.Response(
                status_code=response.status_code,
                headers=response.headers,
                stream=TeeStream(response.stream, entries[0]["streamed"]),  # type: ignore[arg-type]
                extensions=response.extensions,
                request=request,
            )
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


async def run(case: str, url: str, wire: list[dict[str, Any]]) -> None:
    expected = CASES["servers"][case]
    version = CASES["legacyProtocolVersion"]
    tag = f"[py-legacy-client {case}]"
    mrtr = expected.get("mrtr")
    answered: list[str] = []

    async def list_roots(_context: Any) -> types.ListRootsResult:
        answered.append("roots/list")
        return types.ListRootsResult(roots=[types.Root(uri="file:///work/interop", name="interop")])

    async def sample(_context: Any, _params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        assert mrtr is not None
        answered.append("sampling/createMessage")
        return types.CreateMessageResult(
            role="assistant", model="interop-stub", content=types.TextContent(type="text", text=mrtr["sample"])
        )

    async def elicit(_context: Any, _params: types.ElicitRequestParams) -> types.ElicitResult:
        assert mrtr is not None
        answered.append("elicitation/create")
        return types.ElicitResult(action="accept", content={"goal": mrtr["goal"]})

    http = httpx.AsyncClient(transport=RecordingTransport(wire), timeout=30.0)
    transport = streamable_http_client(url, http_client=http, terminate_on_close=True)
    session_id: str | None = None
    async with http:
        async with Client(
            transport,
            mode="legacy",
            client_info=types.Implementation(name="mcp-interop-py-legacy-client", version="1.0.0"),
            list_roots_callback=list_roots if mrtr else None,
            sampling_callback=sample if mrtr else None,
            elicitation_callback=elicit if mrtr else None,
            read_timeout_seconds=30.0,
        ) as client:
            if client.protocol_version != version:
                raise Failure(f"negotiated protocol version {client.protocol_version}, not {version}")
            session_id = wire[0].get("sessionGot") if wire else None
            if not session_id:
                raise Failure("the server handed out no Mcp-Session-Id on initialize")
            info = client.session.initialize_result
            server = f"{info.server_info.name} {info.server_info.version}" if info else "?"
            print(f"{tag} connected: version {client.protocol_version}, mode legacy, session {session_id}, server {server}")

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
                for want in BRIDGED:
                    if want not in answered:
                        raise Failure(f"tools/call {mrtr['name']}: the server never asked {want} (asked: {answered})")
                posts = [w for w in wire[before:] if w["kind"] == "tools/call"]
                if len(posts) != 1:
                    raise Failure(
                        f"tools/call {mrtr['name']} went out {len(posts)} times; the 2025-11-25 bridge needs exactly one"
                    )
                post = posts[0]
                if post["contentType"] != "text/event-stream":
                    raise Failure(f"tools/call {mrtr['name']} was answered with {post['contentType']}")
                for want in BRIDGED:
                    if want not in post.get("streamed", []):
                        raise Failure(
                            f"{want} did not come on the tools/call POST's SSE stream (it carried {post.get('streamed')})"
                        )
                answers = [w for w in wire[before:] if w["kind"] == "response"]
                if len(answers) != len(answered):
                    raise Failure(f"answered {len(answered)} server requests but POSTed {len(answers)} responses")
                for a in answers:
                    if a["error"]:
                        raise Failure(f"the client answered a server request with an error: {a['error']}")
                    if a["status"] != 202:
                        raise Failure(f"the client's response to server request {a['id']} got HTTP {a['status']}, not 202")
                print(
                    f"{tag} called {mrtr['name']}; its SSE stream carried {', '.join(post['streamed'])}: "
                    f"{text_of(res.content)}"
                )
        # Leaving the Client closed the transport, which sent DELETE for the session.

    posts = [w for w in wire if w["http"] == "POST"]
    if not posts or posts[0]["kind"] != "initialize":
        raise Failure(f"the first POST was {posts[0]['kind'] if posts else None}, not initialize")
    if posts[0]["sessionSent"]:
        raise Failure(f"initialize went with Mcp-Session-Id {posts[0]['sessionSent']}")
    if any(w["kind"] == "server/discover" for w in posts):
        raise Failure("the client sent server/discover")
    for w in wire:
        if w["kind"] == "initialize":
            continue
        if w["sessionSent"] != session_id:
            raise Failure(f"{w['kind']} went with Mcp-Session-Id {w['sessionSent']}, not {session_id}")
        if w["versionSent"] != version:
            raise Failure(f"{w['kind']} went with MCP-Protocol-Version {w['versionSent']}")
    initialized = next((w for w in posts if w["kind"] == "notifications/initialized"), None)
    if not initialized or initialized["status"] != 202:
        raise Failure(f"notifications/initialized got HTTP {initialized['status'] if initialized else None}")
    deleted = next((w for w in wire if w["http"] == "DELETE"), None)
    if not deleted or not 200 <= deleted["status"] <= 299:
        raise Failure(f"DELETE of the session got HTTP {deleted['status'] if deleted else None}")
    print(f"{tag} wire: {', '.join(f'''{w['kind'] if w['http'] == 'POST' else w['http']} {w['status']}''' for w in wire)}")
    print(f"{tag} OK")


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in CASES["servers"]:
        print("usage: python py_legacy_client.py <study-server|acme-knowledge> <url>", file=sys.stderr)
        return 2
    case, url = sys.argv[1], sys.argv[2]
    wire: list[dict[str, Any]] = []
    try:
        asyncio.run(run(case, url, wire))
    except BaseException as err:  # noqa: BLE001 - report anything, including exception groups
        print(f"[py-legacy-client {case}] FAILED: {err!r}", file=sys.stderr)
        traceback.print_exc()
        print(f"[py-legacy-client {case}] wire so far: {json.dumps(wire)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
