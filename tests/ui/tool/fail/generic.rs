use mcp_runtime::tool;

#[tool]
fn echo<T: serde::de::DeserializeOwned + schemars::JsonSchema + ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}
