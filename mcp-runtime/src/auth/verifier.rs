//! Access tokens in, callers out: the pluggable verifier.

use crate::context::Caller;
use crate::registry::BoxFuture;
use std::future::Future;
use std::sync::Arc;

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is malformed, badly signed, expired, not yet valid, or not meant for this
    /// server: HTTP answers 401 `error="invalid_token"` with this description (which must never
    /// quote the token).
    Invalid(String),
    /// The token could not be checked now (the key set cannot be fetched): HTTP answers 503.
    Unavailable(String),
}

impl TokenError {
    /// An invalid token.
    pub fn invalid(description: impl Into<String>) -> Self {
        TokenError::Invalid(description.into())
    }
    /// A token that cannot be checked now.
    pub fn unavailable(description: impl Into<String>) -> Self {
        TokenError::Unavailable(description.into())
    }
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenError::Invalid(d) => write!(f, "invalid token: {d}"),
            TokenError::Unavailable(d) => write!(f, "token verification unavailable: {d}"),
        }
    }
}

impl std::error::Error for TokenError {}

/// Verifies the bearer token of a request and says who sent it. The built-in
/// `auth::jwt::JwtVerifier` (feature `jwt`) checks signed JWTs against a
/// JWKS; implement this trait for opaque tokens (introspection), API keys, or anything else.
///
/// An implementation must not log the token, and should keep verified tokens in a cache when
/// checking one is expensive: every request carries its token again.
///
/// ```
/// use mcp_runtime::auth::{TokenError, TokenVerifier, verifier_fn};
/// use mcp_runtime::Caller;
/// // One fixed key, for a demo: never do this in production.
/// let verifier = verifier_fn(|token: String| async move {
///     if token == "let-me-in" {
///         Ok(Caller::new("demo").with_scopes(["docs:read"]))
///     } else {
///         Err(TokenError::invalid("unknown token"))
///     }
/// });
/// ```
pub trait TokenVerifier: Send + Sync + 'static {
    /// The caller the token stands for, or why it is refused.
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Arc<Caller>, TokenError>>;
}

impl<V: TokenVerifier + ?Sized> TokenVerifier for Arc<V> {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Arc<Caller>, TokenError>> {
        (**self).verify(token)
    }
}

/// A [`TokenVerifier`] from an async function of the token.
pub fn verifier_fn<F, Fut>(f: F) -> impl TokenVerifier
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Caller, TokenError>> + Send + 'static,
{
    VerifierFn(f)
}

struct VerifierFn<F>(F);

impl<F, Fut> TokenVerifier for VerifierFn<F>
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Caller, TokenError>> + Send + 'static,
{
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Arc<Caller>, TokenError>> {
        let fut = (self.0)(token.to_owned());
        Box::pin(async move { fut.await.map(Arc::new) })
    }
}
