//! Real engines for the scale-out tests: `redis-server` and `nginx` (with `deploy/nginx.conf`)
//! as child processes on free loopback ports, stopped when dropped, and a reader of a response
//! body that stays open (a listen stream, a session's GET stream).

use super::TIMEOUT;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A free port on 127.0.0.1 (free when asked).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind 127.0.0.1:0")
        .local_addr()
        .expect("local address")
        .port()
}

/// Waits until something accepts connections on `port`.
pub fn wait_for_port(port: u16) {
    for _ in 0..400 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("nothing listens on 127.0.0.1:{port}");
}

/// A child process, stopped when dropped: SIGTERM first (nginx's master then stops its
/// workers, Redis writes its append-only file; SIGKILL would orphan or lose them), SIGKILL
/// after two seconds.
pub struct Process(pub Child);

impl Process {
    /// Sends `signal` (`"TERM"`, `"KILL"`) and waits for the process to end.
    pub fn stop_with(&mut self, signal: &str) {
        let _ = Command::new("kill")
            .args([&format!("-{signal}"), &self.0.id().to_string()])
            .status();
        for _ in 0..100 {
            if matches!(self.0.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            self.stop_with("TERM");
        }
    }
}

/// A `redis-server` on a loopback port; with a data directory its data outlives a restart
/// (append-only file), as an operator's would.
pub struct RedisServer {
    /// Its port.
    pub port: u16,
    data: Option<PathBuf>,
    process: Option<Process>,
}

impl RedisServer {
    /// On a free port, keeping nothing on disk.
    pub fn start() -> RedisServer {
        RedisServer::on(free_port(), None)
    }

    /// On a free port, keeping its data in `dir`.
    pub fn persistent(dir: &Path) -> RedisServer {
        RedisServer::on(free_port(), Some(dir.to_path_buf()))
    }

    /// On `port`.
    pub fn on(port: u16, data: Option<PathBuf>) -> RedisServer {
        let mut server = RedisServer {
            port,
            data,
            process: None,
        };
        server.start_again();
        server
    }

    /// `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Stops it (SIGTERM: it saves what it keeps).
    pub fn stop(&mut self) {
        if let Some(mut p) = self.process.take() {
            p.stop_with("TERM");
        }
    }

    /// Starts it again on the same port (and data).
    pub fn start_again(&mut self) {
        self.stop();
        let mut cmd = Command::new("redis-server");
        cmd.args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", ""]);
        match &self.data {
            Some(dir) => {
                std::fs::create_dir_all(dir).expect("the Redis data directory");
                cmd.args(["--appendonly", "yes", "--dir", &dir.display().to_string()]);
            }
            None => {
                cmd.args(["--appendonly", "no"]);
            }
        }
        let child = cmd
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server is installed (Debian: apt-get install redis-server)");
        wait_for_port(self.port);
        self.process = Some(Process(child));
    }
}

/// nginx with `deploy/nginx.conf` on a free port, in front of `instances`; its files go to
/// `dir`.
pub fn nginx(instances: &[SocketAddr], dir: &Path) -> (Process, u16) {
    let port = free_port();
    let servers: String = instances
        .iter()
        .map(|a| format!("        server {a} max_fails=1 fail_timeout=2s;\n"))
        .collect();
    let template = include_str!("../../deploy/nginx.conf");
    let conf = template
        .replace("@RUNTIME_DIR@", &dir.display().to_string())
        .replace("@NGINX_PORT@", &port.to_string())
        .replace("@SERVERS@\n", &servers);
    let path = dir.join("nginx.conf");
    std::fs::write(&path, conf).expect("nginx.conf written");
    let child = Command::new("nginx")
        .args(["-p", &dir.display().to_string()])
        .args(["-c", &path.display().to_string()])
        .stdout(Stdio::null())
        .spawn()
        .expect("nginx is installed (Debian: apt-get install nginx-light)");
    wait_for_port(port);
    (Process(child), port)
}

/// A response whose body is read event by event as it comes.
pub struct EventStream {
    body: hyper::body::Incoming,
    buffer: Vec<u8>,
    conn: tokio::task::JoinHandle<()>,
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.conn.abort();
    }
}

/// Sends `method` to `http://{addr}/mcp` with `headers` and `body` on a connection of its own,
/// and returns the response as soon as its head has come (its body still streaming), with the
/// task that drives the connection (abort it to close the connection).
pub async fn send_streaming(
    addr: SocketAddr,
    method: http::Method,
    headers: &[(String, String)],
    body: impl Into<Bytes>,
) -> Result<
    (
        http::Response<hyper::body::Incoming>,
        tokio::task::JoinHandle<()>,
    ),
    String,
> {
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp))
            .await
            .map_err(|e| format!("handshake: {e}"))?;
    let conn = tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut req = http::Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", addr.to_string());
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let req = req
        .body(Full::new(body.into()))
        .map_err(|e| e.to_string())?;
    match tokio::time::timeout(TIMEOUT, sender.send_request(req)).await {
        Ok(Ok(resp)) => Ok((resp, conn)),
        Ok(Err(e)) => Err(format!("request: {e}")),
        Err(_) => Err("no response".to_owned()),
    }
}

/// [`send_streaming`], for a response that must be 200: its body read event by event.
pub async fn open_stream(
    addr: SocketAddr,
    method: http::Method,
    headers: &[(String, String)],
    body: impl Into<Bytes>,
) -> Result<EventStream, String> {
    let (resp, conn) = send_streaming(addr, method, headers, body).await?;
    if resp.status() != http::StatusCode::OK {
        conn.abort();
        return Err(format!("status {}", resp.status()));
    }
    Ok(EventStream::new(resp, conn))
}

impl EventStream {
    /// The body of `resp` read event by event, `conn` driving its connection (as
    /// [`send_streaming`] returns them), whatever its status.
    pub fn new(
        resp: http::Response<hyper::body::Incoming>,
        conn: tokio::task::JoinHandle<()>,
    ) -> EventStream {
        EventStream {
            body: resp.into_body(),
            buffer: Vec::new(),
            conn,
        }
    }

    /// The next event's JSON data; `None` when the stream ended or broke.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let text = String::from_utf8_lossy(&event);
                let data: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:").map(str::trim_start))
                    .filter(|d| !d.is_empty())
                    .collect();
                if data.is_empty() {
                    continue;
                }
                return serde_json::from_str(&data.join("\n")).ok();
            }
            let frame = self.body.frame().await?.ok()?;
            if let Ok(data) = frame.into_data() {
                self.buffer.extend_from_slice(&data);
            }
        }
    }
}
