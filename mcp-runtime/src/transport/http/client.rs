//! Who a request comes from, decided here and nowhere else, the same for every use (the
//! per-caller shares of the server's pools, the rate limit, the connection share, the local
//! caller, the lab page, the request's span):
//!
//! - **its client's address**: the connection's peer; when that peer is a trusted proxy
//!   ([`HttpOptions::trusted_proxies`]), the forwarding header that proxy writes, read right
//!   to left (each proxy appends the address it was reached from) up to the first address that
//!   is not a trusted proxy. From any other peer, forwarding headers are ignored: anyone can
//!   send one. IPv6 clients are counted by their network ([`HttpOptions::ipv6_prefix`]).
//! - **whether it came straight from this machine**: a loopback peer, no header a proxy or a
//!   tunnel adds, and a loopback `Host` (and authority, for an absolute-form target). Behind a
//!   proxy on the same machine every request has a loopback peer: the headers and the name tell
//!   it apart. Only such requests are given the local caller and the lab page.

use super::options::HttpOptions;
use crate::net::{ClientNet, host_part, is_loopback};
use http::{HeaderMap, header};
use std::net::SocketAddr;

/// The client of a request whose connection comes from `peer` (when known): see the module's
/// docs.
pub(super) fn client_of(
    options: &HttpOptions,
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
) -> Option<ClientNet> {
    let peer = peer?.ip().to_canonical();
    let addr = match options.proxies.trusts(peer) {
        true => options.proxies.client_behind(peer, headers),
        false => peer,
    };
    Some(ClientNet::new(addr, options.ipv6_prefix))
}

/// Headers a proxy or a tunnel adds to what it passes on (nginx and most proxies:
/// `X-Forwarded-*`; RFC 7239: `Forwarded`; RFC 9110 §7.6.3: `Via`; Cloudflare and its tunnel:
/// `CF-Connecting-IP`; Akamai and Cloudflare Enterprise: `True-Client-IP`; nginx's common
/// configurations: `X-Real-IP`).
const PROXY_HEADERS: [&str; 8] = [
    "forwarded",
    "x-forwarded-for",
    "x-forwarded-host",
    "x-forwarded-proto",
    "x-real-ip",
    "via",
    "cf-connecting-ip",
    "true-client-ip",
];

/// Whether a request came straight from this machine: its connection from a loopback address,
/// no header a proxy or a tunnel adds, a loopback `Host` and, for an absolute-form target
/// (`POST http://host/mcp`), a loopback authority. A proxy or a tunnel on the same machine
/// connects from loopback: only what it adds or passes on tells its clients apart, so a
/// request that cannot show it came from here is taken for one that did not.
pub(super) fn came_from_here(
    headers: &HeaderMap,
    uri: &http::Uri,
    peer: Option<SocketAddr>,
) -> bool {
    let Some(peer) = peer else { return false };
    if !peer.ip().to_canonical().is_loopback() {
        return false;
    }
    if PROXY_HEADERS.iter().any(|name| headers.contains_key(*name)) {
        return false;
    }
    let mut hosts = headers.get_all(header::HOST).iter();
    let host_is_loopback = match (hosts.next().map(|h| h.to_str()), hosts.next()) {
        (Some(Ok(host)), None) => is_loopback(host_part(host)),
        _ => false,
    };
    host_is_loopback
        && uri
            .authority()
            .is_none_or(|a| is_loopback(host_part(a.as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::http::ForwardedHeader;
    use http::HeaderName;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (n, v) in pairs {
            h.append(
                HeaderName::from_bytes(n.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    fn peer(ip: &str) -> Option<SocketAddr> {
        Some(SocketAddr::new(ip.parse().unwrap(), 40000))
    }

    fn client(options: &HttpOptions, pairs: &[(&str, &str)], from: &str) -> String {
        client_of(options, &headers(pairs), peer(from))
            .map(|c| c.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn forwarding_headers_count_only_from_trusted_proxies() {
        let xff = [("x-forwarded-for", "203.0.113.9")];
        // Not trusted: the header is anyone's.
        let plain = HttpOptions::default();
        assert_eq!(client(&plain, &xff, "127.0.0.1"), "127.0.0.1");
        // Loopback proxies trusted; a client elsewhere sending the header is not a proxy.
        let trusting = HttpOptions::default().trust_forwarded_for(true);
        assert_eq!(client(&trusting, &xff, "127.0.0.1"), "203.0.113.9");
        assert_eq!(client(&trusting, &xff, "198.51.100.4"), "198.51.100.4");
        // No header from a trusted proxy: the proxy itself.
        assert_eq!(client(&trusting, &[], "127.0.0.1"), "127.0.0.1");
    }

    #[test]
    fn the_chain_is_read_right_to_left_up_to_the_first_untrusted_hop() {
        let options = HttpOptions::default().trusted_proxies(["10.0.0.0/8", "127.0.0.1"]);
        // The client put a made-up address first; the edge proxy appended the real one.
        let chain = [("x-forwarded-for", "1.2.3.4, 203.0.113.9, 10.0.0.7")];
        assert_eq!(client(&options, &chain, "127.0.0.1"), "203.0.113.9");
        // Several lines are one list, in order.
        let lines = [
            ("x-forwarded-for", "1.2.3.4"),
            ("x-forwarded-for", "203.0.113.9, 10.0.0.7"),
        ];
        assert_eq!(client(&options, &lines, "127.0.0.1"), "203.0.113.9");
        // Every hop trusted: the leftmost.
        let inside = [("x-forwarded-for", "10.1.1.1, 10.0.0.7")];
        assert_eq!(client(&options, &inside, "127.0.0.1"), "10.1.1.1");
        // An unreadable hop: what added it is all that is known.
        let hidden = [("x-forwarded-for", "unknown, 10.0.0.7")];
        assert_eq!(client(&options, &hidden, "127.0.0.1"), "10.0.0.7");
        // Ports and brackets.
        let ported = [("x-forwarded-for", "[2001:db8::5]:4711, 203.0.113.9:1234")];
        assert_eq!(client(&options, &ported, "127.0.0.1"), "203.0.113.9");
        // `Forwarded` is not read when the proxy writes X-Forwarded-For.
        let other = [("forwarded", "for=198.51.100.1")];
        assert_eq!(client(&options, &other, "127.0.0.1"), "127.0.0.1");
    }

    #[test]
    fn rfc_7239_forwarded_when_told() {
        let options = HttpOptions::default()
            .trusted_proxies(["127.0.0.1"])
            .forwarded_header(ForwardedHeader::Forwarded);
        let h = [(
            "forwarded",
            r#"for=1.2.3.4, for="[2001:db8:cafe::17]:4711";proto=https;by=127.0.0.1"#,
        )];
        assert_eq!(client(&options, &h, "127.0.0.1"), "2001:db8:cafe::/64");
        let obfuscated = [("forwarded", "for=_hidden;proto=http")];
        assert_eq!(client(&options, &obfuscated, "127.0.0.1"), "127.0.0.1");
        let xff = [("x-forwarded-for", "198.51.100.1")];
        assert_eq!(client(&options, &xff, "127.0.0.1"), "127.0.0.1");
    }

    #[test]
    fn a_long_chain_is_read_only_so_far() {
        let options = HttpOptions::default().trusted_proxies(["10.0.0.0/8"]);
        let chain = vec!["10.0.0.1"; 1000].join(", ");
        let h = [("x-forwarded-for", chain.as_str())];
        assert_eq!(client(&options, &h, "10.9.9.9"), "10.0.0.1");
    }

    #[test]
    fn ipv6_clients_by_network() {
        let options = HttpOptions::default();
        assert_eq!(
            client(&options, &[], "2001:db8:1:2::77"),
            "2001:db8:1:2::/64"
        );
        let options = HttpOptions::default().ipv6_prefix(48);
        assert_eq!(client(&options, &[], "2001:db8:1:2::77"), "2001:db8:1::/48");
        assert_eq!(client(&options, &[], "::ffff:192.0.2.1"), "192.0.2.1");
    }

    #[test]
    fn only_a_request_that_shows_it_came_from_here_did() {
        let here = |pairs: &[(&str, &str)], uri: &str, from: &str| {
            came_from_here(&headers(pairs), &uri.parse().unwrap(), peer(from))
        };
        let host = ("host", "127.0.0.1:8000");
        assert!(here(&[host], "/mcp", "127.0.0.1"));
        assert!(here(&[("host", "localhost:8000")], "/mcp", "::1"));
        assert!(here(&[("host", "[::1]:8000")], "/mcp", "::ffff:127.0.0.1"));
        // From elsewhere, through a proxy or a tunnel, by another name.
        assert!(!here(&[host], "/mcp", "192.0.2.1"));
        for proxied in PROXY_HEADERS {
            assert!(
                !here(&[host, (proxied, "203.0.113.9")], "/mcp", "127.0.0.1"),
                "{proxied}"
            );
        }
        assert!(!here(&[("host", "mcp.example.com")], "/mcp", "127.0.0.1"));
        assert!(!here(&[], "/mcp", "127.0.0.1"), "no Host");
        assert!(
            !here(&[host, ("host", "127.0.0.1")], "/mcp", "127.0.0.1"),
            "two"
        );
        // An absolute-form target names its own authority.
        assert!(!here(&[host], "http://mcp.example.com/mcp", "127.0.0.1"));
        assert!(here(&[host], "http://localhost:8000/mcp", "127.0.0.1"));
        assert!(!came_from_here(
            &headers(&[host]),
            &"/mcp".parse().unwrap(),
            None
        ));
    }
}
