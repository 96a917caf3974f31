//! Families defined by the harness: which tools, how they are cut, their hints.

use crate::config::ArgKeys;
use crate::config::Shape;
use crate::config::ToolEntry;
use crate::hints;
use crate::hints::Recovery;
use std::sync::Arc;

/// Builds a family's recovery section. Implemented by the built-in families and
/// by any `Fn(&Context) -> Recovery`, so a harness can add its own.
pub trait HintBuilder: Send + Sync {
    /// The recovery section for one cut result, from what `ctx` says about it.
    fn build(&self, ctx: &hints::Context<'_>) -> Recovery;
}

impl<F> HintBuilder for F
where
    F: Fn(&hints::Context<'_>) -> Recovery + Send + Sync,
{
    fn build(&self, ctx: &hints::Context<'_>) -> Recovery {
        self(ctx)
    }
}

/// A tool family defined by the harness: which tool names it covers, how its
/// results are cut, and how its recovery section is built.
#[derive(Clone)]
pub struct CustomFamily {
    /// Family name, reported as `family`.
    pub name: String,
    /// Tool names (globs allowed: `mcp__jira__*`).
    pub patterns: Vec<String>,
    /// Results longer than this (in the config's default unit, chars) are cut.
    pub threshold: usize,
    /// Which part of an oversized result is kept.
    pub shape: Shape,
    /// Argument keys of these tools, for hints that read them.
    pub args: ArgKeys,
    /// Builds the recovery section.
    pub hints: Arc<dyn HintBuilder>,
}

impl std::fmt::Debug for CustomFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomFamily")
            .field("name", &self.name)
            .field("patterns", &self.patterns)
            .field("threshold", &self.threshold)
            .field("shape", &self.shape)
            .finish()
    }
}

impl CustomFamily {
    /// A family for tools matching `patterns`, cut at the head above 3,500 chars,
    /// with recovery hints from `hints`.
    pub fn new(
        name: impl Into<String>,
        patterns: &[&str],
        hints: impl HintBuilder + 'static,
    ) -> CustomFamily {
        CustomFamily {
            name: name.into(),
            patterns: patterns.iter().map(ToString::to_string).collect(),
            threshold: 3500,
            shape: Shape::Head,
            args: ArgKeys::default(),
            hints: Arc::new(hints),
        }
    }

    /// Cut results longer than `chars` (default 3,500).
    pub fn threshold(mut self, chars: usize) -> Self {
        self.threshold = chars;
        self
    }

    /// Keep this part of an oversized result (default: the head).
    pub fn shape(mut self, shape: Shape) -> Self {
        self.shape = shape;
        self
    }

    /// The tools' argument keys, for hints that read them.
    pub fn args(mut self, args: ArgKeys) -> Self {
        self.args = args;
        self
    }
}

/// A registered family with its resolved config entry.
pub(super) struct Registered {
    pub(super) family: CustomFamily,
    pub(super) entry: ToolEntry,
}
