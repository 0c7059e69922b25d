// A skill whose frontmatter uses the reserved metadata prefix: the error names the file and the rule.
use mcp_runtime::{Server, skills};

fn main() {
    let _ = Server::builder().skills(skills!("broken"));
}
