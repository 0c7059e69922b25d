"""A backend written with the official Python SDK (`mcp` on PyPI, pinned in requirements.txt) for
.ci/gateway-interop.sh: an `MCPServer` with a tool with arguments (`add`), a tool that asks the
user (`confirm`, through the SDK's resolver: an `input_required` round on 2026-07-28, a mid-call
`elicitation/create` on a 2025 session), a resource (`py://motd`) and a prompt (`greet`).

Usage: python py_backend.py            (stdio: the gateway starts it as a child)
       python py_backend.py --http PORT (Streamable HTTP on 127.0.0.1:PORT/mcp; 0 picks a port,
                                         the URL is logged on stderr)
"""

from __future__ import annotations

import socket
import sys
from typing import Annotated

import anyio
from pydantic import BaseModel

from mcp.server.mcpserver import Elicit, MCPServer, Resolve

server = MCPServer(name="py-backend", version="1.0.0", instructions="The Python SDK's side of the gateway interop run.")


class Confirmation(BaseModel):
    goal: str


@server.tool(description="Adds two integers.")
def add(a: int, b: int) -> str:
    return f"py sum {a + b}"


def ask_goal(item: str) -> Elicit[Confirmation]:
    return Elicit(f"Why delete {item}?", Confirmation)


@server.tool(description="Deletes an item once the user says why.")
def confirm(item: str, answer: Annotated[Confirmation, Resolve(ask_goal)]) -> str:
    return f"py deleted {item}: {answer.goal}"


@server.resource("py://motd", name="motd", mime_type="text/plain", description="The message of the day.")
def motd() -> str:
    return "py motd: hello from the Python SDK"


@server.prompt(description="A greeting.")
def greet(name: str) -> str:
    return f"py greets {name}"


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        port = int(sys.argv[2])
        if port == 0:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
        print(f"py-backend at http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
        anyio.run(lambda: server.run_streamable_http_async(host="127.0.0.1", port=port))
    elif len(sys.argv) == 1:
        anyio.run(server.run_stdio_async)
    else:
        print("usage: python py_backend.py [--http PORT]", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
