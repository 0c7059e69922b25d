//! An in-process loop for profilers: `mcp-bench-profile CASE ITERATIONS` dispatches the case's
//! request `ITERATIONS` times with `Server::handle_message` (no sockets) and prints the mean
//! wall time per request. Run it under `valgrind --tool=callgrind` to see where the
//! instructions go. Cases: `baseline` (the baseline's parse + serialize; `baseline-nometa`
//! the same without the body's `_meta`), `call`, `sse`, `mrtr` (both rounds alternately),
//! `mrtr1` and `mrtr2` (the first round or the retry alone), `resource`, `validate20`,
//! `list100`, `list1000`, `list10000`; and `listen`, the heap bytes each open listen stream
//! holds.

#[path = "../../../examples/study-server/server.rs"]
#[allow(dead_code, unreachable_pub)]
mod study;

use mcp_bench::{Request, add_call, mrtr_first, mrtr_retry, resource_read, tools_list};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The system allocator, counting allocations so the loop can report allocations per request.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOCATED_BYTES: AtomicU64 = AtomicU64::new(0);
/// Bytes allocated and not yet freed.
static LIVE_BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to `System` unchanged; the counters are plain atomics.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        LIVE_BYTES.fetch_sub(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> (u64, u64) {
    (
        ALLOCATIONS.load(Ordering::Relaxed),
        ALLOCATED_BYTES.load(Ordering::Relaxed),
    )
}

fn body_of(resp: &[u8]) -> serde_json::Value {
    serde_json::from_slice(resp).unwrap_or_default()
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let case = args
        .next()
        .ok_or("usage: mcp-bench-profile CASE ITERATIONS")?;
    let iters: usize = args
        .next()
        .and_then(|v| v.parse().ok())
        .ok_or("usage: mcp-bench-profile CASE ITERATIONS")?;
    if case == "baseline" || case == "baseline-nometa" {
        let mut body = add_call(false).body;
        if case == "baseline-nometa" {
            // The same body without `_meta`: what skipping it costs the baseline's parse.
            let mut v: serde_json::Value =
                serde_json::from_str(&body).map_err(|e| e.to_string())?;
            if let Some(params) = v["params"].as_object_mut() {
                params.remove("_meta");
            }
            body = v.to_string();
        }
        let a0 = allocations();
        let t = Instant::now();
        let mut bytes = 0;
        for _ in 0..iters {
            bytes += mcp_bench::baseline_answer(body.as_bytes()).map_or(0, |v| v.len());
        }
        let ns = t.elapsed().as_nanos() as f64 / iters as f64;
        let a1 = allocations();
        println!(
            "baseline: {ns:.0} ns/request ({bytes} bytes), {:.1} allocations ({:.0} bytes)/request",
            (a1.0 - a0.0) as f64 / iters as f64,
            (a1.1 - a0.1) as f64 / iters as f64
        );
        return Ok(());
    }
    let (fill, validate) = match case.as_str() {
        "validate20" => (0, true),
        "list100" => (100, false),
        "list1000" => (1000, false),
        "list10000" => (10000, false),
        _ => (0, false),
    };
    let server =
        mcp_bench::build_server(study::build, fill, validate).map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| e.to_string())?;
    let send = |req: &Request| -> Vec<u8> {
        rt.block_on(async {
            match server.handle_message(req.body.as_bytes(), Default::default()) {
                Some(call) => call.response().await.body.to_vec(),
                None => Vec::new(),
            }
        })
    };
    if case == "listen" {
        // Heap bytes each open listen stream holds in the framework (no HTTP): `iters` streams,
        // each polled to its acknowledgement, then counted while all are open; five rounds, and
        // after each, what is still held once all are closed (a leak would grow it).
        let server = mcp_bench::clients_server().map_err(|e| e.to_string())?;
        let body = mcp_bench::listen_request().body;
        // Made before counting: the calls' own slots are not the framework's heap.
        let mut calls = Vec::with_capacity(iters);
        let mut held_after = Vec::with_capacity(5);
        let before = LIVE_BYTES.load(Ordering::Relaxed);
        for round in 0..5 {
            rt.block_on(async {
                for _ in 0..iters {
                    let mut call = server
                        .handle_message(body.as_bytes(), Default::default())
                        .ok_or("no call")?;
                    call.next_message().await.ok_or("no acknowledgement")?;
                    calls.push(call);
                }
                Ok::<_, String>(())
            })?;
            let live = LIVE_BYTES.load(Ordering::Relaxed) - before;
            if round == 0 {
                println!(
                    "listen: {:.0} heap bytes per open stream in the framework ({iters} streams)",
                    live as f64 / iters as f64
                );
            }
            calls.clear();
            held_after.push(LIVE_BYTES.load(Ordering::Relaxed) as i64 - before as i64);
        }
        println!("listen: heap bytes still held after closing them, five rounds: {held_after:?}");
        return Ok(());
    }
    // The `requestState` a first round hands out, for a retry to echo.
    let first_state = || {
        let v = body_of(&send(&mrtr_first()));
        v["result"]["requestState"]
            .as_str()
            .map(str::to_owned)
            .ok_or("no requestState")
    };
    let reqs: Vec<Request> = match case.as_str() {
        "call" => vec![add_call(false)],
        "sse" => vec![add_call(true)],
        "mrtr" => vec![mrtr_first(), mrtr_retry(&first_state()?)],
        "mrtr1" => vec![mrtr_first()],
        "mrtr2" => vec![mrtr_retry(&first_state()?)],
        "resource" => vec![resource_read()],
        "validate20" => vec![mcp_bench::validate_call()],
        k if k.starts_with("list") => {
            let v = body_of(&send(&tools_list(None)));
            let cursor = v["result"]["nextCursor"].as_str().ok_or("no nextCursor")?;
            vec![tools_list(Some(cursor))]
        }
        other => return Err(format!("unknown case `{other}`")),
    };
    let a0 = allocations();
    let t = Instant::now();
    let mut bytes = 0;
    for i in 0..iters {
        bytes += send(&reqs[i % reqs.len()]).len();
    }
    let ns = t.elapsed().as_nanos() as f64 / iters as f64;
    let a1 = allocations();
    println!(
        "{case}: {ns:.0} ns/request ({bytes} bytes), {:.1} allocations ({:.0} bytes)/request",
        (a1.0 - a0.0) as f64 / iters as f64,
        (a1.1 - a0.1) as f64 / iters as f64
    );
    Ok(())
}
