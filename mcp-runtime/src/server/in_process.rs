//! A [`Server`] as the link of a [`Client`] in the same process: each request through
//! [`Server::handle_message`], the whole pipeline minus HTTP.

use super::built::Server;
use crate::client::{Client, ClientError, Exchange, Link, Outbound};
use crate::registry::BoxFuture;
use std::sync::Arc;

struct InProcess(Server);

impl Link for InProcess {
    #[inline]
    fn send<'a>(&'a self, out: Outbound<'a>) -> BoxFuture<'a, Result<Exchange, ClientError>> {
        let body = serde_json::to_vec(&out.message).unwrap_or_default();
        let caller = out.caller.cloned().map(Arc::new);
        Box::pin(async move {
            // What the caller sees of mounts that pass its token on, fetched first.
            if let Some(views) = self.0.dispatcher.views_ready(caller.as_ref()) {
                views.await;
            }
            let call = self
                .0
                .handle_message(&body, caller.map(Arc::unwrap_or_clone));
            match call {
                Some(call) => Ok(Exchange::call(call)),
                None => Err(ClientError::Unexpected(
                    "the request was taken for a notification".into(),
                )),
            }
        })
    }

    #[inline]
    fn revision(&self) -> Option<String> {
        Some(crate::protocol::LATEST_PROTOCOL_VERSION.to_owned())
    }

    fn describe(&self) -> &str {
        "in-process"
    }
}

impl Client {
    /// A client of `server` in this process (no sockets), declaring the capabilities of the
    /// answers it is given (none at first), asking for no progress or logs, caching nothing.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use mcp_runtime::client::Client;
    /// use mcp_runtime::{NoArguments, Server, Tool};
    /// let server = Server::builder()
    ///     .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
    ///     .build()
    ///     .unwrap();
    /// let client = Client::new(server);
    /// assert_eq!(client.list_tools().await.unwrap()[0].name, "ping");
    /// # }
    /// ```
    #[inline]
    pub fn new(server: Server) -> Client {
        Client::over(Arc::new(InProcess(server)), None)
    }
}
