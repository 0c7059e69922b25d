//! MCP Apps (the `io.modelcontextprotocol/ui` extension): tools whose results a host shows in
//! an interactive view, a `ui://` HTML document rendered in a sandboxed frame that can call the
//! server's tools back through the host.
//!
//! It shows:
//!
//! * a kanban board (`show_board`, `add_card`, and `move_card`, which only the app calls:
//!   `visibility = ["app"]`) whose view is written with the official `App` class of
//!   `@modelcontextprotocol/ext-apps`, the SDK embedded in the binary at compile time
//!   (`app_sdk!`, `UiResource::app_sdk`);
//! * the team's notes (`search_notes`, `read_note`): a knowledge-base search view on the same
//!   `App` class, in a few lines of Rust (`notes.rs`); with `--app-sdk-url URL` both views import
//!   the SDK from that URL instead, which joins their CSP's `resourceDomains`;
//! * views with no HTML at all: `list_cards` (a table), `card_counts` (a bar chart) and
//!   `get_card` (a form), each generated from its tool's result type (`#[tool(view = "…")]`);
//! * a bar chart of a tool's structured result (`chart`), whose view speaks the raw protocol
//!   over `postMessage` and is embedded at compile time (`include_str!`);
//! * a resource that is not a view (`board://guide`), which the board's view reads when asked:
//!   a host lets it through only with the person's grant;
//! * every tool answering any client with meaningful text: a host that does not render apps
//!   shows the text.
//!
//! Run: `npm ci --prefix examples/apps` (the ext-apps SDK, once, before building), then
//! `cargo run --example apps` (HTTP on http://127.0.0.1:8000/mcp; its lab page at
//! http://127.0.0.1:8000/lab renders the views), or add `-- --addr 127.0.0.1:9000` or
//! `-- --stdio`. `-- --audit` writes each call and read the server receives to stderr.

mod server;

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let mode = mcp_runtime::RunMode::from_args_strict(&["--audit", "--app-sdk-url URL"])?;
    let args: Vec<String> = std::env::args().collect();
    // `--app-sdk-url URL` or `--app-sdk-url=URL`, as the strict parse above takes either.
    let url =
        args.iter()
            .enumerate()
            .find_map(|(i, arg)| match arg.strip_prefix("--app-sdk-url")? {
                "" => args.get(i + 1).cloned(),
                inline => inline.strip_prefix('=').map(str::to_owned),
            });
    let builder = server::builder(server::app_sdk(url.as_deref()));
    let server = match args.iter().any(|a| a == "--audit") {
        true => builder.layer(audit()).build()?,
        false => builder.build()?,
    };
    server
        .run_with(mode, mcp_runtime::HttpOptions::default())
        .await
}

/// One `audit: METHOD NAME OUTCOME` line on stderr for each request (what the lab page's
/// browser test checks on the server's side).
fn audit() -> mcp_runtime::layers::AuditLog {
    mcp_runtime::layers::AuditLog::with_sink(|record| {
        eprintln!(
            "audit: {} {} {}",
            record.method,
            record.name.unwrap_or("-"),
            record.outcome
        )
    })
}
