"""A lock-free Bloom filter that many Python threads share.

``BloomFilter`` answers "have I seen this key?" with no false negatives and
a false-positive rate chosen at construction; ``CountingBloomFilter`` can
also remove keys; ``GrowableBloomFilter`` needs no key count and grows as
keys arrive; ``WindowedBloomFilter`` holds the keys of a recent window (of
time or of keys), older ones leaving; ``ParquetBloomFilter`` is a filter a
Parquet writer built, asked with Parquet's hash. All are the Rust library ``atomic-bloom``: bits in 64-bit
atomic words, so threads add and query one filter at once without a lock,
and the bulk methods (``add_many``, ``update``, ``contains_many``) release
the GIL while they insert or look up, so Python threads run them in
parallel (on free-threaded CPython too).

>>> from atomic_bloom import BloomFilter
>>> seen = BloomFilter(1_000_000, 0.001)
>>> seen.add("https://example.com/")
True
>>> "https://example.com/" in seen
True
>>> seen.add_many(["a", b"b", 3])
3

Keys are ``str``, ``bytes``, ``bytearray``, ``memoryview`` or ``int``,
hashed by the library's stable encoding: a filter saved here is read by the
``atomic-bloom`` command-line tool and by Rust, and answers the same for the
same keys. ``atomic_bloom.spark`` builds one filter from a Spark DataFrame.

Processes share one filter through a file they all map:
``BloomFilter.create_shared(path, n)`` creates it, ``open_shared(path)``
opens it in every other process (a pickled shared filter opens its file),
and every process's adds land in the same bits (Linux).
"""

from atomic_bloom._atomic_bloom import (
    FORMAT_VERSION,
    BloomFilter,
    CorruptFilterError,
    CountingBloomFilter,
    FileLeftOpenError,
    FilterFullError,
    GrowableBloomFilter,
    GuavaBloomFilter,
    IncompatibleFilterError,
    ParquetBloomFilter,
    SparkBloomFilter,
    WindowedBloomFilter,
    __version__,
    key_hash,
    load,
)

__all__ = [
    "FORMAT_VERSION",
    "__version__",
    "BloomFilter",
    "CorruptFilterError",
    "CountingBloomFilter",
    "FileLeftOpenError",
    "FilterFullError",
    "GrowableBloomFilter",
    "GuavaBloomFilter",
    "IncompatibleFilterError",
    "ParquetBloomFilter",
    "SparkBloomFilter",
    "WindowedBloomFilter",
    "key_hash",
    "load",
]


def _open_shared(cls, path, read_only):
    """How a pickled shared filter opens its file again (``__reduce__``)."""
    return cls.open_shared(path, read_only=read_only)
