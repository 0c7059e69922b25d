//! The registry as requests see it: an immutable, validated, indexed snapshot of everything
//! registered ([`Registry`]), rebuilt on every run-time change.

use super::access::{ListGuard, Requirement};
use super::headers::{ParamHeader, collect as collect_param_headers};
use super::kind::{NameIndex, PrimitiveKind};
use super::primitive::Items;
use super::prompt::{Prompt, PromptFn};
use super::resource::{Resource, ResourceFn, ResourceTemplate};
use super::skills::SkillIndex;
use super::tool::{TaskSupport, Tool, ToolHandler};
use crate::context::{StateMap, StateNeed};
use crate::error::{BuildError, SourceLocation};
use crate::protocol::{APP_MIME_TYPE, UI_SCHEME};
use crate::schema::{ArgumentValidator, SchemaDialect};
use crate::uri_template::UriTemplate;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::Arc;

pub(crate) struct ToolEntry {
    /// The name, shared (MRTR bindings keep it without a copy).
    pub(crate) name: Arc<str>,
    /// Arguments mirrored into `Mcp-Param-*` headers (`x-mcp-header`).
    pub(crate) headers: Vec<ParamHeader>,
    pub(crate) tool: Tool,
    pub(crate) json: Box<RawValue>,
    /// How its arguments are checked (compiled at build).
    pub(crate) validator: ArgumentValidator,
    pub(crate) handler: ToolHandler,
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

/// Whether each list of the registry depends on who asks.
#[derive(Default)]
struct ListGuards {
    tools: ListGuard,
    resources: ListGuard,
    templates: ListGuard,
    prompts: ListGuard,
}

/// An immutable snapshot of everything registered.
#[derive(Default)]
pub(crate) struct Registry {
    /// Per list (tools, resources, templates, prompts; the skills' is in [`SkillIndex`]):
    /// whether it depends on the caller. Read through [`Registry::list_guard`].
    guards: ListGuards,
    pub(crate) tools: Vec<Arc<ToolEntry>>,
    pub(crate) tool_index: NameIndex,
    pub(crate) resources: Vec<Arc<ResourceEntry>>,
    pub(crate) resource_index: NameIndex,
    pub(crate) templates: Vec<Arc<TemplateEntry>>,
    pub(crate) prompts: Vec<Arc<PromptEntry>>,
    pub(crate) prompt_index: NameIndex,
    /// The skills (the Skills extension), their folders, and their guard.
    pub(crate) skills: SkillIndex,
    /// Some tool runs as a task.
    pub(crate) tasks: bool,
    /// Some app is served (MCP Apps: a `ui://` view, or a tool linked to one).
    pub(crate) apps: bool,
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

/// A URI (or template) starts with a scheme: the rule `#[resource]` checks at compile time.
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
    /// Whether the list of `kind` depends on who asks (its items require scopes or checks).
    #[deny(clippy::wildcard_enum_match_arm)] // a new method asks for its arm here
    pub(crate) fn list_guard(&self, kind: PrimitiveKind) -> ListGuard {
        match kind {
            PrimitiveKind::Tool => self.guards.tools,
            PrimitiveKind::Resource => self.guards.resources,
            PrimitiveKind::ResourceTemplate => self.guards.templates,
            PrimitiveKind::Prompt => self.guards.prompts,
            PrimitiveKind::Skill => self.skills.guard,
        }
    }

    /// Validates and indexes `items`, reporting every problem at once.
    pub(crate) fn build(items: &Items, state: &StateMap) -> Result<Registry, BuildError> {
        let mut check = Check {
            errors: Vec::new(),
            seen: HashMap::new(),
            state,
        };
        let mut reg = Registry {
            tasks: items.relays_tasks,
            ..Registry::default()
        };
        for tool in &items.tools {
            if let Some(entry) = check.tool(tool, items.dialect)
                && items.enabled(PrimitiveKind::Tool, &tool.info.name)
            {
                reg.tool_index
                    .insert(tool.info.name.clone(), reg.tools.len());
                reg.tools.push(Arc::new(entry));
            }
        }
        #[cfg(feature = "skills")]
        let skill_files = {
            let (skills, files, errors) = SkillIndex::build(&items.skills, |name| {
                items.enabled(PrimitiveKind::Skill, name)
            });
            check.errors.extend(errors);
            reg.skills = skills;
            files
        };
        #[cfg(not(feature = "skills"))]
        let skill_files: [crate::registry::Resource; 0] = [];
        for res in items.resources.iter().chain(&skill_files) {
            if let Some(entry) = check.resource(res)
                && items.enabled(PrimitiveKind::Resource, &res.info.uri)
            {
                reg.resource_index
                    .insert(res.info.uri.clone(), reg.resources.len());
                reg.resources.push(Arc::new(entry));
            }
        }
        for t in &items.templates {
            if let Some(entry) = check.template(t)
                && items.enabled(PrimitiveKind::ResourceTemplate, &t.info.uri_template)
            {
                reg.templates.push(Arc::new(entry));
            }
        }
        for p in &items.prompts {
            if let Some(entry) = check.prompt(p)
                && items.enabled(PrimitiveKind::Prompt, &p.info.name)
            {
                reg.prompt_index
                    .insert(p.info.name.clone(), reg.prompts.len());
                reg.prompts.push(Arc::new(entry));
            }
        }
        for t in &reg.tools {
            reg.guards.tools.add(&t.tool.access);
            reg.tasks |= t.tool.task != TaskSupport::Forbidden;
            if let Some(app) = t.tool.app_uri() {
                reg.apps = true;
                let served = reg.resource_index.contains_key(app)
                    || reg
                        .templates
                        .iter()
                        .any(|e| e.parsed.matches(app).is_some());
                if !app.starts_with(UI_SCHEME) {
                    check.errors.push(BuildError::Invalid {
                        kind: "tool",
                        name: t.tool.info.name.clone(),
                        reason: format!(
                            "it is linked to the app `{app}`, which is no `{UI_SCHEME}` URI"
                        ),
                        location: t.tool.source,
                    });
                } else if !served {
                    check.errors.push(BuildError::Invalid {
                        kind: "tool",
                        name: t.tool.info.name.clone(),
                        reason: format!(
                            "it is linked to the app `{app}`, but no resource is served at that \
                             URI: register a `UiResource` there"
                        ),
                        location: t.tool.source,
                    });
                }
            }
        }
        for r in &reg.resources {
            reg.guards.resources.add(&r.resource.access);
            reg.apps |= r.resource.info.mime_type.as_deref() == Some(APP_MIME_TYPE);
        }
        for t in &reg.templates {
            reg.guards.templates.add(&t.template.access);
        }
        for p in &reg.prompts {
            reg.guards.prompts.add(&p.prompt.access);
        }
        let mut errors = check.errors;
        match errors.len() {
            0 => Ok(reg),
            1 => Err(errors.remove(0)),
            _ => Err(BuildError::Many(errors)),
        }
    }

    /// What reading `uri` requires: the fixed resource's requirement, else that of the first
    /// template the URI matches (the order `resources/read` serves them in).
    pub(crate) fn read_access(&self, uri: &str) -> Option<&Requirement> {
        self.read_target(uri).map(|(access, _, _)| access)
    }

    /// The primitive `resources/read` of `uri` reaches, as [`read_access`](Self::read_access)
    /// finds it: its requirement, its kind and its name (the URI or the URI template).
    pub(crate) fn read_target(&self, uri: &str) -> Option<(&Requirement, PrimitiveKind, &str)> {
        match self.resource_index.get(uri) {
            Some(&i) => {
                let r = &self.resources[i].resource;
                Some((&r.access, PrimitiveKind::Resource, r.info.uri.as_str()))
            }
            None => self
                .templates
                .iter()
                .find(|t| t.parsed.matches(uri).is_some())
                .map(|t| {
                    let t = &t.template;
                    let name = t.info.uri_template.as_str();
                    (&t.access, PrimitiveKind::ResourceTemplate, name)
                }),
        }
    }

    /// Whether some app is served (the MCP Apps extension is).
    pub(crate) fn has_apps(&self) -> bool {
        self.apps
    }

    /// Whether some skill is served (the skills extension is).
    pub(crate) fn has_skills(&self) -> bool {
        !self.skills.entries.is_empty()
    }

    /// Whether some tool runs as a task (the tasks extension is served).
    pub(crate) fn has_tasks(&self) -> bool {
        self.tasks
    }

    pub(crate) fn has_completions(&self) -> bool {
        self.prompts.iter().any(|p| !p.prompt.completers.is_empty())
            || self
                .templates
                .iter()
                .any(|t| !t.template.completers.is_empty())
    }
}

/// The problems found so far, the names seen (to report duplicates with both places), and the
/// shared state handlers may need.
struct Check<'s> {
    errors: Vec<BuildError>,
    seen: HashMap<(&'static str, String), Option<SourceLocation>>,
    state: &'s StateMap,
}

impl Check<'_> {
    /// Reports each of an item's `problems` (what its builder found): whether there were any.
    fn refused(
        &mut self,
        kind: &'static str,
        name: &str,
        problems: &[String],
        at: Option<SourceLocation>,
    ) -> bool {
        for reason in problems {
            self.invalid(kind, name, reason.clone(), at);
        }
        !problems.is_empty()
    }

    fn invalid(
        &mut self,
        kind: &'static str,
        name: &str,
        reason: String,
        at: Option<SourceLocation>,
    ) {
        self.errors.push(BuildError::Invalid {
            kind,
            name: name.to_owned(),
            reason,
            location: at,
        });
    }

    /// Reports every state the handler needs and the server lacks; `false` when there is one.
    fn state_met(
        &mut self,
        kind: &'static str,
        name: &str,
        needs: &[StateNeed],
        at: Option<SourceLocation>,
    ) -> bool {
        let mut met = true;
        for need in needs.iter().filter(|n| !n.is_met(self.state)) {
            let ty = need.type_name();
            let reason = format!(
                "its handler takes `State<{ty}>`, but the server has no `{ty}`: register one with `ServerBuilder::state(..)`"
            );
            self.invalid(kind, name, reason, at);
            met = false;
        }
        met
    }

    /// Records `key`; reports and returns `true` when it was seen before.
    fn duplicate(&mut self, kind: &'static str, key: &str, at: Option<SourceLocation>) -> bool {
        match self.seen.get(&(kind, key.to_owned())) {
            Some(first) => {
                self.errors.push(BuildError::Duplicate {
                    kind,
                    name: key.to_owned(),
                    first: *first,
                    second: at,
                });
                true
            }
            None => {
                self.seen.insert((kind, key.to_owned()), at);
                false
            }
        }
    }

    fn tool(&mut self, tool: &Tool, dialect: SchemaDialect) -> Option<ToolEntry> {
        let (name, at) = (tool.info.name.as_str(), tool.source);
        if let Err(reason) = check_tool_name(name) {
            self.invalid("tool", name, reason, at);
            return None;
        }
        if self.refused("tool", name, &tool.problems, at) {
            return None;
        }
        if self.duplicate("tool", name, at) {
            return None;
        }
        let listed = tool.listed_schema(dialect);
        if listed.get("type") != Some(&Value::from("object")) {
            let reason = "its inputSchema must have `\"type\": \"object\"` at the root".into();
            self.invalid("tool", name, reason, at);
            return None;
        }
        // Every schema is compiled now, so that one the build cannot check is a startup error.
        // Arguments are validated against schemars' own schema, whichever form is listed.
        let validated = tool.validation_schema();
        let validator = if tool.schema_derived && crate::schema::enforced_by_types(validated) {
            // Every keyword is one the typed parse enforces itself (types, required fields, no
            // unknown fields): the handler's deserialization is the validation.
            ArgumentValidator::TypedParse
        } else {
            match ArgumentValidator::compile(validated) {
                Ok(v) => v,
                Err(reason) => {
                    self.invalid("tool", name, reason, at);
                    return None;
                }
            }
        };
        let headers = match collect_param_headers(validated) {
            Ok(h) => h,
            Err(reason) => {
                self.invalid("tool", name, reason, at);
                return None;
            }
        };
        if !self.state_met("tool", name, &tool.needs, at) {
            return None;
        }
        let Some(handler) = tool.handler.clone() else {
            self.invalid("tool", name, "it has no handler".into(), at);
            return None;
        };
        #[cfg(not(feature = "tasks"))]
        if tool.task != TaskSupport::Forbidden {
            let reason = "it runs as a task, which needs the `tasks` feature of mcp-runtime \
                          (`mcp-runtime = { version = \"…\", features = [\"tasks\"] }`)";
            self.invalid("tool", name, reason.into(), at);
            return None;
        }
        if tool.task != TaskSupport::Forbidden && matches!(handler, ToolHandler::Sync(_)) {
            let reason = "it runs as a task, which needs an async handler (an `async fn`, or \
                          `Tool::handler`/`raw_handler`)";
            self.invalid("tool", name, reason.into(), at);
            return None;
        }
        // The listing is written once here, in the server's dialect: `tools/list` copies it.
        let json = if std::ptr::eq(listed, &tool.info.input_schema) {
            raw(&tool.info)
        } else {
            let mut info = tool.info.clone();
            info.input_schema = listed.clone();
            raw(&info)
        };
        Some(ToolEntry {
            name: Arc::from(name),
            headers,
            json,
            tool: tool.clone(),
            validator,
            handler,
        })
    }

    fn resource(&mut self, res: &Resource) -> Option<ResourceEntry> {
        let (uri, at) = (res.info.uri.as_str(), res.source);
        if !has_scheme(uri) {
            let reason = "a resource URI must start with a scheme, like `config://service`";
            self.invalid("resource", uri, reason.into(), at);
            return None;
        }
        if res.info.name.is_empty() {
            self.invalid("resource", uri, "its name is empty".into(), at);
            return None;
        }
        if self.refused("resource", uri, &res.problems, at) {
            return None;
        }
        let is_app = res.info.mime_type.as_deref() == Some(APP_MIME_TYPE);
        if is_app && !uri.starts_with(UI_SCHEME) {
            let reason = format!("an app's view is served at a `{UI_SCHEME}` URI");
            self.invalid("resource", uri, reason, at);
            return None;
        }
        if self.duplicate("resource", uri, at) {
            return None;
        }
        if !self.state_met("resource", uri, &res.needs, at) {
            return None;
        }
        let Some(handler) = res.handler.clone() else {
            self.invalid("resource", uri, "it has no handler".into(), at);
            return None;
        };
        Some(ResourceEntry {
            json: raw(&res.info),
            resource: res.clone(),
            handler,
        })
    }

    fn template(&mut self, t: &ResourceTemplate) -> Option<TemplateEntry> {
        const KIND: &str = "resource template";
        let (text, at) = (t.info.uri_template.as_str(), t.source);
        let parsed = match UriTemplate::parse(text) {
            Ok(p) => p,
            Err(e) => {
                self.invalid(KIND, text, e, at);
                return None;
            }
        };
        if self.refused(KIND, text, &t.problems, at) {
            return None;
        }
        if let Some(why) = parsed.ambiguity() {
            tracing::warn!(target: "mcp_runtime::registry", template = %t.info.name, "{why}");
        }
        if !has_scheme(text) {
            let reason = "a URI template must start with a scheme, like `files://{path}`";
            self.invalid(KIND, text, reason.into(), at);
            return None;
        }
        if self.duplicate(KIND, text, at) {
            return None;
        }
        for var in t.completers.keys() {
            if !parsed.variables().any(|v| v == var) {
                let reason = format!(
                    "a completer is declared for `{var}`, which is not a variable of the template"
                );
                self.invalid(KIND, text, reason, at);
            }
        }
        if !self.state_met(KIND, text, &t.needs, at) {
            return None;
        }
        let Some(handler) = t.handler.clone() else {
            self.invalid(KIND, text, "it has no handler".into(), at);
            return None;
        };
        Some(TemplateEntry {
            json: raw(&t.info),
            template: t.clone(),
            parsed,
            handler,
        })
    }

    fn prompt(&mut self, p: &Prompt) -> Option<PromptEntry> {
        let (name, at) = (p.info.name.as_str(), p.source);
        if name.is_empty() || name.chars().any(|c| c.is_control() || c.is_whitespace()) {
            let reason = "a prompt name must be non-empty, without spaces or control characters";
            self.invalid("prompt", name, reason.into(), at);
            return None;
        }
        if self.duplicate("prompt", name, at) {
            return None;
        }
        if self.refused("prompt", name, &p.problems, at) {
            return None;
        }
        let args = p.info.arguments.as_deref().unwrap_or_default();
        for var in p.completers.keys() {
            if !args.iter().any(|a| &a.name == var) {
                let reason = format!(
                    "a completer is declared for `{var}`, which is not an argument of the prompt"
                );
                self.invalid("prompt", name, reason, at);
            }
        }
        if !self.state_met("prompt", name, &p.needs, at) {
            return None;
        }
        let Some(handler) = p.handler.clone() else {
            self.invalid("prompt", name, "it has no handler".into(), at);
            return None;
        };
        Some(PromptEntry {
            json: raw(&p.info),
            required: args
                .iter()
                .filter(|a| a.required == Some(true))
                .map(|a| a.name.clone())
                .collect(),
            prompt: p.clone(),
            handler,
        })
    }
}
