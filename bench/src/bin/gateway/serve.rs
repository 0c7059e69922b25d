//! The serving process.

use crate::wire::{ANSWER, KeepAlive, contains, wire};
use mcp_bench::{AddArgs, add_call};
use mcp_runtime::client::Client;
use mcp_runtime::protocol::CacheScope;
use mcp_runtime::{CacheTarget, HttpOptions, Server, Tool};
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// What the backend saw on one listener: connections accepted, `tools/call` requests, and
/// requests of other methods (`Mcp-Method`).
#[derive(Default)]
pub(crate) struct Seen {
    pub(crate) accepted: AtomicU64,
    pub(crate) calls: AtomicU64,
    pub(crate) other: AtomicU64,
}

/// Serves `router` with hyper's HTTP/1 connection on each socket `listener` accepts, counted in
/// `seen` with each request's method.
pub(crate) async fn accept_loop(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    seen: Arc<Seen>,
) {
    let service = hyper_util::service::TowerToHyperService::new(router);
    loop {
        let Ok((socket, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        seen.accepted.fetch_add(1, Ordering::Relaxed);
        let _ = socket.set_nodelay(true);
        let (service, seen) = (service.clone(), seen.clone());
        let counted = hyper::service::service_fn(move |req: hyper::Request<_>| {
            let call = req
                .headers()
                .get("mcp-method")
                .is_some_and(|m| m.as_bytes() == b"tools/call");
            match call {
                true => &seen.calls,
                false => &seen.other,
            }
            .fetch_add(1, Ordering::Relaxed);
            hyper::service::Service::call(&service, req)
        });
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(socket);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, counted)
                .await;
        });
    }
}

pub(crate) fn port_of(listener: &tokio::net::TcpListener) -> Result<u16, String> {
    Ok(listener.local_addr().map_err(|e| e.to_string())?.port())
}

/// `--serve`: the backend and the gateway; prints `ready DIRECT LINK GATEWAY` (their ports)
/// once the gateway has answered a proxied call, then `seen CONNECTIONS CALLS OTHER` (the
/// link's) for each `count` read on stdin. With `list_ttl_ms`, the backend's lists say they
/// stay fresh that long (the gateway fetches them again when they go stale: by default, at
/// once, which its floor makes every second).
pub(crate) async fn serve(max: Duration, list_ttl_ms: Option<u64>) -> Result<(), String> {
    let mut backend = Server::builder().name("backend").version("1.0.0").tool(
        Tool::new("add")
            .description("Add two integers.")
            .handler(|args: AddArgs, _cx| async move { (args.a + args.b).to_string() }),
    );
    if let Some(ttl) = list_ttl_ms {
        for list in [
            CacheTarget::ToolsList,
            CacheTarget::ResourcesList,
            CacheTarget::TemplatesList,
            CacheTarget::PromptsList,
            CacheTarget::Skills,
        ] {
            backend = backend.cache(list, ttl, CacheScope::Public);
        }
    }
    let backend = backend.build().map_err(|e| e.to_string())?;
    let router = backend.into_router(HttpOptions::default());
    let direct = mcp_bench::listen("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let link = mcp_bench::listen("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let front = mcp_bench::listen("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let ports = (port_of(&direct)?, port_of(&link)?, port_of(&front)?);
    let seen = Arc::new(Seen::default());
    tokio::spawn(accept_loop(direct, router.clone(), Arc::default()));
    tokio::spawn(accept_loop(link, router, seen.clone()));

    let remote = Client::http(format!("http://127.0.0.1:{}/mcp", ports.1))
        .connect()
        .map_err(|e| e.to_string())?;
    let gateway = Server::builder()
        .name("gateway")
        .version("1.0.0")
        .mount("", remote)
        .build()
        .map_err(|e| e.to_string())?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(
        gateway.serve_until(front, HttpOptions::default(), async move {
            let _ = stopped.await;
        }),
    );
    // Serving starts once the mount's lists are fetched; the first call waits for it.
    let probe = tokio::time::timeout(Duration::from_secs(60), async {
        let mut conn = KeepAlive::connect(ports.2).await?;
        conn.send(&wire(ports.2, &add_call(false))).await
    })
    .await
    .map_err(|_| "the gateway did not answer within 60 s".to_owned())?
    .map_err(|e| format!("the gateway: {e}"))?;
    if !contains(&probe, ANSWER) {
        return Err(format!(
            "the gateway answered {}",
            String::from_utf8_lossy(&probe)
        ));
    }
    println!("ready {} {} {}", ports.0, ports.1, ports.2);
    let _ = std::io::stdout().flush();

    let (eof, closed) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if line.trim() == "count" {
                println!(
                    "seen {} {} {}",
                    seen.accepted.load(Ordering::Relaxed),
                    seen.calls.load(Ordering::Relaxed),
                    seen.other.load(Ordering::Relaxed)
                );
                let _ = std::io::stdout().flush();
            }
        }
        let _ = eof.send(());
    });
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = closed => {}
        () = tokio::time::sleep(max) => {}
    }
    let _ = stop.send(());
    Ok(())
}
