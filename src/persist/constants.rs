//! The format's fixed bytes and sizes (the [`format`](crate::docs::format)
//! chapter has the layout they belong to).

/// The first eight bytes of every filter file.
pub const MAGIC: [u8; 8] = *b"\x89ABLOOM\n";
/// The newest format version this crate reads and writes. Each file is
/// written in the oldest version that can hold it ([`FilterKind::format_version`](crate::FilterKind::format_version)):
/// a plain filter in version 1, which every release reads, a counting
/// filter in version 2, which adds the filter-kind byte. A
/// [shared](crate::docs::shared) file is version 3, whose header is a
/// whole cache line and records whether a process has it open for writing.
pub const FORMAT_VERSION: u16 = 3;

/// Header bytes of version 1 (plain filters only).
pub(crate) const V1_HEADER_LEN: usize = 40;
/// Header bytes of version 2: version 1's, a filter-kind byte and seven
/// reserved zero bytes.
pub(crate) const V2_HEADER_LEN: usize = 48;
/// Header bytes of version 3 (shared files of plain and counting
/// filters): version 2's, the writer-state byte, fifteen reserved zero
/// bytes; the words start 64 bytes in, on a cache line of a page-aligned
/// mapping.
pub(crate) const V3_HEADER_LEN: usize = 64;
/// Where a version 3 header keeps its writer state.
pub(crate) const WRITER_STATE_AT: usize = 48;
/// Writer state: no process had the file open for writing when it was
/// last sealed; the checksum covers it.
pub(crate) const STATE_SEALED: u8 = 0;
/// Writer state: a process opened the file for writing and has not
/// sealed it since; the checksum is stale.
pub(crate) const STATE_OPEN: u8 = 1;
pub(crate) const CHECKSUM_LEN: usize = 8;
/// Bytes read or written at a time when streaming a body.
pub(crate) const CHUNK: usize = 1 << 20;

pub(crate) const HASHER_CUSTOM: u8 = 0;
pub(crate) const HASHER_WYHASH: u8 = 1;
pub(crate) const HASHER_PARQUET: u8 = 2;
pub(crate) const HASHER_SPARK: u8 = 3;
