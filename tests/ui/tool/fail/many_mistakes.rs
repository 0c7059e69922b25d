use mcp_runtime::tool;

#[tool(name = "bad name!", colour = "blue", title = 1)]
fn several<T>(
    &self,
    #[ctx]
    #[arg]
    x: i64,
    #[serde(rename = "y")] cx: mcp_runtime::RequestContext,
) -> i64 {
    x
}

fn main() {}
