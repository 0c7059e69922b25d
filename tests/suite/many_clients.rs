//! Many listen streams on one instance, over real connections: one change reaches each of
//! them exactly once; closing them gives back every slot they held; a client that reads too
//! slowly gets its stream ended instead of making the server hold more.

use crate::common;
use common::{raw_post, request, spawn_http_with, within};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Change, HttpOptions, Limits, LocalBus, NoArguments, Resource, Server, Tool};
use serde_json::json;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const STREAMS: usize = 300;

fn server(streams: usize, queue: usize) -> Server {
    Server::builder()
        .resource_subscriptions(true)
        .limits(
            Limits::default()
                .listen_streams(streams)
                .listens_per_caller(streams)
                .concurrent_requests(streams + 16)
                .requests_per_caller(streams + 16)
                .notification_queue(queue),
        )
        .resource(
            Resource::new("notes://today", "today")
                .mime_type("text/plain")
                .handler(|_| async { "nothing yet" }),
        )
        .build()
        .expect("the server builds")
}

/// The raw HTTP request of a listen stream for `notes://today`.
fn listen_bytes() -> Vec<u8> {
    raw_post(&request(
        1,
        "subscriptions/listen",
        json!({"notifications": {"resourceSubscriptions": ["notes://today"]}}),
    ))
}

/// Reads from `s` until `needle` has been seen, returning everything read.
async fn read_until(s: &mut TcpStream, seen: &mut Vec<u8>, needle: &str) -> bool {
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(seen).contains(needle) {
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    true
}

/// Opens a stream; `Err` with the status line when the server refuses it.
async fn open(port: u16) -> Result<TcpStream, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port))
        .await
        .map_err(|e| e.to_string())?;
    s.write_all(&listen_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&seen).into_owned();
        if text.contains("acknowledged") {
            return Ok(s);
        }
        if text.contains("\r\n\r\n") && !text.starts_with("HTTP/1.1 200") {
            return Err(text.lines().next().unwrap_or_default().to_owned());
        }
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => return Err(format!("closed: {text}")),
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
}

fn count(seen: &[u8], needle: &str) -> usize {
    String::from_utf8_lossy(seen).matches(needle).count()
}

#[tokio::test]
async fn one_change_reaches_every_stream_once_and_closing_them_frees_their_slots() {
    let server = server(STREAMS, 64);
    let options = HttpOptions::default().keepalive(Duration::from_millis(100));
    let http = spawn_http_with(server.clone(), options).await;
    let port = http.addr.port();
    let mut streams = Vec::new();
    for _ in 0..STREAMS {
        streams.push(
            within("opening a stream", open(port))
                .await
                .expect("opened"),
        );
    }
    // The limit is reached: one more is refused (503), so the count is the server's own.
    let refused = within("one stream too many", open(port)).await;
    assert!(
        refused.as_ref().is_err_and(|e| e.contains("503")),
        "{:?}",
        refused.map(|_| ())
    );

    server.notify_resource_updated("notes://today");
    let mut received = Vec::new();
    for s in &mut streams {
        let mut seen = Vec::new();
        let got = within(
            "the change on every stream",
            read_until(s, &mut seen, "notifications/resources/updated"),
        )
        .await;
        assert!(got, "a stream ended before the change arrived");
        received.push(seen);
    }
    // Nothing more comes but keep-alive comments: each stream got the change exactly once.
    tokio::time::sleep(Duration::from_millis(250)).await;
    for (s, seen) in streams.iter_mut().zip(&mut received) {
        let mut buf = [0u8; 4096];
        while let Ok(Ok(n)) = tokio::time::timeout(Duration::from_millis(5), s.read(&mut buf)).await
        {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        assert_eq!(count(seen, "notifications/resources/updated"), 1);
        assert_eq!(count(seen, r#""uri":"notes://today""#), 1);
    }

    // Closing every stream gives back every slot: as many can be opened again.
    drop(streams);
    let reopened = within("every slot back", async {
        loop {
            let mut again = Vec::new();
            let mut refused = false;
            for _ in 0..STREAMS {
                match open(port).await {
                    Ok(s) => again.push(s),
                    Err(_) => {
                        refused = true;
                        break;
                    }
                }
            }
            if !refused {
                return again;
            }
            drop(again);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert_eq!(reopened.len(), STREAMS);
}

#[tokio::test]
async fn a_stream_whose_client_does_not_read_is_ended_not_buffered() {
    // A queue of 4 notifications: the fifth unread change ends the stream.
    let server = server(8, 4);
    let http = spawn_http_with(server.clone(), HttpOptions::default()).await;
    let port = http.addr.port();
    let mut stalled = within("opening", open(port)).await.expect("opened");
    let mut reader = within("opening", open(port)).await.expect("opened");
    // Far more changes than fit in the socket buffers and the queue, none read by `stalled`.
    let mut seen = Vec::new();
    for _ in 0..20_000 {
        server.notify_resource_updated("notes://today");
        if count(&seen, "notifications/resources/updated") < 3 {
            let mut buf = [0u8; 8192];
            if let Ok(Ok(n)) =
                tokio::time::timeout(Duration::from_millis(1), reader.read(&mut buf)).await
            {
                seen.extend_from_slice(&buf[..n]);
            }
        }
        tokio::task::yield_now().await;
    }
    // Reading it now: whatever was queued, then the final error, then the end of the stream.
    let mut all = Vec::new();
    let ended = within("the stalled stream's end", async {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match stalled.read(&mut buf).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => {
                    all.extend_from_slice(&buf[..n]);
                    if String::from_utf8_lossy(&all).contains("fetch the lists again") {
                        return true;
                    }
                }
            }
        }
    })
    .await;
    assert!(ended, "the stream was not ended with its error");
    let text = String::from_utf8_lossy(&all);
    assert!(
        text.contains("-32603"),
        "{}",
        &text[text.len().saturating_sub(400)..]
    );
    // The server still serves: a stream can be opened and gets changes.
    let mut fresh = within("a new stream", open(port)).await.expect("opened");
    server.notify_resource_updated("notes://today");
    let mut got = Vec::new();
    assert!(
        within(
            "a change on the new stream",
            read_until(&mut fresh, &mut got, "resources/updated")
        )
        .await
    );
}

#[tokio::test]
async fn a_stream_that_missed_changes_is_told_to_fetch_again() {
    // A bus that keeps 2 changes per listener: the stream below misses most of 10.
    let server = Server::builder()
        .list_changed(true)
        .resource_subscriptions(true)
        .change_bus(LocalBus::new(2))
        .tool(Tool::new("t").handler(|_: NoArguments, _| async { "ok" }))
        .resource(
            Resource::new("notes://today", "today")
                .mime_type("text/plain")
                .handler(|_| async { "nothing yet" }),
        )
        .build()
        .unwrap();
    let client = TestClient::new(server.clone());
    let mut stream = client
        .listen(json!({"toolsListChanged": true, "resourceSubscriptions": ["notes://today"]}))
        .await
        .unwrap();
    let ack = within("the acknowledgement", stream.next()).await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    // Ten changes of something the stream does not watch, none read meanwhile.
    for i in 0..10 {
        server.notify(Change::ResourceUpdated(format!("notes://other/{i}")));
    }
    let first = within("the resync", stream.next()).await.unwrap();
    assert_eq!(first["method"], "notifications/tools/list_changed");
    let second = within("the resync", stream.next()).await.unwrap();
    assert_eq!(second["method"], "notifications/resources/updated");
    assert_eq!(second["params"]["uri"], "notes://today");
    // The two changes still on the bus are not watched: nothing more.
    let quiet = tokio::time::timeout(Duration::from_millis(100), stream.next()).await;
    assert!(quiet.is_err(), "{quiet:?}");
}
