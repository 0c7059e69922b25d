//! JSON read from bytes.
//!
//! The runtime reads JSON with serde_json's `&str` reader only: each type's reading code is
//! then compiled once, not once more for the `&[u8]` reader (BENCHMARKS.md, "Metrics, result
//! views and patterns behind features": that second reader was 1.5 % of the runtime's code).

use serde::Deserialize;

/// Reads `T` from JSON bytes: the text is checked for UTF-8 first (JSON text is UTF-8), then
/// read with the `&str` reader. Bytes that are not UTF-8 are an error naming where they stop
/// being so.
pub(crate) fn from_bytes<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, serde_json::Error> {
    match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(e) => Err(serde::de::Error::custom(format_args!(
            "the JSON text is not UTF-8 (at byte {})",
            e.valid_up_to()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::from_bytes;
    use serde_json::Value;

    #[test]
    fn reads_text_and_names_where_utf8_stops() {
        let v: Value = from_bytes(b"{\"a\":\"\\u00e9t\xc3\xa9\"}").unwrap();
        assert_eq!(v["a"], "été");
        let e = from_bytes::<Value>(b"{\"a\":\"\xff\"}").unwrap_err();
        assert_eq!(e.to_string(), "the JSON text is not UTF-8 (at byte 6)");
        assert!(from_bytes::<Value>(b"{\"a\":").unwrap_err().is_eof());
    }
}
