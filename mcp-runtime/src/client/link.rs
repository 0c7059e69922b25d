//! What carries a client's messages: a [`Link`] sends one request and yields what answers it
//! (an [`Exchange`]: notifications, then the response). In process ([`Server`](crate::Server)),
//! over Streamable HTTP and to a child process over stdio (feature `client`).

use super::error::ClientError;
use crate::context::Caller;
use crate::dispatch::{Call, Outgoing};
use crate::registry::BoxFuture;
use serde_json::{Map, Value};

/// One message a link received for a request.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A notification of the request (progress, a log message, a listen stream's events).
    Notification(Value),
    /// A request of the server to the client (2025-11-25 sessions only, so remote ones): the
    /// whole message.
    #[cfg(feature = "client")]
    Request(Value),
    /// The response: the whole JSON-RPC message; nothing follows it.
    Response(Value),
}

/// What answers one request, read message by message; dropping it abandons the request, which
/// cancels it: in process the call is dropped, over HTTP its connection is closed (a 2025
/// session is sent `notifications/cancelled` as well) and over stdio `notifications/cancelled`
/// is sent.
pub(crate) struct Exchange(Source);

enum Source {
    /// The pipeline's own call (in process).
    Call(Option<Call>),
    /// One answer read already (a JSON response).
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    Ready(Option<Value>),
    /// Messages read as they come (an SSE response, or those a reader task routes to the
    /// request).
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    Stream(Box<dyn Messages>),
}

/// The messages of one request as a remote link reads them.
pub(crate) trait Messages: Send {
    /// The next message; `Ok(None)` once the response was read.
    fn next(&mut self) -> BoxFuture<'_, Result<Option<Incoming>, ClientError>>;
}

impl Exchange {
    pub(crate) fn call(call: Call) -> Exchange {
        Exchange(Source::Call(Some(call)))
    }

    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) fn ready(response: Value) -> Exchange {
        Exchange(Source::Ready(Some(response)))
    }

    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) fn stream(messages: impl Messages + 'static) -> Exchange {
        Exchange(Source::Stream(Box::new(messages)))
    }

    /// The messages still to come, when they are read as they come; else the exchange as it
    /// was (its response read already, or a call in process).
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) fn into_stream(self) -> Result<Box<dyn Messages>, Box<Exchange>> {
        match self.0 {
            Source::Stream(messages) => Ok(messages),
            other => Err(Box::new(Exchange(other))),
        }
    }

    /// The next message; `Ok(None)` once the response was read.
    pub(crate) async fn next(&mut self) -> Result<Option<Incoming>, ClientError> {
        match &mut self.0 {
            Source::Call(slot) => {
                let Some(call) = slot.as_mut() else {
                    return Ok(None);
                };
                match call.next_message().await {
                    Some(Outgoing::Notification(bytes)) => Ok(Some(Incoming::Notification(
                        crate::json::from_bytes(&bytes).map_err(bad_json)?,
                    ))),
                    Some(Outgoing::Response(response)) => {
                        *slot = None;
                        Ok(Some(Incoming::Response(
                            crate::json::from_bytes(&response.body).map_err(bad_json)?,
                        )))
                    }
                    None => {
                        *slot = None;
                        Err(ClientError::Protocol(
                            "the call ended without a response".into(),
                        ))
                    }
                }
            }
            Source::Ready(slot) => Ok(slot.take().map(Incoming::Response)),
            Source::Stream(messages) => messages.next().await,
        }
    }
}

fn bad_json(e: serde_json::Error) -> ClientError {
    ClientError::Protocol(format!("a message is not JSON: {e}"))
}

/// One request as a link sends it.
pub(crate) struct Outbound<'a> {
    /// The whole JSON-RPC message, written for the 2026-07-28 revision (a link speaking an
    /// older one rewrites it, `session.rs`).
    pub(crate) message: Map<String, Value>,
    /// Sent as this caller (in process only: other links authenticate with their headers).
    pub(crate) caller: Option<&'a Caller>,
    /// `Mcp-Param-{Name}` headers of a tool call (HTTP only), encoded already.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) param_headers: Vec<(String, String)>,
}

/// Carries a client's requests to one server.
pub(crate) trait Link: Send + Sync + 'static {
    /// Sends one request (or a notification, whose exchange then yields nothing).
    fn send<'a>(&'a self, out: Outbound<'a>) -> BoxFuture<'a, Result<Exchange, ClientError>>;

    /// Answers a request the server sent on a 2025-11-25 session (the whole response message).
    #[cfg(feature = "client")]
    fn reply(&self, response: Value) -> BoxFuture<'_, Result<(), ClientError>> {
        let _ = response;
        Box::pin(async {
            Err(ClientError::Protocol(
                "this link carries no server-to-client requests".into(),
            ))
        })
    }

    /// The protocol revision the link speaks (known once a first request was answered).
    fn revision(&self) -> Option<String>;

    /// Whether its requests need their caller's access token (its credentials pass it on or
    /// exchange it).
    #[cfg_attr(not(feature = "mounts"), allow(dead_code))]
    fn needs_caller_token(&self) -> bool {
        false
    }

    /// What the server is, for errors and logs (a URL, a command, `in-process`).
    fn describe(&self) -> &str;
}

/// A mutex's value, even after a holder panicked (what it guards stays consistent: each holder
/// writes whole values).
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
