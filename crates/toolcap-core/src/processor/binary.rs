//! Binary and non-text results: detected and summarised instead of cut.
//!
//! A result holding NUL characters, or made mostly of characters no text has
//! (invalid UTF-8 decoded as U+FFFD, control characters), is not cut by lines —
//! its "lines" mean nothing and a cut could land inside a multi-byte sequence of
//! the original. The model sees one marker with its exact size, a type guess from
//! the magic bytes at its start, its first printable strings, and commands that
//! look at the bytes properly.

use serde_json::Value;

use super::family::{BinaryCall, HEX, STRINGS, STRINGS_SHOWN, shell_call};
use super::resolve::Resolved;
use super::{LineRange, Omitted, Processed, Reason, ToolCall};
use crate::config::{Config, RecoveryCalls};
use crate::hints::{
    BinaryOf, Entry, Evidence, Fact, Listing, Look, Note, Purpose, RecoveryModel, Title,
};
use crate::quote;
use crate::render::facts::stored_fact;
use crate::render::marker;
use crate::text::ellipsize;

/// Characters looked at to decide (the start of the result, like git and grep do).
pub const SAMPLE_CHARS: usize = 8192;

/// At least this percentage of non-text characters in the sample makes a result
/// binary (one NUL is enough on its own).
pub const NON_TEXT_PERCENT: usize = 30;

/// Printable strings shorter than this are not listed.
pub const MIN_STRING: usize = 8;

/// At most this many printable strings are listed; the rest are counted.
pub const MAX_STRINGS: usize = 10;

/// Why a result was taken for binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary {
    /// Characters looked at (the first [`SAMPLE_CHARS`]).
    pub sample: usize,
    /// NUL characters among them.
    pub nul: usize,
    /// Non-text characters among them (NULs included).
    pub non_text: usize,
    /// What the data looks like (`PNG image`), from its magic bytes.
    pub guess: Option<&'static str>,
}

impl Binary {
    /// `1,204 NUL and 3,310 non-text chars in the first 8,192`.
    pub fn describe(&self) -> String {
        self.evidence().to_string()
    }

    /// Why it was taken for binary, as the recovery section states it.
    pub fn evidence(&self) -> Evidence {
        Evidence {
            nul: self.nul,
            non_text: self.non_text,
            sample: self.sample,
        }
    }
}

/// A character no text has: NUL, the replacement character (invalid UTF-8 in the
/// original), and control characters other than tab, newlines, form feed,
/// backspace and escape (terminal output uses the last two).
fn non_text(c: char) -> bool {
    match c {
        '\t' | '\n' | '\r' | '\x0c' | '\x08' | '\x1b' => false,
        '\u{FFFD}' => true,
        c => c.is_control(),
    }
}

/// Whether `text` is binary data, and what it looks like.
pub fn detect(text: &str) -> Option<Binary> {
    let mut sample = 0;
    let mut nul = 0;
    let mut bad = 0;
    for c in text.chars().take(SAMPLE_CHARS) {
        sample += 1;
        if c == '\0' {
            nul += 1;
        }
        if non_text(c) {
            bad += 1;
        }
    }
    if sample == 0 || (nul == 0 && bad * 100 < sample * NON_TEXT_PERCENT) {
        return None;
    }
    Some(Binary {
        sample,
        nul,
        non_text: bad,
        guess: guess(text, sample, nul),
    })
}

/// Magic numbers of common binary formats. A byte of 0x80 or more matches any
/// non-ASCII character: the text reaching us was decoded lossily, so such bytes
/// arrive as U+FFFD.
const MAGIC: &[(&[u8], &str)] = &[
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (
        b"PK\x03\x04",
        "ZIP archive (or jar, docx, xlsx, apk, wheel)",
    ),
    (b"PK\x05\x06", "ZIP archive (empty)"),
    (b"\x1f\x8b", "gzip data"),
    (b"BZh", "bzip2 data"),
    (b"\xfd7zXZ\x00", "xz data"),
    (b"\x28\xb5\x2f\xfd", "zstd data"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"\x7fELF", "ELF executable or library"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (
        b"\xca\xfe\xba\xbe",
        "Mach-O universal binary or Java class file",
    ),
    (b"\x00asm", "WebAssembly module"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"OggS", "Ogg media"),
    (b"ID3", "MP3 audio"),
    (b"fLaC", "FLAC audio"),
    (b"\x1aE\xdf\xa3", "Matroska/WebM video"),
    (b"wOFF", "WOFF font"),
    (b"wOF2", "WOFF2 font"),
    (b"\x00\x01\x00\x00\x00", "TrueType font"),
    (b"OTTO", "OpenType font"),
    (b"MZ", "Windows executable (PE/DOS)"),
    (b"\xff\xd8\xff", "JPEG image"),
];

fn magic_at(text: &str, skip: usize, sig: &[u8]) -> bool {
    let mut chars = text.chars().skip(skip);
    sig.iter().all(|&b| match chars.next() {
        Some(c) if b < 0x80 => c as u32 == u32::from(b),
        Some(c) => !c.is_ascii(),
        None => false,
    })
}

/// What the data looks like, from its first characters.
fn guess(text: &str, sample: usize, nul: usize) -> Option<&'static str> {
    // RIFF containers and ISO media name their type a few bytes in.
    if magic_at(text, 0, b"RIFF") {
        return Some(if magic_at(text, 8, b"WEBP") {
            "WebP image"
        } else if magic_at(text, 8, b"WAVE") {
            "WAV audio"
        } else {
            "RIFF data"
        });
    }
    if magic_at(text, 4, b"ftyp") {
        return Some("MP4/QuickTime media");
    }
    if magic_at(text, 257, b"ustar") {
        return Some("tar archive");
    }
    // Text in UTF-16: every other character a NUL.
    if nul * 5 >= sample * 2 {
        let odd_nul = text
            .chars()
            .take(SAMPLE_CHARS)
            .skip(1)
            .step_by(2)
            .filter(|&c| c == '\0')
            .count();
        let even_nul = text
            .chars()
            .take(SAMPLE_CHARS)
            .step_by(2)
            .filter(|&c| c == '\0')
            .count();
        if odd_nul * 10 >= sample * 4 && even_nul * 10 < sample / 2 {
            return Some("UTF-16LE text");
        }
        if even_nul * 10 >= sample * 4 && odd_nul * 10 < sample / 2 {
            return Some("UTF-16BE text");
        }
    }
    MAGIC
        .iter()
        .find(|(sig, _)| magic_at(text, 0, sig))
        .map(|&(_, name)| name)
}

/// Runs of at least [`MIN_STRING`] printable ASCII characters: the first
/// [`MAX_STRINGS`] (shortened for display) and how many there are in all.
pub fn printable_strings(text: &str) -> (Vec<String>, usize) {
    let mut first = Vec::new();
    let mut total = 0;
    let mut run = String::new();
    let mut flush = |run: &mut String| {
        if run.chars().count() >= MIN_STRING {
            total += 1;
            if first.len() < MAX_STRINGS {
                first.push(if run.len() > 60 {
                    ellipsize(run, 60)
                } else {
                    run.clone()
                });
            }
        }
        run.clear();
    };
    for c in text.chars() {
        if c == ' ' || c.is_ascii_graphic() {
            if run.len() < 1000 {
                run.push(c);
            }
        } else {
            flush(&mut run);
        }
    }
    flush(&mut run);
    (first, total)
}

/// The start of a text that decides whether it is binary: its first
/// [`SAMPLE_CHARS`] chars. From a stream, decode at least [`SAMPLE_BYTES`] bytes
/// first: the sample is then the same as the whole text's.
pub fn sample(text: &str) -> &str {
    &text[..text
        .char_indices()
        .nth(SAMPLE_CHARS)
        .map_or(text.len(), |(i, _)| i)]
}

/// Bytes that always decode to at least [`SAMPLE_CHARS`] chars (or all there is),
/// with room for a sequence cut at the end.
pub const SAMPLE_BYTES: usize = SAMPLE_CHARS * 4 + 4;

/// `out` (the report so far, with the original's totals) completed for a binary
/// result of `call` whose start is `sample` (see [`sample`]): one marker and a
/// recovery section instead of a cut (`out.stored`: where the whole result was
/// kept, if it was). Depends only on the totals, the sample and where it was
/// kept, so a streamed result gets the same summary.
pub(super) fn summarise(
    mut out: Processed,
    b: &Binary,
    sample: &str,
    call: &ToolCall<'_>,
    r: &Resolved<'_>,
    config: &Config,
) -> Processed {
    let totals = out.original;
    let what = b.guess.unwrap_or("binary data of an unknown type");
    let marker = marker::binary_marker(totals.chars, totals.lines, &b.describe(), what);
    let m = model(b, sample, call, r, config, &out);
    let rec = m.render().fit(crate::hints::RECOVERY_CAP);
    out.set_reason(Reason::Binary);
    out.kept = Vec::new();
    out.omitted = Omitted {
        chars: totals.chars,
        lines: totals.lines,
        ranges: (totals.lines > 0)
            .then_some(LineRange {
                start_line: 1,
                end_line: totals.lines,
            })
            .into_iter()
            .collect(),
    };
    out.language = Some("binary".to_string());
    out.text = format!("{marker}\n\n{}", rec.render());
    out.suggestions = rec.suggestions;
    out
}

/// The recovery section of a binary result: what it looks like, its first
/// printable strings, and the calls that look at its bytes: of the stored
/// output when it was kept (never by running the command again: it may
/// have effects), else as the family's hook says.
fn model(
    b: &Binary,
    sample: &str,
    call: &ToolCall<'_>,
    r: &Resolved<'_>,
    config: &Config,
    out: &Processed,
) -> RecoveryModel {
    let entry = r.entry();
    let mut m = RecoveryModel::default();
    m.facts.push(Fact::Binary {
        tool: call.name.to_string(),
        what: b
            .guess
            .unwrap_or("binary data of an unknown type")
            .to_string(),
        chars: out.original.chars,
        evidence: b.evidence(),
    });
    let (strings, n) = printable_strings(self::sample(sample));
    if !strings.is_empty() {
        m.structure = Some(Listing {
            title: Title::PrintableStrings {
                sample: b.sample,
                shown: strings.len(),
                total: n,
                min: MIN_STRING,
            },
            lines: strings.into_iter().map(Entry::Quoted).collect(),
        });
    }
    if let Some(s) = &out.stored {
        let id = &s.tool_call_id;
        // (in the C locale: the replacement characters of the decoded bytes
        // are not printable there)
        let filter = format!("LC_ALL=C {STRINGS} | head -n {STRINGS_SHOWN}");
        if let Some(c) = show_piped(config, id, &filter) {
            let purpose = Purpose::Binary {
                look: Look::Strings {
                    count: STRINGS_SHOWN,
                },
                of: BinaryOf::Stored,
            };
            m.suggestions.push(shell_call(config, c, purpose));
        }
        m.facts.push(stored_fact(&config.suggest, id, 0));
        return m;
    }
    let arg = |keys: &[String]| {
        let obj = call.args.as_object()?;
        keys.iter()
            .find_map(|k| obj.get(k).and_then(Value::as_str))
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let look = BinaryCall {
        path: arg(&entry.args.path),
        command: arg(&entry.args.command),
        config,
    };
    match r.strategy().binary_reads(&look) {
        Some(reads) => {
            m.suggestions.extend(reads.suggestions);
            m.notes.extend(reads.notes);
        }
        None => m.notes.push(Note::BinaryNoText {
            tool: call.name.to_string(),
            hex: HEX,
        }),
    }
    m
}

/// `toolcap show ID | FILTER` when recovery goes through `toolcap` commands in
/// the shell (the stored output, piped: the command does not run again).
fn show_piped(config: &Config, id: &str, filter: &str) -> Option<String> {
    let s = &config.suggest;
    let RecoveryCalls::Cli { program, options } = &s.recovery else {
        return None;
    };
    if s.shell.tool.is_empty() {
        return None;
    }
    let word = quote::shell_word(id)?;
    let word = if id.starts_with('-') {
        format!("-- {word}")
    } else {
        word
    };
    let opts = if options.is_empty() {
        String::new()
    } else {
        format!(" {options}")
    };
    Some(format!("{program} show{opts} {word} | {filter}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Family;
    use crate::processor::ToolResultProcessor;
    use crate::processor::family::builtin;

    /// Real gzip data (the glob fixture, compressed), as the text a tool
    /// returns it in (invalid UTF-8 replaced).
    fn gzip() -> String {
        let path = crate::test_fixture_path("binary/python_stdlib_py_files.txt.gz");
        let bytes = std::fs::read(&path).expect("the gzip fixture");
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The recovery section of `text` as the result of `tool` called with
    /// `args` (the tool's family from the default config), nothing stored.
    fn model_of(tool: &str, family: Family, text: &str, args: &Value) -> RecoveryModel {
        let config = Config::defaults();
        let call = ToolCall::new(tool, args);
        let r = Resolved::new(config.entry_for(tool), tool, builtin(family), false);
        let mut out = ToolResultProcessor::blank(&call, &r);
        out.original = crate::cut::index::LineIndex::new(text).totals();
        let b = detect(text).expect("binary");
        model(&b, text, &call, &r, &config, &out)
    }

    #[test]
    fn a_binary_file_read_is_summarised_as_data() {
        let text = gzip();
        let args = serde_json::json!({"path": "Lib/files.txt.gz"});
        let m = model_of("read_file", Family::ReadFile, &text, &args);
        // counted here from the text itself
        let sample: Vec<char> = text.chars().take(SAMPLE_CHARS).collect();
        let nul = sample.iter().filter(|&&c| c == '\0').count();
        assert!(nul > 0);
        let Fact::Binary {
            tool,
            what,
            chars,
            evidence,
        } = &m.facts[0]
        else {
            panic!("no binary fact: {:?}", m.facts);
        };
        assert_eq!((tool.as_str(), what.as_str()), ("read_file", "gzip data"));
        assert_eq!(*chars, text.chars().count());
        assert_eq!((evidence.nul, evidence.sample), (nul, sample.len()));
        assert_eq!(m.facts.len(), 1);
        // the file's bytes, looked at by the commands that read them
        let r = m.render();
        let calls: Vec<(&str, &str)> = r
            .suggestions
            .iter()
            .map(|s| (s.args["command"].as_str().unwrap_or(""), s.purpose.as_str()))
            .collect();
        assert_eq!(
            calls,
            [
                (
                    "od -A d -t x1z -N 512 Lib/files.txt.gz | head -n 40",
                    "the first 512 bytes of the file in hex"
                ),
                (
                    "grep -a -o -E '[[:print:]]{8,}' Lib/files.txt.gz | head -n 100",
                    "the first 100 printable strings in the file"
                ),
            ]
        );
        assert!(r.notes.is_empty());
    }

    #[test]
    fn binary_data_from_a_command_or_another_tool_gets_its_familys_reads() {
        let text = gzip();
        let args = serde_json::json!({"command": "cat files.txt.gz"});
        let m = model_of("shell", Family::Shell, &text, &args);
        assert_eq!(
            m.suggestions[0].purpose,
            String::from(Purpose::Binary {
                look: Look::Hex { bytes: 512 },
                of: BinaryOf::Output,
            })
        );
        assert_eq!(
            m.suggestions[0].purpose,
            "re-runs the command; the first 512 bytes of its output in hex"
        );
        // a tool no command can look at: the note says how to get text
        let m = model_of("lookup", Family::Generic, &text, &serde_json::json!({}));
        assert!(m.suggestions.is_empty());
        assert_eq!(
            m.notes,
            [Note::BinaryNoText {
                tool: "lookup".into(),
                hex: HEX,
            }]
        );
    }

    #[test]
    fn magic_bytes_survive_lossy_decoding() {
        let png = String::from_utf8_lossy(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0").into_owned();
        let b = detect(&png).expect("binary");
        assert_eq!(b.guess, Some("PNG image"));
        let elf = String::from_utf8_lossy(b"\x7fELF\x02\x01\x01\0\0\0\0\0").into_owned();
        assert_eq!(
            detect(&elf).and_then(|b| b.guess),
            Some("ELF executable or library")
        );
        let utf16: String = "hello world, this is text"
            .chars()
            .flat_map(|c| [c, '\0'])
            .collect();
        assert_eq!(detect(&utf16).and_then(|b| b.guess), Some("UTF-16LE text"));
    }

    #[test]
    fn text_with_escapes_and_a_few_odd_chars_is_text() {
        let t = "\x1b[31merror\x1b[0m: x\r\n\tok \u{FFFD} é ✓\n".repeat(100);
        assert_eq!(detect(&t), None);
        assert_eq!(detect(""), None);
    }

    #[test]
    fn printable_strings_are_counted_exactly() {
        let t = "\0\0short\0long enough one\0\u{FFFD}another long run\0x";
        let (s, n) = printable_strings(t);
        assert_eq!(n, 2);
        assert_eq!(s, ["long enough one", "another long run"]);
    }
}
