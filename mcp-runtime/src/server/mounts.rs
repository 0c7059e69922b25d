//! What a built [`Server`] does with its mounts while it serves: remote mounts' lists fetched
//! and kept fresh, their changes followed; and a server mounted in another (`From<Server> for
//! Mount`). What the mounts are (taken from the builder's items) is `mount_set`.

use super::built::Server;
use super::mount_set::{FIRST_FETCH, FRESH_MAX, FRESH_MIN, RETRY, RemoteMount, swap_in};
use crate::proxy::{Mount, fetch};
use crate::registry::PrimitiveKind;
use std::sync::atomic::Ordering;
use std::time::Duration;

impl Server {
    /// Fetches the lists of every remote mount now and swaps in what each serves (a mount that
    /// does not answer keeps what it had, and its requests fail with an error naming it).
    /// Serving does this on start and whenever a mount's lists go stale; call it yourself when
    /// you serve through [`handle_message`](Server::handle_message) alone.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let server = mcp_runtime::Server::builder().build().unwrap();
    /// server.refresh_mounts().await; // no mounts: nothing to do
    /// # }
    /// ```
    pub async fn refresh_mounts(&self) {
        let mut fetches = tokio::task::JoinSet::new();
        for index in 0..self.mounts.remote.len() {
            let server = self.clone();
            fetches.spawn(async move { server.refresh_one(&server.mounts.remote[index]).await });
        }
        while fetches.join_next().await.is_some() {}
    }

    async fn refresh_one(&self, mount: &RemoteMount) -> Option<Duration> {
        match fetch(&mount.backend).await {
            Ok(mut fetched) => {
                let fresh = fetched.fresh_for;
                let fresh = fresh.unwrap_or(FRESH_MAX).clamp(FRESH_MIN, FRESH_MAX);
                if let Some(views) = &mount.views {
                    views.record_anonymous(std::mem::take(&mut fetched.items), fresh);
                }
                swap_in(&self.dispatcher, &self.mounts, mount, fetched, false);
                Some(fresh)
            }
            Err(e) => {
                tracing::warn!(
                    target: "mcp_runtime::proxy",
                    mount = %mount.backend.name,
                    server = mount.backend.client.server(),
                    error = %e,
                    "a mounted server's lists could not be fetched"
                );
                None
            }
        }
    }

    /// The first fetch of the remote mounts (waited for up to 10 s) and the task that keeps
    /// them fresh; once per server.
    pub(crate) async fn start_mounts(&self) {
        if !self.mounts.any_remote() || self.mounts.started.swap(true, Ordering::SeqCst) {
            return;
        }
        let _ = tokio::time::timeout(FIRST_FETCH, self.refresh_mounts()).await;
        for index in 0..self.mounts.remote.len() {
            let listener = self.clone();
            let halt = self.dispatcher.shutdown.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = listener.follow_changes(index) => {}
                    () = halt.cancelled() => {}
                }
            });
            let server = self.clone();
            let halt = self.dispatcher.shutdown.clone();
            tokio::spawn(async move {
                let mut wait = RETRY;
                loop {
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = halt.cancelled() => return,
                    }
                    let mount = &server.mounts.remote[index];
                    wait = match server.refresh_one(mount).await {
                        // Its listen stream says when the lists change.
                        Some(_) if mount.listening.load(Ordering::Relaxed) => FRESH_MAX,
                        Some(fresh) => fresh,
                        None => RETRY,
                    };
                }
            });
        }
    }
}

impl Server {
    /// Listens to a remote mount's changes (`subscriptions/listen`): its lists fetched again on
    /// each list change, and the updates of its fixed resources (when it serves subscriptions)
    /// published as this server's. The stream is opened again when it ends (after a pause) or
    /// when the mount's resources changed; a server that serves no listen streams is left to
    /// its lists' `ttlMs`.
    async fn follow_changes(&self, index: usize) {
        let mount = &self.mounts.remote[index];
        loop {
            let uris = self.subscribable(mount);
            let mut filter = serde_json::json!({
                "toolsListChanged": true,
                "promptsListChanged": true,
                "resourcesListChanged": true,
            });
            if !uris.is_empty() {
                filter["resourceSubscriptions"] = serde_json::json!(uris);
            }
            let mut reopen = false;
            match mount.backend.client.listen(filter).await {
                Ok(mut stream) => {
                    while let Some(note) = stream.next().await {
                        match note["method"].as_str().unwrap_or_default() {
                            "notifications/subscriptions/acknowledged" => {
                                let honoured = &note["params"]["notifications"];
                                let all = mount.lists().iter().all(|l| honoured[*l] == true);
                                mount.listening.store(all, Ordering::Relaxed);
                            }
                            "notifications/resources/updated" => {
                                if let Some(uri) = note["params"]["uri"].as_str() {
                                    self.notify_resource_updated(mount.backend.naming.uri(uri));
                                }
                            }
                            _ => {
                                self.refresh_one(mount).await;
                                if self.subscribable(mount) != uris {
                                    reopen = true;
                                    break;
                                }
                            }
                        }
                    }
                }
                Err(e) if e.code() == Some(-32601) => return,
                Err(_) => {}
            }
            mount.listening.store(false, Ordering::Relaxed);
            if !reopen {
                tokio::time::sleep(RETRY).await;
            }
        }
    }

    /// The mounted server's URIs of the fixed resources it serves here, when it serves
    /// subscriptions.
    fn subscribable(&self, mount: &RemoteMount) -> Vec<String> {
        if !mount
            .backend
            .offers_subscribe
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            return Vec::new();
        }
        let owned = mount.owned.lock().unwrap_or_else(|p| p.into_inner());
        let mut uris: Vec<String> = owned
            .iter()
            .filter(|(kind, _)| *kind == PrimitiveKind::Resource)
            .map(|(_, uri)| mount.backend.naming.backend_uri(uri))
            .collect();
        uris.sort();
        uris
    }
}

impl From<Server> for Mount {
    /// A server of this crate, mounted in process: its items as registered now.
    fn from(server: Server) -> Mount {
        let items = server.read_items(|items| Box::new(items.clone()));
        Mount::local(
            Box::new(crate::client::Client::new(server.clone())),
            server.info().name.clone(),
            items,
        )
    }
}
