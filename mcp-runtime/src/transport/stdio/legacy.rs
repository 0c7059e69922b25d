//! stdio for a 2025-11-25 client: the process is one session, opened by `initialize`. Requests
//! run concurrently as on the 2026-07-28 path; what they send (notifications, requests to the
//! client for the bridge, their response) is written as it comes, and the client's responses
//! reach the requests waiting for them. List changes and updates of subscribed resources are
//! written as notifications.

use crate::dispatch::Dispatcher;
use crate::legacy::{
    Incoming, Legacy, LegacyOptions, LiveSession, MemorySessionStore, Next, Reply, Request,
    SessionRecord, error_body,
};
use bytes::Bytes;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// The session of one stdio process.
pub(super) struct StdioSession {
    legacy: Arc<Legacy>,
    opened: Option<(String, Arc<LiveSession>)>,
    out: mpsc::Sender<Bytes>,
}

impl StdioSession {
    pub(super) fn new(
        dispatcher: Arc<Dispatcher>,
        options: LegacyOptions,
        out: mpsc::Sender<Bytes>,
    ) -> Self {
        // The process is the session: it never idles out.
        let store = MemorySessionStore::new(1, Duration::from_secs(u64::MAX / 4_000));
        StdioSession {
            legacy: Arc::new(Legacy::new(dispatcher, Arc::new(store), options)),
            opened: None,
            out,
        }
    }

    async fn write(&self, message: Bytes) {
        let _ = self.out.send(message).await;
    }

    /// One message from the client.
    pub(super) async fn message(&mut self, text: &[u8], tasks: &mut JoinSet<()>) {
        let message = match crate::legacy::parse(text) {
            Ok(message) => message,
            Err(error) => return self.write(error).await,
        };
        let Some((sid, live)) = self.opened.clone() else {
            return self.first(message, tasks).await;
        };
        let session = match self.legacy.session(&sid, None).await {
            Ok((session, _)) => session,
            Err(_) => return,
        };
        match message {
            Incoming::Notification { method, params } => {
                self.legacy
                    .notified(&session, &live, &method, &params)
                    .await;
            }
            Incoming::Response { id, message } => self.legacy.answered(&live, &id, message),
            Incoming::Request { id, method, params } => {
                let request = Request {
                    id,
                    method,
                    params,
                    caller: None,
                    client: None,
                    back_channel: true,
                    transport: crate::dispatch::Transport::Stdio,
                };
                match self.legacy.request(session, live.clone(), request).await {
                    Reply::Now(body) => self.write(body).await,
                    Reply::Refused(response) => self.write(response.body).await,
                    Reply::Later(log) => {
                        let out = self.out.clone();
                        tasks.spawn(async move {
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
                }
            }
        }
    }

    /// Before `initialize`: only `initialize` opens the session.
    async fn first(&mut self, message: Incoming, tasks: &mut JoinSet<()>) {
        match message {
            Incoming::Request { id, method, params } if method == "initialize" => {
                match self.legacy.initialize(&id, &params, None, None).await {
                    Ok(opened) => {
                        let live = self
                            .legacy
                            .session(&opened.session.id, None)
                            .await
                            .map(|(_, live)| live);
                        if let Ok(live) = live {
                            self.opened = Some((opened.session.id.clone(), live.clone()));
                            tasks.spawn(changes(
                                self.legacy.clone(),
                                opened.session,
                                live,
                                self.out.clone(),
                            ));
                        }
                        self.write(opened.response).await;
                    }
                    Err(error) => self.write(error).await,
                }
            }
            Incoming::Request { id, .. } => {
                self.write(error_body(
                    Some(&id),
                    -32600,
                    "Invalid Request: send initialize first",
                ))
                .await;
            }
            _ => {}
        }
    }
}

/// List changes and updates of subscribed resources, written until the server shuts down (end
/// of input) or the session ends.
async fn changes(
    legacy: Arc<Legacy>,
    session: SessionRecord,
    live: Arc<LiveSession>,
    out: mpsc::Sender<Bytes>,
) {
    let mut bus = legacy.dispatcher.changes.subscribe();
    let shutdown = legacy.dispatcher.shutdown.clone();
    loop {
        let change = tokio::select! {
            change = bus.recv() => change,
            () = live.ended.cancelled() => return,
            () = shutdown.cancelled() => return,
        };
        let change = match change {
            Ok(change) => change,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                crate::bus::Change::ToolsListChanged
            }
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        };
        let session = match legacy.session(&session.id, None).await {
            Ok((session, _)) => session,
            Err(_) => return,
        };
        if let Some(n) = legacy.change_notification(&change, &session)
            && out.send(n).await.is_err()
        {
            return;
        }
    }
}
