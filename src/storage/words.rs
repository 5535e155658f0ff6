//! # Where a bit array's words live
//!
//! A [`BitArray`](crate::BitArray)'s words are one `[AtomicU64]`, wherever
//! they live: a zeroed heap allocation (every filter built or loaded in
//! memory), or the body of a file that this and other processes map
//! (`MAP_SHARED`, a [shared filter](crate::docs::shared)). [`Words`] owns
//! either and hands out the same slice, so every operation on bits is the
//! same code for both, and the heap path costs nothing for the other: the
//! slice is a pointer and a length kept beside the owner, read without a
//! branch on where it points.
//!
//! ## Why memory other processes write may be `&[AtomicU64]`
//!
//! Rust's rule for shared memory is the one for threads: memory that
//! others may write concurrently is touched only through atomic operations,
//! never through a plain `&[u64]` or `&[u8]` (a data race, undefined
//! behaviour). `AtomicU64` has the size and the in-memory representation
//! of `u64` (its documentation), so eight aligned bytes of a mapping are
//! one `AtomicU64`, and an atomic instruction on a `MAP_SHARED` page is
//! atomic for every process that maps the page, since they share the
//! physical memory (the C++ standard's note on lock-free atomics,
//! [atomics.lockfree], says the same of address-free operations). Nothing
//! in this crate reads a mapped file's words as bytes: the header is read
//! and written with `pread`/`pwrite`, the checksum computed from atomic
//! loads.
//!
//! [atomics.lockfree]: https://eel.is/c++draft/atomics.lockfree

// The mapped half is used by `shared/`, which is built on Linux only,
// and not under loom, whose atomics cannot live in a file.
#![cfg_attr(any(loom, not(target_os = "linux")), allow(dead_code))]

use crate::sync::AtomicU64;
use std::ptr::NonNull;

/// A shared file's writer state when a handle opened it
/// ([`Filter::shared_state`](crate::Filter::shared_state)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SharedState {
    /// No process had it open for writing: its checksum vouches for it (a
    /// file of format version 1 or 2, which has no writer state, always).
    /// A file this handle created counts as sealed.
    Sealed,
    /// Processes had it open for writing.
    Open,
    /// A writer had left it open, ending without closing it (killed, or
    /// its machine crashed); opened with [`SharedOptions::recover`](crate::SharedOptions::recover).
    LeftOpen,
}

/// What keeps a mapped array's memory mapped, and what closing it does
/// (`shared/`): the storage layer knows it only as this.
pub(crate) trait Mapping: Send + Sync + 'static {
    /// Makes the words durable (`Filter::flush`).
    fn flush(&self) -> std::io::Result<()>;
    /// Closes this handle's hold on the file, once (`Filter::close`, and a
    /// drop, which cannot report an error): flushes and, if this handle
    /// wrote and is the last writer, seals it.
    fn close(&self) -> std::io::Result<()>;
    /// The file's path, as it was opened.
    fn path(&self) -> &std::path::Path;
    /// Whether inserts reach the file (read-write) or stay in this
    /// process's private copy of the pages they touch (read-only).
    fn writable(&self) -> bool;
    /// The file's writer state when this handle opened it.
    fn found(&self) -> SharedState;
}

/// The owner of a bit array's words.
enum Owner {
    /// A `Box<[AtomicU64]>` turned into its raw parts (`start`, `len`):
    /// kept raw so that no move of a `Box` asserts unique access while the
    /// slice points into it; `Drop` rebuilds and frees it.
    Heap,
    Mapped(Box<dyn Mapping>),
}

/// A bit array's words and what owns them.
pub(crate) struct Words {
    /// The first word and the number of words: the heap box's, or the
    /// mapped body's. Valid as long as `owner` is.
    start: NonNull<AtomicU64>,
    len: usize,
    owner: Owner,
}

// SAFETY: `Words` is a `Box<[AtomicU64]>` in raw parts, or a
// `&[AtomicU64]` into memory its `owner` keeps mapped, plus that owner,
// which is `Send + Sync` itself (`dyn Mapping`). An
// `AtomicU64` is `Sync`, so sharing the slice between threads is what a
// `Box<[AtomicU64]>` allows; the raw pointer is what makes the compiler
// ask.
#[allow(unsafe_code)]
unsafe impl Send for Words {}
// SAFETY: as for `Send` above.
#[allow(unsafe_code)]
unsafe impl Sync for Words {}

impl Words {
    /// Words on the heap.
    pub(crate) fn heap(words: Box<[AtomicU64]>) -> Self {
        let len = words.len();
        // `Box::into_raw` never returns null.
        let start =
            NonNull::new(Box::into_raw(words).cast::<AtomicU64>()).unwrap_or(NonNull::dangling());
        Words {
            start,
            len,
            owner: Owner::Heap,
        }
    }

    /// `len` words at `start`, in memory `mapping` keeps mapped.
    ///
    /// # Safety
    ///
    /// `start` is 8-byte aligned, and the `len * 8` bytes from it are
    /// readable and writable memory (a `MAP_SHARED` or `MAP_PRIVATE`
    /// mapping with `PROT_READ | PROT_WRITE`) that stays mapped, at the
    /// same address, until `mapping` is dropped, and that this process
    /// touches only through this slice's atomics.
    #[allow(unsafe_code)]
    pub(crate) unsafe fn mapped(
        start: NonNull<AtomicU64>,
        len: usize,
        mapping: Box<dyn Mapping>,
    ) -> Self {
        Words {
            start,
            len,
            owner: Owner::Mapped(mapping),
        }
    }

    /// The words of a heap array, mutably (a fresh array no one else sees);
    /// `None` for a mapped one.
    pub(crate) fn heap_mut(&mut self) -> Option<&mut [AtomicU64]> {
        match &self.owner {
            // SAFETY: the words are the box's, which `self` owns alone,
            // and `&mut self` excludes every other borrow of them.
            #[allow(unsafe_code)]
            Owner::Heap => {
                Some(unsafe { std::slice::from_raw_parts_mut(self.start.as_ptr(), self.len) })
            }
            Owner::Mapped(_) => None,
        }
    }

    /// The mapping these words live in, if they are a file's.
    pub(crate) fn mapping(&self) -> Option<&dyn Mapping> {
        match &self.owner {
            Owner::Heap => None,
            Owner::Mapped(mapping) => Some(&**mapping),
        }
    }
}

impl std::ops::Deref for Words {
    type Target = [AtomicU64];

    #[inline(always)]
    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: `start` and `len` describe the owner's words (a box's
        // slice, or what `Words::mapped`'s caller promised), which stay
        // valid and in place while `self.owner` lives, and `&self` borrows
        // it. Shared access to `AtomicU64`s is always allowed.
        #[allow(unsafe_code)]
        unsafe {
            std::slice::from_raw_parts(self.start.as_ptr(), self.len)
        }
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        match &self.owner {
            Owner::Heap => {
                let words = std::ptr::slice_from_raw_parts_mut(self.start.as_ptr(), self.len);
                // SAFETY: `words` is the pointer `Box::into_raw` gave in
                // `heap`, with its length; it is rebuilt once, here, and no
                // borrow of it outlives `self`.
                #[allow(unsafe_code)]
                drop(unsafe { Box::from_raw(words) });
            }
            Owner::Mapped(mapping) => {
                // A drop cannot report an error: the file stays marked
                // open, and its next opener is told.
                let _ = mapping.close();
            }
        }
    }
}
