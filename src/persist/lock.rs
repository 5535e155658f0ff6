//! # The two locks of a shared file
//!
//! A shared file carries two advisory locks, each one byte of the file's
//! lock space, taken with Linux's open-file-description locks
//! (`F_OFD_SETLK`, fcntl(2)): they belong to the open file, not to the
//! process, so two handles in one process are two holders, and the kernel
//! releases them when the file is closed, however the process ends
//! (SIGKILL included).
//!
//! - [`WRITING`]: every read-write handle holds it shared. The handle that
//!   closes last among the writers gets it exclusive and seals the file;
//!   a handle that finds the file marked open with no writer holding it
//!   knows the writer ended without closing (`src/shared/file.rs`). The
//!   library's own writers ask it before replacing a file ([`has_writers`]):
//!   a file writers share is not replaced, since they would go on with
//!   the old one, apart from every process that opens the new one. (A
//!   reader keeps what it mapped when the file is replaced: the old file
//!   lives on, unlinked, while it is mapped.)
//! - [`STATE`]: held exclusive by a writer while it opens the file or
//!   closes it, the two moments that change the writer state, and shared
//!   by a reader while it opens the file and reads the state. A
//!   closing writer lets go of [`WRITING`] and then asks for it exclusive;
//!   without this lock, two writers closing at once could each see the
//!   other's [`WRITING`] and neither seal, and a writer opening between
//!   those two steps could see the file marked open with no writer.
//!
//! Advisory locks bind only programs that ask; the library never
//! truncates a file (it replaces one by renaming a new one over it), but a
//! program that truncates the file makes every process that maps it take SIGBUS
//! on its next access past the new end (mmap(2)); the
//! [`shared`](crate::docs::shared) chapter says so.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// The byte every read-write handle locks shared.
pub(crate) const WRITING: i64 = 1;
/// The byte a handle locks exclusive while it opens or closes the file.
pub(crate) const STATE: i64 = 2;

/// Takes the lock of `byte` shared (`exclusive`: exclusive). Waits for a
/// conflicting holder to let go if `wait`; otherwise returns `Ok(false)`
/// at once if one holds it.
pub(crate) fn lock(file: &File, byte: i64, exclusive: bool, wait: bool) -> io::Result<bool> {
    let kind = if exclusive {
        libc::F_WRLCK
    } else {
        libc::F_RDLCK
    };
    let command = if wait {
        libc::F_OFD_SETLKW
    } else {
        libc::F_OFD_SETLK
    };
    let mut request = request(byte, kind);
    loop {
        match fcntl(file, command, &mut request) {
            Ok(()) => return Ok(true),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e)
                if !wait
                    && e.raw_os_error()
                        .is_some_and(|n| n == libc::EAGAIN || n == libc::EACCES) =>
            {
                return Ok(false);
            }
            Err(e) => return Err(e),
        }
    }
}

/// Lets go of this handle's lock of `byte`.
pub(crate) fn unlock(file: &File, byte: i64) -> io::Result<()> {
    fcntl(file, libc::F_OFD_SETLK, &mut request(byte, libc::F_UNLCK))
}

/// Whether another open file holds the lock of `byte` in a way that
/// conflicts with taking it exclusive: whether anyone else holds it at
/// all. (A query, so a read-only handle may ask it.)
pub(crate) fn held_by_others(file: &File, byte: i64) -> io::Result<bool> {
    let mut request = request(byte, libc::F_WRLCK);
    fcntl(file, libc::F_OFD_GETLK, &mut request)?;
    Ok(i32::from(request.l_type) != libc::F_UNLCK)
}

/// Whether a process has `file` open for writing ([`WRITING`] is held).
pub(crate) fn has_writers(file: &File) -> io::Result<bool> {
    held_by_others(file, WRITING)
}

fn request(byte: i64, kind: i32) -> libc::flock {
    libc::flock {
        // The constants are small (0 to 2); l_type is a C short.
        l_type: kind as libc::c_short,
        l_whence: libc::SEEK_SET as libc::c_short,
        l_start: byte,
        l_len: 1,
        // Open-file-description locks require 0.
        l_pid: 0,
    }
}

fn fcntl(file: &File, command: i32, request: &mut libc::flock) -> io::Result<()> {
    // SAFETY: `file` is an open descriptor for the whole call (borrowed),
    // and `request` points to a live, initialised `struct flock`, which
    // these commands read and (F_OFD_GETLK) write: the arguments fcntl(2)
    // specifies for them.
    #[allow(unsafe_code)]
    let result = unsafe { libc::fcntl(file.as_raw_fd(), command, request as *mut libc::flock) };
    if result == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}
