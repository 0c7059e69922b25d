//! Request-scoped notifications: the channel onto the response stream of one request
//! ([`Notifier`]) and the log messages sent on it ([`Logger`]).

use super::queue::{Refused, Sender};
use crate::protocol::{LoggingLevel, LoggingMessageNotificationParams, ProgressToken};
use bytes::Bytes;
use serde::Serialize;

/// Sends request-scoped notifications onto the response stream of one request, through a
/// bounded queue ([`Limits::notification_queue`](crate::Limits::notification_queue)).
#[derive(Clone, Debug)]
pub(crate) struct Notifier {
    tx: Option<Sender>,
}

/// What became of one notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// Queued for the stream.
    Queued,
    /// Dropped: the stream's queue is full (its client reads too slowly).
    Full,
    /// Dropped: nobody reads the stream any more (or the request has no stream).
    Gone,
}

impl Notifier {
    pub(crate) fn new(tx: Sender) -> Self {
        Notifier { tx: Some(tx) }
    }
    pub(crate) fn none() -> Self {
        Notifier { tx: None }
    }
    /// Queues a notification; whether it was.
    pub(crate) fn send<P: Serialize>(&self, method: &str, params: &P) -> bool {
        self.deliver(method, params) == Sent::Queued
    }
    /// Queues the notification `render` writes (called only when there is room; `None`: it
    /// could not be written), saying why it was not queued when it was not.
    pub(crate) fn deliver_with(&self, render: impl FnOnce() -> Option<Bytes>) -> Sent {
        let Some(tx) = &self.tx else {
            return Sent::Gone;
        };
        if let Some(refused) = tx.refuses() {
            return sent(refused);
        }
        let Some(bytes) = render() else {
            return Sent::Gone;
        };
        match tx.try_send(bytes) {
            Ok(()) => Sent::Queued,
            Err(refused) => sent(refused),
        }
    }
    /// Queues a notification, saying why it was not when it was not.
    pub(crate) fn deliver<P: Serialize>(&self, method: &str, params: &P) -> Sent {
        self.deliver_with(|| notification_json(method, params))
    }
}

/// One notification's JSON, `{"jsonrpc":"2.0","method":…,"params":…}`.
// Written around the params: a `JsonRpcNotification` took two owned strings and serde's map
// writer for the envelope (BENCHMARKS.md, "Notifications by hand").
pub(crate) fn notification_json<P: Serialize>(method: &str, params: &P) -> Option<Bytes> {
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
    serde_json::to_writer(&mut out, method).ok()?;
    out.extend_from_slice(br#","params":"#);
    serde_json::to_writer(&mut out, params).ok()?;
    out.push(b'}');
    Some(Bytes::from(out))
}

/// A `notifications/progress` message's JSON, as serde would write its
/// [`ProgressNotificationParams`](crate::protocol::ProgressNotificationParams).
// Written out: serde escaped each of its eight fixed keys and strings, and the params took a
// copy of the token and message (BENCHMARKS.md, "Notifications by hand").
pub(crate) fn progress_json(
    token: &ProgressToken,
    progress: &serde_json::Number,
    total: Option<&serde_json::Number>,
    message: Option<&str>,
) -> Option<Bytes> {
    // Room for the whole message, so it is written without growing: the fixed text is 106
    // bytes with one-digit numbers, each number up to 24, a string token or message its
    // length and quotes (an escaped character takes more, and then the vector grows).
    let token_len = match token {
        ProgressToken::Number(_) => 20,
        ProgressToken::String(s) => s.len() + 2,
    };
    let mut out = Vec::with_capacity(160 + token_len + message.map_or(0, |m| m.len() + 16));
    out.extend_from_slice(
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"#,
    );
    serde_json::to_writer(&mut out, token).ok()?;
    out.extend_from_slice(br#","progress":"#);
    serde_json::to_writer(&mut out, progress).ok()?;
    if let Some(total) = total {
        out.extend_from_slice(br#","total":"#);
        serde_json::to_writer(&mut out, total).ok()?;
    }
    if let Some(message) = message {
        out.extend_from_slice(br#","message":"#);
        serde_json::to_writer(&mut out, message).ok()?;
    }
    out.extend_from_slice(b"}}");
    Some(Bytes::from(out))
}

fn sent(refused: Refused) -> Sent {
    match refused {
        Refused::Full => Sent::Full,
        Refused::Closed => Sent::Gone,
    }
}

/// Sends `notifications/message` on the current request's stream, only at or above the level the
/// request asked for with `_meta["io.modelcontextprotocol/logLevel"]` (and only when the server
/// enabled logging). Otherwise a no-op.
#[derive(Clone, Debug)]
pub struct Logger {
    pub(crate) level: Option<LoggingLevel>,
    pub(crate) notifier: Notifier,
    pub(crate) name: Option<String>,
}

impl Logger {
    /// A logger that sends nothing: for calling a handler outside a request (unit tests).
    ///
    /// ```
    /// use mcp_runtime::Logger;
    /// let log = Logger::disabled();
    /// assert!(!log.info("nobody hears this"));
    /// ```
    pub fn disabled() -> Self {
        Logger {
            level: None,
            notifier: Notifier::none(),
            name: None,
        }
    }
    /// A logger with a name (`logger` field).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
    /// Whether a message at `level` would be sent.
    pub fn enabled(&self, level: LoggingLevel) -> bool {
        self.level.is_some_and(|min| level >= min)
    }
    /// Sends `data` at `level` if enabled.
    pub fn log(&self, level: LoggingLevel, data: impl Serialize) -> bool {
        if !self.enabled(level) {
            return false;
        }
        let Ok(data) = serde_json::to_value(data) else {
            return false;
        };
        let params = LoggingMessageNotificationParams {
            level,
            logger: self.name.clone(),
            data,
            meta: None,
        };
        self.notifier.send("notifications/message", &params)
    }
    /// `info` level.
    pub fn info(&self, data: impl Serialize) -> bool {
        self.log(LoggingLevel::Info, data)
    }
    /// `warning` level.
    pub fn warning(&self, data: impl Serialize) -> bool {
        self.log(LoggingLevel::Warning, data)
    }
    /// `error` level.
    pub fn error(&self, data: impl Serialize) -> bool {
        self.log(LoggingLevel::Error, data)
    }
    /// `debug` level.
    pub fn debug(&self, data: impl Serialize) -> bool {
        self.log(LoggingLevel::Debug, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{JsonRpcNotification, ProgressNotificationParams, RequestId};
    use serde_json::{Number, json};

    #[test]
    fn hand_written_notifications_match_serde() {
        let params = json!({"level": "info", "data": "a \"quoted\" line\n"});
        assert_eq!(
            notification_json("notifications/message", &params).unwrap(),
            serde_json::to_vec(&JsonRpcNotification::new("notifications/message", &params))
                .unwrap()
        );
        let tokens = [RequestId::from("t-\u{e9}\"1"), RequestId::from(-7)];
        let numbers = [Number::from(3), Number::from_f64(0.25).unwrap()];
        for token in &tokens {
            for progress in &numbers {
                for total in [None, Some(Number::from(10))] {
                    for message in [None, Some("half \"done\"\t")] {
                        let expected = ProgressNotificationParams {
                            progress_token: token.clone(),
                            progress: progress.clone(),
                            total: total.clone(),
                            message: message.map(str::to_owned),
                            meta: None,
                        };
                        let expected = serde_json::to_vec(&JsonRpcNotification::new(
                            "notifications/progress",
                            &expected,
                        ))
                        .unwrap();
                        let written =
                            progress_json(token, progress, total.as_ref(), message).unwrap();
                        assert_eq!(
                            String::from_utf8_lossy(&written),
                            String::from_utf8_lossy(&expected)
                        );
                    }
                }
            }
        }
    }
}
