//! Compare-and-set on one key: the optimistic change both stores use, safe on a multiplexed
//! connection (unlike `WATCH`, which belongs to a connection), and the JSON form of what they
//! keep.

use crate::error::McpError;
use ::redis::aio::ConnectionManager;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::sync::LazyLock;

/// Replaces the key's value with `ARGV[2]` only if it is still `ARGV[1]`, keeping its expiry
/// (`ARGV[3]`: a new lifetime in milliseconds, or 0 to keep the one it has). 1 when replaced.
const CAS: &str = r"
local now = redis.call('GET', KEYS[1])
if now ~= ARGV[1] then return 0 end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
end
return 1
";

/// The script, hashed once (`EVALSHA` names it by its SHA-1).
static SCRIPT: LazyLock<::redis::Script> = LazyLock::new(|| ::redis::Script::new(CAS));

/// Attempts before a change gives up (each one lost a race to another instance's change).
const ATTEMPTS: u32 = 32;

pub(super) fn failed(e: ::redis::RedisError) -> McpError {
    McpError::internal(format!("the Redis store failed: {e}"))
}

/// A kept `what` (a task, a session) read back from its JSON.
pub(super) fn decode<T: DeserializeOwned>(what: &str, text: &str) -> Result<T, McpError> {
    serde_json::from_str(text)
        .map_err(|e| McpError::internal(format!("a {what} in Redis is not readable: {e}")))
}

/// A `what` (a task, a session) as the JSON it is kept as.
pub(super) fn encode<T: Serialize>(what: &str, value: &T) -> Result<String, McpError> {
    serde_json::to_string(value)
        .map_err(|e| McpError::internal(format!("a {what} could not be written: {e}")))
}

/// [`update`] of a `what` kept as JSON: `change` applied to the value read, and the value as
/// changed (decoded once, not read back from the text written). `None` when the key is gone.
pub(super) async fn update_json<T: Serialize + DeserializeOwned>(
    conn: &ConnectionManager,
    key: &str,
    ttl_ms: u64,
    what: &str,
    change: impl Fn(&mut T),
) -> Result<Option<T>, McpError> {
    let mut last = None;
    let kept = update(conn, key, ttl_ms, |text| {
        let mut value: T = decode(what, text)?;
        change(&mut value);
        let written = encode(what, &value)?;
        // The last attempt's value is the one written when the update succeeds.
        last = Some(value);
        Ok(written)
    })
    .await?;
    Ok(kept.and(last))
}

/// Applies `change` to the JSON value under `key` atomically: reads it, computes the new text,
/// and writes it only if nobody changed it meanwhile (else again). `None` when the key is gone.
/// `ttl_ms`: the lifetime the new value gets (0 keeps the key's own).
pub(super) async fn update(
    conn: &ConnectionManager,
    key: &str,
    ttl_ms: u64,
    mut change: impl FnMut(&str) -> Result<String, McpError>,
) -> Result<Option<String>, McpError> {
    let mut conn = conn.clone();
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            // Lost a race: step aside a random while, longer after each loss, so that the
            // racers do not meet again in lockstep.
            let mut byte = [0u8; 1];
            let _ = getrandom::getrandom(&mut byte);
            let micros = u64::from(byte[0]) * u64::from(attempt.min(8)) * 8;
            tokio::time::sleep(std::time::Duration::from_micros(micros)).await;
        }
        let Some(before) = ::redis::cmd("GET")
            .arg(key)
            .query_async::<Option<String>>(&mut conn)
            .await
            .map_err(failed)?
        else {
            return Ok(None);
        };
        let after = change(&before)?;
        let replaced: i64 = SCRIPT
            .key(key)
            .arg(&before)
            .arg(&after)
            .arg(ttl_ms)
            .invoke_async(&mut conn)
            .await
            .map_err(failed)?;
        if replaced == 1 {
            return Ok(Some(after));
        }
    }
    Err(McpError::internal(format!(
        "`{key}` changed under {ATTEMPTS} attempts in a row: too many instances changing it at once"
    )))
}
