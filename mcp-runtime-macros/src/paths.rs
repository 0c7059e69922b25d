//! The one table of absolute paths used by generated code.

use proc_macro2::TokenStream;
use quote::quote;

/// Where the runtime crate is: `::mcp_runtime` unless overridden with `crate = path`.
#[derive(Clone)]
pub(crate) struct Paths {
    krate: TokenStream,
}

impl Paths {
    pub(crate) fn new(krate: Option<syn::Path>) -> Self {
        Paths {
            krate: match krate {
                Some(p) => quote!(#p),
                None => quote!(::mcp_runtime),
            },
        }
    }
    /// `::mcp_runtime::__private`: everything generated code names.
    pub(crate) fn private(&self) -> TokenStream {
        let k = &self.krate;
        quote!(#k::__private)
    }
    /// Where the wire types `Icon`, `ToolAnnotations` and `CacheScope` are named from.
    pub(crate) fn protocol(&self) -> TokenStream {
        self.private()
    }
    /// `Completer`, through the private module.
    pub(crate) fn completer(&self) -> TokenStream {
        let k = &self.krate;
        quote!(#k::__private::Completer)
    }
    /// The path of a re-exported crate as a string, for `#[serde(crate = "...")]`.
    pub(crate) fn private_crate_str(&self, name: &str) -> String {
        format!("{}::{name}", self.private().to_string().replace(' ', ""))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn crate_strings() {
        let p = super::Paths::new(None);
        assert_eq!(
            p.private_crate_str("serde"),
            "::mcp_runtime::__private::serde"
        );
    }
}
