//! The code `#[tool]` generates: an arguments struct deriving the input schema, the handler,
//! the build function, the handle and the registration.

use crate::attr::keys::{ALIAS, DEFAULT, RENAME, SERDE};
use crate::attr::tool::{TaskMode, ViewLayout, Visible};
use crate::expand::{self, Registered, local};
use crate::model::{Function, Tool};
use crate::paths::Paths;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::LitBool;
use syn::spanned::Spanned;

/// The items of a checked tool.
pub(crate) fn generate(paths: &Paths, func: &Function, tool: &Tool) -> TokenStream {
    let attrs = &tool.attrs;
    let name = tool.name.as_str();
    let p = paths.private();
    let proto = paths.protocol();
    let item = &func.item;
    let serde_crate = paths.private_crate_str("serde");
    let schemars_crate = paths.private_crate_str("schemars");

    // The arguments struct.
    // The struct is generic over the argument types, so the derives never name a user type (a
    // type that is not `Deserialize + JsonSchema` would fail in every generated method); it is
    // instantiated once, through `__McpArgument`, at the parameters' spans.
    let mut fields = Vec::new();
    let mut generics = Vec::new();
    let mut projected = Vec::new();
    let mut checks = Vec::new();
    let mut bind = Vec::new();
    for (i, param) in func.params.iter().enumerate() {
        if !param.is_argument() {
            continue;
        }
        let Some(ident) = &param.ident else { continue };
        let ty = &param.ty;
        let forwarded = &param.forwarded;
        let doc = match (&param.doc, param.described) {
            (Some(d), false) => quote!(#[schemars(description = #d)]),
            _ => TokenStream::new(),
        };
        match serde_shape(forwarded) {
            SerdeShape::Plain { default } => {
                let generic = format_ident!("__McpT{}", i);
                fields.push(quote!(#(#forwarded)* #doc #ident: #generic));
                generics.push(if default {
                    quote!(#generic: ::core::default::Default)
                } else {
                    quote!(#generic)
                });
                projected.push(quote_spanned!(ty.span()=> <#ty as __McpArgument>::Type));
            }
            // `deserialize_with`, `default = "path"`, `with`...: functions typed for the
            // concrete type, so the field keeps it (and is checked at the parameter first).
            SerdeShape::Custom => {
                fields.push(quote!(#(#forwarded)* #doc #ident: #ty));
                checks.push(quote_spanned!(ty.span()=> #p::assert_argument::<#ty>();));
            }
        }
        let l = local(i);
        bind.push(quote!(#ident: #l));
    }

    let outcome = quote!(#p::ToolOutcome);
    let prelude = expand::context_and_inputs(paths, func, &quote!(&__mcp_call.context), &outcome);
    let call = expand::call(paths, func);
    let ret = expand::return_type(func);
    let convert = match &ret {
        Some(r) => {
            quote_spanned!(r.span()=> <#r as #p::IntoToolResult>::into_tool_result(__mcp_out))
        }
        None => quote!(#p::IntoToolResult::into_tool_result(__mcp_out)),
    };
    let output_schema = ret.as_ref().map(|r| {
        quote_spanned! {r.span()=>
            if let ::core::option::Option::Some(__mcp_schema) = <#r as #p::IntoToolResult>::output_schema() {
                __mcp_tool = __mcp_tool.output_schema(__mcp_schema);
            }
        }
    });

    // A non-`async` function gets a plain-function handler: it runs when the request is
    // dispatched, without a future to allocate and poll.
    let (asyncness, register_handler) = if func.is_async() {
        (quote!(async), quote!(raw_handler))
    } else {
        (TokenStream::new(), quote!(sync_handler))
    };
    let builder = format_ident!("__mcp_tool");
    let mut setup = expand::title_and_description(
        "__mcp_tool",
        attrs.common.title.as_ref(),
        attrs.common.description.as_ref(),
        &item.attrs,
    );
    if let Some(a) = &attrs.annotations {
        let opt_bool = |b: &Option<LitBool>| match b {
            Some(b) => quote!(::core::option::Option::Some(#b)),
            None => quote!(::core::option::Option::None),
        };
        let ro = opt_bool(&a.read_only);
        let de = opt_bool(&a.destructive);
        let id = opt_bool(&a.idempotent);
        let ow = opt_bool(&a.open_world);
        let title = match &a.title {
            Some(t) => quote!(::core::option::Option::Some(::core::convert::Into::into(#t))),
            None => quote!(::core::option::Option::None),
        };
        setup.extend(quote! {
            __mcp_tool = __mcp_tool.annotations(#proto::ToolAnnotations {
                title: #title,
                read_only_hint: #ro,
                destructive_hint: #de,
                idempotent_hint: #id,
                open_world_hint: #ow,
            });
        });
    }
    for icon in &attrs.common.icons {
        let icon = expand::icon(paths, icon);
        setup.extend(quote!(__mcp_tool = __mcp_tool.icon(#icon);));
    }
    if let Some(m) = &attrs.meta {
        setup.extend(expand::meta(paths, &builder, m));
    }
    setup.extend(expand::access(paths, &builder, &attrs.common.access));
    if let Some((task, _)) = &attrs.task {
        let mode = match task {
            TaskMode::Required => quote!(Required),
            TaskMode::Optional => quote!(Optional),
        };
        setup.extend(quote!(__mcp_tool = __mcp_tool.task(#p::TaskSupport::#mode);));
    }
    if let Some(ui) = &attrs.ui {
        setup.extend(quote!(__mcp_tool = __mcp_tool.ui(#ui);));
    }
    if let Some((layout, _)) = &attrs.view {
        let layout = match layout {
            ViewLayout::Auto => quote!(Auto),
            ViewLayout::Table => quote!(Table),
            ViewLayout::Form => quote!(Form),
            ViewLayout::Chart => quote!(Chart),
        };
        // The result type's schema, or a spanned error at the return type naming what to return.
        let of = match &ret {
            Some(r) => quote_spanned!(r.span()=> #r),
            None => quote!(()),
        };
        setup.extend(quote!(
            __mcp_tool = __mcp_tool.__result_view_of::<#of>(#p::ResultView::#layout);
        ));
    }
    if let Some(who) = &attrs.visibility {
        let who = who.iter().map(|(v, _)| match v {
            Visible::Model => quote!(#p::Visibility::Model),
            Visible::App => quote!(#p::Visibility::App),
        });
        setup.extend(quote!(__mcp_tool = __mcp_tool.visibility([#(#who),*]);));
    }
    setup.extend(expand::declarations(paths, func, &builder));

    let build = format_ident!("__mcp_build");
    let (handle, handle_impl) = expand::handle(paths, func, Registered::Tool, &build);
    let register = expand::registration(paths, func, Registered::Tool, name, &build);
    let allows = expand::allows();
    let argument_trait = expand::argument_trait(paths);
    let warning = expand::missing_description_warning(
        name,
        attrs.common.description.as_ref(),
        &item.attrs,
        item.sig.ident.span(),
    );

    let emitted = expand::emitted(func);
    quote! {
        #emitted

        #handle

        #allows
        const _: () = {
            #[derive(#p::serde::Deserialize, #p::schemars::JsonSchema)]
            #[serde(crate = #serde_crate, deny_unknown_fields)]
            #[schemars(crate = #schemars_crate)]
            struct __McpArgs<#(#generics),*> {
                #(#fields,)*
            }

            #argument_trait

            #warning

            fn __mcp_checks() {
                #(#checks)*
            }

            #asyncness fn __mcp_handler(
                __mcp_call: #p::ToolCall,
            ) -> ::core::result::Result<#p::ToolOutcome, #p::McpError> {
                let __McpArgs { #(#bind),* } = match #p::parse_arguments::<__McpArgs<#(#projected),*>>(&__mcp_call) {
                    ::core::result::Result::Ok(__mcp_args) => __mcp_args,
                    ::core::result::Result::Err(__mcp_outcome) => {
                        return ::core::result::Result::Ok(__mcp_outcome);
                    }
                };
                #prelude
                #call
                #convert
            }

            fn #build() -> #p::Tool {
                let mut __mcp_tool = #p::Tool::new(#name);
                #setup
                __mcp_tool = __mcp_tool.input_schema_of::<__McpArgs<#(#projected),*>>();
                #output_schema
                __mcp_tool = __mcp_tool.#register_handler(__mcp_handler);
                __mcp_tool
            }

            #handle_impl

            #register
        };
    }
}

/// How a parameter's `#[serde(...)]` attributes let the arguments struct treat its field.
enum SerdeShape {
    /// Only names (`rename`, `alias`) and a plain `default`: the field can be generic.
    Plain { default: bool },
    /// Attributes naming functions typed for the concrete type.
    Custom,
}

fn serde_shape(attrs: &[syn::Attribute]) -> SerdeShape {
    let mut default = false;
    let mut custom = false;
    for a in attrs.iter().filter(|a| a.path().is_ident(SERDE)) {
        let parsed = a.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let has_value = meta.input.peek(syn::Token![=]);
            if has_value {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|_| Ok(()))?;
            }
            match key.as_str() {
                RENAME | ALIAS => {}
                DEFAULT if !has_value => default = true,
                _ => custom = true,
            }
            Ok(())
        });
        if parsed.is_err() {
            custom = true;
        }
    }
    if custom {
        SerdeShape::Custom
    } else {
        SerdeShape::Plain { default }
    }
}
