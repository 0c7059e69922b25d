//! The owned model of an annotated function: its parameters, classified, with the helper
//! attributes removed from the function that is re-emitted.

use crate::attr::{self, Slot};
use crate::ctxt::Ctxt;
use crate::docs;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, ItemFn, LitInt, LitStr, Meta, Pat, PathArguments,
    Type,
};

/// Extractor types recognized without `#[ctx]` (last path segment). The list is closed: any
/// other context value needs `#[ctx]`. The trait bound `FromContext` is checked regardless.
const CONTEXT_TYPES: &[&str] = &[
    "RequestContext",
    "Progress",
    "Logger",
    "CancellationToken",
    "State",
    "Caller",
];

/// Parameter attributes understood (and removed) by the macros.
const PARAM_ATTRS: &[&str] = &["ctx", "arg", "roots", "sample", "elicit"];

/// Which macro is being expanded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum MacroKind {
    Tool,
    Resource,
    Prompt,
}

impl MacroKind {
    pub(crate) fn attr(self) -> &'static str {
        match self {
            MacroKind::Tool => "#[tool]",
            MacroKind::Resource => "#[resource]",
            MacroKind::Prompt => "#[prompt]",
        }
    }
    /// What the function is.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            MacroKind::Tool => "tool",
            MacroKind::Resource => "resource",
            MacroKind::Prompt => "prompt",
        }
    }
    /// How a plain parameter of this kind of function is called.
    pub(crate) fn argument_noun(self) -> &'static str {
        match self {
            MacroKind::Tool => "tool argument",
            MacroKind::Resource => "template variable",
            MacroKind::Prompt => "prompt argument",
        }
    }
}

/// Where an annotated function lives.
#[derive(Clone)]
pub(crate) enum Host {
    /// A free function, called as `name(..)`.
    Free,
    /// An associated function of `self_ty`, in a `#[handlers]` impl; `receiver` when it takes
    /// `&self` (the value registered as the server's shared state).
    Impl { self_ty: Box<Type>, receiver: bool },
}

/// An annotated function.
pub(crate) struct Function {
    /// The function as it is re-emitted: helper attributes and parameter docs removed.
    pub(crate) item: ItemFn,
    pub(crate) params: Vec<Param>,
    pub(crate) host: Host,
}

/// One parameter of an annotated function.
pub(crate) struct Param {
    /// The local name (for identifier patterns).
    pub(crate) ident: Option<Ident>,
    /// The name on the wire: the identifier without `r#`.
    pub(crate) name: String,
    pub(crate) ty: Type,
    pub(crate) kind: ParamKind,
    /// `///` on the parameter.
    pub(crate) doc: Option<String>,
    /// `#[serde(..)]` and `#[schemars(..)]`, forwarded to the arguments struct field.
    pub(crate) forwarded: Vec<Attribute>,
    /// The whole parameter, for error spans.
    pub(crate) span: Span,
}

#[allow(clippy::large_enum_variant)] // a few short-lived values per macro call
pub(crate) enum ParamKind {
    /// A JSON argument (tools), template variable (resources) or prompt argument.
    Argument,
    /// Built from the request context through `FromContext`.
    Context,
    /// A client input requested through MRTR.
    Input(Input),
}

pub(crate) struct Input {
    pub(crate) kind: InputKind,
    /// The key in `inputRequests` / `inputResponses`.
    pub(crate) key: String,
    /// `Option<..>`: asked only when the client declared the capability.
    pub(crate) optional: bool,
}

#[allow(clippy::large_enum_variant)] // a few short-lived values per macro call
pub(crate) enum InputKind {
    Roots,
    Sample {
        prompt: LitStr,
        max_tokens: LitInt,
        system_prompt: Option<LitStr>,
    },
    Elicit {
        message: LitStr,
        /// `T` of `Elicitation<T>`, when it can be read from the type.
        form: Option<Type>,
    },
}

/// Removes the attributes this crate understands from a function's parameters, so that the
/// re-emitted function compiles whatever else went wrong.
pub(crate) fn strip(item: &mut ItemFn) {
    for input in &mut item.sig.inputs {
        if let FnArg::Typed(pt) = input {
            pt.attrs.retain(|a| !is_helper_attr(a));
        }
    }
}

fn is_helper_attr(attr: &Attribute) -> bool {
    let p = attr.path();
    docs::is_doc(attr)
        || p.is_ident("serde")
        || p.is_ident("schemars")
        || PARAM_ATTRS.iter().any(|n| p.is_ident(n))
}

/// `T` when `ty` is `Option<T>` (by its last path segment).
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    generic_arg_of(ty, "Option")
}

fn generic_arg_of<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    let Type::Path(tp) = ty else { return None };
    if tp.qself.is_some() {
        return None;
    }
    let seg = tp.path.segments.last()?;
    if seg.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    if args.args.len() != 1 {
        return None;
    }
    match args.args.first()? {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(tp) if tp.qself.is_none() => {
            tp.path.segments.last().map(|s| s.ident.to_string())
        }
        _ => None,
    }
}

fn is_known_context(ty: &Type) -> bool {
    if let Some(inner) = option_inner(ty) {
        return last_segment(inner).as_deref() == Some("Caller");
    }
    last_segment(ty).is_some_and(|s| CONTEXT_TYPES.contains(&s.as_str()))
}

impl Function {
    /// Builds the model; mistakes are recorded in `cx`. `item` is the function as written.
    pub(crate) fn from_item(cx: &Ctxt, mut item: ItemFn, kind: MacroKind, host: Host) -> Function {
        let mut params = Vec::new();
        let mut host = host;
        for input in &item.sig.inputs {
            match (input, &mut host) {
                (FnArg::Receiver(r), Host::Free) => cx.error_spanned_by(
                    r,
                    format!(
                        "{} on a method needs `#[handlers]` on its `impl` block (the value is registered with `ServerBuilder::handlers`); or remove `self` and make it a free function",
                        kind.attr()
                    ),
                ),
                (FnArg::Receiver(r), Host::Impl { receiver, .. }) => {
                    if r.reference.is_none() || r.mutability.is_some() || r.colon_token.is_some() {
                        cx.error_spanned_by(
                            r,
                            "take `&self`: requests are served concurrently and share the registered value (use interior mutability, such as a `Mutex`, to change it)",
                        );
                    }
                    *receiver = true;
                }
                (FnArg::Typed(pt), _) => params.push(Param::from_syn(cx, pt, kind)),
            }
        }
        strip(&mut item);
        Function { item, params, host }
    }

    pub(crate) fn is_async(&self) -> bool {
        self.item.sig.asyncness.is_some()
    }
}

impl Param {
    fn from_syn(cx: &Ctxt, pt: &syn::PatType, kind: MacroKind) -> Param {
        let ty = (*pt.ty).clone();
        let ident = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some(pi.ident.clone()),
            _ => None,
        };
        let name = ident
            .as_ref()
            .map(|i| {
                let s = i.to_string();
                s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
            })
            .unwrap_or_default();

        let mut marker: Option<(&Attribute, &'static str)> = None;
        let mut forwarded = Vec::new();
        for a in &pt.attrs {
            if a.path().is_ident("serde") || a.path().is_ident("schemars") {
                forwarded.push(a.clone());
                continue;
            }
            if let Some(n) = PARAM_ATTRS.iter().find(|n| a.path().is_ident(n)) {
                if let Some((first, _)) = marker {
                    cx.error_spanned_by(
                        a,
                        format!(
                            "a parameter takes at most one of `#[ctx]`, `#[arg]`, `#[roots]`, `#[sample]` and `#[elicit]`; this one already has `#[{}]`",
                            attr::path_string(first.path())
                        ),
                    );
                    continue;
                }
                marker = Some((a, n));
            }
        }

        let param_kind = match marker {
            Some((a, "ctx")) => {
                no_args(cx, a);
                ParamKind::Context
            }
            Some((a, "arg")) => {
                no_args(cx, a);
                ParamKind::Argument
            }
            Some((a, which)) => ParamKind::Input(parse_input(cx, a, which, &name, &ty)),
            None if is_known_context(&ty) => ParamKind::Context,
            None => ParamKind::Argument,
        };

        if matches!(param_kind, ParamKind::Argument) {
            if ident.is_none() {
                cx.error_spanned_by(
                    &pt.pat,
                    format!(
                        "a {} needs a plain name (like `query: String`) because the name is part of the schema; patterns are only allowed for context parameters",
                        kind.argument_noun()
                    ),
                );
            }
            if let Some(t) = find_impl_trait(&ty) {
                cx.error_spanned_by(
                    t,
                    format!(
                        "a {} cannot have an `impl Trait` type: use a concrete type",
                        kind.argument_noun()
                    ),
                );
            } else if let Type::Reference(r) = &ty {
                let owned = match &*r.elem {
                    Type::Path(p) if p.path.is_ident("str") => "String".to_owned(),
                    Type::Slice(s) => {
                        let e = &s.elem;
                        format!("Vec<{}>", quote::quote!(#e))
                    }
                    other => quote::quote!(#other).to_string(),
                };
                cx.error_spanned_by(
                    &ty,
                    format!(
                        "a {} is read from the request into a value the function owns: take `{owned}` instead of a reference",
                        kind.argument_noun()
                    ),
                );
            } else if let Some(inner) = ["Arc", "Rc"].iter().find_map(|w| generic_arg_of(&ty, w)) {
                cx.error_spanned_by(
                    &ty,
                    format!(
                        "shared state is not a {}: take it as `State<{}>` (register the value with `ServerBuilder::state`); a JSON argument is a plain owned type",
                        kind.argument_noun(),
                        quote::quote!(#inner)
                    ),
                );
            }
        } else if !forwarded.is_empty() {
            for a in &forwarded {
                cx.error_spanned_by(
                    a,
                    "`#[serde]` and `#[schemars]` apply only to JSON arguments; remove it from this parameter",
                );
            }
        }

        Param {
            ident,
            name,
            ty,
            kind: param_kind,
            doc: docs::description(&pt.attrs),
            forwarded,
            span: pt.span(),
        }
    }

    pub(crate) fn is_argument(&self) -> bool {
        matches!(self.kind, ParamKind::Argument)
    }
}

fn no_args(cx: &Ctxt, a: &Attribute) {
    if !matches!(a.meta, Meta::Path(_)) {
        cx.error_spanned_by(
            a,
            format!("`#[{}]` takes no arguments", attr::path_string(a.path())),
        );
    }
}

fn find_impl_trait(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        Type::Reference(r) => find_impl_trait(&r.elem),
        Type::Paren(p) => find_impl_trait(&p.elem),
        Type::Slice(s) => find_impl_trait(&s.elem),
        Type::Array(a) => find_impl_trait(&a.elem),
        Type::Tuple(t) => t.elems.iter().find_map(find_impl_trait),
        Type::Path(p) => p.path.segments.iter().find_map(|s| match &s.arguments {
            PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                GenericArgument::Type(t) => find_impl_trait(t),
                _ => None,
            }),
            _ => None,
        }),
        _ => None,
    }
}

fn parse_input(cx: &Ctxt, a: &Attribute, which: &str, name: &str, ty: &Type) -> Input {
    let items: Vec<Meta> = match &a.meta {
        Meta::Path(_) => Vec::new(),
        Meta::List(_) => attr::nested(cx, &a.meta),
        Meta::NameValue(_) => {
            cx.error_spanned_by(
                a,
                format!("write `#[{which}(...)]`, not `#[{which} = ...]`"),
            );
            Vec::new()
        }
    };
    let mut key: Slot<LitStr> = Slot::new("key");
    let mut prompt: Slot<LitStr> = Slot::new("prompt");
    let mut max_tokens: Slot<LitInt> = Slot::new("max_tokens");
    let mut system_prompt: Slot<LitStr> = Slot::new("system_prompt");
    let mut message: Slot<LitStr> = Slot::new("message");
    let known: &[&str] = match which {
        "roots" => &["key"],
        "sample" => &["prompt", "max_tokens", "system_prompt", "key"],
        _ => &["message", "key"],
    };
    for m in &items {
        let k = attr::key(m);
        if !known.contains(&k.as_str()) {
            attr::unknown_key(cx, m.path(), known, &format!("`#[{which}]`"));
            continue;
        }
        match k.as_str() {
            "key" => key.set(cx, m, attr::string(cx, m)),
            "prompt" => prompt.set(cx, m, attr::string(cx, m)),
            "max_tokens" => max_tokens.set(cx, m, attr::integer(cx, m)),
            "system_prompt" => system_prompt.set(cx, m, attr::string(cx, m)),
            _ => message.set(cx, m, attr::string(cx, m)),
        }
    }
    let key = key
        .get()
        .map(|k| k.value())
        .unwrap_or_else(|| name.to_owned());
    if key.is_empty() {
        cx.error_spanned_by(
            a,
            format!("this `#[{which}]` parameter needs a name: add `key = \"...\"`"),
        );
    }
    let optional_inner = option_inner(ty);
    let optional = optional_inner.is_some();
    let value_ty = optional_inner.unwrap_or(ty);
    let kind = match which {
        "roots" => InputKind::Roots,
        "sample" => {
            let prompt = prompt.get();
            let max_tokens = max_tokens.get();
            if prompt.is_none() || max_tokens.is_none() {
                cx.error_spanned_by(
                    a,
                    "`#[sample]` needs the request to send: add `prompt = \"...\"` and `max_tokens = N`",
                );
            }
            InputKind::Sample {
                prompt: prompt.unwrap_or_else(|| LitStr::new("", a.span())),
                max_tokens: max_tokens.unwrap_or_else(|| LitInt::new("0", a.span())),
                system_prompt: system_prompt.get(),
            }
        }
        _ => {
            let message = message.get();
            if message.is_none() {
                cx.error_spanned_by(
                    a,
                    "`#[elicit]` needs the question to ask: add `message = \"...\"`",
                );
            }
            InputKind::Elicit {
                message: message.unwrap_or_else(|| LitStr::new("", a.span())),
                form: generic_arg_of(value_ty, "Elicitation").cloned(),
            }
        }
    };
    Input {
        kind,
        key,
        optional,
    }
}
