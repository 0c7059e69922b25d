//! An open `subscriptions/listen` stream of a client.

use super::link::{Exchange, Incoming};
use serde_json::Value;
use std::fmt;

/// An open `subscriptions/listen` stream of a [`Client`](super::Client); dropping it ends the
/// stream.
pub struct Listening {
    pub(crate) exchange: Option<Exchange>,
    /// The first message, read when the stream was opened (the acknowledgement).
    pub(crate) first: Option<Value>,
}

impl fmt::Debug for Listening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Listening")
            .field("open", &self.exchange.is_some())
            .finish()
    }
}

impl Listening {
    /// The next notification; `None` once the stream ended (its final result was received, or
    /// the connection broke).
    // Only a remote 2025-11-25 session sends requests, which the loop passes over.
    #[cfg_attr(not(feature = "client"), allow(clippy::never_loop))]
    pub async fn next(&mut self) -> Option<Value> {
        if let Some(first) = self.first.take() {
            return Some(first);
        }
        let exchange = self.exchange.as_mut()?;
        loop {
            match exchange.next().await {
                Ok(Some(Incoming::Notification(n))) => return Some(n),
                #[cfg(feature = "client")]
                Ok(Some(Incoming::Request(_))) => continue,
                _ => {
                    self.exchange = None;
                    return None;
                }
            }
        }
    }
}
