//! The proxies in front of the server whose forwarding header is believed
//! ([`HttpOptions::trusted_proxies`](super::HttpOptions::trusted_proxies)), and the client
//! behind them: the header read right to left up to the first hop that is not a trusted proxy.
//! `client.rs` asks it for a request whose peer is one.

use crate::net::Network;
use http::{HeaderMap, HeaderName, header};
use std::net::{IpAddr, SocketAddr};

/// The header a trusted proxy writes the client's address in.
///
/// ```
/// use mcp_runtime::HttpOptions;
/// use mcp_runtime::transport::http::ForwardedHeader;
/// // HAProxy with `option forwarded`, say: RFC 7239's header.
/// let options = HttpOptions::default()
///     .trusted_proxies(["10.0.0.0/8"])
///     .forwarded_header(ForwardedHeader::Forwarded);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ForwardedHeader {
    /// `X-Forwarded-For: client, proxy1, proxy2` (nginx, Caddy, Envoy, Traefik, HAProxy's
    /// `forwardfor`, cloud load balancers, ngrok, cloudflared): the default.
    #[default]
    XForwardedFor,
    /// `Forwarded: for=client, for=proxy1` (RFC 7239).
    Forwarded,
}

/// The proxies whose forwarding header is believed.
#[derive(Debug, Clone, Default)]
pub(super) struct Proxies {
    pub(super) networks: Vec<Network>,
    pub(super) header: ForwardedHeader,
    /// Entries that are no address or network: serving refuses the options.
    pub(super) invalid: Vec<String>,
}

/// Most hops read from a forwarding header (a longer chain is read up to here, and the hop
/// reached is the client: the work a request makes is bounded, and nobody is believed further).
const MOST_HOPS: usize = 32;

impl Proxies {
    /// Whether `peer` is a trusted proxy.
    pub(super) fn trusts(&self, peer: IpAddr) -> bool {
        self.networks.iter().any(|n| n.contains(peer))
    }

    /// The client of a request a trusted proxy `peer` sent: the first hop from the right of
    /// the forwarding header that is not a trusted proxy; the leftmost when all are; the last
    /// trusted one read when the next cannot be read (`unknown`, an obfuscated name): the
    /// proxy is then all that is known of the client.
    pub(super) fn client_behind(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let name = match self.header {
            ForwardedHeader::XForwardedFor => HeaderName::from_static("x-forwarded-for"),
            ForwardedHeader::Forwarded => header::FORWARDED,
        };
        let mut client = peer;
        // Header lines in order, each a list: the last element of the last line is the hop
        // nearest to us.
        let lines: Vec<&str> = headers
            .get_all(name)
            .iter()
            .map(|v| v.to_str().unwrap_or(""))
            .collect();
        let mut hops = 0;
        for line in lines.iter().rev() {
            for element in split_list(line).rev() {
                let hop = match self.header {
                    ForwardedHeader::XForwardedFor => parse_hop(element),
                    ForwardedHeader::Forwarded => forwarded_for(element).and_then(parse_hop),
                };
                let Some(hop) = hop else {
                    return client;
                };
                client = hop.to_canonical();
                hops += 1;
                if !self.trusts(client) || hops >= MOST_HOPS {
                    return client;
                }
            }
        }
        client
    }
}

/// The elements of a comma-separated header value, commas inside quoted strings kept.
fn split_list(value: &str) -> impl DoubleEndedIterator<Item = &str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, b) in value.bytes().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            b',' if !quoted => {
                parts.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&value[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|part| !part.is_empty())
}

/// The `for` parameter of one element of `Forwarded` (RFC 7239 §4), unquoted.
fn forwarded_for(element: &str) -> Option<&str> {
    element.split(';').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("for")
            .then(|| value.trim().trim_matches('"'))
    })
}

/// One hop: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`, `[2001:db8::1]`,
/// `[2001:db8::1]:4711`; `None` for anything else (`unknown`, `_hidden`).
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(addr) = hop.parse::<SocketAddr>() {
        return Some(addr.ip());
    }
    hop.strip_prefix('[')?.strip_suffix(']')?.parse().ok()
}
