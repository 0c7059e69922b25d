//! What `#[resource]` requires: a URI with a scheme, a template whose variables are exactly the
//! function's plain parameters, completions and `size` that fit the URI, and a name.

use crate::ctxt::Ctxt;
use crate::model::{Function, Resource, has_scheme};
use proc_macro2::Span;

pub(super) fn check(cx: &Ctxt, func: &Function, resource: &Resource) {
    let attrs = &resource.attrs;
    let Some(uri) = &attrs.uri else {
        cx.error_at(
            Span::call_site(),
            "`#[resource]` needs the URI it serves as its first argument, like `#[resource(\"config://service\")]` or `#[resource(\"files://{path}\")]`",
        );
        return name(cx, resource);
    };
    let text = uri.value();
    if !has_scheme(&text) {
        cx.error_spanned_by(
            uri,
            format!(
                "`{text}` has no scheme: a resource URI starts with one, like `config://service`"
            ),
        );
    }
    let variables = match &resource.variables {
        Ok(variables) => variables,
        Err(e) => {
            cx.error_spanned_by(uri, e);
            return name(cx, resource);
        }
    };
    let is_template = resource.is_template();

    // Every variable is a parameter ...
    for var in variables {
        if !func.arguments().any(|p| p.name == *var) {
            cx.error_spanned_by(
                uri,
                format!("the template variable `{var}` has no parameter: add `{var}: String` (or any `FromStr` type) to the function"),
            );
        }
    }
    // ... and every plain parameter is a variable.
    for p in func.arguments() {
        if p.ident.is_some() && !variables.contains(&p.name) {
            cx.error_at(
                p.span,
                format!(
                    "the parameter `{}` is not a variable of the URI template `{text}`: add `{{{}}}` to the URI, or mark it `#[ctx]` if it is a context value",
                    p.name, p.name
                ),
            );
        }
    }
    for c in &attrs.completions {
        if !variables.contains(&c.name) {
            let msg = if is_template {
                format!(
                    "`{}` is not a variable of the URI template; completions are for its variables: {}",
                    c.name,
                    variables
                        .iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                "completions are only for resource templates (URIs with `{variables}`); remove `complete(...)`".to_owned()
            };
            cx.error_at(c.span, msg);
        }
    }
    if is_template && let Some((m, _)) = &attrs.size {
        cx.error_spanned_by(
            m,
            "`size` is only for fixed resources: the size of a template's resources varies",
        );
    }
    name(cx, resource);
}

fn name(cx: &Ctxt, resource: &Resource) {
    if let Some(n) = &resource.attrs.common.name
        && n.value().is_empty()
    {
        cx.error_spanned_by(n, "a resource name cannot be empty");
    }
}
