//! The four kinds of primitive a server registers, what converts into each, what the macros
//! submit at link time, and the unvalidated collection a registry snapshot is built from.

use super::kind::PrimitiveKind;
use super::prompt::Prompt;
use super::resource::{Resource, ResourceTemplate};
use super::tool::Tool;
use crate::error::SourceLocation;
use std::any::TypeId;

/// One item for [`ServerBuilder::register`](crate::ServerBuilder::register) and
/// [`Server::add`](crate::Server::add): a tool, resource, template or prompt.
///
/// ```
/// use mcp_runtime::{handler::Primitive, PrimitiveKind, Tool};
/// assert_eq!(Primitive::Tool(Tool::new("ping")).kind(), PrimitiveKind::Tool);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Primitive {
    /// A tool.
    Tool(Tool),
    /// A fixed resource.
    Resource(Resource),
    /// A resource template.
    ResourceTemplate(ResourceTemplate),
    /// A prompt.
    Prompt(Prompt),
}

impl Primitive {
    /// Which kind it is.
    pub fn kind(&self) -> PrimitiveKind {
        match self {
            Primitive::Tool(_) => PrimitiveKind::Tool,
            Primitive::Resource(_) => PrimitiveKind::Resource,
            Primitive::ResourceTemplate(_) => PrimitiveKind::ResourceTemplate,
            Primitive::Prompt(_) => PrimitiveKind::Prompt,
        }
    }

    /// Records where it was declared, unless it says already.
    pub(crate) fn with_source(self, loc: SourceLocation) -> Self {
        match self {
            Primitive::Tool(t) if t.source.is_none() => Primitive::Tool(t.source(loc)),
            Primitive::Resource(r) if r.source.is_none() => Primitive::Resource(r.source(loc)),
            Primitive::ResourceTemplate(r) if r.source.is_none() => {
                Primitive::ResourceTemplate(r.source(loc))
            }
            Primitive::Prompt(p) if p.source.is_none() => Primitive::Prompt(p.source(loc)),
            other => other,
        }
    }
}

/// Anything that can be registered: a [`Tool`], [`Resource`], [`ResourceTemplate`], [`Prompt`],
/// or the handle a macro generates next to an annotated function (`add {}` for `#[tool] fn add`).
///
/// ```
/// use mcp_runtime::{handler::IntoPrimitive, PrimitiveKind, Prompt};
/// assert_eq!(Prompt::new("greet").into_primitive().kind(), PrimitiveKind::Prompt);
/// ```
pub trait IntoPrimitive {
    /// The definition.
    fn into_primitive(self) -> Primitive;
}

impl IntoPrimitive for Primitive {
    fn into_primitive(self) -> Primitive {
        self
    }
}

/// A tool, or the handle `#[tool]` generates (`add {}` for `#[tool] fn add`): what
/// [`ServerBuilder::tool`](crate::ServerBuilder::tool) takes.
///
/// ```
/// use mcp_runtime::{handler::IntoTool, Tool};
/// assert_eq!(Tool::new("ping").into_tool().name(), "ping");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "`.tool(..)` takes a `Tool` or the handle of a `#[tool]` function",
    note = "register resources with `.resource(..)`, resource templates with `.resource_template(..)` and prompts with `.prompt(..)`"
)]
pub trait IntoTool {
    /// The tool.
    fn into_tool(self) -> Tool;
}

/// A fixed resource, or the handle `#[resource]` generates for a URI without variables: what
/// [`ServerBuilder::resource`](crate::ServerBuilder::resource) takes.
///
/// ```
/// use mcp_runtime::{handler::IntoResource, Resource};
/// assert_eq!(Resource::new("config://app", "config").into_resource().uri(), "config://app");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a fixed resource",
    label = "`.resource(..)` takes a `Resource` or the handle of a `#[resource]` with a fixed URI",
    note = "register a URI template (one with `{{variables}}`) with `.resource_template(..)`"
)]
pub trait IntoResource {
    /// The resource.
    fn into_resource(self) -> Resource;
}

/// A resource template, or the handle `#[resource]` generates for a URI template: what
/// [`ServerBuilder::resource_template`](crate::ServerBuilder::resource_template) takes.
///
/// ```
/// use mcp_runtime::{handler::IntoResourceTemplate, ResourceTemplate};
/// let t = ResourceTemplate::new("notes://{id}", "note").into_resource_template();
/// assert_eq!(t.uri_template(), "notes://{id}");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource template",
    label = "`.resource_template(..)` takes a `ResourceTemplate` or the handle of a `#[resource]` with `{{variables}}`",
    note = "register a resource with a fixed URI with `.resource(..)`"
)]
pub trait IntoResourceTemplate {
    /// The template.
    fn into_resource_template(self) -> ResourceTemplate;
}

/// A prompt, or the handle `#[prompt]` generates: what
/// [`ServerBuilder::prompt`](crate::ServerBuilder::prompt) takes.
///
/// ```
/// use mcp_runtime::{handler::IntoPrompt, Prompt};
/// assert_eq!(Prompt::new("greet").into_prompt().name(), "greet");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt",
    label = "`.prompt(..)` takes a `Prompt` or the handle of a `#[prompt]` function"
)]
pub trait IntoPrompt {
    /// The prompt.
    fn into_prompt(self) -> Prompt;
}

impl IntoTool for Tool {
    fn into_tool(self) -> Tool {
        self
    }
}

impl IntoPrimitive for Tool {
    fn into_primitive(self) -> Primitive {
        Primitive::Tool(self)
    }
}

impl IntoResource for Resource {
    fn into_resource(self) -> Resource {
        self
    }
}

impl IntoPrimitive for Resource {
    fn into_primitive(self) -> Primitive {
        Primitive::Resource(self)
    }
}

impl IntoResourceTemplate for ResourceTemplate {
    fn into_resource_template(self) -> ResourceTemplate {
        self
    }
}

impl IntoPrimitive for ResourceTemplate {
    fn into_primitive(self) -> Primitive {
        Primitive::ResourceTemplate(self)
    }
}

impl IntoPrompt for Prompt {
    fn into_prompt(self) -> Prompt {
        self
    }
}

impl IntoPrimitive for Prompt {
    fn into_primitive(self) -> Primitive {
        Primitive::Prompt(self)
    }
}

/// How a [`Registration`] builds its primitive: the generated build function of its kind.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum Build {
    /// A `#[tool]`.
    Tool(fn() -> Tool),
    /// A `#[resource]` with a fixed URI.
    Resource(fn() -> Resource),
    /// A `#[resource]` with a URI template.
    ResourceTemplate(fn() -> ResourceTemplate),
    /// A `#[prompt]`.
    Prompt(fn() -> Prompt),
}

impl Build {
    /// The kind built.
    const fn kind(self) -> PrimitiveKind {
        match self {
            Build::Tool(_) => PrimitiveKind::Tool,
            Build::Resource(_) => PrimitiveKind::Resource,
            Build::ResourceTemplate(_) => PrimitiveKind::ResourceTemplate,
            Build::Prompt(_) => PrimitiveKind::Prompt,
        }
    }

    /// Builds the definition.
    pub(crate) fn primitive(self) -> Primitive {
        match self {
            Build::Tool(f) => Primitive::Tool(f()),
            Build::Resource(f) => Primitive::Resource(f()),
            Build::ResourceTemplate(f) => Primitive::ResourceTemplate(f()),
            Build::Prompt(f) => Primitive::Prompt(f()),
        }
    }
}

/// A primitive submitted at link time by `#[tool]`, `#[resource]` or `#[prompt]`, collected by
/// [`Server::from_inventory`](crate::Server::from_inventory).
#[doc(hidden)]
pub struct Registration {
    /// What it is.
    pub kind: PrimitiveKind,
    /// The type of the `#[handlers]` impl the method belongs to; `None` for a free function.
    pub owner: Option<fn() -> TypeId>,
    /// Name (tools, prompts) or URI / template (resources).
    pub key: &'static str,
    /// Builds the definition.
    pub build: Build,
    /// Where it was declared.
    pub location: SourceLocation,
}

impl Registration {
    /// For `inventory::submit!` in generated code.
    pub const fn new(
        key: &'static str,
        build: Build,
        owner: Option<fn() -> TypeId>,
        file: &'static str,
        line: u32,
        column: u32,
    ) -> Self {
        Registration {
            kind: build.kind(),
            owner,
            key,
            build,
            location: SourceLocation { file, line, column },
        }
    }

    /// Every registration of the program: each kind sorted by key, then by line.
    pub(crate) fn all() -> Vec<&'static Registration> {
        let mut all: Vec<&Registration> = inventory::iter::<Registration>.into_iter().collect();
        all.sort_by(|a, b| (a.kind, a.key, a.location.line).cmp(&(b.kind, b.key, b.location.line)));
        all
    }
}

inventory::collect!(Registration);

/// A type whose `impl` block is marked `#[handlers]`: its marked methods are the primitives
/// [`ServerBuilder::handlers`](crate::ServerBuilder::handlers) registers, with the value as their
/// shared state. Implemented by the attribute; not by hand.
///
/// ```
/// use mcp_runtime::{handler::Handlers, Server, handlers};
///
/// struct Clock;
///
/// #[handlers]
/// impl Clock {
///     /// The time, as a Unix timestamp.
///     #[tool]
///     fn now(&self) -> u64 {
///         0
///     }
/// }
///
/// fn is_handlers<T: Handlers>() {}
/// is_handlers::<Clock>();
/// assert!(Server::builder().handlers(Clock).build().is_ok());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `#[handlers]` impl block",
    label = "`.handlers(..)` takes a value whose type has an `impl` block marked `#[handlers]`",
    note = "mark the `impl` block that holds its `#[tool]`, `#[resource]` and `#[prompt]` methods with `#[handlers]`"
)]
pub trait Handlers: Send + Sync + 'static {}

impl Registration {
    /// The registrations of the methods of `H`'s `#[handlers]` impl, in the order of
    /// [`Registration::all`].
    pub(crate) fn of<H: Handlers>() -> Vec<&'static Registration> {
        let owner = TypeId::of::<H>();
        Registration::all()
            .into_iter()
            .filter(|r| r.owner.is_some_and(|of| of() == owner))
            .collect()
    }
}

/// Everything a server holds, before validation, in the order it was registered.
#[derive(Default, Clone)]
pub(crate) struct Items {
    pub(crate) tools: Vec<Tool>,
    pub(crate) resources: Vec<Resource>,
    pub(crate) templates: Vec<ResourceTemplate>,
    pub(crate) prompts: Vec<Prompt>,
    /// Sets of skills, as last loaded.
    pub(crate) skills: Vec<super::skills::SkillSet>,
    /// Registered but hidden.
    pub(crate) disabled: Vec<(PrimitiveKind, String)>,
    /// Which form of generated input schemas tools are listed with.
    pub(crate) dialect: crate::schema::SchemaDialect,
    /// A mounted server serves the tasks extension: its tasks are relayed (`crate::proxy`).
    pub(crate) relays_tasks: bool,
}

impl Items {
    pub(crate) fn push(&mut self, item: Primitive) {
        match item {
            Primitive::Tool(t) => self.tools.push(t),
            Primitive::Resource(r) => self.resources.push(r),
            Primitive::ResourceTemplate(t) => self.templates.push(t),
            Primitive::Prompt(p) => self.prompts.push(p),
        }
    }

    fn len(&self) -> usize {
        let skills: usize = self.skills.iter().map(|s| s.loaded.len()).sum();
        self.tools.len() + self.resources.len() + self.templates.len() + self.prompts.len() + skills
    }

    #[inline]
    fn contains(&self, kind: PrimitiveKind, key: &str) -> bool {
        match kind {
            PrimitiveKind::Tool => self.tools.iter().any(|t| t.info.name == key),
            PrimitiveKind::Resource => self.resources.iter().any(|r| r.info.uri == key),
            PrimitiveKind::ResourceTemplate => {
                self.templates.iter().any(|t| t.info.uri_template == key)
            }
            PrimitiveKind::Prompt => self.prompts.iter().any(|p| p.info.name == key),
            PrimitiveKind::Skill => self.skill_set_of(key).is_some(),
        }
    }

    /// The position of the set that holds the skill `name`.
    fn skill_set_of(&self, name: &str) -> Option<usize> {
        self.skills
            .iter()
            .position(|set| set.loaded.iter().any(|s| s.name == name))
    }

    /// Every scope a primitive requires, with what requires it (``tool `search` ``).
    pub(crate) fn required_scopes(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut add = |what: String, access: &super::access::Requirement| {
            for scope in &access.scopes {
                out.push((what.clone(), scope.clone()));
            }
        };
        for t in &self.tools {
            add(format!("tool `{}`", t.info.name), &t.access);
        }
        for r in &self.resources {
            add(format!("resource `{}`", r.info.uri), &r.access);
        }
        for t in &self.templates {
            add(
                format!("resource template `{}`", t.info.uri_template),
                &t.access,
            );
        }
        for p in &self.prompts {
            add(format!("prompt `{}`", p.info.name), &p.access);
        }
        for set in &self.skills {
            add("a set of skills".to_owned(), &set.declared.access);
            for (name, access) in &set.declared.per_skill {
                add(format!("skill `{name}`"), access);
            }
        }
        out
    }

    /// Whether any handler asks the client for input.
    pub(crate) fn ask_client_input(&self) -> bool {
        self.tools.iter().any(|t| t.asks_input)
            || self.resources.iter().any(|r| r.asks_input)
            || self.templates.iter().any(|t| t.asks_input)
            || self.prompts.iter().any(|p| p.asks_input)
    }

    pub(crate) fn enabled(&self, kind: PrimitiveKind, key: &str) -> bool {
        !self.disabled.iter().any(|(k, n)| *k == kind && n == key)
    }

    /// Removes the item; returns whether it existed.
    #[inline]
    pub(crate) fn remove(&mut self, kind: PrimitiveKind, key: &str) -> bool {
        let before = self.len();
        match kind {
            PrimitiveKind::Tool => self.tools.retain(|t| t.info.name != key),
            PrimitiveKind::Resource => self.resources.retain(|r| r.info.uri != key),
            PrimitiveKind::ResourceTemplate => {
                self.templates.retain(|t| t.info.uri_template != key)
            }
            PrimitiveKind::Prompt => self.prompts.retain(|p| p.info.name != key),
            PrimitiveKind::Skill => {
                for set in &mut self.skills {
                    if set.loaded.iter().any(|s| s.name == key) {
                        let kept = set.loaded.iter().filter(|s| s.name != key).cloned();
                        set.loaded = std::sync::Arc::new(kept.collect());
                    }
                }
            }
        }
        self.disabled.retain(|(k, n)| !(*k == kind && n == key));
        self.len() != before
    }

    /// The access requirement of an item, to be changed; `None` when there is no such item.
    pub(crate) fn access_mut(
        &mut self,
        kind: PrimitiveKind,
        key: &str,
    ) -> Option<&mut super::access::Requirement> {
        match kind {
            PrimitiveKind::Tool => self
                .tools
                .iter_mut()
                .find(|t| t.info.name == key)
                .map(|t| &mut t.access),
            PrimitiveKind::Resource => self
                .resources
                .iter_mut()
                .find(|r| r.info.uri == key)
                .map(|r| &mut r.access),
            PrimitiveKind::ResourceTemplate => self
                .templates
                .iter_mut()
                .find(|t| t.info.uri_template == key)
                .map(|t| &mut t.access),
            PrimitiveKind::Prompt => self
                .prompts
                .iter_mut()
                .find(|p| p.info.name == key)
                .map(|p| &mut p.access),
            PrimitiveKind::Skill => {
                let at = self.skill_set_of(key)?;
                Some(self.skills[at].declared.skill_access_mut(key))
            }
        }
    }

    /// Hides or shows the item again; returns whether anything changed.
    #[inline]
    pub(crate) fn set_enabled(&mut self, kind: PrimitiveKind, key: &str, enabled: bool) -> bool {
        if !self.contains(kind, key) {
            return false;
        }
        let entry = (kind, key.to_owned());
        if enabled {
            let before = self.disabled.len();
            self.disabled.retain(|e| *e != entry);
            self.disabled.len() != before
        } else if self.disabled.contains(&entry) {
            false
        } else {
            self.disabled.push(entry);
            true
        }
    }
}
