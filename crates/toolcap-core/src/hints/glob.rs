//! glob: a file listing was cut.
//!
//! **What it does.** Counts the files exactly, lists the directories and extensions
//! with the most files, and suggests narrower patterns built from them.
//!
//! **Why.** A listing of thousands of paths cut to its first screen tells the model
//! nothing about where the files are; counts per directory and extension do, and a
//! narrower pattern gets a listing that fits.
//!
//! **Example.** `glob_files(pattern="email/**/*.py", path="Lib")`

use super::{Context, Intent, Recovery, Source, Structure, top_counts};
use crate::text::{ellipsize, plural};

/// The directory part of a path (`a/b/c.py` → `a/b`; `c.py` → `.`).
fn dir_of(p: &str) -> &str {
    p.rsplit_once('/')
        .map_or(".", |(d, _)| if d.is_empty() { "/" } else { d })
}

/// The longest directory prefix shared by all paths (`Lib/` for `Lib/a/b.py`,
/// `Lib/c.py`), with its trailing slash; empty when there is none.
fn common_dir<'a>(paths: &[&'a str]) -> &'a str {
    let Some(first) = paths.first() else {
        return "";
    };
    let mut len = first.rfind('/').map_or(0, |i| i + 1);
    for p in &paths[1..] {
        while len > 0 && !(p.len() >= len && p.as_bytes()[..len] == first.as_bytes()[..len]) {
            len = first[..len - 1].rfind('/').map_or(0, |i| i + 1);
        }
    }
    &first[..len]
}

/// The directory one level below `prefix` that holds `p` (`Lib/test` for
/// `Lib/test/x/y.py` under `Lib/`), if `p` is not directly in `prefix`.
fn top_under<'a>(p: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = p.get(prefix.len()..)?;
    let (top, _) = rest.split_once('/')?;
    (!top.is_empty()).then(|| &p[..prefix.len() + top.len()])
}

/// The extension of the file name (`c.tar.gz` → `gz`), if it is a real one:
/// 1 to 10 ASCII letters and digits with at least one letter. Version numbers
/// (`libc.so.6`, `python3.11`) and names like `x86_64-linux-gnu` have none.
fn ext_of(p: &str) -> Option<&str> {
    let name = p.rsplit('/').next().unwrap_or(p);
    name.rsplit_once('.')
        .filter(|(stem, e)| {
            !stem.is_empty()
                && (1..=10).contains(&e.len())
                && e.bytes().all(|b| b.is_ascii_alphanumeric())
                && e.bytes().any(|b| b.is_ascii_alphabetic())
        })
        .map(|(_, e)| e)
}

/// The listed paths that hold other listed paths at any depth (`find` lists
/// a directory before what is in it; a filtered listing may skip the levels
/// between `node_modules/chart.js` and `node_modules/chart.js/dist/chart.js`):
/// they are directories, not files.
fn listed_dirs<'a>(paths: &[&'a str]) -> std::collections::HashSet<&'a str> {
    let all: std::collections::HashSet<&str> = paths
        .iter()
        .map(|p| p.trim_end_matches('/'))
        .filter(|p| !p.is_empty())
        .collect();
    let mut dirs = std::collections::HashSet::new();
    for p in paths {
        let p = p.trim_end_matches('/');
        // every ancestor of `p` (each prefix ending before a `/`)
        for (i, _) in p.match_indices('/') {
            if let Some(d) = all.get(&p[..i]) {
                dirs.insert(*d);
            }
        }
    }
    dirs
}

/// A directory as listed in the summary: relative to the common prefix (`.`
/// for the prefix itself), never shortened.
fn shown_dir<'a>(d: &'a str, prefix: &str) -> &'a str {
    let p = prefix.trim_end_matches('/');
    if d == p || (d == "/" && prefix == "/") {
        return ".";
    }
    match d.strip_prefix(prefix) {
        Some(rest) if !prefix.is_empty() && !rest.is_empty() => rest,
        _ => d,
    }
}

pub fn build(ctx: &Context<'_>) -> Recovery {
    let mut r = Recovery::default();
    let paths: Vec<(usize, &str)> = (0..ctx.idx.len())
        .map(|i| (i, ctx.idx.line(i).trim_end()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let shown = paths.iter().filter(|(i, _)| ctx.line_shown(*i)).count();
    let pattern = ctx.arg(|a| &a.pattern);
    let root = ctx.arg(|a| &a.path);
    let mut head = Vec::new();
    if let Some(p) = &pattern {
        head.push(format!("Pattern: {}", ellipsize(p, 120)));
    }
    if let Some(p) = &root {
        head.push(format!("Path: {}", ellipsize(p, 120)));
    }
    head.push(format!(
        "{shown} shown of {}",
        plural(paths.len(), "path", "paths")
    ));
    r.facts.push(head.join(" | "));
    r.facts.push(format!("Result: {}", ctx.size_fact()));
    let all: Vec<&str> = paths.iter().map(|(_, p)| *p).collect();
    // Directories listed along with their files (`find` output) are not files.
    let is_dir = listed_dirs(&all);
    let files: Vec<&str> = all
        .iter()
        .copied()
        .filter(|p| !is_dir.contains(p.trim_end_matches('/')) && !p.ends_with('/'))
        .collect();
    let names: &[&str] = if files.is_empty() { &all } else { &files };
    let (one, many) = if is_dir.is_empty() || files.is_empty() {
        ("path", "paths")
    } else {
        ("file", "files")
    };
    let prefix = common_dir(names);
    let tops = top_counts(names.iter().filter_map(|p| top_under(p, prefix)));
    let dirs = top_counts(names.iter().map(|p| dir_of(p)));
    let exts = top_counts(names.iter().filter_map(|p| ext_of(p)));
    let mut lines = Vec::new();
    if !prefix.is_empty() {
        lines.push(format!("All under: {prefix}"));
    }
    if !is_dir.is_empty() {
        lines.push(format!(
            "{} and {} (directories listed with their files)",
            plural(files.len(), "file", "files"),
            plural(all.len() - files.len(), "directory", "directories")
        ));
    }
    let rel = |items: &[(&str, usize)]| -> Vec<(String, usize)> {
        items
            .iter()
            .map(|(d, n)| (shown_dir(d, prefix).to_string(), *n))
            .collect()
    };
    if !tops.is_empty() {
        lines.push(format!(
            "Subdirectories ({}, files at any depth): {}",
            tops.len(),
            list(&rel(&tops), 6)
        ));
    }
    lines.push(format!(
        "Directories ({}, files directly in): {}",
        dirs.len(),
        list(&rel(&dirs), 6)
    ));
    if !exts.is_empty() {
        let exts: Vec<(String, usize)> = exts.iter().map(|(e, n)| (format!(".{e}"), *n)).collect();
        lines.push(format!(
            "Extensions ({}): {}",
            crate::text::thousands(exts.len()),
            list(&exts, 6)
        ));
    }
    r.structure = Some(Structure {
        title: "Where the files are".to_string(),
        lines,
    });
    r.suggestions.extend(super::next_stored_lines(ctx));
    let g = &ctx.config.suggest.glob;
    if g.tool.is_empty() {
        return r;
    }
    // Narrower calls keep the pattern and point the path at a directory from the
    // listing: listed paths that start with the searched path (or are absolute) are
    // used as they are, others are joined to it.
    let pat = pattern.unwrap_or_else(|| "**/*".to_string());
    let dir_arg = |d: &str| -> String {
        match &root {
            Some(rt) if !d.starts_with('/') && !d.starts_with(rt.trim_end_matches('/')) => {
                format!("{}/{d}", rt.trim_end_matches('/'))
            }
            _ => d.to_string(),
        }
    };
    let narrow = |dir: &str, pat: &str, purpose: String| {
        ctx.offer(
            Source::Nowhere,
            Intent::Glob {
                pattern: pat.to_string(),
                path: Some(dir_arg(dir)),
            },
            purpose,
        )
    };
    let searched = root.as_deref().map(|r| r.trim_end_matches('/'));
    // A narrower listing should come back whole: directories whose files in
    // this listing print within the glob tool's budget, the most files first.
    let budget = ctx.budget_for(&g.tool);
    let under = |d: &str| -> (usize, usize) {
        let pre = format!("{}/", d.trim_end_matches('/'));
        names
            .iter()
            .filter(|p| p.starts_with(&pre))
            .fold((0, 0), |(n, c), p| (n + 1, c + p.chars().count() + 1))
    };
    let mut dirs_all: Vec<&str> = dirs.iter().map(|(d, _)| *d).collect();
    // every ancestor of a listed directory below the common prefix
    for (d, _) in &dirs {
        let mut x = *d;
        while let Some((parent, _)) = x.rsplit_once('/') {
            if parent.len() < prefix.len() {
                break;
            }
            dirs_all.push(parent);
            x = parent;
        }
    }
    dirs_all.sort_unstable();
    dirs_all.dedup();
    let mut fitting: Vec<(&str, usize, usize)> = dirs_all
        .into_iter()
        .filter(|d| Some(dir_arg(d).trim_end_matches('/')) != searched && *d != ".")
        .map(|d| {
            let (n, c) = under(d);
            (d, n, c)
        })
        .filter(|&(_, n, c)| n > 0 && c <= budget && n < names.len())
        .collect();
    fitting.sort_by_key(|&(d, n, _)| (std::cmp::Reverse(n), d));
    for (d, n, c) in fitting.iter().take(2) {
        r.suggestions.extend(narrow(
            d,
            &pat,
            format!(
                "only under {d}/ ({}, {} in this listing)",
                plural(*n, one, many),
                plural(*c, "char", "chars")
            ),
        ));
    }
    if exts.len() > 1
        && let Some((e, n)) = exts.first()
    {
        let chars: usize = names
            .iter()
            .filter(|p| ext_of(p) == Some(e))
            .map(|p| p.chars().count() + 1)
            .sum();
        if chars <= budget {
            let e_pat = format!("**/*.{e}");
            let purpose = format!(
                "only .{e} files ({}, {} in this listing)",
                plural(*n, "path", "paths"),
                plural(chars, "char", "chars")
            );
            r.suggestions.extend(ctx.offer(
                Source::Nowhere,
                Intent::Glob {
                    pattern: e_pat,
                    path: root.clone(),
                },
                purpose,
            ));
        }
    }
    r
}

/// `a (12), b (3), and 4 more`: names are never shortened (a shortened
/// directory name cannot be used); the recovery section's cap bounds the line.
fn list(items: &[(String, usize)], n: usize) -> String {
    let mut s: Vec<String> = items
        .iter()
        .take(n)
        .map(|(k, c)| format!("{k} ({})", crate::text::thousands(*c)))
        .collect();
    if items.len() > n {
        s.push(format!(
            "and {} more",
            crate::text::thousands(items.len() - n)
        ));
    }
    s.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parts() {
        assert_eq!(dir_of("a/b/c.py"), "a/b");
        assert_eq!(dir_of("c.py"), ".");
        assert_eq!(common_dir(&["Lib/a/b.py", "Lib/c.py"]), "Lib/");
        assert_eq!(common_dir(&["Lib/a/b.py", "Lib/a/c.py"]), "Lib/a/");
        assert_eq!(common_dir(&["a.py", "Lib/c.py"]), "");
        assert_eq!(common_dir(&["Lib2/a.py", "Lib/c.py"]), "");
        assert_eq!(top_under("Lib/test/x/y.py", "Lib/"), Some("Lib/test"));
        assert_eq!(top_under("Lib/y.py", "Lib/"), None);
        assert_eq!(ext_of("a/b.tar.gz"), Some("gz"));
        assert_eq!(ext_of("a/.bashrc"), None);
        assert_eq!(ext_of("Makefile"), None);
        assert_eq!(ext_of("/usr/lib/python3.11"), None);
        assert_eq!(ext_of("/usr/lib/libc.so.6"), None);
        assert_eq!(ext_of("/usr/lib/x86_64-linux-gnu"), None);
        assert_eq!(ext_of("/usr/include/x86_64-linux-gnu/c++"), None);
        assert_eq!(ext_of("a/b.d.ts"), Some("ts"));
        assert_eq!(ext_of("a/b.tar.gz"), Some("gz"));
    }

    #[test]
    fn a_directory_is_one_whatever_the_depth_of_what_it_holds() {
        // the listing skips `chart.js/dist`: chart.js is still a directory
        let d = listed_dirs(&[
            "node_modules/chart.js",
            "node_modules/chart.js/dist/chart.js",
            "node_modules/chart.js/dist/helpers.js",
            "node_modules/other.js",
        ]);
        assert!(d.contains("node_modules/chart.js"));
        assert!(!d.contains("node_modules/chart.js/dist/chart.js"));
        assert!(!d.contains("node_modules/other.js"));
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn directories_listed_with_files_are_not_files() {
        let d = listed_dirs(&[
            "/usr/lib",
            "/usr/lib/a.so",
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib/x86_64-linux-gnu/b.so",
        ]);
        assert!(d.contains("/usr/lib"));
        assert!(d.contains("/usr/lib/x86_64-linux-gnu"));
        assert_eq!(d.len(), 2);
        assert_eq!(
            shown_dir("/usr/lib/x86_64-linux-gnu/gconv", "/usr/lib/"),
            "x86_64-linux-gnu/gconv"
        );
        assert_eq!(shown_dir("/usr/lib", "/usr/lib/"), ".");
    }
}
