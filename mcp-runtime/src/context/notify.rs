//! Request-scoped notifications: the channel onto the response stream of one request
//! ([`Notifier`]) and the log messages sent on it ([`Logger`]).

use crate::protocol::{JsonRpcNotification, LoggingLevel, LoggingMessageNotificationParams};
use bytes::Bytes;
use serde::Serialize;
use tokio::sync::mpsc;

/// Sends request-scoped notifications onto the response stream of one request.
#[derive(Clone, Debug)]
pub(crate) struct Notifier {
    tx: Option<mpsc::UnboundedSender<Bytes>>,
}

impl Notifier {
    pub(crate) fn new(tx: mpsc::UnboundedSender<Bytes>) -> Self {
        Notifier { tx: Some(tx) }
    }
    pub(crate) fn none() -> Self {
        Notifier { tx: None }
    }
    pub(crate) fn send<P: Serialize>(&self, method: &str, params: &P) -> bool {
        let Some(tx) = &self.tx else { return false };
        match serde_json::to_vec(&JsonRpcNotification::new(method, params)) {
            Ok(bytes) => tx.send(Bytes::from(bytes)).is_ok(),
            Err(_) => false,
        }
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
