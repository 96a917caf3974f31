//! Diffs and logs: `git log [-p]`, `git show`, `git diff`, `diff -u`.
//!
//! A commit starts at its `commit HASH` line; its subject is the first line of
//! its message (indented under the headers). A file's diff starts at its
//! `diff ...` line (or, in `diff -u` output, at a `--- old` line followed by
//! `+++ new`); its hunks are read by the counts in their `@@ -a,b +c,d @@`
//! headers, so a removed line that reads `-- x` or `+++` is still a hunk line.
//! Lines added and removed are counted as `git diff --numstat` counts them.

use super::MAX_PARTS;

/// One commit of a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// The hash as printed (full or abbreviated).
    pub hash: String,
    /// The first line of the message (empty when none was printed).
    pub subject: String,
    /// Its first line in the output (1-based).
    pub start: usize,
    /// Its last line in the output (1-based, inclusive).
    pub end: usize,
    /// Files diffed in it.
    pub files: usize,
    /// Lines added in its diffs.
    pub added: usize,
    /// Lines removed in its diffs.
    pub removed: usize,
}

/// One file's diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The new path (the old one when the file was deleted).
    pub path: String,
    /// Its first and last line in the output.
    pub start: usize,
    pub end: usize,
    pub added: usize,
    pub removed: usize,
    /// Hunks (`@@` headers).
    pub hunks: usize,
    /// The commit it belongs to (an index into [`DiffView::commits`]).
    pub commit: Option<usize>,
}

/// The commits and file diffs of an output.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DiffView {
    /// The first [`MAX_PARTS`] commits.
    pub commits: Vec<Commit>,
    /// All commits.
    pub commits_total: usize,
    /// The first [`MAX_PARTS`] file diffs.
    pub files: Vec<FileDiff>,
    /// All file diffs.
    pub files_total: usize,
    /// Lines added in all of them.
    pub added: usize,
    /// Lines removed in all of them.
    pub removed: usize,
    /// File diffs that start with a `diff ...` line (the others are `diff
    /// -u` output: `--- old`, `+++ new`).
    pub diff_lines: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Outside any file diff (commit headers and messages, text).
    Text,
    /// A commit's headers (`Author:`, `Date:`), before its message.
    Headers,
    /// The message, before its first line was seen.
    Message,
    /// A file's headers (`index`, `---`, `+++`, `new file mode`).
    FileHeader,
    /// Inside a hunk: old and new lines left.
    Hunk { old: usize, new: usize },
    /// Inside a combined diff's hunk (`@@@`): read until a line that is not
    /// one of its lines.
    Combined,
}

#[derive(Debug)]
pub(super) struct Reader {
    view: DiffView,
    state: State,
    /// A `--- old` line outside a file diff (`diff -u` output): line and path.
    minus: Option<(usize, String)>,
    /// The current commit's and file's totals (also when not held).
    cur_commit: Option<(usize, usize, usize, usize)>,
    cur_file: bool,
    last_line: usize,
    /// Lines that read `HASH subject` (`git log --oneline`, `--format='%h %s'`).
    oneline: Vec<Commit>,
    oneline_total: usize,
}

impl Default for Reader {
    fn default() -> Reader {
        Reader {
            view: DiffView::default(),
            state: State::Text,
            minus: None,
            cur_commit: None,
            cur_file: false,
            last_line: 0,
            oneline: Vec::new(),
            oneline_total: 0,
        }
    }
}

fn is_hash(s: &str) -> bool {
    (7..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `commit HASH` (with `(HEAD -> main)` decorations, or `commit HASH (from X)`).
fn commit_header(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("commit ")?;
    let hash = rest.split(' ').next()?;
    is_hash(hash).then_some(hash)
}

/// A path as a diff header prints it: `a/x` → `x`, the timestamp after a tab dropped.
fn header_path(p: &str, strip: &str) -> String {
    let p = p.split('\t').next().unwrap_or(p).trim_end();
    let p = p.strip_prefix(strip).unwrap_or(p);
    let p = p
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(p);
    p.to_string()
}

/// `@@ -a,b +c,d @@`: the old and new line counts.
fn hunk_counts(line: &str) -> Option<(usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let count = |r: &str| -> Option<usize> {
        match r.split_once(',') {
            Some((_, n)) => n.parse().ok(),
            None => r.parse::<usize>().ok().map(|_| 1),
        }
    };
    Some((count(old)?, count(new)?))
}

impl Reader {
    fn close_file(&mut self) {
        self.cur_file = false;
    }

    fn file_mut(&mut self) -> Option<&mut FileDiff> {
        if !self.cur_file || self.view.files_total > self.view.files.len() {
            return None;
        }
        self.view.files.last_mut()
    }

    fn open_file(&mut self, n: usize, path: String) {
        self.close_file();
        self.view.files_total += 1;
        if let Some(c) = &mut self.cur_commit {
            c.1 += 1;
        }
        if self.view.files.len() < MAX_PARTS {
            let commit = self.cur_commit.filter(|c| c.0 < MAX_PARTS).map(|c| c.0);
            self.view.files.push(FileDiff {
                path,
                start: n,
                end: n,
                added: 0,
                removed: 0,
                hunks: 0,
                commit,
            });
        }
        self.cur_file = true;
    }

    fn count(&mut self, added: bool) {
        if added {
            self.view.added += 1;
        } else {
            self.view.removed += 1;
        }
        if let Some(c) = &mut self.cur_commit {
            if added {
                c.2 += 1;
            } else {
                c.3 += 1;
            }
        }
        if let Some(f) = self.file_mut() {
            if added {
                f.added += 1;
            } else {
                f.removed += 1;
            }
        }
    }

    fn extend_file(&mut self, n: usize) {
        if let Some(f) = self.file_mut() {
            f.end = n;
        }
    }

    fn end_commit(&mut self, last: usize) {
        if let Some((i, files, added, removed)) = self.cur_commit.take()
            && let Some(c) = self.view.commits.get_mut(i)
        {
            c.end = last;
            c.files = files;
            c.added = added;
            c.removed = removed;
        }
    }

    pub(super) fn line(&mut self, n: usize, line: &str) {
        self.last_line = n;
        match self.state {
            State::Hunk { old, new } => {
                if !self.hunk_line(n, line, old, new) {
                    // not a hunk line: the hunk was shorter than its header said
                    self.state = State::Text;
                    return self.line(n, line);
                }
                return;
            }
            State::Combined => {
                if line.starts_with([' ', '+', '-']) {
                    self.extend_file(n);
                    return;
                }
                self.state = State::FileHeader;
            }
            _ => {}
        }
        if let Some(hash) = commit_header(line) {
            self.open_commit(n, hash);
            return;
        }
        if let Some(rest) = line.strip_prefix("diff ") {
            self.diff_line(n, rest);
            return;
        }
        match self.state {
            State::Headers => {
                if line.is_empty() {
                    self.state = State::Message;
                }
                return;
            }
            State::Message => {
                if let Some(s) = line.strip_prefix("    ") {
                    if let Some(c) = self.cur_commit.and_then(|c| self.view.commits.get_mut(c.0)) {
                        c.subject = s.trim().to_string();
                    }
                    self.state = State::Text;
                    return;
                }
                if !line.is_empty() {
                    self.state = State::Text;
                }
            }
            State::FileHeader => {
                if self.file_header_line(n, line) {
                    return;
                }
                self.close_file();
                self.state = State::Text;
            }
            _ => {}
        }
        self.text_line(n, line);
    }

    /// A line of a hunk with `old` and `new` lines left; false when it is
    /// not one (nothing done then).
    fn hunk_line(&mut self, n: usize, line: &str, old: usize, new: usize) -> bool {
        let (o, w) = match line.as_bytes().first() {
            Some(b' ') | None => (1, 1),
            Some(b'-') => (1, 0),
            Some(b'+') => (0, 1),
            Some(b'\\') => (0, 0),
            _ => return false,
        };
        if o == 1 && w == 0 {
            self.count(false);
        } else if o == 0 && w == 1 {
            self.count(true);
        }
        self.extend_file(n);
        let (old, new) = (old.saturating_sub(o), new.saturating_sub(w));
        self.state = if old == 0 && new == 0 {
            State::FileHeader
        } else {
            State::Hunk { old, new }
        };
        true
    }

    /// A `commit HASH` line at line `n`.
    fn open_commit(&mut self, n: usize, hash: &str) {
        self.close_file();
        self.end_commit(n - 1);
        self.view.commits_total += 1;
        let i = self.view.commits_total - 1;
        if self.view.commits.len() < MAX_PARTS {
            self.view.commits.push(Commit {
                hash: hash.to_string(),
                subject: String::new(),
                start: n,
                end: n,
                files: 0,
                added: 0,
                removed: 0,
            });
        }
        self.cur_commit = Some((i, 0, 0, 0));
        self.state = State::Headers;
        self.minus = None;
    }

    /// A `diff ...` line at line `n` (`rest` after `diff `): a file's diff
    /// starts.
    fn diff_line(&mut self, n: usize, rest: &str) {
        // `diff --git a/x b/x`, `diff -r a/x b/x`, `diff --cc x`
        let path = if let Some(p) = rest.strip_prefix("--git ") {
            match p.rfind(" b/") {
                Some(i) => header_path(&p[i + 1..], "b/"),
                None => header_path(p, ""),
            }
        } else {
            let last = rest.split(' ').next_back().unwrap_or(rest);
            header_path(last, "")
        };
        self.open_file(n, path);
        self.view.diff_lines += 1;
        self.state = State::FileHeader;
        self.minus = None;
    }

    /// A line among a file's headers: a hunk header or a header line (true),
    /// or the end of the headers (false, nothing done then).
    fn file_header_line(&mut self, n: usize, line: &str) -> bool {
        if let Some((old, new)) = hunk_counts(line) {
            if let Some(f) = self.file_mut() {
                f.hunks += 1;
            }
            self.extend_file(n);
            self.state = if old == 0 && new == 0 {
                State::FileHeader
            } else {
                State::Hunk { old, new }
            };
            return true;
        }
        if line.starts_with("@@@") {
            if let Some(f) = self.file_mut() {
                f.hunks += 1;
            }
            self.extend_file(n);
            self.state = State::Combined;
            return true;
        }
        if let Some(p) = line.strip_prefix("+++ ") {
            let p = header_path(p, "b/");
            if p != "/dev/null"
                && let Some(f) = self.file_mut()
            {
                f.path = p;
            }
            self.extend_file(n);
            return true;
        }
        let header = [
            "index ",
            "--- ",
            "new file",
            "deleted file",
            "old mode",
            "new mode",
            "similarity",
            "dissimilarity",
            "rename ",
            "copy ",
            "Binary files",
        ]
        .iter()
        .any(|h| line.starts_with(h));
        if header {
            self.extend_file(n);
        }
        header
    }

    /// A line outside any file diff: a `HASH subject` line, or `diff -u`
    /// output without a `diff` line (`--- old` then `+++ new`).
    fn text_line(&mut self, n: usize, line: &str) {
        // `git log --oneline`: a hash, then the subject
        if let Some((hash, subject)) = line.split_once(' ')
            && is_hash(hash)
        {
            self.oneline_total += 1;
            if self.oneline.len() < MAX_PARTS {
                self.oneline.push(Commit {
                    hash: hash.to_string(),
                    subject: subject.trim().to_string(),
                    start: n,
                    end: n,
                    files: 0,
                    added: 0,
                    removed: 0,
                });
            }
        }
        // `diff -u` output without a `diff` line: `--- old` then `+++ new`
        if let Some(p) = line.strip_prefix("--- ") {
            self.minus = Some((n, header_path(p, "a/")));
            return;
        }
        if let Some(p) = line.strip_prefix("+++ ")
            && let Some((start, old)) = self.minus.take()
            && start + 1 == n
        {
            let new = header_path(p, "b/");
            let path = if new == "/dev/null" { old } else { new };
            self.open_file(start, path);
            self.extend_file(n);
            self.state = State::FileHeader;
            return;
        }
        self.minus = None;
    }

    pub(super) fn finish(mut self, lines: usize) -> Option<DiffView> {
        self.end_commit(lines);
        // a log of one line a commit: nine lines in ten a hash and a subject
        if self.view.commits_total == 0
            && self.view.files_total == 0
            && lines > 0
            && self.oneline_total * 10 >= lines * 9
        {
            self.view.commits = self.oneline;
            self.view.commits_total = self.oneline_total;
        }
        // a commit's last line: the line before the next one (set as each
        // ends); trailing blank lines of the output belong to the last
        (self.view.commits_total > 0 || self.view.files_total > 0).then_some(self.view)
    }
}
