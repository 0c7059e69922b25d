//! What every DPoP test uses: the client's keys and its proofs, the protected server, and
//! the checks of a refusal.

pub(crate) use super::common::*;
pub(crate) use base64::Engine as _;
pub(crate) use http::{Method, StatusCode};
pub(crate) use jsonwebtoken::jwk::{Jwk, ThumbprintHash};
pub(crate) use jsonwebtoken::{Algorithm, EncodingKey};
pub(crate) use mcp_runtime::auth::ResourceServer;
pub(crate) use mcp_runtime::auth::dpop::{Dpop, jwk_thumbprint};
pub(crate) use mcp_runtime::testing::TestIssuer;
pub(crate) use mcp_runtime::{
    Caller, FromContext, HttpOptions, KeyRing, McpError, NoArguments, RequestContext, Server, Tool,
};
pub(crate) use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
pub(crate) use serde_json::{Value, json};
pub(crate) use std::collections::HashMap;
pub(crate) use std::sync::atomic::{AtomicU64, Ordering};

pub(crate) const ISSUER: &str = "https://auth.example.com";

pub(crate) fn b64(bytes: impl AsRef<[u8]>) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

pub(crate) fn now() -> i64 {
    jsonwebtoken::get_current_timestamp() as i64
}

/// A `jti` never used before in this process.
pub(crate) fn fresh_jti() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("jti-{}-{}", now(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// base64url(SHA-256(token)), computed with ring.
pub(crate) fn ath(token: &str) -> String {
    b64(ring::digest::digest(
        &ring::digest::SHA256,
        token.as_bytes(),
    ))
}

// ---------------------------------------------------------------------------------------------
// The client's key and its proofs
// ---------------------------------------------------------------------------------------------

/// A client's key: EC P-256 made with ring, or RSA, or Ed25519.
pub(crate) struct ClientKey {
    pub(crate) key: EncodingKey,
    pub(crate) alg: Algorithm,
    /// The public key.
    pub(crate) jwk: Value,
    /// Its RFC 7638 thumbprint, computed by `jsonwebtoken`.
    pub(crate) jkt: String,
}

/// A 2048-bit RSA key (PKCS#1 DER, base64), made with `openssl genrsa` for these tests only.
pub(crate) const RSA_TEST_KEY: &str = "\
    MIIEowIBAAKCAQEAvKTdaWXHOpYClUM1Hta2Ng5jQefnCwdCbIQcIKoTxlmTKRmHiDRyCXspwrvuJm4vGZVZa7dH\
    s7TZv9WPczJSgnRPCvKC8gQ1MZdpE1rg8y60YuGjj4CC7EHyHNbGLXmlQCn8h4DFTL9PjLuEW8SnVn3Da6u/wU9d\
    eSzB4zTxMDTi4E5u2saTChkjcSONof5MZMHoK8XD4bNGLL5sOI92AyMeRB45DC2gkFyHCpHMdWY3LvSzP00px+qz\
    FNS8In/Q9B88aJmFIDXjZX9iIMs0sF18xPvzC/Syk/fhxYsp3xCF6NjIJaZIOHrFCi3zO88sBPc48z50e0pRC1NY\
    qGJZ+wIDAQABAoIBACNoWnqm9N8lOvTjOXxBVtAMoUrEiVRDl48guNrUsYOAWqPTO+Iv3duzt2HqvkeOVN7bbn5O\
    V3H+lwRvxE4d+uirhg6K+FMOwSE+xyUv4JskgA0zRuzvdSN9OUF6epYciAzkFJcmb2H5YqgKpkxHPBV644w5H3Pc\
    PrI42WeZD1A5uaBibfCKs4NuG8jzpOnkFI/CJk6mudY94xOhAuVNQoG4gY4dYkX6oznbjHLOoxZSZdCLefZfW7pn\
    qSx2wM7pcSDunfiHwzDAEIdQT+apq6pKW0QXjG7PEyH1uItmcMGx60AtNbxI7HIuALAjhwR3EtTzqrpNecyf+wsa\
    p3c5k1kCgYEA/jkoMkhu6Oj92oJ47Y/57/IJBjJcHpj7iPcuLr/1ucl5J+RTjxpOYrrMY0G1SWdKJs6iaNXFwnGd\
    vkTWPVwZzF6B9IOI+EHY/aGeD5UW96mAr10r34VlcxR6KK/WQGU1n/lkK/w/Y8YrvDVU/ujA2dNwMbw84njxFL0T\
    3aawamUCgYEAvfZgexGRyhe/1eLWNPwqT8GvtBw6tLoKhRdX9JVWdM0coIO7694VE35jnjXOjLu1INwp3VKL6ulD\
    FGbGDJxwDFGGaUXnvr4e77nU5MQ8i7HDu+TUii8u3z61YfymceQv1I5Ry2SjVYMiwDJudaq7bGT2cBVu6S+I1oQH\
    3F1OPN8CgYAfFUP56etNpPcs2VkJytnHYbOCw3OJ9jCDDZ3i72uO/LhIjV0+GPxOjAJjfGw6/lsNpaQr5z9Xx+Z+\
    lhIPzIwG9eMzz0VW/U4XrMQTqan2PA5U4rJzkO7XhEBvaxhqJTXKSobZ7eyeOWOtjmPHCxRRTc3g9uAG3Ly1SWz9\
    Y90cFQKBgGPA8JNP+54DcLKxxsjWLqXpUQok1NM46vNO+dovXdJCL6k+5D0NR0YQVeGr4cZXf9s8oiNeCKmYSqh4\
    +8F9mP1vBkVb90Fb90Tt8hUb06uL8vxFQzM5acTD2l4VXZZrPI7DGcLUG015apNBKG5T9M4MCrl7F94OHy5+8N3Q\
    hZhDAoGBAMXJF+DuRuqIvkUE2jRnTcDVs+spmP37gPNkhAjkkOOimZNNRdxmH0rOGalXmq5p7Ror1lOF+ZC7dTuG\
    1hPQNLxKMnptL42Wd8JP1GiXOkdsxT0t4uyW2cOt7Fc2RzEdHP7tblGFE3lFn+fYWWs1ITWqOSTx94HIywyuNbuW\
    bP0Z";

/// The PKCS#8 (v1) wrapping of an Ed25519 seed.
pub(crate) const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

impl ClientKey {
    pub(crate) fn new() -> ClientKey {
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        let public = pair.public_key().as_ref();
        let jwk = json!({
            "kty": "EC", "crv": "P-256", "x": b64(&public[1..33]), "y": b64(&public[33..65]),
        });
        ClientKey::of(
            EncodingKey::from_ec_der(pkcs8.as_ref()),
            Algorithm::ES256,
            jwk,
        )
    }

    /// The RSA test key, signing with `alg` (RS256, PS256, …).
    pub(crate) fn rsa(alg: Algorithm) -> ClientKey {
        let der = base64::engine::general_purpose::STANDARD
            .decode(RSA_TEST_KEY)
            .unwrap();
        ClientKey::derived(EncodingKey::from_rsa_der(&der), alg)
    }

    /// An Ed25519 key from a random seed.
    pub(crate) fn ed25519() -> ClientKey {
        let mut pkcs8 = ED25519_PKCS8_PREFIX.to_vec();
        let seed: [u8; 32] = ring::rand::generate(&ring::rand::SystemRandom::new())
            .unwrap()
            .expose();
        pkcs8.extend_from_slice(&seed);
        ClientKey::derived(EncodingKey::from_ed_der(&pkcs8), Algorithm::EdDSA)
    }

    /// A key whose public JWK `jsonwebtoken` derives (without its `alg`, which would name
    /// RS256 for every RSA algorithm).
    pub(crate) fn derived(key: EncodingKey, alg: Algorithm) -> ClientKey {
        let mut jwk = serde_json::to_value(Jwk::from_encoding_key(&key, alg).unwrap()).unwrap();
        jwk.as_object_mut().unwrap().remove("alg");
        ClientKey::of(key, alg, jwk)
    }

    pub(crate) fn of(key: EncodingKey, alg: Algorithm, jwk: Value) -> ClientKey {
        let parsed: Jwk = serde_json::from_value(jwk.clone()).unwrap();
        let jkt = parsed.thumbprint(ThumbprintHash::SHA256).unwrap();
        // The server's thumbprint is the same as jsonwebtoken's.
        assert_eq!(jwk_thumbprint(&jwk).unwrap(), jkt, "{jwk}");
        ClientKey { key, alg, jwk, jkt }
    }

    /// A compact JWS of `header` and `claims`, signed with this key.
    pub(crate) fn sign(&self, header: &Value, claims: &Value) -> String {
        let signing_input = format!("{}.{}", b64(header.to_string()), b64(claims.to_string()));
        let signature =
            jsonwebtoken::crypto::sign(signing_input.as_bytes(), &self.key, self.alg).unwrap();
        format!("{signing_input}.{signature}")
    }
}

/// The parts of a proof before it is signed, for a test to change.
pub(crate) struct Draft {
    pub(crate) header: Value,
    pub(crate) claims: Value,
}

impl Draft {
    /// Sets (or, with `null`, removes) a header parameter.
    pub(crate) fn header(mut self, name: &str, value: Value) -> Draft {
        set(&mut self.header, name, value);
        self
    }
    /// Sets (or, with `null`, removes) a claim.
    pub(crate) fn claim(mut self, name: &str, value: Value) -> Draft {
        set(&mut self.claims, name, value);
        self
    }
    pub(crate) fn signed_by(&self, key: &ClientKey) -> String {
        key.sign(&self.header, &self.claims)
    }
}

pub(crate) fn set(object: &mut Value, name: &str, value: Value) {
    let map = object.as_object_mut().unwrap();
    if value.is_null() {
        map.remove(name);
    } else {
        map.insert(name.to_owned(), value);
    }
}

// ---------------------------------------------------------------------------------------------
// The protected server
// ---------------------------------------------------------------------------------------------

pub(crate) fn server() -> Server {
    Server::builder()
        .tool(
            Tool::new("whoami")
                .description("Says who is calling.")
                .handler(|_: NoArguments, cx: RequestContext| async move {
                    let caller = Caller::from_context(&cx)?;
                    Ok::<_, McpError>(caller.subject.clone())
                }),
        )
        .tool(
            Tool::new("search")
                .description("Searches private documents.")
                .scopes(["docs:read"])
                .handler(|_: NoArguments, _cx| async { "found" }),
        )
        .build()
        .unwrap()
}

pub(crate) struct Setup {
    pub(crate) issuer: TestIssuer,
    pub(crate) key: ClientKey,
    /// The endpoint: `http://127.0.0.1:<port>/mcp`, also the resource URI.
    pub(crate) url: String,
    pub(crate) base: String,
    pub(crate) task: tokio::task::JoinHandle<Result<(), mcp_runtime::Error>>,
}

impl Drop for Setup {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// `server()` taking DPoP as `dpop` says, with tokens from a test issuer.
pub(crate) async fn setup(dpop: Dpop) -> Setup {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let url = format!("http://{addr}/mcp");
    let issuer = TestIssuer::new(ISSUER, url.clone());
    let rs = ResourceServer::new(&url, ISSUER, issuer.verifier())
        .unwrap()
        .scopes_supported(["docs:read"])
        .dpop(dpop)
        .unwrap();
    let task = tokio::spawn(server().serve(listener, HttpOptions::default().auth(rs)));
    let key = ClientKey::new();
    Setup {
        issuer,
        key,
        base: format!("http://{addr}"),
        url,
        task,
    }
}

impl Setup {
    /// A token for alice bound to the client's key.
    pub(crate) fn token(&self) -> String {
        self.issuer
            .bound_token("alice", &["docs:read"], &self.key.jkt)
    }

    /// A valid proof's parts for a POST presenting `token`, signed by the client's key.
    pub(crate) fn draft(&self, token: &str) -> Draft {
        self.draft_for(&self.key, token)
    }

    /// A valid proof's parts for a POST presenting `token`, signed by `key`.
    pub(crate) fn draft_for(&self, key: &ClientKey, token: &str) -> Draft {
        Draft {
            header: json!({"typ": "dpop+jwt", "alg": format!("{:?}", key.alg), "jwk": key.jwk}),
            claims: json!({
                "jti": fresh_jti(), "htm": "POST", "htu": self.url, "iat": now(),
                "ath": ath(token),
            }),
        }
    }

    /// A valid proof for a POST presenting `token`.
    pub(crate) fn proof(&self, token: &str) -> String {
        self.draft(token).signed_by(&self.key)
    }
}

pub(crate) fn whoami() -> Value {
    request(1, "tools/call", json!({"name": "whoami", "arguments": {}}))
}

/// POSTs `body` to `url` (a 2026-07-28 request) presenting `token` as `scheme` with `proofs`,
/// one `DPoP` header each.
pub(crate) async fn post_with(
    url: &str,
    body: &Value,
    scheme: &str,
    token: &str,
    proofs: &[&str],
) -> HttpResponse {
    let mut headers = headers_for(body);
    headers.push(("Authorization".into(), format!("{scheme} {token}")));
    for proof in proofs {
        headers.push(("DPoP".into(), (*proof).to_owned()));
    }
    post(url, &headers, serde_json::to_vec(body).unwrap()).await
}

/// `whoami` with `token` as DPoP and `proofs`.
pub(crate) async fn call_dpop(s: &Setup, token: &str, proofs: &[&str]) -> HttpResponse {
    post_with(&s.url, &whoami(), "DPoP", token, proofs).await
}

pub(crate) fn text_of(resp: &HttpResponse) -> String {
    let r = response_of(resp);
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {r}"))
        .to_owned()
}

/// The parameters of the response's `WWW-Authenticate` challenge of `scheme`, if any.
pub(crate) fn challenge(resp: &HttpResponse, scheme: &str) -> Option<HashMap<String, String>> {
    let prefix = format!("{scheme} ");
    let value = resp
        .headers
        .get_all("www-authenticate")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&prefix))?;
    let mut params = HashMap::new();
    for part in value[prefix.len()..].split("\", ") {
        let (k, v) = part.split_once("=\"").expect("key=\"value\"");
        params.insert(k.to_owned(), v.trim_end_matches('"').to_owned());
    }
    Some(params)
}

/// `resp` is a 401 with a `DPoP` challenge whose error is `error` (and the Bearer challenge
/// beside it, with no error), and says nothing of `secrets` (the token, the proof).
pub(crate) fn assert_refused(
    s: &Setup,
    resp: &HttpResponse,
    error: &str,
    secrets: &[&str],
) -> String {
    assert_eq!(
        resp.status,
        StatusCode::UNAUTHORIZED,
        "{}",
        String::from_utf8_lossy(&resp.body)
    );
    let dpop = challenge(resp, "DPoP").expect("a DPoP challenge");
    assert_eq!(dpop["error"], error, "{dpop:?}");
    assert!(dpop["algs"].split(' ').any(|a| a == "ES256"), "{dpop:?}");
    assert_eq!(
        dpop["resource_metadata"],
        format!("{}/.well-known/oauth-protected-resource/mcp", s.base)
    );
    let bearer = challenge(resp, "Bearer").expect("the Bearer challenge is kept");
    assert!(!bearer.contains_key("error"), "{bearer:?}");
    assert_says_nothing_of(resp, secrets);
    dpop["error_description"].clone()
}

/// Neither the body nor any header of `resp` holds one of `secrets` (nor a signature of one).
pub(crate) fn assert_says_nothing_of(resp: &HttpResponse, secrets: &[&str]) {
    let mut text = String::from_utf8_lossy(&resp.body).into_owned();
    for (name, value) in &resp.headers {
        text.push_str(&format!(
            "\n{name}: {}",
            String::from_utf8_lossy(value.as_bytes())
        ));
    }
    for secret in secrets {
        assert!(!text.contains(secret), "the answer quotes a token or proof");
        let signature = secret.rsplit('.').next().unwrap_or_default();
        if signature.len() > 16 {
            assert!(!text.contains(signature), "the answer quotes a signature");
        }
    }
}

/// Sends `whoami` with `token` and `proof`, and checks the refusal: `invalid_dpop_proof`, its description mentioning `mention`.
pub(crate) async fn refused_proof(s: &Setup, token: &str, proof: &str, mention: &str) {
    let resp = call_dpop(s, token, &[proof]).await;
    let why = assert_refused(s, &resp, "invalid_dpop_proof", &[token, proof]);
    assert!(why.contains(mention), "`{mention}` not in: {why}");
}
