//! `#[resource]`: fixed resources and RFC 6570 resource templates.

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
use syn::{ItemFn, LitInt, LitStr, Meta};

const KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "mime_type",
    "size",
    "icon",
    "cache",
    "complete",
    "scopes",
    "authorize",
    "crate",
];

struct ResourceAttrs {
    uri: Option<LitStr>,
    name: Option<LitStr>,
    title: Option<LitStr>,
    description: Option<LitStr>,
    mime_type: Option<LitStr>,
    size: Option<(Meta, LitInt)>,
    icons: Vec<IconSpec>,
    cache: Option<(LitInt, bool)>,
    completions: Vec<CompletionSpec>,
    access: AccessSpec,
    krate: Option<syn::Path>,
}

impl ResourceAttrs {
    fn parse(cx: &Ctxt, args: TokenStream) -> ResourceAttrs {
        let mut uri: Slot<LitStr> = Slot::new("URI");
        let mut name = Slot::new("name");
        let mut title = Slot::new("title");
        let mut description = Slot::new("description");
        let mut mime_type = Slot::new("mime_type");
        let mut size = Slot::new("size");
        let mut cache = Slot::new("cache");
        let mut krate = Slot::new("crate");
        let mut icons = Vec::new();
        let mut completions = Vec::new();
        let mut access = AccessSpec::default();
        for (i, item) in attr::parse_items(cx, args).into_iter().enumerate() {
            let m = match item {
                Item::Lit(l) => {
                    if i != 0 {
                        cx.error_spanned_by(
                            &l,
                            "the URI comes first: `#[resource(\"scheme://...\", name = \"...\")]`",
                        );
                    }
                    uri.set(cx, &l, Some(l.clone()));
                    continue;
                }
                Item::Meta(m) => m,
            };
            if access.read(cx, &m) {
                continue;
            }
            match attr::key(&m).as_str() {
                "name" => name.set(cx, &m, attr::string(cx, &m)),
                "title" => title.set(cx, &m, attr::string(cx, &m)),
                "description" => description.set(cx, &m, attr::string(cx, &m)),
                "mime_type" => mime_type.set(cx, &m, attr::string(cx, &m)),
                "size" => size.set(cx, &m, attr::integer(cx, &m).map(|i| (m.clone(), i))),
                "icon" => icons.extend(common::icon(cx, &m)),
                "cache" => cache.set(cx, &m, parse_cache(cx, &m)),
                "complete" => common::completions(cx, &m, &mut completions),
                "crate" => krate.set(cx, &m, common::crate_path(cx, &m)),
                "uri" => cx.error_spanned_by(
                    &m,
                    "write the URI as the first argument, without a key: `#[resource(\"scheme://...\")]`",
                ),
                _ => attr::unknown_key(cx, m.path(), KEYS, "`#[resource]`"),
            }
        }
        ResourceAttrs {
            uri: uri.get(),
            name: name.get(),
            title: title.get(),
            description: description.get(),
            mime_type: mime_type.get(),
            size: size.get(),
            icons,
            cache: cache.get(),
            completions,
            access,
            krate: krate.get(),
        }
    }
}

/// `cache(ttl_ms = N, scope = "public" | "private")` → (ttl, private?).
fn parse_cache(cx: &Ctxt, meta: &Meta) -> Option<(LitInt, bool)> {
    let mut ttl: Slot<LitInt> = Slot::new("ttl_ms");
    let mut scope: Slot<LitStr> = Slot::new("scope");
    for m in attr::nested(cx, meta) {
        match attr::key(&m).as_str() {
            "ttl_ms" => ttl.set(cx, &m, attr::integer(cx, &m)),
            "scope" => scope.set(cx, &m, attr::string(cx, &m)),
            _ => attr::unknown_key(cx, m.path(), &["ttl_ms", "scope"], "`cache(...)`"),
        }
    }
    let private = match scope.get() {
        None => true,
        Some(s) => match s.value().as_str() {
            "private" => true,
            "public" => false,
            _ => {
                cx.error_spanned_by(&s, "the cache `scope` is either \"public\" or \"private\"");
                true
            }
        },
    };
    match ttl.get() {
        Some(t) => Some((t, private)),
        None => {
            cx.error_spanned_by(meta, "`cache(...)` needs a freshness: add `ttl_ms = N`");
            None
        }
    }
}

/// Entry point of `#[resource]`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match syn::parse2::<ItemFn>(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let cx = Ctxt::new();
            let attrs = ResourceAttrs::parse(&cx, args);
            let paths = Paths::new(attrs.krate.clone());
            cx.error_at(
                Span::call_site(),
                "`#[resource]` goes on a free function (`fn` or `async fn`)",
            );
            return fallback::emit(
                input,
                cx.into_compile_errors(),
                &paths,
                &[Registered::Resource, Registered::ResourceTemplate],
            );
        }
    };
    match expand_fn(args, item, Host::Free) {
        Ok((_, out)) => out,
        Err((errors, paths)) => fallback::emit(
            input,
            errors,
            &paths,
            &[Registered::Resource, Registered::ResourceTemplate],
        ),
    }
}

/// The resource of `item`, a function living in `host`: the function as it is re-emitted and the
/// generated items, or the errors (and where `mcp_runtime` is, for a fallback).
pub(crate) fn expand_fn(
    args: TokenStream,
    item: ItemFn,
    host: Host,
) -> Result<(ItemFn, TokenStream), (TokenStream, Paths)> {
    let cx = Ctxt::new();
    let attrs = ResourceAttrs::parse(&cx, args);
    let paths = Paths::new(attrs.krate.clone());
    check::signature(&cx, &item, MacroKind::Resource);
    let func = Function::from_item(&cx, item, MacroKind::Resource, host);
    check::interpolations(&cx, &func, MacroKind::Resource);

    let mut variables: Vec<String> = Vec::new();
    let mut template_ok = false;
    match &attrs.uri {
        None => cx.error_at(
            Span::call_site(),
            "`#[resource]` needs the URI it serves as its first argument, like `#[resource(\"config://service\")]` or `#[resource(\"files://{path}\")]`",
        ),
        Some(uri) => {
            let text = uri.value();
            if !check::has_scheme(&text) {
                cx.error_spanned_by(uri, format!("`{text}` has no scheme: a resource URI starts with one, like `config://service`"));
            }
            match check::uri_template(&text) {
                Ok(vars) => {
                    variables = vars.into_iter().map(|v| v.name).collect();
                    template_ok = true;
                }
                Err(e) => cx.error_spanned_by(uri, e),
            }
        }
    }
    let is_template = !variables.is_empty();

    if template_ok {
        // Every variable is a parameter ...
        for var in &variables {
            let found = func
                .params
                .iter()
                .any(|p| p.is_argument() && p.name == *var);
            if !found && let Some(uri) = &attrs.uri {
                cx.error_spanned_by(
                        uri,
                        format!("the template variable `{var}` has no parameter: add `{var}: String` (or any `FromStr` type) to the function"),
                    );
            }
        }
        // ... and every plain parameter is a variable.
        for p in func.params.iter().filter(|p| p.is_argument()) {
            if p.ident.is_some() && !variables.contains(&p.name) {
                let uri = attrs.uri.as_ref().map(LitStr::value).unwrap_or_default();
                cx.error_at(
                    p.span,
                    format!(
                        "the parameter `{}` is not a variable of the URI template `{uri}`: add `{{{}}}` to the URI, or mark it `#[ctx]` if it is a context value",
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
    }
    let name = attrs.name.as_ref().map(LitStr::value).unwrap_or_else(|| {
        let n = func.item.sig.ident.to_string();
        n.strip_prefix("r#").map(str::to_owned).unwrap_or(n)
    });
    if let Some(n) = &attrs.name
        && n.value().is_empty()
    {
        cx.error_spanned_by(n, "a resource name cannot be empty");
    }
    if cx.has_errors() {
        return Err((cx.into_compile_errors(), paths));
    }
    let _ = cx.check();
    let out = generate(&paths, &attrs, &func, &name, is_template);
    Ok((func.item, out))
}

fn generate(
    paths: &Paths,
    attrs: &ResourceAttrs,
    func: &Function,
    name: &str,
    is_template: bool,
) -> TokenStream {
    let p = paths.private();
    let proto = paths.protocol();
    let item = &func.item;
    let uri = attrs.uri.as_ref().map(LitStr::value).unwrap_or_default();

    let mut vars = TokenStream::new();
    for (i, param) in func.params.iter().enumerate() {
        if !param.is_argument() {
            continue;
        }
        let l = local(i);
        let var = &param.name;
        let (optional, ty) = match option_inner(&param.ty) {
            Some(inner) => (true, inner),
            None => (false, &param.ty),
        };
        let full_ty = &param.ty;
        let parse_value = expand::parse_string(ty, quote!(__mcp_v));
        let invalid = quote! {
            return ::core::result::Result::Err(#p::McpError::invalid_params(
                #p::std::format!(
                    "Invalid params: `{}` is not a valid value of the URI variable `{}` in {}: {}",
                    __mcp_v, #var, __mcp_read.uri, __mcp_e
                ),
            ).with_data({
                let mut __mcp_data = #p::serde_json::Map::new();
                __mcp_data.insert(
                    ::core::convert::Into::into("uri"),
                    #p::serde_json::Value::String(::core::clone::Clone::clone(&__mcp_read.uri)),
                );
                #p::serde_json::Value::Object(__mcp_data)
            }))
        };
        let parse = quote! {
            match #parse_value {
                ::core::result::Result::Ok(__mcp_x) => __mcp_x,
                ::core::result::Result::Err(__mcp_e) => { #invalid }
            }
        };
        if optional {
            vars.extend(quote! {
                let #l: #full_ty = match __mcp_read.variables.get(#var) {
                    ::core::option::Option::Some(__mcp_v) if !__mcp_v.is_empty() => ::core::option::Option::Some(#parse),
                    _ => ::core::option::Option::None,
                };
            });
        } else {
            vars.extend(quote! {
                let #l: #full_ty = match __mcp_read.variables.get(#var) {
                    ::core::option::Option::Some(__mcp_v) => #parse,
                    ::core::option::Option::None => {
                        return ::core::result::Result::Err(#p::McpError::resource_not_found(&__mcp_read.uri));
                    }
                };
            });
        }
    }

    let outcome = quote!(#p::ResourceOutcome);
    let prelude = expand::context_and_inputs(paths, func, &quote!(&__mcp_read.context), &outcome);
    let call = expand::call(paths, func);
    let mime = match &attrs.mime_type {
        Some(m) => quote!(::core::option::Option::Some(#m)),
        None => quote!(::core::option::Option::None),
    };
    let convert = match expand::return_type(func) {
        Some(r) => quote_spanned!(r.span()=> <#r as #p::IntoResourceResult>::into_resource_result),
        None => quote!(#p::IntoResourceResult::into_resource_result),
    };

    let mut setup = expand::title_and_description(
        "__mcp_res",
        attrs.title.as_ref(),
        attrs.description.as_ref(),
        &item.attrs,
    );
    if let Some(m) = &attrs.mime_type {
        setup.extend(quote!(__mcp_res = __mcp_res.mime_type(#m);));
    }
    if let Some((_, s)) = &attrs.size {
        setup.extend(quote!(__mcp_res = __mcp_res.size(#s);));
    }
    for icon in &attrs.icons {
        let icon = expand::icon(paths, icon);
        setup.extend(quote!(__mcp_res = __mcp_res.icon(#icon);));
    }
    setup.extend(expand::access(
        paths,
        &format_ident!("__mcp_res"),
        &attrs.access,
    ));
    setup.extend(expand::declarations(
        paths,
        func,
        &format_ident!("__mcp_res"),
    ));
    if let Some((ttl, private)) = &attrs.cache {
        let scope = if *private {
            quote!(Private)
        } else {
            quote!(Public)
        };
        setup.extend(quote!(__mcp_res = __mcp_res.cache(#ttl, #proto::CacheScope::#scope);));
    }
    for c in &attrs.completions {
        let var = &c.name;
        let completer = expand::completer(paths, &c.source);
        setup.extend(quote!(__mcp_res = __mcp_res.complete(#var, #completer);));
    }

    let kind = if is_template {
        Registered::ResourceTemplate
    } else {
        Registered::Resource
    };
    let ty = if is_template {
        quote!(#p::ResourceTemplate)
    } else {
        quote!(#p::Resource)
    };
    let build = format_ident!("__mcp_build");
    let (handle, handle_impl) = expand::handle(paths, func, kind, &build);
    let register = expand::registration(paths, func, kind, &uri, &build);
    let allows = expand::allows();
    let from_str_trait = expand::from_str_trait(paths, "template variable");

    let emitted = expand::emitted(func);
    quote! {
        #emitted

        #handle

        #allows
        const _: () = {
            #from_str_trait

            async fn __mcp_handler(
                __mcp_read: #p::ResourceRead,
            ) -> ::core::result::Result<#p::ResourceOutcome, #p::McpError> {
                #vars
                #prelude
                #call
                #convert(__mcp_out, &__mcp_read.uri, #mime)
            }

            fn #build() -> #ty {
                let mut __mcp_res = #ty::new(#uri, #name);
                #setup
                __mcp_res.handler(__mcp_handler)
            }

            #handle_impl

            #register
        };
    }
}
