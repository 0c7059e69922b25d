"""Drive the gateway example (examples/gateway) with the official Python client (`mcp` on PyPI,
pinned in requirements.txt), for .ci/gateway-interop.sh, in either era:

- `modern`: the default `mode="auto"`, which must settle on 2026-07-28 (`server/discover` first,
  never `initialize`); an elicitation asked by a backend reaches the client as an
  `input_required` round, and the client's retry goes back through the gateway (2+ POSTs of
  tools/call).
- `legacy`: `mode="legacy"`, the 2025-11-25 session (`initialize`, Mcp-Session-Id, DELETE at the
  end); the gateway asks the elicitation as a real `elicitation/create` request on the tool
  call's SSE stream, answered by the client's callback (one POST of tools/call).

For each mount named (all of gateway-cases.json's `mounts` unless some are named), it checks that the gateway lists its tool,
resource and prompt (names under the backend's prefix), calls its tool, reads its resource, gets
its prompt and calls its tool that asks the user, answering with the case's goal (or, where the
case has `elicitError`: a 2025-only backend asking mid-call, checks that the call fails with that text).

Usage: python py_gateway_client.py <modern|legacy> <http://127.0.0.1:PORT/mcp> [mount...]
Exits non-zero, with the reason on stderr, on any error or unexpected result.
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

CASES = json.loads((Path(__file__).parent / "gateway-cases.json").read_text())
META_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


def case_of(mount: str) -> dict[str, Any]:
    """The expectations for one mount: its server's, with names and URIs as the gateway shows them."""
    m = CASES["mounts"][mount]
    case = json.loads(json.dumps(CASES["servers"][m["server"]]))
    for key in ("call", "elicit", "get"):
        case[key]["name"] = f"{mount}_{case[key]['name']}"
    if m.get("uris") == "prefix":
        scheme, rest = case["read"]["uri"].split("://", 1)
        case["read"]["uri"] = f"{scheme}://{mount}/{rest}"
    return case


class Failure(Exception):
    pass


def text_of(blocks: Any) -> str:
    return "\n".join(getattr(b, "text", "") or "" for b in blocks or [])


def expect(what: str, ok: bool, detail: Any) -> None:
    if not ok:
        raise Failure(f"{what}: {detail}")


def expect_text(what: str, text: str, needle: str) -> None:
    expect(what, needle in text, f"expected {needle!r} in {text!r}")


class TeeStream(httpx.AsyncByteStream):
    """Passes an SSE body through unchanged, noting each JSON-RPC message's method (or
    `response`) into `streamed`."""

    def __init__(self, inner: httpx.AsyncByteStream, streamed: list[str]) -> None:
        self._inner, self._streamed, self._buffer, self._data = inner, streamed, b"", []

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
                    message = None
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
    """One wire entry per HTTP request (a POST per JSON-RPC message it carries)."""

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
                            "error": m.get("error"),
                            "metaVersion": ((m.get("params") or {}).get("_meta") or {}).get(META_VERSION_KEY),
                        }
                    )
        else:
            entries.append({"http": request.method, "kind": request.method})
        # Logged when sent (an answer's 202 may come after the call it unblocked has finished).
        for e in entries:
            e["sessionSent"] = request.headers.get("mcp-session-id")
            e["versionSent"] = request.headers.get("mcp-protocol-version")
            e["methodSent"] = request.headers.get("mcp-method")
            e["status"] = None
            self._wire.append(e)
        response = await self._inner.handle_async_request(request)
        content_type = response.headers.get("content-type", "").split(";")[0].strip()
        for e in entries:
            e["status"] = response.status_code
            e["contentType"] = content_type
            e["sessionGot"] = response.headers.get("mcp-session-id")
        if len(entries) == 1 and entries[0]["kind"] not in ("response", "GET") and content_type == "text/event-stream":
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


async def run(era: str, url: str, mounts: list[str], wire: list[dict[str, Any]], tag: str) -> None:
    legacy = era == "legacy"
    version = CASES["legacyProtocolVersion"] if legacy else CASES["protocolVersion"]
    goal = CASES["goal"]
    asked: list[str] = []

    async def elicit(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"goal": goal})

    http = httpx.AsyncClient(transport=RecordingTransport(wire), timeout=30.0)
    transport = streamable_http_client(url, http_client=http, terminate_on_close=legacy)
    session_id = None
    async with http:
        async with Client(
            transport,
            mode="legacy" if legacy else "auto",
            client_info=types.Implementation(name="mcp-gateway-interop-py-client", version="1.0.0"),
            elicitation_callback=elicit,
            read_timeout_seconds=30.0,
        ) as client:
            expect("negotiated protocol version", client.protocol_version == version, client.protocol_version)
            if legacy:
                session_id = wire[0].get("sessionGot") if wire else None
                expect("initialize", bool(session_id), "the gateway handed out no Mcp-Session-Id")
            print(f"{tag} connected: version {client.protocol_version}")

            tools = [t.name for t in (await client.list_tools()).tools]
            resources = [str(r.uri) for r in (await client.list_resources()).resources]
            prompts = [p.name for p in (await client.list_prompts()).prompts]
            print(f"{tag} tools {tools}, resources {resources}, prompts {prompts}")
            for name in mounts:
                case = case_of(name)
                for what, got, want in [
                    ("tools/list", tools, [case["call"]["name"], case["elicit"]["name"]]),
                    ("resources/list", resources, [case["read"]["uri"]]),
                    ("prompts/list", prompts, [case["get"]["name"]]),
                ]:
                    missing = [w for w in want if w not in got]
                    expect(what, not missing, f"missing {missing} in {got}")

            for name in mounts:
                case = case_of(name)
                call = case["call"]
                called = await client.call_tool(call["name"], call["arguments"])
                expect(f"tools/call {call['name']}", not called.is_error, text_of(called.content))
                expect_text(f"tools/call {call['name']}", text_of(called.content), call["text"])
                print(f"{tag} called {call['name']}: {text_of(called.content)!r}")

                read = case["read"]
                contents = (await client.read_resource(read["uri"])).contents
                expect_text(f"resources/read {read['uri']}", text_of(contents), read["text"])
                print(f"{tag} read {read['uri']}: {text_of(contents)!r}")

                get = case["get"]
                got = await client.get_prompt(get["name"], get["arguments"])
                expect_text(f"prompts/get {get['name']}", text_of([m.content for m in got.messages]), get["text"])
                print(f"{tag} got prompt {get['name']}: {text_of([m.content for m in got.messages])!r}")

                el = case["elicit"]
                before, asked_before = len(wire), len(asked)
                if "elicitError" in el:
                    try:
                        res = await client.call_tool(el["name"], el["arguments"])
                        outcome = text_of(res.content) if res.is_error else None
                        expect(f"tools/call {el['name']}", outcome is not None, f"succeeded: {text_of(res.content)!r}")
                    except Failure:
                        raise
                    except Exception as err:  # noqa: BLE001 - a JSON-RPC error is the other way to refuse
                        outcome = str(err)
                    expect_text(f"tools/call {el['name']} (refused)", outcome, el["elicitError"])
                    print(f"{tag} {el['name']} refused as expected: {outcome!r}")
                    continue
                res = await client.call_tool(el["name"], el["arguments"])
                expect(f"tools/call {el['name']}", not res.is_error, text_of(res.content))
                expect_text(f"tools/call {el['name']}", text_of(res.content), el["text"])
                expect(f"tools/call {el['name']}", asked[asked_before:] == [el["message"]], f"asked {asked[asked_before:]}")
                posts = [w for w in wire[before:] if w["kind"] == "tools/call"]
                if legacy:
                    expect(f"tools/call {el['name']}", len(posts) == 1, f"{len(posts)} POSTs; the 2025 bridge needs one")
                    streamed = posts[0].get("streamed") or []
                    expect(f"tools/call {el['name']}", "elicitation/create" in streamed, f"its SSE stream carried {streamed}")
                    answers = [w for w in wire[before:] if w["kind"] == "response"]
                    for _ in range(100):
                        if all(a["status"] is not None for a in answers):
                            break
                        await asyncio.sleep(0.05)
                    expect("the client's answer", len(answers) == 1 and answers[0]["status"] == 202 and not answers[0]["error"], answers)
                    how = f"elicitation/create on its SSE stream ({', '.join(streamed)})"
                else:
                    expect(f"tools/call {el['name']}", len(posts) >= 2, f"{len(posts)} round(s); expected an MRTR retry")
                    how = f"MRTR in {len(posts)} rounds"
                print(f"{tag} called {el['name']} through {how}: {text_of(res.content)!r}")

    if legacy:
        posts = [w for w in wire if w["http"] == "POST"]
        expect("the first POST", posts and posts[0]["kind"] == "initialize", posts[0]["kind"] if posts else None)
        expect("server/discover", not any(w["kind"] == "server/discover" for w in posts), "sent in legacy mode")
        for w in wire:
            if w["kind"] != "initialize":
                expect(w["kind"], w["sessionSent"] == session_id, f"went with Mcp-Session-Id {w['sessionSent']}")
                expect(w["kind"], w["versionSent"] == version, f"went with MCP-Protocol-Version {w['versionSent']}")
        deleted = next((w for w in wire if w["http"] == "DELETE"), None)
        expect("DELETE", deleted is not None and 200 <= deleted["status"] <= 299, deleted)
    else:
        methods = [w["kind"] for w in wire if w["http"] == "POST"]
        expect("the requests", "initialize" not in methods, f"the client sent initialize: {methods}")
        expect("the first request", methods[:1] == ["server/discover"], methods[:1])
        for w in wire:
            if w["http"] != "POST" or w["kind"] == "response":
                continue
            expect(w["kind"], w["versionSent"] == version, f"went with MCP-Protocol-Version {w['versionSent']}")
            expect(w["kind"], w["methodSent"] == w["kind"], f"went with Mcp-Method {w['methodSent']}")
            if not w["kind"].startswith("notifications/"):
                expect(w["kind"], w["metaVersion"] == version, f"went with _meta protocolVersion {w['metaVersion']}")
    print(f"{tag} wire: {', '.join(f'''{w['kind'] if w['http'] == 'POST' else w['http']} {w['status']}''' for w in wire)}")
    print(f"{tag} OK")


def main() -> int:
    args = sys.argv[1:]
    if len(args) < 2 or args[0] not in ("modern", "legacy") or any(b not in CASES["mounts"] for b in args[2:]):
        print("usage: python py_gateway_client.py <modern|legacy> <url> [mount...]", file=sys.stderr)
        return 2
    era, url, mounts = args[0], args[1], args[2:] or list(CASES["mounts"])
    tag = f"[py-client {era} {'+'.join(mounts)}]"
    wire: list[dict[str, Any]] = []
    try:
        asyncio.run(run(era, url, mounts, wire, tag))
    except BaseException as err:  # noqa: BLE001 - report anything, including exception groups
        print(f"{tag} FAILED: {err!r}", file=sys.stderr)
        traceback.print_exc()
        print(f"{tag} wire so far: {json.dumps(wire)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
