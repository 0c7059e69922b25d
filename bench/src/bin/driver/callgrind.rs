//! Instructions per request under `valgrind --tool=callgrind`.

use super::cases::{Case, SESSION, SessionConn, correct, prepare};
use super::opts::Opts;
use super::process::{Pinning, have, start, stop};
use super::report::selected;
use mcp_bench::client;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Instructions of one callgrind run of the case's server answering `calls` requests.
pub(crate) fn callgrind_run(case: &Case, calls: usize, dir: &Path) -> Result<u64, String> {
    let file = dir.join(format!("callgrind.{}.{calls}.out", case.key));
    let prefix = vec![
        "valgrind".to_owned(),
        "--tool=callgrind".to_owned(),
        format!("--callgrind-out-file={}", file.display()),
    ];
    let none = Pinning {
        server: None,
        load: None,
    };
    let (child, port, _) = start(case, &none, &prefix, Duration::from_secs(600))?;
    let result = (|| {
        if case.key == SESSION.key {
            let mut conn = SessionConn::connect(port)?;
            return (0..calls).try_for_each(|_| conn.iteration());
        }
        let reqs = prepare(case, port)?;
        let mut conn = client::Conn::connect(port).map_err(|e| e.to_string())?;
        for i in 0..calls {
            let k = i % reqs.len();
            let resp = conn.send(&reqs[k]).map_err(|e| e.to_string())?;
            if !correct(case, k, &resp) {
                return Err(format!("{}: wrong answer under callgrind", case.key));
            }
        }
        Ok(())
    })();
    // SIGINT: the framework shuts down gracefully, the baseline dies of it; either way
    // callgrind writes its totals.
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let mut child = child;
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop(child);
    result?;
    mcp_bench::callgrind_total(&file)
}

pub(crate) fn callgrind(opts: &Opts) -> Result<String, String> {
    if !have("valgrind") {
        return Err("valgrind is not installed".into());
    }
    // `MCP_BENCH_KEEP=DIR` keeps the callgrind files there for `callgrind_annotate`.
    let keep = std::env::var_os("MCP_BENCH_KEEP").map(PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("mcp-bench-callgrind-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Server instructions per request under callgrind (one keep-alive connection; \
         (I({n2}) − I({n1})) ÷ {d} requests):\n",
        n1 = opts.calls / 5,
        n2 = opts.calls + opts.calls / 5,
        d = opts.calls
    );
    let _ = writeln!(
        out,
        "| case | instructions/request | ÷ baseline | ÷ ours call |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|");
    let mut per: BTreeMap<&str, f64> = BTreeMap::new();
    for case in with_session(selected(opts), opts) {
        let lo = callgrind_run(&case, opts.calls / 5, &dir)?;
        let hi = callgrind_run(&case, opts.calls + opts.calls / 5, &dir)?;
        let v = hi.saturating_sub(lo) as f64 / opts.calls as f64;
        eprintln!("callgrind {:<10} {v:>10.0} instructions/request", case.key);
        per.insert(case.key, v);
        let r = |k: &str| {
            per.get(k)
                .map_or("–".to_owned(), |b| format!("{:.2}", v / b))
        };
        // `session` counts a whole session (four requests) as one.
        let per_what = if case.key == SESSION.key {
            " (a session: 4 requests)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "| `{}`{per_what} | {v:.0} | {} | {} |",
            case.key,
            r("baseline"),
            r("call")
        );
    }
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(out)
}

/// The cases with `session` (callgrind only) added after `legacy`, or last: by default, or when
/// `--only` names it.
fn with_session(mut cases: Vec<Case>, opts: &Opts) -> Vec<Case> {
    if opts
        .only
        .as_ref()
        .is_none_or(|only| only.iter().any(|k| k == SESSION.key))
    {
        let at = cases
            .iter()
            .position(|c| c.key == "legacy")
            .map_or(cases.len(), |i| i + 1);
        cases.insert(at, SESSION);
    }
    cases
}
