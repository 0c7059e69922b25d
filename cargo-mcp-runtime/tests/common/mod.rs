//! What the command line's tests share: a server on a loopback port, and the command run as
//! cargo runs it.
// Each test binary takes what it needs of these.
#![allow(dead_code)]

use mcp_runtime::{HttpOptions, Server};
use std::path::Path;
use std::process::Output;
use std::time::Duration;

/// Serves `router` on `listener`; the endpoint's URL.
pub async fn serve_on(router: axum::Router, listener: tokio::net::TcpListener) -> String {
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}/mcp")
}

/// Serves `server` on a loopback port, with the default options; the endpoint's URL.
pub async fn serve(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    serve_on(server.into_router(HttpOptions::default()), listener).await
}

/// Runs the command line with `args` (its subcommand's name first, as cargo passes it) in
/// `dir` (the test's own when `None`), for at most `limit`; nothing on its stdin.
pub async fn run_in(dir: Option<&Path>, args: &[&str], limit: Duration) -> Output {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_cargo-mcp-runtime"));
    command
        .arg("mcp-runtime")
        .args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    tokio::time::timeout(limit, command.output())
        .await
        .unwrap_or_else(|_| panic!("`{}` did not finish within {limit:?}", args.join(" ")))
        .unwrap()
}

/// Runs the command line with `args`, for at most two minutes.
pub async fn run(args: &[&str]) -> Output {
    run_in(None, args, Duration::from_secs(120)).await
}

/// Bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
