//! The arguments of `#[tool(...)]`.

use crate::attr::keys::{
    ANNOTATIONS, AUTHORIZE, CRATE, DESCRIPTION, DESTRUCTIVE, ICON, IDEMPOTENT, META, NAME,
    OPEN_WORLD, READ_ONLY, SCOPES, TASK, TITLE, UI, VIEW, VISIBILITY,
};
use crate::attr::read::{self, Slot};
use crate::attr::shared::{self, Common, CommonSlots};
use crate::attr::unknown::unknown_key;
use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use syn::{Expr, LitBool, LitStr, Meta};

/// The keys of `#[tool]`, in the order the "expected one of" message lists them.
const KEYS: &[&str] = &[
    NAME,
    TITLE,
    DESCRIPTION,
    ANNOTATIONS,
    ICON,
    META,
    SCOPES,
    AUTHORIZE,
    TASK,
    UI,
    VIEW,
    VISIBILITY,
    CRATE,
];
const ANNOTATION_KEYS: &[&str] = &[READ_ONLY, DESTRUCTIVE, IDEMPOTENT, OPEN_WORLD, TITLE];

/// The arguments of `#[tool(...)]`.
pub(crate) struct ToolAttrs {
    pub(crate) common: Common,
    pub(crate) annotations: Option<Annotations>,
    pub(crate) meta: Option<Expr>,
    /// `task = "optional" | "required"`, and where it was written.
    pub(crate) task: Option<(TaskMode, LitStr)>,
    /// `ui = "ui://..."`: the app the tool is linked to (MCP Apps).
    pub(crate) ui: Option<LitStr>,
    /// `view = "auto" | "table" | "form" | "chart"`: a view of its result generated from its
    /// output schema, and where it was written.
    pub(crate) view: Option<(ViewLayout, LitStr)>,
    /// `visibility = ["model", "app"]`: who may call it.
    pub(crate) visibility: Option<Vec<(Visible, LitStr)>>,
}

/// The layout of a generated result view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ViewLayout {
    Auto,
    Table,
    Form,
    Chart,
}

/// Who may call a tool linked to an app.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Visible {
    Model,
    App,
}

/// `annotations(...)`: behaviour hints, each left out unless given.
#[derive(Default)]
pub(crate) struct Annotations {
    pub(crate) read_only: Option<LitBool>,
    pub(crate) destructive: Option<LitBool>,
    pub(crate) idempotent: Option<LitBool>,
    pub(crate) open_world: Option<LitBool>,
    pub(crate) title: Option<LitStr>,
}

/// How a tool runs as a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskMode {
    /// A task when the client declares the tasks extension.
    Optional,
    /// Always a task.
    Required,
}

impl ToolAttrs {
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> ToolAttrs {
        let mut common = CommonSlots::new();
        let mut annotations = Slot::new(ANNOTATIONS);
        let mut meta = Slot::new(META);
        let mut task = Slot::new(TASK);
        let mut ui = Slot::new(UI);
        let mut view = Slot::new(VIEW);
        let mut visibility = Slot::new(VISIBILITY);
        let literal_error =
            "`#[tool]` takes `key = value` arguments: write `name = \"...\"` to name the tool";
        for m in read::parse_keyed(cx, args, literal_error) {
            if common.read(cx, &m) {
                continue;
            }
            match read::key(&m).as_str() {
                ANNOTATIONS => annotations.set(cx, &m, Some(parse_annotations(cx, &m))),
                META => meta.set(cx, &m, shared::meta_expr(cx, &m)),
                TASK => task.set(cx, &m, task_mode(cx, &m)),
                UI => ui.set(cx, &m, ui_uri(cx, &m)),
                VIEW => view.set(cx, &m, view_layout(cx, &m)),
                VISIBILITY => visibility.set(cx, &m, visible_to(cx, &m)),
                _ => unknown_key(cx, m.path(), KEYS, "`#[tool]`"),
            }
        }
        ToolAttrs {
            common: common.finish(),
            annotations: annotations.get(),
            meta: meta.get(),
            task: task.get(),
            ui: ui.get(),
            view: view.get(),
            visibility: visibility.get(),
        }
    }
}

/// `ui = "ui://…"`.
fn ui_uri(cx: &Ctxt, meta: &Meta) -> Option<LitStr> {
    let lit = read::string(cx, meta)?;
    if !lit.value().starts_with("ui://") {
        cx.error_spanned_by(
            &lit,
            "`ui` names the app's view by its `ui://` URI, like `ui = \"ui://board/view.html\"`",
        );
        return None;
    }
    Some(lit)
}

/// `view = "auto" | "table" | "form" | "chart"`.
fn view_layout(cx: &Ctxt, meta: &Meta) -> Option<(ViewLayout, LitStr)> {
    let lit = read::string(cx, meta)?;
    let layout = match lit.value().as_str() {
        "auto" => ViewLayout::Auto,
        "table" => ViewLayout::Table,
        "form" => ViewLayout::Form,
        "chart" => ViewLayout::Chart,
        other => {
            cx.error_spanned_by(
                &lit,
                format!(
                    "`view` is \"table\", \"form\", \"chart\" or \"auto\" (a view of the result generated from its schema), not {other:?}; a view of your own is `ui = \"ui://…\"`"
                ),
            );
            return None;
        }
    };
    Some((layout, lit))
}

/// `visibility = ["model", "app"]`.
fn visible_to(cx: &Ctxt, meta: &Meta) -> Option<Vec<(Visible, LitStr)>> {
    let example = "`visibility = [\"app\"]` (only the app calls it) or `[\"model\", \"app\"]`";
    let value = read::expr(cx, meta)?;
    let Expr::Array(array) = &value else {
        cx.error_spanned_by(&value, format!("`visibility` is an array, like {example}"));
        return None;
    };
    let mut out = Vec::new();
    for e in &array.elems {
        let Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = e
        else {
            cx.error_spanned_by(e, format!("`visibility` holds strings, like {example}"));
            continue;
        };
        match s.value().as_str() {
            "model" => out.push((Visible::Model, s.clone())),
            "app" => out.push((Visible::App, s.clone())),
            other => cx.error_spanned_by(
                s,
                format!("`visibility` holds \"model\" and \"app\", not {other:?}"),
            ),
        }
    }
    Some(out)
}

/// `task = "optional"` or `task = "required"`.
fn task_mode(cx: &Ctxt, meta: &Meta) -> Option<(TaskMode, LitStr)> {
    let lit = read::string(cx, meta)?;
    let mode = match lit.value().as_str() {
        "optional" => TaskMode::Optional,
        "required" => TaskMode::Required,
        other => {
            cx.error_spanned_by(
                &lit,
                format!(
                    "`task` is \"optional\" (a task when the client declares the tasks extension) or \"required\" (always a task), not {other:?}"
                ),
            );
            return None;
        }
    };
    Some((mode, lit))
}

fn parse_annotations(cx: &Ctxt, meta: &Meta) -> Annotations {
    let mut read_only = Slot::new(READ_ONLY);
    let mut destructive = Slot::new(DESTRUCTIVE);
    let mut idempotent = Slot::new(IDEMPOTENT);
    let mut open_world = Slot::new(OPEN_WORLD);
    let mut title = Slot::new(TITLE);
    for m in read::nested(cx, meta) {
        match read::key(&m).as_str() {
            READ_ONLY => read_only.set(cx, &m, read::flag(cx, &m)),
            DESTRUCTIVE => destructive.set(cx, &m, read::flag(cx, &m)),
            IDEMPOTENT => idempotent.set(cx, &m, read::flag(cx, &m)),
            OPEN_WORLD => open_world.set(cx, &m, read::flag(cx, &m)),
            TITLE => title.set(cx, &m, read::string(cx, &m)),
            _ => unknown_key(cx, m.path(), ANNOTATION_KEYS, "`annotations(...)`"),
        }
    }
    Annotations {
        read_only: read_only.get(),
        destructive: destructive.get(),
        idempotent: idempotent.get(),
        open_world: open_world.get(),
        title: title.get(),
    }
}
