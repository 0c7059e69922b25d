//! Serves {{name}}. With `AUTH_ISSUER`, `AUTH_AUDIENCE` and `AUTH_JWKS_URL` set, over HTTP every
//! request needs an access token of that issuer; without them, only this machine's clients are
//! served, each as the local user. `cargo run` (http://127.0.0.1:8000/mcp; `-- --addr
//! HOST:PORT` to move it) or `cargo run -- --stdio`.

use mcp_runtime::{Error, HttpOptions, RunMode};
use {{module}}::Auth;

#[tokio::main]
async fn main() -> Result<(), Error> {
    let mode = RunMode::from_args_strict(&[])?;
    let options = match Auth::from_env()? {
        Some(auth) => HttpOptions::default().auth(auth.resource_server()?),
        None => {
            if let RunMode::Http(addr) = &mode
                && !addr.ip().is_loopback()
            {
                return Err(Error::Usage(format!(
                    "{addr} is reachable beyond this machine: set AUTH_ISSUER, AUTH_AUDIENCE and \
                     AUTH_JWKS_URL so that callers sign in"
                )));
            }
            eprintln!(
                "no AUTH_ISSUER: this machine's clients are served as the local user (set \
                 AUTH_ISSUER, AUTH_AUDIENCE and AUTH_JWKS_URL to verify access tokens)"
            );
            HttpOptions::default().local_caller({{module}}::local_user())
        }
    };
    {{module}}::build()?.run_with(mode, options).await
}
