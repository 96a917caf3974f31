//! Editing a JSON (or JSONC: `//` and `/* */` comments, as Gemini CLI and
//! Claude Code read their settings; trailing commas where the agent allows
//! them) file in place: only the values that changed are rewritten, at any
//! depth — an entry added to `hooks.PreToolUse` is inserted after the user's
//! last one, an entry taken out goes with its comma — so the user's layout, key
//! order, comments and one-line style elsewhere, inside `hooks` and `env`
//! included, stay byte for byte, and an uninstall is the install's inverse.

use serde_json::{Map, Value};

/// The text with comments blanked out (same byte offsets: every comment byte
/// becomes a space, newlines kept), and with `trailing_commas`, a comma before a
/// closing `}` or `]` blanked too: for finding spans and for parsing.
pub fn plain(text: &str, trailing_commas: bool) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let mut in_string = false;
    // the last comma outside strings not yet followed by a value
    let mut comma: Option<usize> = None;
    while i < b.len() {
        let c = b[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (c, b.get(i + 1)) {
            (b'/', Some(b'/')) => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            (b'/', Some(b'*')) => {
                let start = i;
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                let end = (i + 2).min(b.len());
                for x in &mut out[start..end] {
                    if *x != b'\n' {
                        *x = b' ';
                    }
                }
                i = end;
                continue;
            }
            (b',', _) => comma = Some(i),
            (b'}' | b']', _) => {
                if trailing_commas && let Some(at) = comma {
                    out[at] = b' ';
                }
                comma = None;
            }
            (c, _) if c.is_ascii_whitespace() => {}
            (b'"', _) => {
                in_string = true;
                comma = None;
            }
            _ => comma = None,
        }
        i += 1;
    }
    // only ASCII bytes outside strings were replaced by spaces: still UTF-8
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// A value's byte span in the text, and what it holds.
#[derive(Debug)]
struct Span {
    start: usize,
    end: usize,
    node: Node,
}

#[derive(Debug)]
enum Node {
    Scalar,
    /// Members (key start, key, value) and the offsets of `{` and `}`.
    Object(Vec<(usize, String, Span)>, usize, usize),
    /// Elements and the offsets of `[` and `]`.
    Array(Vec<Span>, usize, usize),
}

struct Parser<'a> {
    b: &'a [u8],
    s: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn string_end(&self, from: usize) -> Option<usize> {
        let mut i = from + 1;
        while i < self.b.len() {
            match self.b[i] {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                _ => i += 1,
            }
        }
        None
    }

    fn value(&mut self, depth: usize) -> Option<Span> {
        if depth > 200 {
            return None;
        }
        self.ws();
        let start = self.i;
        match *self.b.get(start)? {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                loop {
                    self.ws();
                    match *self.b.get(self.i)? {
                        b'}' => break,
                        b',' if !members.is_empty() => self.i += 1,
                        b'"' => {
                            let key_start = self.i;
                            let key_end = self.string_end(key_start)?;
                            let key: String =
                                serde_json::from_str(&self.s[key_start..key_end]).ok()?;
                            self.i = key_end;
                            self.ws();
                            if self.b.get(self.i) != Some(&b':') {
                                return None;
                            }
                            self.i += 1;
                            let v = self.value(depth + 1)?;
                            members.push((key_start, key, v));
                        }
                        _ => return None,
                    }
                }
                let close = self.i;
                self.i += 1;
                Some(Span {
                    start,
                    end: self.i,
                    node: Node::Object(members, start, close),
                })
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    match *self.b.get(self.i)? {
                        b']' => break,
                        b',' if !items.is_empty() => self.i += 1,
                        _ => items.push(self.value(depth + 1)?),
                    }
                }
                let close = self.i;
                self.i += 1;
                Some(Span {
                    start,
                    end: self.i,
                    node: Node::Array(items, start, close),
                })
            }
            b'"' => {
                self.i = self.string_end(start)?;
                Some(Span {
                    start,
                    end: self.i,
                    node: Node::Scalar,
                })
            }
            _ => {
                while self.i < self.b.len()
                    && !matches!(self.b[self.i], b',' | b'}' | b']' | b':' | b'"')
                    && !self.b[self.i].is_ascii_whitespace()
                {
                    self.i += 1;
                }
                (self.i > start).then_some(Span {
                    start,
                    end: self.i,
                    node: Node::Scalar,
                })
            }
        }
    }
}

/// What the edit works with: the text, its blanked form, the file's indent
/// unit and separators.
struct Ctx<'a> {
    text: &'a str,
    plain: &'a str,
    unit: String,
    one_line: bool,
    compact: bool,
}

type Edits = Vec<(usize, usize, String)>;

impl Ctx<'_> {
    /// The leading whitespace of the line `at` is on when `at` starts that
    /// line's text, else as many spaces as its column.
    fn pad(&self, at: usize) -> String {
        let line = self.text[..at].rfind('\n').map_or(0, |n| n + 1);
        let lead = &self.text[line..at];
        if lead.chars().all(|c| c == ' ' || c == '\t') {
            lead.to_string()
        } else {
            " ".repeat(lead.chars().count())
        }
    }

    fn has_comment(&self, start: usize, end: usize) -> bool {
        self.plain[start..end] != self.text[start..end]
    }

    /// `value` as JSON for a place whose line starts with `pad`: pretty in the
    /// file's indent unit, continuation lines padded, or compact when `inline`.
    fn render(&self, value: &Value, pad: &str, inline: bool) -> Option<String> {
        if inline || self.one_line {
            let s = serde_json::to_string(value).ok()?;
            if self.compact {
                return Some(s);
            }
            // serde's compact form, with the file's `": "` and `", "`
            let v: Value = serde_json::from_str(&s).ok()?;
            return Some(spaced(&v));
        }
        let mut buf = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(self.unit.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
        serde::Serialize::serialize(value, &mut ser).ok()?;
        let pretty = String::from_utf8(buf).ok()?;
        Some(pretty.replace('\n', &format!("\n{pad}")))
    }

    /// The edits that turn the value at `span` (meaning `old`) into `new`.
    fn edit(
        &self,
        span: &Span,
        old: &Value,
        new: &Value,
        pad: &str,
        inline: bool,
        out: &mut Edits,
    ) -> Option<()> {
        if old == new {
            return Some(());
        }
        match (&span.node, old, new) {
            (Node::Object(ms, open, close), Value::Object(o), Value::Object(n))
                if !ms.is_empty() =>
            {
                self.object(ms, *open, *close, o, n, out)
            }
            (Node::Array(items, open, close), Value::Array(o), Value::Array(n))
                if !items.is_empty() =>
            {
                self.array(items, *open, *close, o, n, pad, out)
            }
            _ => {
                if self.has_comment(span.start, span.end) {
                    return None;
                }
                out.push((span.start, span.end, self.render(new, pad, inline)?));
                Some(())
            }
        }
    }

    fn object(
        &self,
        ms: &[(usize, String, Span)],
        open: usize,
        close: usize,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        out: &mut Edits,
    ) -> Option<()> {
        // a key twice: which one the agent reads is its parser's business
        for (i, (_, k, _)) in ms.iter().enumerate() {
            if ms[..i].iter().any(|(_, j, _)| j == k) {
                return None;
            }
        }
        let multi = self.text[open..close].contains('\n');
        for (key_start, k, v) in ms {
            if let (Some(a), Some(b)) = (o.get(k), n.get(k)) {
                self.edit(v, a, b, &self.pad(*key_start), !multi, out)?;
            }
        }
        let items: Vec<(usize, usize)> = ms.iter().map(|(s, _, v)| (*s, v.end)).collect();
        let stays: Vec<bool> = ms.iter().map(|(_, k, _)| n.contains_key(k)).collect();
        let pad = self.pad(ms[0].0);
        let (colon, comma) = self.separators(multi);
        let mut added = Vec::new();
        for (k, v) in n {
            if !ms.iter().any(|(_, f, _)| f == k) {
                let key = serde_json::to_string(k).ok()?;
                added.push(format!("{key}{colon}{}", self.render(v, &pad, !multi)?));
            }
        }
        let last_kept = stays.iter().rposition(|s| *s);
        self.list(
            open, &items, &stays, last_kept, added, multi, &pad, comma, out,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn array(
        &self,
        items: &[Span],
        open: usize,
        close: usize,
        o: &[Value],
        n: &[Value],
        pad_outer: &str,
        out: &mut Edits,
    ) -> Option<()> {
        if items.len() != o.len() {
            return None;
        }
        let multi = self.text[open..close].contains('\n');
        let pad = if multi {
            self.pad(items[0].start)
        } else {
            pad_outer.to_string()
        };
        let pairs = lcs(o, n);
        if pairs.is_empty() && o.len() != n.len() && !n.is_empty() {
            // nothing in common: the whole list anew
            if self.has_comment(open, close) {
                return None;
            }
            out.push((
                open,
                close + 1,
                self.render(&Value::Array(n.to_vec()), pad_outer, !multi)?,
            ));
            return Some(());
        }
        let mut stays = vec![false; o.len()];
        let mut appended: Vec<usize> = Vec::new();
        // gaps between anchors: equal sizes are pairs edited in place, else
        // the old go and the new come after the last item kept before them
        let mut bounds = pairs;
        bounds.push((o.len(), n.len()));
        let (mut oi, mut nj) = (0, 0);
        let mut after_last: Option<usize> = None;
        let mut inserts: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
        for (ao, an) in bounds {
            let (og, ng) = (ao - oi, an - nj);
            if og == ng {
                for d in 0..og {
                    self.edit(&items[oi + d], &o[oi + d], &n[nj + d], &pad, !multi, out)?;
                    stays[oi + d] = true;
                    after_last = Some(oi + d);
                }
            } else if ng > 0 {
                inserts.push((after_last, (nj..an).collect()));
            }
            if ao < o.len() {
                stays[ao] = true;
                after_last = Some(ao);
            }
            oi = ao + 1;
            nj = an + 1;
        }
        let (_, comma) = self.separators(multi);
        // the ones after the last kept item are put there by `list`; others here
        for (after, news) in inserts {
            let text: Vec<String> = news
                .iter()
                .map(|j| self.render(&n[*j], &pad, !multi))
                .collect::<Option<_>>()?;
            let sep = if multi {
                format!(",\n{pad}")
            } else {
                comma.to_string()
            };
            match after {
                Some(k) if stays.iter().rposition(|s| *s) == Some(k) => {
                    appended.extend(news.iter().copied());
                }
                Some(k) => {
                    let s: String = text.iter().map(|t| format!("{sep}{t}")).collect();
                    out.push((items[k].end, items[k].end, s));
                }
                None => match stays.iter().position(|s| *s) {
                    Some(first) => {
                        let s: String = text.iter().map(|t| format!("{t}{sep}")).collect();
                        out.push((items[first].start, items[first].start, s));
                    }
                    None => appended.extend(news.iter().copied()),
                },
            }
        }
        let added: Vec<String> = appended
            .iter()
            .map(|j| self.render(&n[*j], &pad, !multi))
            .collect::<Option<_>>()?;
        let spans: Vec<(usize, usize)> = items.iter().map(|s| (s.start, s.end)).collect();
        let last_kept = stays.iter().rposition(|s| *s);
        self.list(
            open, &spans, &stays, last_kept, added, multi, &pad, comma, out,
        )
    }

    /// `": "` and `", "` (or `":"` and `","` in a compact file) for one-line
    /// containers.
    fn separators(&self, multi: bool) -> (&'static str, &'static str) {
        if multi || !self.compact {
            (": ", ", ")
        } else {
            (":", ",")
        }
    }

    /// Take out the items not staying (each run of neighbours with one comma:
    /// the one after it, or before it when it ends the list) and add `added`
    /// after the last item kept (else right after the opening bracket).
    #[allow(clippy::too_many_arguments)]
    fn list(
        &self,
        open: usize,
        items: &[(usize, usize)],
        stays: &[bool],
        last_kept: Option<usize>,
        added: Vec<String>,
        multi: bool,
        pad: &str,
        comma: &str,
        out: &mut Edits,
    ) -> Option<()> {
        let mut n = 0;
        while n < items.len() {
            if stays[n] {
                n += 1;
                continue;
            }
            let first = n;
            while n < items.len() && !stays[n] {
                n += 1;
            }
            let last = n - 1;
            match (items.get(n), first.checked_sub(1)) {
                (Some(next), _) => out.push((items[first].0, next.0, String::new())),
                (None, Some(before)) => out.push((items[before].1, items[last].1, String::new())),
                // every item goes: from the bracket to the last one's end
                (None, None) => out.push((open + 1, items[last].1, String::new())),
            }
        }
        if added.is_empty() {
            return Some(());
        }
        let mut insert = String::new();
        for (i, a) in added.iter().enumerate() {
            let first = i == 0 && last_kept.is_none();
            let sep = if first { "" } else { "," };
            if multi {
                insert.push_str(&format!("{sep}\n{pad}{a}"));
            } else {
                let sep = if first { "" } else { comma };
                insert.push_str(&format!("{sep}{a}"));
            }
        }
        let at = last_kept.map_or(open + 1, |k| items[k].1);
        out.push((at, at, insert));
        Some(())
    }
}

/// `v` on one line with `": "` and `", "`.
fn spaced(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let inner: Vec<String> = m
                .iter()
                .map(|(k, x)| format!("{}: {}", Value::String(k.clone()), spaced(x)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
        Value::Array(a) => {
            let inner: Vec<String> = a.iter().map(spaced).collect();
            format!("[{}]", inner.join(", "))
        }
        x => x.to_string(),
    }
}

/// The longest common subsequence of equal items, as index pairs in order.
fn lcs(a: &[Value], b: &[Value]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut t = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i][j] = if a[i] == b[j] {
                t[i + 1][j + 1] + 1
            } else {
                t[i + 1][j].max(t[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < n && j < m {
        if a[i] == b[j] {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if t[i + 1][j] >= t[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// `text` (its top-level object meaning `old`) edited to mean `new`, changing
/// only what changed; None when the file's shape is not one this editor reads
/// or a comment would be lost (the caller then writes the whole file, or
/// refuses).
pub fn splice(
    text: &str,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    trailing_commas: bool,
) -> Option<String> {
    let plain = plain(text, trailing_commas);
    let mut p = Parser {
        b: plain.as_bytes(),
        s: &plain,
        i: 0,
    };
    let root = p.value(0)?;
    p.ws();
    if p.i != plain.len() {
        return None;
    }
    let Node::Object(ms, open, close) = &root.node else {
        return None;
    };
    let one_line = !text.trim_end().contains('\n');
    let unit = ms
        .first()
        .map(|(k, _, _)| {
            let line = text[..*k].rfind('\n').map_or(0, |n| n + 1);
            text[line..*k].to_string()
        })
        .filter(|u| !u.is_empty() && u.chars().all(|c| c == ' ' || c == '\t'))
        .unwrap_or_else(|| "  ".to_string());
    let ctx = Ctx {
        text,
        plain: &plain,
        unit,
        one_line,
        compact: !plain.contains(": ") && !plain.contains(", "),
    };
    let mut edits = Edits::new();
    if ms.is_empty() {
        // `{}` or `{\n}`: the members after the brace
        if ctx.has_comment(open + 1, *close) {
            return None;
        }
        let body = ctx.render(&Value::Object(new.clone()), "", one_line)?;
        edits.push((*open, close + 1, body));
    } else {
        ctx.object(ms, *open, *close, old, new, &mut edits)?;
    }
    edits.sort_by_key(|e| std::cmp::Reverse((e.0, e.1)));
    let mut out = text.to_string();
    for (start, end, with) in edits {
        out.replace_range(start..end, &with);
    }
    // what it says must be what was asked, or the whole-file write is used
    let check: Value = serde_json::from_str(&self::plain(&out, trailing_commas)).ok()?;
    (check.as_object() == Some(new)).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(text: &str, f: impl Fn(&mut Map<String, Value>)) -> String {
        let old: Value = serde_json::from_str(&plain(text, true)).expect("JSON");
        let old = old.as_object().expect("object").clone();
        let mut new = old.clone();
        f(&mut new);
        splice(text, &old, &new, true).expect("spliced")
    }

    #[test]
    fn comments_and_layout_stay_around_the_changed_member() {
        let t = "{\n  // my auth\n  \"security\": {\"auth\": 1}, /* keep */\n  \"ui\": 2\n}\n";
        let added = edit(t, |m| {
            m.insert("hooks".into(), json!({"a": [1]}));
        });
        assert!(added.starts_with("{\n  // my auth\n  \"security\": {\"auth\": 1}, /* keep */\n  \"ui\": 2,\n  \"hooks\": {\n    \"a\": ["), "{added}");
        let back = edit(&added, |m| {
            m.remove("hooks");
        });
        assert_eq!(back, t);
    }

    #[test]
    fn one_line_files_stay_one_line_and_come_back_byte_for_byte() {
        let t = "{\"model\":\"opus\"}";
        let added = edit(t, |m| {
            m.insert("env".into(), json!({"A": "b"}));
        });
        assert_eq!(added, "{\"model\":\"opus\",\"env\":{\"A\":\"b\"}}");
        assert_eq!(
            edit(&added, |m| {
                m.remove("env");
            }),
            t
        );
    }

    #[test]
    fn a_changed_member_is_rewritten_in_place() {
        let t = "{\n    \"a\": [1,2],\n    \"b\": 1 // b\n}\n";
        let out = edit(t, |m| {
            m.insert("a".into(), json!([3]));
        });
        // a one-line list stays on one line
        assert_eq!(out, "{\n    \"a\": [3],\n    \"b\": 1 // b\n}\n");
    }

    #[test]
    fn empty_objects_take_members() {
        assert_eq!(
            edit("{}\n", |m| {
                m.insert("k".into(), json!(1));
            }),
            "{\"k\":1}\n"
        );
        assert_eq!(
            edit("{\n}\n", |m| {
                m.insert("k".into(), json!(1));
            }),
            "{\n  \"k\": 1\n}\n"
        );
    }

    /// Comments inside the members toolcap edits (a hook list, `env`) stay,
    /// and taking the entry out again gives the text back byte for byte.
    #[test]
    fn nested_edits_keep_comments_and_invert() {
        let t = "{\n\t\"hooks\": {\n\t\t// lint first\n\t\t\"PreToolUse\": [\n\t\t\t{\"matcher\": \"Write\", \"hooks\": []} // mine\n\t\t],\n\t},\n\t\"env\": {\"A\": \"1\", /* two */ \"B\": \"2\",},\n}";
        let added = edit(t, |m| {
            m["hooks"]["PreToolUse"]
                .as_array_mut()
                .expect("list")
                .push(json!({"matcher": "Bash"}));
            m["env"]["C"] = json!("3");
        });
        assert!(
            added.contains("// lint first")
                && added.contains("// mine")
                && added.contains("/* two */"),
            "{added}"
        );
        assert!(
            added.contains("\t\t\t{\"matcher\": \"Write\", \"hooks\": []},\n\t\t\t{\n"),
            "{added}"
        );
        let back = edit(&added, |m| {
            m["hooks"]["PreToolUse"].as_array_mut().expect("list").pop();
            m["env"].as_object_mut().expect("env").shift_remove("C");
        });
        assert_eq!(back, t);
    }

    #[test]
    fn trailing_commas_are_blanked_only_when_allowed() {
        assert!(serde_json::from_str::<Value>(&plain("{\"a\": [1,],}", true)).is_ok());
        assert!(serde_json::from_str::<Value>(&plain("{\"a\": [1,],}", false)).is_err());
        assert_eq!(plain("{\"a,\": \"]\"}", true), "{\"a,\": \"]\"}");
    }
}
