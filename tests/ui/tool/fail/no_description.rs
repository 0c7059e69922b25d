#![deny(deprecated)] // the warning, made an error so that its wording is pinned here

use mcp_runtime::tool;

#[tool]
fn undocumented(a: i64) -> i64 {
    a
}

fn main() {}
