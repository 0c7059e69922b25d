//! What is emitted when the macro input has mistakes: the user's function (so it stays callable
//! and the IDE keeps working), a stand-in registration handle (so uses of `add {}` do not pile
//! up secondary errors), and the errors themselves.

use crate::expand::{Registered, conversions};
use crate::model::strip;
use crate::paths::Paths;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{FnArg, ItemFn};

/// The function as written, minus the helper attributes, plus `errors`; the stand-in handle
/// converts into each of `kinds`.
pub(crate) fn emit(
    item: TokenStream,
    errors: TokenStream,
    paths: &Paths,
    kinds: &[Registered],
) -> TokenStream {
    let Ok(mut f) = syn::parse2::<ItemFn>(item.clone()) else {
        return quote!(#item #errors);
    };
    strip(&mut f);
    let has_receiver = f.sig.inputs.iter().any(|a| matches!(a, FnArg::Receiver(_)));
    let handle = if has_receiver {
        TokenStream::new()
    } else {
        dummy_handle(&f, paths, kinds)
    };
    quote!(#f #handle #errors)
}

fn dummy_handle(f: &ItemFn, paths: &Paths, kinds: &[Registered]) -> TokenStream {
    let p = paths.private();
    let vis = &f.vis;
    let ident = &f.sig.ident;
    // One primitive conversion per kind would conflict: the first kind's stands for all.
    let impls = kinds.iter().enumerate().map(|(i, &kind)| {
        let stand_in = match kind {
            Registered::Tool => quote!(#p::Tool::new("")),
            Registered::Resource => quote!(#p::Resource::new("", "")),
            Registered::ResourceTemplate => quote!(#p::ResourceTemplate::new("", "")),
            Registered::Prompt => quote!(#p::Prompt::new("")),
        };
        conversions(paths, kind, ident, &stand_in, i == 0)
    });
    quote! {
        #[allow(non_camel_case_types, dead_code, missing_docs)]
        #vis struct #ident {}
        #[allow(unused_qualifications, clippy::all)]
        const _: () = {
            #(#impls)*
        };
    }
}
