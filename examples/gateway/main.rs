//! A gateway: the MCP servers of an `mcpServers` file (the format hosts use) served as one.
//!
//! Each entry is a server over stdio (`command`, `args`, `env`) or Streamable HTTP (`url`,
//! `headers`), mounted under its name as the prefix of its tools and prompts
//! (`weather_forecast`), or under the entry's own `"prefix"` (`""` mounts it flat, names
//! unchanged). `"uris": "prefix"` rewrites its resource URIs too. `${VAR}` in `env`,
//! `headers` and OAuth values is read from the gateway's environment, so no secret is written
//! in the file. An HTTP backend may take a token of the gateway's own (`"oauth": {"tokenUrl",
//! "clientId", "clientSecret", "scope", "resource"}`: client credentials); the caller's own
//! token reaches a backend only through `"tokenExchange"` (RFC 8693, same fields) or the
//! explicit `"forwardCallerToken": true`, both for a gateway that verifies its callers' tokens. Requests for client input, progress
//! and tasks pass through; a backend that is down answers its own primitives with an error
//! naming it while the others keep working. The gateway's `serverInfo` and instructions are
//! its own, or, with `"serverInfoFrom": "NAME"` beside `mcpServers`, those of that entry.
//!
//! Run it with `cargo run --example gateway -- --config examples/gateway/servers.json` (HTTP
//! on http://127.0.0.1:8000/mcp; `--addr HOST:PORT` elsewhere) or add `--stdio`.

mod config;

use mcp_runtime::Server;
use mcp_runtime::proxy::Mount;

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let mode = mcp_runtime::RunMode::from_args_strict(&["--config FILE"])?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    // What the gateway says of its backends (one down, a list that does not build) goes to
    // stderr, never stdout (stdout is the protocol with --stdio).
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::INFO)
        .init();
    let path = config::path_from(&args).map_err(mcp_runtime::Error::Usage)?;
    let config = config::read(&path).map_err(mcp_runtime::Error::Usage)?;
    let mut builder = Server::builder()
        .name("gateway")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("Tools and prompts of several MCP servers, each behind its prefix.");
    for entry in config.entries {
        if config.server_info_from.as_deref() != Some(entry.name()) {
            let (prefix, mount) = entry.mount().map_err(mcp_runtime::Error::Usage)?;
            builder = builder.mount(prefix, mount);
            continue;
        }
        // The gateway shows this server's serverInfo and instructions as its own.
        let (prefix, client, uris) = entry.connect().map_err(mcp_runtime::Error::Usage)?;
        let found = client
            .request("server/discover", serde_json::json!({}))
            .await
            .map_err(|e| {
                mcp_runtime::Error::Usage(format!(
                    "`serverInfoFrom`: `{}` did not answer server/discover: {e}",
                    entry.name()
                ))
            })?;
        let info = found["_meta"]["io.modelcontextprotocol/serverInfo"].clone();
        if let Ok(info) = serde_json::from_value(info) {
            builder = builder.info(info);
        }
        if let Some(text) = found["instructions"].as_str() {
            builder = builder.instructions(text);
        }
        let mount = Mount::from(client).uris(uris).name(entry.name());
        builder = builder.mount(prefix, mount);
    }
    builder
        .build()?
        .run_with(mode, mcp_runtime::HttpOptions::default())
        .await
}
