//! The endpoint's routes: POST (both revisions; the accept loop also takes it directly, as
//! [`EndpointPost`]), a 2025-11-25 session's GET and DELETE, the protected resource metadata,
//! health, the Server Card (and its AI Catalog) and the lab page.

use super::answer::answer;
use super::endpoint::{Endpoint, admit, client_of, guarded, local_caller, read_body};
use super::headers::{self, HeaderChecks};
use super::respond::{method_not_allowed, plain_status, transport_error};
use super::{accept, auth, cors, era, guard, health, legacy, negotiate, sse};
use crate::context::Caller;
use crate::dispatch::{Call, Handled, Ingress, Outgoing, Transport};
use crate::legacy::Legacy;
use crate::net::ClientNet;
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use http::{StatusCode, header};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// The endpoint's POST as a route of its own, for the accept loop to serve without the router.
pub(super) struct EndpointPost(pub(super) Arc<Endpoint>);

impl accept::DirectRoute for EndpointPost {
    fn takes(&self, request: &Request) -> bool {
        request.method() == http::Method::POST && request.uri().path() == self.0.options.path
    }

    fn answer(&self, request: Request) -> accept::Answering {
        Box::pin(handle(State(self.0.clone()), request))
    }
}

/// The router of `endpoint`: its POST, GET and DELETE, its metadata, health, Server Card and lab
/// routes.
pub(super) fn routes(endpoint: Arc<Endpoint>) -> Router {
    let path = endpoint.options.path.clone();
    let mut router = Router::new().route(
        &path,
        axum::routing::post(handle)
            .get(session_get)
            .delete(session_delete)
            .options(cors::preflight)
            .fallback(method_not_allowed),
    );
    if let Some(rs) = &endpoint.options.auth {
        for well_known in auth::metadata_paths(rs) {
            router = router.route(&well_known, axum::routing::get(metadata));
        }
    }
    // A path the endpoint or its metadata takes is not served twice (serving refuses such
    // options before it gets here; a router made for an app of its own says so).
    if let Some(health) = &endpoint.options.health {
        match endpoint.options.health_clash() {
            Some(why) => tracing::warn!("{why}: the health endpoint is not served"),
            None => router = router.route(health, axum::routing::get(health::ready)),
        }
    }
    // Public, like the metadata: no token asked (`server_card/serve.rs`).
    #[cfg(feature = "server-card")]
    let router = super::server_card::mount(router, &endpoint);
    #[cfg(feature = "lab")]
    let router = super::lab::mount(router, &endpoint.options);
    router.with_state(endpoint)
}

/// The protected resource metadata document.
async fn metadata(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let options = &endpoint.options;
    match guard::judge_host(options, request.headers(), request.uri()) {
        Err(why) => return plain_status(StatusCode::BAD_REQUEST, why),
        Ok(true) => {}
        Ok(false) => {
            return plain_status(
                StatusCode::FORBIDDEN,
                "Forbidden: this Host is not allowed (DNS rebinding protection)",
            );
        }
    }
    match &options.auth {
        Some(rs) => auth::metadata_response(rs),
        None => plain_status(StatusCode::NOT_FOUND, "Not Found"),
    }
}

/// A GET or DELETE, admitted: the legacy side, the request's head and its caller. Without a
/// session (or a legacy side) it is a method a 2026-07-28 endpoint does not take: 405.
async fn session_request(endpoint: &Endpoint, request: Request) -> Result<Admitted, Response> {
    let Some(legacy) = endpoint.legacy.clone() else {
        return Err(method_not_allowed().await);
    };
    if !request.headers().contains_key("mcp-session-id") {
        return Err(method_not_allowed().await);
    }
    let (parts, _) = request.into_parts();
    if let Some(refused) = guarded(&endpoint.options, &parts.headers, &parts.uri) {
        return Err(refused);
    }
    let client = client_of(&endpoint.options, &parts);
    let local = local_caller(&endpoint.options, &parts);
    let (caller, _) = admit(endpoint, &parts, None, client, local).await?;
    Ok(Admitted {
        legacy,
        parts,
        caller,
        client,
    })
}

/// A session's GET or DELETE, admitted.
struct Admitted {
    legacy: Arc<Legacy>,
    parts: http::request::Parts,
    caller: Option<Arc<Caller>>,
    client: Option<ClientNet>,
}

/// GET: a 2025-11-25 session's stream.
async fn session_get(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let origin = cors::origin(&endpoint.options, request.headers());
    let mut response = session_get_inner(&endpoint, request).await;
    if let Some(origin) = origin {
        cors::allow(&mut response, origin);
    }
    response
}

async fn session_get_inner(endpoint: &Arc<Endpoint>, request: Request) -> Response {
    match session_request(endpoint, request).await {
        Ok(Admitted {
            legacy,
            parts,
            caller,
            client,
        }) => {
            let accept = negotiate::accepts(&parts.headers);
            legacy::get(endpoint, &legacy, &parts.headers, caller, client, &accept).await
        }
        Err(refused) => refused,
    }
}

/// DELETE: ends a 2025-11-25 session.
async fn session_delete(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let origin = cors::origin(&endpoint.options, request.headers());
    let mut response = match session_request(&endpoint, request).await {
        Ok(Admitted {
            legacy,
            parts,
            caller,
            ..
        }) => legacy::delete(&legacy, &parts.headers, caller).await,
        Err(refused) => refused,
    };
    if let Some(origin) = origin {
        cors::allow(&mut response, origin);
    }
    response
}

/// POST: one message, of either revision. A request from another (allowed) origin is answered
/// with its CORS headers.
///
/// A plain function returning the future, not an `async fn`: the accept loop boxes this future
/// for every request, and an `async fn` keeps its arguments beside the locals they are moved
/// into. Kept under glibc's per-thread cache size (1,032 bytes), that box costs a tenth of a
/// larger one (BENCHMARKS.md, "The request's future under the allocator's cache").
fn handle(
    State(endpoint): State<Arc<Endpoint>>,
    request: Request,
) -> impl Future<Output = Response> + Send {
    let origin = if request.headers().contains_key(header::ORIGIN) {
        cors::origin(&endpoint.options, request.headers())
    } else {
        None
    };
    WithCors {
        post: handle_post(endpoint, request),
        origin,
    }
}

pin_project_lite::pin_project! {
    /// A POST's future, its response given the CORS headers of `origin` when it ends.
    struct WithCors<F> {
        #[pin]
        post: F,
        origin: Option<http::HeaderValue>,
    }
}

impl<F: Future<Output = Response>> Future for WithCors<F> {
    type Output = Response;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        let this = self.project();
        let mut response = std::task::ready!(this.post.poll(cx));
        if let Some(origin) = this.origin.take() {
            cors::allow(&mut response, origin);
        }
        Poll::Ready(response)
    }
}

/// The POST itself. The async block uses what it captured in place (an `async fn` would move
/// each argument into a second slot of its state).
fn handle_post(endpoint: Arc<Endpoint>, request: Request) -> impl Future<Output = Response> + Send {
    let (mut parts, body) = request.into_parts();
    async move {
        let options = &endpoint.options;
        if let Some(refused) = guarded(options, &parts.headers, &parts.uri) {
            return refused;
        }
        // Who sent it: decided once, for every use below.
        let client = client_of(options, &parts);
        let local = local_caller(options, &parts);
        let (caller, body) = if options.auth.is_none() && endpoint.limiter.is_none() {
            (local, body)
        } else {
            match Box::pin(admit(&endpoint, &parts, Some(body), client, local)).await {
                Ok((caller, Some(body))) => (caller, body),
                // Authentication read the body to name the scopes in its challenge: it refused.
                Ok((_, None)) => return transport_error(StatusCode::BAD_REQUEST, "Bad Request"),
                Err(refused) => return refused,
            }
        };
        let accept = match negotiate::post_media(&parts.headers) {
            Ok(accept) => accept,
            Err((status, why)) => return transport_error(status, why),
        };
        let bytes = match read_body(body, options).await {
            Ok(b) => b,
            Err(response) => return response,
        };
        // What the caller sees of mounts that pass its token on is fetched before it is served.
        if let Some(views) = endpoint.dispatcher.views_ready(caller.as_ref()) {
            views.await;
        }
        dispatch_post(&endpoint, &mut parts, bytes, caller, client, accept).await
    }
}

/// The POST once its body is read: the 2025-11-25 path or the dispatcher's answer. Its own
/// future, awaited in the POST's: the body's reading and the answer's waiting then share their
/// room in the POST's state.
async fn dispatch_post(
    endpoint: &Endpoint,
    parts: &mut http::request::Parts,
    bytes: bytes::Bytes,
    caller: Option<Arc<Caller>>,
    client: Option<ClientNet>,
    accept: negotiate::AcceptSet,
) -> Response {
    let options = &endpoint.options;
    let found = headers::McpHeaders::scan(&parts.headers);
    if let Some(legacy) = &endpoint.legacy
        && era::of_post(&found, &bytes) == era::Era::Legacy
    {
        // Boxed: the 2025 path's state would otherwise make every request's future (moved
        // several times through axum and hyper) as large as its own.
        return Box::pin(legacy::post(
            endpoint,
            legacy,
            &parts.headers,
            &bytes,
            caller,
            client,
            &accept,
        ))
        .await;
    }
    // Matched where it is made: a named `Handled` would keep a slot of its own in the
    // future's state beside `call`.
    let mut call = match endpoint.dispatcher.handle(
        &bytes,
        Ingress {
            caller,
            checks: Some(&HeaderChecks::new(&parts.headers, found)),
            transport: Some(Transport::Http),
            client,
        },
    ) {
        Handled::Notification(_) => {
            let mut resp = Response::new(Body::empty());
            *resp.status_mut() = StatusCode::ACCEPTED;
            return resp;
        }
        Handled::Call(call) => call,
    };
    let keepalive = options.keepalive;
    // The request's headers are read: their map carries the response.
    let headers = std::mem::take(&mut parts.headers);
    match call.next_message().await {
        Some(Outgoing::Response(r)) if accept.json || r.is_refusal() || r.is_busy() => {
            answer(options, r, headers)
        }
        Some(Outgoing::Response(r)) => sse::response(r.body, None, keepalive, headers),
        Some(Outgoing::Notification(n)) if accept.sse => {
            sse::response(n, Some(call), keepalive, headers)
        }
        Some(Outgoing::Notification(_)) => {
            // The client takes JSON only: request-scoped notifications cannot be delivered.
            // Boxed: rare, and its state would double the size of every POST's future.
            answer(options, Box::pin(Call::response(call)).await, headers)
        }
        None => transport_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal error: the request produced no response",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of what `f` returns, without calling it.
    fn output_size<F: FnOnce(State<Arc<Endpoint>>, Request) -> R, R>(_: F) -> usize {
        std::mem::size_of::<R>()
    }

    #[test]
    fn a_posts_future_fits_the_allocators_cache() {
        // The accept loop boxes this future for every request; glibc serves boxes up to 1,032
        // bytes from its per-thread cache (BENCHMARKS.md, "The request's future under the
        // allocator's cache").
        let size = output_size(handle);
        assert!(size <= 1032, "a POST's future is {size} bytes");
    }
}
