//! Every kind of parameter and attribute `#[tool]` accepts.
use mcp_runtime::{
    Caller, CancellationToken, Elicitation, FromContext, Json, Logger, McpError, Progress,
    RequestContext, Roots, Sampled, Server, State, Structured, tool,
};

struct Db;
struct Tenant(String);

impl FromContext for Tenant {
    fn from_context(cx: &RequestContext) -> Result<Self, McpError> {
        Ok(Tenant(cx.method().to_owned()))
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Filter {
    /// Only these tags.
    tags: Vec<String>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Out {
    n: usize,
}

/// Everything at once.
#[tool(
    name = "everything.v1",
    title = "Everything",
    description = "Overrides the doc comment.",
    annotations(read_only, destructive = false, idempotent, open_world = false, title = "All"),
    icon(src = "https://example.com/a.png", mime_type = "image/png", sizes = "48x48"),
    icon(src = "https://example.com/b.svg", theme = "dark"),
    meta = serde_json::json!({"com.example/x": 1})
)]
pub async fn everything(
    /// The query.
    #[schemars(length(min = 1, max = 100))]
    query: String,
    #[serde(rename = "maxResults", default)] max_results: Option<u32>,
    filter: Filter,
    #[arg] r#type: String,
    cx: RequestContext,
    progress: Progress,
    logger: Logger,
    cancel: CancellationToken,
    State(_db): State<Db>,
    caller: Option<Caller>,
    #[ctx] tenant: Tenant,
    #[roots] roots: Option<Roots>,
    #[sample(
        prompt = "Say hi.",
        max_tokens = 10,
        system_prompt = "Be brief.",
        key = "hi"
    )]
    hi: Option<Sampled>,
    #[elicit(message = "Your name?")] name: Option<Elicitation<String>>,
) -> Result<Json<Out>, String> {
    let _ = (
        max_results,
        filter,
        r#type,
        cx,
        progress,
        logger,
        cancel,
        caller,
        tenant,
        roots,
        hi,
        name,
    );
    Ok(Json(Out { n: query.len() }))
}

#[tool]
fn plain() {}

#[tool]
fn structured() -> Structured<serde_json::Value> {
    Structured::new(serde_json::json!({})).text("ok")
}

#[tool]
async fn impl_return() -> impl mcp_runtime::handler::IntoToolResult {
    "ok"
}

/// Runs as a task when the client declares the tasks extension.
#[tool(task = "optional")]
async fn maybe_task() -> &'static str {
    "ok"
}

/// Runs only as a task.
#[tool(task = "required")]
async fn only_task(progress: Progress) -> &'static str {
    progress.report(1.0, None, Some("done"));
    "ok"
}

mod nested {
    use mcp_runtime::tool;
    /// Visible from outside.
    #[tool]
    pub fn inner(x: i64) -> i64 {
        x
    }
}

pub fn main() {
    let _ = Server::builder()
        .state(Db)
        .tool(everything {})
        .tool(plain {})
        .tool(structured {})
        .tool(impl_return {})
        .tool(nested::inner {})
        .build();
    plain();
    assert_eq!(nested::inner(2), 2);
}

fn two() -> u32 {
    2
}

fn lenient<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v: serde_json::Value = serde::Deserialize::deserialize(d)?;
    Ok(v.as_u64().and_then(|n| u32::try_from(n).ok()).unwrap_or(0))
}

/// Serde attributes that name functions keep working.
#[tool]
pub fn custom_serde(
    #[serde(default = "two")] a: u32,
    #[serde(deserialize_with = "lenient")]
    #[schemars(with = "u32")]
    b: u32,
    #[serde(default, alias = "see")] c: Option<String>,
) -> String {
    format!("{a}{b}{c:?}")
}
