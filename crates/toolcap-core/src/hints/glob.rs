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

use super::{
    Context, CountsOf, Entry, Fact, Intent, Listing, Purpose, RecoveryModel, Source, Title,
    top_counts,
};

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

/// A listing's paths and what they are.
struct Paths<'c> {
    /// Every listed path.
    all: Vec<&'c str>,
    /// The files among them (the paths that no other path is under, when the
    /// listing names directories too).
    files: Vec<&'c str>,
    /// The listing names directories along with their files.
    has_dirs: bool,
    /// The directory every file is in, with its trailing slash (or empty).
    prefix: &'c str,
}

impl<'c> Paths<'c> {
    fn of(all: Vec<&'c str>) -> Self {
        // Directories listed along with their files (`find` output) are not files.
        let is_dir = listed_dirs(&all);
        let files: Vec<&str> = all
            .iter()
            .copied()
            .filter(|p| !is_dir.contains(p.trim_end_matches('/')) && !p.ends_with('/'))
            .collect();
        let mut p = Paths {
            all,
            files,
            has_dirs: !is_dir.is_empty(),
            prefix: "",
        };
        p.prefix = common_dir(p.names());
        p
    }

    /// The names counted: the files, or every path when none is a file.
    fn names(&self) -> &[&'c str] {
        if self.files.is_empty() {
            &self.all
        } else {
            &self.files
        }
    }

    /// The names are files (not paths that may be directories).
    fn are_files(&self) -> bool {
        self.has_dirs && !self.files.is_empty()
    }
}

/// The recovery section of a cut file listing: its counts, where the files
/// are, and the narrower listings that come back whole.
pub fn model(ctx: &Context<'_>) -> RecoveryModel {
    let mut r = RecoveryModel::default();
    let listed: Vec<(usize, &str)> = (0..ctx.idx.len())
        .map(|i| (i, ctx.idx.line(i).trim_end()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let pattern = ctx.arg(|a| &a.pattern);
    let root = ctx.arg(|a| &a.path);
    r.facts.push(Fact::Paths {
        pattern: pattern.clone(),
        path: root.clone(),
        shown: listed.iter().filter(|(i, _)| ctx.line_shown(*i)).count(),
        total: listed.len(),
    });
    r.facts.push(Fact::Result(ctx.size()));
    let paths = Paths::of(listed.iter().map(|(_, p)| *p).collect());
    let names = paths.names();
    let dirs = top_counts(names.iter().map(|p| dir_of(p)));
    let exts = top_counts(names.iter().filter_map(|p| ext_of(p)));
    r.structure = Some(where_files_are(&paths, &dirs, &exts));
    r.suggestions.extend(super::next_stored_lines(ctx));
    if ctx.config.suggest.glob.tool.is_empty() {
        return r;
    }
    let narrow = Narrow {
        ctx,
        paths: &paths,
        pattern: pattern.unwrap_or_else(|| "**/*".to_string()),
        root,
        budget: ctx.budget_for(&ctx.config.suggest.glob.tool),
    };
    narrow.under_dirs(&dirs, &mut r);
    narrow.by_extension(&exts, &mut r);
    r
}

/// The `Where the files are` listing: the common directory, the counts per
/// subdirectory, directory and extension.
fn where_files_are(paths: &Paths<'_>, dirs: &[(&str, usize)], exts: &[(&str, usize)]) -> Listing {
    let (names, prefix) = (paths.names(), paths.prefix);
    let tops = top_counts(names.iter().filter_map(|p| top_under(p, prefix)));
    let mut lines = Vec::new();
    if !prefix.is_empty() {
        lines.push(Entry::AllUnder(prefix.to_string()));
    }
    if paths.has_dirs {
        lines.push(Entry::FilesAndDirs {
            files: paths.files.len(),
            dirs: paths.all.len() - paths.files.len(),
        });
    }
    let rel = |items: &[(&str, usize)]| -> Vec<(String, usize)> {
        items
            .iter()
            .map(|(d, n)| (shown_dir(d, prefix).to_string(), *n))
            .collect()
    };
    if !tops.is_empty() {
        lines.push(Entry::Counts {
            of: CountsOf::Subdirectories,
            items: rel(&tops),
        });
    }
    lines.push(Entry::Counts {
        of: CountsOf::Directories,
        items: rel(dirs),
    });
    if !exts.is_empty() {
        lines.push(Entry::Counts {
            of: CountsOf::Extensions,
            items: exts.iter().map(|(e, n)| ((*e).to_string(), *n)).collect(),
        });
    }
    Listing {
        title: Title::WhereFilesAre,
        lines,
    }
}

/// Narrower listings: the call's pattern under a directory from the listing,
/// or its most common extension, each sized to come back whole.
struct Narrow<'c, 'a> {
    ctx: &'c Context<'a>,
    paths: &'c Paths<'c>,
    /// The call's pattern (`**/*` when it has none).
    pattern: String,
    /// The path listed, when the call names it.
    root: Option<String>,
    /// The most chars a listing of the glob tool comes back whole with.
    budget: usize,
}

impl Narrow<'_, '_> {
    /// A listed directory as the call's path: listed paths that start with
    /// the searched path (or are absolute) are used as they are, others are
    /// joined to it.
    fn dir_arg(&self, d: &str) -> String {
        match &self.root {
            Some(rt) if !d.starts_with('/') && !d.starts_with(rt.trim_end_matches('/')) => {
                format!("{}/{d}", rt.trim_end_matches('/'))
            }
            _ => d.to_string(),
        }
    }

    /// The names under directory `d` and the chars their lines print.
    fn under(&self, d: &str) -> (usize, usize) {
        let pre = format!("{}/", d.trim_end_matches('/'));
        self.paths
            .names()
            .iter()
            .filter(|p| p.starts_with(&pre))
            .fold((0, 0), |(n, c), p| (n + 1, c + p.chars().count() + 1))
    }

    /// The two directories with the most files whose listing prints within
    /// the glob tool's budget (every ancestor of a listed directory below the
    /// common one counts).
    fn under_dirs(&self, dirs: &[(&str, usize)], r: &mut RecoveryModel) {
        let (names, prefix) = (self.paths.names(), self.paths.prefix);
        let searched = self.root.as_deref().map(|r| r.trim_end_matches('/'));
        let mut dirs_all: Vec<&str> = dirs.iter().map(|(d, _)| *d).collect();
        for (d, _) in dirs {
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
            .filter(|d| Some(self.dir_arg(d).trim_end_matches('/')) != searched && *d != ".")
            .map(|d| {
                let (n, c) = self.under(d);
                (d, n, c)
            })
            .filter(|&(_, n, c)| n > 0 && c <= self.budget && n < names.len())
            .collect();
        fitting.sort_by_key(|&(d, n, _)| (std::cmp::Reverse(n), d));
        for &(d, n, c) in fitting.iter().take(2) {
            let intent = Intent::Glob {
                pattern: self.pattern.clone(),
                path: Some(self.dir_arg(d)),
            };
            let purpose = Purpose::OnlyUnder {
                dir: d.to_string(),
                items: n,
                files: self.paths.are_files(),
                chars: c,
            };
            r.suggestions
                .extend(self.ctx.offer(Source::Nowhere, intent, purpose));
        }
    }

    /// The most common extension's files, when there are several extensions
    /// and their listing prints within the budget.
    fn by_extension(&self, exts: &[(&str, usize)], r: &mut RecoveryModel) {
        let Some(&(e, n)) = exts.first().filter(|_| exts.len() > 1) else {
            return;
        };
        let chars: usize = self
            .paths
            .names()
            .iter()
            .filter(|p| ext_of(p) == Some(e))
            .map(|p| p.chars().count() + 1)
            .sum();
        if chars > self.budget {
            return;
        }
        let intent = Intent::Glob {
            pattern: format!("**/*.{e}"),
            path: self.root.clone(),
        };
        let purpose = Purpose::OnlyExtension {
            ext: e.to_string(),
            paths: n,
            chars,
        };
        r.suggestions
            .extend(self.ctx.offer(Source::Nowhere, intent, purpose));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hints of a real listing (CPython's `Lib/**/*.py`) cut after its
    /// first `kept` lines.
    fn cut_after(kept: usize) -> RecoveryModel {
        let text = crate::test_fixture("glob/python_stdlib_py_files.txt");
        let args = serde_json::json!({"pattern": "**/*.py", "path": "Lib"});
        crate::hints::head_cut("glob_files", text, kept, &args, None, None, model)
    }

    #[test]
    fn a_cut_listing_states_its_counts_as_data() {
        let text = crate::test_fixture("glob/python_stdlib_py_files.txt");
        let paths: Vec<&str> = text.lines().collect();
        let m = cut_after(40);
        assert_eq!(
            m.facts[0],
            Fact::Paths {
                pattern: Some("**/*.py".into()),
                path: Some("Lib".into()),
                shown: 40,
                total: paths.len(),
            }
        );
        assert_eq!(
            m.facts[1],
            Fact::Result(crate::hints::Size {
                lines: paths.len(),
                chars: text.chars().count(),
            })
        );
        let s = m.structure.clone().expect("a listing");
        assert_eq!(s.title, Title::WhereFilesAre);
        assert_eq!(s.lines[0], Entry::AllUnder("Lib/".into()));
        // counted here from the text itself: the directories files are in,
        // and the files directly in `Lib/test`
        let dirs: std::collections::HashSet<&str> = paths
            .iter()
            .filter_map(|p| p.rsplit_once('/'))
            .map(|(d, _)| d)
            .collect();
        let in_test = paths
            .iter()
            .filter(|p| p.rsplit_once('/').is_some_and(|(d, _)| d == "Lib/test"))
            .count();
        let Some(Entry::Counts { of, items }) = s.lines.iter().find(|e| {
            matches!(
                e,
                Entry::Counts {
                    of: CountsOf::Directories,
                    ..
                }
            )
        }) else {
            panic!("no directory counts: {s:?}");
        };
        assert_eq!(*of, CountsOf::Directories);
        assert_eq!(items.len(), dirs.len());
        assert!(items.contains(&("test".to_string(), in_test)), "{items:?}");
        assert!(s.lines.contains(&Entry::Counts {
            of: CountsOf::Extensions,
            items: vec![("py".into(), paths.len())],
        }));
        // every narrower listing named comes back whole: its chars, exact
        let r = m.render();
        assert!(
            r.suggestions
                .iter()
                .any(|g| g.purpose.starts_with("only under ")),
            "{:?}",
            r.suggestions
        );
        for g in &r.suggestions {
            let Some(dir) = g
                .purpose
                .strip_prefix("only under ")
                .and_then(|p| p.split_once("/ (").map(|(d, _)| d))
            else {
                continue;
            };
            let under: Vec<&&str> = paths
                .iter()
                .filter(|p| p.starts_with(&format!("{dir}/")))
                .collect();
            let chars: usize = under.iter().map(|p| p.chars().count() + 1).sum();
            assert_eq!(
                g.purpose,
                String::from(Purpose::OnlyUnder {
                    dir: dir.to_string(),
                    items: under.len(),
                    files: false,
                    chars,
                })
            );
        }
    }

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
