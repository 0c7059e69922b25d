//! Request-scoped notifications: the channel onto the response stream of one request
//! ([`Notifier`]) and the log messages sent on it ([`Logger`]).

use super::queue::{Refused, Sender};
use crate::protocol::{JsonRpcNotification, LoggingLevel, LoggingMessageNotificationParams};
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
        self.deliver_with(|| {
            let message = JsonRpcNotification::new(method, params);
            serde_json::to_vec(&message).ok().map(Bytes::from)
        })
    }
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
