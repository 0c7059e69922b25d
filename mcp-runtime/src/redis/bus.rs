//! [`RedisBus`]: changes carried between instances by Redis pub/sub.

use super::hex::hex;
use crate::bus::{Change, ChangeBus, LocalBus};
use ::redis::aio::ConnectionManager;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

/// Changes waiting to be published, at most (beyond them, a change is delivered here only).
const OUTBOX: usize = 1024;

/// One change on the channel, with the instance it came from (borrowed both ways: written
/// around this instance's id, read without copying the sender's).
#[derive(Serialize, Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    from: Cow<'a, str>,
    change: Change,
}

/// A [`ChangeBus`] over Redis pub/sub: a change published on any instance reaches the listen
/// streams and 2025-11-25 GET streams of every instance. This instance's own listeners get its
/// changes at once (not through Redis); the others through their subscription, which
/// reconnects after Redis restarts, and then tells its listeners that every list changed (they
/// may have missed changes meanwhile). Made by [`Redis::bus`](super::connection::Redis::bus).
#[derive(Clone)]
pub struct RedisBus {
    inner: Arc<Inner>,
}

struct Inner {
    local: LocalBus,
    outbox: mpsc::Sender<Change>,
    instance: String,
    stop: CancellationToken,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl std::fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBus")
            .field("instance", &self.inner.instance)
            .finish_non_exhaustive()
    }
}

impl RedisBus {
    pub(super) fn start(client: ::redis::Client, conn: ConnectionManager, prefix: &str) -> Self {
        let channel = format!("{prefix}changes");
        let mut id = [0u8; 8];
        let _ = getrandom::getrandom(&mut id);
        let instance = hex(&id);
        let local = LocalBus::default();
        let stop = CancellationToken::new();
        let (outbox, rx) = mpsc::channel(OUTBOX);
        tokio::spawn(publisher(
            conn,
            channel.clone(),
            instance.clone(),
            rx,
            stop.clone(),
        ));
        tokio::spawn(subscriber(
            client,
            channel,
            instance.clone(),
            local.clone(),
            stop.clone(),
        ));
        RedisBus {
            inner: Arc::new(Inner {
                local,
                outbox,
                instance,
                stop,
            }),
        }
    }
}

impl ChangeBus for RedisBus {
    fn publish(&self, change: Change) {
        self.inner.local.deliver(change.clone());
        if self.inner.outbox.try_send(change).is_err() {
            tracing::warn!(
                target: "mcp_runtime::redis",
                "too many changes waiting for Redis: one reached this instance only"
            );
        }
    }
    fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.inner.local.subscribe()
    }
}

async fn publisher(
    mut conn: ConnectionManager,
    channel: String,
    instance: String,
    mut changes: mpsc::Receiver<Change>,
    stop: CancellationToken,
) {
    loop {
        let change = tokio::select! {
            () = stop.cancelled() => return,
            change = changes.recv() => match change {
                Some(change) => change,
                None => return,
            },
        };
        let message = Envelope {
            from: Cow::Borrowed(&instance),
            change,
        };
        let Ok(text) = serde_json::to_string(&message) else {
            continue;
        };
        let sent = ::redis::cmd("PUBLISH")
            .arg(&channel)
            .arg(text)
            .query_async::<i64>(&mut conn)
            .await;
        if let Err(e) = sent {
            tracing::warn!(target: "mcp_runtime::redis", error = %e, "a change was not published");
        }
    }
}

async fn subscriber(
    client: ::redis::Client,
    channel: String,
    instance: String,
    local: LocalBus,
    stop: CancellationToken,
) {
    let mut connected_before = false;
    let mut wait = Duration::from_millis(100);
    loop {
        let subscribed = async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(&channel).await?;
            Ok::<_, ::redis::RedisError>(pubsub)
        };
        let pubsub = tokio::select! {
            () = stop.cancelled() => return,
            subscribed = subscribed => subscribed,
        };
        match pubsub {
            Ok(pubsub) => {
                wait = Duration::from_millis(100);
                if connected_before {
                    // Changes made elsewhere while the subscription was down are unknown:
                    // every list may have changed.
                    tracing::info!(target: "mcp_runtime::redis", "subscribed again to changes");
                    local.deliver(Change::ToolsListChanged);
                    local.deliver(Change::PromptsListChanged);
                    local.deliver(Change::ResourcesListChanged);
                }
                connected_before = true;
                let mut messages = Box::pin(pubsub.into_on_message());
                loop {
                    let message = tokio::select! {
                        () = stop.cancelled() => return,
                        message = std::future::poll_fn(|cx| {
                            futures_core::Stream::poll_next(messages.as_mut(), cx)
                        }) => message,
                    };
                    let Some(message) = message else { break };
                    let Ok(envelope) =
                        crate::json::from_bytes::<Envelope>(message.get_payload_bytes())
                    else {
                        continue;
                    };
                    if envelope.from != instance.as_str() {
                        local.deliver(envelope.change);
                    }
                }
                tracing::warn!(target: "mcp_runtime::redis", "the subscription to changes dropped");
            }
            Err(e) => {
                tracing::warn!(target: "mcp_runtime::redis", error = %e, "cannot subscribe to changes");
            }
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(wait) => {}
        }
        wait = (wait * 2).min(Duration::from_secs(5));
    }
}
