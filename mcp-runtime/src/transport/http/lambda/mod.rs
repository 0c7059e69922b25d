//! AWS Lambda as a serverless target (feature `lambda`): a server answers API Gateway (REST API
//! or HTTP API) and Lambda Function URL events with [`Server::run_lambda`].
//!
//! ```no_run
//! use mcp_runtime::lambda::LambdaOptions;
//! use mcp_runtime::prelude::*;
//!
//! /// Add two integers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> Result<(), mcp_runtime::Error> {
//!     let server = Server::from_inventory().name("calculator").version("1.0.0").build()?;
//!     server.run_lambda(LambdaOptions::default()).await
//! }
//! ```
//!
//! The 2026-07-28 revision fits Lambda: every request stands alone, and the `requestState` of a
//! multi-round request is sealed into the answer, so its retry may land on any instance. What
//! needs a process that outlives its answer does not fit: a Lambda instance is frozen once it
//! has answered, and the next invocation may go to another instance. So, on Lambda:
//!
//! | what | on Lambda |
//! |---|---|
//! | `server/discover`, the lists, `tools/call`, `resources/read`, `prompts/get`, `completion/complete`, skills | served, as on [`Server::serve`](crate::Server::serve) |
//! | multi-round requests (`input_required`, then a retry with `requestState`) | served on any instance, with a key every instance shares: `MCP_STATE_KEY` or [`ServerBuilder::state_keys`](crate::ServerBuilder::state_keys). A server whose primitives ask the client for input and whose key was generated at start refuses to start (a generated key would fail every retry that lands elsewhere) |
//! | progress and log notifications | sent as Server-Sent Events with [`LambdaOptions::response_streaming`] (a Function URL with `InvokeMode: RESPONSE_STREAM`); dropped otherwise (the answer is one JSON body) |
//! | task tools (`TaskSupport::Optional`) | run to completion in their call: the tasks extension is not declared, so no client makes them tasks |
//! | tools that run only as tasks (`TaskSupport::Required`) | hidden from `tools/list`; a call answers `-32602` (HTTP 400) saying why |
//! | `tasks/get`, `tasks/update`, `tasks/cancel`, `subscriptions/listen` | `-32601` (HTTP 404) saying why: a task's handler runs on after its call is answered, and a listen stream lasts |
//! | `listChanged`, `resources.subscribe` | not advertised (nobody could listen) |
//! | 2025-11-25 clients (`initialize`, `Mcp-Session-Id`, the GET stream) | `-32602` (HTTP 400) naming the revision served: a session, its GET stream and its server-to-client requests live in one process |
//! | `GET`, `DELETE` on the endpoint | 405 (`Allow: POST`) |
//!
//! A task needs a runner that outlives its call (even with the `redis` feature, which keeps
//! tasks in Redis, the handler itself runs in the instance that started it), and a listen stream
//! holds its response open for as long as the client listens; serve such a server from a
//! long-lived process ([`Server::serve`](crate::Server::serve) on a container service) instead.
//!
//! # The endpoint's checks
//!
//! Each event is an `http::Request` (made by [`lambda_http`]) served as the Streamable HTTP
//! endpoint serves a POST, by the same code: the Host/Origin guard, authentication
//! ([`HttpOptions::auth`]: the bearer token, the challenges, and the protected resource
//! metadata at its well-known paths), the rate limit, `Content-Type`, `Accept`, the body limit
//! ([`HttpOptions::body_limit`]; Lambda itself takes at most 6 MB), the MCP headers that mirror
//! the body (`-32020`), then the pipeline. A CORS preflight (`OPTIONS`) is answered as the
//! endpoint answers it. The lab page and the health endpoint are not served.
//!
//! - **Host.** A Lambda's `Host` is the domain it was invoked on: the Function URL's
//!   (`<id>.lambda-url.<region>.on.aws`), the API's (`<id>.execute-api.<region>.amazonaws.com`)
//!   or a custom domain. AWS routes the request by that name and says which it was in the
//!   event (`requestContext.domainName`); a `Host` equal to it is accepted
//!   ([`LambdaOptions::event_domain`], on by default), as are loopback names and those of
//!   [`HttpOptions::allow_host`]. Turn it off to accept only the names you list.
//! - **Origin.** Browser origins are refused unless loopback or allowed
//!   ([`HttpOptions::allow_origin`]), as on any endpoint.
//! - **The client's address** is the event's (`requestContext.identity.sourceIp`, or
//!   `requestContext.http.sourceIp`), which AWS sets: anonymous callers' shares of the
//!   [`Limits`](crate::Limits) and the rate limit count by it, without trusting
//!   `X-Forwarded-For`. The rate limit is per instance; throttle at API Gateway for a limit
//!   across instances.
//! - **The path.** The endpoint is [`HttpOptions::path`] (`/mcp` by default) after the API
//!   Gateway stage, if any, is taken off the front (`/prod/mcp` on stage `prod` is `/mcp`); any
//!   other path is 404.
//! - **The body.** One AWS hands over in base64 (`isBase64Encoded`: a Function URL does, for
//!   a body it takes for binary) is decoded; one that is not valid base64 is answered 400
//!   (`-32600`), where the endpoint would read the body.
//! - **The deadline.** A request still running 250 ms before the invocation's deadline (the
//!   function's timeout) is cancelled and answered `-32603`, so that the client gets a JSON-RPC
//!   error rather than the gateway's own. API Gateway gives up sooner (29 s for a REST API, 30 s
//!   for an HTTP API): keep [`ServerBuilder::request_timeout`](crate::ServerBuilder::request_timeout)
//!   below it.
//!
//! # Response streaming
//!
//! By default an invocation's answer is buffered: one JSON body, as API Gateway and Function
//! URLs in `BUFFERED` mode expect. With [`LambdaOptions::response_streaming`] the function
//! streams (as [`lambda_http::run_with_streaming_response`] does): a call that reports
//! progress or logs is answered as Server-Sent Events (when the client accepts them), each
//! notification sent when it is made, then the result. That needs a Function URL with `InvokeMode:
//! RESPONSE_STREAM` (or a REST API integration whose response transfer mode is `STREAM`);
//! API Gateway HTTP APIs do not stream.
//!
//! # Deploying
//!
//! The guide's [Deploying to AWS Lambda](crate::guide::serving#deploying-to-aws-lambda) builds the
//! `bootstrap` binary for the `provided.al2023` runtime and puts it behind a Function URL or an
//! HTTP API; `examples/lambda.rs` is a complete function.
//!
//! [`Server::run_lambda`]: crate::Server::run_lambda
//! [`HttpOptions::auth`]: crate::HttpOptions::auth
//! [`HttpOptions::body_limit`]: crate::HttpOptions::body_limit
//! [`HttpOptions::allow_host`]: crate::HttpOptions::allow_host
//! [`HttpOptions::allow_origin`]: crate::HttpOptions::allow_origin
//! [`HttpOptions::path`]: crate::HttpOptions::path

mod body;
mod events;
mod options;
mod profile;
mod service;

pub use options::LambdaOptions;
pub use service::LambdaService;

/// The crate that turns Lambda events into `http` requests and runs the Lambda runtime loop,
/// re-exported for what [`LambdaService`] is served with (a runtime of your own, SnapStart
/// hooks) and for tests that build events.
pub use lambda_http;

use crate::dispatch::Dispatcher;
use crate::error::Error;
use std::sync::Arc;

/// The service answering `dispatcher`'s events (see [`Server::lambda_service`]).
///
/// [`Server::lambda_service`]: crate::Server::lambda_service
pub(crate) fn service(
    dispatcher: &Arc<Dispatcher>,
    options: LambdaOptions,
) -> Result<LambdaService, Error> {
    crate::transport::http::check_options(dispatcher, &options.http)?;
    let profile = profile::profile(dispatcher)?;
    Ok(LambdaService::new(profile, options))
}

/// Serves `dispatcher` on the Lambda runtime API until the runtime stops (see
/// [`Server::run_lambda`](crate::Server::run_lambda)).
pub(crate) async fn run(dispatcher: &Arc<Dispatcher>, options: LambdaOptions) -> Result<(), Error> {
    let service = service(dispatcher, options)?;
    // `lambda_runtime` panics without its environment: say what is missing instead.
    if std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_none() {
        return Err(Error::Usage(
            "AWS_LAMBDA_RUNTIME_API is not set: this is not a Lambda environment. Deploy the \
             function, or run it locally behind the runtime emulator of `cargo lambda watch`"
                .into(),
        ));
    }
    // The events themselves (`events.rs`), not `lambda_http::run`'s requests: a body flagged
    // base64 is decoded by the service, which answers a bad one 400 where `lambda_http` panics.
    lambda_http::lambda_runtime::run(service)
        .await
        .map_err(|e| Error::Io(std::io::Error::other(e)))
}
