//! One client connection that carries whole JSON-RPC messages both ways, whatever frames them:
//! stdio (a line each), or any transport of the same shape (a WebSocket's text messages). The
//! framing reads a message and hands it to [`Connection::message`]; everything the server sends
//! comes out of the channel the connection was made with, one message at a time, for the
//! framing to write.
//!
//! The first message decides the revision for the whole connection: `initialize` makes it one
//! 2025-11-25 session (served by [`Legacy`]), any other request a 2026-07-28 connection.
//! `server/discover` is answered before that choice without making it, so a client may probe
//! with it and still open with `initialize`. Requests are served concurrently;
//! `notifications/cancelled` cancels one.

use crate::dispatch::{Dispatcher, Handled, Ingress, Outgoing, Transport, TransportChecks};
use crate::error::McpError;
use crate::legacy::{Inbound, Legacy, Next, Outcome, Reply, SessionSettings, Unserved};
use crate::protocol::{
    CancelledNotificationParams, ClientNotification, ClientRequest, RequestId, codes,
};
use crate::registry::ParamHeader;
use bytes::Bytes;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// One connection's state: which revision it speaks, its requests in flight, and the tasks
/// writing their messages.
pub(crate) struct Connection {
    dispatcher: Arc<Dispatcher>,
    transport: Transport,
    era: Era,
    /// The 2025-11-25 side of this connection, unless the server serves 2026-07-28 only.
    legacy: Option<Arc<Legacy>>,
    in_flight: InFlight,
    tasks: JoinSet<()>,
    out: mpsc::Sender<Bytes>,
    /// The principal of every message, when the server names one for this transport
    /// (`ServerBuilder::stdio_caller`): the local user who started the process.
    caller: Option<Arc<crate::context::Caller>>,
}

/// Which revision the connection speaks.
enum Era {
    /// Not decided yet (only `server/discover` so far).
    Undecided,
    Modern,
    /// A 2025-11-25 session: its id once `initialize` opened it.
    Legacy(Option<String>),
}

impl Connection {
    /// A connection served by `dispatcher` (and, with `legacy`, open to a 2025-11-25 session of
    /// its own), writing to `out`. A bounded `out` makes the connection's requests wait when
    /// the client stops reading, so memory does not grow.
    pub(crate) fn new(
        dispatcher: Arc<Dispatcher>,
        legacy: Option<SessionSettings>,
        transport: Transport,
        out: mpsc::Sender<Bytes>,
    ) -> Self {
        let legacy =
            legacy.map(|options| Arc::new(Legacy::for_connection(dispatcher.clone(), options)));
        let era = match legacy {
            Some(_) => Era::Undecided,
            None => Era::Modern,
        };
        let caller = match transport {
            Transport::Stdio => dispatcher.config.stdio_caller.clone(),
            Transport::Http => None,
        };
        Connection {
            dispatcher,
            transport,
            era,
            legacy,
            in_flight: InFlight::default(),
            tasks: JoinSet::new(),
            out,
            caller,
        }
    }

    /// Writes a message the framing itself answers with (a message it could not read).
    pub(crate) async fn send(&self, message: Bytes) {
        let _ = self.out.send(message).await;
    }

    /// One message from the client.
    pub(crate) async fn message(&mut self, text: &[u8]) {
        if let Era::Undecided = self.era {
            match first_method(text).as_deref() {
                Some("initialize") => self.era = Era::Legacy(None),
                Some("server/discover") => {}
                _ => self.era = Era::Modern,
            }
        }
        match (&self.era, &self.legacy) {
            (Era::Legacy(_), Some(legacy)) => {
                let legacy = legacy.clone();
                self.legacy_message(&legacy, text).await;
            }
            _ => self.modern_message(text),
        }
        // Reap finished tasks so the set does not grow without bound.
        while self.tasks.try_join_next().is_some() {}
    }

    /// Waits for every request in flight, and every task writing, to finish.
    pub(crate) async fn finish(mut self) {
        while self.tasks.join_next().await.is_some() {}
    }

    fn modern_message(&mut self, text: &[u8]) {
        let ingress = Ingress {
            caller: self.caller.clone(),
            checks: Some(&self.in_flight),
            transport: Some(self.transport),
            client: None,
        };
        let mut call = match self.dispatcher.handle(text, ingress) {
            Handled::Notification(n) => {
                self.in_flight.notified(n);
                return;
            }
            Handled::Call(call) => call,
        };
        // A call still running is registered before its task starts, so a fast finish cannot
        // leave a stale entry (one answered already has nothing to cancel).
        let id = call.request_id().filter(|_| call.is_running()).cloned();
        let token = call.cancellation();
        if let Some(id) = &id {
            lock(&self.in_flight.0).insert(id.clone(), token.clone());
        }
        let out = self.out.clone();
        let registry = self.in_flight.0.clone();
        self.tasks.spawn(async move {
            loop {
                let msg = tokio::select! {
                    biased;
                    _ = token.cancelled() => break,
                    msg = call.next_message() => msg,
                };
                let Some(msg) = msg else { break };
                let bytes = match msg {
                    Outgoing::Notification(b) => b,
                    Outgoing::Response(r) => {
                        // Unregister first, so a late cancel finds nothing; then answer.
                        if let Some(id) = &id
                            && lock(&registry).remove(id).is_none()
                        {
                            break;
                        }
                        r.body
                    }
                };
                if out.send(bytes).await.is_err() {
                    break;
                }
            }
            if let Some(id) = &id {
                lock(&registry).remove(id);
            }
        });
    }

    /// A message of the connection's 2025-11-25 session: what it sends (notifications,
    /// requests to the client for the bridge, its response) is written as it comes, and the
    /// client's responses reach the requests waiting for them.
    async fn legacy_message(&mut self, legacy: &Arc<Legacy>, text: &[u8]) {
        let message = match crate::legacy::parse(text) {
            Ok(message) => message,
            Err(error) => return self.send(error).await,
        };
        let opened = match &self.era {
            Era::Legacy(opened) => opened.clone(),
            _ => None,
        };
        let from = Inbound {
            session: opened.as_deref(),
            caller: self.caller.clone(),
            client: None,
            transport: self.transport,
            back_channel: true,
        };
        match legacy.handle(message, from).await {
            Outcome::Nothing => {}
            Outcome::Opened(opened) => {
                // List changes and updates of subscribed resources, written until the server
                // shuts down or the session ends.
                self.tasks.spawn(legacy.clone().changes(
                    opened.session.id.clone(),
                    opened.live,
                    self.out.clone(),
                ));
                self.era = Era::Legacy(Some(opened.session.id));
                self.send(opened.response).await;
            }
            // Before `initialize`, what is no request is dropped: an error without an id would
            // answer nothing the client could match it to.
            Outcome::Unserved {
                why: Unserved::NotOpened { request: false },
                ..
            } => {}
            Outcome::Unserved { body, .. } => self.send(body).await,
            Outcome::Reply { reply, live, .. } => match reply {
                Reply::Now(body) => self.send(body).await,
                Reply::Refused(response) => self.send(response.body).await,
                Reply::Later(log) => {
                    let out = self.out.clone();
                    self.tasks.spawn(async move {
                        let mut reader = log.reader(0).through_cuts();
                        while let Next::Events(events) = reader.next(&log).await {
                            for (_, event) in events {
                                if out.send(event).await.is_err() {
                                    return;
                                }
                            }
                        }
                        live.drop_stream(log.id);
                    });
                }
            },
        }
    }
}

/// The method of a message, read without the rest of it.
fn first_method(text: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Peek {
        method: Option<String>,
    }
    crate::json::from_bytes::<Peek>(text).ok()?.method
}

/// The requests in progress, by id: an id may not be reused while its request runs, and
/// `notifications/cancelled` cancels one.
#[derive(Default)]
struct InFlight(Arc<Mutex<HashMap<RequestId, CancellationToken>>>);

impl InFlight {
    fn notified(&self, n: ClientNotification) {
        if n.method != "notifications/cancelled" {
            return;
        }
        let params = n
            .params
            .and_then(|p| serde_json::from_str::<CancelledNotificationParams>(p.get()).ok());
        if let Some(id) = params.and_then(|p| p.request_id) {
            let entry = lock(&self.0).remove(&id);
            if let Some(token) = entry {
                token.cancel();
            }
        }
    }
}

impl TransportChecks for InFlight {
    fn check_request(&self, request: &ClientRequest<'_>) -> Result<(), McpError> {
        if lock(&self.0).contains_key(&request.id) {
            return Err(McpError::new(
                codes::INVALID_REQUEST,
                format!(
                    "Invalid Request: id {} is already in use by a request in progress",
                    request.id
                ),
            ));
        }
        Ok(())
    }

    /// No headers on these transports.
    fn check_arguments(&self, _: &[ParamHeader], _: &Map<String, Value>) -> Result<(), McpError> {
        Ok(())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
