//! # The guide: from `cargo new` to a deployed server
//!
//! Each section is a small, compiled example. `examples/notes` is a whole server written this
//! way, with its tests in `tests/notes.rs`.
//!
//! ## 1. Setup
//!
//! ```toml
//! [dependencies]
//! # From a checkout of this framework, next to your crate. Once it is published on crates.io
//! # this line becomes `mcp-runtime = "0.1"`.
//! mcp-runtime = { path = "../mcp-framework/mcp-runtime" }
//! tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
//! serde = { version = "1", features = ["derive"] }
//! schemars = "1"   # 1.x: the `JsonSchema` derive of your argument and result types
//! serde_json = "1"
//! axum = "0.8"     # only to mount the server in an axum app of your own (section 10)
//! ```
//!
//! ## 2. A tool, and serving it
//!
//! A `#[tool]` is a plain function. Its doc comment is the description the model reads (a tool
//! without one gets a compile-time warning); its parameters are the JSON arguments; its return
//! value becomes the result.
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//!
//! /// Add two integers. Use only for arithmetic addition.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), mcp_runtime::Error> {
//!     // `--addr HOST:PORT` (default 127.0.0.1:8000, endpoint /mcp) or `--stdio`.
//!     Server::from_inventory().name("calculator").version("1.0.0").build()?.run().await
//! }
//! ```
//!
//! [`Server::from_inventory`](crate::Server::from_inventory) collects every annotated function
//! of the program; register them one by one instead with their handles:
//! `Server::builder().tool(add {})`.
//!
//! ## 3. Arguments, results, errors
//!
//! Arguments are owned types implementing `Deserialize` and `JsonSchema` (take `String`, not
//! `&str`); `Option<T>` is optional; `///` on a parameter describes it; `#[schemars(..)]` and
//! `#[serde(..)]` on a parameter refine its schema and reading. A function that returns
//! `Result<T, E: Display>` answers `Err` as a tool error (`isError: true`, the message in the
//! content) that the model reads and can correct; return `Result<T, McpError>` for a protocol
//! error instead (unknown item, bad parameters), which the client sees as a JSON-RPC error.
//! `Json<T>` returns `structuredContent` with an `outputSchema`.
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use schemars::JsonSchema;
//! use serde::Serialize;
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Quote {
//!     /// The price, in cents.
//!     cents: u64,
//! }
//!
//! /// Quote a price for a number of seats.
//! #[tool]
//! fn quote(
//!     /// How many seats (1 to 500).
//!     #[schemars(range(min = 1, max = 500))]
//!     seats: u64,
//!     /// A discount code, if any.
//!     code: Option<String>,
//! ) -> Result<Json<Quote>, String> {
//!     if code.as_deref() == Some("EXPIRED") {
//!         return Err("That code has expired; quote without it.".into());
//!     }
//!     Ok(Json(Quote { cents: seats * 1_200 }))
//! }
//! # let _ = Server::builder().tool(quote {}).build().unwrap();
//! ```
//!
//! ## 4. Resources and prompts
//!
//! A `#[resource]` serves a URI; one with `{variables}` is a template whose variables are
//! parameters, parsed from the string (`FromStr`, or a unit enum deriving `Deserialize` by its
//! variant's name). A `#[prompt]`'s parameters are its string arguments.
//!
//! ```
//! use mcp_runtime::prelude::*;
//!
//! /// The service configuration.
//! #[resource("config://service", mime_type = "application/json")]
//! fn config() -> &'static str {
//!     r#"{"region": "eu-west-1"}"#
//! }
//!
//! /// One invoice.
//! #[resource("invoices://{number}")]
//! fn invoice(number: u32) -> Result<String, McpError> {
//!     if number == 0 {
//!         return Err(McpError::resource_not_found("invoices://0"));
//!     }
//!     Ok(format!("Invoice {number}"))
//! }
//!
//! #[derive(Debug, serde::Deserialize)]
//! #[serde(rename_all = "lowercase")]
//! enum Tone { Formal, Casual }
//!
//! /// Draft a reply to a customer.
//! #[prompt]
//! fn reply(
//!     /// What the customer wrote.
//!     message: String,
//!     /// `formal` or `casual`.
//!     tone: Option<Tone>,
//! ) -> String {
//!     format!("Reply {:?} to: {message}", tone.unwrap_or(Tone::Formal))
//! }
//! # let _ = Server::builder().resource(config {}).resource_template(invoice {}).prompt(reply {}).build().unwrap();
//! ```
//!
//! ### Skills
//!
//! A skill is a folder of instructions for an agent: a `SKILL.md` whose YAML frontmatter names
//! and describes it, and any files beside it ([Agent Skills](https://agentskills.io)). Ship the
//! way to use your tools as skills, and hosts that speak the Skills extension
//! (`io.modelcontextprotocol/skills`) list them (`skills/list`), check them (`skills/get`: every
//! file's SHA-256 and size) and read them as resources (`skill://<path>/<file>`).
//!
//! ```text
//! skills/
//!   note-taking/
//!     SKILL.md            ---\nname: note-taking\ndescription: Keep tidy notes…\n---\n…
//!     templates/meeting.md
//! ```
//!
//! Serve a folder read when the server starts, and read again when it changes:
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//! use std::time::Duration;
//!
//! let server = Server::builder()
//!     .skills(Skills::dir("skills").watch(Duration::from_secs(2)))
//!     .build()?;
//! # Ok::<(), BuildError>(())
//! ```
//!
//! or embed it in the binary, so that a deployed server needs no file: `skills!` reads the
//! folder (relative to the source file, like `include_bytes!`) when the crate compiles, and a
//! broken skill is a compile error naming the file and the rule it breaks:
//!
//! ```text
//! let server = Server::builder().skills(skills!("../skills")).build()?;
//! ```
//!
//! Each file is included with `include_bytes!`, so editing one rebuilds the server; so that
//! adding one does too, add a `build.rs` with `println!("cargo::rerun-if-changed=skills");`.
//! Either way the folder is checked as the extension asks: names (1–64 lowercase letters,
//! digits and hyphens, the folder named after the skill), at most 512 files and 16 MiB per
//! skill, no `io.modelcontextprotocol/` key in the frontmatter's `metadata`, names unique on the
//! server. No symbolic link is followed (one is an error), and files whose names start with `.`
//! are left out. Protect a skill like any primitive:
//! `Skills::dir("skills").skill_scopes("refunds", ["billing:read"])` hides it from callers
//! without the scope and refuses them its entry, its files and its folders.
//!
//! ### Apps: a tool with an interactive view
//!
//! A host that renders MCP Apps (`io.modelcontextprotocol/ui`: Claude, ChatGPT, VS Code, …)
//! shows a tool's result in a view: an HTML document at a `ui://` URI, rendered in a sandboxed
//! frame, that can call your tools back through the host. Serve the view as a [`UiResource`]
//! (fixed HTML, `include_str!`-ed so that editing it rebuilds the server, or rendered by a
//! function), and link tools to it with `ui = "…"`; `visibility = ["app"]` marks a tool only
//! the view calls, which hosts keep from the agent. Every tool still answers with text that
//! stands on its own: a host without apps shows that.
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::{Csp, UiResource};
//!
//! /// Shows today's sales as a chart.
//! #[tool(ui = "ui://sales/chart.html")]
//! fn sales() -> Structured<Vec<u32>> {
//!     Structured::new(vec![3, 5, 2]).text("Sales today: 3, 5 and 2")
//! }
//!
//! let view = UiResource::new("ui://sales/chart.html", "sales-chart")
//!     .html("<!doctype html><title>Sales</title><script>/* the view */</script>")
//!     .csp(Csp::new().connect_domains(["https://api.example.com"]));
//! let server = Server::builder().tool(sales {}).resource(view).build();
//! # assert!(server.is_ok());
//! ```
//!
//! A tool linked to a view the server does not serve is a startup error naming both. In a
//! handler, `cx.client_capabilities().supports_apps()` says whether the caller renders views.
//! `examples/apps` has a board written with the official `App` class of
//! `@modelcontextprotocol/ext-apps` and a chart that speaks the protocol by hand; the lab page
//! (`/lab`) renders both.
//!
//! [`UiResource`]: crate::UiResource
//!
//! ## 5. Shared state
//!
//! A value every request shares is registered once and taken as [`State<T>`](crate::State), or
//! is the `&self` of a `#[handlers]` impl block. Building a server whose handlers take a state
//! it was not given fails, naming the handler and the type: it never reaches a client.
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::handlers;
//! use std::sync::Mutex;
//!
//! #[derive(Default)]
//! struct Todo(Mutex<Vec<String>>);
//!
//! #[handlers]
//! impl Todo {
//!     /// Add an item; answers how many there are.
//!     #[tool]
//!     fn add_item(&self, item: String) -> usize {
//!         let mut items = self.0.lock().unwrap();
//!         items.push(item);
//!         items.len()
//!     }
//! }
//!
//! /// How many items there are.
//! #[tool]
//! fn count_items(State(todo): State<Todo>) -> usize {
//!     todo.0.lock().unwrap().len()
//! }
//!
//! let server = Server::builder().handlers(Todo::default()).tool(count_items {}).build();
//! assert!(server.is_ok());
//! assert!(Server::builder().tool(count_items {}).build().is_err(), "no Todo registered");
//! ```
//!
//! ## 6. Progress, logs, cancellation
//!
//! Take a [`Progress`](crate::Progress) or a [`Logger`](crate::Logger) parameter to send
//! notifications on the request's stream (only when the client asked for them: with a
//! `progressToken`, or a `logLevel` on a server with `.logging(true)`). When the client goes
//! away (or cancels, or the request times out), the handler's future is dropped at its next
//! `.await`, and a [`CancellationToken`](crate::CancellationToken) parameter fires, so that work
//! spawned elsewhere, or a `select!`, can stop too.
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use std::time::Duration;
//!
//! /// Crawl a site, page by page.
//! #[tool]
//! async fn crawl(pages: u32, progress: Progress, log: Logger, cancel: CancellationToken) -> String {
//!     for page in 1..=pages {
//!         tokio::select! {
//!             _ = cancel.cancelled() => return format!("stopped at page {page}"),
//!             _ = tokio::time::sleep(Duration::from_millis(1)) => {}
//!         }
//!         progress.report(f64::from(page), Some(f64::from(pages)), None);
//!     }
//!     log.info("crawl finished");
//!     format!("crawled {pages} pages")
//! }
//! # let _ = Server::builder().tool(crawl {}).build().unwrap();
//! ```
//!
//! ## 7. Asking the client: multi round-trip requests
//!
//! A handler declares the input it needs; the client is asked for all of it at once, and the
//! body runs once with the answers. Texts interpolate the arguments (`{tag}`, checked at compile
//! time). For flows that decide what to ask as they go, use [`Rounds`](crate::Rounds).
//! Instances behind a load balancer share the key that seals the state (`MCP_STATE_KEY`).
//!
//! ```
//! use mcp_runtime::prelude::*;
//!
//! /// Delete the notes with a tag, after asking the user.
//! #[tool]
//! async fn delete_tag(
//!     tag: String,
//!     #[elicit(message = "Delete every note tagged {tag}?")] confirm: Elicitation<String>,
//!     #[sample(prompt = "Say goodbye to the {tag} notes.", max_tokens = 30)] farewell: Option<Sampled>,
//! ) -> String {
//!     match confirm {
//!         Elicitation::Accepted(_) => farewell.map(|s| s.text()).unwrap_or_else(|| "Deleted.".into()),
//!         _ => "Kept them.".into(),
//!     }
//! }
//! # let _ = Server::builder().tool(delete_tag {}).build().unwrap();
//! ```
//!
//! A question that depends on state (`Close ticket #1 "Printer on fire"?`) names a function
//! instead of a text: it gets the method's `&self` (in a `#[handlers]` impl), the request's
//! context and a reference to each argument.
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use std::sync::Mutex;
//!
//! #[derive(Default)]
//! struct Desk(Mutex<Vec<String>>);
//!
//! #[handlers]
//! impl Desk {
//!     /// Close a ticket, after the user confirms.
//!     #[tool]
//!     fn close_ticket(
//!         &self,
//!         id: usize,
//!         #[elicit(message = Self::confirm_close)] confirm: Elicitation<String>,
//!     ) -> String {
//!         match confirm {
//!             Elicitation::Accepted(_) => format!("Closed #{id}."),
//!             _ => "Left open.".into(),
//!         }
//!     }
//! }
//!
//! impl Desk {
//!     fn confirm_close(&self, _cx: &RequestContext, id: &usize) -> String {
//!         let tickets = self.0.lock().unwrap();
//!         match tickets.get(*id) {
//!             Some(title) => format!("Close ticket #{id} \"{title}\"?"),
//!             None => format!("Close ticket #{id}?"),
//!         }
//!     }
//! }
//! # let _ = Server::builder().handlers(Desk::default()).build().unwrap();
//! ```
//!
//! ### Long-running tools as tasks
//!
//! A tool that takes minutes should not hold a request open. With `task = "optional"` a client
//! that declares the tasks extension (`io.modelcontextprotocol/tasks`) gets a task handle at
//! once; it polls `tasks/get` (the last progress message is the task's `statusMessage`), answers
//! questions the tool asks while it runs with `tasks/update`, and may cancel it with
//! `tasks/cancel` (the tool's cancellation token fires). Other clients get a plain call;
//! `task = "required"` refuses them with `-32021`. Declared inputs (`#[elicit]`, …) are asked
//! before the task starts; what the body asks through [`Rounds`](crate::Rounds) is asked through
//! the task. Tasks live in a [`TaskStore`](crate::tasks::TaskStore) (in memory by default) for
//! an hour ([`ServerBuilder::task_ttl`](crate::ServerBuilder::task_ttl)); only the caller that
//! created one may read it.
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use std::time::Duration;
//!
//! /// Build the quarterly report.
//! #[tool(task = "optional")]
//! async fn quarterly_report(progress: Progress, cancel: CancellationToken) -> String {
//!     for month in 1..=3 {
//!         tokio::select! {
//!             _ = cancel.cancelled() => return "Stopped.".into(),
//!             _ = tokio::time::sleep(Duration::from_millis(1)) => {}
//!         }
//!         progress.report(month as f64, Some(3.0), Some(&format!("month {month} of 3")));
//!     }
//!     "Report ready.".into()
//! }
//! # let _ = Server::builder().tool(quarterly_report {}).build().unwrap();
//! ```
//!
//! ## 8. Caching
//!
//! Lists and reads are never fresh unless you say so (`ttlMs: 0`): a client must not be served
//! a stale result by default. `server/discover` stays fresh for an hour (only code changes it;
//! run-time changes are announced on `subscriptions/listen` streams). Declare freshness where
//! you know it, and `private` for anything that depends on the caller.
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::CacheTarget;
//! use mcp_runtime::protocol::CacheScope;
//!
//! /// The price list (changes once a day).
//! #[resource("prices://current", cache(ttl_ms = 3_600_000, scope = "public"))]
//! fn prices() -> &'static str {
//!     "coffee 2.50"
//! }
//!
//! let server = Server::builder()
//!     .resource(prices {})
//!     .cache(CacheTarget::ResourcesList, 300_000, CacheScope::Public)
//!     .build();
//! # assert!(server.is_ok());
//! ```
//!
//! ## 9. Testing
//!
//! [`TestClient`](crate::testing::TestClient) drives a server in-process through the whole
//! pipeline: typed results, client input answered by your callbacks, notifications collected.
//! Handlers are plain functions, too: call them directly with
//! [`Progress::disabled`](crate::Progress::disabled) and
//! [`Logger::disabled`](crate::Logger::disabled).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::testing::{Elicited, TestClient};
//! use serde_json::json;
//!
//! /// Greet someone, if they agree.
//! #[tool]
//! async fn greet(
//!     name: String,
//!     #[elicit(message = "May I greet {name}?")] ok: Elicitation<String>,
//! ) -> String {
//!     match ok {
//!         Elicitation::Accepted(_) => format!("Hello, {name}!"),
//!         _ => "Maybe later.".into(),
//!     }
//! }
//!
//! let server = Server::builder().tool(greet {}).build().unwrap();
//! let client = TestClient::new(server).on_elicit(|_message, _schema| Elicited::Accept(json!({"value": "yes"})));
//! let result = client.call_tool("greet", json!({"name": "Ada"})).await.unwrap();
//! assert_eq!(result.text(), "Hello, Ada!");
//! # }
//! ```
//!
//! ## 10. Serving
//!
//! - [`Server::run`](crate::Server::run): the command line decides (`--addr`, `--stdio`); other
//!   arguments are left to your program.
//! - Your own command line (clap, say): parse it, then
//!   [`Server::run_with`](crate::Server::run_with) a [`RunMode`](crate::RunMode).
//! - [`Server::serve`](crate::Server::serve) on a listener you bound, with
//!   [`HttpOptions`](crate::HttpOptions) (allowed hosts and origins behind a proxy, body limit,
//!   keep-alive); [`Server::serve_stdio`](crate::Server::serve_stdio).
//! - Inside your own axum app, next to your routes and layers:
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//!
//! /// Say hello.
//! #[tool]
//! fn hello() -> &'static str {
//!     "Hello!"
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let mcp = Server::builder().tool(hello {}).build()?;
//!     let app = axum::Router::new()
//!         .route("/health", axum::routing::get(|| async { "ok" }))
//!         .merge(mcp.into_router(HttpOptions::default().allow_host("mcp.example.com")));
//!     let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await?;
//!     // Made into a service once (a plain `Router` rebuilds its route table for every
//!     // connection), with each connection's address: the lab page is served to loopback
//!     // clients only, and anonymous callers' shares and rate limits are counted by address,
//!     // so without it the page answers 403 and every anonymous client shares one share.
//!     let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
//!     axum::serve(listener, app).await?;
//!     Ok(())
//! }
//! ```
//!
//! Clients of the 2025-11-25 revision (most hosts today: they open with `initialize`) are served
//! by the same endpoint and the same functions; nothing to write. What your tool asks in section
//! 7 reaches them as `roots/list`, `sampling/createMessage` and `elicitation/create` requests
//! on the call's stream, and the call goes on with their answers. Their sessions live in a
//! [`SessionStore`](crate::legacy::SessionStore) (in memory unless you give another) and expire
//! after [`ServerBuilder::session_idle`](crate::ServerBuilder::session_idle);
//! [`ServerBuilder::legacy_clients(false)`](crate::ServerBuilder::legacy_clients) serves
//! 2026-07-28 clients only. Behind a load balancer, route a 2025-11-25 session's requests to
//! one instance (on `Mcp-Session-Id`): its streams live there.
//!
//! With the `lab` feature, every server also serves a page at `/lab` (to loopback clients
//! only) that runs discover, the lists, and one call, read and get from your browser, each
//! granted by you, and shows every message on the wire.
//!
//! ### Publishing to the MCP Registry
//!
//! The MCP Registry lists a server by its `server.json`: a reverse-DNS name
//! (`io.github.OWNER/NAME`), its version and description, and where to get it (a crate whose
//! binary serves stdio, a URL serving Streamable HTTP). A server run by
//! [`Server::run`](crate::Server::run) prints its own, checked against the registry's rules
//! (from code: [`Server::server_json`](crate::Server::server_json) with a
//! [`ServerJson`](crate::ServerJson)):
//!
//! ```sh
//! cargo run -- --server-json --name io.github.OWNER/weather --crate weather-mcp \
//!     --remote https://weather.example.com/mcp > server.json
//! ```
//!
//! The description is `serverInfo.description`, else the instructions, unless you give one
//! (`--description`, 100 characters at most); the crate's version is the server's unless you
//! write `--crate NAME@VERSION`. For a crate, the registry checks that its README on crates.io shows
//! the line `mcp-name: io.github.OWNER/weather` as plain text (crates.io drops HTML comments).
//! Then `cargo publish` the crate, log in with the registry's `mcp-publisher` CLI
//! (`mcp-publisher login github` for an `io.github.OWNER/` name, DNS for a domain of yours),
//! and run `mcp-publisher publish` next to `server.json`.
//!
//! ### Deploying to AWS Lambda
//!
//! With the `lambda` feature, `Server::run_lambda` serves the
//! server as a Lambda function behind a Function URL or an API Gateway HTTP API (or REST API):
//! each invocation is one request, answered by the same checks and handlers as
//! [`Server::serve`](crate::Server::serve).
//!
//! ```no_run
//! # #[cfg(feature = "lambda")]
//! # mod function {
//! use mcp_runtime::lambda::LambdaOptions;
//! use mcp_runtime::prelude::*;
//!
//! /// Say hello.
//! #[tool]
//! fn hello() -> &'static str {
//!     "Hello!"
//! }
//!
//! // One invocation at a time per instance: a single-threaded runtime starts sooner.
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> Result<(), mcp_runtime::Error> {
//!     let server = Server::from_inventory().name("hello").version("1.0.0").build()?;
//!     server.run_lambda(LambdaOptions::default()).await
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! What fits a function that is frozen once it has answered is served: discover, the lists,
//! calls, reads, prompts, completions, skills, and multi-round requests, whose retry may land
//! on any instance. Set **`MCP_STATE_KEY`** on the function (32 random bytes, base64:
//! `openssl rand -base64 32`): a server whose tools ask the client for input refuses to start
//! on Lambda without a key every instance shares. What needs a long-lived process is not: task
//! tools run to completion in their call (the tasks extension is not declared), a tool that
//! only runs as a task and `subscriptions/listen` answer with an error saying why,
//! `listChanged` and `resources.subscribe` are not advertised, and a 2025-11-25 client's
//! `initialize` gets an error naming the revision served (its session and GET stream live in
//! one process). Serve such a server from a container instead. The table is in the
//! rustdoc of `mcp_runtime::lambda`.
//!
//! Build the `bootstrap` binary for the `provided.al2023` runtime with
//! [cargo-lambda](https://www.cargo-lambda.info) (`pip install cargo-lambda`, or `cargo install
//! cargo-lambda`):
//!
//! ```sh
//! cargo lambda build --release            # target/lambda/<binary>/bootstrap
//! cargo lambda deploy --env-var MCP_STATE_KEY=$(openssl rand -base64 32) --enable-function-url
//! ```
//!
//! or, with plain cargo on x86_64 Linux, `cargo build --release --target
//! x86_64-unknown-linux-gnu` on a glibc no newer than Amazon Linux 2023's (2.34; in an
//! `amazonlinux:2023` container, say), then zip the binary as `bootstrap`. Behind a Function
//! URL (`InvokeMode: BUFFERED`, or `RESPONSE_STREAM` with
//! `LambdaOptions::response_streaming` for
//! progress as Server-Sent Events) the endpoint is `https://<id>.lambda-url.<region>.on.aws/mcp`;
//! behind an HTTP API, `https://<api-id>.execute-api.<region>.amazonaws.com/mcp` (a named
//! stage's prefix is taken off the path). The `Host` the event names is accepted; a custom
//! domain in front needs
//! [`HttpOptions::allow_host`](crate::HttpOptions::allow_host). Keep
//! [`ServerBuilder::request_timeout`](crate::ServerBuilder::request_timeout) under the gateway's
//! limit (29–30 s) and the function's timeout above it. `deploy/lambda/README.md` has the AWS
//! CLI steps for both fronts; `examples/lambda.rs` is a complete function, and
//! `cargo lambda watch` runs one locally behind the Lambda runtime emulator.
//!
//! ## 11. Protecting a server
//!
//! On a network, make the endpoint an OAuth 2.1 resource server: every request carries a
//! bearer token from your authorization server, each primitive says which scopes it needs, and
//! a caller sees and uses only what its token allows ([`auth`](crate::auth)). With the `jwt`
//! feature the built-in verifier checks JWTs against the authorization server's JWKS.
//!
//! ```no_run
//! # #[cfg(feature = "jwt")]
//! # mod protected {
//! use mcp_runtime::auth::ResourceServer;
//! use mcp_runtime::auth::jwt::JwtVerifier;
//! use mcp_runtime::prelude::*;
//! use std::time::Duration;
//!
//! /// Search the private documents.
//! #[tool(scopes = ["docs:read"])]
//! fn search(query: String) -> String {
//!     format!("results for {query}")
//! }
//!
//! /// Who am I? Any valid token will do.
//! #[tool]
//! fn whoami(caller: Caller) -> String {
//!     caller.subject
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), mcp_runtime::Error> {
//!     let uri = "https://mcp.example.com/mcp";
//!     let verifier = JwtVerifier::builder(uri)
//!         .issuer("https://auth.example.com")
//!         .jwks_url("https://auth.example.com/.well-known/jwks.json")
//!         .build()?;
//!     let auth = ResourceServer::new(uri, "https://auth.example.com", verifier)?
//!         .scopes_supported(["docs:read"]);
//!     let options = HttpOptions::default()
//!         .auth(auth)
//!         .allow_host("mcp.example.com")
//!         .rate_limit(600, Duration::from_secs(60));
//!     let server = Server::builder()
//!         .tool(search {})
//!         .tool(whoami {})
//!         .limits(Limits::default().concurrent_requests(256))
//!         .build()?;
//!     let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await?;
//!     server.serve(listener, options).await
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! In tests, `testing::TestIssuer` (feature `jwt`) mints the tokens, and
//! [`testing::TestClient::caller`](crate::testing::TestClient::caller) calls as any caller
//! without HTTP.
//!
//! ### Local callers
//!
//! A desktop host that starts the server over stdio has no token to send, so a tool with
//! `scopes = [...]` is hidden from it and refused. Say what the local user may do:
//!
//! ```
//! use mcp_runtime::prelude::*;
//!
//! /// Close a ticket.
//! #[tool(scopes = ["tickets:write"])]
//! fn close_ticket(id: u32) -> String {
//!     format!("closed #{id}")
//! }
//!
//! let server = Server::builder()
//!     .tool(close_ticket {})
//!     .stdio_caller(Caller::new("desktop-user").with_scopes(["tickets:write"]))
//!     .build();
//! # assert!(server.is_ok());
//! ```
//!
//! An HTTP endpoint without `auth` takes one explicitly, for the clients that connect from this
//! machine only (`HttpOptions::default().local_caller(caller)`): a client from any other address
//! stays anonymous, and an endpoint with `auth` refuses the setting.
//!
//! ## 12. How a host uses your server
//!
//! A host is the application the model works in (a desktop assistant, an IDE, an agent runtime);
//! it reaches your server through an MCP client, usually an official SDK's. What it sees of each
//! thing this framework serves:
//!
//! - **Tools.** `tools/list` gives each tool's name, its doc comment as the description, its
//!   `inputSchema` (and `outputSchema` for `Json<T>`) and annotations; the model picks a call and
//!   the host sends `tools/call`. The result's `content` (and `structuredContent`) goes back to
//!   the model, an `Err` of section 3 as `isError: true` that it reads and can correct, an
//!   `McpError` as a JSON-RPC error the host handles. Resources and prompts are read
//!   (`resources/read`) and got (`prompts/get`) the same way, usually at the user's request
//!   rather than the model's.
//! - **Questions (section 7).** A 2026-07-28 host gets `resultType: "input_required"` with the
//!   `inputRequests`, and calls again with `inputResponses` and the `requestState`. It writes no
//!   such loop: the SDKs answer through handlers the host registers
//!   (`client.setRequestHandler('elicitation/create', …)`, `'sampling/createMessage'` and
//!   `'roots/list'` in TypeScript; `Client(elicitation_callback=…, sampling_callback=…,
//!   list_roots_callback=…)` in Python), call again on their own, and return the final result. A
//!   2025-11-25 host gets the same questions as requests on the call's stream (section 10),
//!   answered by the same handlers. `.ci/interop/ts-client.mjs` and `py_client.py` do both.
//! - **Tasks.** A host that declares the tasks extension in a request's
//!   `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`
//!   (`{"io.modelcontextprotocol/tasks": {}}`) gets, from a `task` tool, a handle instead of
//!   the result: `{"resultType": "task", "taskId": …, "status": "working", "pollIntervalMs": …}`.
//!   It polls `tasks/get` with the `taskId` (over HTTP with an `Mcp-Name` header that repeats it)
//!   until the status is `completed` (the task's `result` is the `CallToolResult` the call would
//!   have returned), `failed` (its `error`) or `cancelled`. A task in `input_required` shows its
//!   `inputRequests`, answered with `tasks/update` (`taskId`, `inputResponses`); `tasks/cancel`
//!   fires the tool's cancellation token. Every `tasks/*` request declares the extension too, and
//!   only the caller that created a task may read it. A host that declares nothing gets a plain
//!   call result from a `task = "optional"` tool, so such a tool works with every host.
//! - **Listen streams.** `subscriptions/listen` is a request whose answer is a stream: an
//!   acknowledgement, then `notifications/tools/list_changed` (and the prompts' and resources')
//!   when the server's primitives change at run time ([`Server::add`](crate::Server::add),
//!   [`Server::remove`](crate::Server::remove)), `notifications/resources/updated` for the URIs it
//!   named ([`Server::notify_resource_updated`](crate::Server::notify_resource_updated)), and with
//!   `taskIds`, `notifications/tasks` carrying the whole task each time it changes: a push
//!   instead of polling. In the SDKs: `async with client.listen(tools_list_changed=True) as sub:`
//!   (Python), `client.listen({ toolsListChanged: true })` with the notifications delivered to
//!   `setNotificationHandler` (TypeScript). Neither SDK's listen names `taskIds` in the versions
//!   below, so the snippets poll.
//!
//! ### Getting a task's result from the official SDKs
//!
//! Neither SDK client handles tasks by itself in the versions `.ci/interop` pins (Python `mcp`
//! 2.3.0, TypeScript `@modelcontextprotocol/client` 2.4.0).
//!
//! - The Python client has the means to add an extension: a `ClientExtension` that declares it
//!   and claims the `resultType: "task"` answer of `tools/call`, whose resolver polls `tasks/get`
//!   (a request class with `name_param` gets the `Mcp-Name` header). With it installed,
//!   `client.call_tool` returns a task's result like any other.
//! - The TypeScript client refuses a `task` answer. The official `@modelcontextprotocol/ext-tasks`
//!   (0.2.2) drives tasks (`callTool`, `settle`, `cancel`, input through `onInputRequest`), but
//!   for a 2026-07-28 server it sends that traffic through a raw dispatch the host writes.
//!
//! Both excerpts below are the part between the `guide:` markers of `.ci/interop/host_tasks.py`
//! and `.ci/interop/host-tasks.mjs`, which `bash .ci/interop.sh` runs against `examples/notes`
//! (whose `reindex` tool is a task for these clients); `tests/guide_hosts.rs` fails when they
//! drift apart. Neither cancels: notes has no task slow enough to cancel before it ends (with
//! ext-tasks it is `execution.cancel()`; in Python, a `tasks/cancel` request built like
//! `GetTask`).
//!
//! Python:
//!
//! ```python
//! from typing import Literal
//!
//! import anyio
//! from mcp import types
//! from mcp.client import Client
//! from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
//!
//!
//! class CreateTaskResult(types.Result):
//!     """What `tools/call` answers when the server runs the call as a task."""
//!
//!     result_type: Literal["task"]
//!     task_id: str
//!     poll_interval_ms: int | None = None
//!
//!
//! class TaskParams(types.RequestParams):
//!     task_id: str
//!
//!
//! class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
//!     method: Literal["tasks/get"] = "tasks/get"
//!     params: TaskParams
//!     name_param = "taskId"  # mirrored in the Mcp-Name header
//!
//!
//! class DetailedTask(types.Result):
//!     """What `tasks/get` answers: the task, with its result once completed."""
//!
//!     task_id: str
//!     status: Literal["working", "input_required", "completed", "failed", "cancelled"]
//!     status_message: str | None = None
//!     result: types.CallToolResult | None = None
//!     error: types.ErrorData | None = None
//!
//!
//! async def wait_for_task(task: CreateTaskResult, ctx: ClaimContext) -> types.CallToolResult:
//!     """Polls `tasks/get` until the task ends (30 s at most), and returns its result."""
//!     print(f"task {task.task_id}")
//!     with anyio.fail_after(30):
//!         while True:
//!             got = await ctx.session.send_request(GetTask(params=TaskParams(task_id=task.task_id)), DetailedTask)
//!             print(f"{got.status}: {got.status_message or ''}")
//!             if got.status == "completed" and got.result is not None:
//!                 return got.result
//!             if got.status != "working":  # failed, cancelled, or input_required (this host gives no input)
//!                 raise RuntimeError(f"task {task.task_id} is {got.status}: {got.error or got.status_message}")
//!             await anyio.sleep((task.poll_interval_ms or 1000) / 1000)
//!
//!
//! class Tasks(ClientExtension):
//!     """The tasks extension: declared on every request; a task answer is waited for."""
//!
//!     identifier = "io.modelcontextprotocol/tasks"
//!
//!     def claims(self) -> list[ResultClaim[CreateTaskResult]]:
//!         return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=wait_for_task)]
//!
//!
//! async def main(url: str) -> None:
//!     async with Client(url, extensions=[Tasks()]) as client:
//!         for text in ["Buy milk", "Call Ada", "Water the plants"]:
//!             await client.call_tool("create_note", {"text": text})
//!         result = await client.call_tool("reindex")  # a task, waited for by wait_for_task
//!         text = "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
//!         print(f"result: {text}")
//! ```
//!
//! TypeScript:
//!
//! ```js
//! import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
//! import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
//!
//! const url = process.argv[2]; // the server's endpoint, like http://127.0.0.1:8000/mcp
//!
//! // Declare the tasks extension: every request of this client then carries it.
//! const clientInfo = { name: 'notes-host', version: '1.0.0' };
//! const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
//! const client = new Client(clientInfo, { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } });
//! const transport = new StreamableHTTPClientTransport(new URL(url));
//! await client.connect(transport);
//!
//! // The Client rejects a tools/call answered with `resultType: "task"`, so ext-tasks sends task
//! // traffic through a raw dispatch the host provides: here, the client's own transport (which
//! // sets MCP-Protocol-Version, Mcp-Method and Mcp-Name from the body), its answers taken before
//! // the Client sees them.
//! const waiting = new Map();
//! let lastId = 0;
//! const sdkOnMessage = transport.onmessage;
//! transport.onmessage = (message, extra) => {
//!   const answer = waiting.get(message.id);
//!   if (answer && !('method' in message)) answer(message);
//!   else sdkOnMessage?.(message, extra);
//! };
//! async function rawDispatch(request, { signal } = {}) {
//!   const id = `tasks-${++lastId}`;
//!   const reply = new Promise((resolve, reject) => {
//!     waiting.set(id, resolve);
//!     signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
//!   });
//!   try {
//!     await transport.send({ jsonrpc: '2.0', id, ...request }, { requestSignal: signal });
//!     const message = await reply;
//!     return 'error' in message ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result };
//!   } finally {
//!     waiting.delete(id);
//!   }
//! }
//! const tasks = createTaskSessionFromClient(client, {
//!   endpointId: url,
//!   rawDispatch,
//!   v2RequestFraming: { protocolVersion: client.getNegotiatedProtocolVersion(), clientInfo, clientCapabilities: capabilities },
//! });
//!
//! // Ordinary calls go through the Client as before.
//! for (const text of ['Buy milk', 'Call Ada', 'Water the plants']) {
//!   await client.callTool({ name: 'create_note', arguments: { text } });
//! }
//!
//! // A call the server may run as a task: an execution of kind "task" holds its handle, and
//! // settle() polls tasks/get (at the task's pollIntervalMs) until it is completed, failed or
//! // cancelled (an "immediate" one is settled already). Stop waiting after 30 s.
//! const execution = await tasks.callTool('reindex', {});
//! if (execution.kind === 'task') console.log(`task ${execution.handle.taskId}`);
//! const { outcome } = await execution.settle({
//!   signal: AbortSignal.timeout(30_000),
//!   onEvent: (event) => {
//!     if (event.type === 'task') console.log(`${event.task.status}: ${event.task.statusMessage ?? ''}`);
//!   },
//! });
//! const result = resultFromTaskOutcome(outcome); // the CallToolResult; throws if failed or cancelled
//! const text = result.content.map((block) => block.text).join('\n');
//! console.log(`result: ${text}`);
//! ```
