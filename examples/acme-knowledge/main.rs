//! The *Acme Knowledge* server of seed 002: a small document store searched for real by
//! `search_private_docs` (structured content), `get_document`, two policy resources and the
//! `draft_policy_brief` prompt, each primitive registered explicitly in the seed's order.
//!
//! Run: `cargo run --example acme-knowledge` (HTTP on http://127.0.0.1:8000/mcp), or add
//! `-- --addr 127.0.0.1:9000` or `-- --stdio`. Without more flags it answers exactly as the
//! seed's transcript shows. Open http://127.0.0.1:8000/lab in a browser to run that transcript
//! from the lab page, granting or denying each primitive yourself. `-- --audit` writes each
//! call, read and get the server receives to stderr.
//!
//! As an OAuth-protected resource server: `-- --jwks keys.json --audience
//! https://mcp.example.com/mcp --issuer https://auth.example.com`. Every request then needs a
//! JWT access token (`Authorization: Bearer …`) signed by a key of the JWKS file, issued by
//! the issuer for the audience; `search_private_docs` also needs the `docs:read` scope, while
//! `get_document`, the resources and the prompt need none. The protected resource metadata is
//! served at `/.well-known/oauth-protected-resource/mcp` (path of the audience).

mod server;

use mcp_runtime::auth::ResourceServer;
use mcp_runtime::auth::jwt::JwtVerifier;
use mcp_runtime::{Error, HttpOptions, RunMode};

/// `--jwks FILE --audience URI --issuer URL`, when given.
struct AuthFlags {
    jwks: String,
    audience: String,
    issuer: String,
}

fn auth_flags() -> Result<Option<AuthFlags>, Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| -> Result<Option<String>, Error> {
        match args.iter().position(|a| a == flag) {
            None => Ok(None),
            Some(i) => match args.get(i + 1) {
                Some(v) if !v.starts_with("--") => Ok(Some(v.clone())),
                _ => Err(Error::Usage(format!("{flag} needs a value"))),
            },
        }
    };
    match (value("--jwks")?, value("--audience")?, value("--issuer")?) {
        (None, None, None) => Ok(None),
        (Some(jwks), Some(audience), Some(issuer)) => Ok(Some(AuthFlags {
            jwks,
            audience,
            issuer,
        })),
        _ => Err(Error::Usage(
            "the auth mode needs all of --jwks FILE --audience URI --issuer URL".to_owned(),
        )),
    }
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let mode =
        RunMode::from_args_strict(&["--audit", "--jwks FILE", "--audience URI", "--issuer URL"])?;
    let builder = match std::env::args().any(|a| a == "--audit") {
        true => server::builder().layer(server::audit()),
        false => server::builder(),
    };
    let Some(flags) = auth_flags()? else {
        return builder
            .build()?
            .run_with(mode, HttpOptions::default())
            .await;
    };
    let verifier = JwtVerifier::builder(&flags.audience)
        .issuer(&flags.issuer)
        .jwks_file(&flags.jwks)
        .build()?;
    let resource_server = ResourceServer::new(&flags.audience, &flags.issuer, verifier)?
        .scopes_supported(["docs:read"])
        .resource_name("Acme Knowledge");
    eprintln!(
        "OAuth: tokens from {} for {}; metadata at {}",
        flags.issuer,
        flags.audience,
        resource_server.metadata_url()
    );
    let options = HttpOptions::default().auth(resource_server);
    server::protect(builder)
        .build()?
        .run_with(mode, options)
        .await
}
