//! A token issuer for tests (feature `jwt`): an Ed25519 key made on the spot, its JWKS, and
//! signed access tokens with whatever claims a test needs.

use crate::auth::jwt::JwtVerifier;
use crate::error::BuildError;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Map, Value, json};

/// Issues signed JWT access tokens for tests, the way an authorization server would: one
/// Ed25519 key (made when the issuer is), its JWKS, tokens for an audience.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use mcp_runtime::auth::TokenVerifier;
/// use mcp_runtime::testing::TestIssuer;
/// let issuer = TestIssuer::new("https://auth.example.com", "https://mcp.example.com/mcp");
/// let token = issuer.token("alice", &["docs:read"]);
/// let caller = issuer.verifier().verify(&token).await.unwrap();
/// assert_eq!(caller.subject, "alice");
/// assert!(caller.has_scope("docs:read"));
/// # }
/// ```
pub struct TestIssuer {
    issuer: String,
    audience: String,
    kid: String,
    key: EncodingKey,
    jwk: Jwk,
}

impl std::fmt::Debug for TestIssuer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestIssuer")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

/// The PKCS#8 (v1) wrapping of an Ed25519 seed.
const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

fn random<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    // Tests only: without randomness there is nothing sensible to do but stop.
    getrandom::getrandom(&mut bytes).expect("the system has a source of randomness");
    bytes
}

impl TestIssuer {
    /// An issuer `issuer` of tokens for `audience`, with a new key.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> TestIssuer {
        TestIssuer::with_seed(issuer, audience, random::<32>())
    }

    /// An issuer whose key comes from `seed`: two processes given the same seed sign and
    /// verify alike (a benchmark's client and server, say). The key id is derived from the
    /// seed too. Never use a known seed outside tests.
    ///
    /// ```
    /// use mcp_runtime::testing::TestIssuer;
    /// let a = TestIssuer::with_seed("https://auth.test", "https://mcp.test/mcp", [9; 32]);
    /// let b = TestIssuer::with_seed("https://auth.test", "https://mcp.test/mcp", [9; 32]);
    /// assert_eq!(a.jwks_json(), b.jwks_json());
    /// ```
    pub fn with_seed(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        seed: [u8; 32],
    ) -> TestIssuer {
        let mut pkcs8 = ED25519_PKCS8_PREFIX.to_vec();
        pkcs8.extend_from_slice(&seed);
        let key = EncodingKey::from_ed_der(&pkcs8);
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::EdDSA)
            .expect("an Ed25519 key has a public JWK");
        let kid = match &jwk.algorithm {
            jsonwebtoken::jwk::AlgorithmParameters::OctetKeyPair(p) => {
                format!("test-{}", &p.x[..p.x.len().min(12)])
            }
            _ => "test".to_owned(),
        };
        jwk.common.key_id = Some(kid.clone());
        TestIssuer {
            issuer: issuer.into(),
            audience: audience.into(),
            kid,
            key,
            jwk,
        }
    }

    /// The issuer (`iss`).
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The key id (`kid`) tokens name.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The public key, as a JWK.
    pub fn jwk(&self) -> Value {
        serde_json::to_value(&self.jwk).unwrap_or_default()
    }

    /// The JWKS document holding the public key.
    pub fn jwks_json(&self) -> String {
        let set = JwkSet {
            keys: vec![self.jwk.clone()],
        };
        serde_json::to_string(&set).unwrap_or_default()
    }

    /// A verifier of this issuer's tokens (its JWKS inline).
    pub fn verifier(&self) -> JwtVerifier {
        self.try_verifier()
            .expect("the test issuer's JWKS is valid")
    }

    fn try_verifier(&self) -> Result<JwtVerifier, BuildError> {
        JwtVerifier::builder(&self.audience)
            .issuer(&self.issuer)
            .jwks_json(self.jwks_json())
            .build()
    }

    /// A token for `subject` granting `scopes`, valid for an hour.
    pub fn token(&self, subject: &str, scopes: &[&str]) -> String {
        self.token_with(json!({"sub": subject, "scope": scopes.join(" ")}))
    }

    /// A DPoP-bound token (RFC 9449 §6.1) for `subject` granting `scopes`, valid for an hour:
    /// its `cnf.jkt` claim names the RFC 7638 thumbprint `jkt` of the client's key (see
    /// [`jwk_thumbprint`](crate::auth::dpop::jwk_thumbprint)), so that a resource server taking
    /// DPoP accepts it only with a proof signed by that key, and never as a Bearer token.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use mcp_runtime::auth::TokenVerifier;
    /// use mcp_runtime::auth::dpop::jwk_thumbprint;
    /// use mcp_runtime::testing::TestIssuer;
    /// use serde_json::json;
    /// let issuer = TestIssuer::new("https://auth.example.com", "https://mcp.example.com/mcp");
    /// let client_key = json!({"kty": "EC", "crv": "P-256",
    ///     "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
    ///     "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"});
    /// let jkt = jwk_thumbprint(&client_key).unwrap();
    /// let token = issuer.bound_token("alice", &["docs:read"], &jkt);
    /// let caller = issuer.verifier().verify(&token).await.unwrap();
    /// assert_eq!(caller.claim("cnf").unwrap()["jkt"], jkt.as_str());
    /// # }
    /// ```
    pub fn bound_token(&self, subject: &str, scopes: &[&str], jkt: &str) -> String {
        self.token_with(json!({
            "sub": subject,
            "scope": scopes.join(" "),
            "cnf": {"jkt": jkt},
        }))
    }

    /// A token with `claims` over the defaults (`iss`, `aud`, `iat`, `exp` in an hour, `sub`
    /// `"test-user"`). A claim set to `null` is left out.
    pub fn token_with(&self, claims: Value) -> String {
        let now = jsonwebtoken::get_current_timestamp();
        let mut all: Map<String, Value> = json!({
            "iss": self.issuer,
            "aud": self.audience,
            "sub": "test-user",
            "iat": now,
            "exp": now + 3600,
        })
        .as_object()
        .cloned()
        .unwrap_or_default();
        if let Value::Object(extra) = claims {
            for (k, v) in extra {
                if v.is_null() {
                    all.remove(&k);
                } else {
                    all.insert(k, v);
                }
            }
        }
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, &all, &self.key).expect("an Ed25519 key signs")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::TokenVerifier;

    #[tokio::test]
    async fn a_token_with_an_iss_list_or_a_tab_in_its_scope_is_verified_strictly() {
        let issuer = TestIssuer::new("https://auth.example.com", "https://mcp.example.com/mcp");
        let verifier = issuer.verifier();
        let listed = issuer.token_with(json!({"iss": [issuer.issuer()]}));
        let Err(crate::auth::TokenError::Invalid(why)) = verifier.verify(&listed).await else {
            panic!("an `iss` list passed");
        };
        assert!(why.contains("`iss`"), "{why}");
        let tabbed = issuer.token_with(json!({"scope": "docs:read\tadmin"}));
        let caller = verifier.verify(&tabbed).await.unwrap();
        assert!(caller.scopes.is_empty(), "{:?}", caller.scopes);
        assert_eq!(caller.issuer.as_deref(), Some(issuer.issuer()));
        let plain = issuer.token("alice", &["docs:read", "admin"]);
        let caller = verifier.verify(&plain).await.unwrap();
        assert!(caller.has_scopes(&["docs:read", "admin"]));
    }
}
