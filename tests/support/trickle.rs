//! A reader that hands out at most `n` bytes per read, to cross every read
//! boundary a streamed result can have. Shared by the stream tests and the fuzz
//! checks (`fuzz/checks.rs`).

use std::io::Read;

pub struct Trickle<'a> {
    pub data: &'a [u8],
    pub n: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.n.min(buf.len()).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}
