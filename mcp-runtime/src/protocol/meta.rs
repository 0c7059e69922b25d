//! Per-request `_meta`, result `_meta`, capabilities and implementation info.

use super::capabilities::ClientCapabilities;
use super::jsonrpc::{ProgressToken, RequestId};
use super::key::Key;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::Arc;

/// `_meta` key of the protocol version a request is made in.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities valid for one request.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's self-description.
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the log level a request opts into.
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta` key of the server's self-description.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// Notification `_meta` key naming the `subscriptions/listen` request a notification belongs to.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// The protocol revision this crate implements.
pub const LATEST_PROTOCOL_VERSION: &str = "2026-07-28";

/// The `_meta` object every 2026-07-28 request carries in `params`.
///
/// The two required fields are `Option`s here so that a request lacking them can be answered with
/// the spec's `-32602` instead of a generic parse failure.
///
/// ```
/// use mcp_runtime::protocol::RequestMeta;
/// let meta: RequestMeta = serde_json::from_value(serde_json::json!({
///     "io.modelcontextprotocol/protocolVersion": "2026-07-28",
///     "io.modelcontextprotocol/clientCapabilities": {},
///     "progressToken": "p-1"
/// })).unwrap();
/// assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
/// assert!(meta.progress_token.is_some());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RequestMeta {
    /// The protocol version of this request.
    ///
    /// The version this crate speaks is borrowed, not copied, when a request names it.
    #[serde(
        rename = "io.modelcontextprotocol/protocolVersion",
        skip_serializing_if = "Option::is_none"
    )]
    pub protocol_version: Option<std::borrow::Cow<'static, str>>,
    /// The client capabilities valid for this request.
    #[serde(
        rename = "io.modelcontextprotocol/clientCapabilities",
        skip_serializing_if = "Option::is_none"
    )]
    pub client_capabilities: Option<ClientCapabilities>,
    /// The client's self-description (optional, informational only).
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Implementation>,
    /// The lowest log level the client wants as `notifications/message` (a raw string: an
    /// unknown level is answered with `-32602`).
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<String>,
    /// Opt-in to `notifications/progress` for this request.
    #[serde(rename = "progressToken", skip_serializing_if = "Option::is_none")]
    pub progress_token: Option<ProgressToken>,
    /// Every other key (trace context, extension keys, …), kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A program's self-description (`clientInfo` / `serverInfo`).
///
/// ```
/// use mcp_runtime::protocol::Implementation;
/// let info = Implementation::new("study-server", "2.0.0");
/// assert_eq!(serde_json::to_value(&info).unwrap(),
///            serde_json::json!({"name": "study-server", "version": "2.0.0"}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Implementation {
    /// Machine name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Home page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
}

impl Implementation {
    /// A name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: None,
        }
    }
}

/// An icon for a server, tool, prompt, resource or template.
///
/// ```
/// use mcp_runtime::protocol::Icon;
/// let icon = Icon::new("https://example.com/i.png").mime_type("image/png");
/// assert_eq!(serde_json::to_value(&icon).unwrap()["mimeType"], "image/png");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// MIME type of the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

impl Icon {
    /// An icon at `src`.
    pub fn new(src: impl Into<String>) -> Self {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: None,
            theme: None,
        }
    }
    /// Sets the MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime: impl Into<String>) -> Self {
        self.mime_type = Some(mime.into());
        self
    }
    /// Sets the sizes.
    #[must_use]
    pub fn sizes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, sizes: I) -> Self {
        self.sizes = Some(sizes.into_iter().map(Into::into).collect());
        self
    }
    /// Sets the theme (`"light"` or `"dark"`).
    #[must_use]
    pub fn theme(mut self, theme: impl Into<String>) -> Self {
        self.theme = Some(theme.into());
        self
    }
}

/// The `_meta` object of a result.
///
/// ```
/// use mcp_runtime::protocol::{Implementation, ResultMeta};
/// let meta = ResultMeta::server(std::sync::Arc::new(Implementation::new("s", "1")));
/// assert_eq!(serde_json::to_value(&meta).unwrap()["io.modelcontextprotocol/serverInfo"]["name"], "s");
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct ResultMeta {
    /// The server's self-description.
    #[serde(rename = "io.modelcontextprotocol/serverInfo", default)]
    pub server_info: Option<Arc<Implementation>>,
    /// On a `subscriptions/listen` result: the subscription it ends.
    #[serde(rename = "io.modelcontextprotocol/subscriptionId", default)]
    pub subscription_id: Option<RequestId>,
    /// Other keys.
    #[serde(flatten)]
    pub other: Map<String, Value>,
    /// `server_info` serialized once per server (it goes into every result).
    #[serde(skip)]
    pub(crate) server_info_json: Option<InfoJson>,
}

/// An [`Implementation`] and its JSON, serialized once.
#[derive(Clone)]
pub(crate) struct InfoJson {
    from: Arc<Implementation>,
    json: Arc<serde_json::value::RawValue>,
}

impl InfoJson {
    /// The serialized `serverInfo`.
    pub(crate) fn text(&self) -> &str {
        self.json.get()
    }

    pub(crate) fn new(info: Arc<Implementation>) -> Option<InfoJson> {
        let json = serde_json::value::to_raw_value(&*info).ok()?;
        Some(InfoJson {
            from: info,
            json: Arc::from(json),
        })
    }
}

impl std::fmt::Debug for InfoJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.json.get())
    }
}

impl PartialEq for ResultMeta {
    /// What is sent: `server_info_json` only caches the JSON of `server_info`.
    fn eq(&self, other: &ResultMeta) -> bool {
        self.server_info == other.server_info
            && self.subscription_id == other.subscription_id
            && self.other == other.other
    }
}

impl ResultMeta {
    /// A meta object with only `serverInfo`.
    pub fn server(info: Arc<Implementation>) -> Self {
        ResultMeta {
            server_info: Some(info),
            subscription_id: None,
            other: Map::new(),
            server_info_json: None,
        }
    }
    /// A meta object with only `serverInfo`, serialized from `cached`.
    pub(crate) fn server_cached(cached: &InfoJson) -> Self {
        ResultMeta {
            server_info: Some(cached.from.clone()),
            subscription_id: None,
            other: Map::new(),
            server_info_json: Some(cached.clone()),
        }
    }
    /// A meta object with only `subscriptionId`.
    pub(crate) fn subscription(id: RequestId) -> Self {
        ResultMeta {
            server_info: None,
            subscription_id: Some(id),
            other: Map::new(),
            server_info_json: None,
        }
    }
    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        self.server_info.is_none() && self.subscription_id.is_none() && self.other.is_empty()
    }
}

/// The `_meta` object of a notification.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NotificationMeta {
    /// Present on notifications delivered through a `subscriptions/listen` stream.
    #[serde(
        rename = "io.modelcontextprotocol/subscriptionId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub subscription_id: Option<RequestId>,
    /// Other keys.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl NotificationMeta {
    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        self.subscription_id.is_none() && self.other.is_empty()
    }
}

/// Log severities of `notifications/message`, lowest first (RFC 5424 order).
///
/// ```
/// use mcp_runtime::protocol::LoggingLevel;
/// assert!(LoggingLevel::Error > LoggingLevel::Info);
/// assert_eq!("warning".parse::<LoggingLevel>().unwrap(), LoggingLevel::Warning);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Debug.
    Debug,
    /// Info.
    Info,
    /// Notice.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical.
    Critical,
    /// Alert.
    Alert,
    /// Emergency.
    Emergency,
}

impl std::str::FromStr for LoggingLevel {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Ok(match s {
            "debug" => LoggingLevel::Debug,
            "info" => LoggingLevel::Info,
            "notice" => LoggingLevel::Notice,
            "warning" => LoggingLevel::Warning,
            "error" => LoggingLevel::Error,
            "critical" => LoggingLevel::Critical,
            "alert" => LoggingLevel::Alert,
            "emergency" => LoggingLevel::Emergency,
            _ => return Err(()),
        })
    }
}

/// Hints about how clients use a piece of content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// `"user"` and/or `"assistant"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// 0 (least) to 1 (most important).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<serde_json::Number>,
    /// ISO 8601 timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// The sender of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

// Hand-written deserialization of the hot `_meta` object: serde's `flatten` buffers every entry
// into an intermediate tree, which this visitor avoids. A key given twice is refused with a
// "duplicate field" error naming it, as serde's derived structs refuse a member of `params` or
// of the envelope given twice: were the last value to win, two readers of one request could
// disagree on it. The check costs a bit per known key, and for the others the map's own entry
// lookup (which the insert needed anyway).

struct RequestMetaVisitor;

/// The error of a `_meta` key given twice (a long key cut to its first 64 characters).
fn duplicate<E: serde::de::Error>(key: &str) -> E {
    let shown = match key.char_indices().nth(64) {
        Some((end, _)) => format!("{}…", &key[..end]),
        None => key.to_owned(),
    };
    E::custom(format_args!(
        "duplicate field `{shown}`; each key of `_meta` appears once"
    ))
}

impl<'de> serde::de::Visitor<'de> for RequestMetaVisitor {
    type Value = RequestMeta;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a `_meta` object")
    }
    // Kept inside `deserialize` (read on every request): left to codegen, it was split out
    // once the files' imports were redrawn (BENCHMARKS.md, "The public face settled").
    #[inline]
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<RequestMeta, A::Error> {
        let mut meta = RequestMeta::default();
        // One bit per known key read so far.
        let mut seen = 0u8;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let bit = match key.as_ref() {
                PROTOCOL_VERSION_KEY => 1,
                CLIENT_CAPABILITIES_KEY => 2,
                CLIENT_INFO_KEY => 4,
                LOG_LEVEL_KEY => 8,
                "progressToken" => 16,
                _ => 0,
            };
            if seen & bit != 0 {
                return Err(duplicate(key.as_ref()));
            }
            seen |= bit;
            match bit {
                1 => {
                    meta.protocol_version =
                        map.next_value::<Option<Key<'de>>>()?
                            .map(|v| match v.as_ref() {
                                LATEST_PROTOCOL_VERSION => {
                                    std::borrow::Cow::Borrowed(LATEST_PROTOCOL_VERSION)
                                }
                                _ => std::borrow::Cow::Owned(v.into_owned()),
                            })
                }
                2 => {
                    meta.client_capabilities = map
                        .next_value::<Option<super::object::Object<_>>>()?
                        .map(|o| o.0);
                }
                4 => {
                    meta.client_info = map
                        .next_value::<Option<super::object::Object<_>>>()?
                        .map(|o| o.0);
                }
                8 => meta.log_level = map.next_value()?,
                16 => meta.progress_token = map.next_value()?,
                _ => match meta.other.entry(key.into_owned()) {
                    serde_json::map::Entry::Vacant(slot) => {
                        slot.insert(map.next_value()?);
                    }
                    serde_json::map::Entry::Occupied(slot) => {
                        return Err(duplicate(slot.key()));
                    }
                },
            }
        }
        Ok(meta)
    }
}

impl<'de> Deserialize<'de> for RequestMeta {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(RequestMetaVisitor)
    }
}

impl Serialize for ResultMeta {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        match (&self.server_info, &self.server_info_json) {
            // The cache is only used while it describes the same (immutable) value.
            (Some(info), Some(cached)) if Arc::ptr_eq(info, &cached.from) => {
                map.serialize_entry(SERVER_INFO_KEY, &*cached.json)?;
            }
            (Some(info), _) => map.serialize_entry(SERVER_INFO_KEY, info)?,
            (None, _) => {}
        }
        if let Some(id) = &self.subscription_id {
            map.serialize_entry(SUBSCRIPTION_ID_KEY, id)?;
        }
        for (k, v) in &self.other {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<RequestMeta, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// A key given twice, known or not, is refused and named; once each, all are read.
    #[test]
    fn a_key_twice_is_refused_and_named() {
        let v = PROTOCOL_VERSION_KEY;
        let c = CLIENT_CAPABILITIES_KEY;
        for (text, key) in [
            (format!(r#"{{"{v}":"2026-07-28","{v}":"2026-07-28"}}"#), v),
            (format!(r#"{{"{v}":"2026-07-28","{c}":{{}},"{v}":"x"}}"#), v),
            (format!(r#"{{"{c}":{{}},"{c}":{{}}}}"#), c),
            (
                format!(r#"{{"{CLIENT_INFO_KEY}":null,"{CLIENT_INFO_KEY}":null}}"#),
                CLIENT_INFO_KEY,
            ),
            (
                format!(r#"{{"{LOG_LEVEL_KEY}":"info","{LOG_LEVEL_KEY}":"debug"}}"#),
                LOG_LEVEL_KEY,
            ),
            (
                r#"{"progressToken":1,"progressToken":1}"#.to_owned(),
                "progressToken",
            ),
            (r#"{"x/a":1,"x/b":2,"x/a":3}"#.to_owned(), "x/a"),
            // The same key, once spelled with an escape.
            (r#"{"x/a":1,"x\/a":2}"#.to_owned(), "x/a"),
            (
                r#"{"io.modelcontextprotocol\/protocolVersion":"a","io.modelcontextprotocol/protocolVersion":"b"}"#
                    .to_owned(),
                v,
            ),
        ] {
            let e = read(&text).unwrap_err();
            assert!(e.contains(&format!("duplicate field `{key}`")), "{text}: {e}");
        }
        let long = "k".repeat(1000);
        let e = read(&format!(r#"{{"{long}":1,"{long}":2}}"#)).unwrap_err();
        assert!(e.len() < 300, "a long key is cut: {e}");
        let meta = read(&format!(
            r#"{{"{v}":"2026-07-28","{c}":{{}},"progressToken":"p","x/a":1,"x/b":2}}"#
        ))
        .unwrap();
        assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
        assert_eq!(meta.other.len(), 2);
    }
}
