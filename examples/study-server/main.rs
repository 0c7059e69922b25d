//! The *study server* of seed 000: `add` with progress notifications, `prepare_review` asking the
//! client for roots, a sampled message and an elicited form through MRTR, the `config://service`
//! resource and the `review` prompt, all written as plain annotated functions.
//!
//! Run: `cargo run --example study-server` (HTTP on http://127.0.0.1:8000/mcp), or add
//! `-- --addr 127.0.0.1:9000` or `-- --stdio`. With `--features redis` and `MCP_REDIS_URL`
//! set, it shares its state with the other instances on that Redis and answers
//! `GET /health`, believing `X-Forwarded-For` from the proxies in front: `MCP_TRUSTED_PROXIES`
//! (addresses or networks, comma-separated; loopback when unset, as behind `deploy/run.sh`'s
//! nginx), and accepting the public names in `MCP_ALLOWED_HOSTS` (comma-separated) as `Host`
//! (`deploy/k8s`). Open http://127.0.0.1:8000/lab to call
//! `prepare_review` from a browser, answering its roots, sampling and elicitation questions in
//! forms (tick the three client capabilities first). Set `MCP_STATE_KEY` (32 bytes, base64) to let
//! several instances resume each other's multi-round requests.

mod server;

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    // Built with `--features redis` and given `MCP_REDIS_URL`: one of several instances sharing
    // changes, tasks and 2025-11-25 sessions through Redis, with a readiness endpoint.
    #[cfg(feature = "redis")]
    if let Some(redis) = mcp_runtime::redis::Redis::from_env().await? {
        let list = |name: &str| -> Vec<String> {
            let value = std::env::var(name).unwrap_or_default();
            value
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        };
        let mut options = mcp_runtime::HttpOptions::default()
            .health("/health")
            .ready_when(redis.ready_check())
            // Behind a proxy: its clients are told apart by the address it forwards.
            .trust_forwarded_for(true);
        let proxies = list("MCP_TRUSTED_PROXIES");
        if !proxies.is_empty() {
            options = options.trusted_proxies(proxies);
        }
        for host in list("MCP_ALLOWED_HOSTS") {
            options = options.allow_host(host);
        }
        let server = server::builder(None).redis(&redis).build()?;
        return server
            .run_with(mcp_runtime::RunMode::from_args_strict(&[])?, options)
            .await;
    }
    server::build(None)?.run().await
}
