//! `app_sdk!()`: the official MCP Apps SDK's self-contained bundle
//! (`@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js`) read from `node_modules` at
//! compile time, its shape checked, and written into the binary as an `AppSdk` whose script sets
//! `globalThis.ExtApps`. The bundle is named by `include_bytes!` too, so that the compiler
//! rebuilds the crate when it changes.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::path::{Path, PathBuf};
use syn::LitStr;

/// Where the bundle is inside `node_modules`.
const PACKAGE: &str = "@modelcontextprotocol/ext-apps";
const BUNDLE: &str = "dist/src/app-with-deps.js";
/// Set at compile time, a missing bundle builds a view whose reads say so.
const SKIP: &str = "MCP_SKIP_APPS_SDK";

/// Entry point of `app_sdk!`, called from the file `caller` (when the compiler says which).
pub(crate) fn expand(input: TokenStream, caller: Option<PathBuf>) -> TokenStream {
    let (folder, span, shown) = if input.is_empty() {
        let root = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        let folder = root.unwrap_or_default().join("node_modules");
        (folder, Span::call_site(), "node_modules".to_owned())
    } else {
        let lit: LitStr = match syn::parse2(input) {
            Ok(lit) => lit,
            Err(e) => {
                let message = format!(
                    "{e}: write `app_sdk!()` (the crate's `node_modules`) or \
                     `app_sdk!(\"path/to/node_modules\")`, relative to this file"
                );
                return syn::Error::new(e.span(), message).to_compile_error();
            }
        };
        // Relative to the calling file's folder, as `include_bytes!` is.
        let base = caller
            .and_then(|file| file.parent().map(PathBuf::from))
            .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from))
            .unwrap_or_default();
        (base.join(lit.value()), lit.span(), lit.value())
    };
    let package = folder.join(PACKAGE);
    let bundle = package.join(BUNDLE);
    let krate = quote!(::mcp_runtime);
    let tracked = quote!(
        const _: ::core::option::Option<&str> = ::core::option_env!(#SKIP);
    );
    let source = match std::fs::read_to_string(&bundle) {
        Ok(source) => source,
        Err(e) => {
            let why = format!(
                "the MCP Apps SDK is not at {shown}/{PACKAGE}/{BUNDLE} ({e}): install it with \
                 `npm install {PACKAGE}` (or `npm ci`) in the folder that holds `{shown}`"
            );
            if std::env::var_os(SKIP).is_some_and(|v| !v.is_empty() && v != "0") {
                let why = format!("{why}; this server was built without it ({SKIP} was set)");
                return quote!({ #tracked #krate::apps::AppSdk::__missing(#why) });
            }
            let message = format!("{why}; or set {SKIP}=1 to build a view whose reads say so");
            return syn::Error::new(span, message).to_compile_error();
        }
    };
    let version = version(&package.join("package.json")).unwrap_or_default();
    let script = match as_global(&source) {
        Ok(script) => script,
        Err(why) => {
            let message = format!(
                "{shown}/{PACKAGE}/{BUNDLE} (version {version}) {why}: not a bundle this \
                 runtime can expose; pin a 2.x version, or load it with `AppSdk::url`"
            );
            return syn::Error::new(span, message).to_compile_error();
        }
    };
    let file = std::fs::canonicalize(&bundle).unwrap_or(bundle);
    let file = file.to_string_lossy();
    quote!({
        const _: &[u8] = ::core::include_bytes!(#file);
        #tracked
        #krate::apps::AppSdk::__embedded(#script, #version)
    })
}

/// The `"version"` of a `package.json` (its first one: npm writes the package's own first).
fn version(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    let after = &text[text.find("\"version\"")? + "\"version\"".len()..];
    let value = after.trim_start().strip_prefix(':')?.trim_start();
    let value = value.strip_prefix('"')?;
    Some(value[..value.find('"')?].to_owned())
}

/// `source` with its last statement, `export{a as B,c}`, made `globalThis.ExtApps={B:a,c:c}`,
/// so that a page's classic or module script reads `ExtApps.App`.
fn as_global(source: &str) -> Result<String, &'static str> {
    let at = source
        .rfind("export{")
        .ok_or("does not end in an `export{…}`")?;
    let close = at + source[at..].find('}').ok_or("has an unclosed `export{`")?;
    if !source[close + 1..]
        .trim()
        .trim_end_matches(';')
        .trim()
        .is_empty()
    {
        return Err("has code after its last `export{…}`");
    }
    if source.to_ascii_lowercase().contains("</script") {
        return Err("holds `</script`, which would end the page's script early");
    }
    let mut names = Vec::new();
    for item in source[at + "export{".len()..close].split(',') {
        let (local, exported) = match item.split_once(" as ") {
            Some((local, exported)) => (local.trim(), exported.trim()),
            None => (item.trim(), item.trim()),
        };
        let word = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        };
        if !word(local) || !word(exported) {
            return Err("exports something other than plain names");
        }
        names.push(format!("{exported}:{local}"));
    }
    if !names.iter().any(|n| n.starts_with("App:")) {
        return Err("exports no `App`");
    }
    Ok(format!(
        "{}globalThis.ExtApps={{{}}};",
        &source[..at],
        names.join(",")
    ))
}

#[cfg(test)]
mod tests {
    use super::as_global;

    #[test]
    fn a_bundle_s_exports_become_a_global() {
        let out = as_global("const a=1;function b(){}export{a as App,b};").unwrap();
        assert_eq!(
            out,
            "const a=1;function b(){}globalThis.ExtApps={App:a,b:b};"
        );
        assert!(as_global("export{a as App};more()").is_err());
        assert!(as_global("const App=1;").is_err());
        assert!(as_global("export{a as Other};").is_err());
        assert!(as_global("x='</SCRIPT>';export{a as App};").is_err());
        assert!(as_global("export{a as App,b as default.x};").is_err());
    }
}
