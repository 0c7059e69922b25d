//! What the gateway tests share: a notes server to mount, a front mounting it, and loopback
//! HTTP serving that records the `Authorization` headers it receives.

use mcp_runtime::apps::UiResource;
use mcp_runtime::proxy::Mount;
use mcp_runtime::{
    Ask, Elicitation, FromContext, HttpOptions, NoArguments, Prompt, Resource, ResourceTemplate,
    Rounds, Server, Step, Tool,
};
use serde::Deserialize;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Deserialize, schemars::JsonSchema)]
pub struct Query {
    /// What to look for.
    pub query: String,
}

/// A notes server: a tool linked to a view, one asking for confirmation, one reporting
/// progress, one behind a scope, a resource, a template and a prompt.
pub fn notes(name: &str) -> Server {
    Server::builder()
        .name(name)
        .tool(
            Tool::new("search")
                .description("Searches the notes.")
                .ui("ui://search/view.html")
                .handler(|q: Query, _cx| async move { format!("found {}", q.query) }),
        )
        .resource(UiResource::new("ui://search/view.html", "search-view").html("<p>results</p>"))
        .tool(
            Tool::new("confirm")
                .asks_client_input()
                .raw_handler(|call| async move {
                    let rounds = Rounds::from_context(&call.context)?;
                    let step: Step<String> = match rounds.answer::<Elicitation<String>>("ok")? {
                        None => {
                            rounds.ask(Ask::new().elicit::<String>("ok", "Delete it?"), &7u32)?
                        }
                        Some(Elicitation::Accepted(word)) => {
                            let carried: Option<u32> = rounds.state()?;
                            Step::Done(format!("deleted ({word}, {carried:?})"))
                        }
                        Some(_) => Step::Done("kept".into()),
                    };
                    mcp_runtime::handler::IntoToolResult::into_tool_result(step)
                }),
        )
        .tool(Tool::new("count").handler(
            |_: NoArguments, cx: mcp_runtime::RequestContext| async move {
                let progress = cx.progress();
                for i in 1..=3 {
                    progress.report(f64::from(i), Some(3.0), None);
                }
                "counted"
            },
        ))
        .tool(
            Tool::new("purge")
                .scopes(["notes:write"])
                .handler(|_: NoArguments, _cx| async { "purged" }),
        )
        .resource(Resource::new("notes://today", "today").handler(|_read| async { "buy milk" }))
        .resource_template(
            ResourceTemplate::new("notes://topics/{topic}", "topic")
                .handler(|read| async move { format!("notes on {}", read.variables["topic"]) }),
        )
        .prompt(
            Prompt::new("greet")
                .argument("name", None, true)
                .handler(|get| async move { format!("Say hello to {}.", get.arguments["name"]) }),
        )
        .build()
        .unwrap()
}

pub fn front(mount: Mount) -> Server {
    Server::builder()
        .name("front")
        .tool(Tool::new("ping").handler(|_: NoArguments, _cx| async { "pong" }))
        .mount("kb", mount)
        .build()
        .unwrap()
}

/// Serves `server` on a loopback port until the returned sender fires (or is dropped), with
/// every `Authorization` header it receives recorded.
pub async fn serve(
    server: Server,
    addr: Option<SocketAddr>,
) -> (
    SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    Arc<Mutex<Vec<String>>>,
) {
    let addr = addr.unwrap_or_else(|| "127.0.0.1:0".parse().unwrap());
    let listener = loop {
        match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => break l,
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    serve_on(listener, server, HttpOptions::default())
}

pub use super::common::recorded::serve_on;

pub fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}
