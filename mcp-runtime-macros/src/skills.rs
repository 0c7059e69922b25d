//! `skills!("path")`: a skills folder (relative to the file the macro is in, as with
//! `include_bytes!`) read at compile time through `mcp-runtime-skills` (the reader the runtime uses for folders, so both agree),
//! checked, and written into the binary: each file's bytes by `include_bytes!` (so the compiler
//! rebuilds the crate when one is edited or removed), with its digest, MIME type and the
//! skill's frontmatter computed here.

use crate::paths::Paths;
use mcp_runtime_skills::{ScanLimits, SkillDir, scan};
use proc_macro2::TokenStream;
use quote::quote;
use std::path::PathBuf;
use syn::LitStr;

/// Entry point of `skills!`, called from the file `caller` (when the compiler says which).
pub(crate) fn expand(input: TokenStream, caller: Option<PathBuf>) -> TokenStream {
    let lit: LitStr = match syn::parse2(input) {
        Ok(lit) => lit,
        Err(e) => {
            let message =
                format!("{e}: write `skills!(\"folder\")`, the folder relative to this file");
            return syn::Error::new(e.span(), message).to_compile_error();
        }
    };
    // Relative to the calling file's folder, as `include_bytes!` is; without one (a macro's
    // own expansion), to the crate's manifest.
    let base = caller
        .and_then(|file| file.parent().map(PathBuf::from))
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from))
        .unwrap_or_default();
    let root = base.join(lit.value());
    // `include_bytes!` takes a path relative to the file it is in: the files are named whole.
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    let scanned = match scan(&root, ScanLimits::default()) {
        Ok(scanned) => scanned,
        Err(e) => {
            // The file as the macro's argument names it, not as this machine's absolute path.
            let file = match e.file().strip_prefix(&root) {
                Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from(lit.value()),
                Ok(rel) => std::path::Path::new(&lit.value()).join(rel),
                Err(_) => e.file().to_path_buf(),
            };
            let line = e.line().map(|l| format!(":{l}")).unwrap_or_default();
            let message = format!("{}{line}: {}", file.display(), e.message());
            return syn::Error::new(lit.span(), message).to_compile_error();
        }
    };
    if scanned.skills.is_empty() {
        let message = format!(
            "{}: holds no skill (a folder with a SKILL.md in it)",
            lit.value()
        );
        return syn::Error::new(lit.span(), message).to_compile_error();
    }
    let p = Paths::new(None).private();
    let skills = scanned.skills.iter().map(|skill| one(&p, &root, skill));
    let origin = lit.value();
    quote! {{
        const __MCP_SKILLS: &[#p::EmbeddedSkill] = &[#(#skills),*];
        #p::Skills::embedded(#origin, __MCP_SKILLS)
    }}
}

fn one(p: &TokenStream, root: &std::path::Path, skill: &SkillDir) -> TokenStream {
    let path = &skill.path;
    let name = &skill.frontmatter.name;
    let description = &skill.frontmatter.description;
    let frontmatter = &skill.frontmatter.json;
    let dirs = &skill.dirs;
    let files = skill.files.iter().map(|f| {
        let file = root.join(path).join(&f.rel);
        let file = file.to_string_lossy();
        let (rel, digest, mime, text) = (&f.rel, &f.digest, f.mime, f.text);
        quote! {
            #p::EmbeddedFile {
                rel: #rel,
                bytes: ::core::include_bytes!(#file),
                digest: #digest,
                mime: #mime,
                text: #text,
            }
        }
    });
    quote! {
        #p::EmbeddedSkill {
            path: #path,
            name: #name,
            description: #description,
            frontmatter: #frontmatter,
            files: &[#(#files),*],
            dirs: &[#(#dirs),*],
        }
    }
}
