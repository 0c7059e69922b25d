//! A 2025 session's response stream cut before its response (a server polling, SEP-1699, or a
//! connection lost): resumed with `GET` and `Last-Event-ID` after the delay the server asked
//! for, as many times as the server cuts it (up to a bound), within the request's timeout.

use super::error::ClientError;
use super::link::{Incoming, Messages};
use super::sse::SseReader;
use crate::registry::BoxFuture;
use bytes::Bytes;
use http::Request;
use http::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE};
use http_body_util::Full;
use hyper_util::client::legacy::Client as Pool;
use hyper_util::client::legacy::connect::HttpConnector;
use std::time::Duration;

type Https = hyper_rustls::HttpsConnector<HttpConnector>;

/// Resumptions of one response.
const MAX_RESUMES: u32 = 100;
/// The longest reconnection delay honoured (a server asking for more waits this).
const MAX_DELAY: Duration = Duration::from_secs(5);

/// How to resume the response of one request: its `GET`, but for its `Last-Event-ID`, with the
/// request's own headers (session, revision, credentials).
pub(crate) struct Resume {
    pool: Pool<Https, Full<Bytes>>,
    get: Request<Full<Bytes>>,
    limit: usize,
}

impl Resume {
    /// For the response to `post`, sent through `pool`, each event read within `limit` bytes.
    pub(crate) fn new(
        pool: &Pool<Https, Full<Bytes>>,
        post: &Request<Full<Bytes>>,
        limit: usize,
    ) -> Resume {
        let mut get = Request::get(post.uri().clone())
            .body(Full::new(Bytes::new()))
            .unwrap_or_default();
        *get.headers_mut() = post.headers().clone();
        let headers = get.headers_mut();
        headers.remove(CONTENT_TYPE);
        headers.remove(CONTENT_LENGTH);
        headers.insert(ACCEPT, http::HeaderValue::from_static("text/event-stream"));
        Resume {
            pool: pool.clone(),
            get,
            limit,
        }
    }

    /// The response's stream, `body`, read and resumed when cut.
    pub(crate) fn reading(self, body: hyper::body::Incoming) -> Resuming {
        Resuming {
            reader: SseReader::new(body, self.limit),
            how: self,
            resumed: 0,
        }
    }
}

/// A response stream that resumes when cut.
pub(crate) struct Resuming {
    reader: SseReader,
    how: Resume,
    resumed: u32,
}

impl Resuming {
    async fn next(&mut self) -> Result<Option<Incoming>, ClientError> {
        loop {
            let cut = match self.reader.next().await {
                Err(e) => e,
                other => return other,
            };
            let Some((id, delay)) = self.reader.resumable() else {
                return Err(cut);
            };
            if self.resumed >= MAX_RESUMES {
                return Err(ClientError::Protocol(format!(
                    "the response stream was cut {MAX_RESUMES} times"
                )));
            }
            self.resumed += 1;
            let id = id.to_owned();
            tokio::time::sleep(delay.unwrap_or(Duration::ZERO).min(MAX_DELAY)).await;
            let mut get = Request::get(self.how.get.uri().clone())
                .body(Full::new(Bytes::new()))
                .unwrap_or_default();
            *get.headers_mut() = self.how.get.headers().clone();
            if let Ok(value) = http::HeaderValue::try_from(id.as_str()) {
                get.headers_mut().insert("last-event-id", value);
            }
            let response = self.how.pool.request(get).await.map_err(|e| {
                ClientError::Unreachable(format!("resuming the response stream: {e}"))
            })?;
            let streams = response
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("text/event-stream"));
            if !response.status().is_success() || !streams {
                return Err(ClientError::Protocol(format!(
                    "the response stream was cut and could not be resumed (HTTP {} to GET with Last-Event-ID)",
                    response.status()
                )));
            }
            self.reader = SseReader::resuming(response.into_body(), self.how.limit, id);
        }
    }
}

impl Messages for Resuming {
    fn next(&mut self) -> BoxFuture<'_, Result<Option<Incoming>, ClientError>> {
        Box::pin(Resuming::next(self))
    }
}
