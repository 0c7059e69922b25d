//! [`JwtOrOpaque`]: a JWT checked locally, any other token by another verifier (introspection).

use super::super::jwt::JwtVerifier;
use super::super::verifier::{TokenError, TokenVerifier};
use crate::context::Caller;
use crate::registry::BoxFuture;
use std::sync::Arc;

/// Checks a token shaped as a JWT (three base64url parts, a JSON header naming an `alg`) with a
/// [`JwtVerifier`], and any other token with `V` (usually an
/// [`IntrospectionVerifier`](super::IntrospectionVerifier)): for an authorization server that
/// issues both, or one moving from opaque tokens to JWTs. A JWT that fails is refused; it is
/// not sent to introspection.
///
/// ```
/// use mcp_runtime::auth::introspect::{IntrospectionVerifier, JwtOrOpaque};
/// use mcp_runtime::auth::jwt::JwtVerifier;
///
/// let audience = "https://mcp.example.com/mcp";
/// let jwt = JwtVerifier::builder(audience)
///     .issuer("https://auth.example.com")
///     .jwks_url("https://auth.example.com/jwks")
///     .build()
///     .unwrap();
/// let opaque = IntrospectionVerifier::builder(audience)
///     .endpoint("https://auth.example.com/introspect")
///     .client_secret_post("mcp-server", "its-secret")
///     .build()
///     .unwrap();
/// let verifier = JwtOrOpaque::new(jwt, opaque);
/// ```
#[derive(Debug, Clone)]
pub struct JwtOrOpaque<V> {
    jwt: JwtVerifier,
    opaque: V,
}

impl<V: TokenVerifier> JwtOrOpaque<V> {
    /// JWTs to `jwt`, the other tokens to `opaque`.
    pub fn new(jwt: JwtVerifier, opaque: V) -> Self {
        JwtOrOpaque { jwt, opaque }
    }
}

/// Whether `token` is shaped as a JWS compact serialization with a JSON header naming an
/// algorithm (an opaque token may hold dots; its first part is no such header).
fn looks_like_jwt(token: &str) -> bool {
    use base64::Engine;
    let mut parts = token.split('.');
    let (Some(head), Some(_), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    if head.len() > 4096 {
        return false;
    }
    let Ok(bytes) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(head) else {
        return false;
    };
    crate::json::from_bytes::<serde_json::Map<String, serde_json::Value>>(&bytes)
        .is_ok_and(|h| h.get("alg").is_some_and(serde_json::Value::is_string))
}

impl<V: TokenVerifier> TokenVerifier for JwtOrOpaque<V> {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Arc<Caller>, TokenError>> {
        if looks_like_jwt(token) {
            self.jwt.verify(token)
        } else {
            self.opaque.verify(token)
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_jwt_is_told_from_an_opaque_token() {
        // {"alg":"RS256","typ":"JWT"}
        assert!(super::looks_like_jwt(
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.e30.c2ln"
        ));
        assert!(!super::looks_like_jwt("Dq7n2pSa3Kx0wbQ-JmZ1fA"));
        assert!(!super::looks_like_jwt("a.b.c"), "dots alone make no JWT");
        assert!(
            !super::looks_like_jwt("e30.e30.e30"),
            "a header naming no alg"
        );
        assert!(!super::looks_like_jwt(
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.e30.c2ln.x"
        ));
    }
}
