//! A request on a 2025 session given up before its response: closing the connection does not
//! cancel it there (the server keeps running it), so `notifications/cancelled` is posted on
//! the session, with the headers the request went with.

use super::error::ClientError;
use super::link::{Exchange, Incoming, Messages};
use crate::registry::BoxFuture;
use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use hyper_util::client::legacy::Client as Pool;
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Map, Value, json};
use std::time::Duration;

type Https = hyper_rustls::HttpsConnector<HttpConnector>;

/// How long the notification may take before it is given up too.
const SEND_WITHIN: Duration = Duration::from_secs(5);

/// The notification, and the pool it goes through.
type Notice = (Pool<Https, Full<Bytes>>, Request<Full<Bytes>>);

/// Posts `notifications/cancelled` for one request when dropped before [`disarm`](Abandon::disarm).
pub(crate) struct Abandon(Option<Notice>);

impl Abandon {
    /// A guard for `request` (about to be posted as `message`), armed when `message` is a
    /// request, not a notification or a response.
    pub(crate) fn new(
        pool: &Pool<Https, Full<Bytes>>,
        request: &Request<Full<Bytes>>,
        message: &Map<String, Value>,
    ) -> Abandon {
        let (Some(id), Some(_)) = (message.get("id"), message.get("method")) else {
            return Abandon(None);
        };
        let cancel = json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "the client gave up on the request"},
        });
        let body = Bytes::from(serde_json::to_vec(&cancel).unwrap_or_default());
        let mut notice = Request::post(request.uri().clone())
            .body(Full::new(body))
            .unwrap_or_default();
        *notice.headers_mut() = request.headers().clone();
        notice.headers_mut().remove(http::header::CONTENT_LENGTH);
        Abandon(Some((pool.clone(), notice)))
    }

    /// The request was answered: nothing to send.
    pub(crate) fn disarm(&mut self) {
        self.0 = None;
    }

    /// `exchange` with this guard kept until its response is read (a stream), or dropped
    /// disarmed (a response read whole already).
    pub(crate) fn watch(mut self, exchange: Exchange) -> Exchange {
        match exchange.into_stream() {
            Ok(messages) => Exchange::stream(Watched {
                messages,
                guard: self,
            }),
            Err(answered) => {
                self.disarm();
                *answered
            }
        }
    }
}

impl Drop for Abandon {
    fn drop(&mut self) {
        let Some((pool, notice)) = self.0.take() else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = tokio::time::timeout(SEND_WITHIN, pool.request(notice)).await;
            });
        }
    }
}

/// A stream of messages whose guard is disarmed by the response.
struct Watched {
    messages: Box<dyn Messages>,
    guard: Abandon,
}

impl Messages for Watched {
    fn next(&mut self) -> BoxFuture<'_, Result<Option<Incoming>, ClientError>> {
        Box::pin(async move {
            let next = self.messages.next().await;
            if matches!(next, Ok(Some(Incoming::Response(_)) | None)) {
                self.guard.disarm();
            }
            next
        })
    }
}
