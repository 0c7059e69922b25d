//! Attribute macros of the MCP server framework. Use them through `mcp_runtime`.

use proc_macro::TokenStream;

/// Placeholder.
#[proc_macro_attribute]
pub fn tool(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
/// Placeholder.
#[proc_macro_attribute]
pub fn resource(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
/// Placeholder.
#[proc_macro_attribute]
pub fn prompt(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
