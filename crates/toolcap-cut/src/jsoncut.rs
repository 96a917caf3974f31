//! JSON results stay JSON: shorten a parsed value until it fits the budget, with
//! inline notes that count exactly what was dropped. Keys are kept as long as
//! that is possible at all; only then are an object's last keys elided.

use serde_json::{Map, Value};

use crate::measure::Measure;
use crate::render::notes;

/// What shortening dropped, counted exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[non_exhaustive]
pub struct JsonStats {
    /// Characters of the shortened JSON shown.
    pub shown_chars: usize,
    /// Strings shortened with an inline `…[+N chars]`.
    pub strings_shortened: usize,
    /// Characters dropped from shortened strings.
    pub string_chars_dropped: usize,
    /// Arrays that keep only their first items.
    pub arrays_cut: usize,
    /// Array items elided (at the place where an array was cut).
    pub items_elided: usize,
    /// Objects and arrays replaced by a one-line summary past the depth limit.
    pub values_collapsed: usize,
    /// Object keys elided (only when even the most compact form did not fit).
    pub keys_elided: usize,
}

impl JsonStats {
    /// `14 strings shortened (3,400 chars dropped), 5 arrays cut (240 items elided)`
    pub fn describe(&self) -> String {
        notes::json_reshaped(&notes::JsonDropped {
            strings: self.strings_shortened,
            string_chars: self.string_chars_dropped,
            arrays: self.arrays_cut,
            items: self.items_elided,
            collapsed: self.values_collapsed,
            keys: self.keys_elided,
        })
    }
}

#[derive(Debug, Clone, Copy)]
struct Limits {
    max_str: usize,
    max_items: usize,
    max_depth: usize,
    max_keys: usize,
}

/// From generous to strict; the first that fits wins.
const SCHEDULE: &[Limits] = &[
    Limits {
        max_str: 400,
        max_items: 20,
        max_depth: 12,
        max_keys: usize::MAX,
    },
    Limits {
        max_str: 200,
        max_items: 10,
        max_depth: 8,
        max_keys: usize::MAX,
    },
    Limits {
        max_str: 120,
        max_items: 5,
        max_depth: 6,
        max_keys: usize::MAX,
    },
    Limits {
        max_str: 80,
        max_items: 3,
        max_depth: 5,
        max_keys: usize::MAX,
    },
    Limits {
        max_str: 60,
        max_items: 2,
        max_depth: 4,
        max_keys: usize::MAX,
    },
    Limits {
        max_str: 40,
        max_items: 1,
        max_depth: 3,
        max_keys: usize::MAX,
    },
    Limits {
        max_str: 30,
        max_items: 1,
        max_depth: 2,
        max_keys: usize::MAX,
    },
    Limits {
        max_str: 20,
        max_items: 1,
        max_depth: 1,
        max_keys: usize::MAX,
    },
    Limits {
        max_str: 20,
        max_items: 1,
        max_depth: 1,
        max_keys: 40,
    },
    Limits {
        max_str: 16,
        max_items: 1,
        max_depth: 1,
        max_keys: 15,
    },
    Limits {
        max_str: 12,
        max_items: 1,
        max_depth: 1,
        max_keys: 5,
    },
];

fn shorten(v: &Value, lim: Limits, depth: usize, st: &mut JsonStats) -> Value {
    match v {
        Value::String(s) => {
            let n = s.chars().count();
            // a shortened URL cannot be fetched: URLs are kept whole
            if n > lim.max_str && !is_url(s) {
                let kept: String = s.chars().take(lim.max_str).collect();
                st.strings_shortened += 1;
                st.string_chars_dropped += n - lim.max_str;
                Value::String(notes::json_string_cut(&kept, n - lim.max_str))
            } else {
                v.clone()
            }
        }
        Value::Array(a) if depth >= lim.max_depth && !a.is_empty() => {
            st.values_collapsed += 1;
            Value::String(notes::json_array_summary(a.len()))
        }
        Value::Object(o) if depth >= lim.max_depth && !o.is_empty() => {
            st.values_collapsed += 1;
            let keys: Vec<&str> = o.keys().map(String::as_str).take(8).collect();
            let more = o.len().saturating_sub(8);
            Value::String(notes::json_object_summary(o.len(), &keys, more))
        }
        Value::Array(a) => {
            let mut out: Vec<Value> = a
                .iter()
                .take(lim.max_items)
                .map(|x| shorten(x, lim, depth + 1, st))
                .collect();
            if a.len() > lim.max_items {
                let more = a.len() - lim.max_items;
                st.arrays_cut += 1;
                st.items_elided += more;
                out.push(Value::String(notes::json_more_items(more, a.len())));
            }
            Value::Array(out)
        }
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, x) in o.iter().take(lim.max_keys) {
                out.insert(k.clone(), shorten(x, lim, depth + 1, st));
            }
            if o.len() > lim.max_keys {
                let more = o.len() - lim.max_keys;
                st.keys_elided += more;
                out.insert(notes::json_more_keys(more), Value::Null);
            }
            Value::Object(out)
        }
        _ => v.clone(),
    }
}

/// Whether `s` is a URL (`scheme://` then no whitespace), up to 4,096 chars.
fn is_url(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once("://") else {
        return false;
    };
    s.len() <= 4096
        && !rest.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !s.contains(char::is_whitespace)
}

/// Whether `text` is a JSON object or array (JSON Lines and prefixes are not).
pub fn parse(text: &str) -> Option<Value> {
    let t = text.trim_start();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    serde_json::from_str::<Value>(text)
        .ok()
        .filter(|v| v.is_object() || v.is_array())
}

/// Shorten `v` until its serialization costs at most `budget` under `m`: pretty
/// printed when that fits, else compact. None when even the strictest limits do
/// not fit (the caller then cuts lines). The shortened value comes too: what
/// the text shows, as data (the hints read it; nothing parses the text again).
pub fn cut(v: &Value, budget: usize, m: &dyn Measure) -> Option<(String, JsonStats, Value)> {
    for (i, lim) in SCHEDULE.iter().enumerate() {
        let Some(found) = fit(v, *lim, budget, m) else {
            continue;
        };
        // The step from the previous limits was coarse: relax one of them back
        // at a time and keep whichever still fits and shows the most.
        let Some(prev) = i.checked_sub(1).map(|j| SCHEDULE[j]) else {
            return Some(found);
        };
        let relaxed = [
            Limits {
                max_items: prev.max_items,
                ..*lim
            },
            Limits {
                max_str: prev.max_str,
                ..*lim
            },
            Limits {
                max_depth: prev.max_depth,
                ..*lim
            },
            Limits {
                max_keys: prev.max_keys,
                ..*lim
            },
        ];
        let best = relaxed
            .into_iter()
            .filter_map(|l| fit(v, l, budget, m))
            .chain([found])
            // pretty printed reads better than a little more on one line
            .max_by_key(|(text, st, _)| (text.contains('\n'), st.shown_chars));
        return best;
    }
    None
}

/// `v` shortened with `lim`, pretty printed if that fits the budget, else compact.
fn fit(
    v: &Value,
    lim: Limits,
    budget: usize,
    m: &dyn Measure,
) -> Option<(String, JsonStats, Value)> {
    let mut st = JsonStats::default();
    let short = shorten(v, lim, 0, &mut st);
    let text = [
        serde_json::to_string_pretty(&short),
        serde_json::to_string(&short),
    ]
    .into_iter()
    .flatten()
    .find(|text| m.cost(text) <= budget)?;
    st.shown_chars = crate::text::count_chars(&text);
    Some((text, st, short))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Chars;
    use crate::text::thousands;
    use serde_json::json;

    #[test]
    fn keeps_keys_and_counts_what_it_drops() {
        let items: Vec<Value> = (0..300)
            .map(|i| json!({"id": i, "title": format!("issue {i}"), "body": "x".repeat(1000)}))
            .collect();
        let v = json!({"total_count": 300, "items": items});
        let (text, st, _) = cut(&v, 2000, &Chars).unwrap();
        assert!(text.chars().count() <= 2000);
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["total_count"], 300);
        let kept = back["items"].as_array().unwrap();
        let shown = kept.len() - 1;
        assert_eq!(st.items_elided, 300 - shown);
        assert_eq!(
            kept.last().unwrap(),
            &json!(format!("[… {} more items of 300]", 300 - shown))
        );
        // every shown body was shortened, and the drop is counted exactly
        let body = kept[0]["body"].as_str().unwrap();
        let kept_chars = body.split('…').next().unwrap().chars().count();
        assert_eq!(st.strings_shortened, shown);
        assert_eq!(st.string_chars_dropped, shown * (1000 - kept_chars));
        assert!(body.ends_with(&format!("…[+{} chars]", 1000 - kept_chars)));
        assert_eq!(st.shown_chars, text.chars().count());
    }

    #[test]
    fn urls_are_never_shortened() {
        let url = "https://docs.example.org/reference/a/very/long/path/that/goes/on/and/on?with=query&and=more#fragment";
        let v = json!({"results": [{"title": "x".repeat(300), "url": url}]});
        let (text, _, _) = cut(&v, 400, &Chars).unwrap();
        assert!(text.contains(url), "{text}");
        assert!(!text.contains(&"x".repeat(300)));
        assert!(!is_url("not a url://x y"));
        assert!(!is_url("1://x"));
    }

    #[test]
    fn not_json_or_scalars_are_not_cut_as_json() {
        assert!(parse("{\"a\":1}\n{\"a\":2}\n").is_none()); // JSON Lines
        assert!(parse("\"just a string\"").is_none());
        assert!(parse("{\"a\": 1} trailing text").is_none());
        assert!(parse("  [1, 2]").is_some());
    }

    #[test]
    fn huge_objects_fall_back_to_eliding_keys() {
        let mut o = Map::new();
        for i in 0..5000 {
            o.insert(format!("key_{i}"), json!(i));
        }
        let (text, st, _) = cut(&Value::Object(o), 2000, &Chars).unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        let n = back.as_object().unwrap().len() - 1;
        assert_eq!(st.keys_elided, 5000 - n);
        assert!(
            back.get(format!("[… {} more keys]", thousands(5000 - n)))
                .is_some()
        );
    }
}
