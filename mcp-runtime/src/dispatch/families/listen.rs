//! The `listen` family, `subscriptions/listen`: an acknowledgement with the honoured subset of the
//! filter, then the changes the filter selects, each tagged with the subscription, until the client
//! goes away or the server shuts down; then the final result.

#[cfg(feature = "tasks")]
use super::tasks;
use super::tasks::{declares_tasks, tasks_not_declared};
use crate::bus::Change;
use crate::context::{Notifier, RequestContext, Sent};
use crate::dispatch::authorize;
use crate::dispatch::dispatcher::Dispatcher;
use crate::dispatch::encode::Response;
#[cfg(feature = "metrics")]
use crate::dispatch::metrics::ListenStream;
use crate::dispatch::work::{Prepared, Work};
use crate::error::McpError;
use crate::protocol::{
    NotificationMeta, RequestId, ResultMeta, ResultType, SUBSCRIPTION_ID_KEY, SubscriptionFilter,
    SubscriptionsAcknowledgedParams, SubscriptionsListenRequestParams, SubscriptionsListenResult,
};
use bytes::Bytes;
use serde_json::Map;
use std::sync::Arc;
use std::task::{Poll, Waker};
use tokio::sync::broadcast::error::RecvError;

/// Prepares a listen stream: nothing is checked before its layers ran.
pub(crate) fn prepare(params: SubscriptionsListenRequestParams, cx: RequestContext) -> Prepared {
    Prepared::Listen(Box::new((params, cx)))
}

/// Opens the stream: its filter within the limits, a slot of the listen streams taken.
pub(crate) fn invoke(
    d: &Arc<Dispatcher>,
    params: SubscriptionsListenRequestParams,
    cx: RequestContext,
) -> Result<Work, McpError> {
    if params.notifications.task_ids.is_some() && !declares_tasks(&cx) {
        return Err(tasks_not_declared("Listening for `taskIds`"));
    }
    check_subscriptions(d, &params)?;
    let permit = d.listens.take(cx.inner.share_key())?;
    let d = d.clone();
    Ok(Work::Other(Box::pin(async move {
        let _slot = permit;
        // Counted on the gauge for as long as the stream is open (dropped with it).
        #[cfg(feature = "metrics")]
        let _open = d.config.metrics.then(ListenStream::open);
        listen(&d, params, cx).await
    })))
}

/// The resources a stream subscribes to are within the limits: what a stream keeps for its
/// whole life is bounded (`-32602` otherwise).
fn check_subscriptions(
    d: &Dispatcher,
    params: &SubscriptionsListenRequestParams,
) -> Result<(), McpError> {
    let limits = &d.config.limits;
    if let Some(tasks) = &params.notifications.task_ids
        && tasks.len() > limits.listen_subscriptions
    {
        return Err(McpError::invalid_params(format!(
            "Invalid params: `taskIds` lists {} tasks; a listen stream watches at most {}",
            tasks.len(),
            limits.listen_subscriptions
        )));
    }
    let Some(uris) = &params.notifications.resource_subscriptions else {
        return Ok(());
    };
    if uris.len() > limits.listen_subscriptions {
        return Err(McpError::invalid_params(format!(
            "Invalid params: `resourceSubscriptions` lists {} URIs; a listen stream subscribes to at most {} (open another stream, or subscribe to fewer)",
            uris.len(),
            limits.listen_subscriptions
        )));
    }
    let bytes: usize = uris.iter().map(String::len).sum();
    if bytes > limits.listen_subscription_bytes {
        return Err(McpError::invalid_params(format!(
            "Invalid params: the URIs of `resourceSubscriptions` take {bytes} bytes together; a listen stream keeps at most {}",
            limits.listen_subscription_bytes
        )));
    }
    Ok(())
}

/// The part of the filter this server honours.
fn honoured(d: &Dispatcher, wanted: SubscriptionFilter) -> SubscriptionFilter {
    let cfg = &d.config;
    let caps = d.capabilities();
    let list_changed = |wanted: Option<bool>, advertised: bool| {
        (wanted == Some(true) && cfg.list_changed && advertised).then_some(true)
    };
    SubscriptionFilter {
        tools_list_changed: list_changed(wanted.tools_list_changed, caps.tools.is_some()),
        prompts_list_changed: list_changed(wanted.prompts_list_changed, caps.prompts.is_some()),
        resources_list_changed: list_changed(
            wanted.resources_list_changed,
            caps.resources.is_some(),
        ),
        resource_subscriptions: if cfg.resource_subscribe {
            wanted.resource_subscriptions.filter(|v| !v.is_empty())
        } else {
            None
        },
        // The tasks the caller may watch are picked once the stream starts.
        task_ids: None,
        other: Map::new(),
    }
}

/// The stream: the acknowledgement, the changes its filter selects, the final result.
async fn listen(
    d: &Dispatcher,
    params: SubscriptionsListenRequestParams,
    cx: RequestContext,
) -> Result<Response, McpError> {
    let id = cx.request_id().clone();
    #[cfg(feature = "tasks")]
    let tasks = params.notifications.task_ids.clone();
    #[cfg_attr(not(feature = "tasks"), expect(unused_mut))]
    let mut honoured = honoured(d, params.notifications);
    #[cfg(feature = "tasks")]
    if let Some(wanted) = tasks
        && d.registry().has_tasks()
    {
        let owner = cx.caller().map(|c| c.binding_key().to_string());
        let mut mine = Vec::new();
        for task in wanted {
            if mine.contains(&task) {
                continue;
            }
            // Boxed: held inline, its state would size every listen stream's future.
            let owned = Box::pin(tasks::owned_task(d, &task, owner.as_deref()));
            if owned
                .await
                .is_ok_and(|t| tasks::task_scopes(d, &t, &cx).is_ok())
            {
                mine.push(task);
            }
        }
        honoured.task_ids = Some(mine);
    }
    let mut changes = d.changes.subscribe();
    let tag = || NotificationMeta {
        subscription_id: Some(id.clone()),
        other: Map::new(),
    };
    let notifier = cx.inner.notifier.clone();
    let caller = cx.inner.caller.as_ref();
    let mut followed = Followed::default();
    notifier.send(
        "notifications/subscriptions/acknowledged",
        &SubscriptionsAcknowledgedParams {
            meta: tag(),
            notifications: honoured.clone(),
        },
    );
    // Made once: made in the loop, each change re-registered the wait. (The request's own
    // cancellation is not waited for: whoever cancels a listen stream drops its `Call`,
    // and this future with it.)
    let mut shutdown = std::pin::pin!(d.shutdown.cancelled());
    let mut parked_with: Option<Waker> = None;
    let framed = Framed::new(&id);
    loop {
        // A stream that always has a change waiting still stops here.
        if d.shutdown.is_cancelled() {
            break;
        }
        let mut recv = std::pin::pin!(changes.recv());
        // Changes first, rather than polling both and picking one at random. The shutdown
        // wait stays registered between turns: it is polled again only for a new waker, else
        // the token says whether it fired, rather than being polled on every turn
        // (BENCHMARKS.md, "The listen loop").
        let next = std::future::poll_fn(|cx| {
            if let Poll::Ready(change) = recv.as_mut().poll(cx) {
                return Poll::Ready(Some(change));
            }
            match &parked_with {
                Some(waker) if waker.will_wake(cx.waker()) => {
                    if d.shutdown.is_cancelled() {
                        return Poll::Ready(None);
                    }
                }
                _ => {
                    if shutdown.as_mut().poll(cx).is_ready() {
                        return Poll::Ready(None);
                    }
                    parked_with = Some(cx.waker().clone());
                }
            }
            Poll::Pending
        })
        .await;
        let change = match next {
            None => break,
            Some(Ok(c)) => Some(c),
            // Changes were missed (the bus moved on faster than this stream): below,
            // everything it watches is announced, so that its client fetches again.
            Some(Err(RecvError::Lagged(missed))) => {
                tracing::debug!(
                    target: "mcp_runtime::request",
                    missed,
                    "listen stream lagged behind the change bus"
                );
                None
            }
            Some(Err(RecvError::Closed)) => break,
        };
        let Some(change) = change else {
            let mut allowed = Vec::new();
            for uri in honoured.resource_subscriptions.iter().flatten() {
                if followed.may(d, uri, caller).await {
                    allowed.push(uri.as_str());
                }
            }
            match resync(&honoured, &framed, &notifier, |uri| allowed.contains(&uri)) {
                Sent::Queued => continue,
                Sent::Gone => break,
                Sent::Full => return Err(fell_behind(d.config.limits.notification_queue)),
            }
        };
        let sent = match change {
            Change::ToolsListChanged if honoured.tools_list_changed == Some(true) => notifier
                .deliver_with(|| Some(framed.list_changed("notifications/tools/list_changed"))),
            Change::PromptsListChanged if honoured.prompts_list_changed == Some(true) => notifier
                .deliver_with(|| Some(framed.list_changed("notifications/prompts/list_changed"))),
            Change::ResourcesListChanged if honoured.resources_list_changed == Some(true) => {
                notifier.deliver_with(|| {
                    Some(framed.list_changed("notifications/resources/list_changed"))
                })
            }
            #[cfg(feature = "tasks")]
            Change::Task(task) if watched(&honoured, &task) => {
                let owner = cx.caller().map(|c| c.binding_key().to_string());
                // Boxed, as above: only task changes pay for it.
                match Box::pin(tasks::owned_task(d, &task, owner.as_deref())).await {
                    Ok(record) if tasks::task_scopes(d, &record, &cx).is_ok() => notifier.deliver(
                        "notifications/tasks",
                        &crate::protocol::TaskNotificationParams {
                            task: record.into_detailed(),
                            meta: Some(tag()),
                        },
                    ),
                    _ => Sent::Queued,
                }
            }
            Change::ResourceUpdated(uri) if subscribed(&honoured, &uri) => {
                match followed.may(d, &uri, caller).await {
                    true => notifier.deliver_with(|| Some(framed.resource_updated(&uri))),
                    false => Sent::Queued,
                }
            }
            _ => Sent::Queued,
        };
        match sent {
            Sent::Queued => {}
            // Nobody reads the stream: the client went away.
            Sent::Gone => break,
            Sent::Full => return Err(fell_behind(d.config.limits.notification_queue)),
        }
    }
    Ok(Response::result(
        &id,
        &SubscriptionsListenResult {
            result_type: ResultType::Complete,
            meta: ResultMeta::subscription(id.clone()),
        },
    ))
}

/// What a stream's caller may be told of the resources it subscribed to: the scopes at each
/// update (cheap, and the registry may change), the custom checks once per URI (asked at its
/// first update, kept for the stream's life: at most its subscriptions' worth of answers).
#[derive(Default)]
struct Followed {
    asked: Vec<(Box<str>, bool)>,
}

impl Followed {
    async fn may(
        &mut self,
        d: &Dispatcher,
        uri: &str,
        caller: Option<&Arc<crate::context::Caller>>,
    ) -> bool {
        if let Some((_, allowed)) = self.asked.iter().find(|(u, _)| &**u == uri) {
            return *allowed;
        }
        let asking = match authorize::follow(&d.registry(), d.policy.as_ref(), uri, caller) {
            authorize::Follow::Yes => return true,
            authorize::Follow::No => return false,
            authorize::Follow::Ask(asking) => asking,
        };
        let allowed = asking.await.is_ok();
        self.asked.push((uri.into(), allowed));
        allowed
    }
}

/// The end of a stream whose client fell `queued` notifications behind.
fn fell_behind(queued: usize) -> McpError {
    tracing::debug!(
        target: "mcp_runtime::request",
        queued,
        "listen stream closed: its client fell behind"
    );
    McpError::internal(format!(
        "This listen stream was closed: its client fell {queued} notifications behind. Open a new one and fetch the lists again."
    ))
}

/// After missed changes: every list the stream watches changed, and every resource it
/// subscribed to (and may read) was updated: hints, so that the client fetches them again.
/// The worst outcome of the deliveries.
fn resync(
    honoured: &SubscriptionFilter,
    framed: &Framed,
    notifier: &Notifier,
    may_read: impl Fn(&str) -> bool,
) -> Sent {
    let lists = [
        (
            honoured.tools_list_changed,
            "notifications/tools/list_changed",
        ),
        (
            honoured.prompts_list_changed,
            "notifications/prompts/list_changed",
        ),
        (
            honoured.resources_list_changed,
            "notifications/resources/list_changed",
        ),
    ];
    let mut out = Vec::new();
    for (wanted, method) in lists {
        if wanted == Some(true) {
            out.push(framed.list_changed(method));
        }
    }
    for uri in honoured
        .resource_subscriptions
        .as_deref()
        .unwrap_or_default()
    {
        if may_read(uri) {
            out.push(framed.resource_updated(uri));
        }
    }
    for bytes in out {
        match notifier.deliver_with(|| Some(bytes)) {
            Sent::Queued => {}
            other => return other,
        }
    }
    Sent::Queued
}

/// The notifications of one listen stream, written around its subscription id, which is
/// serialized once. By hand: serde wrote `_meta` through a map for every stream and every
/// change (BENCHMARKS.md, "The listen loop"). `tests/suite/streaming.rs` reads them back as JSON.
struct Framed {
    /// `"_meta":{"io.modelcontextprotocol/subscriptionId":<id>}}}`
    tail: Vec<u8>,
}

impl Framed {
    fn new(id: &RequestId) -> Framed {
        let mut tail = Vec::with_capacity(64);
        tail.extend_from_slice(b"\"_meta\":{\"");
        tail.extend_from_slice(SUBSCRIPTION_ID_KEY.as_bytes());
        tail.extend_from_slice(b"\":");
        // An id is a string or an integer: it always serializes.
        let _ = serde_json::to_writer(&mut tail, id);
        tail.extend_from_slice(b"}}}");
        Framed { tail }
    }

    fn head(&self, method: &str, extra: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(48 + method.len() + extra + self.tail.len());
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"");
        out.extend_from_slice(method.as_bytes());
        out.extend_from_slice(b"\",\"params\":{");
        out
    }

    /// `method` (a `*/list_changed` name, no escapes) with only `_meta`.
    fn list_changed(&self, method: &str) -> Bytes {
        let mut out = self.head(method, 0);
        out.extend_from_slice(&self.tail);
        Bytes::from(out)
    }

    /// `notifications/resources/updated` of `uri`.
    fn resource_updated(&self, uri: &str) -> Bytes {
        let mut out = self.head("notifications/resources/updated", uri.len() + 16);
        out.extend_from_slice(b"\"uri\":");
        let _ = serde_json::to_writer(&mut out, uri);
        out.push(b',');
        out.extend_from_slice(&self.tail);
        Bytes::from(out)
    }
}

/// Whether the stream watches task `id`.
#[cfg(feature = "tasks")]
fn watched(honoured: &SubscriptionFilter, id: &str) -> bool {
    honoured
        .task_ids
        .as_deref()
        .is_some_and(|ids| ids.iter().any(|t| t == id))
}

/// Whether the stream subscribed to `uri`, or to a parent of it.
fn subscribed(honoured: &SubscriptionFilter, uri: &str) -> bool {
    honoured
        .resource_subscriptions
        .as_deref()
        .unwrap_or_default()
        .iter()
        .any(|s| uri == s || uri.starts_with(&format!("{}/", s.trim_end_matches('/'))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{
        JsonRpcNotification, NotificationParams, ResourceUpdatedNotificationParams,
    };
    use serde_json::Value;

    fn meta(id: &RequestId) -> Option<NotificationMeta> {
        Some(NotificationMeta {
            subscription_id: Some(id.clone()),
            other: Map::new(),
        })
    }

    /// The hand-written notifications are the JSON serde writes for the same values.
    #[test]
    fn framed_notifications_are_what_serde_writes() {
        let ids = [
            RequestId::Number(7),
            RequestId::Number(-1),
            RequestId::String("sub \"1\" \\ é\n".into()),
        ];
        for id in &ids {
            let framed = Framed::new(id);
            for method in [
                "notifications/tools/list_changed",
                "notifications/resources/list_changed",
            ] {
                let ours: Value = serde_json::from_slice(&framed.list_changed(method)).unwrap();
                let params = NotificationParams { meta: meta(id) };
                let theirs = serde_json::to_value(JsonRpcNotification::new(method, &params));
                assert_eq!(ours, theirs.unwrap());
            }
            for uri in ["notes://1", "file:///a \"b\"\\c/é\u{1}"] {
                let ours: Value = serde_json::from_slice(&framed.resource_updated(uri)).unwrap();
                let params = ResourceUpdatedNotificationParams {
                    uri: uri.into(),
                    meta: meta(id),
                };
                let method = "notifications/resources/updated";
                let theirs = serde_json::to_value(JsonRpcNotification::new(method, &params));
                assert_eq!(ours, theirs.unwrap());
            }
        }
    }
}
