#!/usr/bin/env python3
"""Where a plain tools/call spends its instructions beyond the raw axum baseline, by stage.

Usage: callstages.py KEEP_DIR

KEEP_DIR holds the callgrind files of `MCP_BENCH_KEEP=KEEP_DIR mcp-bench --callgrind --only
baseline,call`. Each figure is a function's inclusive count per request, (I(1200) - I(200)) /
1000, as cgdiff.py computes it; the stages are the framework's own functions, so the table
names what each part of the protocol costs and what is left for hyper, axum and tokio.
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("cgdiff", os.path.join(HERE, "cgdiff.py"))
cgdiff = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cgdiff)


def per_request(keep, case):
    small = cgdiff.table(f"{keep}/callgrind.{case}.200.out", True)
    large = cgdiff.table(f"{keep}/callgrind.{case}.1200.out", True)
    return {k: (large.get(k, 0) - small.get(k, 0)) / 1000 for k in set(small) | set(large)}


def find(costs, *needles):
    """The largest inclusive count among functions whose name holds every needle."""
    hits = [v for k, v in costs.items() if all(n in k for n in needles)]
    return max(hits, default=0.0)


# The framework's functions each stage is read from (a part of the name is enough).
OURS = {
    "total": "start_thread",
    # The endpoint's POST future (its async block is inlined into the CORS wrapper's poll).
    "handler": "routes::WithCors<F> as core::future::future::Future>::poll",
    "dispatch": "dispatch::handle::<impl mcp_runtime::dispatch::dispatcher::Dispatcher>::handle",
    "decode": "dispatch::decode::read_tool_call",
    "meta": "RequestMetaVisitor as serde_core::de::Visitor>::visit_map",
    "header_cross": "HeaderChecks as mcp_runtime::dispatch::dispatcher::TransportChecks>::check_request",
    "validate": "dispatch::validate::validate",
    "depth": "dispatch::limits::check_depth",
    "encode": "dispatch::encode::Response::tool_result",
    "tool": "study::_::__mcp_handler",
    "body": "transport::http::endpoint::read_body::{{closure}}",
    "answer": "transport::http::answer::answer",
    "drop_call": "drop_in_place<mcp_runtime::dispatch::call::Call>",
}
# The transport's checks before dispatch.
GUARDS = [
    "guard::host_allowed",
    "guard::origin_allowed",
    "negotiate::accepts",
    "negotiate::content_type_ok",
    "era::of_post",
    "headers::McpHeaders::scan",
]
BASELINE = {
    "total": "start_thread",
    "handler": "axum::handler::Handler<(M,T1),S>>::call::{{closure}}",
    "answer": "mcp_bench::baseline_answer",
    "parse": "serde_json::de::from_trait",
}


def main():
    keep = sys.argv[1]
    ours, base = per_request(keep, "call"), per_request(keep, "baseline")
    o = {name: find(ours, needle) for name, needle in OURS.items()}
    b = {name: find(base, needle) for name, needle in BASELINE.items()}
    guards = sum(find(ours, f"transport::http::{name}") for name in GUARDS)
    rows = [
        ("whole request", b["total"], o["total"]),
        ("hyper, axum and tokio around the handler", b["total"] - b["handler"],
         o["total"] - o["handler"]),
        ("the handler", b["handler"], o["handler"]),
        ("· body read, response built, request parts dropped", b["handler"] - b["answer"],
         o["handler"] - o["dispatch"] - guards),
        ("· Host, Origin, Accept, Content-Type, era, MCP headers found", 0, guards),
        ("· JSON-RPC read (ours: `_meta` apart; the baseline scans past it)", b["parse"],
         o["decode"] - o["meta"]),
        # 0 when the `_meta` visitor is inlined into the params' reader (then in the row above).
        ("· `_meta` read (protocol version, capabilities, client info)", 0, o["meta"]),
        ("· MCP headers checked against the body", 0, o["header_cross"]),
        ("· nesting depth and other validation", 0,
         o["depth"] + o["validate"] - o["header_cross"]),
        ("· the tool (arguments parsed, `add`, text)", 0, o["tool"]),
        ("· result written", b["answer"] - b["parse"], o["encode"]),
        ("· routing, request context, telemetry hooks", 0,
         o["dispatch"] - o["decode"] - o["validate"] - o["depth"] - o["tool"] - o["encode"]),
    ]
    print("| part | baseline | ours | ours − baseline |")
    print("|---|---:|---:|---:|")
    for name, base_v, ours_v in rows:
        print(f"| {name} | {base_v:,.0f} | {ours_v:,.0f} | {ours_v - base_v:+,.0f} |")
    print()
    print(f"(body read: ours {o['body']:,.0f}; response framed: {o['answer']:,.0f}; "
          f"request context dropped: {o['drop_call']:,.0f})")


if __name__ == "__main__":
    main()
