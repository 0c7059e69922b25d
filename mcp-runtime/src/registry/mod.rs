//! The registry of tools, resources, resource templates and prompts.

mod headers;
mod output;
mod prompt;
mod resource;
mod tool;

pub(crate) use headers::check as check_param_headers;
pub use output::*;
pub use prompt::*;
pub use resource::*;
pub use tool::*;

use crate::context::RequestContext;
use crate::error::{BuildError, SourceLocation};
use crate::protocol::Completion;
use crate::schema::ArgumentValidator;
use crate::{McpError, UriTemplate};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// A boxed, `Send` future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A completion request for one argument or template variable.
#[derive(Debug)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The argument (or variable) name.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// Other arguments already resolved.
    pub context: BTreeMap<String, String>,
    /// The request context.
    pub request: RequestContext,
}

type CompleteFn =
    dyn Fn(CompletionRequest) -> BoxFuture<'static, Result<Completion, McpError>> + Send + Sync;

/// Suggests values for a prompt argument or a template variable.
///
/// ```
/// use mcp_runtime::Completer;
/// let c = Completer::from_values(["python", "pytorch", "rust"]);
/// ```
#[derive(Clone)]
pub struct Completer(pub(crate) Arc<CompleteFn>);

impl std::fmt::Debug for Completer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Completer")
    }
}

impl Completer {
    /// A completer from an async function.
    pub fn new<F, Fut>(f: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        Completer(Arc::new(move |req| {
            let fut = f(req);
            Box::pin(async move { Ok(Completion::new(fut.await)) })
        }))
    }
    /// Completes by prefix from a fixed list.
    pub fn from_values<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Self {
        let values: Arc<Vec<String>> = Arc::new(values.into_iter().map(Into::into).collect());
        Completer::new(move |req: CompletionRequest| {
            let values = values.clone();
            async move {
                values
                    .iter()
                    .filter(|v| v.starts_with(&req.value))
                    .cloned()
                    .collect()
            }
        })
    }
}

/// Position of each registered name (tool, prompt) or URI in its list.
///
/// Hashed with FNV-1a instead of SipHash: the keys are the server's own names, fixed when the
/// registry is built, so client input only ever looks up (it cannot grow a bucket).
pub(crate) type NameIndex = HashMap<String, usize, std::hash::BuildHasherDefault<NameHasher>>;

/// FNV-1a (64-bit), for [`NameIndex`].
pub(crate) struct NameHasher(u64);

impl Default for NameHasher {
    fn default() -> Self {
        NameHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) struct ToolEntry {
    /// The name, shared (MRTR bindings keep it without a copy).
    pub(crate) name: Arc<str>,
    pub(crate) headers: Vec<headers::ParamHeader>,
    pub(crate) tool: Tool,
    pub(crate) json: Box<RawValue>,
    validator: std::sync::OnceLock<Result<ArgumentValidator, String>>,
    pub(crate) handler: tool::ToolHandler,
}

impl ToolEntry {
    /// The compiled argument validator (compiled now if it was deferred).
    pub(crate) fn validator(&self) -> Result<&ArgumentValidator, McpError> {
        self.validator
            .get_or_init(|| ArgumentValidator::compile(&self.tool.info.input_schema))
            .as_ref()
            .map_err(|e| {
                McpError::internal(format!(
                    "the inputSchema of tool `{}` does not compile: {e}",
                    self.tool.info.name
                ))
            })
    }
}

pub(crate) struct ResourceEntry {
    pub(crate) resource: Resource,
    pub(crate) json: Box<RawValue>,
    pub(crate) handler: Arc<ResourceFn>,
}

pub(crate) struct TemplateEntry {
    pub(crate) template: ResourceTemplate,
    pub(crate) parsed: UriTemplate,
    pub(crate) json: Box<RawValue>,
    pub(crate) handler: Arc<ResourceFn>,
}

pub(crate) struct PromptEntry {
    pub(crate) prompt: Prompt,
    pub(crate) json: Box<RawValue>,
    pub(crate) handler: Arc<PromptFn>,
    pub(crate) required: Vec<String>,
}

/// An immutable snapshot of everything registered.
#[derive(Default)]
pub(crate) struct Registry {
    pub(crate) tools: Vec<Arc<ToolEntry>>,
    pub(crate) tool_index: NameIndex,
    pub(crate) resources: Vec<Arc<ResourceEntry>>,
    pub(crate) resource_index: NameIndex,
    pub(crate) templates: Vec<Arc<TemplateEntry>>,
    pub(crate) prompts: Vec<Arc<PromptEntry>>,
    pub(crate) prompt_index: NameIndex,
}

/// Everything a server holds, before validation.
#[derive(Default, Clone)]
pub(crate) struct Items {
    pub(crate) tools: Vec<Tool>,
    pub(crate) resources: Vec<Resource>,
    pub(crate) templates: Vec<ResourceTemplate>,
    pub(crate) prompts: Vec<Prompt>,
    /// Registered but hidden.
    pub(crate) disabled: Vec<(crate::server::PrimitiveKind, String)>,
}

impl Items {
    pub(crate) fn len(&self) -> usize {
        self.tools.len() + self.resources.len() + self.templates.len() + self.prompts.len()
    }
    pub(crate) fn contains(&self, kind: crate::server::PrimitiveKind, key: &str) -> bool {
        use crate::server::PrimitiveKind as K;
        match kind {
            K::Tool => self.tools.iter().any(|t| t.info.name == key),
            K::Resource => self.resources.iter().any(|r| r.info.uri == key),
            K::ResourceTemplate => self.templates.iter().any(|t| t.info.uri_template == key),
            K::Prompt => self.prompts.iter().any(|p| p.info.name == key),
        }
    }
    fn enabled(&self, kind: crate::server::PrimitiveKind, key: &str) -> bool {
        !self.disabled.iter().any(|(k, n)| *k == kind && n == key)
    }
}

/// Tool names: 1–64 characters of `[A-Za-z0-9_.-]` (the spec allows 128; clients and the
/// conformance suite reject more than 64).
pub(crate) fn check_tool_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err(format!(
            "a tool name must be 1 to 64 characters long (this one has {})",
            name.chars().count()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Err(format!(
            "a tool name may contain only ASCII letters, digits, `_`, `.` and `-` (found {c:?})"
        ));
    }
    Ok(())
}

fn has_scheme(uri: &str) -> bool {
    match uri.find(':') {
        Some(i) if i > 0 => {
            let scheme = &uri[..i];
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        _ => false,
    }
}

fn raw<T: serde::Serialize>(v: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(v).unwrap_or_else(|_| {
        // Serializing plain data structs cannot fail; keep a valid JSON value regardless.
        RawValue::from_string("null".to_owned()).unwrap_or_default()
    })
}

impl Registry {
    /// Validates and indexes `items`, reporting every problem at once.
    pub(crate) fn build(items: &Items) -> Result<Registry, BuildError> {
        let mut errors = Vec::new();
        let mut reg = Registry::default();
        let mut seen: HashMap<(&'static str, String), Option<SourceLocation>> = HashMap::new();
        let mut dup = |kind: &'static str,
                       key: &str,
                       loc: Option<SourceLocation>,
                       errors: &mut Vec<BuildError>| {
            match seen.get(&(kind, key.to_owned())) {
                Some(first) => {
                    errors.push(BuildError::Duplicate {
                        kind,
                        name: key.to_owned(),
                        first: *first,
                        second: loc,
                    });
                    true
                }
                None => {
                    seen.insert((kind, key.to_owned()), loc);
                    false
                }
            }
        };
        let invalid =
            |kind: &'static str, name: &str, reason: String, location| BuildError::Invalid {
                kind,
                name: name.to_owned(),
                reason,
                location,
            };

        for tool in &items.tools {
            let name = tool.info.name.as_str();
            if let Err(reason) = check_tool_name(name) {
                errors.push(invalid("tool", name, reason, tool.source));
                continue;
            }
            if !tool.problems.is_empty() {
                for reason in &tool.problems {
                    errors.push(invalid("tool", name, reason.clone(), tool.source));
                }
                continue;
            }
            if dup("tool", name, tool.source, &mut errors) {
                continue;
            }
            if tool.info.input_schema.get("type") != Some(&Value::from("object")) {
                errors.push(invalid(
                    "tool",
                    name,
                    "its inputSchema must have `\"type\": \"object\"` at the root".into(),
                    tool.source,
                ));
                continue;
            }
            // Hand-written schemas are checked now, so a bad one is a startup error; generated
            // ones are valid by construction and compiled on first use (faster cold start).
            let validator = std::sync::OnceLock::new();
            if tool.schema_derived && crate::schema::enforced_by_types(&tool.info.input_schema) {
                // Every keyword is one the typed parse enforces itself (types, required fields,
                // no unknown fields): the handler's deserialization is the validation.
                let _ = validator.set(Ok(ArgumentValidator::TypedParse));
            } else if !tool.schema_derived {
                match ArgumentValidator::compile(&tool.info.input_schema) {
                    Ok(v) => {
                        let _ = validator.set(Ok(v));
                    }
                    Err(e) => {
                        errors.push(invalid(
                            "tool",
                            name,
                            format!("its inputSchema is not a valid JSON Schema: {e}"),
                            tool.source,
                        ));
                        continue;
                    }
                }
            }
            let param_headers = match headers::collect(&tool.info.input_schema) {
                Ok(h) => h,
                Err(reason) => {
                    errors.push(invalid("tool", name, reason, tool.source));
                    continue;
                }
            };
            let Some(handler) = tool.handler.clone() else {
                errors.push(invalid(
                    "tool",
                    name,
                    "it has no handler".into(),
                    tool.source,
                ));
                continue;
            };
            if !items.enabled(crate::server::PrimitiveKind::Tool, name) {
                continue;
            }
            reg.tool_index.insert(name.to_owned(), reg.tools.len());
            reg.tools.push(Arc::new(ToolEntry {
                name: Arc::from(name),
                headers: param_headers,
                json: raw(&tool.info),
                tool: tool.clone(),
                validator,
                handler,
            }));
        }

        for res in &items.resources {
            let uri = res.info.uri.as_str();
            if !has_scheme(uri) {
                errors.push(invalid(
                    "resource",
                    uri,
                    "a resource URI must start with a scheme, like `config://service`".into(),
                    res.source,
                ));
                continue;
            }
            if res.info.name.is_empty() {
                errors.push(invalid(
                    "resource",
                    uri,
                    "its name is empty".into(),
                    res.source,
                ));
                continue;
            }
            if dup("resource", uri, res.source, &mut errors) {
                continue;
            }
            let Some(handler) = res.handler.clone() else {
                errors.push(invalid(
                    "resource",
                    uri,
                    "it has no handler".into(),
                    res.source,
                ));
                continue;
            };
            if !items.enabled(crate::server::PrimitiveKind::Resource, uri) {
                continue;
            }
            reg.resource_index
                .insert(uri.to_owned(), reg.resources.len());
            reg.resources.push(Arc::new(ResourceEntry {
                json: raw(&res.info),
                resource: res.clone(),
                handler,
            }));
        }

        for t in &items.templates {
            let text = t.info.uri_template.as_str();
            let parsed = match UriTemplate::parse(text) {
                Ok(p) => p,
                Err(e) => {
                    errors.push(invalid("resource template", text, e, t.source));
                    continue;
                }
            };
            if !has_scheme(text) {
                errors.push(invalid(
                    "resource template",
                    text,
                    "a URI template must start with a scheme, like `files://{path}`".into(),
                    t.source,
                ));
                continue;
            }
            if dup("resource template", text, t.source, &mut errors) {
                continue;
            }
            for var in t.completers.keys() {
                if !parsed.variables().any(|v| v == var) {
                    errors.push(invalid("resource template", text, format!("a completer is declared for `{var}`, which is not a variable of the template"), t.source));
                }
            }
            let Some(handler) = t.handler.clone() else {
                errors.push(invalid(
                    "resource template",
                    text,
                    "it has no handler".into(),
                    t.source,
                ));
                continue;
            };
            if !items.enabled(crate::server::PrimitiveKind::ResourceTemplate, text) {
                continue;
            }
            reg.templates.push(Arc::new(TemplateEntry {
                json: raw(&t.info),
                template: t.clone(),
                parsed,
                handler,
            }));
        }

        for p in &items.prompts {
            let name = p.info.name.as_str();
            if name.is_empty() || name.chars().any(|c| c.is_control() || c.is_whitespace()) {
                errors.push(invalid(
                    "prompt",
                    name,
                    "a prompt name must be non-empty, without spaces or control characters".into(),
                    p.source,
                ));
                continue;
            }
            if dup("prompt", name, p.source, &mut errors) {
                continue;
            }
            let args = p.info.arguments.as_deref().unwrap_or_default();
            for var in p.completers.keys() {
                if !args.iter().any(|a| &a.name == var) {
                    errors.push(invalid("prompt", name, format!("a completer is declared for `{var}`, which is not an argument of the prompt"), p.source));
                }
            }
            let Some(handler) = p.handler.clone() else {
                errors.push(invalid(
                    "prompt",
                    name,
                    "it has no handler".into(),
                    p.source,
                ));
                continue;
            };
            if !items.enabled(crate::server::PrimitiveKind::Prompt, name) {
                continue;
            }
            reg.prompt_index.insert(name.to_owned(), reg.prompts.len());
            reg.prompts.push(Arc::new(PromptEntry {
                json: raw(&p.info),
                required: args
                    .iter()
                    .filter(|a| a.required == Some(true))
                    .map(|a| a.name.clone())
                    .collect(),
                prompt: p.clone(),
                handler,
            }));
        }

        match errors.len() {
            0 => Ok(reg),
            1 => Err(errors.remove(0)),
            _ => Err(BuildError::Many(errors)),
        }
    }

    pub(crate) fn has_completions(&self) -> bool {
        self.prompts.iter().any(|p| !p.prompt.completers.is_empty())
            || self
                .templates
                .iter()
                .any(|t| !t.template.completers.is_empty())
    }
}
