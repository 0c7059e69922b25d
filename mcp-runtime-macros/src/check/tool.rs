//! What `#[tool]` requires: a valid tool name, an `async fn` for a task tool, an app for a
//! `visibility`, and one view at most.

use crate::check::names;
use crate::ctxt::Ctxt;
use crate::model::{Function, Tool};

pub(super) fn check(cx: &Ctxt, func: &Function, tool: &Tool) {
    if let Some((_, task)) = &tool.attrs.task
        && !func.is_async()
    {
        cx.error_spanned_by(
            task,
            "a task tool runs on after its call is answered, so it is an `async fn`: add `async`",
        );
    }
    if let (Some(who), None, None) = (&tool.attrs.visibility, &tool.attrs.ui, &tool.attrs.view)
        && let Some((_, first)) = who.first()
    {
        cx.error_spanned_by(
            first,
            "`visibility` says who may call a tool linked to an app: link it with `ui = \"ui://…\"`",
        );
    }
    if let (Some(_), Some((_, view))) = (&tool.attrs.ui, &tool.attrs.view) {
        cx.error_spanned_by(
            view,
            "a tool has one view: `view` generates one from its result, `ui` names one of your own; keep one",
        );
    }
    if let Err(e) = names::tool_name(&tool.name) {
        match &tool.attrs.common.name {
            Some(lit) => cx.error_spanned_by(lit, e),
            None => cx.error_spanned_by(
                &func.item.sig.ident,
                format!("{e} (the name defaults to the function's name)"),
            ),
        }
    }
}
