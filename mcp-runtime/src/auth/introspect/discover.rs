//! Where the introspection endpoint is: given, or read once from the issuer's RFC 8414
//! authorization server metadata (tried again, no more often than every few seconds, after a
//! failure).

use super::super::jwt::{check_url, fetch};
use super::super::verifier::TokenError;
use serde_json::Value;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Least time between two metadata fetches after one failed.
const RETRY: Duration = Duration::from_secs(5);

/// Whether `url`'s host is a literal private, link-local or unspecified address (metadata
/// pointing there is refused: it would have this server call into its own network).
fn names_private_address(url: &str) -> bool {
    let host = url
        .parse::<http::Uri>()
        .ok()
        .and_then(|u| u.host().map(str::to_owned));
    let host = host.unwrap_or_default();
    match host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
    {
        Ok(std::net::IpAddr::V4(ip)) => {
            ip.is_private() || ip.is_link_local() || ip.is_unspecified() || ip.is_loopback()
        }
        Ok(std::net::IpAddr::V6(ip)) => {
            ip.is_unspecified()
                || ip.is_loopback()
                || (ip.segments()[0] & 0xfe00) == 0xfc00
                || (ip.segments()[0] & 0xffc0) == 0xfe80
        }
        Err(_) => false,
    }
}

/// The introspection endpoint, found or to be found.
pub(super) struct Resolved {
    issuer: Option<String>,
    state: Mutex<State>,
    /// Held while the metadata is fetched: one fetch at a time.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct State {
    url: Option<String>,
    failed: Option<(Instant, String)>,
}

impl Resolved {
    pub(super) fn fixed(url: String) -> Self {
        Resolved {
            issuer: None,
            state: Mutex::new(State {
                url: Some(url),
                failed: None,
            }),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    pub(super) fn discover(issuer: String) -> Self {
        Resolved {
            issuer: Some(issuer),
            state: Mutex::default(),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    fn known(&self) -> Result<Option<String>, TokenError> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(url) = &state.url {
            return Ok(Some(url.clone()));
        }
        match &state.failed {
            Some((at, why)) if at.elapsed() < RETRY => Err(TokenError::unavailable(why.clone())),
            _ => Ok(None),
        }
    }

    /// The endpoint's URL.
    pub(super) async fn url(&self) -> Result<String, TokenError> {
        if let Some(url) = self.known()? {
            return Ok(url);
        }
        let _one = self.fetching.lock().await;
        if let Some(url) = self.known()? {
            return Ok(url);
        }
        let issuer = self.issuer.as_deref().unwrap_or_default();
        let found = find(issuer).await;
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match found {
            Ok(url) => {
                state.url = Some(url.clone());
                Ok(url)
            }
            Err(why) => {
                let why = format!("the introspection endpoint cannot be found: {why}");
                state.failed = Some((Instant::now(), why.clone()));
                Err(TokenError::unavailable(why))
            }
        }
    }
}

/// The metadata URLs of `issuer` (RFC 8414 §3.1: the well-known segment between the host and
/// the issuer's path), the OAuth one first.
fn metadata_urls(issuer: &str) -> Vec<String> {
    let trimmed = issuer.trim_end_matches('/');
    let split = trimmed
        .find("://")
        .and_then(|s| trimmed[s + 3..].find('/').map(|p| s + 3 + p))
        .unwrap_or(trimmed.len());
    let (origin, path) = trimmed.split_at(split);
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!("{trimmed}/.well-known/openid-configuration"),
    ]
}

/// The `introspection_endpoint` of `issuer`'s metadata.
async fn find(issuer: &str) -> Result<String, String> {
    let mut last = String::new();
    let mut tried = Vec::new();
    for url in metadata_urls(issuer) {
        if tried.contains(&url) {
            continue;
        }
        tried.push(url.clone());
        let body = match fetch::get(&url).await {
            Ok(body) => body,
            Err(e) => {
                last = e;
                continue;
            }
        };
        let meta: Value =
            crate::json::from_bytes(&body).map_err(|_| format!("{url} is no JSON"))?;
        // RFC 8414 §3.3: the metadata is the issuer's own.
        if meta["issuer"].as_str().map(|i| i.trim_end_matches('/'))
            != Some(issuer.trim_end_matches('/'))
        {
            return Err(format!("{url} names another issuer ({})", meta["issuer"]));
        }
        let endpoint = meta["introspection_endpoint"]
            .as_str()
            .ok_or_else(|| format!("{url} has no `introspection_endpoint`"))?;
        check_url(endpoint)?;
        let issuer_local = issuer
            .parse::<http::Uri>()
            .is_ok_and(|u| crate::net::is_loopback_host(u.host().unwrap_or_default()));
        if endpoint.starts_with("http://") && !issuer_local {
            return Err(format!(
                "{url} names an http endpoint for an https issuer: {endpoint}"
            ));
        }
        if !issuer_local && names_private_address(endpoint) {
            return Err(format!(
                "{url} names an endpoint at a private address: {endpoint}"
            ));
        }
        return Ok(endpoint.to_owned());
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    #[test]
    fn metadata_urls_put_the_well_known_segment_before_the_path() {
        assert_eq!(
            super::metadata_urls("https://as.example.com/tenant/1/"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server/tenant/1",
                "https://as.example.com/.well-known/openid-configuration/tenant/1",
                "https://as.example.com/tenant/1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            super::metadata_urls("http://127.0.0.1:9")[0],
            "http://127.0.0.1:9/.well-known/oauth-authorization-server"
        );
    }

    #[test]
    fn only_https_or_loopback_http_is_fetched() {
        assert!(super::check_url("https://as.example.com/introspect").is_ok());
        assert!(super::check_url("http://127.0.0.1:8/i").is_ok());
        assert!(super::check_url("http://[::1]:8/i").is_ok());
        assert!(super::check_url("http://as.example.com/i").is_err());
        assert!(super::check_url("http://10.0.0.1/i").is_err());
        assert!(super::check_url("file:///etc/passwd").is_err());
        assert!(super::names_private_address("https://10.1.2.3/i"));
        assert!(super::names_private_address("https://169.254.169.254/i"));
        assert!(super::names_private_address("https://[fd00::1]/i"));
        assert!(!super::names_private_address("https://as.example.com/i"));
        assert!(!super::names_private_address("https://93.184.216.34/i"));
    }
}
