//! Instructions.

use crate::child::{LinkSeen, Serving, have};
use crate::opts::Opts;
use crate::rounds::Path;
use mcp_bench::{add_call, client};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

/// Instructions of the serving process under callgrind answering `calls` calls on `path`, and
/// what its backend saw from the gateway.
pub(crate) fn callgrind_run(
    path: Path,
    calls: usize,
    dir: &std::path::Path,
) -> Result<(u64, LinkSeen), String> {
    let file = dir.join(format!("callgrind.gateway.{}.{calls}.out", path.name()));
    let prefix = vec![
        "valgrind".to_owned(),
        "--tool=callgrind".to_owned(),
        format!("--callgrind-out-file={}", file.display()),
    ];
    // Lists fresh for an hour: no fetch of them falls in the counted window.
    let ttl = ["--list-ttl-ms".to_owned(), "3600000".to_owned()];
    let mut serving = Serving::start(&prefix, 600, &ttl)?;
    let port = match path {
        Path::Direct => serving.direct,
        Path::Gateway => serving.gateway,
    };
    let result = (|| {
        let req = add_call(false);
        let mut conn = client::Conn::connect(port).map_err(|e| e.to_string())?;
        for _ in 0..calls {
            let resp = conn.send(&req).map_err(|e| e.to_string())?;
            if resp.status != 200 || !resp.body.contains(r#""text":"42""#) {
                return Err(format!(
                    "{}: wrong answer under callgrind: {} {}",
                    path.name(),
                    resp.status,
                    resp.body
                ));
            }
        }
        serving.seen()
    })();
    serving.stop(Duration::from_secs(60));
    let seen = result?;
    Ok((mcp_bench::callgrind_total(&file)?, seen))
}

pub(crate) fn callgrind(opts: &Opts) -> Result<String, String> {
    if !have("valgrind") {
        return Err("valgrind is not installed".into());
    }
    let keep = std::env::var_os("MCP_BENCH_KEEP").map(PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("mcp-bench-gateway-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let (n1, n2) = (opts.calls / 5, opts.calls + opts.calls / 5);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Instructions per call under callgrind, the whole serving process (backend and gateway \
         in one process; one keep-alive connection; (I({n2}) − I({n1})) ÷ {} calls):\n",
        opts.calls
    );
    let _ = writeln!(
        out,
        "| path | instructions/call | ÷ direct | the backend saw from the gateway ({n1} / {n2} calls): connections, calls, other requests |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|");
    let mut direct = None;
    for path in [Path::Direct, Path::Gateway] {
        let (lo, lo_seen) = callgrind_run(path, n1, &dir)?;
        let (hi, hi_seen) = callgrind_run(path, n2, &dir)?;
        let v = hi.saturating_sub(lo) as f64 / opts.calls as f64;
        eprintln!("callgrind {:<8} {v:>10.0} instructions/call", path.name());
        let d = *direct.get_or_insert(v);
        let label = match path {
            Path::Direct => "`direct` (tools/call add on the backend)",
            Path::Gateway => "`gateway` (the same call through the flat mount)",
        };
        let _ = writeln!(
            out,
            "| {label} | {v:.0} | {:.2} | {}, {}, {} / {}, {}, {} |",
            v / d,
            lo_seen.connections,
            lo_seen.calls,
            lo_seen.other,
            hi_seen.connections,
            hi_seen.calls,
            hi_seen.other
        );
    }
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(out)
}
