//! Compare-and-set on one key: the optimistic change both stores use, safe on a multiplexed
//! connection (unlike `WATCH`, which belongs to a connection).

use crate::error::McpError;
use ::redis::aio::ConnectionManager;

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

/// Attempts before a change gives up (each one lost a race to another instance's change).
const ATTEMPTS: u32 = 32;

pub(super) fn failed(e: ::redis::RedisError) -> McpError {
    McpError::internal(format!("the Redis store failed: {e}"))
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
    let script = ::redis::Script::new(CAS);
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
        let replaced: i64 = script
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
