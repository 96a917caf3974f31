//! Listings: one path a line (`find`, `fd`, `git ls-files`, `grep -l`),
//! `ls -R` sections, `tree`. Each is read as its directories with how many
//! entries lie under them and the lines they take.

use std::collections::HashMap;

use super::{ListingMode, MAX_PARTS};

/// One directory of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// As the listing prints it (`./Lib/email`, `src`).
    pub path: String,
    /// Entries under it (at any depth for paths and trees; its own entries
    /// for `ls -R` sections).
    pub entries: usize,
    /// Its first line in the output (1-based).
    pub start: usize,
    /// Its last line in the output (1-based, inclusive).
    pub end: usize,
    /// No other directory's line lies between `start` and `end`.
    pub contiguous: bool,
}

/// A directory as the entries listed in it name it: the directory each path
/// of a path listing lies in directly (`./Lib/email/` of
/// `./Lib/email/utils.py`), an `ls -R` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    /// As printed, with its separator (`./Lib/email/`, `src\main\`; an
    /// `ls -R` section's name; `./` for paths without one).
    pub path: String,
    /// Entries listed directly in it.
    pub entries: usize,
    /// The first [`NAMES_HELD`] entries' names with their lines (1-based).
    pub names: Vec<(usize, String)>,
}

/// Names held per [`Leaf`].
pub const NAMES_HELD: usize = 64;
/// [`Leaf`]s held (the others are counted in `leaves_total`).
pub const LEAVES_HELD: usize = 4_096;
/// Names held over all leaves.
const ALL_NAMES_HELD: usize = 50_000;

/// The directories of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingView {
    /// How the listing prints (paths, `ls -R` sections, a tree).
    pub mode: ListingMode,
    /// Entries listed (paths; `ls -R` entries without `.` and `..`; tree
    /// entries).
    pub entries: usize,
    /// The groups at the depth that splits the listing (paths, trees: the
    /// first directories under the root with more than one group; `ls -R`:
    /// every section), the first [`MAX_PARTS`].
    pub groups: Vec<Group>,
    /// All groups at that depth.
    pub groups_total: usize,
    /// The root the paths are under (`.`, `/usr/lib`), when one was listed.
    pub root: Option<String>,
    /// Entries directly in the root (not in a group).
    pub top_entries: usize,
    /// A tree's own count line (`12 directories, 80 files`).
    pub summary: Option<String>,
    /// Paths and `ls -R` sections: the directories the entries lie in
    /// directly, in order of their first entry, the first [`LEAVES_HELD`].
    pub leaves: Vec<Leaf>,
    /// All such directories.
    pub leaves_total: usize,
}

const DEPTHS: usize = 3;

/// The groups of paths at one depth.
#[derive(Debug, Default)]
struct Level {
    groups: Vec<Group>,
    /// Lines of each group (its own line, if printed, and those under it).
    lines: Vec<usize>,
    index: HashMap<String, usize>,
    /// The group of the last path.
    last: Option<usize>,
    /// More groups than [`MAX_PARTS`]: not all are held.
    full: bool,
}

impl Level {
    fn group(path: String, n: usize) -> Group {
        Group {
            path,
            entries: 0,
            start: n,
            end: n,
            contiguous: true,
        }
    }
}

#[derive(Debug)]
pub(super) struct Reader {
    mode: ListingMode,
    entries: usize,
    root: Option<String>,
    first: Option<(usize, String)>,
    /// Paths: per depth 1..=DEPTHS, the groups by key.
    depth: Vec<Level>,
    top: usize,
    /// Sections and trees: the groups in order.
    groups: Vec<Group>,
    groups_total: usize,
    at_section_start: bool,
    summary: Option<String>,
    blank: usize,
    /// Lines of a path listing that do not look like paths.
    odd: usize,
    leaves: Vec<Leaf>,
    leaf_at: HashMap<String, usize>,
    leaves_total: usize,
    names_held: usize,
    /// The current `ls -R` section, with a `/`.
    section_dir: String,
}

impl Reader {
    pub(super) fn new(mode: ListingMode) -> Reader {
        Reader {
            mode,
            entries: 0,
            root: None,
            first: None,
            depth: (0..DEPTHS).map(|_| Level::default()).collect(),
            top: 0,
            groups: Vec::new(),
            groups_total: 0,
            at_section_start: true,
            summary: None,
            blank: 0,
            odd: 0,
            leaves: Vec::new(),
            leaf_at: HashMap::new(),
            leaves_total: 0,
            names_held: 0,
            section_dir: String::new(),
        }
    }

    /// Entry `name` on line `n`, listed directly in `dir`.
    fn leaf(&mut self, n: usize, dir: &str, name: &str) {
        let k = match self.leaf_at.get(dir) {
            Some(&k) => Some(k),
            None => {
                self.leaves_total += 1;
                (self.leaves.len() < LEAVES_HELD).then(|| {
                    self.leaf_at.insert(dir.to_string(), self.leaves.len());
                    self.leaves.push(Leaf {
                        path: dir.to_string(),
                        entries: 0,
                        names: Vec::new(),
                    });
                    self.leaves.len() - 1
                })
            }
        };
        let Some(l) = k.and_then(|k| self.leaves.get_mut(k)) else {
            return;
        };
        l.entries += 1;
        if l.names.len() < NAMES_HELD && self.names_held < ALL_NAMES_HELD {
            l.names.push((n, name.to_string()));
            self.names_held += 1;
        }
    }

    pub(super) fn line(&mut self, n: usize, line: &str) {
        match self.mode {
            ListingMode::Paths => self.path_line(n, line),
            ListingMode::Sections => self.section_line(n, line),
            ListingMode::Tree => self.tree_line(n, line),
        }
    }

    fn path_line(&mut self, n: usize, line: &str) {
        if line.is_empty() {
            self.blank += 1;
            return;
        }
        // the first line is the root when the second is under it
        if n == 1 + self.blank && self.first.is_none() && self.root.is_none() {
            self.first = Some((n, line.to_string()));
            return;
        }
        if let Some((n0, first)) = self.first.take() {
            let under = format!("{}/", first.trim_end_matches('/'));
            if line.starts_with(&under) || (first == "." && line.starts_with("./")) {
                self.root = Some(first);
            } else {
                self.add_path(n0, &first);
            }
        }
        self.add_path(n, line);
    }

    fn add_path(&mut self, n: usize, line: &str) {
        // a table of names (`pip list`: `name  1.2  location`): its first
        // column
        let line = line.split("  ").next().unwrap_or(line);
        self.entries += 1;
        {
            let p = line.trim_end_matches(['/', '\\']);
            let (dir, name) = match p.rfind(['/', '\\']) {
                Some(k) => (&p[..=k], &p[k + 1..]),
                None => ("./", p),
            };
            if !name.is_empty() {
                self.leaf(n, dir, name);
            }
        }
        // a path: no leading white space, under the root when there is one
        let under_root = self.root.as_deref().is_none_or(|r| line.starts_with(r));
        if !under_root || line.starts_with(char::is_whitespace) || line.contains('\t') {
            self.odd += 1;
        }
        let rel = match &self.root {
            Some(r) => {
                let r = r.trim_end_matches('/');
                line.strip_prefix(r)
                    .and_then(|x| x.strip_prefix('/'))
                    .unwrap_or(line)
            }
            None => line,
        };
        let rel = rel.trim_end_matches('/');
        let parts: Vec<&str> = rel.split('/').collect();
        let prefix = self.root.as_deref().map(|r| r.trim_end_matches('/'));
        for (d, lvl) in self.depth.iter_mut().enumerate() {
            if parts.len() < d + 1 {
                lvl.last = None;
                continue;
            }
            let rel_key = parts[..d + 1].join("/");
            let key = match prefix {
                Some(p) if !p.is_empty() => format!("{p}/{rel_key}"),
                Some(_) => format!("/{rel_key}"),
                None => rel_key,
            };
            // a path exactly at this depth is the directory itself (or a file
            // there): one of its group's lines, not an entry under it
            let inner = usize::from(parts.len() > d + 1);
            let idx = match lvl.index.get(&key) {
                Some(&i) => Some(i),
                None => (lvl.groups.len() < MAX_PARTS).then(|| {
                    lvl.index.insert(key.clone(), lvl.groups.len());
                    lvl.groups.push(Level::group(key, n));
                    lvl.lines.push(0);
                    lvl.groups.len() - 1
                }),
            };
            match idx {
                Some(i) => {
                    if lvl.last != Some(i) && lvl.lines[i] > 0 {
                        lvl.groups[i].contiguous = false;
                    }
                    lvl.groups[i].entries += inner;
                    lvl.groups[i].end = n;
                    lvl.lines[i] += 1;
                }
                None => lvl.full = true,
            }
            lvl.last = idx;
        }
    }

    fn section_line(&mut self, n: usize, line: &str) {
        if line.is_empty() {
            self.at_section_start = true;
            return;
        }
        if self.at_section_start
            && let Some(dir) = line.strip_suffix(':')
        {
            self.at_section_start = false;
            self.section_dir = format!("{}/", dir.trim_end_matches('/'));
            self.groups_total += 1;
            if self.groups.len() < MAX_PARTS {
                self.groups.push(Group {
                    path: dir.to_string(),
                    entries: 0,
                    start: n,
                    end: n,
                    contiguous: true,
                });
            }
            return;
        }
        self.at_section_start = false;
        if line.starts_with("total ")
            && line[6..]
                .chars()
                .all(|c| c.is_ascii_digit() || c.is_ascii_alphabetic() || c == '.' || c == ',')
        {
            self.extend_last(n, 0);
            return;
        }
        let name = line.rsplit(' ').next().unwrap_or(line);
        if name == "." || name == ".." {
            self.extend_last(n, 0);
            return;
        }
        self.entries += 1;
        if self.groups_total == 0 {
            self.top += 1;
            self.leaf(n, "./", name);
            return;
        }
        if self.groups_total == self.groups.len() {
            let dir = std::mem::take(&mut self.section_dir);
            self.leaf(n, &dir, name);
            self.section_dir = dir;
        }
        self.extend_last(n, 1);
    }

    fn extend_last(&mut self, n: usize, k: usize) {
        if self.groups_total == self.groups.len()
            && let Some(g) = self.groups.last_mut()
        {
            g.entries += k;
            g.end = n;
        }
    }

    fn tree_line(&mut self, n: usize, line: &str) {
        if line.is_empty() {
            return;
        }
        if n == 1 {
            self.root = Some(line.to_string());
            return;
        }
        let t = line.trim_start();
        if (t.contains("director") || t.contains("file"))
            && t.chars().next().is_some_and(|c| c.is_ascii_digit())
            && !line.contains("──")
        {
            self.summary = Some(t.to_string());
            return;
        }
        self.entries += 1;
        if line.starts_with("├")
            || line.starts_with("└")
            || line.starts_with("|--")
            || line.starts_with("`--")
            // npm ls under LC_ALL=C
            || line.starts_with("+--")
        {
            self.groups_total += 1;
            if self.groups.len() < MAX_PARTS {
                let name = line
                    .split_once(' ')
                    .map_or(line, |(_, r)| r)
                    .trim_start_matches(['─', ' ', '-'])
                    .to_string();
                self.groups.push(Group {
                    path: name,
                    entries: 0,
                    start: n,
                    end: n,
                    contiguous: true,
                });
            }
            return;
        }
        self.extend_last(n, 1);
    }

    pub(super) fn finish(mut self, _lines: usize) -> Option<ListingView> {
        if let Some((n0, first)) = self.first.take() {
            self.add_path(n0, &first);
        }
        let (groups, groups_total) = match self.mode {
            // not a listing: more than one line in ten is no path
            ListingMode::Paths if self.odd * 10 > self.entries => return None,
            ListingMode::Paths => {
                // the shallowest depth with more than one directory (a group
                // with entries under it), else the deepest looked at
                let with = |l: &Level| l.groups.iter().filter(|g| g.entries > 0).count();
                let pick = (0..DEPTHS).find(|&d| with(&self.depth[d]) > 1).unwrap_or(0);
                let lvl = self.depth.swap_remove(pick);
                if lvl.full {
                    // not every directory is held: no exact listing
                    return None;
                }
                let mut dirs = Vec::new();
                let mut grouped = 0;
                for (g, lines) in lvl.groups.into_iter().zip(lvl.lines) {
                    if g.entries > 0 {
                        grouped += lines;
                        dirs.push(g);
                    }
                }
                self.top = self.entries.saturating_sub(grouped);
                let total = dirs.len();
                (dirs, total)
            }
            _ => (self.groups, self.groups_total),
        };
        (self.entries > 0).then_some(ListingView {
            mode: self.mode,
            entries: self.entries,
            groups,
            groups_total,
            root: self.root,
            top_entries: self.top,
            summary: self.summary,
            leaves: self.leaves,
            leaves_total: self.leaves_total,
        })
    }
}
