//! The events as the Lambda runtime hands them over, before `lambda_http` makes each a request:
//! a body AWS flags as base64 (`isBase64Encoded`) is taken out first (`body.rs`), so that one
//! which is not valid base64 is answered 400 (`lambda_http` decodes with an `expect`: it would
//! panic).
//! The rest of the event, and the answer's shape, are `lambda_http`'s, as `lambda_http::run`
//! and `lambda_http::run_with_streaming_response` make them.

use super::body::{NotBase64, take_base64_body};
use super::service::{Lambda, LambdaService, serve};
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use lambda_http::lambda_runtime::{FunctionResponse, StreamResponse};
use lambda_http::request::LambdaRequest;
use lambda_http::{Adapter, LambdaEvent, StreamAdapter};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower_service::Service;

/// What a buffered invocation answers: `lambda_http`'s response event (its type is not
/// exported; named here through the adapter that makes it).
type Buffered =
    <Adapter<'static, Response, LambdaService> as Service<LambdaEvent<LambdaRequest>>>::Response;

/// What a streaming invocation answers: the status and headers, then the body's stream.
type Streamed =
    <StreamAdapter<'static, LambdaService, Body> as Service<LambdaEvent<LambdaRequest>>>::Response;

/// The stream type of a [`StreamResponse`] (`lambda_http`'s body stream is not exported).
/// Public in a private module: an impl's associated type may name no private trait.
pub trait StreamOf {
    /// The stream.
    type Stream;
}

impl<S> StreamOf for StreamResponse<S> {
    type Stream = S;
}

/// An event's answer: buffered, or streamed with `LambdaOptions::response_streaming`.
type EventResponse = FunctionResponse<Buffered, <Streamed as StreamOf>::Stream>;

/// The events themselves, as [`Server::run_lambda`](crate::Server::run_lambda) serves them:
/// each event's base64 body decoded here (one that is not valid base64 answered 400), the
/// rest made a request by `lambda_http` and served as a [`lambda_http::Request`] is; the
/// answer buffered, or streamed with `LambdaOptions::response_streaming`. (rustdoc does not
/// show this impl, `LambdaRequest` being `doc(hidden)`: [`LambdaService`] says how to use it.)
impl Service<LambdaEvent<LambdaRequest>> for LambdaService {
    type Response = EventResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<EventResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut event: LambdaEvent<LambdaRequest>) -> Self::Future {
        let body = take_base64_body(&mut event.payload);
        let invocation = Invocation {
            lambda: self.lambda.clone(),
            body,
        };
        if self.lambda.streaming {
            let answer = StreamAdapter::from(invocation).call(event);
            Box::pin(async move { answer.await.map(FunctionResponse::StreamingResponse) })
        } else {
            let answer = Adapter::from(invocation).call(event);
            Box::pin(async move { answer.await.map(FunctionResponse::BufferedResponse) })
        }
    }
}

/// One event's request, with the body decoded from its base64 (else the request's own).
struct Invocation {
    lambda: Arc<Lambda>,
    body: Option<Result<Bytes, NotBase64>>,
}

impl Service<lambda_http::Request> for Invocation {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: lambda_http::Request) -> Self::Future {
        let lambda = self.lambda.clone();
        let body = self.body.take();
        Box::pin(async move { Ok(serve(&lambda, request, body).await) })
    }
}
