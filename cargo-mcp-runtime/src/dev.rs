//! `dev`: the current crate's server built, served, and built and served again on the same
//! address whenever its sources change. A build that fails shows the compiler's messages and
//! leaves the last good server running. Every server of one `dev` session seals `requestState`
//! with the same key, so a multi-round request started before a restart finishes after it.

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// How often the sources are looked at, and how long they must stay unchanged before a build
/// (an editor saving several files at once is one change).
const POLL: Duration = Duration::from_millis(250);
const SETTLE: Duration = Duration::from_millis(150);
/// Files looked at, at most (a source tree larger than this is watched in part, with a note).
const MAX_FILES: usize = 20_000;
/// How long a new server may take to listen.
const START_WITHIN: Duration = Duration::from_secs(30);

/// What `dev` was asked.
#[derive(clap::Args)]
pub(crate) struct Dev {
    /// The binary of the current crate, when it has several.
    #[arg(long, value_name = "NAME")]
    bin: Option<String>,
    /// Where the server listens.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8000")]
    addr: SocketAddr,
    /// More files or folders to watch (besides `src/`, `Cargo.toml`, `build.rs` and the
    /// folders of skills, `skills/`, and of Apps views, `ui/`, when they exist).
    #[arg(long = "watch", value_name = "PATH")]
    watch: Vec<PathBuf>,
    /// Arguments the server gets after `--addr`: `-- ARGS…`.
    #[arg(last = true, value_name = "ARGS")]
    args: Vec<String>,
}

/// Each watched file's modification time and size.
type Snapshot = BTreeMap<PathBuf, (Option<SystemTime>, u64)>;

/// The server running now, stopped with `dev` itself.
type Running = Arc<Mutex<Option<Child>>>;

fn lock(running: &Running) -> std::sync::MutexGuard<'_, Option<Child>> {
    running.lock().unwrap_or_else(|p| p.into_inner())
}

/// Ctrl-C, or (Unix) SIGTERM.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

impl Dev {
    /// Serves until Ctrl-C (or SIGTERM), which stops the server too.
    pub(crate) async fn run(self) -> Result<(), String> {
        let running = Running::default();
        let serving = running.clone();
        let work = tokio::task::spawn_blocking(move || self.serve(&serving));
        tokio::select! {
            done = work => done.map_err(|e| format!("dev stopped: {e}"))?,
            () = stopped() => {
                if let Some(mut child) = lock(&running).take() {
                    let _ = child.kill();
                    let _ = child.wait();
                }
                Ok(())
            }
        }
    }

    fn serve(self, running: &Running) -> Result<(), String> {
        // One key for every server of the session (the one set in the environment, if any).
        let key = match std::env::var("MCP_STATE_KEY") {
            Ok(key) => key,
            Err(_) => {
                let mut bytes = [0u8; 32];
                getrandom::getrandom(&mut bytes)
                    .map_err(|e| format!("no randomness for a state key: {e}"))?;
                bytes.iter().map(|b| format!("{b:02x}")).collect()
            }
        };
        let watched = self.watched();
        let mut seen = snapshot(&watched);
        let mut changed_at = Instant::now();
        let fix = "fix it and save: it is built again";
        let mut first = true;
        loop {
            match crate::target::crate_binary(self.bin.as_deref(), fix) {
                Ok(binary) => {
                    if let Some(mut old) = lock(running).take() {
                        let _ = old.kill();
                        let _ = old.wait();
                    }
                    *lock(running) = Some(self.start(&binary, &key)?);
                    let took = changed_at.elapsed().as_secs_f64();
                    let when = match first {
                        true => format!("built and started in {took:.1} s"),
                        false => format!("restarted {took:.1} s after the change"),
                    };
                    first = false;
                    let lab = match serves_lab(self.addr) {
                        true => format!(" (lab page: http://{}/lab)", self.addr),
                        false => String::new(),
                    };
                    say!(
                        "dev: serving http://{}/mcp{lab}, {when}; watching {} files",
                        self.addr,
                        seen.len()
                    );
                }
                Err(why) => match lock(running).is_some() {
                    true => say!(
                        "dev: {why}\ndev: the last good server still serves http://{}/mcp",
                        self.addr
                    ),
                    false => say!("dev: {why}"),
                },
            }
            (seen, changed_at) = wait_for_change(&watched, seen, running);
        }
    }

    /// The files and folders whose changes rebuild the server.
    fn watched(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = ["src", "Cargo.toml", "build.rs", "skills", "ui"]
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.exists())
            .collect();
        paths.extend(self.watch.iter().cloned());
        paths
    }

    /// Starts `binary` on the session's address and key, and waits until it listens.
    fn start(&self, binary: &Path, key: &str) -> Result<Child, String> {
        let mut child = Command::new(binary)
            .arg("--addr")
            .arg(self.addr.to_string())
            .args(&self.args)
            .env("MCP_STATE_KEY", key)
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| format!("could not start {}: {e}", binary.display()))?;
        let deadline = Instant::now() + START_WITHIN;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!(
                    "the server exited at start ({status}); its messages are above"
                ));
            }
            if TcpStream::connect_timeout(&self.addr, Duration::from_millis(200)).is_ok() {
                return Ok(child);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        Err(format!(
            "the server did not listen on {} within {START_WITHIN:?}",
            self.addr
        ))
    }
}

/// Whether the server on `addr` serves the lab page (a runtime with the `lab` feature): a
/// `GET /lab` answered 200 within a second.
fn serves_lab(addr: SocketAddr) -> bool {
    use std::io::{Read, Write};
    let mut at = addr;
    if at.ip().is_unspecified() {
        at.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    let Ok(mut stream) = TcpStream::connect_timeout(&at, Duration::from_secs(1)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let request = format!("GET /lab HTTP/1.1\r\nHost: {at}\r\nConnection: close\r\n\r\n");
    let mut head = [0u8; 12];
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_exact(&mut head).is_ok()
        && head.starts_with(b"HTTP/1.1 200")
}

/// Waits until a watched file changes and stays unchanged a moment; says so if the server
/// stops meanwhile.
fn wait_for_change(watched: &[PathBuf], seen: Snapshot, running: &Running) -> (Snapshot, Instant) {
    loop {
        std::thread::sleep(POLL);
        {
            let mut server = lock(running);
            if let Some(child) = server.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                say!("dev: the server stopped ({status}); waiting for a change");
                *server = None;
            }
        }
        let now = snapshot(watched);
        if now == seen {
            continue;
        }
        let changed_at = Instant::now();
        // Let an editor finish saving.
        let mut settled = now;
        loop {
            std::thread::sleep(SETTLE);
            let again = snapshot(watched);
            if again == settled {
                return (settled, changed_at);
            }
            settled = again;
        }
    }
}

/// The watched files (folders walked, `target/` and hidden entries left out), at most
/// [`MAX_FILES`]. Polled rather than watched through a crate (`notify` and its platform
/// backends): a pass is one `stat` a file, measured by `snapshot_cost` below (BENCHMARKS.md,
/// "Watching sources in `dev`").
fn snapshot(watched: &[PathBuf]) -> Snapshot {
    let mut out = Snapshot::new();
    let mut stack: Vec<PathBuf> = watched.to_vec();
    while let Some(path) = stack.pop() {
        if out.len() >= MAX_FILES {
            break;
        }
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            let Ok(entries) = std::fs::read_dir(&path) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if !name.starts_with('.') && name != "target" {
                    stack.push(entry.path());
                }
            }
        } else {
            out.insert(path, (meta.modified().ok(), meta.len()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_seen_and_hidden_files_are_not_watched() {
        let dir = std::env::temp_dir().join(format!("dev-snapshot-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src/.cache")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), "fn a() {}").unwrap();
        std::fs::write(dir.join("src/.cache/x"), "x").unwrap();
        let watched = [dir.join("src")];
        let before = snapshot(&watched);
        assert_eq!(before.len(), 1);
        std::fs::write(dir.join("src/lib.rs"), "fn a() { /* edited */ }").unwrap();
        assert_ne!(snapshot(&watched), before);
        std::fs::write(dir.join("src/.cache/x"), "changed").unwrap();
        let after = snapshot(&watched);
        std::fs::write(dir.join("src/.cache/x"), "changed again").unwrap();
        assert_eq!(snapshot(&watched), after);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// What a pass costs on a real tree (run by hand: `cargo test -p cargo-mcp-runtime --bin
    /// cargo-mcp-runtime snapshot_cost -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn snapshot_cost() {
        let tree = [Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-runtime/src")];
        let started = Instant::now();
        let passes = 100;
        let mut files = 0;
        for _ in 0..passes {
            files = snapshot(&tree).len();
        }
        say!("{files} files: {:?} a pass", started.elapsed() / passes);
    }
}
