//! The lines of a chunk in one pass: where each ends, and whether it holds a
//! byte of terminal noise (escape, carriage return, backspace) or a non-ASCII
//! byte. One vector compare per 16 bytes for all three (instead of a `memchr`
//! per line plus a pass for noise and one for ASCII), so the scanner's plain
//! lines cost a few bit operations each.

/// One line: `start..end` of the chunk, its newline included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineInfo {
    /// Its first byte in the chunk.
    pub start: usize,
    /// Right after its last byte (its newline included).
    pub end: usize,
    /// It holds ESC, `\r` or backspace.
    pub noise: bool,
    /// It holds a byte ≥ 0x80 (it is not plain ASCII).
    pub high: bool,
}

/// Per 64-byte block: bit `i` set where byte `i` is a newline, a noise byte, a
/// non-ASCII byte.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Masks {
    nl: u64,
    noise: u64,
    high: u64,
}

#[cfg(target_arch = "x86_64")]
fn masks(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    let mut m = Masks::default();
    for (k, part) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of every x86_64 CPU (the target enables it), and
        // the load reads the 16 bytes of `part`.
        let (nl, noise, high) = unsafe {
            let v = _mm_loadu_si128(part.as_ptr().cast::<__m128i>());
            let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(i8::from_ne_bytes([b])));
            let noise = _mm_or_si128(_mm_or_si128(eq(0x1b), eq(b'\r')), eq(0x08));
            (
                _mm_movemask_epi8(eq(b'\n')),
                _mm_movemask_epi8(noise),
                _mm_movemask_epi8(v),
            )
        };
        let bits = |x: i32| u64::from(u32::from_ne_bytes(x.to_ne_bytes()) & 0xFFFF) << (16 * k);
        m.nl |= bits(nl);
        m.noise |= bits(noise);
        m.high |= bits(high);
    }
    m
}

#[cfg(not(target_arch = "x86_64"))]
fn masks(block: &[u8; 64]) -> Masks {
    masks_scalar(block)
}

/// How far ahead of the block being classified its bytes are asked for: the
/// loop alternates one block's loads with that block's lines, and the hardware
/// prefetcher alone does not keep up (without this, a 100 MB log takes 71 ms
/// instead of 52 ms).
const PREFETCH_AHEAD: usize = 1024;

#[cfg(target_arch = "x86_64")]
#[inline]
fn prefetch(p: *const u8) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: a prefetch is a hint: it never faults, whatever the address.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn prefetch(_: *const u8) {}

/// The reference the vector version is tested against.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn masks_scalar(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (i, &b) in block.iter().enumerate() {
        m.nl |= u64::from(b == b'\n') << i;
        m.noise |= u64::from(matches!(b, 0x1b | b'\r' | 0x08)) << i;
        m.high |= u64::from(b >= 0x80) << i;
    }
    m
}

/// The newline-terminated lines of a chunk, in order (bytes after the last
/// newline are not a line here).
pub struct Lines<'a> {
    /// Where a log's level words may start, found in the same pass (see
    /// [`Self::with_levels`]).
    levels: Option<LevelBits>,
    buf: &'a [u8],
    /// Offset of the block `m` describes, and of the next one.
    base: usize,
    next: usize,
    m: Masks,
    /// Where the next line starts, and what it holds before `base`.
    start: usize,
    noise: bool,
    high: bool,
}

impl<'a> Lines<'a> {
    /// The lines of `buf`, from its start.
    pub fn new(buf: &'a [u8]) -> Lines<'a> {
        Lines {
            levels: None,
            buf,
            base: 0,
            next: 0,
            m: Masks::default(),
            start: 0,
            noise: false,
            high: false,
        }
    }
}

/// The bytes where a level word may start
/// ([`crate::everyday::levels::chunk_candidates`]), one bit per byte, from the
/// 64-byte block of the oldest line not yet handed out on.
struct LevelBits {
    bits: Vec<u64>,
    /// The block `bits[0]` is for.
    first: usize,
    carry: (u64, u64),
}

impl<'a> Lines<'a> {
    /// The lines of `buf` (which starts at a line's start), with the bytes
    /// where a log's level word may start marked as each 64-byte block is
    /// classified, while it is in the cache (see [`Self::level_bits`]).
    pub fn with_levels(buf: &'a [u8]) -> Lines<'a> {
        Lines {
            levels: Some(LevelBits {
                bits: Vec::new(),
                first: 0,
                carry: (0, 0),
            }),
            ..Lines::new(buf)
        }
    }
}

impl Lines<'_> {
    /// For a line starting at byte `at` of the chunk, handed out by the last
    /// [`Self::fill`]: the level-word bits and where the line starts in them
    /// (for [`crate::everyday::levels::level_at`]); none without levels.
    #[inline]
    pub fn level_bits(&self, at: usize) -> Option<(&[u64], usize)> {
        let lv = self.levels.as_ref()?;
        // (a line handed out by the last fill starts in a block still held)
        Some((&lv.bits, at.checked_sub(lv.first * 64)?))
    }

    /// Append the next lines to `out`, in a tight loop, until the classified
    /// bytes reach `until` (a whole 64-byte block at a time) or the chunk
    /// ends. `false` once the chunk is done.
    pub fn fill(&mut self, out: &mut Vec<LineInfo>, until: usize) -> bool {
        // the level bits of the lines handed out before are no longer asked for
        if let Some(lv) = &mut self.levels {
            let keep = self.start / 64;
            if keep > lv.first {
                let drop = (keep - lv.first).min(lv.bits.len());
                lv.bits.drain(..drop);
                lv.first = keep;
            }
        }
        loop {
            while self.m.nl != 0 {
                let i = self.m.nl.trailing_zeros();
                // bits 0..=i: this line's part of the block
                let upto = u64::MAX >> (63 - i);
                let end = self.base + i as usize + 1;
                out.push(LineInfo {
                    start: self.start,
                    end,
                    noise: self.noise || self.m.noise & upto != 0,
                    high: self.high || self.m.high & upto != 0,
                });
                self.start = end;
                self.m.nl &= self.m.nl - 1;
                self.m.noise &= !upto;
                self.m.high &= !upto;
                self.noise = false;
                self.high = false;
            }
            // what is left of this block belongs to the next line
            self.noise |= self.m.noise != 0;
            self.high |= self.m.high != 0;
            self.m = Masks::default();
            if self.next >= self.buf.len() {
                return false;
            }
            if self.next >= until {
                return true;
            }
            self.base = self.next;
            self.next = self.base + 64;
            prefetch(self.buf.as_ptr().wrapping_add(self.base + PREFETCH_AHEAD));
            let mut last = [0u8; 64];
            let block = match self.buf.get(self.base..self.next) {
                Some(b) => b.try_into().unwrap_or(&[0; 64]),
                None => {
                    // the last, short block: zeros are none of the three (nor
                    // letters or marks)
                    let rest = &self.buf[self.base..];
                    last[..rest.len()].copy_from_slice(rest);
                    &last
                }
            };
            self.m = masks(block);
            if let Some(lv) = &mut self.levels {
                lv.bits.push(crate::everyday::levels::chunk_candidates(
                    block,
                    &mut lv.carry,
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every line, filled `step` bytes at a time.
    fn all(buf: &[u8], step: usize) -> Vec<LineInfo> {
        let mut lines = Lines::new(buf);
        let mut out = Vec::new();
        let mut until = 0;
        loop {
            until += step;
            if !lines.fill(&mut out, until) {
                return out;
            }
        }
    }

    /// The lines as a plain loop finds them.
    fn reference(buf: &[u8]) -> Vec<LineInfo> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, &b) in buf.iter().enumerate() {
            if b == b'\n' {
                let line = &buf[start..=i];
                out.push(LineInfo {
                    start,
                    end: i + 1,
                    noise: line.iter().any(|b| matches!(b, 0x1b | b'\r' | 0x08)),
                    high: !line.is_ascii(),
                });
                start = i + 1;
            }
        }
        out
    }

    #[test]
    fn lines_across_blocks() {
        let mut buf = b"plain\nwith \x1b[1mescape\x1b[0m\n".to_vec();
        buf.extend_from_slice(&[b'x'; 100]);
        buf.extend_from_slice("caf\u{e9}\r\n\n".as_bytes());
        buf.extend_from_slice(b"no newline at the end");
        let got = all(&buf, 64);
        assert_eq!(got, reference(&buf));
        assert_eq!(got.len(), 4);
        assert!(got[1].noise && !got[1].high);
        assert!(got[2].noise && got[2].high, "the long line holds \\r and é");
        assert!(!got[3].noise && !got[3].high);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        #[test]
        fn same_as_a_plain_loop(buf in proptest::collection::vec(
            prop_oneof![
                4 => Just(b'a'), 2 => Just(b'\n'), 1 => Just(0x1b), 1 => Just(b'\r'),
                1 => Just(0x08), 1 => Just(0xC3), 1 => Just(0xFF), 1 => any::<u8>()
            ],
            0..400,
        )) {
            for step in [1, 64, 100, 1 << 20] {
                prop_assert_eq!(all(&buf, step), reference(&buf));
            }
        }

        #[test]
        fn vector_masks_match_scalar(block in proptest::array::uniform32(any::<u8>()),
                                     block2 in proptest::array::uniform32(any::<u8>())) {
            let mut b = [0u8; 64];
            b[..32].copy_from_slice(&block);
            b[32..].copy_from_slice(&block2);
            prop_assert_eq!(masks(&b), masks_scalar(&b));
        }
    }
}
