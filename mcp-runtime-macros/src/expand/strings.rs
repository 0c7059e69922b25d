//! A prompt argument or a template variable made from its string: `FromStr`, a refusal at
//! compile time for what serde never makes from one string, then serde.

use crate::paths::Paths;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// What arrives as a string, naming the runtime's parsing trait (whose `on_unimplemented`
/// says so).
#[derive(Clone, Copy)]
pub(crate) enum Noun {
    /// A `#[prompt]` argument: `PromptArgument`.
    PromptArgument,
    /// A `#[resource]` template variable: `TemplateVariable`.
    TemplateVariable,
}

impl Noun {
    fn trait_name(self) -> &'static str {
        match self {
            Noun::PromptArgument => "PromptArgument",
            Noun::TemplateVariable => "TemplateVariable",
        }
    }
}

/// The runtime's traits through which method resolution picks the way a string-typed parameter
/// (a template variable, a prompt argument) is parsed, brought into scope once per generated
/// block: with `FromStr` when the type has it, else with serde from the string (a unit enum
/// deriving `Deserialize` takes its variant's name); a type serde makes but never from a string
/// (`NotFromString`: `Vec<T>`, maps, tuples, ...) is refused in between, at compile time.
///
/// Two steps. Method resolution picks the way, a value (`&&&Parse<T>` finds the `FromStr` impl
/// first, on `&&Parse<T>`, then the refusal, on `&Parse<T>`, then serde, on `Parse<T>`);
/// `<T as PromptArgument<Way>>` then parses, its impl for the way carrying the bound (none for
/// the refusal). A type that does not meet it is reported at the type as written (the
/// qualified path's self type), worded by the trait's `on_unimplemented`.
pub(crate) fn ways_in_scope(paths: &Paths) -> TokenStream {
    let p = paths.private();
    quote!(use #p::{FindFromStr as _, FindRefused as _, FindSerde as _};)
}

/// `<ty as Trait<_>>`, the parsing trait of `noun`, and the way `ty` takes, each spanned at
/// the type (the qualified path's self type keeps its own tokens, where a bound it misses is
/// reported).
fn way(paths: &Paths, noun: Noun, ty: &syn::Type) -> (TokenStream, TokenStream) {
    let p = paths.private();
    let name = Ident::new(noun.trait_name(), ty.span());
    let way = quote_spanned!(ty.span()=> (&&&#p::Parse::<#ty>::new()).__mcp_how());
    (quote_spanned!(ty.span()=> <#ty as #p::#name<_>>), way)
}

/// The call parsing `value` (a `&String`) into `ty` with [`ways_in_scope`]'s traits.
pub(crate) fn parse_string(
    paths: &Paths,
    noun: Noun,
    ty: &syn::Type,
    value: TokenStream,
) -> TokenStream {
    let (parse, way) = way(paths, noun, ty);
    quote_spanned!(ty.span()=> #parse::from_string(#way, #value))
}

/// The call asking whether `ty`, parsed with [`ways_in_scope`]'s traits, refuses every string
/// (serde's way only: a struct deriving `Deserialize`), as `Option<String>`: what it expects.
pub(crate) fn refuses_strings(paths: &Paths, noun: Noun, ty: &syn::Type) -> TokenStream {
    let (parse, way) = way(paths, noun, ty);
    quote_spanned!(ty.span()=> #parse::refuses_strings(#way))
}
