//! MCP Apps (`io.modelcontextprotocol/ui`): [`UiResource`], an app's HTML document at a `ui://`
//! URI with what its host must allow it ([`Csp`], [`AppPermissions`]), and the link from a tool
//! to it ([`Tool::ui`], [`Tool::visibility`]).
//!
//! What only a server with a view runs (turning a `UiResource` into the resource served, its
//! CSP, permissions and SDK) is `#[inline]`: compiled by the servers that call it, not into
//! every one (BENCHMARKS.md, "Metrics, result views and patterns behind features").

use super::app_sdk::AppSdk;
use super::output::ResourceOutcome;
use super::resource::{Resource, ResourceRead};
use super::tool::Tool;
use crate::error::McpError;
use crate::protocol::{APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY, ResourceContents};
use serde_json::{Map, Value, json};
use std::future::Future;
use std::sync::Arc;

/// Who may call a tool linked to an app: the model (the agent), the app (from its frame,
/// through the host), or both (the default).
///
/// ```
/// use mcp_runtime::Tool;
/// use mcp_runtime::apps::Visibility;
/// let only_the_app = Tool::new("move_card").visibility([Visibility::App]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Visibility {
    /// The agent sees and calls it.
    Model,
    /// An app of the same server calls it.
    App,
}

impl Visibility {
    fn wire(self) -> &'static str {
        match self {
            Visibility::Model => "model",
            Visibility::App => "app",
        }
    }
}

/// The origins an app may reach beyond itself, which its host writes into the frame's Content
/// Security Policy (none by default: an app with no `Csp` loads nothing from outside).
///
/// ```
/// use mcp_runtime::apps::Csp;
/// let csp = Csp::new()
///     .connect_domains(["https://api.example.com"])
///     .resource_domains(["https://cdn.example.com"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
pub struct Csp {
    connect: Vec<String>,
    resource: Vec<String>,
    frame: Vec<String>,
    base_uri: Vec<String>,
}

impl Csp {
    /// No origin beyond the app itself.
    pub fn new() -> Self {
        Csp::default()
    }
    /// Origins it may fetch from or open WebSockets to (`connect-src`).
    pub fn connect_domains<I: IntoIterator<Item = S>, S: Into<String>>(mut self, d: I) -> Self {
        self.connect.extend(d.into_iter().map(Into::into));
        self
    }
    /// Origins it may load scripts, styles, images, fonts and media from.
    pub fn resource_domains<I: IntoIterator<Item = S>, S: Into<String>>(mut self, d: I) -> Self {
        self.resource.extend(d.into_iter().map(Into::into));
        self
    }
    /// Origins it may embed in frames of its own (`frame-src`).
    pub fn frame_domains<I: IntoIterator<Item = S>, S: Into<String>>(mut self, d: I) -> Self {
        self.frame.extend(d.into_iter().map(Into::into));
        self
    }
    /// Origins its `<base>` may name (`base-uri`).
    pub fn base_uri_domains<I: IntoIterator<Item = S>, S: Into<String>>(mut self, d: I) -> Self {
        self.base_uri.extend(d.into_iter().map(Into::into));
        self
    }

    #[inline]
    fn to_json(&self) -> Map<String, Value> {
        let mut out = Map::new();
        for (key, list) in [
            ("connectDomains", &self.connect),
            ("resourceDomains", &self.resource),
            ("frameDomains", &self.frame),
            ("baseUriDomains", &self.base_uri),
        ] {
            if !list.is_empty() {
                out.insert(key.into(), json!(list));
            }
        }
        out
    }

    /// A domain a host could not write into a policy as it is (a character that would end or
    /// split a directive).
    #[inline]
    fn bad_domain(&self) -> Option<&str> {
        [&self.connect, &self.resource, &self.frame, &self.base_uri]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .find(|d| {
                d.is_empty()
                    || d.chars().any(|c| {
                        matches!(c, ';' | ',' | '\'' | '"') || c.is_whitespace() || c.is_control()
                    })
            })
    }
}

/// Browser features an app asks its host for (each granted or not by the host).
///
/// ```
/// use mcp_runtime::apps::AppPermissions;
/// let permissions = AppPermissions::new().clipboard_write();
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[must_use]
pub struct AppPermissions {
    camera: bool,
    microphone: bool,
    geolocation: bool,
    clipboard_write: bool,
}

impl AppPermissions {
    /// None.
    pub fn new() -> Self {
        AppPermissions::default()
    }
    /// The camera.
    pub fn camera(mut self) -> Self {
        self.camera = true;
        self
    }
    /// The microphone.
    pub fn microphone(mut self) -> Self {
        self.microphone = true;
        self
    }
    /// The position of the device.
    pub fn geolocation(mut self) -> Self {
        self.geolocation = true;
        self
    }
    /// Writing to the clipboard.
    pub fn clipboard_write(mut self) -> Self {
        self.clipboard_write = true;
        self
    }

    #[inline]
    fn to_json(self) -> Map<String, Value> {
        let mut out = Map::new();
        for (key, on) in [
            ("camera", self.camera),
            ("microphone", self.microphone),
            ("geolocation", self.geolocation),
            ("clipboardWrite", self.clipboard_write),
        ] {
            if on {
                out.insert(key.into(), json!({}));
            }
        }
        out
    }
}

type HtmlFn = dyn Fn(ResourceRead) -> super::future::BoxFuture<'static, Result<String, McpError>>
    + Send
    + Sync;

/// Where an app's HTML comes from.
#[derive(Clone)]
enum Html {
    None,
    Fixed(Arc<str>),
    Rendered(Arc<HtmlFn>),
}

/// An MCP App's view: one HTML document at a `ui://` URI (served as
/// `text/html;profile=mcp-app`), which a host that speaks the extension renders in a sandboxed
/// frame beside the result of each tool linked to it ([`Tool::ui`], `#[tool(ui = "…")]`). Its
/// `_meta.ui` (what its host must allow it) is written on its `resources/list` entry and on the
/// contents `resources/read` answers.
///
/// The HTML is fixed (`include_str!` a file: editing it rebuilds the server) or produced by a
/// function on each read.
///
/// ```
/// use mcp_runtime::Server;
/// use mcp_runtime::apps::{Csp, UiResource};
/// let view = UiResource::new("ui://board/view.html", "board")
///     .html("<!doctype html><title>Board</title><p>…")
///     .csp(Csp::new().connect_domains(["https://api.example.com"]))
///     .prefers_border(true);
/// assert!(Server::builder().resource(view).build().is_ok());
/// ```
#[derive(Clone)]
#[must_use]
pub struct UiResource {
    resource: Resource,
    html: Html,
    ui: Map<String, Value>,
    sdk: Option<AppSdk>,
}

impl std::fmt::Debug for UiResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UiResource")
            .field("uri", &self.resource.uri())
            .field("ui", &self.ui)
            .finish_non_exhaustive()
    }
}

impl super::primitive::IntoResource for UiResource {
    #[inline]
    fn into_resource(self) -> Resource {
        UiResource::into_resource(self)
    }
}

impl UiResource {
    /// The view at `uri` (which must start with `ui://`), called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        UiResource {
            resource: Resource::new(uri, name).mime_type(APP_MIME_TYPE),
            html: Html::None,
            ui: Map::new(),
            sdk: None,
        }
    }
    /// Its HTML, fixed (`include_str!("board.html")`).
    pub fn html(mut self, html: impl Into<Arc<str>>) -> Self {
        self.html = Html::Fixed(html.into());
        self
    }
    /// Its HTML, produced by `render` on each read (an error is the read's error).
    ///
    /// ```
    /// use mcp_runtime::apps::UiResource;
    /// let view = UiResource::new("ui://clock/view.html", "clock")
    ///     .render(|_read| async { Ok(format!("<!doctype html><p>{}", 42)) });
    /// ```
    pub fn render<F, Fut>(mut self, render: F) -> Self
    where
        F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, McpError>> + Send + 'static,
    {
        self.html = Html::Rendered(Arc::new(move |read| Box::pin(render(read))));
        self
    }
    /// Display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.resource = self.resource.title(title);
        self
    }
    /// Description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.resource = self.resource.description(description);
        self
    }
    /// The origins it may reach (`_meta.ui.csp`).
    #[inline]
    pub fn csp(mut self, csp: Csp) -> Self {
        if let Some(bad) = csp.bad_domain() {
            let reason = format!("its CSP names the domain `{bad}`, which no policy can hold");
            self.resource.problems.push(reason);
        }
        self.ui.insert("csp".into(), Value::Object(csp.to_json()));
        self
    }
    /// Browser features it asks for (`_meta.ui.permissions`).
    #[inline]
    pub fn permissions(mut self, permissions: AppPermissions) -> Self {
        self.ui
            .insert("permissions".into(), Value::Object(permissions.to_json()));
        self
    }
    /// The origin a host should give its frame (`_meta.ui.domain`; its form is the host's).
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.ui
            .insert("domain".into(), Value::String(domain.into()));
        self
    }
    /// Whether the host should draw a border and background around it (`_meta.ui.prefersBorder`).
    #[inline]
    pub fn prefers_border(mut self, on: bool) -> Self {
        self.ui.insert("prefersBorder".into(), Value::Bool(on));
        self
    }
    /// The official MCP Apps SDK for its page's scripts: embedded at compile time
    /// (`app_sdk!()`) or imported from a URL, whose origin joins the view's CSP
    /// `resourceDomains` ([`AppSdk`]). It is put before the page's first `<script>` and sets
    /// `globalThis.ExtApps`, so that the page's module reads the `App` class with
    /// `const { App } = ExtApps;`.
    ///
    /// ```
    /// use mcp_runtime::apps::{AppSdk, UiResource};
    /// let view = UiResource::new("ui://notes/search.html", "search")
    ///     .html("<!doctype html><script type=module>const app = new ExtApps.App({name: 'search', version: '1'});</script>")
    ///     .app_sdk(AppSdk::url("https://cdn.example.com/ext-apps/app-with-deps.js"));
    /// ```
    #[inline]
    pub fn app_sdk(mut self, sdk: AppSdk) -> Self {
        if let Some(problem) = sdk.problem() {
            self.resource.problems.push(problem);
        }
        self.sdk = Some(sdk);
        self
    }
    /// Requires these OAuth scopes of whoever lists or reads it.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.resource.access.add_scopes(scopes);
        self
    }

    /// The resource it is served as.
    #[inline]
    pub(crate) fn into_resource(self) -> Resource {
        let UiResource {
            resource,
            html,
            mut ui,
            sdk,
        } = self;
        if let Some(origin) = sdk.as_ref().and_then(AppSdk::origin) {
            // The page imports the SDK from there: its host must let it.
            let csp = ui.entry("csp").or_insert_with(|| json!({}));
            if let Some(csp) = csp.as_object_mut() {
                let domains = csp.entry("resourceDomains").or_insert_with(|| json!([]));
                if let Some(list) = domains.as_array_mut()
                    && !list.iter().any(|d| d == origin)
                {
                    list.push(json!(origin));
                }
            }
        }
        let html = match (html, sdk) {
            (html, None) | (html @ Html::None, _) => html,
            (html, Some(sdk)) => with_sdk(html, sdk),
        };
        let meta = (!ui.is_empty()).then(|| {
            let mut meta = Map::new();
            meta.insert("ui".into(), Value::Object(ui));
            meta
        });
        let mut resource = resource;
        resource.info.meta = meta.clone();
        // The same `_meta.ui` on the contents as on the list entry: hosts read either.
        let contents = move |uri: &str, html: String| {
            let mut c = ResourceContents::text(uri, html).mime_type(APP_MIME_TYPE);
            c.meta = meta.clone();
            ResourceOutcome::Complete(vec![c])
        };
        match html {
            Html::None => resource,
            Html::Fixed(html) => resource.handler(move |read: ResourceRead| {
                let outcome = contents(&read.uri, html.to_string());
                async move { Ok::<_, McpError>(outcome) }
            }),
            Html::Rendered(render) => resource.handler(move |read: ResourceRead| {
                let uri = read.uri.clone();
                let rendered = render(read);
                let contents = contents.clone();
                async move { Ok::<_, McpError>(contents(&uri, rendered.await?)) }
            }),
        }
    }
}

/// `html` with the SDK's script in it; each read an error when the SDK was missing when the
/// server was compiled.
#[inline]
fn with_sdk(html: Html, sdk: AppSdk) -> Html {
    if let Some(why) = sdk.missing() {
        return Html::Rendered(Arc::new(move |_| {
            Box::pin(async move { Err(McpError::internal(why)) })
        }));
    }
    match html {
        Html::Fixed(html) => Html::Fixed(sdk.insert_into(&html).into()),
        Html::Rendered(render) => Html::Rendered(Arc::new(move |read| {
            let rendered = render(read);
            let sdk = sdk.clone();
            Box::pin(async move { Ok(sdk.insert_into(&rendered.await?)) })
        })),
        Html::None => Html::None,
    }
}

impl Tool {
    /// The URI of the app the tool is linked to.
    pub(crate) fn app_uri(&self) -> Option<&str> {
        self.info
            .meta
            .as_ref()?
            .get("ui")?
            .get("resourceUri")?
            .as_str()
    }

    /// Links the tool to the app at `uri` (a [`UiResource`] the server serves; an unknown URI
    /// is a startup error naming both): its `_meta.ui.resourceUri`, and for older hosts
    /// `_meta["ui/resourceUri"]`. The tool still answers every client with meaningful text; a
    /// host that renders apps shows the view beside it.
    ///
    /// ```
    /// use mcp_runtime::Tool;
    /// let tool = Tool::new("show_board").ui("ui://board/view.html");
    /// assert_eq!(tool.info().meta.as_ref().unwrap()["ui"]["resourceUri"], "ui://board/view.html");
    /// ```
    pub fn ui(mut self, uri: impl Into<String>) -> Self {
        self.link_app(uri.into());
        self
    }

    /// [`Tool::ui`] in place.
    pub(crate) fn link_app(&mut self, uri: String) {
        let meta = self.info.meta.get_or_insert_with(Map::new);
        let ui = meta
            .entry("ui")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(ui) = ui {
            ui.insert("resourceUri".into(), Value::String(uri.clone()));
        }
        meta.insert(LEGACY_RESOURCE_URI_KEY.into(), Value::String(uri));
    }

    /// Who may call it (`_meta.ui.visibility`; default: both): `[Visibility::App]` for a tool
    /// only its app calls, which a host then keeps from the agent.
    ///
    /// ```
    /// use mcp_runtime::Tool;
    /// use mcp_runtime::apps::Visibility;
    /// let tool = Tool::new("move_card").ui("ui://board/view.html").visibility([Visibility::App]);
    /// ```
    pub fn visibility<I: IntoIterator<Item = Visibility>>(mut self, who: I) -> Self {
        let who: Vec<&str> = who.into_iter().map(Visibility::wire).collect();
        let meta = self.info.meta.get_or_insert_with(Map::new);
        let ui = meta
            .entry("ui")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(ui) = ui {
            ui.insert("visibility".into(), json!(who));
        }
        self
    }
}
