//! Results expiring on a timer while a server runs (`toolcap serve`, `toolcap
//! mcp`, `toolcap mcp-proxy`).

use std::io::{self, Write};
use std::sync::Arc;
use std::time::Duration;

use toolcap_config::Config;
use toolcap_store::ResultStore;
use toolcap_store::retention::{Retention, Ticker};
use toolcap_text::text::thousands;

use super::results;

/// Apply the configuration's `[store]` retention every `every` (else its
/// `expire_every`) until the returned ticker is dropped. With `log`, what expired
/// and what failed is written to stderr as `toolcap WHO: ...` (`toolcap serve`'s
/// and `toolcap mcp`'s).
pub fn expire_periodically(
    s: Arc<dyn ResultStore>,
    config: &Config,
    every: Option<Duration>,
    who: &'static str,
    log: bool,
) -> Option<Ticker> {
    let r = Retention::of(&config.store);
    if r.is_unlimited() {
        return None;
    }
    let every = every.unwrap_or(config.store.expire_every);
    Ticker::start(s, r, every, move |outcome| {
        if !log {
            return;
        }
        let line = match outcome {
            Ok(done) if done.total() == 0 => return,
            Ok(done) => format!(
                "toolcap {who}: expired {} ({} for age, {} for size; {} bytes)",
                results(done.total()),
                done.by_age,
                done.by_size,
                thousands(usize::try_from(done.bytes).unwrap_or(usize::MAX))
            ),
            Err(e) => {
                format!("toolcap {who}: expiring old results failed ({e}); trying again later")
            }
        };
        let _ = writeln!(io::stderr(), "{line}");
    })
    .ok()
}
