//! # Shared filters: one filter, many processes
//!
//! Services scale by processes as much as by threads: gunicorn and uWSGI
//! workers, a `multiprocessing` pool, a crawler's fetcher processes. A
//! shared filter is a plain or counting filter whose words are a file that
//! every such process maps (`MAP_SHARED`, Linux). Its words are the same
//! `[AtomicU64]` an in-memory filter has, so an insert is the same
//! `fetch_or` and a query the same loads, whichever process runs them, and
//! every method of [`Filter`](crate::Filter) works on it: it *is* a
//! `Filter`.
//!
//! ```no_run
//! use atomic_bloom::{AtomicBloom, SharedOptions};
//! // Once, before the workers start:
//! AtomicBloom::builder().capacity(100_000_000, 0.01).build_shared("seen.bloom")?.close()?;
//! // In each worker process:
//! let seen = AtomicBloom::open_shared("seen.bloom", SharedOptions::read_write())?;
//! if seen.insert("https://example.com/") {
//!     // no process had seen it
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Opening
//!
//! - [`build_shared`](crate::Builder::build_shared) creates a file of the
//!   builder's size (a sparse file: no page is written until a key lands
//!   there) and [`to_shared`](crate::Filter::to_shared) a file holding a
//!   filter's cells; both replace the file at the path only if no process
//!   has it open for writing, and open the result read-write.
//! - [`open_shared`](crate::Filter::open_shared) with
//!   [`SharedOptions::read_write`](crate::SharedOptions::read_write) opens
//!   a shared (version 3) file to insert into it;
//!   [`read_only`](crate::SharedOptions::read_only) opens any filter file,
//!   what `save` wrote included, to query it: the file is never written,
//!   and an insert through such a handle stays in this process (the page
//!   it touched becomes this process's copy).
//! - Opening validates the file before mapping it, as every reader does:
//!   magic, version, kind, layout, `k`, `m`, hasher, and a length of
//!   exactly what the header declares (`tests/all/shared.rs`: forged,
//!   truncated and oversized files are refused). It does not read the
//!   checksum, which would read the whole file: a 1 GiB filter answers its
//!   first query after reading one page. [`load`](crate::Filter::load)
//!   verifies a sealed file's checksum.
//!
//! ## What holds across processes
//!
//! Processes mapping one file share its physical pages, so their atomic
//! operations on a word are operations on one atomic object, as threads'
//! are; the [memory ordering](super::memory_ordering) chapter's G1-G9 hold
//! between processes as between threads. Most importantly: concurrent
//! inserts from any processes lose no bit (G1; `tests/all/shared.rs`:
//! processes inserting overlapping keys build the sequential filter bit
//! for bit, and a counting filter's racing inserts and removes end with
//! the sequential counters), and an insert that happened-before a query
//! in another process is seen by it. What makes one process's action
//! happen-before another's is outside the filter, as between threads: a
//! pipe, a socket, a lock, a process's exit observed by `wait`.
//!
//! The file's writer state is the one thing that needs more (G16): the
//! last writer to close seals the file, and its seal must hold every other
//! writer's inserts. Two advisory locks of the file do that
//! (`src/shared/lock.rs`): every writer holds the writer lock shared while
//! it has the file; a closing writer, holding the state lock, lets go of
//! the writer lock and seals only if it can then take it exclusive, so
//! only when every other writer has closed, and their inserts (before
//! their own release of the lock) happen-before its reads.
//!
//! ## What a crash leaves
//!
//! - **A process killed** (SIGKILL, a panic that aborts, the OOM killer)
//!   loses nothing: its inserts that returned are in the page cache, which
//!   is the kernel's. The file stays marked open for writing. The next
//!   process to open it, finding no writer holding the writer lock, is
//!   told ([`SharedError::NotClosedCleanly`](crate::SharedError::NotClosedCleanly));
//!   with [`SharedOptions::recover`](crate::SharedOptions::recover) it
//!   opens it, and the next writer to close it seals it
//!   (`tests/all/shared.rs`: a writer killed mid-build leaves every key
//!   whose insert had returned). `load` refuses a file marked open
//!   ([`ReadError::OpenForWriting`](crate::ReadError::OpenForWriting)),
//!   since its checksum is stale.
//! - **The machine crashing** loses the inserts whose pages the kernel had
//!   not written back. [`flush`](crate::Filter::flush) writes them back
//!   (`msync`): every insert that returned before it survives a crash of
//!   the machine. The file is marked open before any word changes and
//!   sealed only after its words are durable, so after a crash it is
//!   either marked open, or sealed with the checksum of what it holds.
//! - **Close** ([`close`](crate::Filter::close), or a drop) flushes, and
//!   the last writer seals; `close` reports an error a drop cannot. After
//!   `close` the filter goes on answering from what the file held, and its
//!   inserts stay in the process: its mapping turns copy-on-write, so no
//!   write can reach a file that another writer may be sealing.
//! - **Processes that share a handle by `fork`** share its descriptor and
//!   locks: only the process that opened it closes it (a child's copy
//!   does nothing when the child ends). A `multiprocessing` pool's workers
//!   that receive a pickled shared filter open the file themselves.
//!
//! ## The file under other programs
//!
//! The locks are advisory: the library's own writers ask before replacing
//! a file (`build_shared`, `to_shared`, and `save`, which the CLI's
//! commands use, refuse one a process has open for writing; a reader keeps
//! the file it mapped, which lives on unlinked), and never truncate one,
//! but a program that does not ask may still truncate it. A process that then touches a word past
//! the new end is killed by SIGBUS (mmap(2)): do not truncate or rewrite a
//! shared file with other tools while processes have it open. Another
//! program's writes to the words must be atomic 64-bit operations, as
//! this library's are.
//!
//! ## What is not shared
//!
//! The growable and windowed filters are chains and rings of filters that
//! grow and rotate by allocating, publishing pointers and clearing
//! generations (the [growable](super::growable) chapter); a file of them
//! would need its own allocator and pointers that mean the same in every
//! process. They are saved and loaded, not shared. A shared file is
//! Linux-only (it rests on Linux's open-file-description locks).
