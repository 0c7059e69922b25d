//! This server as an OAuth 2.1 resource server: how its HTTP endpoint authenticates callers and
//! what its protected resource metadata says.

#[cfg(feature = "jwt")]
use super::dpop::{Dpop, DpopCheck};
use super::metadata::{ProtectedResourceMetadata, ResourceUri};
use super::verifier::TokenVerifier;
use crate::error::BuildError;
use std::sync::Arc;

/// How the Streamable HTTP endpoint authenticates: the token verifier, the server's canonical
/// URI (the audience tokens must name), the authorization servers and the baseline scopes its
/// metadata document publishes. Give it to [`HttpOptions::auth`](crate::HttpOptions::auth).
///
/// Every request must then carry `Authorization: Bearer <token>` (unless
/// [`allow_anonymous`](Self::allow_anonymous)); a missing or invalid token is answered with 401
/// and a `WWW-Authenticate` challenge naming the metadata document (served at
/// `/.well-known/oauth-protected-resource` plus the URI's path, and at the root well-known URI)
/// and the scopes the operation needs.
///
/// ```
/// use mcp_runtime::auth::{ResourceServer, TokenError, verifier_fn};
/// use mcp_runtime::HttpOptions;
/// let verifier = verifier_fn(|_token: String| async { Err(TokenError::invalid("demo")) });
/// let rs = ResourceServer::new("https://mcp.example.com/mcp", "https://auth.example.com", verifier)
///     .unwrap()
///     .scopes_supported(["docs:read"]);
/// assert_eq!(
///     rs.metadata_url(),
///     "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// let options = HttpOptions::default().auth(rs);
/// ```
#[derive(Clone)]
#[must_use]
pub struct ResourceServer {
    pub(crate) verifier: Arc<dyn TokenVerifier>,
    pub(crate) uri: ResourceUri,
    pub(crate) metadata: ProtectedResourceMetadata,
    pub(crate) anonymous: bool,
    /// Scopes primitives may require beyond the advertised baseline (never advertised).
    pub(crate) step_up: Vec<String>,
    /// How DPoP-bound tokens are checked, when they are taken.
    #[cfg(feature = "jwt")]
    pub(crate) dpop: Option<Arc<DpopCheck>>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("ResourceServer");
        d.field("metadata", &self.metadata)
            .field("anonymous", &self.anonymous);
        #[cfg(feature = "jwt")]
        d.field("dpop", &self.dpop);
        d.finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// A resource server at `resource` (its canonical URI: absolute `https`, or `http` on a
    /// loopback host; no query, no fragment) whose tokens come from `authorization_server` (an
    /// issuer URL) and are checked by `verifier`.
    pub fn new(
        resource: impl Into<String>,
        authorization_server: impl Into<String>,
        verifier: impl TokenVerifier,
    ) -> Result<Self, BuildError> {
        let (resource, authorization_server) = (resource.into(), authorization_server.into());
        let uri = ResourceUri::parse(&resource).map_err(|r| BuildError::setting("resource", r))?;
        if authorization_server.trim().is_empty() {
            return Err(BuildError::setting(
                "authorization server",
                "the metadata must name at least one authorization server",
            ));
        }
        Ok(ResourceServer {
            verifier: Arc::new(verifier),
            metadata: ProtectedResourceMetadata {
                resource: resource.trim_end_matches('/').to_owned(),
                authorization_servers: vec![authorization_server],
                scopes_supported: Vec::new(),
                bearer_methods_supported: vec!["header".to_owned()],
                resource_name: None,
                resource_documentation: None,
                dpop_signing_alg_values_supported: Vec::new(),
                dpop_bound_access_tokens_required: false,
            },
            uri,
            anonymous: false,
            step_up: Vec::new(),
            #[cfg(feature = "jwt")]
            dpop: None,
        })
    }
    /// Names one more authorization server.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.metadata.authorization_servers.push(issuer.into());
        self
    }
    /// The baseline scopes a client should request (`scopes_supported`). `offline_access` is
    /// left out: a resource server must not advertise it.
    pub fn scopes_supported<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scopes: I,
    ) -> Self {
        for s in scopes {
            let s = s.into();
            if s != "offline_access" && !self.metadata.scopes_supported.contains(&s) {
                self.metadata.scopes_supported.push(s);
            }
        }
        self
    }
    /// Scopes a primitive may require beyond the baseline of
    /// [`scopes_supported`](Self::scopes_supported): not advertised in the metadata, asked for
    /// only by the `insufficient_scope` challenge of a request that needs one (step-up
    /// authorization). Declared here, they are told apart from a misspelling: serving refuses
    /// to start when a primitive requires a scope that is in neither list (while the baseline
    /// lists any).
    ///
    /// ```
    /// use mcp_runtime::auth::{ResourceServer, TokenError, verifier_fn};
    /// let verifier = verifier_fn(|_token: String| async { Err(TokenError::invalid("demo")) });
    /// let rs = ResourceServer::new("https://mcp.example.com/mcp", "https://auth.example.com", verifier)
    ///     .unwrap()
    ///     .scopes_supported(["docs:read"])
    ///     .step_up_scopes(["docs:admin"]);
    /// ```
    pub fn step_up_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        for s in scopes {
            let s = s.into();
            if !self.step_up.contains(&s) {
                self.step_up.push(s);
            }
        }
        self
    }
    /// A human-readable name in the metadata.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.metadata.resource_name = Some(name.into());
        self
    }
    /// Where developers read about this server, in the metadata.
    pub fn documentation(mut self, url: impl Into<String>) -> Self {
        self.metadata.resource_documentation = Some(url.into());
        self
    }
    /// Lets requests without a token through as anonymous: what needs no scope works without
    /// one, and what needs a caller or a scope is answered with a 401 challenge. A token that is
    /// sent is still checked (an invalid one is never taken as anonymous).
    pub fn allow_anonymous(mut self) -> Self {
        self.anonymous = true;
        self
    }
    /// Takes DPoP-bound access tokens (RFC 9449, feature `jwt`): a request may present its
    /// token as `Authorization: DPoP <token>` with a `DPoP` proof of the client's key, checked
    /// as [`Dpop`] says (see [`auth::dpop`](super::dpop) for every check). The metadata then
    /// names the proofs' algorithms (`dpop_signing_alg_values_supported`) and, with
    /// [`Dpop::required`], `dpop_bound_access_tokens_required: true`. An error when the
    /// settings are not usable: an HMAC algorithm or none at all, an `iat` window outside 1 s to
    /// 10 minutes, a public URL that is not one, a nonce lifetime of 0.
    ///
    /// ```
    /// use mcp_runtime::auth::{ResourceServer, TokenError, dpop::Dpop, verifier_fn};
    /// let verifier = verifier_fn(|_token: String| async { Err(TokenError::invalid("demo")) });
    /// let rs = ResourceServer::new("https://mcp.example.com/mcp", "https://auth.example.com", verifier)
    ///     .unwrap()
    ///     .dpop(Dpop::required())
    ///     .unwrap();
    /// assert!(rs.metadata().dpop_bound_access_tokens_required);
    /// ```
    #[cfg(feature = "jwt")]
    pub fn dpop(mut self, dpop: Dpop) -> Result<Self, BuildError> {
        let check = dpop.build(&self.metadata.resource)?;
        self.metadata.dpop_signing_alg_values_supported = check.algorithm_names();
        self.metadata.dpop_bound_access_tokens_required = check.required;
        self.dpop = Some(Arc::new(check));
        Ok(self)
    }
    /// Whether the `DPoP` scheme is read.
    #[cfg(feature = "jwt")]
    pub(crate) fn takes_dpop(&self) -> bool {
        self.dpop.is_some()
    }
    /// Whether the `DPoP` scheme is read: never without the `jwt` feature.
    #[cfg(not(feature = "jwt"))]
    pub(crate) fn takes_dpop(&self) -> bool {
        false
    }
    /// Whether Bearer tokens are taken (unless DPoP is required).
    #[cfg(feature = "jwt")]
    pub(crate) fn takes_bearer(&self) -> bool {
        self.dpop.as_ref().is_none_or(|d| !d.required)
    }
    /// Whether Bearer tokens are taken: always without the `jwt` feature.
    #[cfg(not(feature = "jwt"))]
    pub(crate) fn takes_bearer(&self) -> bool {
        true
    }
    /// The metadata document.
    pub fn metadata(&self) -> &ProtectedResourceMetadata {
        &self.metadata
    }
    /// Where the metadata document is published (the path-suffixed well-known URL).
    pub fn metadata_url(&self) -> String {
        self.uri.metadata_url()
    }
}
