//! Content blocks carried by tool results and prompt messages, and resource contents.

use super::meta::{Annotations, Icon};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One block of content (`ContentBlock`).
///
/// ```
/// use mcp_runtime::protocol::Content;
/// let block = Content::text("42");
/// assert_eq!(serde_json::to_value(&block).unwrap(), serde_json::json!({"type": "text", "text": "42"}));
/// ```
// Deserialize: `protocol::readers` (read without serde's buffering).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Text.
    Text(TextContent),
    /// A base64 image.
    Image(MediaContent),
    /// Base64 audio.
    Audio(MediaContent),
    /// A link to a resource.
    ResourceLink(ResourceLink),
    /// An embedded resource.
    Resource(EmbeddedResource),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
        })
    }
    /// An image block from base64 `data`.
    pub fn image(data_base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image(MediaContent::new(data_base64, mime_type))
    }
    /// An audio block from base64 `data`.
    pub fn audio(data_base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Audio(MediaContent::new(data_base64, mime_type))
    }
    /// A resource link.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink(ResourceLink {
            resource: Resource::new(uri, name),
        })
    }
    /// An embedded resource.
    pub fn embedded(resource: ResourceContents) -> Self {
        Content::Resource(EmbeddedResource {
            resource,
            annotations: None,
            meta: None,
        })
    }
    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// A text block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// An image or audio block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MediaContent {
    /// Base64 data.
    pub data: String,
    /// MIME type.
    pub mime_type: String,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl MediaContent {
    /// Base64 data of a MIME type.
    pub fn new(data_base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        MediaContent {
            data: data_base64.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }
}

/// A link to a resource: a full `Resource` plus `type: "resource_link"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResourceLink {
    /// The linked resource.
    #[serde(flatten)]
    pub resource: Resource,
}

/// An embedded resource block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The contents of a resource: text or a base64 blob.
///
/// ```
/// use mcp_runtime::protocol::ResourceContents;
/// let c = ResourceContents::text("config://service", "{}").mime_type("application/json");
/// assert_eq!(serde_json::to_value(&c).unwrap()["mimeType"], "application/json");
/// let b = ResourceContents::blob("test://b", &[0u8, 1, 2]);
/// assert_eq!(serde_json::to_value(&b).unwrap()["blob"], "AAEC");
/// ```
// Deserialize: `protocol::readers` (read without serde's buffering).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceContents {
    /// The URI of these contents.
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text, or base64 bytes.
    #[serde(flatten)]
    pub body: ResourceBody,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `text` or `blob` member of resource contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ResourceBody {
    /// Text contents.
    Text(String),
    /// Base64-encoded bytes.
    Blob(String),
}

impl ResourceContents {
    /// Text contents.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
            meta: None,
        }
    }
    /// Binary contents (base64-encoded here).
    pub fn blob(uri: impl Into<String>, bytes: &[u8]) -> Self {
        use base64::Engine as _;
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(base64::engine::general_purpose::STANDARD.encode(bytes)),
            meta: None,
        }
    }
    /// Binary contents already encoded as base64.
    ///
    /// ```
    /// use mcp_runtime::protocol::ResourceContents;
    /// let c = ResourceContents::blob_base64("test://b", "AAEC");
    /// assert_eq!(serde_json::to_value(&c).unwrap()["blob"], "AAEC");
    /// ```
    pub fn blob_base64(uri: impl Into<String>, base64: impl Into<String>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(base64.into()),
            meta: None,
        }
    }
    /// Sets the MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime: impl Into<String>) -> Self {
        self.mime_type = Some(mime.into());
        self
    }
}

/// `Resource`: an entry of `resources/list` (also the body of a resource link).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// Machine name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Size of the raw content in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            size: None,
            icons: None,
            meta: None,
        }
    }
}

/// `ResourceTemplate`: an entry of `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// RFC 6570 URI template.
    pub uri_template: String,
    /// Machine name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}
