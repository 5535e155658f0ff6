//! # A shared file: opened, created, mapped, sealed
//!
//! The steps, in the order the [`shared`](crate::docs::shared) chapter
//! gives them:
//!
//! 1. **Lock** (`persist/lock.rs`): the state lock while the state is
//!    read, and a writer's writer lock.
//! 2. **Validate before mapping**: the header is read with `pread` and
//!    checked as every reader checks it (magic, version, kind, layout,
//!    `m`, `k`, hasher), and the file's length must be exactly what the
//!    header declares. Nothing is mapped until all of that holds, so a
//!    forged or truncated file never becomes memory this process touches.
//! 3. **Writer state**: a version 3 file marked open for writing while no
//!    writer holds the writer lock was left so by a process that ended
//!    without closing it; opening it says so
//!    ([`SharedError::NotClosedCleanly`]) unless asked to recover it. A
//!    writer marks the file open (and makes that durable) before it maps
//!    it, so no word changes while the file claims to be sealed.
//! 4. **Map** the whole file (memmap2): read-write handles `MAP_SHARED`,
//!    read-only ones `MAP_PRIVATE`, whose inserts copy the page they touch
//!    and stay in this process, so that no method can fault on a page
//!    mapped read-only.
//! 5. **Close and seal**: a writer's close makes its words durable
//!    (`msync`) and turns its mapping private, so that nothing it does
//!    afterwards reaches the file; the last writer to close then writes the
//!    checksum over the header (marked sealed) and the words, read through
//!    the descriptor, then the state byte, each made durable before the
//!    next, so that a crash at any point leaves the file either marked
//!    open or sealed with its right checksum.

use super::SharedState;
use super::error::SharedError;
use crate::persist::constants::{
    CHECKSUM_LEN, CHUNK, STATE_OPEN, STATE_SEALED, V1_HEADER_LEN, V3_HEADER_LEN, WRITER_STATE_AT,
};
use crate::persist::errors::{FilterKind, ReadError};
use crate::persist::header::{Frame, Header, HeaderBytes, check_sum, short_header};
use crate::persist::lock::{self, STATE, WRITING};
use crate::storage::words::{Mapping, Words};
use crate::sync::AtomicU64;
use memmap2::{MmapOptions, MmapRaw};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::Once;
use xxhash_rust::xxh3::Xxh3;

/// Whether a handle writes to the file, and what to do with one a writer
/// left open.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mode {
    pub(crate) write: bool,
    pub(crate) recover: bool,
    /// Read-only: verify a sealed file's checksum.
    pub(crate) verify: bool,
}

/// An opened file: its validated header and its mapped words.
pub(crate) struct Opened {
    pub(crate) header: Header,
    pub(crate) words: Words,
}

/// Opens the filter file at `path` of kind `kind` as `mode` asks: locked,
/// validated, marked, mapped (steps 1 to 4).
pub(crate) fn open(path: &Path, kind: FilterKind, mode: Mode) -> Result<Opened, SharedError> {
    let in_file = |source: io::Error| SharedError::File {
        path: path.to_path_buf(),
        source,
    };
    let invalid = |source: ReadError| SharedError::Invalid {
        path: path.to_path_buf(),
        source,
    };
    let file = File::options()
        .read(true)
        .write(mode.write)
        .open(path)
        .map_err(in_file)?;
    // Released once the state is read (and marked), or with the file on
    // an error. A reader only reads the state: shared (and a read-only
    // descriptor can take no other).
    lock::lock(&file, STATE, mode.write, true).map_err(in_file)?;
    if mode.write {
        lock::lock(&file, WRITING, false, true).map_err(in_file)?;
    }
    let actual = file.metadata().map_err(in_file)?.len();
    let mut bytes: HeaderBytes = [0; V3_HEADER_LEN];
    let got = read_at_most(&file, &mut bytes).map_err(in_file)?;
    let start = bytes.first_chunk().filter(|_| got >= V1_HEADER_LEN);
    let start = start.ok_or_else(|| invalid(short_header(&bytes[..got], 0)))?;
    let header_len = Frame::header_len(start).map_err(invalid)?;
    if got < header_len {
        return Err(invalid(short_header(&bytes[..got], header_len)));
    }
    let state = (header_len == V3_HEADER_LEN).then(|| bytes[WRITER_STATE_AT]);
    let frame = Frame::of(&sealed(bytes, header_len), header_len, kind).map_err(invalid)?;
    frame.check_len(actual).map_err(invalid)?;
    let header = Header::decode(&bytes[..header_len]).map_err(invalid)?;
    header.sizing().map_err(invalid)?;
    if header.kind != kind {
        return Err(invalid(ReadError::WrongKind {
            written: header.kind,
            reading: kind,
        }));
    }
    let found = match state {
        Some(STATE_OPEN) if lock::held_by_others(&file, WRITING).map_err(in_file)? => {
            SharedState::Open
        }
        Some(STATE_OPEN) => SharedState::LeftOpen,
        _ => SharedState::Sealed,
    };
    match state {
        None if mode.write => {
            return Err(SharedError::NotWritable {
                path: path.to_path_buf(),
                version: if header_len == V1_HEADER_LEN { 1 } else { 2 },
            });
        }
        Some(STATE_OPEN)
            if !mode.recover && !lock::held_by_others(&file, WRITING).map_err(in_file)? =>
        {
            return Err(SharedError::NotClosedCleanly {
                path: path.to_path_buf(),
            });
        }
        Some(STATE_SEALED) if mode.write => mark(&file, STATE_OPEN).map_err(in_file)?,
        _ => {}
    }
    let body = usize::try_from(frame.body_len()).map_err(|_| {
        invalid(ReadError::InvalidParameters(
            crate::error::BuildError::TooLarge {
                requested_bits: u128::from(frame.num_bits * frame.cell_bits),
                max_bits: usize::MAX as u64,
            },
        ))
    })?;
    if mode.verify && !mode.write && found == SharedState::Sealed {
        // Under the state lock, shared: no writer can open it meanwhile.
        let stored = read_checksum(&file, header_len as u64 + body as u64).map_err(in_file)?;
        let computed = checksum(&file, header_len, body as u64).map_err(in_file)?;
        check_sum(&stored, computed).map_err(invalid)?;
    }
    lock::unlock(&file, STATE).map_err(in_file)?;
    let words = map(file, path, header_len, body / 8, mode.write, found).map_err(in_file)?;
    Ok(Opened { header, words })
}

/// The checksum stored at `at`.
fn read_checksum(file: &File, at: u64) -> io::Result<[u8; CHECKSUM_LEN]> {
    let mut stored = [0u8; CHECKSUM_LEN];
    file.read_exact_at(&mut stored, at)?;
    Ok(stored)
}

/// The format's checksum of `file`, whose header is `header_len` bytes
/// and whose body `body_len`, as it is when sealed (a version 3 header's
/// state byte read as sealed). Read through the descriptor, not the
/// mapping: it sees what the page cache holds, every process's writes.
fn checksum(file: &File, header_len: usize, body_len: u64) -> io::Result<u64> {
    let mut header: HeaderBytes = [0; V3_HEADER_LEN];
    file.read_exact_at(&mut header[..header_len], 0)?;
    let mut digest = Xxh3::new();
    digest.update(&sealed(header, header_len)[..header_len]);
    let mut chunk = vec![0u8; CHUNK.min(body_len as usize)];
    let mut at = 0;
    while at < body_len {
        let n = chunk.len().min((body_len - at) as usize);
        file.read_exact_at(&mut chunk[..n], header_len as u64 + at)?;
        digest.update(&chunk[..n]);
        at += n as u64;
    }
    Ok(digest.digest())
}

/// Creates the shared file `path` (replacing a file no process maps) with
/// `header` and the words `fill` writes after it (nothing: zeros), and
/// opens it read-write.
pub(crate) fn create(
    path: &Path,
    header: &Header,
    num_words: usize,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<Words, SharedError> {
    let in_file = |source: io::Error| {
        if source.kind() == io::ErrorKind::ResourceBusy {
            SharedError::InUse {
                path: path.to_path_buf(),
            }
        } else {
            SharedError::File {
                path: path.to_path_buf(),
                source,
            }
        }
    };
    let (bytes, header_len) = header.encode();
    let file_len = header_len as u64 + num_words as u64 * 8 + CHECKSUM_LEN as u64;
    let file = crate::persist::atomic_write::replace(
        path,
        |file| {
            file.write_all_at(&bytes[..header_len], 0)?;
            // The rest reads as zeros without being written (a sparse
            // file), until `fill` or an insert writes there.
            file.set_len(file_len)?;
            fill(file)
        },
        |file| {
            // Locked before it takes `path`'s place: no process can find
            // it there marked open with no writer.
            lock::lock(file, WRITING, false, true).map(drop)
        },
    )
    .map_err(in_file)?;
    let file = file.ok_or_else(|| {
        in_file(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a shared filter needs a regular file, not a device or FIFO",
        ))
    })?;
    map(file, path, header_len, num_words, true, SharedState::Sealed).map_err(in_file)
}

/// The header's bytes as they are when the file is sealed: the state byte
/// of a version 3 header reads sealed, the rest as they are.
fn sealed(mut bytes: HeaderBytes, header_len: usize) -> HeaderBytes {
    if header_len == V3_HEADER_LEN {
        bytes[WRITER_STATE_AT] = STATE_SEALED;
    }
    bytes
}

/// Step 4: maps `file` and hands out its `num_words` words at `words_at`.
fn map(
    file: File,
    path: &Path,
    words_at: usize,
    num_words: usize,
    write: bool,
    found: SharedState,
) -> io::Result<Words> {
    let map = if write {
        MmapOptions::new().map_raw(&file)?
    } else {
        // SAFETY: memmap2 marks a copy-on-write map `unsafe` because its
        // `MmapMut` derefs to `&mut [u8]` over bytes another process may
        // change. It is turned into an `MmapRaw` at once, unread; its words
        // are then touched only as atomics (`Words::mapped`).
        #[allow(unsafe_code)]
        MmapRaw::from(unsafe { MmapOptions::new().map_copy(&file)? })
    };
    // The words must end within the mapping (the header said how many).
    words_at
        .checked_add(num_words.saturating_mul(8))
        .filter(|&end| end <= map.len())
        .ok_or_else(|| io::Error::other("the file is shorter than its header declares"))?;
    let start = map.as_mut_ptr().wrapping_add(words_at);
    let start = NonNull::new(start.cast::<AtomicU64>())
        .filter(|start| start.as_ptr().is_aligned())
        .ok_or_else(|| io::Error::other("the mapped words are not 8-byte aligned"))?;
    let mapping = SharedFile {
        file,
        map,
        path: path.to_path_buf(),
        write,
        words_at,
        body_len: num_words as u64 * 8,
        found,
        opener: std::process::id(),
        closed: Once::new(),
    };
    // SAFETY: `start` is 8-byte aligned (checked), and its `num_words * 8`
    // bytes end within the mapping (checked against `map.len()`), which is
    // readable and writable (shared read-write, or private copy-on-write)
    // and stays mapped at this address until `mapping`, which owns it, is
    // dropped. This crate touches the words only through the atomics of
    // the `Words` it returns; the header and checksum, outside them, only
    // through the file descriptor.
    #[allow(unsafe_code)]
    Ok(unsafe { Words::mapped(start, num_words, Box::new(mapping)) })
}

/// What keeps a shared file's words mapped, and seals it.
struct SharedFile {
    file: File,
    map: MmapRaw,
    path: PathBuf,
    write: bool,
    /// Where the words start (the header's length) and how long they are.
    words_at: usize,
    body_len: u64,
    found: SharedState,
    /// The process that opened the file. A child made by `fork` shares
    /// its descriptor, and so its locks: the child's copy of this handle
    /// must not let go of them (nor seal) when the child ends.
    opener: u32,
    /// Run once, by `close` or the drop.
    closed: Once,
}

impl SharedFile {
    /// Closes this handle's hold on the file: flushes it, turns the
    /// mapping private (copy-on-write, as a read-only handle's), so that
    /// nothing this process does reaches the file any more, and seals it
    /// if this handle was its last writer.
    fn close_now(&self) -> io::Result<()> {
        if !self.write || std::process::id() != self.opener {
            return Ok(());
        }
        self.map.flush()?;
        self.make_private()?;
        self.seal_if_last()
    }

    /// Replaces the mapping, in place, by a private copy-on-write mapping
    /// of the same file: the words keep their addresses and what the file
    /// holds, and a later write stays in this process.
    fn make_private(&self) -> io::Result<()> {
        let (start, len) = (self.map.as_mut_ptr(), self.map.len());
        // SAFETY: `start..start + len` is this handle's own mapping
        // (`self.map`, which unmaps it when dropped); MAP_FIXED replaces it
        // at the same address with a mapping of the same file, offset and
        // length, readable and writable as before, so every reference into
        // it (the filter's `&AtomicU64`s) stays valid and reads what the
        // file holds. The descriptor is open for reading, which a private
        // mapping needs (mmap(2)).
        #[allow(unsafe_code)]
        let mapped = unsafe {
            libc::mmap(
                start.cast(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_FIXED,
                self.file.as_raw_fd(),
                0,
            )
        };
        if mapped == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Step 5, if this handle is the last writer; otherwise another
    /// writer will (the last to close).
    fn seal_if_last(&self) -> io::Result<()> {
        // One handle at a time opens or closes (`lock.rs`, `STATE`).
        lock::lock(&self.file, STATE, true, true)?;
        lock::unlock(&self.file, WRITING)?;
        // Exclusive only if no other handle holds the writer lock: then no
        // other writer has the file, and none can open it until `STATE`
        // is let go.
        let sealed = if lock::lock(&self.file, WRITING, true, false)? {
            self.seal()
        } else {
            Ok(())
        };
        lock::unlock(&self.file, WRITING)?;
        lock::unlock(&self.file, STATE)?;
        sealed
    }

    fn seal(&self) -> io::Result<()> {
        let sum = checksum(&self.file, self.words_at, self.body_len)?;
        let checksum_at = self.words_at as u64 + self.body_len;
        self.file.write_all_at(&sum.to_le_bytes(), checksum_at)?;
        self.file.sync_data()?;
        mark(&self.file, STATE_SEALED)
    }
}

impl Mapping for SharedFile {
    fn flush(&self) -> io::Result<()> {
        if self.write {
            self.map.flush()?;
        }
        Ok(())
    }

    fn close(&self) -> io::Result<()> {
        let mut closed = Ok(());
        self.closed.call_once(|| closed = self.close_now());
        closed
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn writable(&self) -> bool {
        self.write
    }

    fn found(&self) -> SharedState {
        self.found
    }
}

/// Writes the writer state and makes it durable before anything after it.
fn mark(file: &File, state: u8) -> io::Result<()> {
    file.write_all_at(&[state], WRITER_STATE_AT as u64)?;
    file.sync_data()
}

/// Reads from the start of `file` into `buf` until it is full or the file
/// ends; returns how much it read.
fn read_at_most(file: &File, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}
