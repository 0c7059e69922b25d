//! `subscriptions/listen`: an acknowledgement with the honoured subset of the filter, then the
//! changes the filter selects, each tagged with the subscription, until the client goes away or
//! the server shuts down; then the final result.

use super::Dispatcher;
use super::encode::Response;
use super::metrics::ListenStream;
use super::tools::{declares_tasks, tasks_not_declared};
use super::work::Work;
use crate::bus::Change;
use crate::context::{RequestContext, Sent};
use crate::error::McpError;
use crate::protocol::{
    NotificationMeta, NotificationParams, ResourceUpdatedNotificationParams, ResultMeta,
    ResultType, SubscriptionFilter, SubscriptionsAcknowledgedParams,
    SubscriptionsListenRequestParams, SubscriptionsListenResult, TaskNotificationParams,
};
use serde_json::Map;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;

impl Dispatcher {
    pub(super) fn start_listen(
        self: &Arc<Self>,
        params: SubscriptionsListenRequestParams,
        cx: RequestContext,
    ) -> Result<Work, McpError> {
        if params.notifications.task_ids.is_some() && !declares_tasks(&cx) {
            return Err(tasks_not_declared("Listening for `taskIds`"));
        }
        let Some(permit) = self.listens.take() else {
            let limit = self.config.limits.listen_streams;
            return Err(McpError::busy("listen streams", limit));
        };
        let d = self.clone();
        Ok(Work::Other(Box::pin(async move {
            let _slot = permit;
            // Counted on the gauge for as long as the stream is open (dropped with it).
            let _open = d.config.metrics.then(ListenStream::open);
            d.listen(params, cx).await
        })))
    }

    /// Whether the stream's caller may read `uri` (the scopes of the resource or template it
    /// is): a change of a resource the caller may not read is not announced to it. (Custom
    /// checks are asked when it reads.)
    fn may_read(&self, uri: &str, cx: &RequestContext) -> bool {
        self.registry()
            .read_access(uri)
            .is_none_or(|a| a.scopes_met(cx.inner.caller.as_deref()).is_ok())
    }

    /// The part of the filter this server honours.
    fn honoured(&self, wanted: SubscriptionFilter) -> SubscriptionFilter {
        let cfg = &self.config;
        let caps = self.capabilities();
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

    async fn listen(
        &self,
        params: SubscriptionsListenRequestParams,
        cx: RequestContext,
    ) -> Result<Response, McpError> {
        let id = cx.request_id().clone();
        let tasks = params.notifications.task_ids.clone();
        let mut honoured = self.honoured(params.notifications);
        if let Some(wanted) = tasks
            && self.registry().has_tasks()
        {
            let owner = cx.caller().map(|c| c.binding_key().to_string());
            let mut mine = Vec::new();
            for task in wanted {
                if !mine.contains(&task) && self.owned_task(&task, owner.as_deref()).await.is_ok() {
                    mine.push(task);
                }
            }
            honoured.task_ids = Some(mine);
        }
        let mut changes = self.changes.subscribe();
        let tag = || NotificationMeta {
            subscription_id: Some(id.clone()),
            other: Map::new(),
        };
        let notifier = cx.inner.notifier.clone();
        notifier.send(
            "notifications/subscriptions/acknowledged",
            &SubscriptionsAcknowledgedParams {
                meta: tag(),
                notifications: honoured.clone(),
            },
        );
        let cancel = cx.cancellation();
        loop {
            let change = tokio::select! {
                _ = self.shutdown.cancelled() => break,
                _ = cancel.cancelled() => break,
                change = changes.recv() => match change {
                    Ok(c) => c,
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => break,
                },
            };
            let params = NotificationParams { meta: Some(tag()) };
            let sent = match change {
                Change::ToolsListChanged if honoured.tools_list_changed == Some(true) => {
                    notifier.deliver("notifications/tools/list_changed", &params)
                }
                Change::PromptsListChanged if honoured.prompts_list_changed == Some(true) => {
                    notifier.deliver("notifications/prompts/list_changed", &params)
                }
                Change::ResourcesListChanged if honoured.resources_list_changed == Some(true) => {
                    notifier.deliver("notifications/resources/list_changed", &params)
                }
                Change::Task(task) if watched(&honoured, &task) => {
                    let owner = cx.caller().map(|c| c.binding_key().to_string());
                    match self.owned_task(&task, owner.as_deref()).await {
                        Ok(record) => notifier.deliver(
                            "notifications/tasks",
                            &TaskNotificationParams {
                                task: record.into_detailed(),
                                meta: Some(tag()),
                            },
                        ),
                        Err(_) => Sent::Queued,
                    }
                }
                Change::ResourceUpdated(uri)
                    if subscribed(&honoured, &uri) && self.may_read(&uri, &cx) =>
                {
                    notifier.deliver(
                        "notifications/resources/updated",
                        &ResourceUpdatedNotificationParams {
                            uri,
                            meta: Some(tag()),
                        },
                    )
                }
                _ => Sent::Queued,
            };
            match sent {
                Sent::Queued => {}
                // Nobody reads the stream: the client went away.
                Sent::Gone => break,
                Sent::Full => {
                    let queued = self.config.limits.notification_queue;
                    tracing::debug!(
                        target: "mcp_runtime::request",
                        queued,
                        "listen stream closed: its client fell behind"
                    );
                    return Err(McpError::internal(format!(
                        "This listen stream was closed: its client fell {queued} notifications behind. Open a new one and fetch the lists again."
                    )));
                }
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
}

/// Whether the stream watches task `id`.
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
