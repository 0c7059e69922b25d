//! Change notifications between the instances of one server.
//!
//! A change made on one instance (a tool disabled, a resource updated) must reach the
//! `subscriptions/listen` streams held by every instance behind the load balancer. The server
//! publishes each change to a [`ChangeBus`] and every listen stream reads from it. The default
//! [`LocalBus`] reaches this process only; a bus over an existing engine (Redis pub/sub, NATS,
//! Postgres `LISTEN`) relays [`Change`] values, which serialize to JSON, between processes.

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

/// A change that listen streams may need to hear about. Serializes to JSON so that a
/// [`ChangeBus`] can carry it between instances.
///
/// ```
/// use mcp_runtime::Change;
/// let json = serde_json::to_string(&Change::ResourceUpdated("notes://1".into())).unwrap();
/// assert_eq!(json, r#"{"type":"resourceUpdated","target":"notes://1"}"#);
/// let json = serde_json::to_string(&Change::Task("5f0c…".into())).unwrap();
/// assert_eq!(json, r#"{"type":"task","target":"5f0c…"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "target", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Change {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource (or template) list changed.
    ResourcesListChanged,
    /// A resource's contents changed.
    ResourceUpdated(String),
    /// A task (by id) changed: its status, its answers, or a cancellation was asked. The
    /// instance running its handler and the listen streams watching it read it again.
    Task(String),
}

/// Carries [`Change`]s to every listen stream of every instance.
///
/// ```
/// use mcp_runtime::{Change, ChangeBus, LocalBus};
/// let bus = LocalBus::new(16);
/// let mut rx = bus.subscribe();
/// bus.publish(Change::ToolsListChanged);
/// assert_eq!(rx.try_recv().unwrap(), Change::ToolsListChanged);
/// ```
pub trait ChangeBus: Send + Sync + 'static {
    /// Publishes a change made on this instance (to all instances, this one included).
    fn publish(&self, change: Change);
    /// Every change published from now on, by any instance.
    fn subscribe(&self) -> broadcast::Receiver<Change>;
}

/// The in-process bus (the default): a broadcast channel.
#[derive(Debug, Clone)]
pub struct LocalBus {
    tx: broadcast::Sender<Change>,
}

impl LocalBus {
    /// A bus keeping up to `capacity` undelivered changes per listener (slow listeners skip the
    /// oldest; list-changed notifications are idempotent hints, so skipping is safe).
    pub fn new(capacity: usize) -> Self {
        LocalBus {
            tx: broadcast::channel(capacity.max(1)).0,
        }
    }

    /// Delivers a change that arrived from another instance to this instance's listeners,
    /// without publishing it again (for relays built on top of a `LocalBus`).
    pub fn deliver(&self, change: Change) {
        // No listener is not an error.
        let _ = self.tx.send(change);
    }
}

impl Default for LocalBus {
    fn default() -> Self {
        LocalBus::new(1024)
    }
}

impl ChangeBus for LocalBus {
    fn publish(&self, change: Change) {
        self.deliver(change);
    }
    fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }
}
