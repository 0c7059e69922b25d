//! What a handler declares it asks the client (`#[elicit]`, `#[sample]`, `#[roots]`) and its
//! context parameters: their declarations on the builder and their values in the handler.

use crate::model::{Function, Host, InputKind, Message, Param, ParamKind, option_inner};
use crate::paths::Paths;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The local holding the value of parameter `i`.
pub(crate) fn local(i: usize) -> Ident {
    format_ident!("__mcp_p{}", i)
}

/// A client input's text: the literal as it is, or, when it interpolates `{name}` arguments
/// (checked against the arguments by `check::interpolations`), formatted with their values.
fn text(func: &Function, lit: &syn::LitStr) -> TokenStream {
    let names = crate::interpolate::placeholders(&lit.value()).unwrap_or_default();
    if names.is_empty() {
        // No argument to insert: `{{` and `}}` are braces here too, as `format!` reads them.
        let text = lit.value().replace("{{", "{").replace("}}", "}");
        let lit = syn::LitStr::new(&text, lit.span());
        return quote!(#lit);
    }
    let values = names.iter().filter_map(|name| {
        let i = func
            .params
            .iter()
            .position(|p| p.is_argument() && p.ident.as_ref().is_some_and(|id| id == name))?;
        let name = format_ident!("{}", name);
        let l = local(i);
        Some(quote_spanned!(func.params[i].ty.span()=> #name = &#l))
    });
    quote!(&::std::format!(#lit, #(#values),*))
}

/// Whether a text is the same on every call (no `{argument}` placeholders).
fn plain(lit: &syn::LitStr) -> bool {
    crate::interpolate::placeholders(&lit.value())
        .unwrap_or_default()
        .is_empty()
}

/// `ask` with a `static` place of its own, `__MCP_ASK`, where its request is written once.
fn once(p: &TokenStream, ask: TokenStream) -> TokenStream {
    quote!({
        static __MCP_ASK: #p::AskOnce = #p::AskOnce::new();
        #ask
    })
}

/// What the parameters declare on the builder: `needs(..)` for every context parameter that
/// needs shared state (`State<T>`, or `&self`), so that building a server without the state
/// fails instead of the first call; `asks_client_input()` when the function asks the client for
/// input (a `#[roots]`, `#[sample]` or `#[elicit]` parameter, or `Rounds`).
pub(crate) fn declarations(paths: &Paths, func: &Function, builder: &Ident) -> TokenStream {
    let p = paths.private();
    let mut out = TokenStream::new();
    if let Host::Impl {
        self_ty,
        receiver: true,
    } = &func.host
    {
        out.extend(quote!(#builder = #builder.needs(#p::StateNeed::of::<#self_ty>());));
    }
    for param in func
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Context))
    {
        let ty = &param.ty;
        out.extend(quote_spanned! {ty.span()=>
            if let ::core::option::Option::Some(__mcp_need) = <#ty as #p::FromContext>::state_need() {
                #builder = #builder.needs(__mcp_need);
            }
            if <#ty as #p::FromContext>::asks_client_input() {
                #builder = #builder.asks_client_input();
            }
        });
    }
    if func
        .params
        .iter()
        .any(|p| matches!(p.kind, ParamKind::Input(_)))
    {
        out.extend(quote!(#builder = #builder.asks_client_input();));
    }
    out
}

/// Bindings of the context and client-input parameters, given the request context expression
/// and the outcome type used to answer `input_required`.
pub(crate) fn context_and_inputs(
    paths: &Paths,
    func: &Function,
    context: &TokenStream,
    outcome: &TokenStream,
) -> TokenStream {
    let p = paths.private();
    let mut out = TokenStream::new();
    if let Host::Impl {
        self_ty,
        receiver: true,
    } = &func.host
    {
        out.extend(quote! {
            let __mcp_self = <#p::State<#self_ty> as #p::FromContext>::from_context(#context)?;
        });
    }
    for (i, param) in func.params.iter().enumerate() {
        if let ParamKind::Context = param.kind {
            let l = local(i);
            let ty = &param.ty;
            let extract = quote_spanned!(ty.span()=> <#ty as #p::FromContext>::from_context);
            out.extend(quote!(let #l = #extract(#context)?;));
        }
    }
    let inputs: Vec<_> = func
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, param)| match &param.kind {
            ParamKind::Input(input) => Some((i, param, input)),
            _ => None,
        })
        .collect();
    if inputs.is_empty() {
        return out;
    }
    let count = inputs.len();
    out.extend(quote!(let mut __mcp_inputs = #p::InputSet::with_capacity(#context, #count)?;));
    for (i, param, input) in &inputs {
        let slot = format_ident!("__mcp_s{}", i);
        let key = &input.key;
        let required = !input.optional;
        let ask = match &input.kind {
            InputKind::Roots => quote!(__mcp_inputs.roots(#key, #required)),
            InputKind::Sample {
                prompt,
                max_tokens,
                system_prompt,
            } => {
                let system = match system_prompt {
                    Some(s) => {
                        let s = text(func, s);
                        quote!(::core::option::Option::Some(#s))
                    }
                    None => quote!(::core::option::Option::None::<&str>),
                };
                let fixed = plain(prompt) && system_prompt.as_ref().is_none_or(plain);
                let prompt = text(func, prompt);
                match fixed {
                    true => once(
                        &p,
                        quote!(__mcp_inputs.sample_prompt_once(&__MCP_ASK, #key, #required, #prompt, #max_tokens, #system)),
                    ),
                    false => {
                        quote!(__mcp_inputs.sample_prompt(#key, #required, #prompt, #max_tokens, #system))
                    }
                }
            }
            InputKind::Elicit {
                message: Message::Function(path),
                ..
            } => {
                // The function gets the receiver (a method's `&self`), the request's context
                // and each argument, and answers the message.
                let receiver = match &func.host {
                    Host::Impl { receiver: true, .. } => quote!(&*__mcp_self,),
                    _ => TokenStream::new(),
                };
                let arguments = func
                    .params
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.is_argument())
                    .map(|(i, _)| {
                        let l = local(i);
                        quote!(&#l)
                    });
                // `Self::f` names the impl's type: the handler is generated outside the impl.
                let callee = match (&func.host, path.segments.first()) {
                    (Host::Impl { self_ty, .. }, Some(first))
                        if first.ident == "Self" && path.segments.len() > 1 =>
                    {
                        let rest = path.segments.iter().skip(1);
                        quote_spanned!(path.span()=> <#self_ty>::#(#rest)::*)
                    }
                    _ => quote!(#path),
                };
                let elicit = elicit_param(
                    &p,
                    param,
                    "elicit",
                    quote! {
                        &mut __mcp_inputs,
                        #key,
                        #required,
                        ::core::convert::AsRef::<str>::as_ref(&__mcp_message),
                    },
                );
                let message = quote_spanned! {path.span()=>
                    let __mcp_message = #callee(#receiver #context, #(#arguments),*);
                };
                quote!({ #message #elicit })
            }
            InputKind::Elicit {
                message: Message::Text(message),
                ..
            } => {
                let fixed = plain(message);
                let message = text(func, message);
                match fixed {
                    true => {
                        let elicit = elicit_param(
                            &p,
                            param,
                            "elicit_once",
                            quote!(&mut __mcp_inputs, &__MCP_ASK, #key, #required, #message),
                        );
                        once(&p, elicit)
                    }
                    false => elicit_param(
                        &p,
                        param,
                        "elicit",
                        quote!(&mut __mcp_inputs, #key, #required, #message),
                    ),
                }
            }
        };
        out.extend(match &input.kind {
            // In a tuple, taken by `.0` spanned over the type (see `elicit_param`).
            InputKind::Elicit { .. } => quote!(let #slot = (#ask,);),
            _ => quote!(let #slot = #ask;),
        });
    }
    out.extend(quote! {
        if let ::core::option::Option::Some(__mcp_ask) = __mcp_inputs.finish()? {
            return ::core::result::Result::Ok(#outcome::InputRequired(__mcp_ask));
        }
    });
    for (i, param, input) in &inputs {
        let slot = format_ident!("__mcp_s{}", i);
        let l = local(*i);
        let take = if input.optional {
            "take_optional"
        } else {
            "take"
        };
        out.extend(match &input.kind {
            // Through `ElicitParam`, as it was asked.
            InputKind::Elicit { .. } => {
                let (first, last) = ends(answer_type(param));
                let slot = format_ident!("__mcp_s{}", i, span = first);
                let field = quote_spanned!(last=> .0);
                let take = elicit_param(&p, param, take, quote!(&mut __mcp_inputs, #slot #field));
                quote!(let #l = #take?;)
            }
            _ => {
                let take = format_ident!("{}", take);
                quote!(let #l = __mcp_inputs.#take(#slot)?;)
            }
        });
    }
    out
}

/// The type a client input's answer takes: the parameter's, or `T` of an `Option<T>` one.
fn answer_type(param: &Param) -> &syn::Type {
    option_inner(&param.ty).unwrap_or(&param.ty)
}

/// The spans of the first and last tokens of `ty`: an expression whose first token has the
/// one and last token the other is reported over the whole type (stable proc macros cannot
/// join spans).
fn ends(ty: &syn::Type) -> (proc_macro2::Span, proc_macro2::Span) {
    let first = ty.span();
    let last = quote!(#ty).into_iter().last().map_or(first, |t| match t {
        proc_macro2::TokenTree::Group(g) => g.span_close(),
        other => other.span(),
    });
    (first, last)
}

/// `<T as ElicitParam>::method(args)`, `T` an `#[elicit]` parameter's answer type, spanned
/// over the type as written: a type that is not an `Elicitation<..>`, or one of a `T` that is
/// not a form, is reported there, once for all the calls (each the same bound at the same
/// place; the slot argument `take` may be blamed for is spanned so too), rather than as a type
/// mismatch in generated code.
fn elicit_param(p: &TokenStream, param: &Param, method: &str, args: TokenStream) -> TokenStream {
    let ty = answer_type(param);
    let (first, last) = ends(ty);
    let method = Ident::new(method, last);
    let open = quote_spanned!(first=> <);
    let rest = quote_spanned!(last=> as #p::ElicitParam>::#method(#args));
    quote!(#open #ty #rest)
}
