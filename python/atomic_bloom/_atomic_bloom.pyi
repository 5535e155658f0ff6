"""Type stubs of the extension module (Rust, PyO3)."""

import datetime
import pathlib
import os
from typing import Dict, Iterable, List, Literal, Optional, Protocol, SupportsIndex, Union, final

from typing_extensions import Self, TypeAlias

Key: TypeAlias = Union[str, bytes, bytearray, memoryview, int, SupportsIndex]
"""A key: str (its UTF-8 bytes), bytes-like (its bytes), or an int in
-2**63 .. 2**64 - 1 (its 64-bit two's complement); an integer of another
type (numpy.int64, anything with __index__) is the int it converts to."""

BytesLike: TypeAlias = Union[bytes, bytearray, memoryview]
Layout: TypeAlias = Literal["standard", "blocked", "word", "sectorized", "split-block"]
"""How bits are placed; None where a filter is built means the library's
default, "blocked"."""
StrOrBytesPath: TypeAlias = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
"""A path, as Python's file functions take one."""

class BinaryWriter(Protocol):
    """A binary file object to save to (``open(..., "wb")``, ``io.BytesIO``)."""
    def write(self, data: bytes, /) -> Optional[int]: ...

class BinaryReader(Protocol):
    """A binary file object to load from, read to its end."""
    def read(self, size: int = ..., /) -> bytes: ...

__all__ = [
    "BloomFilter",
    "CountingBloomFilter",
    "GrowableBloomFilter",
    "WindowedBloomFilter",
    "ParquetBloomFilter",
    "SparkBloomFilter",
    "GuavaBloomFilter",
    "CorruptFilterError",
    "FileLeftOpenError",
    "FilterFullError",
    "IncompatibleFilterError",
    "key_hash",
    "load",
    "FORMAT_VERSION",
    "__version__",
]

FORMAT_VERSION: int
"""The newest file-format version this build writes and reads."""
__version__: str
"""The package's version."""

class CorruptFilterError(ValueError):
    """The bytes or file are not a valid saved filter of the class reading them."""

class FileLeftOpenError(OSError):
    """A shared filter file a process opened for writing and never closed (killed, or its
    machine crashed); ``open_shared(..., recover=True)`` opens it."""

class FilterFullError(Exception):
    """A growable filter may not grow to take a new key (a limit); the key was not added."""

class IncompatibleFilterError(ValueError):
    """Two filters cannot be combined: sizes, hashes, layouts or seeds differ."""

def key_hash(key: Key, seed: int = 0) -> int:
    """The 64-bit hash of ``key`` under ``seed``, as filters compute it."""

def load(
    path: Union[StrOrBytesPath, BinaryReader],
) -> Union[
    BloomFilter,
    CountingBloomFilter,
    GrowableBloomFilter,
    WindowedBloomFilter,
    ParquetBloomFilter,
    SparkBloomFilter,
    GuavaBloomFilter,
]:
    """Reads a filter of any kind or format (atomic-bloom's, Spark's, Guava's), from a path or a binary file object."""

@final
class BloomFilter:
    """A Bloom filter that many threads share without a lock.

    Sized for ``expected_items`` keys at ``false_positive_rate``. Raises
    ``ValueError`` for parameters no filter can be built from, and
    ``MemoryError`` if the machine cannot hold the filter.
    """

    def __new__(
        cls,
        expected_items: int,
        false_positive_rate: float = 0.01,
        *,
        layout: Optional[Layout] = None,
        seed: int = 0,
    ) -> Self: ...
    @classmethod
    def from_keys(
        cls,
        keys: Iterable[Key],
        false_positive_rate: float = 0.01,
        *,
        expected_items: Optional[int] = None,
        layout: Optional[Layout] = None,
        seed: int = 0,
    ) -> Self:
        """A new filter of ``keys``, sized for ``expected_items`` (default ``len(keys)``), built on
        a helper thread with the GIL released; the same bits as ``add_many`` on a new filter."""
    def add(self, key: Key) -> bool:
        """Adds ``key``; returns whether it was new."""
    def __contains__(self, key: Key, /) -> bool: ...
    def add_many(self, keys: Iterable[Key]) -> int:
        """Adds every key, with the GIL released while inserting; returns how many were new.

        Every key is taken and checked first: a bad key (``None`` in a pandas column) or an
        error from the iterable raises with nothing added."""
    def update(self, *iterables: Iterable[Key]) -> None:
        """Adds the keys of every iterable given, like ``set.update``."""
    def contains_many(self, keys: Iterable[Key]) -> List[bool]:
        """Whether each key may be in the filter, in order."""
    def __or__(self, other: BloomFilter, /) -> BloomFilter: ...
    def __ror__(self, other: BloomFilter, /) -> BloomFilter: ...
    def __ior__(self, other: BloomFilter, /) -> Self: ...
    def __and__(self, other: BloomFilter, /) -> BloomFilter: ...
    def __rand__(self, other: BloomFilter, /) -> BloomFilter: ...
    def __iand__(self, other: BloomFilter, /) -> Self: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __bool__(self) -> bool:
        """False while the filter is empty, as an empty set is false."""
    def copy(self) -> BloomFilter:
        """A copy with the same parameters and bits."""
    def __copy__(self) -> BloomFilter: ...
    def __deepcopy__(self, memo: object) -> BloomFilter: ...
    def clear(self) -> None:
        """Removes every key."""
    def estimated_len(self) -> Optional[int]:
        """About how many distinct keys were added; None once every bit is set."""
    def estimated_false_positive_rate(self) -> float:
        """The false-positive rate now, from the bits set."""
    @property
    def num_bits(self) -> int: ...
    @property
    def num_hashes(self) -> int: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def seed(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    def __sizeof__(self) -> int:
        """The object's size with the memory of its bits (``sys.getsizeof``)."""
    def save(self, path: Union[StrOrBytesPath, BinaryWriter]) -> None:
        """Writes the filter to ``path`` (atomically) or to a binary file object."""
    @classmethod
    def load(cls, path: Union[StrOrBytesPath, BinaryReader]) -> BloomFilter:
        """Reads a filter from a path or a binary file object; raises ``OSError`` or
        ``CorruptFilterError``."""
    def to_bytes(self) -> bytes:
        """The filter in the library's format."""
    @classmethod
    def from_bytes(cls, data: BytesLike) -> BloomFilter:
        """Reads ``to_bytes``'s output; raises ``CorruptFilterError``."""
    @classmethod
    def create_shared(
        cls,
        path: StrOrBytesPath,
        expected_items: int,
        false_positive_rate: float = 0.01,
        *,
        layout: Optional[Layout] = None,
        seed: int = 0,
    ) -> BloomFilter:
        """Creates the filter in a shared file that processes map and add to at once (Linux)."""
    @classmethod
    def open_shared(
        cls, path: StrOrBytesPath, *, read_only: bool = False, recover: bool = False
    ) -> BloomFilter:
        """Opens a shared filter file, mapping it; raises ``FileLeftOpenError`` for a file a
        writer left open, unless ``recover``."""
    @property
    def shared_path(self) -> Optional[pathlib.Path]:
        """The shared file this filter maps, or None for a filter in memory."""
    def flush(self) -> None:
        """Writes a shared filter's added keys to its file (msync)."""
    def close(self) -> None:
        """Closes this object's hold on its shared file; the last writer seals it."""
    def __enter__(self) -> Self: ...
    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> bool: ...
    def __reduce__(self) -> tuple: ...

@final
class CountingBloomFilter:
    """A Bloom filter with 4-bit counters, so that keys can be removed."""

    def __new__(
        cls,
        expected_items: int,
        false_positive_rate: float = 0.01,
        *,
        layout: Optional[Layout] = None,
        seed: int = 0,
    ) -> Self: ...
    @classmethod
    def from_keys(
        cls,
        keys: Iterable[Key],
        false_positive_rate: float = 0.01,
        *,
        expected_items: Optional[int] = None,
        layout: Optional[Layout] = None,
        seed: int = 0,
    ) -> Self:
        """A new filter of ``keys`` (each counted once per occurrence), sized for ``expected_items``
        (default ``len(keys)``), built on a helper thread with the GIL released."""
    def add(self, key: Key) -> bool:
        """Adds one occurrence of ``key``; returns whether it was absent before."""
    def remove(self, key: Key, *, checked: bool = True) -> bool:
        """Removes one occurrence of ``key``; returns whether it was removed."""
    def __contains__(self, key: Key, /) -> bool: ...
    def count(self, key: Key) -> int:
        """At most how many times ``key`` is present (15 means 15 or more)."""
    def add_many(self, keys: Iterable[Key]) -> int:
        """Adds every key; a bad key raises with nothing added (a retry counts none twice)."""
    def update(self, *iterables: Iterable[Key]) -> None: ...
    def remove_many(self, keys: Iterable[Key], *, checked: bool = True) -> int:
        """Removes every key; a bad key raises with nothing removed (a retry removes none twice)."""
    def contains_many(self, keys: Iterable[Key]) -> List[bool]: ...
    def __add__(self, other: CountingBloomFilter, /) -> CountingBloomFilter:
        """A filter with the counts of both added, as ``collections.Counter`` adds."""
    def __radd__(self, other: CountingBloomFilter, /) -> CountingBloomFilter: ...
    def __iadd__(self, other: CountingBloomFilter, /) -> Self:
        """Adds ``other``'s counts to this filter's (each counter stops at 15)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __bool__(self) -> bool:
        """False while the filter is empty, as an empty set is false."""
    def copy(self) -> CountingBloomFilter: ...
    def __copy__(self) -> CountingBloomFilter: ...
    def __deepcopy__(self, memo: object) -> CountingBloomFilter: ...
    def clear(self) -> None: ...
    def to_bloom(self) -> BloomFilter:
        """A plain filter with the same answers, in a quarter of the memory."""
    def estimated_len(self) -> Optional[int]: ...
    def estimated_false_positive_rate(self) -> float: ...
    def saturated_counters(self) -> int: ...
    @property
    def num_counters(self) -> int: ...
    @property
    def num_hashes(self) -> int: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def seed(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    def __sizeof__(self) -> int:
        """The object's size with the memory of its bits (``sys.getsizeof``)."""
    def save(self, path: Union[StrOrBytesPath, BinaryWriter]) -> None: ...
    @classmethod
    def load(cls, path: Union[StrOrBytesPath, BinaryReader]) -> CountingBloomFilter: ...
    def to_bytes(self) -> bytes: ...
    @classmethod
    def from_bytes(cls, data: BytesLike) -> CountingBloomFilter: ...
    @classmethod
    def create_shared(
        cls,
        path: StrOrBytesPath,
        expected_items: int,
        false_positive_rate: float = 0.01,
        *,
        layout: Optional[Layout] = None,
        seed: int = 0,
    ) -> CountingBloomFilter:
        """Creates the filter in a shared file that processes map and add to at once (Linux)."""
    @classmethod
    def open_shared(
        cls, path: StrOrBytesPath, *, read_only: bool = False, recover: bool = False
    ) -> CountingBloomFilter:
        """Opens a shared filter file, mapping it; raises ``FileLeftOpenError`` for a file a
        writer left open, unless ``recover``."""
    @property
    def shared_path(self) -> Optional[pathlib.Path]:
        """The shared file this filter maps, or None for a filter in memory."""
    def flush(self) -> None:
        """Writes a shared filter's added keys to its file (msync)."""
    def close(self) -> None:
        """Closes this object's hold on its shared file; the last writer seals it."""
    def __enter__(self) -> Self: ...
    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> bool: ...
    def __reduce__(self) -> tuple: ...

@final
class WindowedBloomFilter:
    """A Bloom filter of the keys added within a window: the last
    ``expected_items`` keys, or (with ``window``, in seconds or a
    ``datetime.timedelta``) the keys of that long, about ``expected_items``
    of which arrive in it. Older keys leave; a key stays at least the window
    and at most ``generations / (generations - 1)`` of it."""

    def __new__(
        cls,
        expected_items: int,
        false_positive_rate: float = 0.01,
        *,
        window: Union[float, datetime.timedelta, None] = None,
        generations: int = 4,
        when_full: Literal["rotate", "keep-filling"] = "rotate",
        layout: Optional[Layout] = None,
        seed: int = 0,
    ) -> Self: ...
    def add(self, key: Key) -> bool:
        """Adds ``key`` to the current generation; returns whether it was absent from the whole window."""
    def __contains__(self, key: Key, /) -> bool: ...
    def add_many(self, keys: Iterable[Key]) -> int:
        """Adds every key; a bad key or an error from the iterable raises with nothing added."""
    def update(self, *iterables: Iterable[Key]) -> None: ...
    def contains_many(self, keys: Iterable[Key]) -> List[bool]: ...
    def rotate(self) -> bool:
        """Starts a new generation now, retiring the oldest; False if it could not yet."""
    def __eq__(self, other: object, /) -> bool: ...
    def __bool__(self) -> bool:
        """False while no live generation holds a key."""
    def copy(self) -> WindowedBloomFilter: ...
    def __copy__(self) -> WindowedBloomFilter: ...
    def __deepcopy__(self, memo: object) -> WindowedBloomFilter: ...
    def estimated_len(self) -> int:
        """About how many keys the window holds."""
    def keys_per_second(self) -> Optional[float]:
        """New keys per second into the current generation since it began."""
    @property
    def window(self) -> Union[int, float]:
        """A number of keys (int) or of seconds (float)."""
    @property
    def generations(self) -> int: ...
    @property
    def rotations(self) -> int: ...
    @property
    def keys_per_generation(self) -> int: ...
    @property
    def false_positive_rate(self) -> float: ...
    @property
    def when_full(self) -> Literal["rotate", "keep-filling"]: ...
    @property
    def generations_filled_early(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def seed(self) -> int: ...
    def __sizeof__(self) -> int: ...
    def save(self, path: Union[StrOrBytesPath, BinaryWriter]) -> None: ...
    @classmethod
    def load(cls, path: Union[StrOrBytesPath, BinaryReader]) -> WindowedBloomFilter:
        """Reads a windowed filter; a time window resumes its schedule."""
    def to_bytes(self) -> bytes: ...
    @classmethod
    def from_bytes(cls, data: BytesLike) -> WindowedBloomFilter: ...
    def __reduce__(self) -> tuple: ...

@final
class GrowableBloomFilter:
    """A Bloom filter that grows as keys arrive: no need to know how many.

    Starts with room for ``initial_capacity`` keys and adds sub-filters,
    each ``growth_factor`` times larger and ``tightening_ratio`` times
    tighter, so the compound rate stays below ``false_positive_rate``.
    ``add`` of a new key raises ``FilterFullError`` once ``max_sub_filters``
    or ``memory_limit`` would be passed. No ``clear()``: build a new one.
    """

    def __new__(
        cls,
        initial_capacity: int = 1000,
        false_positive_rate: float = 0.01,
        *,
        growth_factor: float = 2.0,
        tightening_ratio: float = 0.9,
        layout: Optional[Layout] = None,
        seed: int = 0,
        max_sub_filters: Optional[int] = None,
        memory_limit: Optional[int] = None,
    ) -> Self: ...
    def add(self, key: Key) -> bool:
        """Adds ``key``; returns whether it was new; raises ``FilterFullError``."""
    def __contains__(self, key: Key, /) -> bool: ...
    def add_many(self, keys: Iterable[Key]) -> int:
        """Adds every key in order; a bad key or an error from the iterable raises with
        nothing added; on ``FilterFullError``, the keys before the one that did not fit are in."""
    def update(self, *iterables: Iterable[Key]) -> None: ...
    def contains_many(self, keys: Iterable[Key]) -> List[bool]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __bool__(self) -> bool:
        """False while the filter is empty, as an empty set is false."""
    def copy(self) -> GrowableBloomFilter: ...
    def __copy__(self) -> GrowableBloomFilter: ...
    def __deepcopy__(self, memo: object) -> GrowableBloomFilter: ...
    def estimated_len(self) -> Optional[int]:
        """How many keys were added (the adds reported new)."""
    def false_positive_rate_bound(self) -> float:
        """The compound false-positive rate at the current counts."""
    def sub_filter_stats(self) -> List[Dict[str, Union[int, float]]]:
        """Each sub-filter, oldest first: capacity, fill_limit, inserted, num_bits, num_hashes, false_positive_rate."""
    @property
    def num_sub_filters(self) -> int: ...
    @property
    def initial_capacity(self) -> int: ...
    @property
    def false_positive_rate(self) -> float: ...
    @property
    def growth_factor(self) -> float: ...
    @property
    def tightening_ratio(self) -> float: ...
    @property
    def max_sub_filters(self) -> int: ...
    @property
    def memory_limit(self) -> Optional[int]: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def seed(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    def __sizeof__(self) -> int:
        """The object's size with the memory of its bits (``sys.getsizeof``)."""
    def save(self, path: Union[StrOrBytesPath, BinaryWriter]) -> None: ...
    @classmethod
    def load(
        cls, path: Union[StrOrBytesPath, BinaryReader], *, memory_limit: Optional[int] = None
    ) -> GrowableBloomFilter:
        """Reads a growable filter; ``memory_limit`` (bytes), if given, bounds its growth
        from then on, in place of the limit the file records."""
    def to_bytes(self) -> bytes: ...
    @classmethod
    def from_bytes(
        cls, data: BytesLike, *, memory_limit: Optional[int] = None
    ) -> GrowableBloomFilter: ...
    def __reduce__(self) -> tuple: ...

@final
class ParquetBloomFilter:
    """A Bloom filter read from a Parquet file: keys are hashed as Parquet hashes them.

    XXH64 of the value's plain encoding: ``str`` and ``bytes`` for string and binary columns,
    ``int`` for ``INT64``; an ``INT32``, ``FLOAT`` or ``DOUBLE`` value as its little-endian
    bytes (``struct.pack('<i', v)``). ``atomic_bloom.load`` returns one for a file saved from
    a Parquet column's filter; it has no constructor.
    """

    def add(self, key: Key) -> bool:
        """Adds ``key``, hashed as Parquet hashes a value; returns whether it was new."""
    def __contains__(self, key: Key, /) -> bool: ...
    def add_many(self, keys: Iterable[Key]) -> int:
        """Adds every key, with the GIL released while inserting; returns how many were new."""
    def update(self, *iterables: Iterable[Key]) -> None: ...
    def contains_many(self, keys: Iterable[Key]) -> List[bool]:
        """Whether each key may be in the filter, in order."""
    def __eq__(self, other: object, /) -> bool: ...
    def __bool__(self) -> bool:
        """False while the filter is empty, as an empty set is false."""
    def copy(self) -> ParquetBloomFilter: ...
    def __copy__(self) -> ParquetBloomFilter: ...
    def __deepcopy__(self, memo: object) -> ParquetBloomFilter: ...
    def clear(self) -> None:
        """Removes every key."""
    def estimated_len(self) -> Optional[int]:
        """About how many distinct keys are in the filter; None once every bit is set."""
    def estimated_false_positive_rate(self) -> float:
        """The false-positive rate now, from the bits set."""
    @property
    def num_bits(self) -> int: ...
    @property
    def num_hashes(self) -> int: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def seed(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    def __sizeof__(self) -> int: ...
    def save(self, path: Union[StrOrBytesPath, BinaryWriter]) -> None:
        """Writes the filter to ``path`` (atomically) or to a binary file object."""
    @classmethod
    def load(cls, path: Union[StrOrBytesPath, BinaryReader]) -> ParquetBloomFilter:
        """Reads a Parquet filter's file from a path or a binary file object."""
    def to_bytes(self) -> bytes:
        """The filter in the library's format (recording Parquet's hasher)."""
    @classmethod
    def from_bytes(cls, data: BytesLike) -> ParquetBloomFilter:
        """Reads ``to_bytes``'s output; raises ``CorruptFilterError``."""
    def __reduce__(self) -> tuple: ...

@final
class SparkBloomFilter:
    """A Bloom filter Apache Spark built: keys are hashed and placed as Spark does.

    ``str`` as ``putString``, ``bytes`` as ``putBinary``, ``int`` as ``putLong``.
    ``from_spark`` reads what Spark's ``BloomFilter.writeTo`` wrote (V1 or V2), ``to_spark``
    writes it back; ``atomic_bloom.load`` returns one for such a file. A new one is sized as
    Spark's ``BloomFilter.create(expected_items, fpp)`` sizes it (V2, seed 0).
    """

    def __new__(
        cls, expected_items: int, false_positive_rate: float = 0.03
    ) -> SparkBloomFilter: ...
    @classmethod
    def from_spark(cls, data: BytesLike) -> SparkBloomFilter:
        """Reads Spark's format; raises ``CorruptFilterError``."""
    def to_spark(self) -> bytes:
        """The filter in Spark's format, for ``BloomFilter.readFrom``."""
    @property
    def version(self) -> int: ...

    def add(self, key: Key) -> bool:
        """Adds ``key`` as Spark's ``put`` does; returns whether it was new."""
    def __contains__(self, key: Key, /) -> bool: ...
    def add_many(self, keys: Iterable[Key]) -> int:
        """Adds every key, with the GIL released while inserting; returns how many were new."""
    def update(self, *iterables: Iterable[Key]) -> None: ...
    def contains_many(self, keys: Iterable[Key]) -> List[bool]:
        """Whether each key may be in the filter, in order."""
    def __eq__(self, other: object, /) -> bool: ...
    def __bool__(self) -> bool:
        """False while the filter is empty, as an empty set is false."""
    def copy(self) -> SparkBloomFilter: ...
    def __copy__(self) -> SparkBloomFilter: ...
    def __deepcopy__(self, memo: object) -> SparkBloomFilter: ...
    def clear(self) -> None:
        """Removes every key."""
    def estimated_len(self) -> Optional[int]:
        """About how many distinct keys are in the filter; None once every bit is set."""
    def estimated_false_positive_rate(self) -> float:
        """The false-positive rate now, from the bits set."""
    @property
    def num_bits(self) -> int: ...
    @property
    def num_hashes(self) -> int: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def seed(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    def __sizeof__(self) -> int: ...
    def save(self, path: Union[StrOrBytesPath, BinaryWriter]) -> None:
        """Writes the filter to ``path`` (atomically) or to a binary file object."""
    @classmethod
    def load(cls, path: Union[StrOrBytesPath, BinaryReader]) -> SparkBloomFilter:
        """Reads a Spark filter's file (Spark's format or the library's) from a path or a binary file object."""
    def to_bytes(self) -> bytes:
        """The filter in the library's format (recording Spark's hasher and seed)."""
    @classmethod
    def from_bytes(cls, data: BytesLike) -> SparkBloomFilter:
        """Reads ``to_bytes``'s output; raises ``CorruptFilterError``."""
    def __reduce__(self) -> tuple: ...

@final
class GuavaBloomFilter:
    """Google Guava's Bloom filter, bit for bit, shared by threads without a lock.

    Sized as ``BloomFilter.create(funnel, expected_insertions, fpp)``; keys as Guava's
    funnels feed them: ``str`` (stringFunnel UTF-8), bytes-like (byteArrayFunnel), ``int``
    (longFunnel). ``from_guava`` reads ``writeTo``'s bytes, ``to_guava`` writes them.
    """

    def __new__(cls, expected_insertions: int, false_positive_rate: float = 0.03) -> Self: ...
    @classmethod
    def from_guava(cls, data: BytesLike) -> GuavaBloomFilter:
        """Reads Guava's format; raises ``CorruptFilterError``."""
    def to_guava(self) -> bytes:
        """The filter in Guava's format, for ``BloomFilter.readFrom``."""
    def add(self, key: Key) -> bool:
        """Adds ``key`` as Guava's ``put`` does; returns whether it was new."""
    def __contains__(self, key: Key, /) -> bool: ...
    def add_many(self, keys: Iterable[Key]) -> int:
        """Adds every key, the GIL released while inserting; returns how many were new."""
    def contains_many(self, keys: Iterable[Key]) -> List[bool]:
        """Whether each key may be in the filter, in order."""
    @property
    def num_bits(self) -> int: ...
    @property
    def num_hashes(self) -> int: ...
    @property
    def strategy(self) -> Literal["MURMUR128_MITZ_64", "MURMUR128_MITZ_32"]: ...
    def estimated_false_positive_rate(self) -> float:
        """The false-positive rate now, from the bits set."""
    def __eq__(self, other: object, /) -> bool: ...
    def __reduce__(self) -> tuple: ...
