//! Logs: the level of each line (`ERROR`, `WARN`, `INFO`, `DEBUG`, `TRACE`,
//! ...), counted with the first and last line of each. A line's level is the
//! first level word among its first 120 bytes: an upper-case word alone
//! (`2024-01-01T00:00:00Z DEBUG cargo::core`), or any case in brackets
//! (`[info]`), after `level=` (logfmt) or as a JSON `"level":"warn"`.

/// One level's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    /// As the log writes it, upper-cased (`WARNING` and `WARN` stay apart).
    pub name: String,
    pub lines: usize,
    /// The first and last line with it (1-based).
    pub first: usize,
    pub last: usize,
}

/// The levels of a log, most severe first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelsView {
    /// Each level found, most severe first.
    pub levels: Vec<Level>,
    /// Lines with a level.
    pub leveled: usize,
}

const NAMES: [&str; 12] = [
    "FATAL", "CRITICAL", "CRIT", "ERROR", "ERR", "WARNING", "WARN", "NOTICE", "INFO", "DEBUG",
    "TRACE", "VERBOSE",
];

/// The level a line is written at, if any (its bytes: the level words are
/// ASCII, so a line's bytes hold one where its text does).
#[cfg(test)]
pub fn level_of(line: &str) -> Option<&'static str> {
    level_of_bytes(line.as_bytes())
}

fn level_of_bytes(line: &[u8]) -> Option<&'static str> {
    let head = &line[..line.len().min(120)];
    // a word joined to a name (`log.error`, `error_count`) is not a level
    let joined = |c: Option<&u8>| {
        c.is_some_and(|&c| {
            c.is_ascii_alphanumeric() || c >= 0x80 || matches!(c, b'_' | b'.' | b'-' | b'/' | b'\'')
        })
    };
    let mut i = 0;
    while i < head.len() {
        if !head[i].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        while i < head.len() && head[i].is_ascii_alphabetic() {
            i += 1;
        }
        let word = &head[start..i];
        if !(3..=8).contains(&word.len()) {
            continue;
        }
        let before = start.checked_sub(1).and_then(|k| head.get(k));
        let after = head.get(i);
        let upper = word.iter().all(u8::is_ascii_uppercase);
        let marked = matches!(
            (before, after),
            (Some(b'['), Some(b']')) | (Some(b'<'), Some(b'>'))
        ) || head[..start].ends_with(b"level=")
            || head[..start].ends_with(b"\"level\":\"")
            || head[..start].ends_with(b"\"level\": \"");
        let alone = upper
            && !joined(before)
            && (after == Some(&b':') || !joined(after) && after != Some(&b':'));
        if !(marked || alone) {
            continue;
        }
        if let Some(n) = NAMES
            .iter()
            .find(|n| n.as_bytes().eq_ignore_ascii_case(word))
        {
            return Some(n);
        }
    }
    None
}

#[derive(Debug, Default)]
pub(super) struct Reader {
    levels: Vec<Level>,
    leveled: usize,
}

impl Reader {
    pub(super) fn line(&mut self, n: usize, line: &[u8]) {
        let Some(name) = level_of_bytes(line) else {
            return;
        };
        self.leveled += 1;
        match self.levels.iter_mut().find(|l| l.name == name) {
            Some(l) => {
                l.lines += 1;
                l.last = n;
            }
            None => self.levels.push(Level {
                name: name.to_string(),
                lines: 1,
                first: n,
                last: n,
            }),
        }
    }

    pub(super) fn finish(mut self, lines: usize) -> Option<LevelsView> {
        // a log: a level on a third of the lines at least, and on ten
        if self.leveled < 10 || self.leveled * 3 < lines {
            return None;
        }
        let rank = |n: &str| NAMES.iter().position(|x| *x == n).unwrap_or(NAMES.len());
        self.levels.sort_by_key(|l| rank(&l.name));
        Some(LevelsView {
            levels: self.levels,
            leveled: self.leveled,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::level_of;

    #[test]
    fn levels_are_words_of_their_own() {
        assert_eq!(
            level_of("   0.04s DEBUG main:exec: cargo::core"),
            Some("DEBUG")
        );
        assert_eq!(
            level_of("2024-01-01 12:00:00,123 - app - WARNING - disk low"),
            Some("WARNING")
        );
        assert_eq!(level_of("[info] started"), Some("INFO"));
        assert_eq!(level_of("ts=1 level=error msg=x"), Some("ERROR"));
        assert_eq!(level_of("{\"level\":\"warn\",\"msg\":\"x\"}"), Some("WARN"));
        assert_eq!(level_of("ERROR: could not open"), Some("ERROR"));
        assert_eq!(level_of("log.error(\"x\")"), None);
        assert_eq!(level_of("an error happened"), None);
        assert_eq!(level_of("ERROR_CODE = 3"), None);
    }
}
