//! The I/O-bound tool of the latency benchmark, the same code in both servers (the framework's
//! `lookup` tool in `mcp-bench-latency server`, the raw axum baseline's `--io` mode): one Redis
//! round trip (`INCR` of the key's counter) and one HTTP GET to a small service on loopback
//! (`mcp-bench-latency upstream`), each over a pooled keep-alive connection with `TCP_NODELAY`,
//! as a tool with a cache and an API behind it does. The clients are written by hand (a RESP
//! line and an HTTP/1.1 exchange with a `Content-Length` body): what both servers pay for the
//! I/O is the same few hundred instructions, whatever library a real tool would use.

use std::net::SocketAddr;
use std::sync::Mutex;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Connections kept per backend (more than the benchmark's 50 clients never wait for one).
const KEEP: usize = 64;

type Conn = BufReader<TcpStream>;

/// Idle keep-alive connections to one backend.
struct Pool {
    addr: SocketAddr,
    idle: Mutex<Vec<Conn>>,
}

impl Pool {
    fn new(addr: SocketAddr) -> Pool {
        Pool {
            addr,
            idle: Mutex::new(Vec::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Conn>> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn take(&self) -> std::io::Result<Conn> {
        let idle = self.lock().pop();
        match idle {
            Some(conn) => Ok(conn),
            None => {
                let stream = TcpStream::connect(self.addr).await?;
                stream.set_nodelay(true)?;
                Ok(BufReader::new(stream))
            }
        }
    }

    /// A connection whose exchange ended cleanly goes back (one that failed is dropped).
    fn give(&self, conn: Conn) {
        let mut idle = self.lock();
        if idle.len() < KEEP {
            idle.push(conn);
        }
    }
}

/// The tool's backends: Redis and the HTTP service.
pub(crate) struct Backends {
    redis: Pool,
    upstream: Pool,
}

/// Whether `key` is one the tool takes: 1 to 32 ASCII letters, digits, `-` or `_` (it goes into
/// a RESP bulk string and a query string as is).
pub(crate) fn valid_key(key: &str) -> bool {
    (1..=32).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl Backends {
    pub(crate) fn new(redis: SocketAddr, upstream: SocketAddr) -> Backends {
        Backends {
            redis: Pool::new(redis),
            upstream: Pool::new(upstream),
        }
    }

    /// The tool: the key's counter in Redis, incremented, and its rate from the HTTP service.
    pub(crate) async fn lookup(&self, key: &str) -> Result<String, String> {
        if !valid_key(key) {
            return Err(format!(
                "`key` must be 1 to 32 of [A-Za-z0-9_-], not {key:?}"
            ));
        }
        let seen = self.incr(key).await.map_err(|e| format!("redis: {e}"))?;
        let rate = self.rate(key).await.map_err(|e| format!("upstream: {e}"))?;
        Ok(format!("{key}: rate {rate}, seen {seen} times"))
    }

    async fn incr(&self, key: &str) -> std::io::Result<i64> {
        let mut conn = self.redis.take().await?;
        let name = format!("lookup:{key}");
        let command = format!("*2\r\n$4\r\nINCR\r\n${}\r\n{name}\r\n", name.len());
        conn.get_mut().write_all(command.as_bytes()).await?;
        let mut line = String::new();
        conn.read_line(&mut line).await?;
        let n = line
            .strip_prefix(':')
            .and_then(|n| n.trim_end().parse().ok())
            .ok_or_else(|| std::io::Error::other(format!("unexpected reply {line:?}")))?;
        self.redis.give(conn);
        Ok(n)
    }

    async fn rate(&self, key: &str) -> std::io::Result<String> {
        let mut conn = self.upstream.take().await?;
        let request = format!("GET /rate?key={key} HTTP/1.1\r\nHost: upstream\r\n\r\n");
        conn.get_mut().write_all(request.as_bytes()).await?;
        let mut line = String::new();
        conn.read_line(&mut line).await?;
        if !line.starts_with("HTTP/1.1 200") {
            return Err(std::io::Error::other(format!(
                "status {:?}",
                line.trim_end()
            )));
        }
        let mut length = None;
        loop {
            line.clear();
            if conn.read_line(&mut line).await? == 0 {
                return Err(std::io::Error::other("closed in the head"));
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse::<usize>().ok();
            }
        }
        let length = length.ok_or_else(|| std::io::Error::other("no Content-Length"))?;
        let mut body = vec![0; length];
        conn.read_exact(&mut body).await?;
        self.upstream.give(conn);
        let body: serde_json::Value = serde_json::from_slice(&body)?;
        Ok(body["rate"].to_string())
    }
}

/// The HTTP service's answer to `GET /rate?key=KEY`, after its own small work (an FNV-1a hash
/// of the key over 4 KiB, a few microseconds): `{"key":KEY,"rate":R}`.
pub(crate) fn upstream_answer(query: Option<&str>) -> Option<String> {
    let key = query?.split('&').find_map(|p| p.strip_prefix("key="))?;
    if !valid_key(key) {
        return None;
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes().cycle().take(4096) {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let rate = (hash % 100_000) as f64 / 100.0;
    Some(format!(r#"{{"key":"{key}","rate":{rate}}}"#))
}
