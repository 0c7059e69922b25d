//! How a mounted server's names and URIs appear in the composite: tool and prompt names behind
//! `{prefix}_` (the separator every host's tool-name rules accept), resource URIs kept, or
//! rewritten as `scheme://{prefix}/rest` together with every link to them.

use serde_json::{Map, Value};

/// The separator between a mount's prefix and its names: `[A-Za-z0-9_-]` is what every host
/// accepts in a tool name (`.` and `/` are allowed by the spec but not by some hosts).
pub(crate) const SEPARATOR: &str = "_";

/// What the composite does with a mount's resource URIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Uris {
    /// Kept as the mounted server serves them (a collision with another origin is reported).
    #[default]
    Keep,
    /// `scheme://rest` served as `scheme://{prefix}/rest`, and every link to it (a tool's
    /// `_meta.ui.resourceUri`) rewritten with it.
    Prefix,
}

/// One mount's naming.
#[derive(Debug, Clone)]
pub(crate) struct Naming {
    /// Empty for a flat mount.
    pub(crate) prefix: String,
    pub(crate) uris: Uris,
}

impl Naming {
    /// Whether `prefix` can lead a name: empty (flat), or 1–32 of `[A-Za-z0-9-]`.
    pub(crate) fn check_prefix(prefix: &str) -> Result<(), String> {
        if prefix.len() > 32
            || !prefix
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return Err(format!(
                "the mount prefix `{prefix}` must be at most 32 of A-Z, a-z, 0-9 and `-` (or empty, for a flat mount)"
            ));
        }
        Ok(())
    }

    /// A tool's or prompt's name in the composite.
    pub(crate) fn name(&self, name: &str) -> String {
        match self.prefix.is_empty() {
            true => name.to_owned(),
            false => format!("{}{SEPARATOR}{name}", self.prefix),
        }
    }

    /// A resource URI (or template) in the composite.
    pub(crate) fn uri(&self, uri: &str) -> String {
        if self.uris == Uris::Keep || self.prefix.is_empty() {
            return uri.to_owned();
        }
        match uri.split_once("://") {
            Some((scheme, rest)) => format!("{scheme}://{}/{rest}", self.prefix),
            None => uri.to_owned(),
        }
    }

    /// The mounted server's URI for a URI of the composite (the inverse of [`Naming::uri`]).
    pub(crate) fn backend_uri(&self, uri: &str) -> String {
        if self.uris == Uris::Keep || self.prefix.is_empty() {
            return uri.to_owned();
        }
        let Some((scheme, rest)) = uri.split_once("://") else {
            return uri.to_owned();
        };
        match rest
            .strip_prefix(self.prefix.as_str())
            .and_then(|r| r.strip_prefix('/'))
        {
            Some(rest) => format!("{scheme}://{rest}"),
            None => uri.to_owned(),
        }
    }

    /// A skill's path in the composite (`{prefix}/path` when URIs are rewritten).
    #[cfg(feature = "skills")]
    pub(crate) fn skill_path(&self, path: &str) -> String {
        match self.uris == Uris::Keep || self.prefix.is_empty() {
            true => path.to_owned(),
            false => format!("{}/{path}", self.prefix),
        }
    }

    /// A tool's `_meta` with its links rewritten (`ui.resourceUri`, and the older
    /// `ui/resourceUri` key).
    pub(crate) fn tool_meta(&self, meta: Option<Map<String, Value>>) -> Option<Map<String, Value>> {
        let mut meta = meta?;
        if let Some(Value::Object(ui)) = meta.get_mut("ui")
            && let Some(Value::String(uri)) = ui.get_mut("resourceUri")
        {
            *uri = self.uri(uri);
        }
        if let Some(Value::String(uri)) = meta.get_mut("ui/resourceUri") {
            *uri = self.uri(uri);
        }
        Some(meta)
    }
}

/// An item's kind and its name (or URI, or URI template) as served here.
pub(crate) type Key = (crate::registry::PrimitiveKind, String);

/// The key of `item`.
pub(crate) fn key(item: &crate::registry::Primitive) -> Key {
    use crate::registry::{Primitive, PrimitiveKind};
    match item {
        Primitive::Tool(t) => (PrimitiveKind::Tool, t.info.name.clone()),
        Primitive::Resource(r) => (PrimitiveKind::Resource, r.info.uri.clone()),
        Primitive::ResourceTemplate(t) => {
            (PrimitiveKind::ResourceTemplate, t.info.uri_template.clone())
        }
        Primitive::Prompt(p) => (PrimitiveKind::Prompt, p.info.name.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::{Naming, Uris};
    use serde_json::json;

    #[test]
    fn names_and_uris_go_both_ways() {
        let n = Naming {
            prefix: "kb".into(),
            uris: Uris::Prefix,
        };
        assert_eq!(n.name("search"), "kb_search");
        assert_eq!(n.uri("ui://search/view.html"), "ui://kb/search/view.html");
        assert_eq!(
            n.backend_uri("ui://kb/search/view.html"),
            "ui://search/view.html"
        );
        assert_eq!(n.uri("notes://{topic}"), "notes://kb/{topic}");
        let meta = json!({"ui": {"resourceUri": "ui://v"}})
            .as_object()
            .cloned();
        assert_eq!(n.tool_meta(meta).unwrap()["ui"]["resourceUri"], "ui://kb/v");
        let flat = Naming {
            prefix: String::new(),
            uris: Uris::Prefix,
        };
        assert_eq!(flat.name("search"), "search");
        assert_eq!(flat.uri("ui://v"), "ui://v");
        assert!(Naming::check_prefix("a_b").is_err());
        assert!(Naming::check_prefix("").is_ok());
    }
}
