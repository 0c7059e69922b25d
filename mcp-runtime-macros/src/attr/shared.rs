//! Arguments shared by several attributes: the keys all three take (`name`, `title`,
//! `description`, `icon(...)`, `scopes`, `authorize`, `crate`), `complete(...)` and `meta = ...`.

use crate::attr::keys::{
    AUTHORIZE, CRATE, DESCRIPTION, ICON, MIME_TYPE, NAME, SCOPES, SIZES, SRC, THEME, TITLE,
};
use crate::attr::read::{self, Slot};
use crate::attr::unknown::unknown_key;
use crate::ctxt::Ctxt;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprArray, ExprLit, Lit, LitStr, Meta, Path};

/// `icon(src = "...", mime_type = "...", sizes = "48x48 96x96", theme = "dark")`.
pub(crate) struct IconSpec {
    pub(crate) src: LitStr,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) sizes: Vec<String>,
    pub(crate) theme: Option<LitStr>,
}

pub(crate) fn icon(cx: &Ctxt, meta: &Meta) -> Option<IconSpec> {
    const KNOWN: &[&str] = &[SRC, MIME_TYPE, SIZES, THEME];
    let mut src = Slot::new(SRC);
    let mut mime_type = Slot::new(MIME_TYPE);
    let mut sizes: Slot<LitStr> = Slot::new(SIZES);
    let mut theme: Slot<LitStr> = Slot::new(THEME);
    for m in read::nested(cx, meta) {
        match read::key(&m).as_str() {
            SRC => src.set(cx, &m, read::string(cx, &m)),
            MIME_TYPE => mime_type.set(cx, &m, read::string(cx, &m)),
            SIZES => sizes.set(cx, &m, read::string(cx, &m)),
            THEME => {
                let t = read::string(cx, &m);
                if let Some(t) = &t
                    && !matches!(t.value().as_str(), "light" | "dark")
                {
                    cx.error_spanned_by(t, "an icon `theme` is either \"light\" or \"dark\"");
                }
                theme.set(cx, &m, t)
            }
            _ => unknown_key(cx, m.path(), KNOWN, "`icon(...)`"),
        }
    }
    let Some(src) = src.get() else {
        cx.error_spanned_by(
            meta,
            "an icon needs its image: add `src = \"https://...\"` (or a `data:` URI)",
        );
        return None;
    };
    Some(IconSpec {
        src,
        mime_type: mime_type.get(),
        sizes: sizes
            .get()
            .map(|s| s.value().split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default(),
        theme: theme.get(),
    })
}

/// Where completion values come from.
pub(crate) enum CompletionSource {
    /// `var = path::to::async_fn` (an `async fn(CompletionRequest) -> Vec<String>`).
    Function(Path),
    /// `var = ["a", "b"]`, completed by prefix.
    Values(ExprArray),
}

pub(crate) struct CompletionSpec {
    pub(crate) name: String,
    pub(crate) span: Span,
    pub(crate) source: CompletionSource,
}

/// `complete(var = path, other = ["a", "b"])`.
pub(crate) fn completions(cx: &Ctxt, meta: &Meta, out: &mut Vec<CompletionSpec>) {
    for m in read::nested(cx, meta) {
        let name = read::key(&m);
        let Meta::NameValue(nv) = &m else {
            cx.error_spanned_by(
                &m,
                format!("write `{name} = my_completer` (an async fn) or `{name} = [\"a\", \"b\"]`"),
            );
            continue;
        };
        if out.iter().any(|c| c.name == name) {
            cx.error_spanned_by(
                m.path(),
                format!("`{name}` has two completers; keep only one"),
            );
            continue;
        }
        let source = match &nv.value {
            Expr::Path(p) if p.qself.is_none() => CompletionSource::Function(p.path.clone()),
            Expr::Array(a) => {
                for e in &a.elems {
                    if !matches!(
                        e,
                        Expr::Lit(ExprLit {
                            lit: Lit::Str(_),
                            ..
                        })
                    ) {
                        cx.error_spanned_by(e, "completion values must be string literals");
                    }
                }
                CompletionSource::Values(a.clone())
            }
            other => {
                cx.error_spanned_by(
                    other,
                    format!("`{name}` expects the path of an async fn `(CompletionRequest) -> Vec<String>` or an array of strings, like `[\"a\", \"b\"]`"),
                );
                continue;
            }
        };
        out.push(CompletionSpec {
            name,
            span: m.path().span(),
            source,
        });
    }
}

/// `meta = <expr>`: a JSON object. An expression that is visibly not an object is rejected here.
pub(crate) fn meta_expr(cx: &Ctxt, meta: &Meta) -> Option<Expr> {
    let e = read::expr(cx, meta)?;
    if let Expr::Lit(_) | Expr::Array(_) = &e {
        cx.error_spanned_by(
            &e,
            "`meta` must be a JSON object, like `meta = serde_json::json!({\"key\": \"value\"})`",
        );
        return None;
    }
    if let Expr::Macro(m) = &e {
        let is_json = m
            .mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "json");
        let braced = matches!(m.mac.tokens.clone().into_iter().next(), Some(proc_macro2::TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Brace);
        if is_json && !braced {
            cx.error_spanned_by(&e, "`meta` must be a JSON object: write `json!({ ... })`");
            return None;
        }
    }
    Some(e)
}

/// `crate = path` (or `crate = "path"`): where the runtime crate is, when renamed.
pub(crate) fn crate_path(cx: &Ctxt, meta: &Meta) -> Option<Path> {
    match read::expr(cx, meta)? {
        Expr::Path(p) if p.qself.is_none() => Some(p.path),
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => match s.parse::<Path>() {
            Ok(p) => Some(p),
            Err(e) => {
                cx.syn_error(e);
                None
            }
        },
        other => {
            cx.error_spanned_by(
                other,
                "`crate` expects a path, like `crate = ::mcp_runtime`",
            );
            None
        }
    }
}

/// The keys every attribute takes.
pub(crate) struct Common {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) icons: Vec<IconSpec>,
    pub(crate) access: AccessSpec,
    /// `crate = path`: where `mcp_runtime` is.
    pub(crate) krate: Option<Path>,
}

/// [`Common`] while its keys are read, each at most once (`icon` may repeat).
pub(crate) struct CommonSlots {
    name: Slot<LitStr>,
    title: Slot<LitStr>,
    description: Slot<LitStr>,
    icons: Vec<IconSpec>,
    access: AccessSpec,
    krate: Slot<Path>,
}

impl CommonSlots {
    pub(crate) fn new() -> Self {
        CommonSlots {
            name: Slot::new(NAME),
            title: Slot::new(TITLE),
            description: Slot::new(DESCRIPTION),
            icons: Vec::new(),
            access: AccessSpec::default(),
            krate: Slot::new(CRATE),
        }
    }

    /// Reads `meta` when its key is one of the shared ones; returns whether it was.
    pub(crate) fn read(&mut self, cx: &Ctxt, meta: &Meta) -> bool {
        if self.access.read(cx, meta) {
            return true;
        }
        match read::key(meta).as_str() {
            NAME => self.name.set(cx, meta, read::string(cx, meta)),
            TITLE => self.title.set(cx, meta, read::string(cx, meta)),
            DESCRIPTION => self.description.set(cx, meta, read::string(cx, meta)),
            ICON => self.icons.extend(icon(cx, meta)),
            CRATE => self.krate.set(cx, meta, crate_path(cx, meta)),
            _ => return false,
        }
        true
    }

    pub(crate) fn finish(self) -> Common {
        Common {
            name: self.name.get(),
            title: self.title.get(),
            description: self.description.get(),
            icons: self.icons,
            access: self.access,
            krate: self.krate.get(),
        }
    }
}

/// `scopes = [...]` and `authorize = path`: what a caller needs to see and use the primitive.
#[derive(Default)]
pub(crate) struct AccessSpec {
    pub(crate) scopes: Vec<LitStr>,
    pub(crate) authorize: Option<Path>,
    scopes_given: bool,
}

impl AccessSpec {
    /// Reads `scopes` or `authorize`; returns whether `meta` was one of them.
    pub(crate) fn read(&mut self, cx: &Ctxt, meta: &Meta) -> bool {
        match read::key(meta).as_str() {
            SCOPES => {
                if self.scopes_given {
                    cx.error_spanned_by(
                        meta,
                        "`scopes` is given more than once; list them all in one array",
                    );
                }
                self.scopes_given = true;
                self.scopes.extend(scopes(cx, meta));
                true
            }
            AUTHORIZE => {
                let mut slot = Slot::new(AUTHORIZE);
                if let Some(p) = self.authorize.take() {
                    slot.set(cx, meta, Some(p));
                }
                slot.set(cx, meta, authorize(cx, meta));
                self.authorize = slot.get();
                true
            }
            _ => false,
        }
    }
}

/// `scopes = ["docs:read", "docs:write"]`: OAuth scope tokens (printable ASCII, no space, `"`
/// or `\`).
fn scopes(cx: &Ctxt, meta: &Meta) -> Vec<LitStr> {
    let example = "`scopes = [\"docs:read\"]`";
    let Some(value) = read::expr(cx, meta) else {
        return Vec::new();
    };
    let Expr::Array(array) = &value else {
        cx.error_spanned_by(
            &value,
            format!("`scopes` expects an array of strings, like {example}"),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in &array.elems {
        match e {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => {
                let v = s.value();
                let bad = v.is_empty()
                    || v.chars()
                        .any(|c| !c.is_ascii_graphic() || c == '"' || c == '\\');
                if bad {
                    cx.error_spanned_by(
                        s,
                        "a scope is a non-empty token of printable ASCII without spaces, `\"` or `\\`",
                    );
                } else {
                    out.push(s.clone());
                }
            }
            other => {
                cx.error_spanned_by(other, format!("scopes are string literals, like {example}"))
            }
        }
    }
    out
}

/// `authorize = path::to::check`: an `async fn(AccessRequest) -> Result<(), Denied>`.
fn authorize(cx: &Ctxt, meta: &Meta) -> Option<Path> {
    match read::expr(cx, meta)? {
        Expr::Path(p) if p.qself.is_none() => Some(p.path),
        other => {
            cx.error_spanned_by(
                other,
                "`authorize` expects the path of an async fn `(AccessRequest) -> Result<(), Denied>`, like `authorize = owners_only`",
            );
            None
        }
    }
}
