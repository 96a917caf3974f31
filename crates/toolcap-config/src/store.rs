//! The `[store]` section: how long and how much a result store keeps, and how
//! often the long-running commands apply it.
//!
//! ```toml
//! [store]
//! keep = "7d"             # results older than this expire ("off": no age limit)
//! max_bytes = "1GiB"      # most output kept in all, oldest expire first ("off": none)
//! expire_every = "10m"    # how often serve, mcp-proxy and run apply both
//! ```

use std::time::Duration;

use serde::Deserialize;

use super::{ConfigError, ConfigErrorKind, Source};
use crate::text::{format_age_ms, parse_age};

/// How often `serve`, `mcp-proxy` and `run` expire results while they run, unless
/// `[store] expire_every` says otherwise: 10 minutes.
pub const DEFAULT_EXPIRE_EVERY: Duration = Duration::from_secs(600);

/// The `[store]` section as written (every key optional).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStore {
    pub(super) keep: Option<String>,
    pub(super) max_bytes: Option<toml::Value>,
    pub(super) expire_every: Option<String>,
}

/// The `[store]` settings, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreConfig {
    /// `keep`: results older than this expire (`None`: no age limit). Default 7 days.
    pub keep: Option<Duration>,
    /// `max_bytes`: the most bytes of output a store keeps in all; past it the
    /// oldest results expire first (`None`: no limit). Default 1 GiB.
    pub max_bytes: Option<u64>,
    /// `expire_every`: how often `serve`, `mcp-proxy` and `run` apply `keep` and
    /// `max_bytes` while they run. Default 10 minutes.
    pub expire_every: Duration,
}

impl Default for StoreConfig {
    fn default() -> StoreConfig {
        StoreConfig {
            keep: Some(Duration::from_secs(7 * 86_400)),
            max_bytes: Some(1 << 30),
            expire_every: DEFAULT_EXPIRE_EVERY,
        }
    }
}

impl StoreConfig {
    /// The section as `toolcap config` prints it, each key with its source.
    pub(super) fn describe(&self, src: &dyn Fn(&str) -> String) -> String {
        let keep = self
            .keep
            .map_or_else(|| "off".into(), |k| format_age_ms(ms(k)));
        let max = self
            .max_bytes
            .map_or_else(|| "\"off\"".into(), |m| m.to_string());
        format!(
            "\n[store]\nkeep = \"{keep}\"  # {}\nmax_bytes = {max}  # {}\nexpire_every = \"{}\"  # {}\n",
            src("store.keep"),
            src("store.max_bytes"),
            format_age_ms(ms(self.expire_every)),
            src("store.expire_every"),
        )
    }
}

fn invalid(origin: &str, key: &str, problem: String, fix: &str) -> ConfigError {
    ConfigError {
        origin: origin.to_string(),
        key: key.to_string(),
        problem,
        fix: fix.to_string(),
        kind: ConfigErrorKind::Invalid,
        line: None,
        source: None,
    }
}

/// Merge one layer's `[store]` over `cfg`, recording each key's source.
pub(super) fn merge(
    cfg: &mut StoreConfig,
    raw: RawStore,
    origin: &str,
    source: &Source,
    sources: &mut std::collections::BTreeMap<String, Source>,
) -> Result<(), ConfigError> {
    if let Some(k) = raw.keep {
        cfg.keep = if is_off(&k) {
            None
        } else {
            Some(age(&k).ok_or_else(|| {
                invalid(
                    origin,
                    "store.keep",
                    format!("{k:?} is not an age"),
                    "write a number and a unit (s, m, h, d, w), like \"7d\" or \"12h\", or \"off\" for no age limit",
                )
            })?)
        };
        sources.insert("store.keep".into(), source.clone());
    }
    if let Some(v) = raw.max_bytes {
        cfg.max_bytes = match &v {
            toml::Value::Integer(n) if *n > 0 => Some(n.unsigned_abs()),
            toml::Value::String(s) if is_off(s) => None,
            toml::Value::String(s) => Some(parse_size(s).ok_or_else(|| {
                invalid(
                    origin,
                    "store.max_bytes",
                    format!("{s:?} is not a size"),
                    "write a whole number of bytes, or a number and a unit (KB, MB, GB, KiB, MiB, GiB), like \"512MiB\", or \"off\" for no size limit",
                )
            })?),
            other => {
                return Err(invalid(
                    origin,
                    "store.max_bytes",
                    format!("{other} is not a size"),
                    "write a whole number of bytes greater than 0, a size like \"512MiB\", or \"off\" for no size limit",
                ));
            }
        };
        sources.insert("store.max_bytes".into(), source.clone());
    }
    if let Some(e) = raw.expire_every {
        cfg.expire_every = age(&e).filter(|d| !d.is_zero()).ok_or_else(|| {
            invalid(
                origin,
                "store.expire_every",
                format!("{e:?} is not an interval"),
                "write a number greater than 0 and a unit (s, m, h, d, w), like \"10m\"",
            )
        })?;
        sources.insert("store.expire_every".into(), source.clone());
    }
    Ok(())
}

fn is_off(s: &str) -> bool {
    matches!(s.trim(), "off" | "never" | "none")
}

fn age(s: &str) -> Option<Duration> {
    parse_age(s).filter(|d| d.as_millis() < i64::MAX as u128)
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// A size like `1048576`, `512MiB`, `2GB`, `100 KB`: at least 1 byte (`None`
/// for anything else).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num.parse().ok()?;
    let scale: u64 = match unit.trim() {
        "" | "B" => 1,
        "KB" | "kB" => 1000,
        "MB" => 1000_u64.pow(2),
        "GB" => 1000_u64.pow(3),
        "TB" => 1000_u64.pow(4),
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "TiB" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(scale)
        .filter(|&b| b > 0 && b <= i64::MAX as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_decimal_and_binary_units() {
        assert_eq!(parse_size("1048576"), Some(1_048_576));
        assert_eq!(parse_size("512MiB"), Some(512 << 20));
        assert_eq!(parse_size("2GB"), Some(2_000_000_000));
        assert_eq!(parse_size("100 KB"), Some(100_000));
        assert_eq!(parse_size("0"), None);
        assert_eq!(parse_size("1.5GB"), None);
        assert_eq!(parse_size("12 parsecs"), None);
    }
}
