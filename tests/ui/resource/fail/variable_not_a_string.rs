use mcp_runtime::resource;

/// A template variable arrives as one string: a list is refused at its type.
#[resource("files://{names}")]
fn files(names: Vec<String>) -> String {
    names.join(",")
}

fn main() {}
