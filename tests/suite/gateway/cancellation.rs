//! Cancellation through a mount: a caller that gives up on a relayed call cancels the mounted
//! server's handler, over HTTP (the response closed, whether it is a stream or a pending JSON
//! answer) as over stdio, and a client of our own that gives up does the same to its server.

use super::common::within;
use super::support::*;
use mcp_runtime::client::{Client, Revision};
use mcp_runtime::proxy::Mount;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{NoArguments, Server, Tool};
use serde_json::json;
use std::time::Duration;
use tokio::sync::mpsc;

/// A server whose `hang` tool never ends on its own and says when it is cancelled.
fn hanging(signal: mpsc::UnboundedSender<()>) -> Server {
    Server::builder()
        .tool(Tool::new("hang").handler(move |_: NoArguments, cx| {
            let signal = signal.clone();
            async move {
                let token = cx.cancellation();
                tokio::spawn(async move {
                    token.cancelled().await;
                    let _ = signal.send(());
                });
                tokio::time::sleep(Duration::from_secs(60)).await;
                "never"
            }
        }))
        .build()
        .unwrap()
}

/// Starts `call`, lets it run a moment, gives up on it, and waits for the handler to hear.
async fn give_up<F: std::future::Future>(call: F, heard: &mut mpsc::UnboundedReceiver<()>) {
    let abandoned = tokio::time::timeout(Duration::from_millis(400), call).await;
    assert!(abandoned.is_err(), "the call ended on its own");
    within("the mounted handler hearing the cancellation", heard.recv()).await;
}

fn eras() -> [Revision; 2] {
    [Revision::Modern, Revision::Legacy("2025-11-25".into())]
}

#[tokio::test]
async fn a_client_giving_up_cancels_the_handler_over_http() {
    for (revision, progress) in eras()
        .into_iter()
        .flat_map(|r| [(r.clone(), false), (r, true)])
    {
        let (tx, mut heard) = mpsc::unbounded_channel();
        let (addr, _stop, _) = serve(hanging(tx), None).await;
        let client = Client::http(url(addr))
            .revision(revision)
            .connect()
            .unwrap();
        let client = if progress { client.progress() } else { client };
        give_up(client.call_tool("hang", json!({})), &mut heard).await;
        // The pooled connection still serves the next call.
        assert!(client.list_tools().await.is_ok(), "progress: {progress}");
    }
}

#[tokio::test]
async fn giving_up_on_a_relayed_call_cancels_the_mounted_handler() {
    for (revision, progress) in eras()
        .into_iter()
        .flat_map(|r| [(r.clone(), false), (r, true)])
    {
        let (tx, mut heard) = mpsc::unbounded_channel();
        let (addr, _stop, _) = serve(hanging(tx), None).await;
        let remote = Client::http(url(addr))
            .revision(revision)
            .connect()
            .unwrap();
        let server = front(Mount::from(remote));
        server.refresh_mounts().await;
        let client = TestClient::new(server);
        let client = if progress { client.progress() } else { client };
        give_up(client.call_tool("kb_hang", json!({})), &mut heard).await;
    }
}

#[tokio::test]
async fn giving_up_on_a_gateway_over_http_cancels_the_mounted_handler() {
    // Each era in front of each era behind.
    for (front_era, back_era) in eras()
        .into_iter()
        .flat_map(|f| eras().map(|b| (f.clone(), b)))
    {
        let (tx, mut heard) = mpsc::unbounded_channel();
        let (addr, _stop, _) = serve(hanging(tx), None).await;
        let remote = Client::http(url(addr))
            .revision(back_era)
            .connect()
            .unwrap();
        let gateway = front(Mount::from(remote));
        gateway.refresh_mounts().await;
        let (front_addr, _stop_front, _) = serve(gateway, None).await;
        let client = Client::http(url(front_addr))
            .revision(front_era)
            .connect()
            .unwrap();
        give_up(client.call_tool("kb_hang", json!({})), &mut heard).await;
    }
}

/// The child side of [`giving_up_on_a_stdio_backend_cancels_its_handler`]: this test binary
/// started again, serving a `hang` tool that writes a file when it is cancelled.
#[tokio::test]
async fn stdio_hanging_child() {
    let Some(path) = std::env::var_os("GATEWAY_CANCELLED_FILE") else {
        return;
    };
    let (tx, mut heard) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        if heard.recv().await.is_some() {
            std::fs::write(path, "cancelled").unwrap();
        }
    });
    hanging(tx).serve_stdio().await.unwrap();
}

#[tokio::test]
async fn giving_up_on_a_stdio_backend_cancels_its_handler() {
    let file = std::env::temp_dir().join(format!("gateway-cancelled-{}", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let exe = std::env::current_exe().unwrap();
    let remote = Client::stdio(
        exe.to_string_lossy(),
        [
            "gateway::cancellation::stdio_hanging_child",
            "--exact",
            "-q",
            "--test-threads=1",
            "--nocapture",
        ],
    )
    .env("GATEWAY_CANCELLED_FILE", file.to_string_lossy())
    .connect()
    .unwrap();
    let server = front(Mount::from(remote));
    server.refresh_mounts().await;
    let client = TestClient::new(server);
    let abandoned = tokio::time::timeout(
        Duration::from_millis(400),
        client.call_tool("kb_hang", json!({})),
    )
    .await;
    assert!(abandoned.is_err(), "the call ended on its own");
    within("the child hearing the cancellation", async {
        while !file.exists() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    let _ = std::fs::remove_file(&file);
}
