//! Outlines kept for repeated requests in this process.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, LazyLock, Mutex};

use super::{Kind, Language, Options, Outline, Symbol};

/// Outlines kept for repeated requests, keyed by language, options and a
/// hash of the content.
static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(Cache::default()));

/// At most this many outlines are cached; the oldest is dropped first.
const CACHE_ENTRIES: usize = 64;

#[derive(Default)]
struct Cache {
    entries: VecDeque<(CacheKey, Arc<Cached>)>,
    hits: u64,
}

/// An outline as the cache keeps it: the symbols' strings in one buffer, so
/// keeping (and later evicting) it costs a few allocations rather than up to
/// three per symbol (cloning the `Outline` cost 2% of outlining 1 MB).
pub(super) struct Cached {
    /// The outline without its symbols.
    outline: Outline,
    symbols: Vec<CachedSymbol>,
    strings: String,
}

/// A [`Symbol`] with its strings as ranges of [`Cached::strings`].
struct CachedSymbol {
    kind: Kind,
    name: std::ops::Range<usize>,
    line: usize,
    end_line: usize,
    depth: usize,
    parent: Option<std::ops::Range<usize>>,
    detail: Option<std::ops::Range<usize>>,
}

impl Cached {
    pub(super) fn new(o: &Outline) -> Cached {
        let len = o
            .symbols
            .iter()
            .map(|s| {
                s.name.len()
                    + s.parent.as_ref().map_or(0, String::len)
                    + s.detail.as_ref().map_or(0, String::len)
            })
            .sum();
        let mut strings = String::with_capacity(len);
        let mut keep = |s: &str| {
            let start = strings.len();
            strings.push_str(s);
            start..strings.len()
        };
        let symbols = o
            .symbols
            .iter()
            .map(|s| CachedSymbol {
                kind: s.kind,
                name: keep(&s.name),
                line: s.line,
                end_line: s.end_line,
                depth: s.depth,
                parent: s.parent.as_deref().map(&mut keep),
                detail: s.detail.as_deref().map(&mut keep),
            })
            .collect();
        Cached {
            outline: Outline {
                symbols: Vec::new(),
                best_effort: o.best_effort.clone(),
                ..*o
            },
            symbols,
            strings,
        }
    }

    pub(super) fn outline(&self) -> Outline {
        let text = |r: &std::ops::Range<usize>| {
            self.strings.get(r.clone()).unwrap_or_default().to_string()
        };
        Outline {
            symbols: self
                .symbols
                .iter()
                .map(|s| Symbol {
                    kind: s.kind,
                    name: text(&s.name),
                    line: s.line,
                    end_line: s.end_line,
                    depth: s.depth,
                    parent: s.parent.as_ref().map(text),
                    detail: s.detail.as_ref().map(text),
                })
                .collect(),
            best_effort: self.outline.best_effort.clone(),
            ..self.outline
        }
    }
}

#[derive(Clone, PartialEq, Eq)]
pub(super) struct CacheKey {
    lang: Language,
    options: Options,
    len: usize,
    hash: u64,
}

pub(super) fn key(source: &str, lang: Language, options: &Options) -> CacheKey {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    source.hash(&mut h);
    CacheKey {
        lang,
        options: *options,
        len: source.len(),
        hash: h.finish(),
    }
}

/// How many outlines were served from the cache in this process.
pub(super) fn hits() -> u64 {
    CACHE.lock().map_or(0, |c| c.hits)
}

/// The cached outline for `key`, if any.
pub(super) fn get(key: &CacheKey) -> Option<Outline> {
    let mut cache = CACHE.lock().ok()?;
    let found = cache
        .entries
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, o)| Arc::clone(o))?;
    cache.hits += 1;
    drop(cache);
    Some(found.outline())
}

/// Keep `outline` under `key`, dropping the oldest entry when full.
pub(super) fn put(key: CacheKey, outline: &Outline) {
    let cached = Arc::new(Cached::new(outline));
    if let Ok(mut cache) = CACHE.lock() {
        if cache.entries.len() >= CACHE_ENTRIES {
            cache.entries.pop_front();
        }
        cache.entries.push_back((key, cached));
    }
}
