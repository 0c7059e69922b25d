//! The arguments of `#[resource("...", ...)]`.

use crate::attr::keys::{
    AUTHORIZE, CACHE, COMPLETE, CRATE, DESCRIPTION, ICON, MIME_TYPE, NAME, SCOPE, SCOPES, SIZE,
    TITLE, TTL_MS, URI,
};
use crate::attr::read::{self, Item, Slot};
use crate::attr::shared::{self, Common, CommonSlots, CompletionSpec};
use crate::attr::unknown::unknown_key;
use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use syn::{LitInt, LitStr, Meta};

/// The keys of `#[resource]`, in the order the "expected one of" message lists them.
const KEYS: &[&str] = &[
    NAME,
    TITLE,
    DESCRIPTION,
    MIME_TYPE,
    SIZE,
    ICON,
    CACHE,
    COMPLETE,
    SCOPES,
    AUTHORIZE,
    CRATE,
];
const CACHE_KEYS: &[&str] = &[TTL_MS, SCOPE];

/// The arguments of `#[resource(...)]`.
pub(crate) struct ResourceAttrs {
    /// The URI or URI template: the first, unnamed argument.
    pub(crate) uri: Option<LitStr>,
    pub(crate) common: Common,
    pub(crate) mime_type: Option<LitStr>,
    /// `size = N`, with the whole item for errors.
    pub(crate) size: Option<(Meta, LitInt)>,
    pub(crate) cache: Option<Cache>,
    pub(crate) completions: Vec<CompletionSpec>,
}

/// `cache(ttl_ms = N, scope = "public" | "private")`.
pub(crate) struct Cache {
    pub(crate) ttl_ms: LitInt,
    /// `scope = "private"`, also the default.
    pub(crate) private: bool,
}

impl ResourceAttrs {
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> ResourceAttrs {
        let mut uri: Slot<LitStr> = Slot::new("URI");
        let mut common = CommonSlots::new();
        let mut mime_type = Slot::new(MIME_TYPE);
        let mut size = Slot::new(SIZE);
        let mut cache = Slot::new(CACHE);
        let mut completions = Vec::new();
        for (i, item) in read::parse_items(cx, args).into_iter().enumerate() {
            let m = match item {
                Item::Lit(l) => {
                    if i != 0 {
                        cx.error_spanned_by(
                            &l,
                            "the URI comes first: `#[resource(\"scheme://...\", name = \"...\")]`",
                        );
                    }
                    uri.set(cx, &l, Some(l.clone()));
                    continue;
                }
                Item::Meta(m) => m,
            };
            if common.read(cx, &m) {
                continue;
            }
            match read::key(&m).as_str() {
                MIME_TYPE => mime_type.set(cx, &m, read::string(cx, &m)),
                SIZE => size.set(cx, &m, read::integer(cx, &m).map(|i| (m.clone(), i))),
                CACHE => cache.set(cx, &m, parse_cache(cx, &m)),
                COMPLETE => shared::completions(cx, &m, &mut completions),
                URI => cx.error_spanned_by(
                    &m,
                    "write the URI as the first argument, without a key: `#[resource(\"scheme://...\")]`",
                ),
                _ => unknown_key(cx, m.path(), KEYS, "`#[resource]`"),
            }
        }
        ResourceAttrs {
            uri: uri.get(),
            common: common.finish(),
            mime_type: mime_type.get(),
            size: size.get(),
            cache: cache.get(),
            completions,
        }
    }
}

/// `cache(ttl_ms = N, scope = "public" | "private")`.
fn parse_cache(cx: &Ctxt, meta: &Meta) -> Option<Cache> {
    let mut ttl: Slot<LitInt> = Slot::new(TTL_MS);
    let mut scope: Slot<LitStr> = Slot::new(SCOPE);
    for m in read::nested(cx, meta) {
        match read::key(&m).as_str() {
            TTL_MS => ttl.set(cx, &m, read::integer(cx, &m)),
            SCOPE => scope.set(cx, &m, read::string(cx, &m)),
            _ => unknown_key(cx, m.path(), CACHE_KEYS, "`cache(...)`"),
        }
    }
    let private = match scope.get() {
        None => true,
        Some(s) => match s.value().as_str() {
            "private" => true,
            "public" => false,
            _ => {
                cx.error_spanned_by(&s, "the cache `scope` is either \"public\" or \"private\"");
                true
            }
        },
    };
    match ttl.get() {
        Some(ttl_ms) => Some(Cache { ttl_ms, private }),
        None => {
            cx.error_spanned_by(meta, "`cache(...)` needs a freshness: add `ttl_ms = N`");
            None
        }
    }
}
