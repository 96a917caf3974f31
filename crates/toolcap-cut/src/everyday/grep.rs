//! grep results: `grep -rn` (`file:line:text`, context lines `file-line-text`,
//! `--` between groups), `grep -r` (`file:text`), one file's `line:text`,
//! and count mode (`-c`: `file:N`, read as counts).

use std::collections::HashMap;

use super::{GrepMode, MAX_PARTS};

/// One file's matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepFile {
    /// The file's path as grep printed it.
    pub path: String,
    /// Matching lines (in count mode: the count printed).
    pub matches: usize,
    /// Its first line in the output (1-based).
    pub start: usize,
    /// Its last line in the output (1-based, inclusive).
    pub end: usize,
    /// Its lines are all between `start` and `end` with no other file's
    /// (grep prints a file's matches together).
    pub contiguous: bool,
}

/// How the matching lines were printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineFormat {
    /// `file:line:text`.
    FileLine,
    /// `file:text`.
    FileText,
    /// `line:text` of one file.
    Numbered,
    /// The lines alone.
    Plain,
}

/// The files and matches of a grep output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepView {
    /// Matching lines, counts per file or a file list.
    pub mode: GrepMode,
    /// Lines mode: how they were printed.
    pub format: LineFormat,
    /// The first [`MAX_PARTS`] files, in order of their first line.
    pub files: Vec<GrepFile>,
    /// Files named (in count mode: files searched).
    pub files_total: usize,
    /// Files with at least one match.
    pub files_matching: usize,
    /// Matches in all (matching lines; in count mode the counts' sum).
    pub matches: usize,
    /// Context lines (`-A/-B/-C`).
    pub context: usize,
    /// Binary files that match (`Binary file X matches`, `grep: X: binary
    /// file matches`).
    pub binary: usize,
    /// grep's own messages (`grep: x: Permission denied`).
    pub messages: usize,
    /// Lines read as none of these.
    pub other: usize,
}

impl GrepView {
    /// The files with matches, the most likely wanted first: files outside
    /// generated and vendored trees ([`super::generated_path`]) before the
    /// others, then most matches first, ties in the output's order.
    pub fn wanted(&self) -> Vec<&GrepFile> {
        let mut files: Vec<&GrepFile> = self.files.iter().filter(|f| f.matches > 0).collect();
        files.sort_by_key(|f| {
            (
                super::generated_path(&f.path),
                std::cmp::Reverse(f.matches),
                f.start,
            )
        });
        files
    }

    /// The first match line (1-based) of each of the `n` most wanted files
    /// ([`GrepView::wanted`]) that the output's first lines do not hold
    /// (their first line is past line `head`), in the output's order: the
    /// lines a cut keeps beside the head, so the view names those files
    /// with a match each.
    pub fn first_matches(&self, n: usize, head: usize) -> Vec<usize> {
        if self.mode != GrepMode::Lines {
            return Vec::new();
        }
        let mut lines: Vec<usize> = self
            .wanted()
            .into_iter()
            .filter(|f| f.start > head)
            .take(n)
            .map(|f| f.start)
            .collect();
        lines.sort_unstable();
        lines
    }
}

#[derive(Debug)]
pub(super) struct Reader {
    mode: GrepMode,
    format: Option<LineFormat>,
    /// Lines held until the format is known.
    early: Vec<(usize, String)>,
    view: GrepView,
    index: HashMap<String, usize>,
    /// The file of the last line read (an index into `view.files`, or
    /// usize::MAX for one not held).
    cur: Option<(String, usize)>,
    /// Context lines read before a match of a new file: whose they are is
    /// told by the match.
    before: Vec<(usize, String)>,
}

/// Context lines held at most while no match tells their file.
const MAX_BEFORE: usize = 4096;

/// Lines looked at before the format is decided.
const SAMPLE: usize = 40;

/// The first `:N:` (or `-N-` when `sep` is `-`) in `line`: the byte where the
/// prefix ends.
fn numbered_at(line: &str, sep: u8) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == sep && i > 0 {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 1 && j < b.len() && b[j] == sep {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

fn leading_number(line: &str) -> Option<(usize, u8)> {
    let d = line.bytes().take_while(u8::is_ascii_digit).count();
    let sep = *line.as_bytes().get(d)?;
    (d > 0 && matches!(sep, b':' | b'-')).then_some((d, sep))
}

impl Reader {
    pub(super) fn new(mode: GrepMode) -> Reader {
        Reader {
            mode,
            format: None,
            early: Vec::new(),
            view: GrepView {
                mode,
                format: LineFormat::Plain,
                files: Vec::new(),
                files_total: 0,
                files_matching: 0,
                matches: 0,
                context: 0,
                binary: 0,
                messages: 0,
                other: 0,
            },
            index: HashMap::new(),
            cur: None,
            before: Vec::new(),
        }
    }

    pub(super) fn line(&mut self, n: usize, line: &str) {
        if self.mode == GrepMode::Count {
            return self.count_line(n, line);
        }
        match self.format {
            Some(f) => self.match_line(f, n, line),
            None => {
                self.early.push((n, line.to_string()));
                if self.early.len() >= SAMPLE {
                    self.decide();
                }
            }
        }
    }

    /// The format most of the first lines have.
    fn decide(&mut self) {
        let lines: Vec<&str> = self
            .early
            .iter()
            .map(|(_, l)| l.as_str())
            .filter(|l| *l != "--" && !special(l))
            .collect();
        let most = |f: &dyn Fn(&str) -> bool| {
            let k = lines.iter().filter(|l| f(l)).count();
            !lines.is_empty() && k * 10 >= lines.len() * 8
        };
        let format = if most(&|l| numbered_at(l, b':').is_some() || numbered_at(l, b'-').is_some())
        {
            LineFormat::FileLine
        } else if most(&|l| leading_number(l).is_some()) {
            LineFormat::Numbered
        } else if most(&|l| l.find(':').is_some_and(|i| i > 0)) {
            LineFormat::FileText
        } else {
            LineFormat::Plain
        };
        self.format = Some(format);
        self.view.format = format;
        for (n, l) in std::mem::take(&mut self.early) {
            self.match_line(format, n, &l);
        }
    }

    fn file(&mut self, path: &str, n: usize, matches: usize) {
        let same = self.cur.as_ref().is_some_and(|(p, _)| p == path);
        if same {
            if let Some((_, i)) = &self.cur
                && let Some(f) = self.view.files.get_mut(*i)
            {
                f.end = n;
                f.matches += matches;
            }
            return;
        }
        let i = match self.index.get(path) {
            Some(&i) => {
                if let Some(f) = self.view.files.get_mut(i) {
                    f.contiguous = false;
                    f.end = n;
                    f.matches += matches;
                }
                i
            }
            None => {
                self.view.files_total += 1;
                if self.view.files.len() < MAX_PARTS {
                    let i = self.view.files.len();
                    self.index.insert(path.to_string(), i);
                    self.view.files.push(GrepFile {
                        path: path.to_string(),
                        matches,
                        start: n,
                        end: n,
                        contiguous: true,
                    });
                    i
                } else {
                    usize::MAX
                }
            }
        };
        self.cur = Some((path.to_string(), i));
    }

    /// The context lines held before a match: of file `next` when they start
    /// with its name and a line number, else of the name before their first
    /// `-N-`.
    fn settle(&mut self, next: Option<&str>) {
        for (n, line) in std::mem::take(&mut self.before) {
            let path = next
                .filter(|p| {
                    line.strip_prefix(p).is_some_and(|r| {
                        let d = r.bytes().skip(1).take_while(u8::is_ascii_digit).count();
                        r.starts_with('-') && d > 0 && r.as_bytes().get(d + 1) == Some(&b'-')
                    })
                })
                .map(str::to_string)
                .or_else(|| numbered_at(&line, b'-').map(|i| line[..i].to_string()));
            match path {
                Some(p) => {
                    self.view.context += 1;
                    self.file(&p, n, 0);
                }
                None => self.view.other += 1,
            }
        }
    }

    fn match_line(&mut self, f: LineFormat, n: usize, line: &str) {
        if line == "--" {
            self.settle(None);
            return;
        }
        if special(line) {
            if binary(line) {
                self.view.binary += 1;
            } else {
                self.view.messages += 1;
            }
            return;
        }
        match f {
            LineFormat::FileLine => {
                // a line of the current file: `file:N:text` or `file-N-text`
                if let Some((p, _)) = &self.cur
                    && let Some(rest) = line.strip_prefix(p.as_str())
                {
                    let r = rest.as_bytes();
                    let d = r.iter().skip(1).take_while(|b| b.is_ascii_digit()).count();
                    if d > 0 && r.len() > d + 1 && r[d + 1] == r[0] && matches!(r[0], b':' | b'-') {
                        let p = p.clone();
                        if r[0] == b':' {
                            self.view.matches += 1;
                            self.file(&p, n, 1);
                        } else {
                            self.view.context += 1;
                            self.file(&p, n, 0);
                        }
                        return;
                    }
                }
                if let Some(i) = numbered_at(line, b':') {
                    // context lines before it: of this file when they start with its name
                    let path = line[..i].to_string();
                    self.settle(Some(&path));
                    self.view.matches += 1;
                    self.file(&path, n, 1);
                } else if numbered_at(line, b'-').is_some() {
                    // whose file is known only by the match after it
                    self.before.push((n, line.to_string()));
                    if self.before.len() > MAX_BEFORE {
                        self.settle(None);
                    }
                } else {
                    self.view.other += 1;
                }
            }
            LineFormat::FileText => match line.find(':') {
                Some(i) if i > 0 => {
                    self.view.matches += 1;
                    self.file(&line[..i], n, 1);
                }
                _ => self.view.other += 1,
            },
            LineFormat::Numbered => match leading_number(line) {
                Some((_, b':')) => self.view.matches += 1,
                Some(_) => self.view.context += 1,
                None => self.view.other += 1,
            },
            LineFormat::Plain => self.view.matches += 1,
        }
    }

    fn count_line(&mut self, n: usize, line: &str) {
        if special(line) {
            if binary(line) {
                self.view.binary += 1;
            } else {
                self.view.messages += 1;
            }
            return;
        }
        let (path, count) = match line.rsplit_once(':') {
            Some((p, c)) if !p.is_empty() => (p, c),
            _ => ("", line),
        };
        let Ok(k) = count.parse::<usize>() else {
            self.view.other += 1;
            return;
        };
        self.view.matches += k;
        if k > 0 {
            self.view.files_matching += 1;
        }
        if path.is_empty() {
            self.view.files_total += 1;
            return;
        }
        // (a file is printed once in count mode: not tracked for repeats)
        self.view.files_total += 1;
        if self.view.files.len() < MAX_PARTS {
            self.view.files.push(GrepFile {
                path: path.to_string(),
                matches: k,
                start: n,
                end: n,
                contiguous: true,
            });
        }
    }

    pub(super) fn finish(mut self, lines: usize) -> Option<GrepView> {
        if self.format.is_none() && self.mode != GrepMode::Count {
            self.decide();
        }
        self.settle(None);
        if self.mode != GrepMode::Count {
            self.view.files_matching = self.view.files_total;
        }
        let read = lines - self.view.other;
        // the output has grep's shape: nine lines in ten read as it prints
        (lines > 0 && read * 10 >= lines * 9).then_some(self.view)
    }
}

/// `Binary file X matches` (grep before 3.5, on stdout) or `grep: X: binary
/// file matches` (since, on stderr).
fn binary(line: &str) -> bool {
    line.starts_with("Binary file ") || line.ends_with(": binary file matches")
}

/// A line grep prints about a file rather than from it.
fn special(line: &str) -> bool {
    (line.starts_with("Binary file ") && line.ends_with(" matches"))
        || line.starts_with("grep: ")
        || line.starts_with("rg: ")
}
