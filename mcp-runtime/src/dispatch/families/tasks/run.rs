//! A `tools/call` that runs as a task. Its handler's first poll decides: declared inputs still
//! missing make an ordinary `input_required` round; anything else makes a task, kept in the
//! store before the call answers with it. The handler then runs on here, detached from the
//! request; when it asks the client for input, the task shows the questions until
//! `tasks/update` has answered them all, and the handler is invoked again with every answer and
//! the state it sealed (as an MRTR retry would).

use super::lease;
use crate::bus::Change;
use crate::context::{Caller, ContextInner, Notifier, RequestContext, ShareKey};
use crate::dispatch::dispatcher::Dispatcher;
use crate::dispatch::encode::Response;
use crate::dispatch::panic::{catch_panic, panic_message};
use crate::dispatch::round::{self, Round};
use crate::dispatch::slots::Slot;
use crate::dispatch::tool_result;
use crate::dispatch::work::{PreparedTool, Work};
use crate::error::McpError;
use crate::protocol::{
    CreateTaskResult, ErrorObject, InputRequests, Method, RawInputResponses, RequestId,
    RequestMeta, ResultType, TaskStatus,
};
use crate::registry::{Arguments, BoxFuture, ToolCall, ToolEntry, ToolHandler, ToolOutcome};
use crate::tasks::time::now_ms;
use crate::tasks::{TaskRecord, new_id};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::Poll;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::sync::watch;

type Handler = BoxFuture<'static, Result<ToolOutcome, McpError>>;

/// How long a cancelled handler may take to wind down before it is dropped.
const CANCEL_GRACE: Duration = Duration::from_secs(1);
/// How often a task waiting for answers reads the store even when the bus said nothing (a bus
/// between instances may lose a message).
const RECHECK: Duration = Duration::from_secs(1);

/// What a running task keeps to invoke its handler again.
struct Job {
    id: String,
    entry: Arc<ToolEntry>,
    name: String,
    arguments: Arguments,
    meta: Box<RequestMeta>,
    caller: Option<Arc<Caller>>,
    client: Option<crate::net::ClientNet>,
    /// Its slot of the running tasks, held until it is terminal (dropped with the job).
    _running: Slot,
    /// Every answer given over the task's life, by the handler's keys.
    answers: Map<String, Value>,
    /// Every key the client has been shown (none is reused in a task's life).
    shown: HashSet<String>,
    /// The outstanding questions: the client's key, then the handler's.
    keys: Vec<(String, String)>,
    /// The state the handler sealed with its last question.
    state: Option<String>,
    /// The handler's progress messages (the task's `statusMessage`).
    status_tx: watch::Sender<Option<String>>,
    status_rx: watch::Receiver<Option<String>>,
}

/// Where a handler invocation left the task.
enum Settled {
    Completed(Box<RawValue>),
    Failed(ErrorObject),
    /// Questions for the client, by the client's keys.
    Asking(InputRequests),
    /// A round with a state and no question: invoke again at once.
    Again,
}

/// The handler of a task: running, or waiting for answers.
enum Phase {
    Running(Handler, Arc<ContextInner>),
    Waiting,
}

/// What woke a task up.
enum Event {
    Finished(Result<Result<ToolOutcome, McpError>, String>),
    Message(String),
    /// The task may have changed in the store.
    Changed,
    /// Time to renew the task's lease.
    Renew,
    /// A change of something else.
    Unrelated,
    Expired,
    Shutdown,
}

/// Starts a `tools/call` of a task tool by a client that declared the extension.
pub(crate) fn start(d: &Arc<Dispatcher>, prepared: PreparedTool) -> Work {
    let PreparedTool { entry, call } = prepared;
    let id = call.context.request_id().clone();
    let ToolHandler::Async(f) = &entry.handler else {
        // The registry refuses a task tool with a plain-function handler.
        let e = McpError::internal("a task tool needs an async handler");
        return Work::Ready(Response::error(Some(&id), &e));
    };
    // A task holds a running slot until it is terminal: refused here, nothing has started.
    let running = match d.running_tasks.take(call.context.inner.share_key()) {
        Ok(slot) => slot,
        Err(e) => return Work::Ready(Response::error(Some(&id), &e)),
    };
    let (status_tx, status_rx) = watch::channel(None);
    let _ = call.context.inner.task_status.set(status_tx.clone());
    let inner = call.context.inner.clone();
    let job = Job {
        client: inner.client,
        _running: running,
        id: String::new(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        meta: inner.meta.clone(),
        caller: inner.caller.clone(),
        answers: answers_of(&inner),
        shown: HashSet::new(),
        keys: Vec::new(),
        state: None,
        status_tx,
        status_rx,
        entry: entry.clone(),
    };
    let handler = match std::panic::catch_unwind(AssertUnwindSafe(|| f(call))) {
        Ok(handler) => handler,
        Err(payload) => {
            let outcome = tool_result::panicked(&entry, &panic_message(&*payload));
            return Work::Ready(tool_result::answer(d, &id, outcome));
        }
    };
    let d = d.clone();
    Work::Other(Box::pin(async move { begin(d, job, handler, inner).await }))
}

/// The handler's first poll, then the task (or the ordinary round it asked for).
async fn begin(
    d: Arc<Dispatcher>,
    mut job: Job,
    mut handler: Handler,
    inner: Arc<ContextInner>,
) -> Result<Response, McpError> {
    let id = inner.id.clone();
    let first = std::future::poll_fn(|cx| {
        Poll::Ready(
            match std::panic::catch_unwind(AssertUnwindSafe(|| handler.as_mut().poll(cx))) {
                Ok(Poll::Pending) => None,
                Ok(Poll::Ready(outcome)) => Some(Ok(outcome)),
                Err(payload) => Some(Err(panic_message(&*payload))),
            },
        )
    })
    .await;
    if let Some(Ok(Ok(ToolOutcome::InputRequired(r)))) = &first
        && inner.inputs_asked.load(Ordering::Relaxed)
    {
        // Declared inputs are asked before the task starts.
        return Ok(round::input_required(&d, &id, r.clone()));
    }
    // Subscribed before the task exists: no change to it can be missed.
    let changes = d.changes.subscribe();
    job.id = new_id()?;
    let owner = job.caller.as_ref().map(|c| c.binding_key().to_string());
    let cfg = &d.config;
    let mut record = TaskRecord::new(
        job.id.clone(),
        owner,
        now_ms(),
        cfg.task_ttl_ms,
        Some(cfg.task_poll_ms),
    );
    record.share = ShareKey::of(job.caller.as_deref(), job.client).map(|k| k.to_string());
    record.tool = Some(job.name.to_string());
    let mut phase = Some(Phase::Running(handler, inner));
    if let Some(outcome) = first {
        phase = None;
        let mut settled = settle(&d, &mut job, outcome);
        while let Settled::Again = settled {
            match invoke_again(&d, &mut job) {
                Ok((handler, inner)) => {
                    phase = Some(Phase::Running(handler, inner));
                    break;
                }
                Err(e) => settled = Settled::Failed(e.to_error_object()),
            }
        }
        if phase.is_none() {
            if let Settled::Asking(_) = settled {
                phase = Some(Phase::Waiting);
            }
            let created = record.created_ms;
            apply(&mut record, &settled, created);
        }
    }
    if phase.is_some() {
        record.lease_until_ms = Some(lease::lease_from_now(&d));
    }
    d.tasks.create(record.clone()).await?;
    tracing::debug!(target: "mcp_runtime::tasks", task = %record.id, tool = %job.name, "task created");
    let created = CreateTaskResult {
        result_type: ResultType::Task,
        task_id: record.id.clone(),
        status: record.status,
        status_message: record.status_message.clone(),
        created_at: crate::tasks::time::iso8601(record.created_ms),
        last_updated_at: crate::tasks::time::iso8601(record.updated_ms),
        ttl_ms: record.ttl_ms,
        poll_interval_ms: record.poll_interval_ms,
        meta: d.result_meta(),
    };
    if let Some(phase) = phase {
        let expires = record.expires_ms();
        tokio::spawn(run(d.clone(), job, phase, changes, expires));
    }
    Ok(Response::result(&id, &created))
}

/// The rest of a task's life, until it is terminal, expired, or the server stops.
async fn run(
    d: Arc<Dispatcher>,
    mut job: Job,
    mut phase: Phase,
    mut changes: broadcast::Receiver<Change>,
    expires_ms: Option<u64>,
) {
    let deadline = expires_ms.map(|at| {
        let left = at.saturating_sub(now_ms());
        tokio::time::Instant::now() + Duration::from_millis(left)
    });
    let expired = async move {
        match deadline {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    let mut expired = std::pin::pin!(expired);
    let every = lease::lease_renewal(&d);
    let mut renew = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let event = match &mut phase {
            Phase::Running(handler, _) => tokio::select! {
                out = catch_panic(handler) => Event::Finished(out),
                Ok(()) = job.status_rx.changed() => {
                    Event::Message(job.status_rx.borrow_and_update().clone().unwrap_or_default())
                }
                change = changes.recv() => changed(&job.id, change),
                _ = renew.tick() => Event::Renew,
                () = &mut expired => Event::Expired,
                () = d.halt.cancelled() => Event::Shutdown,
            },
            Phase::Waiting => tokio::select! {
                change = changes.recv() => changed(&job.id, change),
                _ = renew.tick() => Event::Renew,
                () = tokio::time::sleep(RECHECK) => Event::Changed,
                () = &mut expired => Event::Expired,
                () = d.halt.cancelled() => Event::Shutdown,
            },
        };
        match event {
            Event::Message(text) => {
                let change = |t: &mut TaskRecord| {
                    if !t.status.is_terminal() {
                        t.status_message = Some(text.clone());
                        t.updated_ms = now_ms();
                    }
                };
                let _ = d.tasks.update(&job.id, &change).await;
            }
            Event::Finished(outcome) => {
                let mut settled = settle(&d, &mut job, outcome);
                if let Settled::Again = settled {
                    match invoke_again(&d, &mut job) {
                        Ok((handler, inner)) => {
                            phase = Phase::Running(handler, inner);
                            continue;
                        }
                        Err(e) => settled = Settled::Failed(e.to_error_object()),
                    }
                }
                let asking = matches!(settled, Settled::Asking(_));
                // The handler's last words before it finished go with its status.
                let message = match job.status_rx.has_changed() {
                    Ok(true) => job.status_rx.borrow_and_update().clone(),
                    _ => None,
                };
                let now = now_ms();
                let change = |t: &mut TaskRecord| {
                    if let Some(text) = &message
                        && !t.status.is_terminal()
                    {
                        t.status_message = Some(text.clone());
                    }
                    apply(t, &settled, now);
                };
                // The outcome must reach the store: kept trying while it is unreachable.
                let kept = lease::update_until_kept(&d, &job.id, &change, deadline).await;
                d.changes.publish(Change::Task(job.id.clone()));
                match kept {
                    Ok(Some(t)) if asking && t.status == TaskStatus::InputRequired => {
                        phase = Phase::Waiting;
                    }
                    _ => return,
                }
            }
            Event::Changed => match d.tasks.get(&job.id).await {
                Ok(None) => return stop(phase, true).await,
                Ok(Some(t)) if t.status.is_terminal() => {
                    return stop(phase, true).await;
                }
                Ok(Some(t)) => {
                    let answered =
                        matches!(phase, Phase::Waiting) && t.status == TaskStatus::Working;
                    if answered {
                        phase = match resume(&d, &mut job).await {
                            Some(running) => running,
                            None => return,
                        };
                    }
                }
                // The store is unreachable: try again on the next change or tick.
                Err(_) => {}
            },
            Event::Renew => match lease::renew_lease(&d, &job.id).await {
                // Gone, or ended elsewhere (cancelled; failed by an instance that took this
                // one for gone) while the bus said nothing: the handler stops.
                Ok(None) => return stop(phase, true).await,
                Ok(Some(t)) if t.status.is_terminal() => {
                    return stop(phase, true).await;
                }
                Ok(Some(_)) => {}
                // The store is unreachable: renewed on the next tick.
                Err(_) => {}
            },
            Event::Unrelated => {}
            Event::Expired => return stop(phase, true).await,
            Event::Shutdown => {
                let e = McpError::internal(
                    "The server shut down before the task finished (the instance running it stopped): create the task again",
                );
                let settled = Settled::Failed(e.to_error_object());
                let now = now_ms();
                let change = |t: &mut TaskRecord| apply(t, &settled, now);
                let _ = d.tasks.update(&job.id, &change).await;
                d.changes.publish(Change::Task(job.id.clone()));
                return stop(phase, false).await;
            }
        }
    }
}

/// Ends a task's handler: its cancellation fires, and unless the server is stopping it gets
/// a moment to wind down (`grace`).
async fn stop(phase: Phase, grace: bool) {
    if let Phase::Running(mut handler, inner) = phase {
        inner.abandon();
        if grace {
            let _ = tokio::time::timeout(CANCEL_GRACE, catch_panic(&mut handler)).await;
        }
    }
}

/// All questions are answered: takes the answers from the store and invokes the handler
/// with them (`None` when the task is over).
async fn resume(d: &Dispatcher, job: &mut Job) -> Option<Phase> {
    let taken = std::sync::Mutex::new(Map::new());
    let take = |t: &mut TaskRecord| {
        *taken.lock().unwrap_or_else(|e| e.into_inner()) = std::mem::take(&mut t.answers);
    };
    match d.tasks.update(&job.id, &take).await {
        Ok(Some(_)) => {}
        Ok(None) => return None,
        // Unreachable store: the answers stay there for the next try.
        Err(_) => return Some(Phase::Waiting),
    }
    let mut taken = taken.into_inner().unwrap_or_else(|e| e.into_inner());
    for (shown, own) in std::mem::take(&mut job.keys) {
        if let Some(answer) = taken.remove(&shown) {
            job.answers.insert(own, answer);
        }
    }
    match invoke_again(d, job) {
        Ok((handler, inner)) => Some(Phase::Running(handler, inner)),
        Err(e) => {
            let settled = Settled::Failed(e.to_error_object());
            let now = now_ms();
            let change = |t: &mut TaskRecord| apply(t, &settled, now);
            let _ = d.tasks.update(&job.id, &change).await;
            d.changes.publish(Change::Task(job.id.clone()));
            None
        }
    }
}

/// What one invocation of the handler came to.
fn settle(
    d: &Dispatcher,
    job: &mut Job,
    outcome: Result<Result<ToolOutcome, McpError>, String>,
) -> Settled {
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(panic) => Ok(tool_result::panicked(&job.entry, &panic)),
    };
    match outcome {
        Ok(ToolOutcome::Complete(mut result)) => {
            tool_result::finish(d, &mut result);
            match serde_json::value::to_raw_value(&result) {
                Ok(raw) => Settled::Completed(raw),
                Err(_) => Settled::Failed(
                    McpError::internal("the tool's result could not be serialized")
                        .to_error_object(),
                ),
            }
        }
        Ok(ToolOutcome::InputRequired(r)) => {
            job.state = r.request_state;
            let asks = r.input_requests.unwrap_or_default();
            if asks.is_empty() {
                return Settled::Again;
            }
            let mut shown = InputRequests::with_capacity(asks.len());
            for (own, request) in asks.iter() {
                let key = unique_key(&job.shown, own);
                job.shown.insert(key.clone());
                job.keys.push((key.clone(), own.to_owned()));
                shown.insert(key, request.clone());
            }
            Settled::Asking(shown)
        }
        // A task's handler follows another server's task rather than handing it on.
        Ok(ToolOutcome::RelayedTask(_)) => Settled::Failed(
            McpError::internal("a task cannot be answered with another task").to_error_object(),
        ),
        Err(e) => Settled::Failed(e.to_error_object()),
    }
}

/// Invokes the handler again, with every answer so far and its last sealed state.
fn invoke_again(d: &Dispatcher, job: &mut Job) -> Result<(Handler, Arc<ContextInner>), McpError> {
    let ToolHandler::Async(f) = &job.entry.handler else {
        return Err(McpError::internal("a task tool needs an async handler"));
    };
    // The task's invocations answer no request of their own: the task id stands for one.
    let inner = Arc::new(d.context(
        RequestId::String(job.id.clone()),
        Method::ToolsCall,
        job.meta.clone(),
        job.caller.clone(),
        job.client,
        Notifier::none(),
    ));
    let _ = inner.task_status.set(job.status_tx.clone());
    let cx = RequestContext {
        inner: inner.clone(),
    };
    let text = serde_json::to_string(&job.answers)
        .map_err(|e| McpError::internal(format!("the answers could not be kept: {e}")))?;
    let responses: RawInputResponses<'_> = serde_json::from_str(&text)
        .map_err(|e| McpError::internal(format!("the answers could not be read: {e}")))?;
    round::open(
        d,
        &cx,
        Round {
            method: Method::ToolsCall,
            name: job.entry.name.clone(),
            arguments: job.arguments.shared_json(),
            responses: Some(responses),
            state: job.state.take(),
        },
    )?;
    let call = ToolCall {
        name: job.name.clone(),
        arguments: job.arguments.clone(),
        context: cx,
    };
    match std::panic::catch_unwind(AssertUnwindSafe(|| f(call))) {
        Ok(handler) => Ok((handler, inner)),
        Err(payload) => {
            let msg = panic_message(&*payload);
            let outcome = tool_result::panicked(&job.entry, &msg);
            Ok((Box::pin(async move { Ok(outcome) }), inner))
        }
    }
}

/// Applies where an invocation left the task to its record (a terminal task stays as it is).
fn apply(t: &mut TaskRecord, settled: &Settled, now: u64) {
    match settled {
        Settled::Completed(result) => {
            if t.set_status(TaskStatus::Completed, now) {
                t.result = Some(result.clone());
            }
        }
        Settled::Failed(error) => {
            if t.set_status(TaskStatus::Failed, now) {
                t.error = Some(error.clone());
            }
        }
        Settled::Asking(requests) => {
            if t.set_status(TaskStatus::InputRequired, now) {
                t.input_requests = Some(requests.clone());
            }
        }
        Settled::Again => {}
    }
}

/// Whether a change on the bus may concern task `id` (a listener that fell behind rereads).
fn changed(id: &str, change: Result<Change, RecvError>) -> Event {
    match change {
        Ok(Change::Task(changed)) if changed == id => Event::Changed,
        Ok(_) => Event::Unrelated,
        Err(RecvError::Lagged(_)) => Event::Changed,
        // The bus is gone: only the periodic checks remain.
        Err(RecvError::Closed) => Event::Changed,
    }
}

/// `own`, or `own` with a suffix when the client was already shown it in this task.
fn unique_key(shown: &HashSet<String>, own: &str) -> String {
    if !shown.contains(own) {
        return own.to_owned();
    }
    (2..)
        .map(|n| format!("{own}.{n}"))
        .find(|k| !shown.contains(k))
        .unwrap_or_else(|| own.to_owned())
}

/// The answers the request that created the task brought (earlier rounds' first).
fn answers_of(inner: &ContextInner) -> Map<String, Value> {
    let mut answers = Map::new();
    let Some(input) = inner.input.get() else {
        return answers;
    };
    let earlier = input.previous.iter().flat_map(|p| p.answers.iter());
    for (key, raw) in earlier.chain(input.responses.iter()) {
        if let Ok(value) = serde_json::from_str::<Value>(raw.get()) {
            answers.insert(key.to_owned(), value);
        }
    }
    answers
}
