//! [`Server`]: a built server (what is registered plus configuration), the ways to serve it,
//! and the changes it takes while serving.

#[cfg(feature = "mounts")]
use super::mount_set::Mounts;
use crate::bus::Change;
use crate::context::Caller;
use crate::dispatch::{Call, Dispatcher, Handled, Ingress};
use crate::error::{BuildError, Error};
use crate::legacy::Legacy;
use crate::protocol::{DiscoverResult, Implementation, ServerCapabilities};
use crate::registry::{IntoPrimitive, Items, PrimitiveKind};
use crate::transport::http::{self, HttpOptions};
use crate::transport::stdio;
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite};

/// An MCP server: what is registered plus configuration. Cheap to clone; every clone serves the
/// same registry.
///
/// Serve it with [`run`](Server::run) (the command line decides: `--addr` or `--stdio`),
/// [`serve`](Server::serve) (HTTP on a listener), [`serve_stdio`](Server::serve_stdio), or mount
/// [`into_router`](Server::into_router) in your own axum app.
///
/// ```
/// use mcp_runtime::{Server, Tool};
/// let server = Server::builder()
///     .name("demo")
///     .version("1.0.0")
///     .tool(Tool::new("ping").handler(|_: mcp_runtime::NoArguments, _cx| async { "pong" }))
///     .build()
///     .expect("valid server");
/// assert_eq!(server.info().name, "demo");
/// ```
#[derive(Clone)]
pub struct Server {
    pub(super) dispatcher: Arc<Dispatcher>,
    /// The 2025-11-25 side, unless the server serves 2026-07-28 clients only.
    pub(super) legacy: Option<Arc<Legacy>>,
    /// The remote servers mounted in this one.
    #[cfg(feature = "mounts")]
    pub(super) mounts: Arc<Mounts>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.dispatcher.config.info)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// The server's self-description.
    pub fn info(&self) -> &Implementation {
        &self.dispatcher.config.info
    }

    /// Every registered tool, enabled or not, with the `inputSchema` `tools/list` lists it with
    /// (for [`testing::assert_portable_schemas`](crate::testing::assert_portable_schemas)).
    #[inline]
    pub(crate) fn listed_input_schemas(
        &self,
    ) -> Vec<(String, serde_json::Map<String, serde_json::Value>)> {
        self.dispatcher.catalog.read_items(|items: &Items| {
            items
                .tools
                .iter()
                .map(|t| (t.info.name.clone(), t.listed_schema(items.dialect).clone()))
                .collect()
        })
    }

    /// The capabilities advertised right now (derived from what is registered).
    pub fn capabilities(&self) -> ServerCapabilities {
        self.dispatcher.capabilities()
    }

    /// The `server/discover` result as currently advertised.
    pub fn discover_result(&self) -> DiscoverResult {
        self.dispatcher.discover_result()
    }

    /// Serves Streamable HTTP on `listener` (endpoint [`HttpOptions::path`], `/mcp` by default)
    /// until Ctrl-C or SIGTERM, then shuts down gracefully (see
    /// [`serve_until`](Self::serve_until)). Bind with
    /// [`transport::http::bind`](crate::transport::http::bind): its listen backlog takes a burst
    /// of new clients that tokio's `TcpListener::bind` (128 here) would drop for a second.
    ///
    /// ```no_run
    /// # async fn demo(server: mcp_runtime::Server) -> Result<(), mcp_runtime::Error> {
    /// let listener = mcp_runtime::transport::http::bind("127.0.0.1:8000".parse().unwrap()).await?;
    /// server.serve(listener, mcp_runtime::HttpOptions::default()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
    ) -> Result<(), Error> {
        self.check_http(&options)?;
        #[cfg(feature = "mounts")]
        self.start_mounts().await;
        let signal = http::ctrl_c_or_term();
        http::serve(self.dispatcher, self.legacy, listener, options, signal).await;
        Ok(())
    }

    /// Serves Streamable HTTP on `listener` until `signal` completes; then drains (readiness
    /// 503, no new connection, listen streams ended with their final result, requests and tasks
    /// in flight given [`HttpOptions::shutdown_grace`], tasks still running then marked
    /// failed), and returns. [`serve`](Self::serve) is this with Ctrl-C
    /// or SIGTERM as the signal.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp_runtime::Error> {
    /// use mcp_runtime::{HttpOptions, Server};
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    /// let serving = tokio::spawn(Server::builder().build()?.serve_until(
    ///     listener,
    ///     HttpOptions::default(),
    ///     async move { let _ = stopped.await; },
    /// ));
    /// stop.send(()).unwrap();
    /// serving.await.unwrap()?;
    /// # Ok(()) }
    /// ```
    pub async fn serve_until<S>(
        self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
        signal: S,
    ) -> Result<(), Error>
    where
        S: std::future::Future<Output = ()> + Send + 'static,
    {
        self.check_http(&options)?;
        #[cfg(feature = "mounts")]
        self.start_mounts().await;
        http::serve(self.dispatcher, self.legacy, listener, options, signal).await;
        Ok(())
    }

    /// `options` checked, and checked against what this server serves (every scope a
    /// primitive requires listed by the resource server, when it lists any).
    pub(crate) fn check_http(&self, options: &HttpOptions) -> Result<(), Error> {
        http::check_options(&self.dispatcher, options)
    }

    /// An axum router serving this server at the options' path: mount it in your own app (with
    /// your own layers), or serve it as it is. What [`serve`](Self::serve) refuses to start
    /// with (inconsistent options, a scope the resource server does not list) is logged as a
    /// warning here.
    ///
    /// ```
    /// # fn demo(server: mcp_runtime::Server) {
    /// let app: axum::Router = server.into_router(mcp_runtime::HttpOptions::default());
    /// # }
    /// ```
    pub fn into_router(self, options: HttpOptions) -> axum::Router {
        // A router cannot refuse to be made: what `serve` would refuse is logged.
        if let Err(why) = self.check_http(&options) {
            http::warn(&why.to_string());
        }
        #[cfg(feature = "mounts")]
        if self.mounts.any_remote()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            // Remote mounts' lists are fetched, and kept fresh, in the background.
            let server = self.clone();
            runtime.spawn(async move { server.start_mounts().await });
        }
        http::router(self.dispatcher, self.legacy, options)
    }

    /// Serves this server as an AWS Lambda function behind API Gateway (REST or HTTP API) or a
    /// Function URL, one event per invocation, until the Lambda runtime stops it. Feature
    /// `lambda`; what is served and what is refused there: [`lambda`](crate::lambda).
    ///
    /// Fails at once, before any event, when the server asks clients for input and has no
    /// `requestState` key every instance shares (`MCP_STATE_KEY`), or when it is not in a
    /// Lambda environment.
    ///
    /// ```no_run
    /// # async fn demo(server: mcp_runtime::Server) -> Result<(), mcp_runtime::Error> {
    /// use mcp_runtime::{HttpOptions, lambda::LambdaOptions};
    /// let options = LambdaOptions::new(HttpOptions::default().allow_host("mcp.example.com"));
    /// server.run_lambda(options).await
    /// # }
    /// ```
    #[cfg(feature = "lambda")]
    pub async fn run_lambda(
        self,
        options: impl Into<http::lambda::LambdaOptions>,
    ) -> Result<(), Error> {
        http::lambda::run(&self.dispatcher, options.into()).await
    }

    /// The `tower` service [`run_lambda`](Self::run_lambda) serves: Lambda events (API Gateway,
    /// Function URLs) answered, and [`lambda_http`]'s requests too, for a Lambda runtime of your
    /// own or a test. Feature `lambda`. Serve the events themselves (`lambda_runtime::run`, as
    /// `run_lambda` does): `lambda_http`'s own runners panic on a body flagged base64 that is
    /// not. Fails as `run_lambda` does for a server without a shared `requestState` key.
    ///
    /// [`lambda_http`]: crate::lambda::lambda_http
    #[cfg(feature = "lambda")]
    pub fn lambda_service(
        self,
        options: impl Into<http::lambda::LambdaOptions>,
    ) -> Result<http::lambda::LambdaService, Error> {
        http::lambda::service(&self.dispatcher, options.into())
    }

    /// Serves on this process's stdin and stdout until stdin closes.
    pub async fn serve_stdio(self) -> Result<(), Error> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// The stdio transport on any pair of streams (a child process's pipes, a socket, a test's
    /// in-memory pipe): newline-delimited JSON-RPC read from `input`, answered on `output`.
    pub async fn serve_io<R, W>(self, input: R, output: W) -> Result<(), Error>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        #[cfg(feature = "mounts")]
        self.start_mounts().await;
        let legacy = self.legacy.as_ref().map(|l| l.options.clone());
        Ok(stdio::serve(self.dispatcher, legacy, input, output).await?)
    }

    /// Runs one message through the whole pipeline in-process (no transport, so no header
    /// checks), as `caller` when given. `None` for a notification.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use mcp_runtime::Server;
    /// let server = Server::builder().build().unwrap();
    /// let body = br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{
    ///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
    ///     "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    /// let response = server.handle_message(body, None).unwrap().response().await;
    /// assert!(!response.is_error());
    /// # }
    /// ```
    pub fn handle_message(&self, body: &[u8], caller: Option<Caller>) -> Option<Call> {
        let ingress = Ingress {
            caller: caller.map(Arc::new),
            checks: None,
            transport: None,
            client: None,
        };
        match self.dispatcher.handle(body, ingress) {
            Handled::Notification(_) => None,
            Handled::Call(call) => Some(call),
        }
    }

    /// Ends every `subscriptions/listen` stream with its final result, and marks the tasks
    /// this instance runs `failed` (their handlers are dropped), for graceful shutdown.
    pub fn shutdown(&self) {
        self.dispatcher.shutdown.cancel();
        self.dispatcher.halt.cancel();
    }
}

/// Run-time changes. Every change rebuilds the registry snapshot (requests in flight keep the
/// one they started with) and tells open `subscriptions/listen` streams that opted in.
impl Server {
    /// Something of the items as registered now.
    #[cfg(feature = "mounts")]
    pub(crate) fn read_items<R>(&self, read: impl FnOnce(&Items) -> R) -> R {
        self.dispatcher.catalog.read_items(read)
    }

    fn change(
        &self,
        kind: PrimitiveKind,
        edit: impl FnOnce(&mut Items) -> bool,
    ) -> Result<bool, BuildError> {
        let changed = self.dispatcher.catalog.change(edit)?;
        if changed {
            self.notify(match kind {
                PrimitiveKind::Tool => Change::ToolsListChanged,
                PrimitiveKind::Prompt => Change::PromptsListChanged,
                // A skill's files are resources.
                PrimitiveKind::Resource
                | PrimitiveKind::ResourceTemplate
                | PrimitiveKind::Skill => Change::ResourcesListChanged,
            });
        }
        Ok(changed)
    }

    /// Adds a primitive while serving. Fails (and changes nothing) if it is invalid or its name
    /// is taken.
    ///
    /// ```
    /// use mcp_runtime::{NoArguments, Server, Tool};
    /// let server = Server::builder().build().unwrap();
    /// server.add(Tool::new("late").handler(|_: NoArguments, _| async { "hi" })).unwrap();
    /// assert!(server.capabilities().tools.is_some());
    /// ```
    pub fn add(&self, item: impl IntoPrimitive) -> Result<(), BuildError> {
        let item = item.into_primitive();
        self.change(item.kind(), move |items| {
            items.push(item);
            true
        })
        .map(drop)
    }

    /// Removes a primitive; returns whether it existed. Fails (and changes nothing) if what is
    /// left would not build.
    ///
    /// ```
    /// use mcp_runtime::{NoArguments, PrimitiveKind, Server, Tool};
    /// let server = Server::builder()
    ///     .tool(Tool::new("gone").handler(|_: NoArguments, _| async { "bye" }))
    ///     .build()
    ///     .unwrap();
    /// assert!(server.remove(PrimitiveKind::Tool, "gone").unwrap());
    /// assert!(!server.remove(PrimitiveKind::Tool, "gone").unwrap());
    /// ```
    // Inline, as `set_enabled`: compiled only by the servers that change their lists (BENCHMARKS.md,
    // "Metrics, result views and patterns behind features").
    #[inline]
    pub fn remove(&self, kind: PrimitiveKind, key: &str) -> Result<bool, BuildError> {
        self.change(kind, |items| items.remove(kind, key))
    }

    /// Hides (`false`) or shows again (`true`) a primitive without removing it; returns whether
    /// anything changed. A disabled tool is absent from `tools/list` and unknown to `tools/call`.
    #[inline]
    pub fn set_enabled(
        &self,
        kind: PrimitiveKind,
        key: &str,
        enabled: bool,
    ) -> Result<bool, BuildError> {
        self.change(kind, |items| items.set_enabled(kind, key, enabled))
    }

    /// Tells listen streams subscribed to `uri` (or a parent of it) that its contents changed.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.notify(Change::ResourceUpdated(uri.into()));
    }

    /// Publishes a change to every open listen stream of this server (on every instance, when
    /// the change bus reaches them).
    pub fn notify(&self, change: Change) {
        self.dispatcher.changes.publish(change);
    }
}
