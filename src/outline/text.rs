//! Non-code outlines.
