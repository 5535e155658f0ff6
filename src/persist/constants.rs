//! The format's fixed bytes and sizes (the [`format`](crate::docs::format)
//! chapter has the layout they belong to).

/// The first eight bytes of every filter file.
pub const MAGIC: [u8; 8] = *b"\x89ABLOOM\n";
/// The newest format version this crate reads and writes. Each file is
/// written in the oldest version that can hold it ([`FilterKind::format_version`](crate::FilterKind::format_version)):
/// a plain filter in version 1, which every release reads, a counting
/// filter in version 2, which adds the filter-kind byte.
pub const FORMAT_VERSION: u16 = 2;

/// Header bytes of version 1 (plain filters only).
pub(crate) const V1_HEADER_LEN: usize = 40;
/// Header bytes of version 2: version 1's, a filter-kind byte and seven
/// reserved zero bytes.
pub(crate) const V2_HEADER_LEN: usize = 48;
pub(crate) const CHECKSUM_LEN: usize = 8;
/// Bytes read or written at a time when streaming a body.
pub(crate) const CHUNK: usize = 1 << 20;

pub(crate) const HASHER_CUSTOM: u8 = 0;
pub(crate) const HASHER_WYHASH: u8 = 1;
pub(crate) const HASHER_PARQUET: u8 = 2;
