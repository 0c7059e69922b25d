//! The code `#[resource]` generates, for a fixed resource or an RFC 6570 resource template:
//! the handler parsing the template's variables, the build function, the handle and the
//! registration.

use crate::expand::{self, Noun, Registered, local};
use crate::model::{Function, Resource, option_inner};
use crate::paths::Paths;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The items of a checked resource.
pub(crate) fn generate(paths: &Paths, func: &Function, resource: &Resource) -> TokenStream {
    let attrs = &resource.attrs;
    let name = resource.name.as_str();
    let is_template = resource.is_template();
    let p = paths.private();
    let proto = paths.protocol();
    let item = &func.item;
    let uri = resource.uri();

    let mut vars = TokenStream::new();
    let mut probes = TokenStream::new();
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
        let refuses = expand::refuses_strings(paths, Noun::TemplateVariable, ty);
        let written = quote!(#ty).to_string().replace(' ', "");
        probes.extend(quote! {
            __mcp_res = #p::refused_variable(__mcp_res, #var, #written, #refuses);
        });
        let parse_value = expand::parse_string(paths, Noun::TemplateVariable, ty, quote!(__mcp_v));
        let invalid = quote! {
            return ::core::result::Result::Err(#p::invalid_variable(&__mcp_read, #var, __mcp_v, __mcp_e))
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

    let mut setup = expand::title_and_description_setters(
        &format_ident!("__mcp_res"),
        attrs.common.title.as_ref(),
        attrs.common.description.as_ref(),
        &item.attrs,
    );
    if let Some(m) = &attrs.mime_type {
        setup.extend(quote!(__mcp_res = __mcp_res.mime_type(#m);));
    }
    if let Some((_, s)) = &attrs.size {
        setup.extend(quote!(__mcp_res = __mcp_res.size(#s);));
    }
    for icon in &attrs.common.icons {
        let icon = expand::icon(paths, icon);
        setup.extend(quote!(__mcp_res = __mcp_res.icon(#icon);));
    }
    if is_template {
        setup.extend(probes);
    }
    setup.extend(expand::access(
        paths,
        &format_ident!("__mcp_res"),
        &attrs.common.access,
    ));
    setup.extend(expand::declarations(
        paths,
        func,
        &format_ident!("__mcp_res"),
    ));
    if let Some(cache) = &attrs.cache {
        let ttl = &cache.ttl_ms;
        let scope = if cache.private {
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
    let ways = expand::ways_in_scope(paths);
    let answer = quote!(::core::result::Result<#p::ResourceOutcome, #p::McpError>);
    let set_handler = if is_template {
        quote!(#p::generated_template_handler)
    } else {
        quote!(#p::generated_resource_handler)
    };

    let emitted = expand::emitted(func);
    quote! {
        #emitted

        #handle

        #allows
        const _: () = {
            #ways

            async fn __mcp_run(__mcp_read: #p::ResourceRead) -> #answer {
                #vars
                #prelude
                #call
                #convert(__mcp_out, &__mcp_read.uri, #mime)
            }

            fn __mcp_handler(__mcp_read: #p::ResourceRead) -> #p::BoxFuture<'static, #answer> {
                #p::std::boxed::Box::pin(__mcp_run(__mcp_read))
            }

            fn #build() -> #ty {
                let mut __mcp_res = #ty::new(#uri, #name);
                #setup
                #set_handler(__mcp_res, __mcp_handler)
            }

            #handle_impl

            #register
        };
    }
}
