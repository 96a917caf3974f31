//! Differential: processing a result from a stream with bounded memory gives the
//! same report as processing it in memory. The fuzz input is repeated (with a
//! numbered line between copies, so cleaning does not collapse it) into a result
//! large enough to take the streaming path, and read back in chunks of a size the
//! input picks.
#![no_main]

use std::io::Read;
use std::path::Path;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use toolcap::{Config, ToolCall, ToolResultProcessor};

static P: LazyLock<ToolResultProcessor> = LazyLock::new(|| {
    let c = Config::from_sources(
        Some((
            "max_kept_chars = 40\n[tools.shell]\nthreshold = 80\n",
            Path::new("fuzz.toml"),
        )),
        None,
    )
    .expect("valid config");
    ToolResultProcessor::new(c)
});

/// A reader that hands out at most `n` bytes per read.
struct Trickle<'a> {
    data: &'a [u8],
    n: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.n.min(buf.len()).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let chunk = usize::from(data[0]) * 7 + 1;
    let piece = String::from_utf8_lossy(&data[1..]);
    // large enough for the streaming path (toolcap's own output is held whole)
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 64 * 1024 {
        text.push_str(&piece);
        text.push_str(&format!("\nline {i}\n"));
        i += 1;
    }
    let args = json!({"command": "make"});
    let call = ToolCall::new("shell", &args);
    let mem = P.process_call(&call, &text);
    let (streamed, _) = P
        .process_stream(
            &call,
            Trickle {
                data: text.as_bytes(),
                n: chunk,
            },
        )
        .expect("reading from memory cannot fail");
    assert_eq!(streamed.text, mem.text);
    assert_eq!(
        serde_json::to_value(&streamed).expect("report"),
        serde_json::to_value(&mem).expect("report")
    );
});
