//! [`AppSdk`]: the official MCP Apps SDK (`@modelcontextprotocol/ext-apps`, its `App` class)
//! for a view's scripts, either embedded at compile time (`app_sdk!`) or loaded from a URL its
//! CSP then declares ([`AppSdk::url`]). Either way the page reads it as `globalThis.ExtApps`.

use std::borrow::Cow;

/// The official MCP Apps SDK for a [`UiResource`](crate::apps::UiResource)'s page
/// ([`UiResource::app_sdk`](crate::apps::UiResource::app_sdk)): a module script put before the page's
/// first `<script>` that sets `globalThis.ExtApps` to the SDK's exports, so that the page's own
/// module starts with `const { App } = ExtApps;`.
///
/// - **Embedded** (`app_sdk!()`): the package's self-contained bundle (`app-with-deps.js`) read
///   from `node_modules` when the server is compiled, its shape checked then (a bundle this
///   runtime cannot expose is a compile error, as is a missing one), written into the binary.
///   The view needs nothing outside itself, but every `resources/read` of it carries the whole
///   bundle ([`AppSdk::bytes`] says how much; BENCHMARKS.md, "MCP Apps: what a view carries").
/// - **From a URL** ([`AppSdk::url`]): the page imports the bundle from a CDN (or any origin),
///   whose origin is added to the view's CSP `resourceDomains` (hosts let a view load only from
///   the domains it declares). A read carries a hundred bytes; the host must reach the origin.
///
/// ```
/// use mcp_runtime::apps::{AppSdk, UiResource};
/// let sdk = AppSdk::url(
///     "https://cdn.jsdelivr.net/npm/@modelcontextprotocol/ext-apps@2.0.4/dist/src/app-with-deps.js",
/// );
/// let view = UiResource::new("ui://notes/search.html", "search")
///     .html("<!doctype html><script type=module>const { App } = ExtApps;</script>")
///     .app_sdk(sdk);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppSdk {
    source: Source,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// The bundle, rewritten to set `globalThis.ExtApps`; the package's version.
    Embedded {
        script: &'static str,
        version: &'static str,
    },
    /// Where the page imports it from.
    Url(String),
    /// Not found when compiled, with leave to build anyway: each read of the view says why.
    Missing(&'static str),
}

impl AppSdk {
    /// The SDK imported from `url` (an ES module exporting `App`, such as the package's
    /// `dist/src/app-with-deps.js` on a CDN). The URL must be `https://` (or `http://` to a
    /// loopback host, for tests); another is a startup error.
    ///
    /// ```
    /// use mcp_runtime::apps::AppSdk;
    /// let sdk = AppSdk::url("https://unpkg.com/@modelcontextprotocol/ext-apps@2.0.4/dist/src/app-with-deps.js");
    /// assert_eq!(sdk.origin(), Some("https://unpkg.com"));
    /// ```
    pub fn url(url: impl Into<String>) -> Self {
        AppSdk {
            source: Source::Url(url.into()),
        }
    }

    /// How many bytes the SDK adds to each read of the view: the bundle's size when embedded,
    /// the import statement's when loaded from a URL.
    ///
    /// ```
    /// use mcp_runtime::apps::AppSdk;
    /// assert!(AppSdk::url("https://cdn.example.com/app.js").bytes() < 200);
    /// ```
    pub fn bytes(&self) -> usize {
        self.script().len()
    }

    /// The package's version when embedded (from its `package.json`), `None` otherwise.
    ///
    /// ```
    /// use mcp_runtime::apps::AppSdk;
    /// assert_eq!(AppSdk::url("https://cdn.example.com/app.js").version(), None);
    /// ```
    pub fn version(&self) -> Option<&str> {
        match &self.source {
            Source::Embedded { version, .. } if !version.is_empty() => Some(version),
            _ => None,
        }
    }

    /// The origin the page loads the SDK from (`scheme://host[:port]`), when it loads it from
    /// a URL.
    ///
    /// ```
    /// use mcp_runtime::apps::AppSdk;
    /// assert_eq!(AppSdk::url("http://127.0.0.1:9000/app.js").origin(), Some("http://127.0.0.1:9000"));
    /// ```
    #[inline]
    pub fn origin(&self) -> Option<&str> {
        let Source::Url(url) = &self.source else {
            return None;
        };
        let rest = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"))?;
        let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        (host_end > 0).then(|| &url[..url.len() - rest.len() + host_end])
    }

    /// What keeps the page from loading it, if anything (a startup error).
    #[inline]
    pub(crate) fn problem(&self) -> Option<String> {
        let Source::Url(url) = &self.source else {
            return None;
        };
        let Some(origin) = self.origin() else {
            return Some(format!(
                "its app SDK URL `{url}` is no http(s) URL with a host"
            ));
        };
        let host = origin.split("//").nth(1).unwrap_or_default();
        let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
        let loopback = matches!(host, "localhost" | "127.0.0.1" | "[::1]");
        if origin.starts_with("http://") && !loopback {
            return Some(format!(
                "its app SDK URL `{url}` is plain http: hosts load views' scripts over https \
                 (http only from a loopback host, for tests)"
            ));
        }
        if url
            .chars()
            .any(|c| matches!(c, '"' | '<' | '>' | '\\') || c.is_whitespace())
        {
            return Some(format!(
                "its app SDK URL `{url}` holds a character a page cannot quote"
            ));
        }
        None
    }

    /// Why a read of the view fails, when the bundle was missing at compile time.
    pub(crate) fn missing(&self) -> Option<&'static str> {
        match self.source {
            Source::Missing(why) => Some(why),
            _ => None,
        }
    }

    /// The module script's text.
    fn script(&self) -> Cow<'static, str> {
        match &self.source {
            Source::Embedded { script, .. } => Cow::Borrowed(script),
            Source::Url(url) => {
                Cow::Owned(format!("import*as m from\"{url}\";globalThis.ExtApps=m;"))
            }
            Source::Missing(_) => Cow::Borrowed(""),
        }
    }

    /// `html` with the SDK's module script before its first `<script` (else before `</body>`,
    /// else at its end), so that it runs before the page's own modules.
    #[inline]
    pub(crate) fn insert_into(&self, html: &str) -> String {
        let tag = format!("<script type=\"module\">{}</script>\n", self.script());
        let lower = html.to_ascii_lowercase();
        let at = lower
            .find("<script")
            .or_else(|| lower.rfind("</body"))
            .unwrap_or(html.len());
        let mut out = String::with_capacity(html.len() + tag.len());
        out.push_str(&html[..at]);
        out.push_str(&tag);
        out.push_str(&html[at..]);
        out
    }

    #[doc(hidden)]
    /// What `app_sdk!` writes: the bundle (already rewritten) and its package's version.
    pub const fn __embedded(script: &'static str, version: &'static str) -> Self {
        AppSdk {
            source: Source::Embedded { script, version },
        }
    }

    #[doc(hidden)]
    /// What `app_sdk!` writes when the bundle was missing and the build was let go on.
    pub const fn __missing(why: &'static str) -> Self {
        AppSdk {
            source: Source::Missing(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AppSdk;

    #[test]
    fn the_sdk_goes_before_the_first_script() {
        let sdk = AppSdk::__embedded("globalThis.ExtApps={App:1};", "2.0.4");
        let page = sdk.insert_into("<p>x</p><SCRIPT type=module>ExtApps.App</SCRIPT>");
        assert_eq!(
            page,
            "<p>x</p><script type=\"module\">globalThis.ExtApps={App:1};</script>\n\
             <SCRIPT type=module>ExtApps.App</SCRIPT>"
        );
        assert_eq!(sdk.bytes(), 27);
        assert_eq!(sdk.version(), Some("2.0.4"));
        let page = sdk.insert_into("<body><p>no script</body>");
        assert!(page.ends_with("</script>\n</body>"), "{page}");
    }

    #[test]
    fn a_url_names_its_origin_and_must_be_https_or_loopback() {
        let sdk = AppSdk::url("https://cdn.example.com:8443/x/app.js?v=1");
        assert_eq!(sdk.origin(), Some("https://cdn.example.com:8443"));
        assert_eq!(sdk.problem(), None);
        assert!(
            sdk.insert_into("")
                .contains("import*as m from\"https://cdn.example.com")
        );
        assert_eq!(AppSdk::url("http://localhost:9/a.js").problem(), None);
        let plain = AppSdk::url("http://cdn.example.com/a.js")
            .problem()
            .unwrap();
        assert!(plain.contains("plain http"), "{plain}");
        assert!(AppSdk::url("ftp://x/a.js").problem().is_some());
        assert!(AppSdk::url("https://x/a\".js").problem().is_some());
        assert!(AppSdk::url("https:///a.js").problem().is_some());
    }
}
