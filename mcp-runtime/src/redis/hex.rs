//! Bytes in lowercase hex ([`hex`]): the bus's instance name, the shared caches' keys.

/// `bytes` in lowercase hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
