//! The code `#[prompt]` generates: the handler parsing the string arguments, the build
//! function declaring them, the handle and the registration.

use crate::expand::{self, Noun, Registered, local};
use crate::model::{Function, Prompt, option_inner};
use crate::paths::Paths;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The items of a checked prompt.
pub(crate) fn generate(paths: &Paths, func: &Function, prompt: &Prompt) -> TokenStream {
    let attrs = &prompt.attrs;
    let name = prompt.name.as_str();
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
        let refuses = expand::refuses_strings(paths, Noun::PromptArgument, ty);
        let written = quote!(#ty).to_string().replace(' ', "");
        declare.extend(quote! {
            __mcp_prompt = #p::refused_prompt_argument(__mcp_prompt, #arg, #written, #refuses);
        });
        let parse_value = expand::parse_string(paths, Noun::PromptArgument, ty, quote!(&__mcp_v));
        let parse = quote! {
            match #parse_value {
                ::core::result::Result::Ok(__mcp_x) => __mcp_x,
                ::core::result::Result::Err(__mcp_e) => {
                    return ::core::result::Result::Err(#p::invalid_prompt_argument(&__mcp_get, #arg, &__mcp_v, __mcp_e));
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
                        return ::core::result::Result::Err(#p::missing_prompt_argument(&__mcp_get, #arg));
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

    let mut setup = expand::title_and_description_setters(
        &format_ident!("__mcp_prompt"),
        attrs.common.title.as_ref(),
        attrs.common.description.as_ref(),
        &item.attrs,
    );
    for icon in &attrs.common.icons {
        let icon = expand::icon(paths, icon);
        setup.extend(quote!(__mcp_prompt = __mcp_prompt.icon(#icon);));
    }
    setup.extend(declare);
    setup.extend(expand::access(
        paths,
        &format_ident!("__mcp_prompt"),
        &attrs.common.access,
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
    let ways = expand::ways_in_scope(paths);
    let answer = quote!(::core::result::Result<#p::PromptOutcome, #p::McpError>);

    let emitted = expand::emitted(func);
    quote! {
        #emitted

        #handle

        #allows
        const _: () = {
            #ways

            async fn __mcp_run(mut __mcp_get: #p::PromptGet) -> #answer {
                #args
                #prelude
                #call
                #convert(__mcp_out)
            }

            fn __mcp_handler(__mcp_get: #p::PromptGet) -> #p::BoxFuture<'static, #answer> {
                #p::std::boxed::Box::pin(__mcp_run(__mcp_get))
            }

            fn #build() -> #p::Prompt {
                let mut __mcp_prompt = #p::Prompt::new(#name);
                #setup
                #p::generated_prompt_handler(__mcp_prompt, __mcp_handler)
            }

            #handle_impl

            #register
        };
    }
}
