//! The MIME type a skill file is served with, and whether it goes out as `text` or as a base64
//! `blob`.

/// MIME types by file extension (lowercase), for the kinds of file skills carry.
const BY_EXTENSION: &[(&str, &str)] = &[
    ("md", "text/markdown"),
    ("markdown", "text/markdown"),
    ("txt", "text/plain"),
    ("text", "text/plain"),
    ("py", "text/x-python"),
    ("sh", "application/x-sh"),
    ("bash", "application/x-sh"),
    ("js", "text/javascript"),
    ("mjs", "text/javascript"),
    ("ts", "text/typescript"),
    ("rs", "text/x-rust"),
    ("go", "text/x-go"),
    ("rb", "text/x-ruby"),
    ("java", "text/x-java"),
    ("c", "text/x-c"),
    ("h", "text/x-c"),
    ("sql", "application/sql"),
    ("json", "application/json"),
    ("yaml", "application/yaml"),
    ("yml", "application/yaml"),
    ("toml", "application/toml"),
    ("xml", "application/xml"),
    ("html", "text/html"),
    ("htm", "text/html"),
    ("css", "text/css"),
    ("csv", "text/csv"),
    ("svg", "image/svg+xml"),
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("ico", "image/vnd.microsoft.icon"),
    ("pdf", "application/pdf"),
    ("zip", "application/zip"),
    ("gz", "application/gzip"),
    ("tar", "application/x-tar"),
    ("wasm", "application/wasm"),
    ("ttf", "font/ttf"),
    ("woff", "font/woff"),
    ("woff2", "font/woff2"),
];

/// A type a file of unknown extension gets when its bytes are text.
const TEXT: &str = "text/plain";
/// A type a file of unknown extension gets when its bytes are not text.
const BINARY: &str = "application/octet-stream";

/// Whether `bytes` can be served as `text`: UTF-8 without a NUL byte (a NUL would be lost or
/// cut short by many readers of a JSON string).
///
/// ```
/// use mcp_runtime_skills::mime::is_text;
/// assert!(is_text("héllo\n".as_bytes()));
/// assert!(!is_text(b"a\0b"));
/// assert!(!is_text(&[0xff, 0xfe]));
/// ```
pub fn is_text(bytes: &[u8]) -> bool {
    !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok()
}

/// The MIME type of the file `name` with content `bytes`: by its extension, else by whether the
/// content is text.
///
/// ```
/// use mcp_runtime_skills::mime::of;
/// assert_eq!(of("SKILL.md", b"---"), "text/markdown");
/// assert_eq!(of("logo.PNG", &[0x89, b'P']), "image/png");
/// assert_eq!(of("LICENSE", b"MIT"), "text/plain");
/// assert_eq!(of("data.bin", &[0, 1, 2]), "application/octet-stream");
/// ```
pub fn of(name: &str, bytes: &[u8]) -> &'static str {
    let extension = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    BY_EXTENSION
        .iter()
        .find(|(e, _)| *e == extension)
        .map(|(_, mime)| *mime)
        .unwrap_or(if is_text(bytes) { TEXT } else { BINARY })
}
