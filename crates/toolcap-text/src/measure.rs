//! What budgets and thresholds count: characters (default) or tokens of a
//! tiktoken encoding. The encoder is loaded lazily, only when a token unit is
//! configured, and once per process.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::text::{byte_of_char, byte_of_last_chars, count_chars};

/// How sizes are counted.
pub trait Measure: Sync {
    /// The size of `s`.
    fn cost(&self, s: &str) -> usize;

    /// Unit name for messages: `chars` or `tokens`.
    fn unit(&self) -> &'static str;

    /// Byte length of the longest prefix of `s` (on a char boundary) whose cost
    /// is at most `budget`.
    fn prefix_within(&self, s: &str, budget: usize) -> usize {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        // binary search for the largest k with cost(s[..bounds[k]]) <= budget
        let (mut lo, mut hi) = (0usize, bounds.len() - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.cost(&s[..bounds[mid]]) <= budget {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        bounds[lo]
    }

    /// Byte offset where the longest suffix of `s` costing at most `budget` starts.
    fn suffix_within(&self, s: &str, budget: usize) -> usize {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        // smallest k with cost(s[bounds[k]..]) <= budget
        let (mut lo, mut hi) = (0usize, bounds.len() - 1);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.cost(&s[bounds[mid]..]) <= budget {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        bounds[lo]
    }
}

/// Unicode characters.
#[derive(Debug, Clone, Copy, Default)]
pub struct Chars;

impl Measure for Chars {
    fn cost(&self, s: &str) -> usize {
        count_chars(s)
    }
    fn unit(&self) -> &'static str {
        "chars"
    }
    fn prefix_within(&self, s: &str, budget: usize) -> usize {
        byte_of_char(s, budget)
    }
    fn suffix_within(&self, s: &str, budget: usize) -> usize {
        byte_of_last_chars(s, budget)
    }
}

/// A tiktoken encoding.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, strum::IntoStaticStr, strum::EnumString,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Encoding {
    /// `o200k_base` (GPT-4o and later).
    O200kBase,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100kBase,
}

impl Encoding {
    /// The encoding's name (`o200k_base`, `cl100k_base`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The encoding named `s`, if any.
    pub fn parse(s: &str) -> Option<Encoding> {
        s.parse().ok()
    }
}

/// How many times an encoder was loaded in this process (0 unless a token unit
/// was used): lets tests check that character budgets never load one.
pub fn encoder_loads() -> usize {
    ENCODER_LOADS.load(Ordering::SeqCst)
}

static ENCODER_LOADS: AtomicUsize = AtomicUsize::new(0);

/// Tokens of an encoding.
#[derive(Clone, Copy)]
pub struct Tokens {
    /// Which encoding counts.
    pub encoding: Encoding,
    #[cfg(feature = "tokens")]
    bpe: &'static tiktoken_rs::CoreBPE,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tokens({})", self.encoding.as_str())
    }
}

impl Tokens {
    /// The encoder for `encoding`, loaded on first use (o200k_base takes a few
    /// hundred milliseconds to load).
    #[cfg(feature = "tokens")]
    pub fn new(encoding: Encoding) -> Tokens {
        use std::sync::OnceLock;
        static O200K: OnceLock<&'static tiktoken_rs::CoreBPE> = OnceLock::new();
        static CL100K: OnceLock<&'static tiktoken_rs::CoreBPE> = OnceLock::new();
        let cell = match encoding {
            Encoding::O200kBase => &O200K,
            Encoding::Cl100kBase => &CL100K,
        };
        let bpe = *cell.get_or_init(|| {
            ENCODER_LOADS.fetch_add(1, Ordering::SeqCst);
            match encoding {
                Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
                Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            }
        });
        Tokens { encoding, bpe }
    }
}

#[cfg(feature = "tokens")]
impl Measure for Tokens {
    fn cost(&self, s: &str) -> usize {
        self.bpe.encode_ordinary(s).len()
    }
    fn unit(&self) -> &'static str {
        "tokens"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names strum derives are the config's and the report's (serde's),
    /// and nothing else parses.
    #[test]
    fn encoding_names_are_the_config_names() {
        for (e, name) in [
            (Encoding::O200kBase, "o200k_base"),
            (Encoding::Cl100kBase, "cl100k_base"),
        ] {
            assert_eq!(e.as_str(), name);
            assert_eq!(Encoding::parse(name), Some(e));
            assert_eq!(serde_json::to_value(e).unwrap(), name);
        }
        assert_eq!(Encoding::parse("o200kbase"), None);
        assert_eq!(Encoding::parse("O200K_BASE"), None);
    }

    #[test]
    fn chars_prefix_and_suffix() {
        assert_eq!(Chars.prefix_within("héllo", 2), 3);
        assert_eq!(Chars.suffix_within("héllo", 4), 1);
    }

    #[cfg(feature = "tokens")]
    #[test]
    fn token_prefix_fits_its_budget() {
        let t = Tokens::new(Encoding::O200kBase);
        let s = "The quick brown fox jumps over the lazy dog. ".repeat(50);
        let n = t.cost(&s);
        assert!(n > 100);
        let b = t.prefix_within(&s, 40);
        assert!(t.cost(&s[..b]) <= 40);
        assert!(t.cost(&s[..b]) >= 35);
        let a = t.suffix_within(&s, 40);
        assert!(t.cost(&s[a..]) <= 40);
        assert_eq!(Tokens::new(Encoding::Cl100kBase).cost("hello world"), 2);
    }
}
