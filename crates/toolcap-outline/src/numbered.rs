//! Line-numbered file reads: the numbering the common read forms put before
//! each line of a file, recognised from the text, so a read is outlined from
//! the file's own text and its spans are the file's line numbers.
//!
//! The forms, as each tool writes them (the sources are cited on [`Form`]):
//! `cat -n`, `nl -ba` and str_replace_editor's `view` (`%6d\t`), `nl` (blank
//! lines printed as spaces, not numbered), Claude Code's Read (`12\ttext`,
//! `12:text` for a file indented with tabs, and before 2.1 `     12→text`),
//! SWE-agent's windowed viewer (`12:text` under `[File: /p (N lines total)]`
//! and `(K more lines above)`), opencode's read (`12: text` inside
//! `<content>`, before 1.0 `00012| text`), Copilot CLI's `view` (`12. text`),
//! and Gemini CLI's truncated `read_file` (no numbers: the lines after its
//! `--- FILE CONTENT (truncated) ---` header are lines A-B its status line
//! names).
//!
//! A read is a run of rows numbered one after the other (a header of a few
//! rows above it, a footer below it): the numbers must count up by one on
//! every row, so a list that merely starts with numbers is not one.

/// How a read numbers its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The number (right-aligned or not), a tab: `cat -n`, `nl -ba`,
    /// str_replace_editor's `view` (`"{:6}\t{}"`, SWE-agent
    /// tools/edit_anthropic/bin/str_replace_editor `_make_output`), Claude
    /// Code's Read (`${n}\t${line}`, @anthropic-ai/claude-code 2.1.328, the
    /// bundle's `D_r`).
    Tab,
    /// `nl` without `-ba`: as [`Form::Tab`], but a blank line is printed as
    /// spaces alone and not counted.
    TabSkippingBlank,
    /// Claude Code's Read before 2.1: the number right-aligned in 6, `→`.
    Arrow,
    /// The number, a colon: SWE-agent's windowed viewer (`f"{i}:{line}"`,
    /// tools/windowed/lib/windowed_file.py `get_window_text`), Claude Code's
    /// Read of a file indented with tabs (the bundle's `RUt`).
    Colon,
    /// The number, a colon, a space: opencode's read (`${n}: ${line}`,
    /// opencode 1.18.33 packages/opencode/src/tool/read.ts).
    ColonSpace,
    /// opencode's read before 1.0: the number zero-padded to 5, `| `.
    Pipe,
    /// The number, a dot, a space: Copilot CLI's `view`.
    Dot,
    /// No numbers: the lines after a header that says which they are
    /// (Gemini CLI's truncated `read_file`).
    Plain,
}

impl Form {
    /// The forms tried, in order (an ambiguous row reads as the first).
    const NUMBERED: [Form; 6] = [
        Form::Tab,
        Form::Arrow,
        Form::ColonSpace,
        Form::Colon,
        Form::Pipe,
        Form::Dot,
    ];

    /// The row's number and the byte where the file's text starts, when the
    /// row is numbered this way.
    fn parse(self, row: &str) -> Option<(usize, usize)> {
        let digits_at = match self {
            Form::Tab | Form::TabSkippingBlank | Form::Arrow => {
                row.len() - row.trim_start_matches(' ').len()
            }
            _ => 0,
        };
        let rest = &row[digits_at..];
        let n_digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if n_digits == 0 || n_digits > 9 {
            return None;
        }
        let n: usize = rest[..n_digits].parse().ok()?;
        let after = &rest[n_digits..];
        let sep = match self {
            Form::Tab | Form::TabSkippingBlank => "\t",
            Form::Arrow => "→",
            Form::Colon => ":",
            Form::ColonSpace => ": ",
            Form::Pipe if n_digits == 5 => "| ",
            Form::Dot => ". ",
            Form::Pipe | Form::Plain => return None,
        };
        after
            .starts_with(sep)
            .then_some((n, digits_at + n_digits + sep.len()))
    }
}

/// A line-numbered read recognised in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    /// How its lines are numbered.
    pub form: Form,
    /// The text with every row kept (as many lines as the text): the file's
    /// text on the rows of the read (numbers stripped), the rows above and
    /// below it (a header, a footer) left empty.
    pub source: String,
    /// The text's row (1-based) holding the read's first line.
    pub first_row: usize,
    /// The text's row holding its last line.
    pub last_row: usize,
    /// The file's line the first row is.
    pub first_line: usize,
    /// The file, when a header names it.
    pub path: Option<String>,
    /// The file's lines, when a header says.
    pub total_lines: Option<usize>,
}

impl Read {
    /// The file's line that row `row` of the text is (rows of the read).
    pub fn line_of_row(&self, row: usize) -> usize {
        (row + self.first_line).saturating_sub(self.first_row)
    }

    /// The file's last line shown.
    pub fn last_line(&self) -> usize {
        self.line_of_row(self.last_row)
    }

    /// The read's rows alone, their numbers stripped: the file's lines
    /// `first_line..=last_line()`.
    pub fn body(&self) -> String {
        self.source
            .split_inclusive('\n')
            .skip(self.first_row - 1)
            .take(self.last_row + 1 - self.first_row)
            .collect()
    }
}

/// The most rows above a read (a header: `[File: ...]`, `<path>`...).
const MAX_HEADER: usize = 8;
/// The fewest rows a read has.
const MIN_ROWS: usize = 3;

/// The line-numbered read `text` is, if it is one: a run of at least three
/// rows numbered one after the other, beginning within the first rows (under
/// a header of at most 8) and going on to the end but for a footer shorter
/// than a tenth of the rows (at least 12 allowed).
pub fn detect(text: &str) -> Option<Read> {
    let rows: Vec<&str> = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let max_footer = (rows.len() / 10).max(12);
    if let Some(r) = gemini(&rows) {
        return finish(text, &rows, r, max_footer);
    }
    for start in 0..rows.len().min(MAX_HEADER + 1) {
        let best = Form::NUMBERED
            .into_iter()
            .filter_map(|f| run(&rows, start, f))
            .max_by_key(|r| r.end);
        if let Some(r) = best.filter(|r| r.end - r.start >= MIN_ROWS) {
            return finish(text, &rows, r, max_footer);
        }
    }
    None
}

/// A run of numbered rows `start..end`, its form and its first number.
struct Run {
    form: Form,
    start: usize,
    end: usize,
    first: usize,
}

/// The rows numbered `form`'s way from `start` on, one after the other.
fn run(rows: &[&str], start: usize, form: Form) -> Option<Run> {
    let (first, _) = form.parse(rows[start])?;
    let mut form = form;
    let mut next = first + 1;
    let mut end = start + 1;
    while let Some(row) = rows.get(end) {
        match form.parse(row) {
            Some((n, _)) if n == next => next += 1,
            // `nl`'s blank line: spaces alone, not numbered
            None if matches!(form, Form::Tab | Form::TabSkippingBlank)
                && !row.is_empty()
                && row.trim().is_empty() =>
            {
                form = Form::TabSkippingBlank;
            }
            _ => break,
        }
        end += 1;
    }
    // a form whose text always follows a space: the colon forms read alike
    // (SWE-agent's `12:` with an indented line is `12: `), and a tab-indented
    // file read by Claude Code (`12:\tx`) too: `12: ` is opencode's only when
    // every row has it
    if form == Form::Colon
        && rows[start..end]
            .iter()
            .all(|r| Form::ColonSpace.parse(r).is_some())
    {
        form = Form::ColonSpace;
    }
    let mut start = start;
    // `nl` numbers a file's first line 1 even after blank lines above it
    if form == Form::TabSkippingBlank && first == 1 {
        while start > 0 && !rows[start - 1].is_empty() && rows[start - 1].trim().is_empty() {
            start -= 1;
        }
    }
    Some(Run {
        form,
        start,
        end,
        first,
    })
}

/// Gemini CLI's truncated read_file (@google/gemini-cli 0.61.0, bundle
/// chunk-5FZXKDXH.js): `Status: Showing lines A-B of N total lines.`, then
/// the file's lines A-B unnumbered after `--- FILE CONTENT (truncated) ---`.
fn gemini(rows: &[&str]) -> Option<Run> {
    let marker = rows
        .iter()
        .take(MAX_HEADER + 1)
        .position(|r| *r == "--- FILE CONTENT (truncated) ---")?;
    let status = rows[..marker]
        .iter()
        .find_map(|r| r.strip_prefix("Status: Showing lines "))?;
    let (a, rest) = status.split_once('-')?;
    let (b, _) = rest.split_once(" of ")?;
    let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
    let start = marker + 1;
    let end = (start + (b + 1).checked_sub(a)?).min(rows.len());
    (a >= 1 && end > start).then_some(Run {
        form: Form::Plain,
        start,
        end,
        first: a,
    })
}

/// The read of a run: its source, span and the header's facts.
fn finish(text: &str, rows: &[&str], r: Run, max_footer: usize) -> Option<Read> {
    if rows.len() - r.end > max_footer {
        return None;
    }
    let mut source = String::with_capacity(text.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let (body, end) = match line.strip_suffix("\r\n") {
            Some(b) => (b, "\r\n"),
            None => match line.strip_suffix('\n') {
                Some(b) => (b, "\n"),
                None => (line, ""),
            },
        };
        if (r.start..r.end).contains(&i) {
            match r.form {
                Form::Plain => source.push_str(body),
                f => {
                    if let Some((_, at)) = f.parse(body) {
                        source.push_str(&body[at..]);
                    }
                }
            }
        }
        source.push_str(end);
    }
    let (path, total_lines) = header(&rows[..r.start]);
    Some(Read {
        form: r.form,
        source,
        first_row: r.start + 1,
        last_row: r.end,
        first_line: r.first,
        path,
        total_lines,
    })
}

/// The file a header names, and its lines when it says.
fn header(rows: &[&str]) -> (Option<String>, Option<usize>) {
    for row in rows {
        // SWE-agent: `[File: /repo/a.py (312 lines total)]`
        if let Some(rest) = row
            .strip_prefix("[File: ")
            .and_then(|r| r.strip_suffix(" lines total)]"))
            && let Some((p, n)) = rest.rsplit_once(" (")
        {
            return (Some(p.to_string()), n.parse().ok());
        }
        // str_replace_editor: "Here's the result of running `cat -n` on /repo/a.py:"
        if let Some(p) = row
            .strip_prefix("Here's the result of running `cat -n` on ")
            .and_then(|r| r.strip_suffix(':'))
        {
            return (Some(p.to_string()), None);
        }
        // opencode: `<path>/repo/a.py</path>`
        if let Some(p) = row
            .strip_prefix("<path>")
            .and_then(|r| r.strip_suffix("</path>"))
        {
            return (Some(p.to_string()), None);
        }
    }
    (None, None)
}

#[cfg(test)]
mod tests;
