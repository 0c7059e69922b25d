//! `#[prompt]`.

use crate::attr::{self, Item, Slot};
use crate::check;
use crate::common::{self, AccessSpec, CompletionSpec, IconSpec};
use crate::ctxt::Ctxt;
use crate::expand::{self, Registered, local};
use crate::fallback;
use crate::model::{Function, Host, MacroKind, option_inner};
use crate::paths::Paths;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, LitStr};

const KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "icon",
    "complete",
    "scopes",
    "authorize",
    "crate",
];

struct PromptAttrs {
    name: Option<LitStr>,
    title: Option<LitStr>,
    description: Option<LitStr>,
    icons: Vec<IconSpec>,
    completions: Vec<CompletionSpec>,
    access: AccessSpec,
    krate: Option<syn::Path>,
}

impl PromptAttrs {
    fn parse(cx: &Ctxt, args: TokenStream) -> PromptAttrs {
        let mut name = Slot::new("name");
        let mut title = Slot::new("title");
        let mut description = Slot::new("description");
        let mut krate = Slot::new("crate");
        let mut icons = Vec::new();
        let mut completions = Vec::new();
        let mut access = AccessSpec::default();
        for item in attr::parse_items(cx, args) {
            let m = match item {
                Item::Meta(m) => m,
                Item::Lit(l) => {
                    cx.error_spanned_by(&l, "`#[prompt]` takes `key = value` arguments: write `name = \"...\"` to name the prompt");
                    continue;
                }
            };
            if access.read(cx, &m) {
                continue;
            }
            match attr::key(&m).as_str() {
                "name" => name.set(cx, &m, attr::string(cx, &m)),
                "title" => title.set(cx, &m, attr::string(cx, &m)),
                "description" => description.set(cx, &m, attr::string(cx, &m)),
                "icon" => icons.extend(common::icon(cx, &m)),
                "complete" => common::completions(cx, &m, &mut completions),
                "crate" => krate.set(cx, &m, common::crate_path(cx, &m)),
                _ => attr::unknown_key(cx, m.path(), KEYS, "`#[prompt]`"),
            }
        }
        PromptAttrs {
            name: name.get(),
            title: title.get(),
            description: description.get(),
            icons,
            completions,
            access,
            krate: krate.get(),
        }
    }
}

/// Entry point of `#[prompt]`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match syn::parse2::<ItemFn>(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let cx = Ctxt::new();
            let attrs = PromptAttrs::parse(&cx, args);
            let paths = Paths::new(attrs.krate.clone());
            cx.error_at(
                Span::call_site(),
                "`#[prompt]` goes on a free function (`fn` or `async fn`)",
            );
            return fallback::emit(
                input,
                cx.into_compile_errors(),
                &paths,
                &[Registered::Prompt],
            );
        }
    };
    match expand_fn(args, item, Host::Free) {
        Ok((_, out)) => out,
        Err((errors, paths)) => fallback::emit(input, errors, &paths, &[Registered::Prompt]),
    }
}

/// The prompt of `item`, a function living in `host`: the function as it is re-emitted and the
/// generated items, or the errors (and where `mcp_runtime` is, for a fallback).
pub(crate) fn expand_fn(
    args: TokenStream,
    item: ItemFn,
    host: Host,
) -> Result<(ItemFn, TokenStream), (TokenStream, Paths)> {
    let cx = Ctxt::new();
    let attrs = PromptAttrs::parse(&cx, args);
    let paths = Paths::new(attrs.krate.clone());
    check::signature(&cx, &item, MacroKind::Prompt);
    let mut func = Function::from_item(&cx, item, MacroKind::Prompt, host);
    check::interpolations(&cx, &func, MacroKind::Prompt);
    let name = match &attrs.name {
        Some(lit) => {
            if let Err(e) = check::prompt_name(&lit.value()) {
                cx.error_spanned_by(lit, e);
            }
            lit.value()
        }
        None => {
            let n = func.item.sig.ident.to_string();
            n.strip_prefix("r#").map(str::to_owned).unwrap_or(n)
        }
    };
    for p in func.params.iter_mut().filter(|p| p.is_argument()) {
        // `#[serde(rename = "..")]` alone names the argument on the wire; nothing else applies.
        let rename = super::form::serde_string(&p.forwarded, "rename");
        for a in &p.forwarded {
            let only_rename = a.path().is_ident("serde")
                && rename.is_some()
                && a.parse_args::<syn::MetaNameValue>()
                    .is_ok_and(|nv| nv.path.is_ident("rename"));
            if !only_rename {
                cx.error_spanned_by(
                    a,
                    "a prompt argument is a string parsed with `FromStr`: of `#[serde]` and `#[schemars]`, only `#[serde(rename = \"wireName\")]` applies to it",
                );
            }
        }
        if let Some(r) = rename {
            p.name = r.value();
        }
    }
    let arguments: Vec<&str> = func
        .params
        .iter()
        .filter(|p| p.is_argument())
        .map(|p| p.name.as_str())
        .collect();
    for c in &attrs.completions {
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
    if cx.has_errors() {
        return Err((cx.into_compile_errors(), paths));
    }
    let _ = cx.check();
    let out = generate(&paths, &attrs, &func, &name);
    Ok((func.item, out))
}

fn generate(paths: &Paths, attrs: &PromptAttrs, func: &Function, name: &str) -> TokenStream {
    let p = paths.private();
    let item = &func.item;

    let mut args = TokenStream::new();
    let mut declare = TokenStream::new();
    for (i, param) in func.params.iter().enumerate() {
        if !param.is_argument() {
            continue;
        }
        let l = local(i);
        let arg = &param.name;
        let (optional, ty) = match option_inner(&param.ty) {
            Some(inner) => (true, inner),
            None => (false, &param.ty),
        };
        let full_ty = &param.ty;
        let description = match &param.doc {
            Some(d) => quote!(::core::option::Option::Some(#d)),
            None => quote!(::core::option::Option::None),
        };
        let required = !optional;
        declare
            .extend(quote!(__mcp_prompt = __mcp_prompt.argument(#arg, #description, #required);));
        let parse_value = expand::parse_string(ty, quote!(&__mcp_v));
        let parse = quote! {
            match #parse_value {
                ::core::result::Result::Ok(__mcp_x) => __mcp_x,
                ::core::result::Result::Err(__mcp_e) => {
                    return ::core::result::Result::Err(#p::McpError::invalid_params(#p::std::format!(
                        "Invalid params: argument `{}` of prompt `{}` is not valid ({:?}): {}",
                        #arg, __mcp_get.name, __mcp_v, __mcp_e
                    )));
                }
            }
        };
        if optional {
            args.extend(quote! {
                let #l: #full_ty = match __mcp_get.arguments.remove(#arg) {
                    ::core::option::Option::Some(__mcp_v) => ::core::option::Option::Some(#parse),
                    ::core::option::Option::None => ::core::option::Option::None,
                };
            });
        } else {
            args.extend(quote! {
                let #l: #full_ty = match __mcp_get.arguments.remove(#arg) {
                    ::core::option::Option::Some(__mcp_v) => #parse,
                    ::core::option::Option::None => {
                        return ::core::result::Result::Err(#p::McpError::invalid_params(#p::std::format!(
                            "Invalid params: prompt `{}` requires the argument `{}`",
                            __mcp_get.name, #arg
                        )));
                    }
                };
            });
        }
    }

    let outcome = quote!(#p::PromptOutcome);
    let prelude = expand::context_and_inputs(paths, func, &quote!(&__mcp_get.context), &outcome);
    let call = expand::call(paths, func);
    let convert = match expand::return_type(func) {
        Some(r) => quote_spanned!(r.span()=> <#r as #p::IntoPromptResult>::into_prompt_result),
        None => quote!(#p::IntoPromptResult::into_prompt_result),
    };

    let mut setup = expand::title_and_description(
        "__mcp_prompt",
        attrs.title.as_ref(),
        attrs.description.as_ref(),
        &item.attrs,
    );
    for icon in &attrs.icons {
        let icon = expand::icon(paths, icon);
        setup.extend(quote!(__mcp_prompt = __mcp_prompt.icon(#icon);));
    }
    setup.extend(declare);
    setup.extend(expand::access(
        paths,
        &format_ident!("__mcp_prompt"),
        &attrs.access,
    ));
    setup.extend(expand::declarations(
        paths,
        func,
        &format_ident!("__mcp_prompt"),
    ));
    for c in &attrs.completions {
        let arg = &c.name;
        let completer = expand::completer(paths, &c.source);
        setup.extend(quote!(__mcp_prompt = __mcp_prompt.complete(#arg, #completer);));
    }

    let build = format_ident!("__mcp_build");
    let (handle, handle_impl) = expand::handle(paths, func, Registered::Prompt, &build);
    let register = expand::registration(paths, func, Registered::Prompt, name, &build);
    let allows = expand::allows();
    let from_str_trait = expand::from_str_trait(paths, "prompt argument");

    let emitted = expand::emitted(func);
    quote! {
        #emitted

        #handle

        #allows
        const _: () = {
            #from_str_trait

            async fn __mcp_handler(
                mut __mcp_get: #p::PromptGet,
            ) -> ::core::result::Result<#p::PromptOutcome, #p::McpError> {
                #args
                #prelude
                #call
                #convert(__mcp_out)
            }

            fn #build() -> #p::Prompt {
                let mut __mcp_prompt = #p::Prompt::new(#name);
                #setup
                __mcp_prompt = __mcp_prompt.handler(__mcp_handler);
                __mcp_prompt
            }

            #handle_impl

            #register
        };
    }
}
