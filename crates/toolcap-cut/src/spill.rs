//! Decoding a byte stream, piece by piece, into exactly the text a store keeps for
//! the whole result: `String::from_utf8_lossy` of all of it, whatever the read
//! boundaries (a multi-byte character split between two reads is carried over, not
//! replaced), with the exact totals of that text.

use crate::index::Totals;

/// The replacement character `from_utf8_lossy` puts for each invalid sequence.
const REPLACEMENT: &str = "\u{FFFD}";

/// Decodes bytes fed in any pieces to the lossy UTF-8 text of their concatenation,
/// handing the text on in pieces and counting it.
#[derive(Debug, Clone, Default)]
pub struct LossyDecoder {
    /// The start of a character whose remaining bytes have not been read yet
    /// (at most 3 bytes, a valid prefix of a sequence).
    carry: Vec<u8>,
    chars: usize,
    bytes: usize,
    newlines: usize,
    ends_with_newline: bool,
}

impl LossyDecoder {
    /// A decoder that has read nothing yet.
    pub fn new() -> LossyDecoder {
        LossyDecoder::default()
    }

    /// Decode the next bytes, handing each piece of text to `out` in order. Stops
    /// at (and returns) the first error of `out`.
    pub fn feed<E>(
        &mut self,
        mut data: &[u8],
        out: &mut dyn FnMut(&str) -> Result<(), E>,
    ) -> Result<(), E> {
        // complete (or give up on) a character begun in an earlier piece
        while !self.carry.is_empty() {
            let Some((&b, rest)) = data.split_first() else {
                return Ok(());
            };
            self.carry.push(b);
            match std::str::from_utf8(&self.carry) {
                Ok(s) => {
                    let s = s.to_string();
                    self.carry.clear();
                    data = rest;
                    self.emit(&s, out)?;
                }
                Err(e) if e.error_len().is_some() => {
                    // the carried bytes were a maximal invalid subpart: one
                    // replacement, and `b` starts afresh
                    self.carry.clear();
                    self.emit(REPLACEMENT, out)?;
                }
                Err(_) => data = rest, // still incomplete
            }
        }
        loop {
            match std::str::from_utf8(data) {
                Ok(s) => return self.emit(s, out),
                Err(e) => {
                    let valid = e.valid_up_to();
                    // `valid` ends on a character boundary of `data`
                    let (good, bad) = data.split_at(valid);
                    if let Ok(s) = std::str::from_utf8(good) {
                        self.emit(s, out)?;
                    }
                    match e.error_len() {
                        Some(n) => {
                            self.emit(REPLACEMENT, out)?;
                            data = &bad[n.min(bad.len())..];
                        }
                        None => {
                            self.carry.extend_from_slice(bad);
                            return Ok(());
                        }
                    }
                }
            }
        }
    }

    /// The input ended: a character left incomplete becomes one replacement.
    pub fn finish<E>(&mut self, out: &mut dyn FnMut(&str) -> Result<(), E>) -> Result<(), E> {
        if self.carry.is_empty() {
            return Ok(());
        }
        self.carry.clear();
        self.emit(REPLACEMENT, out)
    }

    /// Totals of the text handed on so far (counted like [`Totals::of`]).
    pub fn totals(&self) -> Totals {
        Totals {
            chars: self.chars,
            bytes: self.bytes,
            lines: self.newlines + usize::from(self.bytes > 0 && !self.ends_with_newline),
        }
    }

    fn emit<E>(&mut self, s: &str, out: &mut dyn FnMut(&str) -> Result<(), E>) -> Result<(), E> {
        if s.is_empty() {
            return Ok(());
        }
        self.chars += s.chars().count(); // std counts words at a time
        self.bytes += s.len();
        self.newlines += memchr::memchr_iter(b'\n', s.as_bytes()).count();
        self.ends_with_newline = s.ends_with('\n');
        out(s)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn decode_in(data: &[u8], cuts: &[usize]) -> (String, Totals) {
        let mut d = LossyDecoder::new();
        let mut text = String::new();
        let mut push = |s: &str| -> Result<(), ()> {
            text.push_str(s);
            Ok(())
        };
        let mut at = 0;
        for &c in cuts {
            let c = c.clamp(at, data.len());
            d.feed(&data[at..c], &mut push).unwrap();
            at = c;
        }
        d.feed(&data[at..], &mut push).unwrap();
        d.finish(&mut push).unwrap();
        (text, d.totals())
    }

    #[test]
    fn split_characters_are_carried_over_and_bad_bytes_replaced() {
        let data = "aé€😀\n".as_bytes();
        for i in 0..=data.len() {
            for j in i..=data.len() {
                assert_eq!(decode_in(data, &[i, j]).0, "aé€😀\n", "cuts {i} {j}");
            }
        }
        let bad: &[u8] = b"a\xF0\x90x\xE0\x80\x80\xED\xA0\x80\xFF\xC3";
        let want = String::from_utf8_lossy(bad);
        for i in 0..=bad.len() {
            for j in i..=bad.len() {
                let (text, totals) = decode_in(bad, &[i, j]);
                assert_eq!(text, want, "cuts {i} {j}");
                assert_eq!(totals, Totals::of(&want));
            }
        }
    }

    proptest! {
        #[test]
        fn equals_lossy_decoding_of_the_whole(
            data in proptest::collection::vec(
                prop_oneof![
                    Just(b'\n'), Just(b'a'), Just(0xC3u8), Just(0xA9u8), Just(0xE2u8),
                    Just(0x82u8), Just(0xACu8), Just(0xF0u8), Just(0x9Fu8), Just(0x98u8),
                    Just(0x80u8), Just(0xEDu8), Just(0xFFu8), Just(0xC0u8), any::<u8>(),
                ],
                0..64,
            ),
            mut cuts in proptest::collection::vec(0usize..64, 0..8),
        ) {
            cuts.sort_unstable();
            let want = String::from_utf8_lossy(&data);
            let (text, totals) = decode_in(&data, &cuts);
            prop_assert_eq!(&text, &want);
            prop_assert_eq!(totals, Totals::of(&want));
        }
    }
}
