//! Fixed resources and templates, with every attribute.
use mcp_runtime::{handler::CompletionRequest, RequestContext, Server, resource};

async fn paths(_req: CompletionRequest) -> Vec<String> {
    vec!["a".into()]
}

/// Configuration.
#[resource(
    "config://service",
    name = "config",
    title = "Config",
    description = "The configuration.",
    mime_type = "application/json",
    size = 2,
    icon(src = "https://example.com/c.png"),
    cache(ttl_ms = 1000, scope = "public")
)]
fn config() -> &'static str {
    "{}"
}

#[resource("files://{+path}", complete(path = paths), cache(ttl_ms = 10))]
async fn file(path: String, cx: RequestContext) -> Result<Vec<u8>, std::io::Error> {
    let _ = cx;
    Ok(path.into_bytes())
}

#[resource("items://{id}/v{version}", complete(version = ["1", "2"]))]
fn item(id: u64, version: Option<u8>) -> String {
    format!("{id}{version:?}")
}

pub fn main() {
    let _ = Server::builder()
        .resource(config {})
        .resource_template(file {})
        .resource_template(item {})
        .build();
    assert_eq!(config(), "{}");
}
