//! What a [`ServerCard`] (the checked card the options carry) says, and the documents written
//! from it: the card as an endpoint serves it, and the AI Catalog entry pointing at it.

use crate::protocol::Implementation;
use crate::transport::http::options::{SERVER_CARD_SUFFIX, ServerCard};
use serde_json::{Map, Value, json};

/// The `$schema` of every Server Card: the `v1` card schema of SEP-2127, the one value the
/// draft takes.
///
/// ```
/// assert!(mcp_runtime::transport::http::SERVER_CARD_SCHEMA.ends_with("/v1/server-card.schema.json"));
/// ```
pub const SERVER_CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/// The card's media type, its `Content-Type` and the catalog entry's `type`.
pub(super) const CARD_MEDIA_TYPE: &str = "application/mcp-server-card+json";

/// The AI Catalog's media type.
pub(super) const CATALOG_MEDIA_TYPE: &str = "application/ai-catalog+json";

/// Where the AI Catalog is served: the well-known URI of domain-level discovery.
pub(super) const CATALOG_PATH: &str = "/.well-known/ai-catalog.json";

impl ServerCard {
    /// A card of checked `fields` and `remotes`, made from a server's info and instructions.
    pub(crate) fn new(
        fields: Map<String, Value>,
        remotes: Vec<String>,
        made_from: (Implementation, Option<String>),
    ) -> ServerCard {
        ServerCard {
            fields,
            remotes,
            made_from,
        }
    }

    /// The card's `name`: the server's registry name (`io.github.owner/weather`).
    ///
    /// ```
    /// # use mcp_runtime::{Server, ServerJson};
    /// let server = Server::builder().instructions("Weather.").build().unwrap();
    /// let card = server.server_card(&ServerJson::new("com.example/weather")).unwrap();
    /// assert_eq!(card.name(), "com.example/weather");
    /// ```
    pub fn name(&self) -> &str {
        self.fields
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The URLs of its remotes, as given to [`ServerJson::remote`](crate::ServerJson::remote).
    ///
    /// ```
    /// # use mcp_runtime::{Server, ServerJson};
    /// # let server = Server::builder().instructions("Weather.").build().unwrap();
    /// let entry = ServerJson::new("com.example/weather").remote("https://mcp.example.com/mcp");
    /// let card = server.server_card(&entry).unwrap();
    /// assert_eq!(card.remotes(), ["https://mcp.example.com/mcp"]);
    /// ```
    pub fn remotes(&self) -> &[String] {
        &self.remotes
    }

    /// Where clients fetch the card: the first remote's URL followed by `/server-card`, which
    /// the AI Catalog names. `None` without a remote (the card is still served, the catalog
    /// is not).
    ///
    /// ```
    /// # use mcp_runtime::{Server, ServerJson};
    /// # let server = Server::builder().instructions("Weather.").build().unwrap();
    /// let entry = ServerJson::new("com.example/weather");
    /// assert_eq!(server.server_card(&entry).unwrap().url(), None);
    /// let entry = entry.remote("https://mcp.example.com/mcp/");
    /// let card = server.server_card(&entry).unwrap();
    /// assert_eq!(card.url().as_deref(), Some("https://mcp.example.com/mcp/server-card"));
    /// ```
    pub fn url(&self) -> Option<String> {
        let remote = self.remotes.first()?;
        let (base, query) = match remote.split_once('?') {
            Some((base, query)) => (base, Some(query)),
            None => (remote.as_str(), None),
        };
        let mut url = below(base);
        if let Some(query) = query {
            url.push('?');
            url.push_str(query);
        }
        Some(url)
    }

    /// Whether the card was made from `info` and `instructions`: whether it says what a server
    /// with them says of itself.
    pub(super) fn describes(&self, info: &Implementation, instructions: Option<&str>) -> bool {
        self.made_from.0 == *info && self.made_from.1.as_deref() == instructions
    }

    /// The card as served by an endpoint that serves the protocol `versions`.
    pub(super) fn document(&self, versions: &[String]) -> Value {
        let mut doc = self.fields.clone();
        if !self.remotes.is_empty() {
            let remotes = self.remotes.iter().map(|url| {
                json!({
                    "type": "streamable-http",
                    "url": url,
                    "supportedProtocolVersions": versions,
                })
            });
            doc.insert("remotes".into(), remotes.collect::<Vec<_>>().into());
        }
        Value::Object(doc)
    }

    /// The AI Catalog of this card alone, when it has a public URL ([`url`](Self::url)).
    pub(super) fn catalog(&self) -> Option<Value> {
        Some(json!({
            "specVersion": "1.0",
            "entries": [{
                "identifier": identifier(self.name()),
                "type": CARD_MEDIA_TYPE,
                "url": self.url()?,
            }],
        }))
    }
}

/// The card's URL below the endpoint's: `…/mcp` → `…/mcp/server-card`.
fn below(path: &str) -> String {
    format!("{}{SERVER_CARD_SUFFIX}", path.trim_end_matches('/'))
}

/// The catalog identifier of the card named `name`, in the domain-anchored form the draft's
/// discovery document gives (`urn:air:{publisher}:{namespace}:{name}`): the publisher is the
/// name's reverse-DNS namespace read forwards, the namespace `mcp`, then the name after the
/// `/` (`com.example/weather` → `urn:air:example.com:mcp:weather`).
fn identifier(name: &str) -> String {
    let (namespace, server) = name.split_once('/').unwrap_or(("", name));
    let publisher: Vec<&str> = namespace.rsplit('.').collect();
    format!(
        "urn:air:{}:mcp:{server}",
        publisher.join(".").to_ascii_lowercase()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_read_the_namespace_forwards() {
        assert_eq!(
            identifier("com.example/weather"),
            "urn:air:example.com:mcp:weather"
        );
        assert_eq!(
            identifier("io.github.Owner/weather-mcp"),
            "urn:air:owner.github.io:mcp:weather-mcp"
        );
    }

    #[test]
    fn the_card_is_below_the_endpoint() {
        assert_eq!(below("/mcp"), "/mcp/server-card");
        assert_eq!(below("/mcp/"), "/mcp/server-card");
        assert_eq!(below("/"), "/server-card");
        let card = |remote: &str| {
            let made_from = (Implementation::new("w", "1.0.0"), None);
            ServerCard::new(Map::new(), vec![remote.to_owned()], made_from).url()
        };
        assert_eq!(
            card("https://a.example/t/mcp?tenant=x").as_deref(),
            Some("https://a.example/t/mcp/server-card?tenant=x")
        );
    }

    #[test]
    fn remotes_carry_the_versions_served() {
        let made_from = (Implementation::new("w", "1.0.0"), None);
        let mut fields = Map::new();
        fields.insert("name".into(), "com.example/w".into());
        let card = ServerCard::new(fields, vec!["https://a.example/mcp".into()], made_from);
        let doc = card.document(&["2026-07-28".into(), "2025-11-25".into()]);
        assert_eq!(
            doc["remotes"],
            json!([{"type": "streamable-http", "url": "https://a.example/mcp",
                    "supportedProtocolVersions": ["2026-07-28", "2025-11-25"]}])
        );
        let catalog = card.catalog().unwrap();
        assert_eq!(
            catalog["entries"][0]["url"],
            "https://a.example/mcp/server-card"
        );
        assert!(card.describes(&Implementation::new("w", "1.0.0"), None));
        assert!(!card.describes(&Implementation::new("w", "1.0.1"), None));
    }
}
