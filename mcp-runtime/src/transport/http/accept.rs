//! The accept loop of [`Server::run`](crate::Server::run): each connection served by hyper's
//! HTTP/1 connection, and a graceful end.
//!
//! Why not `axum::serve`: it serves every connection through hyper-util's protocol-detecting
//! `auto` connection, which holds more resident memory per open connection (BENCHMARKS.md, "The
//! accept loop"). The server speaks HTTP/1.1 only, so the detection bought nothing.

use super::hygiene::{
    Admitted, ClientGone, ConnState, Hygiene, Responding, Socket, Table, Tracked,
};
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

/// Serves `app` on `listener` until `stop` resolves; then stops accepting, answers every request
/// from then on with `Connection: close`, closes each connection once such an answer is written
/// or [`LINGER`] has passed (after what it is answering), and returns once all have closed.
/// Each request's handler can read its client's address (`peer::peer_of`).
/// `rules`: the idle time and the connection cap (`hygiene/`); `direct`: the route served
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
    let table = Table::new(rules.clone());
    table.start_sweeper();
    let mut stop = std::pin::pin!(stop);
    let mut stopped = false;
    // Connections taken once stopped: at most a backlog's worth (`super::bind`'s).
    let mut after_stop = 0;
    loop {
        let (socket, peer) = if stopped {
            // The connections the kernel has completed but not handed over yet are taken too
            // (the listener's close would reset them, a request perhaps already sent on one);
            // then the listener closes.
            after_stop += 1;
            if after_stop > 4096 {
                break;
            }
            match std::future::poll_fn(|cx| Poll::Ready(listener.poll_accept(cx))).await {
                Poll::Ready(Ok(connection)) => connection,
                Poll::Ready(Err(_)) | Poll::Pending => break,
            }
        } else {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(connection) => connection,
                    Err(e) => {
                        accept_failed(e, &table).await;
                        continue;
                    }
                },
                () = &mut stop => {
                    stopped = true;
                    continue;
                }
            }
        };
        accepted(&socket);
        let registered = match table.admit(rules.share_of(peer.ip())) {
            Admitted::Serve(registered) => registered,
            Admitted::Refuse => {
                tokio::spawn(refuse(socket));
                continue;
            }
        };
        // The connections closed to make room give their sockets back only when their tasks
        // run: let them, before the next accept takes another descriptor.
        let made_room = registered.made_room > 0;
        if stopped {
            registered.state.drain();
        }
        let socket = Socket::new(socket, registered.state.clone());
        let service = Connection {
            app: app.clone(),
            direct: direct.clone(),
            peer,
            state: registered.state.clone(),
            socket: socket.clone(),
        };
        let mut stopping = stopping.clone();
        let closed = closed.clone();
        let served = async move {
            let io = Tracked {
                io: socket,
                state: registered.state.clone(),
            };
            // Half-close: hyper does not read while a request is in flight (a new 8 KiB read
            // buffer per request otherwise); the answer watches for its client's going itself
            // (`hygiene/socket.rs`; BENCHMARKS.md, "hyper's read buffer").
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.half_close(true);
            let connection = builder.serve_connection(TokioIo::new(io), service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stopping.changed() => {
                    // Each answer from now on closes its connection; an idle one stays open
                    // for `LINGER`, serving what comes, and only then is closed.
                    registered.state.drain();
                    let lingered = tokio::time::timeout(LINGER, connection.as_mut()).await;
                    if lingered.is_err() {
                        connection.as_mut().graceful_shutdown();
                        let _ = connection.await;
                    }
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

/// How long a connection stays open once the server drains, unless an answer with `Connection:
/// close` ends it first. A proxy in front (nginx) keeps idle connections to each instance and
/// may have just taken one for a request: closed at once, that request fails, and a proxy does
/// not send a POST elsewhere once it has sent it (nginx answers 502). Kept open, the request is
/// served, its answer says `Connection: close`, and the proxy's next request for this instance
/// finds the listener closed and goes to another one (BENCHMARKS.md, "Draining behind a
/// proxy").
const LINGER: Duration = Duration::from_secs(1);

/// How every accepted socket is set up (every route: the endpoint, 2025-11-25 streams, the lab
/// page): written at once, so that a response's last piece never waits for the client's
/// delayed acknowledgement of the one before (Nagle's algorithm; BENCHMARKS.md, "Latency under
/// real clients").
fn accepted(socket: &tokio::net::TcpStream) {
    if let Err(e) = socket.set_nodelay(true) {
        tracing::debug!(target: "mcp_runtime::http", error = %e, "TCP_NODELAY not set");
    }
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
    /// Watched by each answer for its client's going.
    socket: Socket,
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
    type Error = ClientGone;
    type Future = Responding<Routed>;

    fn call(&self, request: http::Request<Incoming>) -> Self::Future {
        let in_flight = self.state.request_started();
        let request = match axum::body::HttpBody::is_end_stream(request.body()) {
            true => request.map(Body::new),
            // A body to come: watched, so that one that stops coming can make room at the cap.
            false => request.map(|body| Body::new(self.state.receiving(body))),
        };
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
            socket: Some(self.socket.clone()),
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

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn accepted_sockets_write_at_once() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let _client = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (socket, _) = listener.accept().await.unwrap();
        assert!(!socket.nodelay().unwrap(), "off until set");
        super::accepted(&socket);
        assert!(
            socket.nodelay().unwrap(),
            "TCP_NODELAY read back from the socket"
        );
    }

    /// No route taken directly: the router answers everything.
    struct NoDirect;

    impl super::DirectRoute for NoDirect {
        fn takes(&self, _: &http::Request<axum::body::Body>) -> bool {
            false
        }
        fn answer(&self, _: http::Request<axum::body::Body>) -> super::Answering {
            unreachable!("takes nothing")
        }
    }

    /// Sends `GET /` on `s` and reads one whole response (its head and its short body).
    async fn get(s: &mut tokio::net::TcpStream) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        s.write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            .await
            .unwrap();
        let mut seen = Vec::new();
        let mut buf = [0u8; 1024];
        while !String::from_utf8_lossy(&seen).ends_with("\r\n\r\nok") {
            let n = s.read(&mut buf).await.unwrap();
            assert!(
                n > 0,
                "closed before the answer: {}",
                String::from_utf8_lossy(&seen)
            );
            seen.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&seen).to_ascii_lowercase()
    }

    /// Told to stop, the server closes no idle connection under its client: a request a proxy
    /// sends on its pooled connection just then is served, with `Connection: close`, and only
    /// then does the connection close. The listener is closed at once.
    #[tokio::test]
    async fn a_draining_server_answers_on_idle_connections_and_says_close() {
        use tokio::io::AsyncReadExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
        let rules = super::Hygiene {
            idle: Some(std::time::Duration::from_secs(30)),
            stall: std::time::Duration::from_secs(60),
            max_connections: 100,
            per_address: 100,
            exempt: Vec::new(),
            ipv6_prefix: 64,
        };
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(super::serve(
            listener,
            app,
            std::sync::Arc::new(NoDirect),
            rules,
            async move {
                let _ = stop_rx.await;
            },
        ));
        let mut pooled = tokio::net::TcpStream::connect(addr).await.unwrap();
        let first = get(&mut pooled).await;
        assert!(!first.contains("connection: close"), "{first}");
        stop_tx.send(()).unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(
            tokio::net::TcpStream::connect(addr).await.is_err(),
            "the listener is closed"
        );
        // The idle connection is still open: its next request is answered, saying close.
        let second = get(&mut pooled).await;
        assert!(second.starts_with("http/1.1 200"), "{second}");
        assert!(second.contains("connection: close"), "{second}");
        let mut rest = Vec::new();
        let closed = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            pooled.read_to_end(&mut rest),
        );
        assert!(matches!(closed.await, Ok(Ok(0))), "closed after the answer");
        tokio::time::timeout(std::time::Duration::from_secs(5), serving)
            .await
            .expect("the server returns once its connections closed")
            .unwrap();
    }
}
