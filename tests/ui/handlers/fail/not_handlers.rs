use mcp_runtime::Server;

struct Plain;

fn main() {
    let _ = Server::builder().handlers(Plain);
}
