//! jq: a command printed JSON that was shortened to stay valid JSON.
//!
//! **What it does.** When a shell command's output is one JSON document (often a
//! single line of 40 KB or more), the kept part is shortened JSON, so line
//! ranges (`sed -n 'A,Bp'`) mean nothing: the whole document is line 1. The
//! suggestions re-run the command through `jq -c` with paths into the document:
//! the next items of its largest arrays (from the first item not shown), sized
//! to come back whole from the shell tool, and a list of one identifying field
//! (`id`, `name`, ...) of every item when that fits.
//!
//! **Why.** A model that sees `[… 230 more items of 250]` needs a way to those
//! items that does not print the 60 KB line again.
//!
//! **Example.** `gh api repos/o/r/issues | jq -c '.[20:37]'  # re-runs the command; items 20-36 ...`

use serde_json::Value;

use super::{Context, Intent, Note, Purpose, RecoveryModel, Source, Suggestion};
use crate::quote;

/// One step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
}

/// The path as a jq filter: `.items`, `.["odd key"]`, `.data.list`, `.` for the
/// document itself.
fn jq_path(path: &[Step]) -> String {
    let mut s = String::new();
    for st in path {
        match st {
            Step::Key(k) if is_ident(k) => {
                s.push('.');
                s.push_str(k);
            }
            // a jq string literal: JSON escaping; `\(` cannot appear as a
            // backslash is itself escaped
            Step::Key(k) => {
                if s.is_empty() {
                    s.push('.');
                }
                s.push_str(&format!("[{}]", quote::json_string(k)));
            }
        }
    }
    if s.is_empty() { ".".to_string() } else { s }
}

fn is_ident(k: &str) -> bool {
    let mut c = k.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// `path[a:b]` as jq writes a slice (`.[3:9]` for the document itself).
fn slice(path: &str, a: usize, b: usize) -> String {
    if path == "." {
        format!(".[{a}:{b}]")
    } else {
        format!("{path}[{a}:{b}]")
    }
}

/// Arrays of more than one item and objects of more than one key reached
/// through object keys (not through arrays), at most `depth` keys deep, with
/// their path and the chars of their compact JSON.
fn containers<'a>(
    v: &'a Value,
    path: &mut Vec<Step>,
    depth: usize,
    out: &mut Vec<(Vec<Step>, &'a Value, usize)>,
) {
    match v {
        Value::Array(a) if a.len() > 1 => {
            out.push((path.clone(), v, crate::text::count_chars(&v.to_string())));
        }
        Value::Object(o) => {
            if o.len() > 1 {
                out.push((path.clone(), v, crate::text::count_chars(&v.to_string())));
            }
            if depth > 0 {
                for (k, x) in o {
                    path.push(Step::Key(k.clone()));
                    containers(x, path, depth - 1, out);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

/// The value at `path`.
fn at<'a>(v: &'a Value, path: &[Step]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, st| match st {
        Step::Key(k) => v.get(k),
    })
}

/// Whether `jq -c` prints `v` exactly as serde_json's compact form: numbers
/// that are integers jq holds exactly (jq 1.6 turns every number into a double
/// and prints `1.0` as `1`), and no DEL character (jq escapes it).
fn prints_alike(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_i64().is_some_and(|i| i.unsigned_abs() <= 1u64 << 53),
        Value::String(s) => !s.contains('\u{7f}'),
        Value::Array(a) => a.iter().all(prints_alike),
        Value::Object(o) => o
            .iter()
            .all(|(k, x)| !k.contains('\u{7f}') && prints_alike(x)),
        _ => true,
    }
}

/// Chars `jq -c` prints for `v` (its line and the newline), when that is known
/// exactly.
fn jq_chars(v: &Value) -> Option<usize> {
    prints_alike(v).then(|| crate::text::count_chars(&v.to_string()) + 1)
}

/// Items of the array at `path` that the kept part shows (the note
/// `[… N more items of M]` that stands for the rest is not one).
fn shown_items(shown: Option<&Value>, path: &[Step], len: usize) -> usize {
    let Some(Value::Array(a)) = shown.and_then(|s| at(s, path)) else {
        return 0;
    };
    let cut = a.len() < len
        || a.last()
            .and_then(Value::as_str)
            .is_some_and(crate::render::notes::is_json_more_items);
    if cut {
        a.len().saturating_sub(1).min(len)
    } else {
        a.len().min(len)
    }
}

/// The key every item carries with a short scalar value that best names it.
fn naming_key(items: &[Value]) -> Option<String> {
    const PREFERRED: [&str; 10] = [
        "id", "name", "title", "key", "path", "url", "number", "slug", "login", "file",
    ];
    let first = items.first()?.as_object()?;
    let usable = |k: &str| {
        items.iter().all(|x| {
            x.get(k).is_some_and(|v| match v {
                Value::String(s) => s.chars().count() <= 80,
                Value::Number(_) | Value::Bool(_) => true,
                _ => false,
            })
        })
    };
    PREFERRED
        .iter()
        .find(|k| first.contains_key(**k) && usable(k))
        .map(ToString::to_string)
        .or_else(|| first.keys().find(|k| usable(k)).cloned())
}

/// The shell family's recovery section, with jq paths when the output was
/// shortened as JSON.
pub fn shell_model(ctx: &Context<'_>) -> RecoveryModel {
    let mut m = super::shell::model(ctx);
    super::everyday::add(ctx, &mut m);
    for_shell(ctx, &mut m);
    m
}

/// The calls that re-run a command through `jq -c` (or, with `toolcap
/// run`'s preset, read its stored output: nothing runs again).
struct Jq<'c, 'a> {
    ctx: &'c Context<'a>,
    cmd: String,
    /// The most chars a shell call's output comes back whole with.
    budget: usize,
    /// The calls run the command again.
    rerun: bool,
}

impl Jq<'_, '_> {
    /// The command (or the stored output) piped through `jq -c FILTER`.
    fn run(&self, filter: &str) -> Option<String> {
        self.ctx
            .replay_piped(&self.cmd, &format!("jq -c {}", quote::shell_word(filter)?))
    }

    /// The call of `filter`, when it can be written.
    fn offer(&self, filter: &str, purpose: Purpose) -> Option<Suggestion> {
        let c = self.run(filter)?;
        self.ctx.offer(Source::Nowhere, Intent::Shell(c), purpose)
    }

    /// As many of an object's keys, in order, as print within the budget.
    fn keys(&self, p: &str, o: &serde_json::Map<String, Value>) -> Option<Suggestion> {
        let mut n = 0;
        let mut chars = 3usize; // `[]` and the newline
        for k in o.keys() {
            let c = crate::text::count_chars(&quote::json_string(k)) + usize::from(n > 0);
            if chars + c > self.budget || k.contains('\u{7f}') {
                break;
            }
            chars += c;
            n += 1;
        }
        if n == 0 {
            return None;
        }
        let filter = if n == o.len() {
            format!("{p} | keys_unsorted")
        } else {
            format!("{p} | keys_unsorted[0:{n}]")
        };
        self.offer(
            &filter,
            Purpose::JqKeys {
                rerun: self.rerun,
                path: p.to_string(),
                first: n,
                keys: o.len(),
                chars,
            },
        )
    }

    /// As many of an array's items from the first not shown as print within
    /// the budget, with exact chars when jq prints them as counted here.
    fn items(&self, p: &str, path: &[Step], items: &[Value]) -> Option<Suggestion> {
        let len = items.len();
        let from = shown_items(self.ctx.shown_json, path, len);
        let from = if from >= len { 0 } else { from };
        let mut to = from;
        let mut chars = 2usize; // `[]`
        let mut exact = true;
        while to < len {
            let c = crate::text::count_chars(&items[to].to_string()) + usize::from(to > from);
            if chars + c + 1 > self.budget {
                break;
            }
            exact &= prints_alike(&items[to]);
            chars += c;
            to += 1;
        }
        if to == from {
            return None;
        }
        self.offer(
            &slice(p, from, to),
            Purpose::JqItems {
                rerun: self.rerun,
                path: p.to_string(),
                from,
                to,
                len,
                chars: exact.then_some(chars + 1),
            },
        )
    }

    /// One naming field of every item of an array, when that fits.
    fn names(&self, p: &str, items: &[Value]) -> Option<Suggestion> {
        let k = naming_key(items)?;
        let filter = format!("[{}[].{}]", if p == "." { "." } else { p }, jq_key(&k));
        let names = Value::Array(items.iter().filter_map(|x| x.get(&k).cloned()).collect());
        let n = jq_chars(&names).filter(|n| *n <= self.budget)?;
        self.offer(
            &filter,
            Purpose::JqNames {
                rerun: self.rerun,
                path: p.to_string(),
                key: k,
                items: items.len(),
                chars: n,
            },
        )
    }
}

/// Replace the line-based suggestions of a shell result that was shortened as
/// JSON with `jq` paths into it.
pub fn for_shell(ctx: &Context<'_>, r: &mut RecoveryModel) {
    let Some(v) = ctx.json else { return };
    let Some(cmd) = super::shell::command(ctx) else {
        return;
    };
    let mut found = Vec::new();
    containers(v, &mut Vec::new(), 4, &mut found);
    // the parts that hold most of the document first; the document itself
    // only when it is an array (its keys are all in the kept part)
    found.retain(|(p, v, _)| !p.is_empty() || v.is_array());
    found.sort_by_key(|(_, _, size)| std::cmp::Reverse(*size));
    // jq re-runs the command: only a shell tool can
    let jq = Jq {
        ctx,
        cmd,
        budget: ctx.shell_budget(),
        rerun: !ctx.replays_stored(),
    };
    let mut out: Vec<Suggestion> = Vec::new();
    let mut chosen: Vec<&[Step]> = Vec::new();
    for (path, value, _) in &found {
        // two distinct parts of the document, neither inside the other
        if chosen.len() == 2
            || chosen
                .iter()
                .any(|c| path.starts_with(c) || c.starts_with(path))
        {
            continue;
        }
        chosen.push(path);
        let p = jq_path(path);
        match value {
            Value::Object(o) => out.extend(jq.keys(&p, o)),
            Value::Array(items) => {
                out.extend(jq.items(&p, path, items));
                out.extend(jq.names(&p, items));
            }
            _ => {}
        }
    }
    if out.is_empty()
        && let Value::Object(o) = v
    {
        // no arrays: the top-level keys with the size of each value
        let purpose = Purpose::JqTopKeys {
            rerun: jq.rerun,
            keys: o.len(),
        };
        out.extend(jq.offer(
            "to_entries | map({key, chars: (.value | tojson | length)})",
            purpose,
        ));
    }
    if !out.is_empty() {
        r.suggestions = out;
        r.notes.push(Note::JsonDocument);
    }
}

/// A key after `.` in a jq path: `.name`, or `."odd key"`.
fn jq_key(k: &str) -> String {
    if is_ident(k) {
        k.to_string()
    } else {
        quote::json_string(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commands_json_is_reached_by_jq_paths_with_exact_sizes() {
        // real `cargo metadata` output, printed by the command on one line
        let text = crate::test_fixture("generic/cargo_metadata.json");
        let v: Value = serde_json::from_str(text).expect("JSON");
        let args = serde_json::json!({"command": "cargo metadata --format-version 1"});
        let (m, budget) = crate::hints::head_cut("shell", text, 1, &args, None, None, |ctx| {
            let ctx = Context {
                json: Some(&v),
                ..*ctx
            };
            let mut m = RecoveryModel::default();
            for_shell(&ctx, &mut m);
            (m, ctx.shell_budget())
        });
        assert_eq!(m.notes, [Note::JsonDocument]);
        // the packages from the first, as many as print within the budget
        // (`[`, the items and their commas, `]` and the newline)
        let Some(Value::Array(packages)) = v.get("packages") else {
            panic!("no packages");
        };
        let mut chars = 3;
        let mut k = 0;
        for p in packages {
            let c = p.to_string().chars().count() + usize::from(k > 0);
            if chars + c > budget {
                break;
            }
            chars += c;
            k += 1;
        }
        assert!(k > 0 && k < packages.len());
        let items = m
            .suggestions
            .iter()
            .find(|s| s.purpose.contains("of the") && s.purpose.contains(" in .packages"))
            .expect("the next packages");
        assert_eq!(
            items.purpose,
            String::from(Purpose::JqItems {
                rerun: true,
                path: ".packages".into(),
                from: 0,
                to: k,
                len: packages.len(),
                chars: Some(chars),
            })
        );
        assert_eq!(
            items.args["command"],
            format!("cargo metadata --format-version 1 2>&1 | jq -c '.packages[0:{k}]'")
        );
    }

    #[test]
    fn paths_and_slices_are_jq_syntax() {
        assert_eq!(jq_path(&[]), ".");
        assert_eq!(
            jq_path(&[Step::Key("data".into()), Step::Key("odd key".into())]),
            ".data[\"odd key\"]"
        );
        assert_eq!(jq_path(&[Step::Key("a b".into())]), ".[\"a b\"]");
        assert_eq!(slice(".", 3, 9), ".[3:9]");
        assert_eq!(slice(".items", 20, 37), ".items[20:37]");
        assert_eq!(jq_key("a-b"), "\"a-b\"");
    }

    #[test]
    fn floats_and_big_integers_are_not_counted_as_jq_prints_them() {
        assert_eq!(jq_chars(&serde_json::json!([1, "a"])), Some(8));
        assert_eq!(jq_chars(&serde_json::json!([1.0])), None);
        assert_eq!(jq_chars(&serde_json::json!([9007199254740993u64])), None);
    }
}
