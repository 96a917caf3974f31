//! Terminal noise in one line: ANSI escape sequences, `\r` overwrites and
//! backspaces. Runs of identical lines are collapsed by the scan (`scan.rs`),
//! which keeps the map from every cleaned line back to the original.

/// What cleaning did, counted exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[non_exhaustive]
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
    /// Whether cleaning changed anything.
    pub fn changed(&self) -> bool {
        self.ansi_sequences + self.overwritten_lines + self.repeat_runs > 0
    }

    /// `12 ANSI escape sequences removed, 3 progress-bar lines resolved, ...`
    pub fn describe(&self) -> String {
        crate::render::notes::cleaning(
            self.ansi_sequences,
            self.overwritten_lines,
            self.repeat_runs,
            self.repeated_lines,
        )
    }
}

/// Runs shorter than this are left alone (collapsing 2 lines saves nothing).
pub const MIN_RUN: usize = 3;

/// Strip ANSI escapes from one line and apply `\r` / backspace overwrites.
/// Returns the cleaned line, the number of escape sequences removed and whether
/// an overwrite happened.
pub fn clean_line(line: &str) -> (String, usize, bool) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
