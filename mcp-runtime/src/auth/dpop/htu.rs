//! The `htu` claim against the endpoint's public URL: both normalized the way RFC 9449 §4.3
//! asks (RFC 3986 §6.2.2 syntax-based and §6.2.3 scheme-based normalization), without query
//! and fragment.

/// Longest URL normalized: a longer `htu` matches nothing.
const MAX_URL_BYTES: usize = 2048;

/// `url` normalized for comparison, or `None` when it is no `http`/`https` URL this server
/// could be reached at: scheme and host lowercased, the scheme's default port dropped (and a
/// port's leading zeros), an empty path made `/`, percent-encoded unreserved characters decoded
/// and the other percent-encodings in upper case; the query and the fragment cut off. User
/// information is refused (a public URL has none). Dot segments are left as they are: a path
/// that holds one matches only itself. Linear in the URL's length.
pub(super) fn normalize(url: &str) -> Option<String> {
    if url.len() > MAX_URL_BYTES {
        return None;
    }
    let url = url.split('#').next().unwrap_or_default();
    let url = url.split('?').next().unwrap_or_default();
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "https" => 443,
        "http" => 80,
        _ => return None,
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if authority.contains('@') {
        return None;
    }
    let (host, port) = split_port(authority)?;
    if host.is_empty() || !host.bytes().all(|b| b.is_ascii_graphic()) {
        return None;
    }
    let mut out = String::with_capacity(url.len() + 1);
    out.push_str(&scheme);
    out.push_str("://");
    out.push_str(&host.to_ascii_lowercase());
    if let Some(port) = port
        && port != default_port
    {
        out.push(':');
        out.push_str(&port.to_string());
    }
    if path.is_empty() {
        out.push('/');
    } else {
        percent_normalized(path, &mut out)?;
    }
    Some(out)
}

/// The host and the port (none when absent or empty) of an authority; an IPv6 literal keeps
/// its brackets.
fn split_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let colon = match authority.strip_prefix('[') {
        Some(rest) => {
            let close = rest.find(']')? + 1;
            match &authority[close + 1..] {
                "" => None,
                after if after.starts_with(':') => Some(close + 1),
                _ => return None,
            }
        }
        None => authority.rfind(':'),
    };
    let Some(colon) = colon else {
        return Some((authority, None));
    };
    let (host, port) = (&authority[..colon], &authority[colon + 1..]);
    if port.is_empty() {
        return Some((host, None));
    }
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let port = port.trim_start_matches('0');
    let number = if port.is_empty() {
        0
    } else {
        port.parse().ok()?
    };
    Some((host, Some(number)))
}

/// Appends `path` with its percent-encodings normalized; `None` on a broken one.
fn percent_normalized(path: &str, out: &mut String) -> Option<()> {
    let bytes = path.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'%' {
            let end = bytes[i..]
                .iter()
                .position(|&c| c == b'%')
                .map_or(bytes.len(), |n| i + n);
            out.push_str(&path[i..end]);
            i = end;
            continue;
        }
        let hex = bytes.get(i + 1..i + 3)?;
        let value = (hex_value(hex[0])? << 4) | hex_value(hex[1])?;
        if value.is_ascii_alphanumeric() || matches!(value, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(value));
        } else {
            out.push('%');
            out.push(char::from(hex[0].to_ascii_uppercase()));
            out.push(char::from(hex[1].to_ascii_uppercase()));
        }
        i += 3;
    }
    Some(())
}

fn hex_value(b: u8) -> Option<u8> {
    char::from(b).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn urls_are_compared_normalized_without_query_and_fragment() {
        let base = normalize("https://mcp.example.com/mcp").unwrap();
        assert_eq!(base, "https://mcp.example.com/mcp");
        for same in [
            "HTTPS://MCP.Example.COM/mcp",
            "https://mcp.example.com:443/mcp",
            "https://mcp.example.com:0443/mcp",
            "https://mcp.example.com/mcp?x=1",
            "https://mcp.example.com/mcp#frag",
            "https://mcp.example.com/mcp?x=1#frag",
            "https://mcp.example.com/%6Dcp",
            "https://mcp.example.com/%6dcp",
        ] {
            assert_eq!(normalize(same).as_deref(), Some(base.as_str()), "{same}");
        }
        for other in [
            "https://mcp.example.com/MCP",
            "https://mcp.example.com/mcp/",
            "https://mcp.example.com:8443/mcp",
            "http://mcp.example.com/mcp",
            "https://mcp.example.org/mcp",
        ] {
            assert_ne!(normalize(other).as_deref(), Some(base.as_str()), "{other}");
        }
        assert_eq!(
            normalize("https://h.example/a%2fb%3F").unwrap(),
            "https://h.example/a%2Fb%3F"
        );
        assert_eq!(
            normalize("http://127.0.0.1:80").unwrap(),
            "http://127.0.0.1/"
        );
        assert_eq!(
            normalize("http://[::1]:8080/mcp").unwrap(),
            "http://[::1]:8080/mcp"
        );
        assert_eq!(normalize("http://[::1]/mcp").unwrap(), "http://[::1]/mcp");
        for bad in [
            "mcp.example.com/mcp",
            "ftp://mcp.example.com/mcp",
            "https://user@mcp.example.com/mcp",
            "https://mcp.example.com:x/mcp",
            "https://mcp.example.com:99999/mcp",
            "https:///mcp",
            "https://mcp.example.com/%zz",
            "https://mcp.example.com/%4",
            "https://[::1/mcp",
            "https://[::1]x/mcp",
        ] {
            assert_eq!(normalize(bad), None, "{bad}");
        }
        assert_eq!(normalize(&format!("https://h/{}", "a".repeat(3000))), None);
    }
}
