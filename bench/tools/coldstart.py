#!/usr/bin/env python3
"""Cold start of the benchmark server: spawn to the first correct `tools/list` answer.

Usage: coldstart.py [--fill N] [--launches K] [--port P] BIN [BIN ...]

Each BIN is an `mcp-bench-ours` binary (for example one built from this tree and one from a
`git archive` of a base commit). The binaries are launched in turn, K times each, with
`--addr 127.0.0.1:P --fill N`; a launch is timed from the spawn until a `tools/list` POST to
`/mcp` answers with a full first page and a `nextCursor` (N > page size) or N tools. The
fastest and the median of each binary are printed: a launch can only be slowed by noise, so
the fastest is the stable figure, the median shows the spread.
"""

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import time

BODY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "coldstart", "version": "1.0.0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
)
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/list",
}


def answer(port):
    """The parsed `tools/list` result, or None while the server is not up yet."""
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("POST", "/mcp", BODY, HEADERS)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
    except OSError:
        return None
    if resp.status != 200:
        sys.exit(f"tools/list answered HTTP {resp.status}: {data[:300]!r}")
    return json.loads(data)["result"]


def launch(binary, port, fill):
    start = time.perf_counter()
    child = subprocess.Popen(
        [binary, "--addr", f"127.0.0.1:{port}", "--fill", str(fill)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = start + 60
        while True:
            result = answer(port)
            if result is not None:
                break
            if child.poll() is not None:
                sys.exit(f"{binary} exited with {child.returncode} before answering")
            if time.perf_counter() > deadline:
                sys.exit(f"{binary} did not answer within 60 s")
            time.sleep(0.0005)
        elapsed = (time.perf_counter() - start) * 1000
        tools = result.get("tools", [])
        if not tools or (len(tools) < fill and "nextCursor" not in result):
            sys.exit(f"{binary}: an incomplete first page ({len(tools)} tools, no cursor)")
        return elapsed
    finally:
        child.kill()
        child.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fill", type=int, default=1000, help="tools registered (default 1000)")
    ap.add_argument("--launches", type=int, default=20, help="launches per binary (default 20)")
    ap.add_argument("--port", type=int, default=18931, help="port on 127.0.0.1 (default 18931)")
    ap.add_argument("bins", nargs="+", metavar="BIN")
    args = ap.parse_args()
    samples = {b: [] for b in args.bins}
    for _ in range(args.launches):
        for b in args.bins:
            samples[b].append(launch(b, args.port, args.fill))
    print(f"cold start, spawn to the first tools/list answer, {args.fill} tools, "
          f"{args.launches} launches each (alternating)")
    for b, s in samples.items():
        print(f"  fastest {min(s):6.1f} ms  median {statistics.median(s):6.1f} ms  {b}")


if __name__ == "__main__":
    main()
