//! OAuth 2.0 Protected Resource Metadata (RFC 9728): the document that tells a client which
//! authorization servers issue tokens for this server, and where it is published.

use crate::net::{host_part, is_loopback};
use serde::Serialize;

/// The protected resource metadata document of an MCP server.
///
/// ```
/// use mcp_runtime::auth::ProtectedResourceMetadata;
/// let m = ProtectedResourceMetadata {
///     resource: "https://mcp.example.com/mcp".into(),
///     authorization_servers: vec!["https://auth.example.com".into()],
///     scopes_supported: vec!["docs:read".into()],
///     bearer_methods_supported: vec!["header".into()],
///     resource_name: None,
///     resource_documentation: None,
///     dpop_signing_alg_values_supported: vec!["ES256".into()],
///     dpop_bound_access_tokens_required: false,
/// };
/// let doc = serde_json::to_value(&m).unwrap();
/// assert_eq!(doc["resource"], "https://mcp.example.com/mcp");
/// assert_eq!(doc["dpop_signing_alg_values_supported"][0], "ES256");
/// assert!(doc.get("dpop_bound_access_tokens_required").is_none(), "false is left out");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtectedResourceMetadata {
    /// The server's canonical URI: what tokens must name as their audience.
    pub resource: String,
    /// Issuers of the authorization servers (at least one).
    pub authorization_servers: Vec<String>,
    /// The baseline scopes a client should ask for (never `offline_access`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// How tokens are presented: only the `Authorization` header.
    pub bearer_methods_supported: Vec<String>,
    /// A human-readable name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// Where developers read about the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<String>,
    /// The algorithms DPoP proofs may be signed with (RFC 9449 §5.1), when DPoP-bound tokens
    /// are taken (`ResourceServer::dpop`, feature `jwt`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dpop_signing_alg_values_supported: Vec<String>,
    /// Only DPoP-bound tokens are taken (RFC 9449 §5.2); left out when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dpop_bound_access_tokens_required: bool,
}

/// The well-known path prefix of the document.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// A canonical resource URI taken apart: `scheme://authority` and the path (no query, no
/// fragment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourceUri {
    pub(crate) origin: String,
    pub(crate) path: String,
}

impl ResourceUri {
    /// Checks a canonical server URI: absolute `https` (or `http` on a loopback host), with a
    /// host, no fragment, no query, no user info.
    pub(crate) fn parse(uri: &str) -> Result<ResourceUri, String> {
        let bad = |why: &str| format!("the resource URI `{uri}` {why}");
        let (scheme, rest) = uri
            .split_once("://")
            .ok_or_else(|| bad("is not absolute (expected https://host/path)"))?;
        let scheme = scheme.to_ascii_lowercase();
        if uri.contains('#') {
            return Err(bad("must not have a fragment"));
        }
        if uri.contains('?') {
            return Err(bad("must not have a query"));
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if authority.is_empty() {
            return Err(bad("has no host"));
        }
        if authority.contains('@') {
            return Err(bad("must not carry user information"));
        }
        match scheme.as_str() {
            "https" => {}
            "http" if is_loopback(host_part(authority)) => {}
            "http" => return Err(bad("must use https (plain http only on a loopback host)")),
            _ => return Err(bad("must use https")),
        }
        Ok(ResourceUri {
            origin: format!("{scheme}://{}", authority.to_ascii_lowercase()),
            path: path.trim_end_matches('/').to_owned(),
        })
    }

    /// The path-suffixed well-known path of the document (the root one when the URI has no
    /// path).
    pub(crate) fn metadata_path(&self) -> String {
        format!("{WELL_KNOWN}{}", self.path)
    }

    /// The URL of the document, as challenges name it.
    pub(crate) fn metadata_url(&self) -> String {
        format!("{}{}", self.origin, self.metadata_path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_uris_and_their_documents() {
        let r = ResourceUri::parse("https://MCP.example.com/public/mcp/").unwrap();
        assert_eq!(r.origin, "https://mcp.example.com");
        assert_eq!(
            r.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp"
        );
        let root = ResourceUri::parse("https://mcp.example.com").unwrap();
        assert_eq!(root.metadata_path(), WELL_KNOWN);
        assert!(ResourceUri::parse("http://127.0.0.1:8000/mcp").is_ok());
        assert!(ResourceUri::parse("http://[::1]:8000/mcp").is_ok());
        for bad in [
            "mcp.example.com/mcp",
            "http://mcp.example.com/mcp",
            "https://mcp.example.com/mcp#x",
            "https://mcp.example.com/mcp?x=1",
            "https://user@mcp.example.com/mcp",
            "ftp://mcp.example.com/mcp",
            "https:///mcp",
        ] {
            assert!(ResourceUri::parse(bad).is_err(), "{bad}");
        }
    }
}
