//! Loopback serving that records what reached the server: the `Authorization` header of every
//! request (the gateway and OAuth mount tests check which token reached which server).

use mcp_runtime::{HttpOptions, Server};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

/// Serves `server` on `listener` with `options` until the sender fires or is dropped; every
/// `Authorization` header it receives is recorded.
pub fn serve_on(
    listener: tokio::net::TcpListener,
    server: Server,
    options: HttpOptions,
) -> (
    SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    Arc<Mutex<Vec<String>>>,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorded = seen.clone();
    let router = server.into_router(options).layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let recorded = recorded.clone();
            async move {
                if let Some(auth) = request.headers().get("authorization") {
                    recorded
                        .lock()
                        .unwrap()
                        .push(auth.to_str().unwrap_or("").to_owned());
                }
                next.run(request).await
            }
        },
    ));
    let local = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    (local, stop, seen)
}
