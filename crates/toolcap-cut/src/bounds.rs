//! How large toolcap's own output can be, and whether a text is toolcap's own
//! output (recognised by [`crate::render::recognise`]).
//!
//! A cut result is its kept part (at most the tool's kept budget), one marker line
//! per omitted part (at most [`MAX_MARKER_CHARS`] each, with the blank lines around
//! it), `[line N] ` labels on error lines kept from an omitted middle, and the
//! recovery section (at most [`RECOVERY_CAP`] chars). A result cleaned of terminal
//! noise that then fits is the cleaned text (within the threshold) plus a one-line
//! note.
//!
//! Text that carries toolcap's marks is not processed again — but only when it is
//! within those bounds, so a huge result that merely contains a marker-like line and
//! the heading is still cut.

use super::shape;
use crate::measure::Measure;
use crate::render::recognise::{self, MAX_MARKER_CHARS};
use crate::render::recovery::RECOVERY_CAP;

/// The most chars a cut result can have when `max_kept` chars are kept: the kept
/// part, its `[line N] ` labels (taken as no longer than the lines they label),
/// a marker for each omitted part of a `head_tail` cut with the most runs of
/// error lines, and the recovery section.
pub fn max_output_chars(max_kept: usize) -> usize {
    let markers = shape::MAX_GAPS.max(shape::MAX_ERROR_RANGES + 3);
    max_kept
        .saturating_mul(2)
        .saturating_add(markers * (MAX_MARKER_CHARS + 3))
        .saturating_add(RECOVERY_CAP)
}

/// Whether `text` is a result toolcap already processed for a tool whose kept
/// budget is `max_kept` and threshold `threshold` (both in `m`'s unit): a cut
/// result within its bounds, or a cleaned result with its note.
pub fn already_processed(text: &str, max_kept: usize, threshold: usize, m: &dyn Measure) -> bool {
    if let Some(body) = recognise::cleaned_body(text) {
        return m.cost(body) <= threshold;
    }
    // a cut result is at most `max_output_chars` chars of at most 4 bytes each:
    // a larger text is not one (no search through it)
    if m.unit() == "chars" && text.len() > max_output_chars(max_kept).saturating_mul(4) {
        return false;
    }
    if !recognise::already_cut(text) {
        return false;
    }
    let Some(p) = recognise::split_cut(text) else {
        return false;
    };
    if p.markers.is_empty()
        || crate::text::count_chars(p.recovery) > RECOVERY_CAP
        || p.markers
            .iter()
            .any(|l| crate::text::count_chars(l) > MAX_MARKER_CHARS)
    {
        return false;
    }
    // Kept ranges are measured together when cut; render adds a newline to a range
    // that lacks one. Token counts of a concatenation can differ from the parts',
    // so allow one unit per piece.
    m.cost(&p.kept) <= max_kept + 2 * (p.markers.len() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Chars;
    use crate::render::recognise::{CLEANED_NOTE, CLEANED_NOTE_END};
    use crate::render::recovery::HEADING;

    #[test]
    fn a_huge_text_with_a_fake_marker_is_not_taken_for_ours() {
        let fake = format!(
            "[... 3 chars omitted (line 1 of 1) ...]\n\n{HEADING}\n{}",
            "x\n".repeat(100_000)
        );
        assert!(!already_processed(&fake, 2000, 3500, &Chars));
        let body = "y\n".repeat(100_000);
        let fake = format!("{body}\n[... 3 chars omitted (line 1 of 1) ...]\n\n{HEADING}\nok\n");
        assert!(!already_processed(&fake, 2000, 3500, &Chars));
        let fake = format!("{body}{CLEANED_NOTE}1 run{CLEANED_NOTE_END}");
        assert!(!already_processed(&fake, 2000, 3500, &Chars));
    }

    #[test]
    fn our_own_shapes_are_recognised() {
        let t = format!(
            "a\nb\n\n[... 9 chars, 3 lines omitted (lines 3-5 of 7) ...]\n\n[line 6] error\n\n[... 2 chars, 1 line omitted (line 7 of 7) ...]\n\n{HEADING}\nfacts\n"
        );
        let p = recognise::split_cut(&t).expect("parts");
        assert_eq!(p.kept, "a\nb\nerror\n");
        assert_eq!(p.markers.len(), 2);
        assert!(already_processed(&t, 10, 20, &Chars));
        assert!(!already_processed(&t, 3, 20, &Chars));
        let c = format!("short{CLEANED_NOTE}1 run of identical lines{CLEANED_NOTE_END}");
        assert!(already_processed(&c, 5, 10, &Chars));
    }
}
