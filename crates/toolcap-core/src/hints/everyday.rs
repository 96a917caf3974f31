//! Everyday command output: the parts of a diff, grep results or a listing.
//!
//! **What it does.** When a shell command's output is a diff or log (`git log
//! -p`, `git show`, `git diff`, `diff -u`), grep results (`grep -rn`, `rg`,
//! `grep -c`, `grep -l`) or a listing (`find`, `ls -R`, `tree`), states what
//! it holds with exact numbers — commits with their short hash, subject and
//! lines; files with the lines added and removed; matches per file; entries
//! per directory — and suggests reading one commit, one file's hunks, one
//! file's matches or one directory's entries from the stored output by their
//! lines (nothing runs again).
//!
//! **Why.** Such output is content: its head is usually the answer and its
//! parts are what a model asks for next. Ranked by the error words inside it,
//! a `git log -p` showed diff lines that mention `error` and none of its
//! commits.
//!
//! **Example.** `toolcap continue ID --start-line 71 --end-line 140  # commit 9c87692 ...`

use super::{Context, Fact, Intent, Pattern, Purpose, RecoveryModel, Source, Structure};
use crate::cut::everyday::{DiffView, GrepMode, GrepView, LevelsView, ListingView, View};
use crate::text::{ellipsize, plural, thousands};

/// Structure lines listed at most (the rest are counted).
const MAX_LINES: usize = 12;

/// Add the everyday output's facts, structure and suggestions to `r` (the
/// shell family's recovery section).
pub fn add(ctx: &Context<'_>, r: &mut RecoveryModel) {
    let Some(e) = ctx.everyday else { return };
    let Some(view) = &e.view else { return };
    let (fact, structure, reads) = match view {
        View::Diff(d) => diff(ctx, d),
        View::Grep(g) => grep(ctx, g),
        View::Listing(l) => listing(ctx, l),
        View::Levels(l) => levels(l),
    };
    // after the command's line, before the others
    r.facts.insert(r.facts.len().min(1), Fact::Text(fact));
    if structure.as_ref().is_some_and(|s| !s.lines.is_empty()) {
        r.structure = structure.map(Into::into);
    }
    if !ctx.stored() {
        // reading a part by its lines would run the command again
        return;
    }
    // every part's first line, when the structure lists only some of them
    if let View::Diff(d) = view {
        // (the rows naming a part, not the `... N more` lines between them)
        let listed = r.structure.as_ref().map_or(0, |s| {
            s.lines
                .iter()
                .filter(
                    |l| !matches!(l, crate::render::facts::Entry::Text(t) if t.starts_with("...")),
                )
                .count()
        });
        let headers = d.commits.iter().any(|c| c.start != c.end);
        let search = if headers && d.commits_total > 1 && d.commits_total > listed {
            Some((
                r"^commit [0-9a-f]{7,64}( |$)",
                Purpose::EveryHeaderLine {
                    commits: true,
                    lines: d.commits_total,
                },
            ))
        } else if d.files_total > listed && d.diff_lines == d.files_total && d.commits_total <= 1 {
            Some((
                r"^diff ",
                Purpose::EveryHeaderLine {
                    commits: false,
                    lines: d.files_total,
                },
            ))
        } else {
            None
        };
        if let Some((regex, purpose)) = search {
            let pattern = Pattern {
                regex: regex.to_string(),
                shell: Some(format!("grep -n -E '{regex}'")),
            };
            r.suggestions
                .extend(ctx.offer(Source::Nowhere, Intent::Search(pattern), purpose));
        }
    }
    let room = ctx.lines_room(Source::Nowhere);
    // a grep's part is read first (the file the matches point to), before
    // the next lines; a diff's or a listing's after them
    let mut k = match view {
        View::Grep(_) => 0,
        _ => r.suggestions.len().min(1),
    };
    for (a, b, what) in reads {
        // as many of its lines as come back whole
        let Some((end, chars)) = e.lines_within(a, b, room) else {
            continue;
        };
        let purpose = Purpose::Part {
            what,
            start: a,
            end,
            part_end: b,
            chars,
        };
        if let Some(s) = ctx.offer(Source::Nowhere, Intent::Lines { start: a, end }, purpose) {
            r.suggestions.insert(k, s);
            k += 1;
        }
    }
}

/// A part not wholly shown: some of lines `a..=b` (1-based) are left out.
fn hidden(ctx: &Context<'_>, a: usize, b: usize) -> bool {
    (a..=b).any(|n| !ctx.line_shown(n - 1))
}

/// The last line the shell hints' first suggestion reads (the lines right
/// after the first omitted part begins, as many as come back whole): a part
/// that starts no later is read by it (0 when there is none).
fn next_read_end(ctx: &Context<'_>) -> usize {
    let Some((a, b)) = ctx.gaps().find_map(|g| g.lines) else {
        return 0;
    };
    let room = ctx.lines_room(Source::Nowhere);
    match ctx.tally {
        Some(t) => t.lines_within(a, b, room).map_or(0, |(end, _)| end),
        None => b.min(a + 199),
    }
}

/// `(lines 5-40)`, or `(line 5)`.
fn span(a: usize, b: usize) -> String {
    if a == b {
        format!("line {a}")
    } else {
        format!("lines {a}-{b}")
    }
}

fn cap(mut lines: Vec<String>, total: usize, what: &str) -> Vec<String> {
    if total > lines.len() {
        lines.truncate(MAX_LINES - 1);
        lines.push(format!(
            "... and {} more {what}",
            thousands(total - lines.len())
        ));
    }
    lines
}

/// Chars a spread list of parts ([`spread`]) takes at most.
const SPREAD_CHARS: usize = 900;

/// One row for each of `parts` (of `total`) when they fit in
/// [`SPREAD_CHARS`]; else as many rows as fit, spread over them — the first,
/// the middle and the last held — each gap said by a `... N more` row, so a
/// long list is reached to its end in one look.
fn spread<T>(
    parts: &[T],
    total: usize,
    what: (&str, &str),
    row: impl Fn(&T) -> String,
) -> Vec<String> {
    if parts.is_empty() {
        return Vec::new();
    }
    let more = |n: usize| plural(n, &format!("more {}", what.0), &format!("more {}", what.1));
    // the rows' mean size, from the first few
    let sample: Vec<usize> = parts.iter().take(16).map(|p| row(p).len() + 3).collect();
    let mean = sample.iter().sum::<usize>() / sample.len();
    if parts.len() == total && mean * total <= SPREAD_CHARS {
        return parts.iter().map(row).collect();
    }
    // k rows and k - 1 gap lines (about 20 chars each) within the budget
    let k = (SPREAD_CHARS / (mean + 20)).clamp(3, parts.len());
    if parts.len() == total && parts.len() < 2 * k {
        // the gaps would take as many lines as the rows they leave out
        return parts.iter().map(row).collect();
    }
    let last = parts.len() - 1;
    let picks: Vec<usize> = (0..k)
        .map(|i| if k == 1 { 0 } else { i * last / (k - 1) })
        .collect();
    let mut lines = Vec::new();
    let mut prev: Option<usize> = None;
    for &p in &picks {
        if prev == Some(p) {
            continue;
        }
        let skipped = p - prev.map_or(0, |q| q + 1);
        if skipped > 0 {
            lines.push(format!("... {}", more(skipped)));
        }
        lines.push(row(&parts[p]));
        prev = Some(p);
    }
    let after = total - (last + 1);
    if after > 0 {
        lines.push(format!("... and {}", more(after)));
    }
    lines
}

/// At most this many chars of names follow a `... and N more` line.
const NAMED_REST: usize = 200;

/// `... and N more files: dir/ a.py 3, b.py 1; other/ c.py 2, …`: the parts
/// not listed, named under their directories (each directory's together,
/// in the order they first come) as far as [`NAMED_REST`] chars go.
pub(super) fn named_rest<'a>(more: String, rest: impl Iterator<Item = (&'a str, usize)>) -> String {
    let mut out = more;
    out.push(':');
    let start = out.len();
    // each directory's files together, directories in the order they come
    let mut split: Vec<(usize, &str, &str, usize)> = Vec::new();
    let mut first: Vec<&str> = Vec::new();
    for (path, n) in rest {
        let (dir, name) = match path.rfind(['/', '\\']) {
            Some(i) => (&path[..=i], &path[i + 1..]),
            None => ("", path),
        };
        let k = first.iter().position(|d| *d == dir).unwrap_or_else(|| {
            first.push(dir);
            first.len() - 1
        });
        split.push((k, dir, name, n));
    }
    split.sort_by_key(|&(k, ..)| k);
    let mut dir_now: Option<&str> = None;
    for (_, dir, name, n) in split {
        let mut piece = String::new();
        if dir_now != Some(dir) {
            if dir_now.is_some() {
                piece.push(';');
            }
            piece.push(' ');
            piece.push_str(dir);
            if !dir.is_empty() {
                piece.push(' ');
            }
        } else {
            piece.push_str(", ");
        }
        piece.push_str(name);
        if n > 0 {
            piece.push_str(&format!(" {}", thousands(n)));
        }
        if out.len() - start + piece.len() > NAMED_REST {
            out.push_str(", …");
            break;
        }
        out.push_str(&piece);
        dir_now = Some(dir);
    }
    out
}

type Parts = (String, Option<Structure>, Vec<(usize, usize, String)>);

fn short(h: &str) -> &str {
    h.get(..7).unwrap_or(h)
}

fn diff(ctx: &Context<'_>, d: &DiffView) -> Parts {
    let next = next_read_end(ctx);
    // a log without patches (`git log`, `git log --stat`) is a list of
    // commits, not a diff
    let mut fact = String::from(if d.files_total == 0 && d.commits_total > 0 {
        "Log: "
    } else {
        "Diff: "
    });
    if d.commits_total > 0 {
        fact.push_str(&plural(d.commits_total, "commit", "commits"));
        fact.push_str(", ");
    }
    if d.files_total > 0 || d.commits_total == 0 {
        fact.push_str(&format!(
            "{} changed, +{} −{}",
            plural(d.files_total, "file", "files"),
            thousands(d.added),
            thousands(d.removed)
        ));
    } else {
        fact.truncate(fact.len() - 2);
    }
    let mut reads = Vec::new();
    // a log of one line a commit is its own listing
    if d.commits.iter().all(|c| c.start == c.end) && d.files_total == 0 {
        let fact = format!(
            "Log: {}, one a line",
            plural(d.commits_total, "commit", "commits")
        );
        return (fact, None, reads);
    }
    let structure = if d.commits_total > 1 {
        // the commits the view shows whole are not listed again
        let whole = d
            .commits
            .iter()
            .take_while(|c| !hidden(ctx, c.start, c.end))
            .count();
        let row = |c: &crate::cut::everyday::Commit| {
            let mut l = format!(
                "{} {} ({}",
                short(&c.hash),
                ellipsize(&c.subject, 50),
                span(c.start, c.end)
            );
            if c.files > 0 {
                l.push_str(&format!(
                    ", +{} −{}",
                    thousands(c.added),
                    thousands(c.removed)
                ));
            }
            l.push(')');
            l
        };
        let rest = d.commits.get(whole..).unwrap_or_default();
        let lines = spread(rest, d.commits_total - whole, ("commit", "commits"), row);
        // the first commit not shown at all (one begun in the view is read
        // on by the next lines)
        if let Some(c) = d
            .commits
            .iter()
            .find(|c| !ctx.line_shown(c.start - 1) && c.start > next)
        {
            reads.push((
                c.start,
                c.end,
                format!("commit {} {:?}", short(&c.hash), ellipsize(&c.subject, 50)),
            ));
        }
        Some(Structure {
            title: if whole > 0 {
                format!("Commits after the {} shown above", thousands(whole))
            } else {
                "Commits".to_string()
            },
            lines,
        })
    } else {
        let lines: Vec<String> = d
            .files
            .iter()
            .take(MAX_LINES)
            .map(|f| {
                format!(
                    "{} +{} −{} ({})",
                    f.path,
                    thousands(f.added),
                    thousands(f.removed),
                    span(f.start, f.end)
                )
            })
            .collect();
        let title = match d.commits.first() {
            Some(c) => format!(
                "Files of commit {} {}",
                short(&c.hash),
                ellipsize(&c.subject, 60)
            ),
            None => "Files".to_string(),
        };
        Some(Structure {
            title,
            lines: cap(lines, d.files_total, "files"),
        })
    };
    // the largest file diff left out: its hunks
    if let Some(f) = d
        .files
        .iter()
        .filter(|f| hidden(ctx, f.start, f.end))
        .max_by_key(|f| (f.end - f.start, std::cmp::Reverse(f.start)))
    {
        let of = f
            .commit
            .and_then(|i| d.commits.get(i))
            .filter(|_| d.commits_total > 1)
            .map_or(String::new(), |c| format!(" in commit {}", short(&c.hash)));
        reads.push((
            f.start,
            f.end,
            format!(
                "the diff of {}{of}: {}, +{} −{}",
                f.path,
                plural(f.hunks, "hunk", "hunks"),
                thousands(f.added),
                thousands(f.removed)
            ),
        ));
    }
    (fact, structure, reads)
}

fn grep(ctx: &Context<'_>, g: &GrepView) -> Parts {
    let mut fact = match g.mode {
        GrepMode::Count => {
            let mut f = format!(
                "Counts: {} in {}",
                plural(g.matches, "matching line", "matching lines"),
                plural(g.files_matching, "file", "files")
            );
            if g.files_total > g.files_matching {
                f.push_str(&format!(
                    " ({} searched, {} with none)",
                    plural(g.files_total, "file", "files"),
                    thousands(g.files_total - g.files_matching)
                ));
            }
            f
        }
        _ if g.files_total == 0 => format!("Matches: {}", thousands(g.matches)),
        _ => format!(
            "Matches: {} in {}",
            thousands(g.matches),
            plural(g.files_total, "file", "files")
        ),
    };
    if g.context > 0 {
        fact.push_str(&format!(
            ", {}",
            plural(g.context, "context line", "context lines")
        ));
    }
    if g.binary > 0 {
        fact.push_str(&format!(
            ", {}",
            plural(g.binary, "binary file", "binary files")
        ));
    }
    if g.messages > 0 {
        fact.push_str(&format!(
            ", {}",
            plural(g.messages, "message from grep", "messages from grep")
        ));
    }
    // the most likely wanted first: outside generated trees, most matches
    let files = g.wanted();
    let unit = |n: usize| match g.mode {
        GrepMode::Count => plural(n, "matching line", "matching lines"),
        _ => plural(n, "match", "matches"),
    };
    let lines: Vec<String> = files
        .iter()
        .take(MAX_LINES)
        .map(|f| {
            let where_ = if f.contiguous {
                span(f.start, f.end)
            } else {
                format!("first at line {}, last at line {}", f.start, f.end)
            };
            format!("{} {} ({where_})", f.path, unit(f.matches))
        })
        .collect();
    let mut reads = Vec::new();
    // the matches of the most wanted file the view does not show whole, from
    // its first one left out (the first suggestion: see `add`)
    if g.mode != GrepMode::Count
        && let Some((f, a)) = files.iter().filter(|f| f.contiguous).find_map(|f| {
            (f.start..=f.end)
                .find(|&n| !ctx.line_shown(n - 1))
                .map(|a| (f, a))
        })
    {
        let what = if a == f.start {
            format!("the {} in {}", unit(f.matches), f.path)
        } else {
            format!("the rest of the {} in {}", unit(f.matches), f.path)
        };
        reads.push((a, f.end, what));
    }
    let mut lines = cap(lines, files.len(), "files");
    if files.len() > MAX_LINES {
        // the files not listed, named by directory within a line
        if let (Some(last), Some(rest)) = (lines.pop(), files.get(MAX_LINES - 1..)) {
            lines.push(named_rest(
                last,
                rest.iter().map(|f| (f.path.as_str(), f.matches)),
            ));
        }
    }
    let structure = (!lines.is_empty()).then(|| Structure {
        title: "By file, most likely wanted first (outside generated trees, most matches)"
            .to_string(),
        lines,
    });
    (fact, structure, reads)
}

fn listing(ctx: &Context<'_>, l: &ListingView) -> Parts {
    let next = next_read_end(ctx);
    let mut fact = format!("Listing: {}", plural(l.entries, "entry", "entries"));
    if l.groups_total > 0 {
        fact.push_str(&format!(
            " in {}",
            plural(l.groups_total, "directory", "directories")
        ));
    }
    if let Some(root) = &l.root {
        fact.push_str(&format!(" under {root}"));
    }
    if l.top_entries > 0 && l.groups_total > 0 {
        fact.push_str(&format!(" ({} directly there)", thousands(l.top_entries)));
    }
    if let Some(s) = &l.summary {
        fact.push_str(&format!("; {s}"));
    }
    let mut groups: Vec<&crate::cut::everyday::Group> = l.groups.iter().collect();
    groups.sort_by_key(|g| (std::cmp::Reverse(g.entries), g.start));
    let lines: Vec<String> = groups
        .iter()
        .take(MAX_LINES)
        .map(|g| {
            let where_ = if g.contiguous {
                span(g.start, g.end)
            } else {
                format!("first at line {}, last at line {}", g.start, g.end)
            };
            format!(
                "{} {} ({where_})",
                g.path,
                plural(g.entries, "entry", "entries")
            )
        })
        .collect();
    let mut reads = Vec::new();
    if let Some(g) = groups
        .iter()
        .find(|g| g.contiguous && g.start > next && hidden(ctx, g.start, g.end))
    {
        reads.push((
            g.start,
            g.end,
            format!(
                "the {} of {}",
                plural(g.entries, "entry", "entries"),
                g.path
            ),
        ));
    }
    // a tree (`tree`, `cargo tree`, `npm ls`): its top-level entries not
    // shown, in its order, reaching the last
    let hidden_top: Vec<&crate::cut::everyday::Group> = l
        .groups
        .iter()
        .filter(|g| hidden(ctx, g.start, g.end))
        .collect();
    if l.mode == crate::cut::everyday::ListingMode::Tree && !hidden_top.is_empty() {
        let structure = Some(Structure {
            title: format!(
                "Top-level entries not shown ({} of {}; in brackets the entries under each), in order",
                thousands(hidden_top.len()),
                thousands(l.groups_total)
            ),
            lines: named_entries(&hidden_top),
        });
        return (fact, structure, reads);
    }
    // the files themselves, by directory, where the whole listing is at hand
    let structure = match named_dirs(ctx, l) {
        Some((named, total)) if total > 0 => Some(Structure {
            title: format!(
                "Entries not shown, by directory (entries in it; {} with some, generated trees last)",
                thousands(total)
            ),
            lines: named,
        }),
        _ => (!lines.is_empty()).then(|| Structure {
            title: "Directories, most entries first".to_string(),
            lines: cap(lines, groups.len(), "directories"),
        }),
    };
    (fact, structure, reads)
}

/// A tree's top-level entries by name (`serde v1.0 [3], memchr v2.8`), lines
/// of about [`NAMED_DIR_LINE`] chars, as many as [`NAMED_DIRS`] chars hold;
/// then how many are left and the last one with its lines.
fn named_entries(entries: &[&crate::cut::everyday::Group]) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    let mut named = 0;
    for g in entries {
        let mut piece = g.path.clone();
        if g.entries > 0 {
            piece.push_str(&format!(" [{}]", thousands(g.entries)));
        }
        if used + line.len() + piece.len() + 2 > NAMED_DIRS {
            break;
        }
        if !line.is_empty() && line.len() + piece.len() + 2 > NAMED_DIR_LINE {
            used += line.len() + 3;
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push_str(", ");
        }
        line.push_str(&piece);
        named += 1;
    }
    if !line.is_empty() {
        out.push(line);
    }
    if let Some(last) = entries.last().filter(|_| named < entries.len()) {
        out.push(format!(
            "... and {}, the last {} ({})",
            plural(entries.len() - named, "more", "more"),
            last.path,
            span(last.start, last.end)
        ));
    }
    out
}

/// Chars the directory summary of a listing takes at most.
const NAMED_DIRS: usize = 900;
/// Chars one directory's line takes at most.
const NAMED_DIR_LINE: usize = 240;

/// A listing's directories with the names of their entries the view does not
/// show (`dir (N): a.py, b.py, …`), directories outside generated trees first,
/// in the listing's order, as many as [`NAMED_DIRS`] chars hold; and how many
/// directories have such entries. `None` for a tree.
fn named_dirs(ctx: &Context<'_>, l: &ListingView) -> Option<(Vec<String>, usize)> {
    use crate::cut::everyday::generated_path;
    if l.leaves.is_empty() {
        return None;
    }
    let mut order: Vec<(&crate::cut::everyday::Leaf, Vec<&str>)> = l
        .leaves
        .iter()
        .map(|d| {
            let names: Vec<&str> = d
                .names
                .iter()
                .filter(|(n, _)| !ctx.line_shown(n - 1))
                .map(|(_, name)| name.as_str())
                .collect();
            (d, names)
        })
        .filter(|(_, names)| !names.is_empty())
        .collect();
    let total = order.len();
    // stable: the listing's order within each
    order.sort_by_key(|(d, _)| generated_path(&d.path));
    // a line each; fewer directories, longer lines
    let per_line = NAMED_DIR_LINE.max(NAMED_DIRS / total.max(1));
    let mut out = Vec::new();
    let mut used = 0;
    for (d, names) in order {
        let mut line = format!("{} ({}):", d.path, thousands(d.entries));
        let mut listed = 0;
        for (j, n) in names.iter().enumerate() {
            let sep = if j == 0 { " " } else { ", " };
            if line.len() + sep.len() + n.len() > per_line {
                break;
            }
            line.push_str(sep);
            line.push_str(n);
            listed += 1;
        }
        if listed < names.len() || d.names.len() < d.entries {
            line.push_str(", …");
        }
        if used + line.len() > NAMED_DIRS {
            break;
        }
        used += line.len() + 3;
        out.push(line);
    }
    if out.len() < total {
        out.push(format!(
            "... and {} more directories",
            thousands(total - out.len())
        ));
    }
    Some((out, total))
}

fn levels(l: &LevelsView) -> Parts {
    let each: Vec<String> = l
        .levels
        .iter()
        .map(|v| {
            if v.lines == 1 {
                format!("{} 1 (line {})", v.name, v.first)
            } else {
                format!(
                    "{} {} (first at line {}, last at line {})",
                    v.name,
                    thousands(v.lines),
                    v.first,
                    v.last
                )
            }
        })
        .collect();
    (format!("Log levels: {}", each.join(", ")), None, Vec::new())
}
