//! A prompt argument or a template variable made from its string: `FromStr`, a refusal at
//! compile time for what serde never makes from one string, then serde.

use crate::paths::Paths;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// Local items, defined in each generated `const _` block, through which string-typed
/// parameters (template variables, prompt arguments) are parsed: with `FromStr` when the type
/// has it, else with serde from the string (a unit enum deriving `Deserialize` takes its
/// variant's name); a type serde makes but never from a string (`NotFromString`: `Vec<T>`,
/// maps, tuples, ...) is refused in between, at compile time.
///
/// Two steps. Method resolution picks the way, a value (`&&&__McpParse<T>` finds the `FromStr`
/// impl first, on `&&__McpParse<T>`, then the refusal, on `&__McpParse<T>`, then serde, on
/// `__McpParse<T>`); `<T as __McpFromString<Way>>` then parses, its impl for the way carrying
/// the bound (none for the refusal). A type that does not meet it is reported at the type as
/// written (the qualified path's self type), worded by the trait's `on_unimplemented`.
pub(crate) fn from_str_trait(paths: &Paths, noun: &str) -> TokenStream {
    let p = paths.private();
    let message = format!("{noun}s arrive as strings: `{{Self}}` cannot be made from one");
    let label = "parsed with `FromStr`, or with serde from the string";
    let note = "use `String`, a number, `bool`, a type implementing `std::str::FromStr` (whose `Err` implements `Display`), or a fieldless enum deriving `serde::Deserialize` (an optional one: `Option<T>` of these, written so in the signature); for a list or a map, take a `String` and split it";
    quote! {
        struct __McpParse<T>(::core::marker::PhantomData<T>);
        struct __McpViaFromStr;
        struct __McpRefused;
        struct __McpViaSerde;

        trait __McpFindFromStr<T> {
            fn __mcp_how(&self) -> __McpViaFromStr;
        }
        #[automatically_derived]
        impl<T> __McpFindFromStr<T> for &&__McpParse<T>
        where
            T: ::core::str::FromStr,
            <T as ::core::str::FromStr>::Err: ::core::fmt::Display,
        {
            fn __mcp_how(&self) -> __McpViaFromStr {
                __McpViaFromStr
            }
        }
        // A type serde makes, but never from a string: refused (no `__McpFromString` impl)
        // before the serde fallback would take it and fail every call.
        trait __McpFindRefused<T> {
            fn __mcp_how(&self) -> __McpRefused;
        }
        #[automatically_derived]
        impl<T: #p::NotFromString> __McpFindRefused<T> for &__McpParse<T> {
            fn __mcp_how(&self) -> __McpRefused {
                __McpRefused
            }
        }
        // No bound: method resolution always finds this fallback.
        trait __McpFindSerde<T> {
            fn __mcp_how(&self) -> __McpViaSerde;
        }
        #[automatically_derived]
        impl<T> __McpFindSerde<T> for __McpParse<T> {
            fn __mcp_how(&self) -> __McpViaSerde {
                __McpViaSerde
            }
        }

        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        trait __McpFromString<Way>: ::core::marker::Sized {
            fn __mcp_from(way: Way, s: &str) -> ::core::result::Result<Self, ::std::string::String>;
            /// What serde expects instead of a string, when the type refuses every one.
            fn __mcp_refuses(_: Way) -> ::core::option::Option<::std::string::String> {
                ::core::option::Option::None
            }
        }
        #[automatically_derived]
        impl<T> __McpFromString<__McpViaFromStr> for T
        where
            T: ::core::str::FromStr,
            <T as ::core::str::FromStr>::Err: ::core::fmt::Display,
        {
            fn __mcp_from(_: __McpViaFromStr, s: &str) -> ::core::result::Result<T, ::std::string::String> {
                <T as ::core::str::FromStr>::from_str(s).map_err(|e| ::std::string::ToString::to_string(&e))
            }
        }
        // Never ways: with two impls that hold for every type, no type has a single impl that
        // fits whatever the way, so the way is not inferred from the impls (eagerly, before the
        // call's argument names it, which would answer with a type mismatch).
        enum __McpNoWay {}
        enum __McpNoWayEither {}
        #[automatically_derived]
        impl<T> __McpFromString<__McpNoWay> for T {
            fn __mcp_from(way: __McpNoWay, _: &str) -> ::core::result::Result<T, ::std::string::String> {
                match way {}
            }
        }
        #[automatically_derived]
        impl<T> __McpFromString<__McpNoWayEither> for T {
            fn __mcp_from(way: __McpNoWayEither, _: &str) -> ::core::result::Result<T, ::std::string::String> {
                match way {}
            }
        }
        #[automatically_derived]
        impl<T: #p::serde::de::DeserializeOwned> __McpFromString<__McpViaSerde> for T {
            fn __mcp_from(_: __McpViaSerde, s: &str) -> ::core::result::Result<T, ::std::string::String> {
                #p::string_argument(s)
            }
            fn __mcp_refuses(_: __McpViaSerde) -> ::core::option::Option<::std::string::String> {
                #p::string_probe::<T>()
            }
        }
    }
}

/// The call parsing `value` (a `&String`) into `ty` with [`from_str_trait`]'s items. `ty`
/// keeps its own tokens as the qualified path's self type, where a bound it misses is reported.
pub(crate) fn parse_string(ty: &syn::Type, value: TokenStream) -> TokenStream {
    let way =
        quote_spanned!(ty.span()=> (&&&__McpParse::<#ty>(::core::marker::PhantomData)).__mcp_how());
    quote_spanned!(ty.span()=> <#ty as __McpFromString<_>>::__mcp_from(#way, #value))
}

/// The call asking whether `ty`, parsed with [`from_str_trait`]'s items, refuses every string
/// (serde's way only: a struct deriving `Deserialize`), as `Option<String>`: what it expects.
pub(crate) fn refuses_strings(ty: &syn::Type) -> TokenStream {
    let way =
        quote_spanned!(ty.span()=> (&&&__McpParse::<#ty>(::core::marker::PhantomData)).__mcp_how());
    quote_spanned!(ty.span()=> <#ty as __McpFromString<_>>::__mcp_refuses(#way))
}

/// A local trait through which each JSON argument's type is projected in the arguments struct:
/// a type that is not `Deserialize + JsonSchema` fails there, once, at the parameter's type,
/// instead of in every method the derives generate.
pub(crate) fn argument_trait(paths: &Paths) -> TokenStream {
    let p = paths.private();
    quote! {
        #[diagnostic::on_unimplemented(
            message = "`{Self}` cannot be a tool argument",
            label = "tool arguments must implement `serde::Deserialize` and `schemars::JsonSchema`",
            note = "derive `Deserialize` and `JsonSchema` for it, or, if it is a context value such as a progress reporter, mark the parameter with `#[ctx]`"
        )]
        trait __McpArgument {
            type Type;
        }
        #[automatically_derived]
        impl<T: #p::ToolArgument> __McpArgument for T {
            type Type = T;
        }
    }
}
