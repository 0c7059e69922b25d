"""Lists every example's tools the way a host does: the example binary is started with
`--stdio`, sent `tools/list` (2026-07-28, every page), and stopped. Writes one JSON array of
{example, name, description, inputSchema} to the file named first; then `example=path` pairs.
"""

import json
import subprocess
import sys
import threading

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "mcp-hosts-check", "version": "1.0.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
TIMEOUT_S = 60


def list_tools(example, exe):
    proc = subprocess.Popen(
        [exe, "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # A server that stops answering must not hang the check.
    timer = threading.Timer(TIMEOUT_S, proc.kill)
    timer.start()
    try:
        tools, cursor, request_id = [], None, 0
        while True:
            request_id += 1
            params = {"_meta": META}
            if cursor is not None:
                params["cursor"] = cursor
            message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params}
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            while True:
                line = proc.stdout.readline()
                if not line:
                    raise RuntimeError(f"{example}: the server closed stdout: {proc.stderr.read()[-2000:]}")
                answer = json.loads(line)
                if answer.get("id") == request_id:
                    break
            if "error" in answer:
                raise RuntimeError(f"{example}: tools/list failed: {answer['error']}")
            result = answer["result"]
            tools.extend(result["tools"])
            cursor = result.get("nextCursor")
            if not cursor:
                return tools
    finally:
        timer.cancel()
        if proc.stdin and not proc.stdin.closed:
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main():
    out, pairs = sys.argv[1], sys.argv[2:]
    everything = []
    for pair in pairs:
        example, exe = pair.split("=", 1)
        tools = list_tools(example, exe)
        print(f"  {example}: {len(tools)} tools")
        for tool in tools:
            everything.append({
                "example": example,
                "name": tool["name"],
                "description": tool.get("description"),
                "inputSchema": tool["inputSchema"],
            })
    with open(out, "w", encoding="utf-8") as f:
        json.dump(everything, f, indent=1)


if __name__ == "__main__":
    main()
