//! The servers measured: ours, raw axum, and raw axum that also fans changes out; and
//! `--serve`, ours with the default limits but for the listen streams (this binary started
//! again).

use mcp_bench::{add_call, touch_call};
use mcp_runtime::{Change, ChangeBus};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The servers compared.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Ours,
    Baseline,
    /// The baseline with `--fanout`: its streams also carry `touch`'s changes.
    FanoutFloor,
    /// The baseline with `--http1`: hyper's HTTP/1 connection instead of `axum::serve`.
    Http1Floor,
    /// Ours with the default [`mcp_runtime::Limits`] but for this many listen streams
    /// ([`serve`]): each client gets the default share.
    Listen(usize),
}

pub(crate) struct Server {
    child: Child,
    pub(crate) port: u16,
}

impl Server {
    pub(crate) fn start(kind: Kind) -> Result<Server, String> {
        let dir = std::env::current_exe()
            .map_err(|e| e.to_string())?
            .parent()
            .ok_or("no directory")?
            .to_owned();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let addr = format!("127.0.0.1:{port}");
        let mut cmd = match kind {
            // `MCP_BENCH_OURS_PREFIX="valgrind --tool=callgrind"` runs it under a profiler.
            Kind::Ours => match std::env::var("MCP_BENCH_OURS_PREFIX") {
                Ok(prefix) if !prefix.trim().is_empty() => {
                    let mut words = prefix.split_whitespace();
                    let mut c = Command::new(words.next().unwrap_or_default());
                    c.args(words);
                    c.arg(dir.join("mcp-bench-ours"));
                    c.args(["--observe", "clients", "--addr", &addr]);
                    c
                }
                _ => {
                    let mut c = Command::new(dir.join("mcp-bench-ours"));
                    c.args(["--observe", "clients", "--addr", &addr]);
                    c
                }
            },
            Kind::Listen(streams) => {
                let mut c = Command::new(std::env::current_exe().map_err(|e| e.to_string())?);
                c.args(["--serve", &addr, "--listen-streams", &streams.to_string()]);
                c
            }
            Kind::Baseline | Kind::FanoutFloor | Kind::Http1Floor => {
                let mut c = Command::new(dir.join("mcp-bench-baseline"));
                c.args(["--addr", &addr]);
                match kind {
                    Kind::FanoutFloor => c.arg("--fanout"),
                    Kind::Http1Floor => c.arg("--http1"),
                    _ => &mut c,
                };
                c
            }
        };
        let child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{kind:?}: {e}"))?;
        let server = Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(120);
        let probe = match kind {
            Kind::Listen(_) => touch_call(),
            _ => add_call(false),
        };
        while Instant::now() < deadline {
            if let Ok(r) = mcp_bench::client::once(port, &probe)
                && r.status == 200
            {
                return Ok(server);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!("{kind:?} did not start"))
    }

    fn status_kib(&self, field: &str) -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        text.lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    }
    /// Resident memory, KiB.
    pub(crate) fn rss(&self) -> u64 {
        self.status_kib("VmRSS:")
    }
    /// Peak resident memory, KiB.
    pub(crate) fn peak(&self) -> u64 {
        self.status_kib("VmHWM:")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGINT first, so a profiler it runs under writes its data.
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `mcp-bench-clients --serve ADDR --listen-streams N`: a server with the default limits but
/// `N` listen streams at once (the default share of one caller, 16, stays), resource
/// subscriptions on, `config://service` and `touch` (announces it updated), until killed.
pub(crate) async fn serve(addr: &str, listen_streams: usize) -> Result<(), String> {
    let bus = mcp_runtime::LocalBus::new(4096);
    let touch_bus = bus.clone();
    let server = mcp_runtime::Server::builder()
        .name("listen-server")
        .version("1.0.0")
        .resource_subscriptions(true)
        .change_bus(bus)
        .limits(mcp_runtime::Limits::default().listen_streams(listen_streams))
        .tool(
            mcp_runtime::Tool::new("touch")
                .description("Announce that config://service changed.")
                .handler(move |_: mcp_runtime::NoArguments, _cx| {
                    touch_bus.publish(Change::ResourceUpdated("config://service".into()));
                    async { "touched" }
                }),
        )
        .resource(
            mcp_runtime::Resource::new("config://service", "service")
                .mime_type("application/json")
                .handler(|_read| async { "{}" }),
        )
        .build()
        .map_err(|e| e.to_string())?;
    let listener = mcp_bench::listen(addr).await.map_err(|e| e.to_string())?;
    server
        .serve(listener, mcp_runtime::HttpOptions::default())
        .await
        .map_err(|e| e.to_string())
}
