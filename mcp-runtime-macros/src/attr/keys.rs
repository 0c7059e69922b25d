//! Every key the attributes take, named once: the parsers match on these constants and list
//! them in their "expected one of" messages.

// Shared by `#[tool]`, `#[resource]` and `#[prompt]`.
pub(crate) const NAME: &str = "name";
pub(crate) const TITLE: &str = "title";
pub(crate) const DESCRIPTION: &str = "description";
pub(crate) const ICON: &str = "icon";
pub(crate) const SCOPES: &str = "scopes";
pub(crate) const AUTHORIZE: &str = "authorize";
pub(crate) const CRATE: &str = "crate";
pub(crate) const COMPLETE: &str = "complete";

// `#[tool]`.
pub(crate) const ANNOTATIONS: &str = "annotations";
pub(crate) const META: &str = "meta";
pub(crate) const TASK: &str = "task";
pub(crate) const UI: &str = "ui";
pub(crate) const VIEW: &str = "view";
pub(crate) const VISIBILITY: &str = "visibility";

// `annotations(...)`.
pub(crate) const READ_ONLY: &str = "read_only";
pub(crate) const DESTRUCTIVE: &str = "destructive";
pub(crate) const IDEMPOTENT: &str = "idempotent";
pub(crate) const OPEN_WORLD: &str = "open_world";

// `#[resource]`.
pub(crate) const URI: &str = "uri";
pub(crate) const MIME_TYPE: &str = "mime_type";
pub(crate) const SIZE: &str = "size";
pub(crate) const CACHE: &str = "cache";

// `cache(...)`.
pub(crate) const TTL_MS: &str = "ttl_ms";
pub(crate) const SCOPE: &str = "scope";

// `icon(...)` (with `mime_type`).
pub(crate) const SRC: &str = "src";
pub(crate) const SIZES: &str = "sizes";
pub(crate) const THEME: &str = "theme";

// Parameter markers: `#[ctx]`, `#[arg]`, `#[roots]`, `#[sample(..)]`, `#[elicit(..)]`.
pub(crate) const CTX: &str = "ctx";
pub(crate) const ARG: &str = "arg";
pub(crate) const ROOTS: &str = "roots";
pub(crate) const SAMPLE: &str = "sample";
pub(crate) const ELICIT: &str = "elicit";

// Arguments of the client-input markers.
pub(crate) const KEY: &str = "key";
pub(crate) const PROMPT: &str = "prompt";
pub(crate) const MAX_TOKENS: &str = "max_tokens";
pub(crate) const SYSTEM_PROMPT: &str = "system_prompt";
pub(crate) const MESSAGE: &str = "message";

// `#[form(...)]` on a field of `#[derive(ElicitForm)]` (with `title`, `description` and
// `rename`).
pub(crate) const FORM: &str = "form";
pub(crate) const MIN_LENGTH: &str = "min_length";
pub(crate) const MAX_LENGTH: &str = "max_length";
pub(crate) const MINIMUM: &str = "minimum";
pub(crate) const MAXIMUM: &str = "maximum";
pub(crate) const FORMAT: &str = "format";

// Attributes of a parameter forwarded to the arguments struct, and the keys read from them.
pub(crate) const SERDE: &str = "serde";
pub(crate) const SCHEMARS: &str = "schemars";
pub(crate) const RENAME: &str = "rename";
pub(crate) const RENAME_ALL: &str = "rename_all";
pub(crate) const ALIAS: &str = "alias";
pub(crate) const DEFAULT: &str = "default";
