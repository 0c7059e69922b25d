//! Checks of the model that do not need type information: the signature before the model is
//! built, then what each kind of primitive requires of its function and arguments.

mod names;
mod prompt;
mod resource;
mod tool;

use crate::ctxt::Ctxt;
use crate::interpolate::placeholders;
use crate::kind::Kind;
use crate::model::{Function, InputKind, Message, Model, ParamKind, Spec, option_inner};
use syn::{GenericParam, ItemFn, LitStr, Type};

/// Everything the model must satisfy; mistakes are recorded in `cx`.
pub(crate) fn model(cx: &Ctxt, model: &Model) {
    let func = &model.func;
    interpolations(cx, func, model.kind());
    elicited_types(cx, func);
    match &model.spec {
        Spec::Tool(t) => tool::check(cx, func, t),
        Spec::Resource(r) => resource::check(cx, func, r),
        Spec::Prompt(p) => prompt::check(cx, func, p),
    }
}

/// The function's signature must be a plain free function: no generics, no `unsafe`, no ABI,
/// no variadics (the receiver is checked while the parameters are read).
pub(crate) fn signature(cx: &Ctxt, item: &ItemFn, kind: Kind) {
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
    if let syn::Safety::Unsafe(u) = &sig.safety {
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

/// Every `{name}` in a client input's text (`#[elicit(message)]`, `#[sample(prompt)]`) names
/// one of the function's arguments.
fn interpolations(cx: &Ctxt, func: &Function, kind: Kind) {
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
            InputKind::Elicit {
                message: Message::Text(message),
                ..
            } => vec![message],
            InputKind::Elicit { .. } => Vec::new(),
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

/// Types a form field may be (`FormField`), by name: an `#[elicit]` parameter of one of them is
/// told the one-field form to write.
const FIELD_TYPES: &[&str] = &[
    "bool", "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f32", "f64",
];

/// An `#[elicit]` parameter of a plain type (`bool`, `String`, a number) rather than
/// `Elicitation<T>`: told what to write. Any other type that is not an `Elicitation<T>` is
/// refused at compile time by the runtime's `ElicitParam` bound (an alias of one is fine).
fn elicited_types(cx: &Ctxt, func: &Function) {
    for param in &func.params {
        let ParamKind::Input(input) = &param.kind else {
            continue;
        };
        if !matches!(input.kind, InputKind::Elicit { form: None, .. }) {
            continue;
        }
        let ty = option_inner(&param.ty).unwrap_or(&param.ty);
        let Some(plain) = plain_type(ty) else {
            continue;
        };
        let written = match ty {
            Type::Reference(_) => format!("&{plain}"),
            _ => plain.clone(),
        };
        let name = param.name.trim_start_matches('_');
        let name = if name.is_empty() { "answer" } else { name };
        let wrap = |t: &str| match input.optional {
            true => format!("Option<Elicitation<{t}>>"),
            false => format!("Elicitation<{t}>"),
        };
        let message = if plain == "String" || plain == "str" {
            format!(
                "an `#[elicit]` parameter is an `Elicitation<T>`, not `{written}`: to ask for one text, write `{name}: {}` (the answer is `Accepted(text)`, `Declined` or `Cancelled`), or `T` a struct deriving `ElicitForm` for several fields",
                wrap("String")
            )
        } else {
            let form = camel(name);
            format!(
                "an `#[elicit]` parameter is an `Elicitation<T>`, `T` a form, not `{written}`: ask with a one-field form, `#[derive(serde::Deserialize, ElicitForm)] struct {form} {{ {name}: {plain} }}`, and write `{name}: {}` (the answer is `Accepted({form} {{ {name} }})`, `Declined` or `Cancelled`)",
                wrap(&form)
            )
        };
        cx.error_spanned_by(ty, message);
    }
}

/// The name of `bool`, a number, `String` or `str`, behind a reference or not.
fn plain_type(ty: &Type) -> Option<String> {
    match ty {
        Type::Reference(r) => plain_type(&r.elem),
        Type::Paren(p) => plain_type(&p.elem),
        Type::Path(tp) if tp.qself.is_none() && tp.path.segments.len() == 1 => {
            let seg = tp.path.segments.first()?;
            let name = seg.ident.to_string();
            let known = name == "String" || name == "str" || FIELD_TYPES.contains(&name.as_str());
            (known && seg.arguments.is_none()).then_some(name)
        }
        _ => None,
    }
}

/// `go_on` as `GoOn`.
fn camel(name: &str) -> String {
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}
