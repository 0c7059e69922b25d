"""How a host gets a task's result from the notes example (examples/notes), with the official
Python client (`mcp` on PyPI, pinned in requirements.txt). It connects over 2026-07-28, declares
the tasks extension, creates three notes, calls `reindex` (which the server runs as a task), waits
for the task through `tasks/get` (30 s at most) and checks its result. Cancelling (`tasks/cancel`)
is not shown: notes has no task slow enough to cancel before it ends.

The SDK has no tasks extension of its own; it has the means to write one: a `ClientExtension`
that declares it and claims the `resultType: "task"` answer of `tools/call`, whose resolver polls
`tasks/get` (a request class whose `name_param` makes the SDK send the `Mcp-Name` header). With it
installed, `client.call_tool` returns the task's result like any other.

Usage: python host_tasks.py <http://127.0.0.1:PORT/mcp>

Exits non-zero, with the reason on stderr, on any error or unexpected result. The part between
the `guide:` markers is shown in the guide (mcp-runtime/src/guide/hosts.md, section 12);
tests/suite/guide_hosts.rs checks that it is shown as it is here.
"""

from __future__ import annotations

import asyncio
import re
import sys

# guide: start
from typing import Literal

import anyio
from mcp import types
from mcp.client import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim


class CreateTaskResult(types.Result):
    """What `tools/call` answers when the server runs the call as a task."""

    result_type: Literal["task"]
    task_id: str
    poll_interval_ms: int | None = None


class TaskParams(types.RequestParams):
    task_id: str


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"  # mirrored in the Mcp-Name header


class DetailedTask(types.Result):
    """What `tasks/get` answers: the task, with its result once completed."""

    task_id: str
    status: Literal["working", "input_required", "completed", "failed", "cancelled"]
    status_message: str | None = None
    result: types.CallToolResult | None = None
    error: types.ErrorData | None = None


async def wait_for_task(task: CreateTaskResult, ctx: ClaimContext) -> types.CallToolResult:
    """Polls `tasks/get` until the task ends (30 s at most), and returns its result."""
    print(f"task {task.task_id}")
    with anyio.fail_after(30):
        while True:
            got = await ctx.session.send_request(GetTask(params=TaskParams(task_id=task.task_id)), DetailedTask)
            print(f"{got.status}: {got.status_message or ''}")
            if got.status == "completed" and got.result is not None:
                return got.result
            if got.status != "working":  # failed, cancelled, or input_required (this host gives no input)
                raise RuntimeError(f"task {task.task_id} is {got.status}: {got.error or got.status_message}")
            await anyio.sleep((task.poll_interval_ms or 1000) / 1000)


class Tasks(ClientExtension):
    """The tasks extension: declared on every request; a task answer is waited for."""

    identifier = "io.modelcontextprotocol/tasks"

    def claims(self) -> list[ResultClaim[CreateTaskResult]]:
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=wait_for_task)]


async def main(url: str) -> None:
    async with Client(url, extensions=[Tasks()]) as client:
        for text in ["Buy milk", "Call Ada", "Water the plants"]:
            await client.call_tool("create_note", {"text": text})
        result = await client.call_tool("reindex")  # a task, waited for by wait_for_task
        text = "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
        print(f"result: {text}")
        # guide: end
        reindexed = re.fullmatch(r"Reindexed (\d+) notes\.", text)
        if reindexed is None or int(reindexed[1]) < 3:
            raise RuntimeError(f"unexpected reindex result: {text!r}")
        # The same call's answer unresolved: the task handle wait_for_task was given.
        handle = await client.session.call_tool("reindex", allow_claimed=True)
        if not isinstance(handle, CreateTaskResult):
            raise RuntimeError(f"reindex did not run as a task: {handle!r}")
        if client.protocol_version != "2026-07-28":
            raise RuntimeError(f"spoke {client.protocol_version}, not 2026-07-28")
    print("[host_tasks.py] OK")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python host_tasks.py <url>", file=sys.stderr)
        sys.exit(2)
    asyncio.run(main(sys.argv[1]))
