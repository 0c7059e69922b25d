//! The accept loop of [`Server::run`](crate::Server::run): each connection served by hyper's
//! HTTP/1 connection, and a graceful end.
//!
//! Why not `axum::serve`: it serves every connection through hyper-util's protocol-detecting
//! `auto` connection, which holds more resident memory per open connection (BENCHMARKS.md, "The
//! accept loop"). The server speaks HTTP/1.1 only, so the detection bought nothing.

use super::hygiene::{Admitted, ConnState, Hygiene, Responding, Table, Tracked};
use axum::Router;
use axum::body::Body;
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::watch;

/// Serves `app` on `listener` until `stop` resolves; then stops accepting, asks every open
/// connection to finish what it is answering and close, and returns once all have.
/// Each request's handler can read its client's address (`peer::peer_of`).
/// `rules`: the idle time and the connection cap (`hygiene.rs`); `direct`: the route served
/// without the router.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    direct: Direct,
    rules: Hygiene,
    stop: impl Future<Output = ()>,
) {
    // Closed (the sender dropped) when the server stops: each connection then ends gracefully.
    let (stopping_tx, stopping) = watch::channel(());
    // Each connection holds a receiver; the sender sees it closed when the last one ended.
    let (closed_tx, closed) = watch::channel(());
    let table = Table::new(rules);
    table.start_sweeper();
    let mut stop = std::pin::pin!(stop);
    loop {
        let (socket, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(connection) => connection,
                Err(e) => {
                    accept_failed(e, &table).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let registered = match table.admit() {
            Admitted::Serve(registered) => registered,
            Admitted::Refuse => {
                tokio::spawn(refuse(socket));
                continue;
            }
        };
        // The connections closed to make room give their sockets back only when their tasks
        // run: let them, before the next accept takes another descriptor.
        let made_room = registered.made_room > 0;
        let service = Connection {
            app: app.clone(),
            direct: direct.clone(),
            peer,
            state: registered.state.clone(),
        };
        let mut stopping = stopping.clone();
        let closed = closed.clone();
        let served = async move {
            let io = Tracked {
                io: socket,
                state: registered.state.clone(),
            };
            let builder = hyper::server::conn::http1::Builder::new();
            let connection = builder.serve_connection(TokioIo::new(io), service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stopping.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop(registered);
            drop(closed);
        };
        tokio::spawn(served);
        if made_room {
            tokio::task::yield_now().await;
        }
    }
    drop(listener);
    drop(stopping_tx);
    drop(closed);
    closed_tx.closed().await;
}

/// A connection accepted while every open one is busy: a 503 and the close, at once (rather
/// than a client left waiting for an answer that cannot come).
async fn refuse(mut socket: tokio::net::TcpStream) {
    use tokio::io::AsyncWriteExt;
    const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain\r\nContent-Length: 50\r\nConnection: close\r\n\r\nServer busy: too many open connections; retry soon";
    let _ = tokio::time::timeout(Duration::from_secs(1), socket.write_all(BUSY)).await;
}

/// A response on its way, boxed.
pub(super) type Answering = Pin<Box<dyn Future<Output = Response> + Send>>;

/// The route served without the router: the endpoint's POST, which is nearly every request
/// (the router's matching, its service stack and its moves of the handler's future cost more
/// than the request's own JSON; BENCHMARKS.md, "The endpoint's route").
pub(super) trait DirectRoute: Send + Sync {
    /// Whether `request` is this route's.
    fn takes(&self, request: &http::Request<Body>) -> bool;
    /// The answer to a request it takes.
    fn answer(&self, request: http::Request<Body>) -> Answering;
}

/// A [`DirectRoute`], shared by every connection.
pub(super) type Direct = Arc<dyn DirectRoute>;

/// One connection's service: the direct route, the router for the rest, the client's address,
/// and the connection's entry in the table (each request is in flight until its response is
/// ready).
struct Connection {
    app: Router,
    direct: Direct,
    peer: SocketAddr,
    state: Arc<ConnState>,
}

pin_project_lite::pin_project! {
    /// Where a request went: the direct route or the router.
    #[project = RoutedProj]
    enum Routed {
        Direct { future: Answering },
        Router { #[pin] future: axum::routing::future::RouteFuture<Infallible> },
    }
}

impl Future for Routed {
    type Output = Result<Response, Infallible>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            RoutedProj::Direct { future } => future.as_mut().poll(cx).map(Ok),
            RoutedProj::Router { future } => future.poll(cx),
        }
    }
}

impl hyper::service::Service<http::Request<Incoming>> for Connection {
    type Response = Response;
    type Error = Infallible;
    type Future = Responding<Routed>;

    fn call(&self, request: http::Request<Incoming>) -> Self::Future {
        let in_flight = self.state.request_started();
        let request = request.map(Body::new);
        let routed = if self.direct.takes(&request) {
            Routed::Direct {
                future: self.direct.answer(request),
            }
        } else {
            // A router is always ready; its clone is a reference count.
            Routed::Router {
                future: tower_service::Service::call(&mut self.app.clone(), request),
            }
        };
        Responding {
            future: routed,
            in_flight: Some(in_flight),
            peer: self.peer,
        }
    }
}

/// After a failed accept: a connection that failed before it was accepted is skipped; when the
/// process is out of file descriptors (connections closed a moment ago may still hold theirs),
/// the longest-idle connections are closed and the accept retried shortly; anything else is
/// logged and retried a second later.
async fn accept_failed(e: std::io::Error, table: &Table) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    // EMFILE (the process's limit) and ENFILE (the system's).
    if matches!(e.raw_os_error(), Some(24 | 23)) {
        let closed = table.make_room();
        tracing::warn!(
            error = %e,
            closed,
            "out of file descriptors: closed the longest-idle connections; retrying"
        );
        tokio::time::sleep(Duration::from_millis(if closed > 0 { 5 } else { 100 })).await;
        return;
    }
    tracing::error!(error = %e, "accepting a connection failed; retrying in 1 s");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
