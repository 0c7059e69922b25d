//! The code `#[tool]` generates: the arguments struct (`arguments.rs`), the handler, the
//! tool's constant parts as a `static` `ToolSpec` (built by the runtime), the build function
//! setting the rest, the handle and the registration.

use crate::attr::tool::{TaskMode, ViewLayout, Visible};
use crate::expand::{self, ArgumentsStruct, Registered};
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
    let ArgumentsStruct {
        items: args_struct,
        ty: args_ty,
        pattern: args_pattern,
        checks,
    } = expand::arguments_struct(paths, func);

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
    let output_schema = match &ret {
        Some(r) => quote_spanned! {r.span()=>
            ::core::option::Option::Some(<#r as #p::IntoToolResult>::output_schema)
        },
        None => quote!(::core::option::Option::None),
    };

    let builder = format_ident!("__mcp_tool");
    let (title, description) = expand::title_and_description(
        attrs.common.title.as_ref(),
        attrs.common.description.as_ref(),
        &item.attrs,
    );
    let mut setup = TokenStream::new();
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
    let warning = expand::missing_description_warning(
        name,
        attrs.common.description.as_ref(),
        &item.attrs,
        item.sig.ident.span(),
    );

    let answer = quote!(::core::result::Result<#p::ToolOutcome, #p::McpError>);
    let body = quote! {
        let #args_pattern = match #p::parse_arguments::<#args_ty>(&__mcp_call) {
            ::core::result::Result::Ok(__mcp_args) => __mcp_args,
            ::core::result::Result::Err(__mcp_outcome) => {
                return ::core::result::Result::Ok(__mcp_outcome);
            }
        };
        #prelude
        #call
        #convert
    };
    // A non-`async` function gets a plain-function handler: it runs when the request is
    // dispatched, without a future to allocate and poll. An `async` one's future is boxed by a
    // function of its own: the runtime takes both as function pointers.
    let (handler, way) = if func.is_async() {
        let handler = quote! {
            async fn __mcp_run(__mcp_call: #p::ToolCall) -> #answer {
                #body
            }
            fn __mcp_handler(__mcp_call: #p::ToolCall) -> #p::BoxFuture<'static, #answer> {
                #p::std::boxed::Box::pin(__mcp_run(__mcp_call))
            }
        };
        (handler, quote!(Async))
    } else {
        let handler = quote! {
            fn __mcp_handler(__mcp_call: #p::ToolCall) -> #answer {
                #body
            }
        };
        (handler, quote!(Sync))
    };

    let emitted = expand::emitted(func);
    quote! {
        #emitted

        #handle

        #allows
        const _: () = {
            #args_struct

            #warning

            #checks

            #handler

            static __MCP_TOOL: #p::ToolSpec = #p::ToolSpec {
                name: #name,
                title: #title,
                description: #description,
                input_schema: #p::schema_for::<#args_ty>,
                output_schema: #output_schema,
                handler: #p::HandlerFn::#way(__mcp_handler),
            };

            fn #build() -> #p::Tool {
                let mut __mcp_tool = #p::generated_tool(&__MCP_TOOL);
                #setup
                __mcp_tool
            }

            #handle_impl

            #register
        };
    }
}
