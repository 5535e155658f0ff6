//! The framing of the kinds whose file is a header, the kind's parameters
//! and a run of records, each followed by its words (the growable and the
//! windowed filter), written once for both ([`Composite`]).
//!
//! Such a file is read whole into memory, never further than its frame
//! declares and one byte more (to tell trailing data from a clean end),
//! the bytes buffered only as they arrive: a forged frame costs at most
//! what the input holds. It is then checked as every file is, frame,
//! length, then checksum ([`verified_whole`]), before its kind reads any
//! meaning from it.

use super::bytes::{Source, truncated};
use super::errors::{FilterKind, ReadError};
use super::header::{Header, verified};
use std::io::Read;
use std::path::Path;

/// How far a frame walked over the bytes present.
pub(crate) enum Walk {
    /// The frame is whole: the file is this many bytes.
    Whole(u64),
    /// The frame goes on past the bytes present: walking further needs
    /// the file's first this many bytes (more than are present).
    Needs(u64),
}

/// A kind whose file is a header, parameters and records.
pub(crate) trait Composite {
    /// The kind its header names.
    const KIND: FilterKind;
    /// Bytes of the header and the parameters.
    const HEAD_LEN: usize;
    /// Walks the frame (magic, version, kind, and what fixes the length)
    /// over the bytes present; `reading` is the kind of the reader, for a
    /// [`ReadError::WrongKind`].
    fn walk(bytes: &[u8], reading: FilterKind) -> Result<Walk, ReadError>;
}

/// The length a whole input's frame declares.
pub(crate) fn file_len<F: Composite>(bytes: &[u8], reading: FilterKind) -> Result<u64, ReadError> {
    match F::walk(bytes, reading)? {
        Walk::Whole(len) => Ok(len),
        Walk::Needs(len) => Err(truncated(len, bytes)),
    }
}

/// A whole input's frame, length and checksum checked, in that order; its
/// header, and the bytes the checksum covers.
pub(crate) fn verified_whole<F: Composite>(bytes: &[u8]) -> Result<(Header, &[u8]), ReadError> {
    verified(bytes, file_len::<F>(bytes, F::KIND)?)
}

/// Reads a file of kind `F` from `input`, as far as its frame declares
/// and one byte more. An input that is not such a frame, ends early or
/// runs on is returned as read, for [`verified_whole`] to name why.
pub(crate) fn read_framed<F: Composite>(
    mut input: Source<impl Read>,
) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    let mut want = F::HEAD_LEN as u64;
    loop {
        let more = want.saturating_sub(bytes.len() as u64);
        input.append(&mut bytes, more)?;
        if (bytes.len() as u64) < want {
            return Ok(bytes);
        }
        match F::walk(&bytes, F::KIND) {
            Ok(Walk::Needs(more)) => want = more,
            Ok(Walk::Whole(len)) => {
                let rest = (len + 1).saturating_sub(bytes.len() as u64);
                input.append(&mut bytes, rest)?;
                return Ok(bytes);
            }
            Err(_) => return Ok(bytes),
        }
    }
}

/// [`read_framed`] of the file at `path`; an I/O error names it.
pub(crate) fn read_file<F: Composite>(path: &Path) -> Result<Vec<u8>, ReadError> {
    Source::file(path)
        .and_then(read_framed::<F>)
        .map_err(|e| e.in_file(path))
}
