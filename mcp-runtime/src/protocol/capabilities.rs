//! Capabilities: what a client declares for one request, and what the server advertises.

use super::key::Key;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Capabilities a client declares for one request.
///
/// Every member is kept as a raw object: capability objects are open sets.
///
/// ```
/// use mcp_runtime::protocol::ClientCapabilities;
/// let caps: ClientCapabilities = serde_json::from_str(r#"{"elicitation":{}}"#).unwrap();
/// assert!(caps.elicitation_form());
/// assert!(!caps.elicitation_url());
/// assert!(caps.sampling.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Experimental capabilities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// Roots (deprecated feature).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Map<String, Value>>,
    /// Sampling (deprecated feature): `context`, `tools`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Map<String, Value>>,
    /// Elicitation: `form`, `url` (`{}` means form only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<Map<String, Value>>,
    /// Extensions by id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Unknown members, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl ClientCapabilities {
    /// Whether form-mode elicitation is declared (`elicitation: {}` counts as form).
    pub fn elicitation_form(&self) -> bool {
        match &self.elicitation {
            None => false,
            Some(e) => e.contains_key("form") || !e.contains_key("url"),
        }
    }
    /// Whether URL-mode elicitation is declared.
    pub fn elicitation_url(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(|e| e.contains_key("url"))
    }
    /// Whether the extension `id` is declared.
    pub fn has_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }
    /// Whether the client renders MCP Apps: it declares the extension
    /// (`io.modelcontextprotocol/ui`), and its `mimeTypes`, when it lists any, include
    /// `text/html;profile=mcp-app`. A tool linked to an app answers every client with meaningful
    /// text; this says whether the app will be shown beside it.
    ///
    /// ```
    /// use mcp_runtime::protocol::ClientCapabilities;
    /// let caps: ClientCapabilities = serde_json::from_str(r#"{"extensions":
    ///     {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}"#).unwrap();
    /// assert!(caps.supports_apps());
    /// assert!(!ClientCapabilities::default().supports_apps());
    /// ```
    pub fn supports_apps(&self) -> bool {
        let Some(ui) = self
            .extensions
            .as_ref()
            .and_then(|e| e.get(super::apps::UI_EXTENSION))
        else {
            return false;
        };
        match ui.get("mimeTypes").and_then(Value::as_array) {
            Some(types) => types.iter().any(|t| t == super::apps::APP_MIME_TYPE),
            None => true,
        }
    }
}

/// Capabilities the server advertises in `server/discover`.
///
/// ```
/// use mcp_runtime::protocol::ServerCapabilities;
/// let caps = ServerCapabilities::default();
/// assert_eq!(serde_json::to_string(&caps).unwrap(), "{}");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// Logging (deprecated feature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Map<String, Value>>,
    /// Argument completion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Map<String, Value>>,
    /// Prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListCapability>,
    /// Resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListCapability>,
    /// Extensions by id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Unknown members.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `tools` / `prompts` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListCapability {
    /// Whether `notifications/*/list_changed` is sent on listen streams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `resources` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// Whether `resourceSubscriptions` are honoured on listen streams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Whether `notifications/resources/list_changed` is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

// Hand-written deserialization (read with every request's `_meta`): serde's `flatten` buffers
// every entry into an intermediate tree, which this visitor avoids.
struct ClientCapabilitiesVisitor;

impl<'de> serde::de::Visitor<'de> for ClientCapabilitiesVisitor {
    type Value = ClientCapabilities;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a client capabilities object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> Result<ClientCapabilities, A::Error> {
        let mut caps = ClientCapabilities::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            match key.as_ref() {
                "experimental" => caps.experimental = map.next_value()?,
                "roots" => caps.roots = map.next_value()?,
                "sampling" => caps.sampling = map.next_value()?,
                "elicitation" => caps.elicitation = map.next_value()?,
                "extensions" => caps.extensions = map.next_value()?,
                _ => {
                    caps.other.insert(key.into_owned(), map.next_value()?);
                }
            }
        }
        Ok(caps)
    }
}

impl<'de> Deserialize<'de> for ClientCapabilities {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ClientCapabilitiesVisitor)
    }
}
