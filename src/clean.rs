//! Terminal noise: ANSI escape sequences, `\r` overwrites and backspaces, runs of
//! identical lines. Cleaning keeps a map from every cleaned line back to the
//! original lines it stands for, so markers count the original output.

use crate::cut::{Origin, count_chars};

/// What cleaning did, counted exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct CleanStats {
    /// ANSI escape sequences removed.
    pub ansi_sequences: usize,
    /// Lines where `\r` or backspace overwrote earlier text (progress bars).
    pub overwritten_lines: usize,
    /// Runs of identical lines collapsed.
    pub repeat_runs: usize,
    /// Lines removed by collapsing (the repeats, not the first of each run).
    pub repeated_lines: usize,
}

impl CleanStats {
    pub fn changed(&self) -> bool {
        self.ansi_sequences + self.overwritten_lines + self.repeat_runs > 0
    }

    /// `12 ANSI escape sequences removed, 3 progress-bar lines resolved, ...`
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.ansi_sequences > 0 {
            parts.push(format!(
                "{} removed",
                crate::hints::plural(
                    self.ansi_sequences,
                    "ANSI escape sequence",
                    "ANSI escape sequences"
                )
            ));
        }
        if self.overwritten_lines > 0 {
            parts.push(format!(
                "{} with \\r/backspace overwrites resolved to their final state",
                crate::hints::plural(self.overwritten_lines, "line", "lines")
            ));
        }
        if self.repeat_runs > 0 {
            parts.push(format!(
                "{} collapsed ({} removed)",
                crate::hints::plural(
                    self.repeat_runs,
                    "run of identical lines",
                    "runs of identical lines"
                ),
                crate::hints::plural(self.repeated_lines, "repeated line", "repeated lines")
            ));
        }
        parts.join("; ")
    }
}

/// The cleaned text with its map back to the original.
#[derive(Debug, Clone)]
pub struct Cleaned {
    pub text: String,
    /// Per cleaned line: the original lines and bytes it stands for.
    pub origin: Vec<Origin>,
    pub stats: CleanStats,
}

/// Runs shorter than this are left alone (collapsing 2 lines saves nothing).
pub const MIN_RUN: usize = 3;

/// Strip ANSI escapes from one line and apply `\r` / backspace overwrites.
/// Returns the cleaned line, the number of escape sequences removed and whether
/// an overwrite happened.
fn clean_line(line: &str) -> (String, usize, bool) {
    let mut seqs = 0;
    let mut overwrote = false;
    let mut buf: Vec<char> = Vec::with_capacity(line.len());
    let mut pos = 0usize;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => {
                seqs += 1;
                match chars.peek() {
                    Some('[') => {
                        chars.next();
                        // CSI: parameter bytes, intermediates, then one final byte @..~
                        let mut params = String::new();
                        let mut fin = None;
                        for d in chars.by_ref() {
                            if ('@'..='~').contains(&d) {
                                fin = Some(d);
                                break;
                            }
                            params.push(d);
                        }
                        let n = params
                            .split(';')
                            .next()
                            .and_then(|p| p.parse::<usize>().ok());
                        match fin {
                            // erase in line: to the end, to the start, whole line
                            Some('K') => match n.unwrap_or(0) {
                                0 => buf.truncate(pos),
                                1 => buf.iter_mut().take(pos + 1).for_each(|c| *c = ' '),
                                _ => buf.iter_mut().for_each(|c| *c = ' '),
                            },
                            // cursor forward / back / to column
                            Some('C') => pos += n.unwrap_or(1).max(1),
                            Some('D') => pos = pos.saturating_sub(n.unwrap_or(1).max(1)),
                            Some('G') => pos = n.unwrap_or(1).max(1) - 1,
                            _ => {}
                        }
                        while buf.len() < pos && matches!(fin, Some('C' | 'G')) {
                            buf.push(' ');
                        }
                    }
                    Some(']') | Some('P') | Some('_') | Some('^') => {
                        chars.next();
                        // OSC / DCS / APC / PM: until BEL or ESC \
                        while let Some(d) = chars.next() {
                            if d == '\x07' {
                                break;
                            }
                            if d == '\x1b' && chars.peek() == Some(&'\\') {
                                chars.next();
                                break;
                            }
                        }
                    }
                    Some(_) => {
                        // ESC, intermediates (space../), one final byte (charset
                        // designations like ESC ( B, keypad modes like ESC =)
                        while let Some(&d) = chars.peek() {
                            chars.next();
                            if !(' '..='/').contains(&d) {
                                break;
                            }
                        }
                    }
                    None => {}
                }
            }
            '\r' => {
                if pos > 0 || !buf.is_empty() {
                    overwrote = true;
                }
                pos = 0;
            }
            '\x08' => {
                overwrote = true;
                pos = pos.saturating_sub(1);
            }
            c => {
                if pos < buf.len() {
                    buf[pos] = c;
                } else {
                    buf.push(c);
                }
                pos += 1;
            }
        }
    }
    (buf.into_iter().collect(), seqs, overwrote)
}

/// The line being repeated: its cleaned content and the repeats seen since.
struct Run {
    content: String,
    /// Each repeat's origin and line terminator.
    repeats: Vec<(Origin, &'static str)>,
}

impl Run {
    /// Write the repeats: one annotation line for a long run, else the lines again.
    fn flush(self, out: &mut String, origin: &mut Vec<Origin>, stats: &mut CleanStats) {
        let n = self.repeats.len();
        if n == 0 {
            return;
        }
        if n + 1 >= MIN_RUN {
            let (first, _) = self.repeats[0];
            let (last, term) = self.repeats[n - 1];
            out.push_str(&format!(
                "(repeated {n} more {})",
                if n == 1 { "time" } else { "times" }
            ));
            out.push_str(if term.is_empty() { "\n" } else { term });
            origin.push(Origin {
                first_line: first.first_line,
                lines: n,
                start: first.start,
                end: last.end,
            });
            stats.repeat_runs += 1;
            stats.repeated_lines += n;
        } else {
            for (o, term) in self.repeats {
                out.push_str(&self.content);
                out.push_str(term);
                origin.push(o);
            }
        }
    }
}

/// Clean `text`. Lines are split on `\n`; a `\r` right before `\n` is a line
/// ending (kept), any other `\r` is an overwrite.
pub fn clean(text: &str) -> Cleaned {
    let mut stats = CleanStats::default();
    let mut out = String::with_capacity(text.len());
    let mut origin: Vec<Origin> = Vec::new();
    let mut run: Option<Run> = None;
    let mut line_no = 0usize;
    let mut start = 0usize;
    while start < text.len() {
        let end =
            memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i + 1);
        let raw = &text[start..end];
        let (body, term) = match raw.strip_suffix('\n') {
            Some(b) => match b.strip_suffix('\r') {
                Some(b) => (b, "\r\n"),
                None => (b, "\n"),
            },
            None => (raw, ""),
        };
        let cleaned: String = if body.contains(['\x1b', '\r', '\x08']) {
            let (c, seqs, ow) = clean_line(body);
            stats.ansi_sequences += seqs;
            if ow {
                stats.overwritten_lines += 1;
            }
            c
        } else {
            body.to_string()
        };
        let this = Origin {
            first_line: line_no,
            lines: 1,
            start,
            end,
        };
        match run.as_mut() {
            Some(r) if r.content == cleaned && !cleaned.trim().is_empty() => {
                r.repeats.push((this, term));
            }
            _ => {
                if let Some(r) = run.take() {
                    r.flush(&mut out, &mut origin, &mut stats);
                }
                out.push_str(&cleaned);
                out.push_str(term);
                origin.push(this);
                run = Some(Run {
                    content: cleaned,
                    repeats: Vec::new(),
                });
            }
        }
        line_no += 1;
        start = end;
    }
    if let Some(r) = run.take() {
        r.flush(&mut out, &mut origin, &mut stats);
    }
    Cleaned {
        text: out,
        origin,
        stats,
    }
}

/// Characters of the original text an origin stands for.
pub fn origin_chars(original: &str, o: &Origin) -> usize {
    count_chars(&original[o.start..o.end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_and_progress_bars() {
        let t = "\x1b[1m\x1b[32m   Compiling\x1b[0m foo\n 10%\r 50%\r100%\nok\n";
        let c = clean(t);
        assert_eq!(c.text, "   Compiling foo\n100%\nok\n");
        assert_eq!(c.stats.ansi_sequences, 3);
        assert_eq!(c.stats.overwritten_lines, 1);
        assert_eq!(c.origin.len(), 3);
    }

    #[test]
    fn overwrite_keeps_terminal_semantics() {
        assert_eq!(clean_line("abcdef\rXY").0, "XYcdef");
        assert_eq!(clean_line("abc\x08\x08Z").0, "aZc");
        assert_eq!(clean_line("\x1b]0;title\x07text").0, "text");
        assert_eq!(clean_line("ok\x1b(B\x1b[m.").0, "ok.");
        // cargo's progress bar: text, \r, erase to end of line, new text
        assert_eq!(
            clean_line("    Building [==>   ] 3/9: foo\r\x1b[K   Compiling bar v1").0,
            "   Compiling bar v1"
        );
    }

    #[test]
    fn crlf_is_a_line_ending_not_an_overwrite() {
        let c = clean("a\r\nb\r\n");
        assert_eq!(c.text, "a\r\nb\r\n");
        assert!(!c.stats.changed());
    }

    #[test]
    fn runs_collapse_with_exact_counts_and_origins() {
        let t = "start\nsame\nsame\nsame\nsame\nend\nx\nx\ny";
        let c = clean(t);
        assert_eq!(c.text, "start\nsame\n(repeated 3 more times)\nend\nx\nx\ny");
        assert_eq!(c.stats.repeat_runs, 1);
        assert_eq!(c.stats.repeated_lines, 3);
        // the annotation stands for original lines 3-5 (0-based 2..=4)
        assert_eq!(c.origin[2].first_line, 2);
        assert_eq!(c.origin[2].lines, 3);
        assert_eq!(&t[c.origin[2].start..c.origin[2].end], "same\nsame\nsame\n");
        // the run of 2 `x` is kept as it was, each with its own line
        assert_eq!(c.origin[5].first_line, 7);
        assert_eq!(c.origin.len(), 7);
    }
}
