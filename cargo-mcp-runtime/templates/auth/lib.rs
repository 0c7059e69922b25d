//! The {{name}} server, for signed-in callers: over HTTP every request carries an OAuth access
//! token from your authorization server, and `publish` also needs the `notes:write` scope.
//! Over stdio the caller is the person who started the server (a desktop host has no token).

use mcp_runtime::auth::ResourceServer;
use mcp_runtime::auth::jwt::JwtVerifier;
use mcp_runtime::prelude::*;

/// The scope `publish` needs.
pub const WRITE: &str = "notes:write";

/// Who is calling, as their access token says.
#[tool(annotations(read_only))]
pub fn whoami(caller: Caller) -> String {
    format!("You are {}.", caller.subject)
}

/// Publish a note for the team.
#[tool(scopes = ["notes:write"])]
pub fn publish(
    /// The note's text.
    text: String,
    caller: Caller,
) -> String {
    format!("{} published: {text}", caller.subject)
}

/// The person who started the server, with every scope: the caller over stdio, and over HTTP
/// on this machine when no authorization server is configured.
pub fn local_user() -> Caller {
    let name = std::env::var("USER").unwrap_or_else(|_| "local-user".to_owned());
    Caller::new(name).with_scopes([WRITE])
}

/// The server: everything marked above, found at link time.
pub fn build() -> Result<Server, BuildError> {
    Server::from_inventory()
        .name("{{name}}")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("Publishes notes for the team. whoami says who the server takes you for.")
        .stdio_caller(local_user())
        .build()
}

/// Where access tokens come from and whom they are for, from the environment:
/// `AUTH_ISSUER` (the authorization server's issuer URL), `AUTH_AUDIENCE` (this server's public
/// URL, `https://…/mcp`, which tokens must name) and `AUTH_JWKS_URL` (the issuer's signing keys).
#[derive(Debug, Clone)]
pub struct Auth {
    /// The tokens' issuer (`iss`).
    pub issuer: String,
    /// This server's public URL (the tokens' `aud`).
    pub audience: String,
    /// Where the issuer publishes its keys (`jwks_uri` in its metadata).
    pub jwks_url: String,
}

impl Auth {
    /// The three variables, or `None` when none is set (an error when only some are).
    pub fn from_env() -> Result<Option<Auth>, Error> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        match (var("AUTH_ISSUER"), var("AUTH_AUDIENCE"), var("AUTH_JWKS_URL")) {
            (None, None, None) => Ok(None),
            (Some(issuer), Some(audience), Some(jwks_url)) => Ok(Some(Auth {
                issuer,
                audience,
                jwks_url,
            })),
            _ => Err(Error::Usage(
                "set all three of AUTH_ISSUER, AUTH_AUDIENCE and AUTH_JWKS_URL, or none".to_owned(),
            )),
        }
    }

    /// The resource server: tokens checked against the issuer's keys, and the metadata
    /// (RFC 9728) that tells clients where to sign in.
    pub fn resource_server(&self) -> Result<ResourceServer, BuildError> {
        let verifier = JwtVerifier::builder(&self.audience)
            .issuer(&self.issuer)
            .jwks_url(&self.jwks_url)
            .build()?;
        resource_server(&self.audience, &self.issuer, verifier)
    }
}

/// The resource server for the tokens `verifier` accepts (the tests give it a test issuer's).
pub fn resource_server(
    audience: &str,
    issuer: &str,
    verifier: JwtVerifier,
) -> Result<ResourceServer, BuildError> {
    Ok(ResourceServer::new(audience, issuer, verifier)?
        .scopes_supported([WRITE])
        .resource_name("{{name}}"))
}
