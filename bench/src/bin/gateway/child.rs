//! The serving process, seen from the driver.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// What the backend saw from the gateway's link: connections accepted, `tools/call` requests,
/// requests of other methods.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LinkSeen {
    pub(crate) connections: u64,
    pub(crate) calls: u64,
    pub(crate) other: u64,
}

impl std::ops::Sub for LinkSeen {
    type Output = LinkSeen;
    fn sub(self, o: LinkSeen) -> LinkSeen {
        LinkSeen {
            connections: self.connections - o.connections,
            calls: self.calls - o.calls,
            other: self.other - o.other,
        }
    }
}

pub(crate) struct Serving {
    pub(crate) child: Child,
    pub(crate) stdin: Option<ChildStdin>,
    pub(crate) stdout: BufReader<ChildStdout>,
    pub(crate) direct: u16,
    pub(crate) gateway: u16,
}

impl Serving {
    /// Starts `--serve` (after `prefix`: `taskset`, `valgrind`) and reads its ports.
    pub(crate) fn start(
        prefix: &[String],
        max_secs: u64,
        extra: &[String],
    ) -> Result<Serving, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut argv: Vec<String> = prefix.to_vec();
        argv.push(exe.display().to_string());
        argv.extend([
            "--serve".to_owned(),
            "--max-secs".to_owned(),
            max_secs.to_string(),
        ]);
        argv.extend(extra.iter().cloned());
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("spawning {}: {e}", argv[0]))?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut serving = Serving {
            child,
            stdin,
            stdout,
            direct: 0,
            gateway: 0,
        };
        let line = serving.line()?;
        let ports: Vec<u16> = line
            .strip_prefix("ready ")
            .ok_or_else(|| format!("the serving process said `{line}`"))?
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
        let [direct, _link, gateway] = ports[..] else {
            return Err(format!("the serving process said `{line}`"));
        };
        serving.direct = direct;
        serving.gateway = gateway;
        Ok(serving)
    }

    pub(crate) fn line(&mut self) -> Result<String, String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err("the serving process exited (run it with --serve to see why)".into()),
            Ok(_) => Ok(line.trim().to_owned()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// What the backend has seen from the gateway so far.
    pub(crate) fn seen(&mut self) -> Result<LinkSeen, String> {
        let stdin = self.stdin.as_mut().ok_or("stdin closed")?;
        stdin
            .write_all(b"count\n")
            .and_then(|()| stdin.flush())
            .map_err(|e| e.to_string())?;
        let line = self.line()?;
        let n: Vec<u64> = line
            .strip_prefix("seen ")
            .unwrap_or("")
            .split_whitespace()
            .filter_map(|n| n.parse().ok())
            .collect();
        match n[..] {
            [connections, calls, other] => Ok(LinkSeen {
                connections,
                calls,
                other,
            }),
            _ => Err(format!("the serving process said `{line}`")),
        }
    }

    /// Closes its stdin (it exits) and waits up to `limit`, then kills it.
    pub(crate) fn stop(mut self, limit: Duration) {
        self.stdin = None;
        let deadline = Instant::now() + limit;
        while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub(crate) fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
