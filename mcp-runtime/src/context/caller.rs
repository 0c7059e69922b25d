//! Who is calling: the identity an authentication layer attached to the request.

use serde_json::{Map, Value};
use std::sync::{Arc, OnceLock};

/// The authenticated caller of a request: what a [`TokenVerifier`](crate::auth::TokenVerifier)
/// read from its access token. A handler takes it as a parameter (`caller: Caller`, or
/// `Option<Caller>` where anonymous calls are allowed).
///
/// ```
/// use mcp_runtime::Caller;
/// let caller = Caller::new("user-17")
///     .with_issuer("https://auth.example.com")
///     .with_scopes(["docs:read"])
///     .with_claim("tenant", "acme");
/// assert!(caller.has_scope("docs:read"));
/// assert_eq!(caller.claim("tenant").unwrap(), "acme");
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Caller {
    /// Stable subject identifier (the token's `sub`).
    pub subject: String,
    /// Who vouched for the subject (the token's `iss`), when known.
    pub issuer: Option<String>,
    /// Granted scopes.
    pub scopes: Vec<String>,
    /// Every claim of the token (or whatever the verifier chose to keep).
    pub claims: Map<String, Value>,
    /// What a `requestState` is bound to, made once (a verified token's caller is cached and
    /// serves every request that shows the token).
    key: OnceLock<Arc<str>>,
    /// The access token as the caller sent it: kept only when a mount passes it on or
    /// exchanges it (never printed).
    token: Option<CallerToken>,
}

/// A caller's access token, which `Debug` does not print.
#[derive(Clone, Default)]
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(crate) struct CallerToken(pub(crate) Arc<str>);

impl std::fmt::Debug for CallerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallerToken(…)")
    }
}

impl PartialEq for Caller {
    fn eq(&self, other: &Self) -> bool {
        self.subject == other.subject
            && self.issuer == other.issuer
            && self.scopes == other.scopes
            && self.claims == other.claims
    }
}

impl Eq for Caller {}

impl Caller {
    /// A caller with no scopes and no claims.
    pub fn new(subject: impl Into<String>) -> Self {
        Caller {
            subject: subject.into(),
            ..Caller::default()
        }
    }
    /// Adds scopes.
    #[must_use]
    pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }
    /// Sets the issuer.
    #[must_use]
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }
    /// Adds a claim.
    #[must_use]
    pub fn with_claim(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.claims.insert(name.into(), value.into());
        self
    }
    /// Whether a scope was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
    /// Whether every one of `scopes` was granted.
    pub fn has_scopes<S: AsRef<str>>(&self, scopes: &[S]) -> bool {
        scopes.iter().all(|s| self.has_scope(s.as_ref()))
    }
    /// A claim of the token.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }
    /// This caller with the access token it sent (for a mount that passes it on).
    pub(crate) fn with_token(&self, token: &str) -> Caller {
        let mut caller = self.clone();
        caller.token = Some(CallerToken(Arc::from(token)));
        caller
    }
    /// The access token the caller sent, when it was kept.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) fn token(&self) -> Option<&str> {
        self.token.as_ref().map(|t| &*t.0)
    }
    /// What a `requestState` is bound to: the subject, qualified by its issuer (two issuers may
    /// hand out the same subject).
    pub(crate) fn binding_key(&self) -> Arc<str> {
        self.key
            .get_or_init(|| match &self.issuer {
                None => Arc::from(self.subject.as_str()),
                Some(iss) => Arc::from(format!("{iss}\n{}", self.subject)),
            })
            .clone()
    }
}

/// Whose share of a server-wide pool a request draws on: its authenticated caller, else the
/// address of the client that sent it. A request with neither (stdio, in-process) has no share
/// to keep: it is one client.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ShareKey {
    /// An authenticated caller: issuer and subject ([`Caller::binding_key`]).
    Principal(Arc<str>),
    /// An anonymous client, by address (an IPv6 one by its network).
    Address(crate::net::ClientNet),
}

impl ShareKey {
    /// The key of a request: its caller's, else its client address's.
    pub(crate) fn of(
        caller: Option<&Caller>,
        client: Option<crate::net::ClientNet>,
    ) -> Option<Self> {
        match caller {
            Some(c) => Some(ShareKey::Principal(c.binding_key())),
            None => client.map(ShareKey::Address),
        }
    }
}

impl std::fmt::Display for ShareKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShareKey::Principal(key) => f.write_str(&key.replace('\n', " ")),
            ShareKey::Address(ip) => write!(f, "{ip}"),
        }
    }
}
