//! `WWW-Authenticate` challenges: `Bearer …` (RFC 6750 §3, RFC 9728 §5.1) and `DPoP …` (RFC
//! 9449 §7.1).

/// What a challenge says besides where the metadata document is.
#[derive(Debug, Clone, Default)]
pub(crate) struct Challenge<'a> {
    /// `invalid_request`, `invalid_token` or `insufficient_scope` (and for DPoP
    /// `invalid_dpop_proof` or `use_dpop_nonce`); none when no token was sent.
    pub(crate) error: Option<&'a str>,
    /// Why, for the developer (no token text, ever).
    pub(crate) description: Option<&'a str>,
    /// The scopes the operation needs.
    pub(crate) scopes: &'a [String],
}

impl Challenge<'_> {
    /// The `Bearer` header value, naming the metadata document at `metadata_url`.
    pub(crate) fn header_value(&self, metadata_url: &str) -> String {
        self.value("Bearer", metadata_url)
    }

    /// The `DPoP` header value: like the `Bearer` one, with the proofs' algorithms (`algs`,
    /// separated by spaces).
    #[cfg_attr(not(feature = "jwt"), allow(dead_code))]
    pub(crate) fn dpop_value(&self, metadata_url: &str, algs: &str) -> String {
        let mut v = self.value("DPoP", metadata_url);
        v.push_str(", algs=\"");
        v.push_str(&quotable(algs));
        v.push('"');
        v
    }

    fn value(&self, scheme: &str, metadata_url: &str) -> String {
        let mut v = format!("{scheme} resource_metadata=\"{}\"", quotable(metadata_url));
        if !self.scopes.is_empty() {
            v.push_str(", scope=\"");
            v.push_str(&quotable(&self.scopes.join(" ")));
            v.push('"');
        }
        if let Some(error) = self.error {
            v.push_str(", error=\"");
            v.push_str(error);
            v.push('"');
        }
        if let Some(d) = self.description {
            v.push_str(", error_description=\"");
            v.push_str(&quotable(d));
            v.push('"');
        }
        v
    }
}

/// Text allowed inside a quoted parameter: printable ASCII except `"` and `\` (RFC 6750's
/// `error_description` grammar); anything else becomes a space.
fn quotable(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            ' '..='~' if c != '"' && c != '\\' => c,
            _ => ' ',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_quote_safely() {
        let scopes = vec!["docs:read".to_owned(), "docs:write".to_owned()];
        let c = Challenge {
            error: Some("insufficient_scope"),
            description: Some("needs \"more\"\r\nX-Injected: 1 ünïcode"),
            scopes: &scopes,
        };
        let v = c.header_value("https://h/.well-known/oauth-protected-resource/mcp");
        assert_eq!(
            v,
            "Bearer resource_metadata=\"https://h/.well-known/oauth-protected-resource/mcp\", \
             scope=\"docs:read docs:write\", error=\"insufficient_scope\", \
             error_description=\"needs  more   X-Injected: 1  n code\""
        );
        assert!(http::HeaderValue::from_str(&v).is_ok());
        let bare = Challenge::default().header_value("https://h/x");
        assert_eq!(bare, "Bearer resource_metadata=\"https://h/x\"");
        let dpop = Challenge {
            error: Some("invalid_dpop_proof"),
            description: Some("the proof's `htm` is wrong"),
            scopes: &[],
        };
        assert_eq!(
            dpop.dpop_value("https://h/x", "ES256 EdDSA"),
            "DPoP resource_metadata=\"https://h/x\", error=\"invalid_dpop_proof\", \
             error_description=\"the proof's `htm` is wrong\", algs=\"ES256 EdDSA\""
        );
    }
}
