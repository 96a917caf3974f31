//! The input's bytes as text: UTF-8 when they are UTF-8 (invalid sequences
//! replaced), else — when they are clearly text in a legacy encoding (Shift_JIS,
//! EUC-JP, GBK, Big5, EUC-KR, windows-1252, ISO-8859-x, KOI8...) — decoded from
//! that encoding: the guess is `chardetng`'s (the detector of Firefox), the
//! decoding `encoding_rs`'s, and the text must decode without an error and look
//! like text (no NUL, almost no control characters), so binary data stays binary.
//!
//! A result that is mostly UTF-8 with a few stray bytes stays UTF-8 (its stray
//! bytes replaced): a legacy encoding is taken only when the sequences that are
//! not valid UTF-8 outnumber the non-ASCII characters that are, and number at
//! least 8 and one per 200 bytes of the start looked at (so ASCII text with a few
//! stray bytes, or a file with a rare accented letter, stays UTF-8 with U+FFFD).

use std::borrow::Cow;

use encoding_rs::Encoding;

/// Bytes the encoding is guessed from (the start of the input).
pub const GUESS_BYTES: usize = 64 * 1024;

/// Fewest sequences that are not UTF-8 (and at least one per 200 bytes of the
/// sample) for a legacy encoding to be considered: fewer are stray bytes.
const MIN_INVALID: usize = 8;

/// Control characters (other than tab, newlines, form feed, backspace, escape)
/// allowed per 1,000 chars of a decoded sample for it to count as text.
const MAX_CONTROLS_PER_MILLE: usize = 5;

/// The input decoded: its text, and the legacy encoding it was decoded from
/// (`None`: UTF-8).
#[derive(Debug)]
pub struct Decoded<'a> {
    pub text: Cow<'a, str>,
    pub encoding: Option<&'static Encoding>,
}

/// The legacy encoding `sample` (the start of an input, all of it when `last`)
/// is clearly text in, if any; `None` for UTF-8 (valid, or mostly so), binary
/// data, or text no encoding decodes cleanly.
pub fn legacy_encoding(sample: &[u8], last: bool) -> Option<&'static Encoding> {
    if std::str::from_utf8(sample).is_ok() || memchr::memchr(0, sample).is_some() {
        return None;
    }
    // mostly UTF-8, a few stray bytes: stays UTF-8 (a chunk cut inside a
    // character at the sample's end is not counted against it)
    let (mut utf8, mut invalid) = (0usize, 0usize);
    let mut chunks = sample.utf8_chunks().peekable();
    while let Some(c) = chunks.next() {
        utf8 += c.valid().chars().filter(|ch| !ch.is_ascii()).count();
        if !c.invalid().is_empty() && (last || chunks.peek().is_some()) {
            invalid += 1;
        }
    }
    // and enough of them to tell an encoding: a few stray bytes in ASCII text
    // are not evidence of one
    if invalid < MIN_INVALID.max(sample.len() / 200) || utf8 >= invalid {
        return None;
    }
    let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    det.feed(sample, last);
    let enc = det.guess(None, chardetng::Utf8Detection::Deny);
    if enc == encoding_rs::UTF_8 {
        return None;
    }
    // the sample decodes without an error (up to a character cut at its end)
    let mut dec = enc.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(sample.len() * 2);
    let (res, _) = dec.decode_to_string_without_replacement(sample, &mut out, last);
    match res {
        encoding_rs::DecoderResult::Malformed(..) => return None,
        encoding_rs::DecoderResult::InputEmpty | encoding_rs::DecoderResult::OutputFull => {}
    }
    let chars = out.chars().count().max(1);
    let controls = out
        .chars()
        .filter(|&c| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c' | '\x08' | '\x1b'))
        .count();
    (controls * 1000 <= chars * MAX_CONTROLS_PER_MILLE).then_some(enc)
}

/// The name `iconv` (glibc's) knows `encoding` (an `encoding_rs` name) by, with
/// the same table as `encoding_rs`'s decoder (the WHATWG one): the text a
/// suggestion's `iconv -f NAME -t UTF-8 FILE` writes is then the text toolcap
/// counted, byte for byte. glibc's `SHIFT_JIS` reads a backslash as `¥` and refuses
/// the NEC/IBM rows that the WHATWG Shift_JIS (Windows' code page 932) has;
/// its `EUC-KR` lacks the Windows (949) extension, its `GBK` the GB18030 four-byte
/// forms, its `BIG5` the HKSCS rows.
///
/// A name with no entry of its own is returned as given (glibc knows
/// `windows-1252`, `KOI8-R`, `ISO-8859-2`, ... by the same names). The
/// recovery section of a result decoded from a legacy encoding
/// ([`ToolCall::decoded_from`](crate::ToolCall::decoded_from)) names it by
/// this name, and its suggested commands read the file through
/// `iconv -f NAME -t UTF-8`; a caller that writes its own `iconv` command line
/// uses it too.
///
/// ```
/// use toolcap_core::iconv_name;
///
/// assert_eq!(iconv_name("Shift_JIS"), "CP932");
/// assert_eq!(iconv_name("GBK"), "GB18030");
/// assert_eq!(iconv_name("windows-1252"), "windows-1252");
/// ```
pub fn iconv_name(encoding: &str) -> &str {
    match encoding {
        "Shift_JIS" => "CP932",
        "EUC-JP" => "EUC-JP-MS",
        "EUC-KR" => "CP949",
        "GBK" | "gb18030" => "GB18030",
        "Big5" => "BIG5-HKSCS",
        "ISO-8859-8-I" => "ISO-8859-8",
        "x-mac-cyrillic" => "MAC-CYRILLIC",
        other => other,
    }
}

/// `bytes` as text: see the module docs.
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
    let sample = &bytes[..bytes.len().min(GUESS_BYTES)];
    match legacy_encoding(sample, sample.len() == bytes.len()) {
        Some(enc) => Decoded {
            text: enc.decode_without_bom_handling(bytes).0,
            encoding: Some(enc),
        },
        None => Decoded {
            text: String::from_utf8_lossy(bytes),
            encoding: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_binary_and_stray_bytes_stay_utf8() {
        assert!(decode("héllo wörld\n".as_bytes()).encoding.is_none());
        // PNG: a NUL
        assert!(decode(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").encoding.is_none());
        // UTF-8 text with one stray Latin-1 byte
        let mut b = "naïve café résumé façade\n".repeat(20).into_bytes();
        b.push(0xe9);
        b.push(b'\n');
        let d = decode(&b);
        assert!(d.encoding.is_none());
        assert!(d.text.ends_with("\u{FFFD}\n"));
    }

    #[test]
    fn legacy_text_is_decoded() {
        let ja = "日本語のテキストです。これはテストです。\n".repeat(30);
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode(&ja);
        let d = decode(&sjis);
        assert_eq!(d.encoding, Some(encoding_rs::SHIFT_JIS));
        assert!(d.text.starts_with("日本語のテキスト"));
        let fr = "Les élèves étaient très fâchés à l'école.\n".repeat(30);
        let (latin, _, _) = encoding_rs::WINDOWS_1252.encode(&fr);
        let d = decode(&latin);
        assert_eq!(d.encoding, Some(encoding_rs::WINDOWS_1252));
        assert!(d.text.starts_with("Les élèves"));
    }
}
