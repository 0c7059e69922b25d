use mcp_runtime::resource;

#[resource("files://{a}{b}")]
fn adjacent(a: String, b: String) -> String {
    a + &b
}

#[resource("files://{?query}")]
fn query(query: String) -> String {
    query
}

#[resource("no-scheme/{id}")]
fn no_scheme(id: String) -> String {
    id
}

fn main() {}
