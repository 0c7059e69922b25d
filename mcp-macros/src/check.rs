//! Checks of the model that do not need type information.

use crate::ctxt::Ctxt;
use crate::interpolate::placeholders;
use crate::model::{Function, InputKind, MacroKind, ParamKind};
use syn::{GenericParam, ItemFn, LitStr};

/// The function's signature must be a plain free function: no generics, no `unsafe`, no ABI,
/// no variadics (the receiver is checked while the parameters are read).
pub(crate) fn signature(cx: &Ctxt, item: &ItemFn, kind: MacroKind) {
    let sig = &item.sig;
    for p in &sig.generics.params {
        let what = match p {
            GenericParam::Type(t) => format!("the type parameter `{}`", t.ident),
            GenericParam::Lifetime(l) => format!("the lifetime parameter `{}`", l.lifetime),
            GenericParam::Const(c) => format!("the const parameter `{}`", c.ident),
        };
        cx.error_spanned_by(
            p,
            format!(
                "{} functions cannot be generic: remove {what} and use concrete types (the registry needs one concrete function)",
                kind.attr()
            ),
        );
    }
    if let Some(w) = &sig.generics.where_clause {
        cx.error_spanned_by(
            w,
            format!(
                "{} functions cannot have a `where` clause: use concrete types",
                kind.attr()
            ),
        );
    }
    if let Some(u) = &sig.unsafety {
        cx.error_spanned_by(
            u,
            format!(
                "{} functions cannot be `unsafe`: wrap the unsafe code in a safe function",
                kind.attr()
            ),
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(
            abi,
            format!(
                "{} functions cannot declare an ABI: remove `extern`",
                kind.attr()
            ),
        );
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, format!("{} functions cannot be variadic", kind.attr()));
    }
}

/// A tool name is 1 to 64 characters of `[A-Za-z0-9_.-]`.
pub(crate) fn tool_name(name: &str) -> Result<(), String> {
    let count = name.chars().count();
    if count == 0 || count > 64 {
        return Err(format!(
            "a tool name must be 1 to 64 characters long, and `{name}` has {count}; set a shorter one with `name = \"...\"`"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Err(format!(
            "`{name}` is not a valid tool name: it contains {c:?}, but a tool name may contain only ASCII letters, digits, `_`, `.` and `-`"
        ));
    }
    Ok(())
}

/// A prompt name is non-empty, without whitespace or control characters.
pub(crate) fn prompt_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(format!(
            "`{name}` is not a valid prompt name: it must be non-empty, without spaces or control characters"
        ));
    }
    Ok(())
}

/// One variable of a URI template.
pub(crate) struct TemplateVar {
    pub(crate) name: String,
}

/// Parses a URI template the way the runtime does (`{var}` and `{+var}` only, no two variables
/// in a row), returning its variables or a message saying what is wrong.
pub(crate) fn uri_template(template: &str) -> Result<Vec<TemplateVar>, String> {
    let mut vars: Vec<TemplateVar> = Vec::new();
    let mut rest = template;
    let mut last_was_var = false;
    let mut first = true;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            last_was_var = false;
        }
        if rest[..open].contains('}') {
            return Err(format!("unmatched `}}` in URI template `{template}`"));
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(format!("unclosed `{{` in URI template `{template}`"));
        };
        let expr = &after[..close];
        let name = expr.strip_prefix('+').unwrap_or(expr);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "`{{{expr}}}` is not a supported template expression: use `{{name}}` or `{{+name}}`, where the name is a parameter of the function"
            ));
        }
        if first && open == 0 {
            return Err(format!(
                "the URI template `{template}` must start with a scheme, like `files://{{path}}`"
            ));
        }
        if last_was_var {
            return Err(format!(
                "two variables in a row in `{template}` cannot be told apart: put a literal between them"
            ));
        }
        if vars.iter().any(|v| v.name == name) {
            return Err(format!(
                "the variable `{name}` appears twice in `{template}`; use each variable once"
            ));
        }
        vars.push(TemplateVar {
            name: name.to_owned(),
        });
        last_was_var = true;
        first = false;
        rest = &after[close + 1..];
    }
    if rest.contains('}') {
        return Err(format!("unmatched `}}` in URI template `{template}`"));
    }
    Ok(vars)
}

/// A URI (or template) starts with a scheme.
pub(crate) fn has_scheme(uri: &str) -> bool {
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

/// Every `{name}` in a client input's text (`#[elicit(message)]`, `#[sample(prompt)]`) names
/// one of the function's arguments.
pub(crate) fn interpolations(cx: &Ctxt, func: &Function, kind: MacroKind) {
    let arguments: Vec<String> = func
        .params
        .iter()
        .filter(|p| p.is_argument())
        .filter_map(|p| p.ident.as_ref().map(|i| i.to_string()))
        .collect();
    for param in &func.params {
        let ParamKind::Input(input) = &param.kind else {
            continue;
        };
        let texts: Vec<&LitStr> = match &input.kind {
            InputKind::Roots => Vec::new(),
            InputKind::Sample {
                prompt,
                system_prompt,
                ..
            } => std::iter::once(prompt).chain(system_prompt).collect(),
            InputKind::Elicit { message, .. } => vec![message],
        };
        for lit in texts {
            match placeholders(&lit.value()) {
                Err(e) => cx.error_spanned_by(lit, e),
                Ok(names) => {
                    for name in names.iter().filter(|n| !arguments.contains(n)) {
                        let known = if arguments.is_empty() {
                            format!("this {} has no arguments", kind.noun())
                        } else {
                            format!(
                                "its arguments are {}",
                                arguments
                                    .iter()
                                    .map(|a| format!("`{a}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        };
                        cx.error_spanned_by(
                            lit,
                            format!(
                                "`{{{name}}}` is not an argument of this {}: {known}",
                                kind.noun()
                            ),
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(tool_name("add").is_ok());
        assert!(tool_name("a.b-c_9").is_ok());
        assert!(tool_name("").is_err());
        assert!(tool_name("has space").is_err());
        assert!(tool_name(&"x".repeat(65)).is_err());
        assert!(tool_name(&"x".repeat(64)).is_ok());
    }

    #[test]
    fn templates() {
        let v = uri_template("files://{+path}/x/{id}").unwrap();
        assert_eq!(
            v.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
            ["path", "id"]
        );
        assert!(uri_template("files://{a}{b}").is_err());
        assert!(uri_template("files://{a").is_err());
        assert!(uri_template("files://{?q}").is_err());
        assert!(uri_template("files://{a}/{a}").is_err());
        assert!(uri_template("config://service").unwrap().is_empty());
    }
}
