//! The floor of toolcap's pipeline, which every stage above it shares:
//! [`text`] counts characters, finds their byte offsets and formats counts for
//! the model; [`quote`] quotes untrusted strings for the syntax they land in
//! (POSIX shell words, JSON, regex literals); [`measure`] counts characters or
//! tokens. It depends on no other toolcap crate.
//!
//! Not API: the `toolcap` crate re-exports what its users need; the rest may
//! change in any release.

#![warn(missing_docs)]

pub mod measure;
pub mod quote;
pub mod text;

/// Every variant of an enum as an array of `N`, from the slice strum's
/// `VariantArray` derives (`Self::VARIANTS`), for an enum whose public `ALL`
/// is an array (`Family::ALL.map(Family::as_str)`). `N` is strum's
/// `EnumCount::COUNT` (a wrong `N` fails to compile where `ALL` is used), so a
/// new variant is listed without anyone writing it down.
pub const fn all_variants<T: Copy, const N: usize>(variants: &[T]) -> [T; N] {
    match variants.first_chunk::<N>() {
        Some(all) if variants.len() == N => *all,
        _ => panic!("ALL's length is not the number of variants"),
    }
}
