//! Server processes: start pinned to a core, stop, and read their CPU time and peak memory.

use super::cases::{Case, Kind, correct, probe};
use mcp_bench::client;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) fn exe_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."))
}

pub(crate) fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

pub(crate) fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// How to launch: `taskset -c CORE` when there are two cores and taskset exists.
#[derive(Debug, Clone)]
pub(crate) struct Pinning {
    pub(crate) server: Option<String>,
    pub(crate) load: Option<String>,
}

pub(crate) fn server_command(case: &Case, port: u16, pin: &Pinning, prefix: &[String]) -> Command {
    let dir = exe_dir();
    let (bin, mut args) = match case.kind {
        Kind::Baseline => (dir.join("mcp-bench-baseline"), Vec::new()),
        Kind::Ours { fill, validate } => {
            let mut a = Vec::new();
            if fill > 0 {
                a.extend(["--fill".to_owned(), fill.to_string()]);
            }
            if validate {
                a.push("--validate".to_owned());
            }
            (dir.join("mcp-bench-ours"), a)
        }
        Kind::Observed(what) => (
            dir.join("mcp-bench-ours"),
            vec!["--observe".to_owned(), what.to_owned()],
        ),
    };
    args.extend(["--addr".to_owned(), format!("127.0.0.1:{port}")]);
    let mut argv: Vec<String> = Vec::new();
    if let Some(core) = &pin.server {
        argv.extend(["taskset".to_owned(), "-c".to_owned(), core.clone()]);
    }
    argv.extend(prefix.iter().cloned());
    argv.push(bin.display().to_string());
    argv.extend(args);
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Spawns the server and waits for its first correct reply to the case's probe.
pub(crate) fn start(
    case: &Case,
    pin: &Pinning,
    prefix: &[String],
    limit: Duration,
) -> Result<(Child, u16, Duration), String> {
    let port = free_port().map_err(|e| e.to_string())?;
    let mut cmd = server_command(case, port, pin, prefix);
    let req = probe(case);
    let t0 = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("spawning {case:?}: {e}"))?;
    loop {
        if let Ok(resp) = client::once(port, &req) {
            if correct(case, 0, &resp) {
                return Ok((child, port, t0.elapsed()));
            }
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{}: wrong answer {} {}",
                case.key, resp.status, resp.body
            ));
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{}: no answer within {limit:?}", case.key));
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("{}: the server exited with {status}", case.key));
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

pub(crate) fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

pub(crate) use mcp_bench::cpu::{clock_ticks, cpu_ticks};

/// Peak resident set size in KiB.
pub(crate) fn vm_hwm(pid: u32) -> Result<u64, String> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| "no VmHWM".to_owned())
}
