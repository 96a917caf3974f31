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

use super::{Context, Recovery, Structure, ellipsize, plural, top_counts};

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

/// The extension of the file name (`c.tar.gz` → `gz`), if any.
fn ext_of(p: &str) -> Option<&str> {
    let name = p.rsplit('/').next().unwrap_or(p);
    name.rsplit_once('.')
        .filter(|(stem, e)| !stem.is_empty() && !e.is_empty() && !e.contains(' '))
        .map(|(_, e)| e)
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
    let names: Vec<&str> = paths.iter().map(|(_, p)| *p).collect();
    let prefix = common_dir(&names);
    let tops = top_counts(names.iter().filter_map(|p| top_under(p, prefix)));
    let dirs = top_counts(names.iter().map(|p| dir_of(p)));
    let exts = top_counts(names.iter().filter_map(|p| ext_of(p)));
    let mut lines = Vec::new();
    if !prefix.is_empty() {
        lines.push(format!("All under: {}", ellipsize(prefix, 120)));
    }
    if !tops.is_empty() {
        lines.push(format!(
            "Subdirectories ({}, files at any depth): {}",
            tops.len(),
            list(&tops, 6)
        ));
    }
    lines.push(format!(
        "Directories ({}, files directly in): {}",
        dirs.len(),
        list(&dirs, 6)
    ));
    if !exts.is_empty() {
        lines.push(format!("Extensions ({}): {}", exts.len(), list(&exts, 6)));
    }
    r.structure = Some(Structure {
        title: "Where the files are".to_string(),
        lines,
    });
    let g = &ctx.config.suggest.glob;
    if g.tool.is_empty() {
        return r;
    }
    // Narrower calls keep the pattern and point the path at a directory from the
    // listing: listed paths that start with the searched path (or are absolute) are
    // used as they are, others are joined to it.
    let pat = pattern.clone().unwrap_or_else(|| "**/*".to_string());
    let dir_arg = |d: &str| -> String {
        match &root {
            Some(rt) if !d.starts_with('/') && !d.starts_with(rt.trim_end_matches('/')) => {
                format!("{}/{d}", rt.trim_end_matches('/'))
            }
            _ => d.to_string(),
        }
    };
    let narrow = |dir: &str, pat: &str, purpose: String| {
        let d = dir_arg(dir);
        ctx.call(
            &g.tool,
            &[(g.pattern.as_str(), pat), (g.path.as_str(), d.as_str())],
            purpose,
        )
    };
    for (d, n) in tops.iter().take(2) {
        r.suggestions.push(narrow(
            d,
            &pat,
            format!(
                "only under {d}/ ({} in this listing)",
                plural(*n, "path", "paths")
            ),
        ));
    }
    if exts.len() > 1
        && let Some((e, n)) = exts.first()
    {
        let e_pat = format!("**/*.{e}");
        let purpose = format!(
            "only .{e} files ({} in this listing)",
            plural(*n, "path", "paths")
        );
        let args: Vec<(&str, &str)> = match &root {
            Some(rt) => vec![
                (g.pattern.as_str(), e_pat.as_str()),
                (g.path.as_str(), rt.as_str()),
            ],
            None => vec![(g.pattern.as_str(), e_pat.as_str())],
        };
        r.suggestions.push(ctx.call(&g.tool, &args, purpose));
    }
    r
}

fn list(items: &[(&str, usize)], n: usize) -> String {
    let mut s: Vec<String> = items
        .iter()
        .take(n)
        .map(|(k, c)| format!("{} ({c})", ellipsize(k, 60)))
        .collect();
    if items.len() > n {
        s.push(format!("and {} more", items.len() - n));
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
    }
}
