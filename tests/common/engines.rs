//! Real engines for the scale-out tests: `redis-server` and `nginx` (with `deploy/nginx.conf`)
//! as child processes on free loopback ports, stopped when dropped. (A response body that stays
//! open is read by [`super::sse::EventStream`].)

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
