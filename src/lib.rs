//! # Overview
//!
//! toolcap makes oversized LLM tool results fit the context window without losing
//! the way back to what was cut.
//!
//! [`ToolResultProcessor::process`] takes a tool's name, its result text and its
//! arguments, and returns what the model should see: the result unchanged when it
//! is under the tool's threshold (or the tool is bypassed), or else the part that
//! matters for that tool (a file's head; a command's head, tail and error lines),
//! cut on line and character boundaries, with an exact marker of what was omitted
//! and a `--- Recovery Options ---` section: totals, a code outline, and runnable
//! commands that get the rest.
//!
//! ```
//! use serde_json::json;
//! use toolcap::{Config, ToolResultProcessor};
//!
//! let processor = ToolResultProcessor::new(Config::defaults());
//! let source: String = (1..=400)
//!     .map(|i| format!("def handler_{i}(event):\n    return {i}\n\n"))
//!     .collect();
//! let out = processor.process("read_file", &source, &json!({"path": "handlers.py"}));
//!
//! assert!(out.truncated);
//! assert!(out.text.contains("[... 7,785 chars, 1,071 lines omitted (lines 130-1200 of 1200) ...]"));
//! assert!(out.text.contains("File: handlers.py | 1,200 lines, 9,785 chars | python"));
//! assert!(out.text.contains("- function handler_44 (lines 130-131)"));
//! assert!(out.text.contains(r#"shell(command="sed -n '130,229p' handlers.py")"#));
//!
//! // Small results pass through unchanged.
//! let small = processor.process("read_file", "print('hi')\n", &json!({"path": "a.py"}));
//! assert_eq!(small.text, "print('hi')\n");
//! ```

pub mod config;
pub mod cut;
pub mod detect;
pub mod hints;
pub mod outline;
pub mod processor;
pub mod quote;

pub use config::{Config, ConfigError, Family, Shape};
pub use hints::Suggestion;
pub use outline::{Kind, Language, Outline, Symbol};
pub use processor::{Processed, Reason, ToolCall, ToolResultProcessor};
