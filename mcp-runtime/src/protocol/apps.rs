//! The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865): a tool points at a `ui://`
//! resource holding one HTML document, which a host renders in a sandboxed frame.

/// The extension's identifier, under `capabilities.extensions`.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML document.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The scheme of an app's resource URI.
pub const UI_SCHEME: &str = "ui://";

/// The key of a tool's `_meta` under which older hosts look for its app (the spec's first
/// form, kept beside `_meta.ui.resourceUri`).
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";
