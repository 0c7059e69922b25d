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


def main():
    keep = sys.argv[1]
    ours, base = per_request(keep, "call"), per_request(keep, "baseline")
    total_ours = find(ours, "start_thread")
    total_base = find(base, "start_thread")
    handler_ours = find(ours, "axum::handler::Handler<(M,T1,T2),S>>::call::{{closure}}")
    handler_base = find(base, "axum::handler::Handler<(M,T1),S>>::call::{{closure}}")
    decode = find(ours, "dispatch::decode::decode")
    meta = find(ours, "RequestMetaVisitor as serde_core::de::Visitor>::visit_map")
    header_cross = find(ours, "HeaderChecks as mcp_runtime::dispatch::TransportChecks>::check_request")
    validate = find(ours, "dispatch::validate::validate")
    depth = find(ours, "dispatch::limits::check_depth")
    start = find(ours, "route::<impl mcp_runtime::dispatch::Dispatcher>::start")
    encode = find(ours, "dispatch::encode::Response::tool_result")
    tool = find(ours, "study::_::__mcp_handler")
    dispatch = find(ours, "mcp_runtime::dispatch::Dispatcher::handle")
    guards = sum(
        find(ours, f"transport::http::{name}")
        for name in [
            "guard::host_allowed",
            "guard::origin_allowed",
            "negotiate::accepts",
            "negotiate::content_type_ok",
            "era::of_post",
            "headers::McpHeaders::scan",
        ]
    )
    body_ours = find(ours, "transport::http::read_body::{{closure}}")
    answer = find(ours, "transport::http::answer")
    drop_call = find(ours, "drop_in_place<mcp_runtime::dispatch::call::Call>")
    base_answer = find(base, "mcp_bench::baseline_answer")
    base_parse = find(base, "serde_json::de::from_trait")
    base_ser = base_answer - base_parse
    rows = [
        ("whole request", total_base, total_ours),
        ("hyper, axum and tokio around the handler", total_base - handler_base, total_ours - handler_ours),
        ("the handler", handler_base, handler_ours),
        ("· body read, response built, request parts dropped", handler_base - base_answer,
         handler_ours - dispatch - guards),
        ("· Host, Origin, Accept, Content-Type, era, MCP headers found", 0, guards),
        ("· JSON-RPC read (ours: one pass; baseline skips `_meta`)", base_parse, decode - meta),
        ("· `_meta` read (protocol version, capabilities, client info)", 0, meta),
        ("· MCP headers checked against the body", 0, header_cross),
        ("· nesting depth and other validation", 0, depth + validate - header_cross),
        ("· the tool (arguments parsed, `add`, text)", 0, tool),
        ("· result written", base_ser, encode),
        ("· routing, request context, telemetry hooks", 0, dispatch - decode - validate - depth - tool - encode),
    ]
    print("| part | baseline | ours | ours − baseline |")
    print("|---|---:|---:|---:|")
    for name, b, o in rows:
        print(f"| {name} | {b:,.0f} | {o:,.0f} | {o - b:+,.0f} |")
    print()
    print(f"(body read: ours {body_ours:,.0f}; response framed: {answer:,.0f}; "
          f"request context dropped: {drop_call:,.0f})")


if __name__ == "__main__":
    main()
