use mcp_runtime::tool;

struct Point {
    x: f64,
}

/// A tool for this test.
#[tool]
fn norm(point: Point) -> f64 {
    point.x.abs()
}

fn main() {}
