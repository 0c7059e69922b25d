//! The accept loop of [`Server::run`](crate::Server::run): each connection served by hyper's
//! HTTP/1 connection, and a graceful end.
//!
//! Why not `axum::serve`: it serves every connection through hyper-util's protocol-detecting
//! `auto` connection, which holds ≈ 8 KiB more resident memory per open connection (a raw
//! axum server with 10,000 open SSE streams: 19.7 KiB per stream under `axum::serve`, 11.5 KiB
//! with hyper's HTTP/1 connection; `mcp-bench-clients --only memory`, BENCHMARKS.md). The
//! server speaks HTTP/1.1 only, so the detection bought nothing.

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::sync::watch;

/// Serves `app` on `listener` until `stop` resolves; then stops accepting, asks every open
/// connection to finish what it is answering and close, and returns once all have.
/// `with_peer`: each request carries the client's address (`ConnectInfo<SocketAddr>`).
/// `head_timeout`: how long a request's head may take (`HttpOptions::head_timeout`).
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    with_peer: bool,
    head_timeout: Option<Duration>,
    stop: impl Future<Output = ()>,
) {
    // Closed (the sender dropped) when the server stops: each connection then ends gracefully.
    let (stopping_tx, stopping) = watch::channel(());
    // Each connection holds a receiver; the sender sees it closed when the last one ended.
    let (closed_tx, closed) = watch::channel(());
    let mut stop = std::pin::pin!(stop);
    loop {
        let (socket, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(connection) => connection,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let service = Connection {
            app: app.clone(),
            peer: with_peer.then_some(peer),
        };
        let mut stopping = stopping.clone();
        let closed = closed.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            // Only when asked: hyper then arms a timer for every request head.
            if head_timeout.is_some() {
                builder
                    .timer(TokioTimer::new())
                    .header_read_timeout(head_timeout);
            }
            let connection = builder.serve_connection(TokioIo::new(socket), service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stopping.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop(closed);
        });
    }
    drop(listener);
    drop(stopping_tx);
    drop(closed);
    closed_tx.closed().await;
}

/// One connection's service: the router, and the client's address when requests carry it.
struct Connection {
    app: Router,
    peer: Option<SocketAddr>,
}

impl hyper::service::Service<http::Request<Incoming>> for Connection {
    type Response = axum::response::Response;
    type Error = Infallible;
    type Future = axum::routing::future::RouteFuture<Infallible>;

    fn call(&self, request: http::Request<Incoming>) -> Self::Future {
        let mut request = request.map(Body::new);
        if let Some(peer) = self.peer {
            request.extensions_mut().insert(ConnectInfo(peer));
        }
        // A router is always ready; its clone is a reference count.
        tower_service::Service::call(&mut self.app.clone(), request)
    }
}

/// After a failed accept: a connection that failed before it was accepted is skipped; anything
/// else (most often the process's open-file limit) is logged and retried a second later, when
/// connections may have closed.
async fn accept_failed(e: std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::error!(error = %e, "accepting a connection failed; retrying in 1 s");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
