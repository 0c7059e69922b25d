//! What `#[prompt]` requires: a valid prompt name, string-typed arguments (of serde's attributes
//! only `rename` applies), and completions for arguments that exist.

use crate::attr::forwarded;
use crate::attr::keys::{RENAME, SERDE};
use crate::check::names;
use crate::ctxt::Ctxt;
use crate::model::{Function, Prompt};

pub(super) fn check(cx: &Ctxt, func: &Function, prompt: &Prompt) {
    if let Some(lit) = &prompt.attrs.common.name
        && let Err(e) = names::prompt_name(&prompt.name)
    {
        cx.error_spanned_by(lit, e);
    }
    for p in func.arguments() {
        let renamed = forwarded::serde_string(&p.forwarded, RENAME).is_some();
        for a in &p.forwarded {
            let only_rename = a.path().is_ident(SERDE)
                && renamed
                && a.parse_args::<syn::MetaNameValue>()
                    .is_ok_and(|nv| nv.path.is_ident(RENAME));
            if !only_rename {
                cx.error_spanned_by(
                    a,
                    "a prompt argument is a string parsed with `FromStr`: of `#[serde]` and `#[schemars]`, only `#[serde(rename = \"wireName\")]` applies to it",
                );
            }
        }
    }
    let arguments: Vec<&str> = func.arguments().map(|p| p.name.as_str()).collect();
    for c in &prompt.attrs.completions {
        if !arguments.contains(&c.name.as_str()) {
            cx.error_at(
                c.span,
                format!(
                    "`{}` is not an argument of this prompt; its arguments are: {}",
                    c.name,
                    if arguments.is_empty() {
                        "(none)".to_owned()
                    } else {
                        arguments
                            .iter()
                            .map(|a| format!("`{a}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
            );
        }
    }
}
