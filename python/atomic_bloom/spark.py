"""Build one Bloom filter from a Spark DataFrame column, and use it to
pre-filter another DataFrame.

The build is the usual per-partition aggregation: every partition builds
its own filter on its executor (``from_keys``, the GIL released while it
inserts), ships it as the library's validated bytes, and the partition
filters are OR-merged with ``treeReduce``. The keys reach the executors'
Python in Arrow record batches (``mapInArrow``) rather than one pickled row
each, which was about four times slower (``python/bench/spark.py``;
Spark's own transfer of the column now bounds the build). Union is
associative and commutative and every partition filter has the same
parameters, so the result is, bit for bit, the filter one process builds
from the same keys.
Spark's own ``BloomFilter`` sketch merges the same way
(``mergeInPlace``: an OR of equal-sized filters). ``build_counting_filter``
builds a ``CountingBloomFilter`` so, its partition filters' counts added.

::

    from atomic_bloom.spark import build_filter, prefilter

    seen = build_filter(users, "email", false_positive_rate=0.001)
    seen.save("emails.abf")              # readable by the CLI and Rust
    candidates = prefilter(events, "email", seen)   # a semi-join pre-filter
    matched = candidates.join(users, "email")       # the exact join, on fewer rows

Keys are the column's values: ``str`` (StringType), ``bytes``
(BinaryType) or ``int`` (integral types), hashed as everywhere else in the
library, so a filter built here answers like one built from the same keys
by the CLI or in Rust. A column of another type is a ``TypeError`` on the
driver, before any job runs. Nulls are not keys: they are skipped when building
and never kept by ``prefilter``, as SQL joins never match them.

A ``str`` and an ``int`` are different keys, but Spark joins a string
column to an integral one by casting the string (``"00042"`` matches
``42``): give the build and the pre-filter columns of the same kind, casting
as the join would (``build_filter(users, F.col("id").cast("long"))``), or
the pre-filter drops rows the join would have matched. Integral types of
any width are one kind: an ``int`` is the same key from each.

Requires ``pyspark`` with its SQL extras, pyarrow and pandas
(``pip install 'atomic-bloom[spark]'``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, TypeVar

from atomic_bloom import BloomFilter, CountingBloomFilter, SparkBloomFilter

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import Column, DataFrame

    from atomic_bloom._atomic_bloom import Layout

__all__ = [
    "build_counting_filter",
    "build_filter",
    "contains_udf",
    "from_java",
    "prefilter",
    "spark_bloom_filter",
]


def build_filter(
    df: "DataFrame",
    column: "str | Column",
    *,
    expected_items: Optional[int] = None,
    false_positive_rate: float = 0.01,
    layout: Optional[Layout] = None,
    seed: int = 0,
    depth: int = 2,
) -> BloomFilter:
    """Builds one ``BloomFilter`` from the non-null values of ``column``.

    ``expected_items`` sizes the filter; by default it is the number of
    non-null values, counted by one more pass over ``df`` (cache ``df`` or
    pass an estimate to avoid it). Up to 16 partitions' filters are merged
    on the driver; more, by ``treeReduce`` of this ``depth``: the merge
    runs in that many rounds, so the driver receives a few filters rather
    than one per partition. Bad parameters raise ``ValueError`` on the
    driver, before the build job starts.
    """
    return _build(
        BloomFilter, _union_bytes, df, column, expected_items,
        false_positive_rate, layout, seed, depth,
    )


def build_counting_filter(
    df: "DataFrame",
    column: "str | Column",
    *,
    expected_items: Optional[int] = None,
    false_positive_rate: float = 0.01,
    layout: Optional[Layout] = None,
    seed: int = 0,
    depth: int = 2,
) -> CountingBloomFilter:
    """Builds one ``CountingBloomFilter`` from the non-null values of
    ``column``, as ``build_filter`` builds a ``BloomFilter``: the partition
    filters' counts are added (``+``), so a value that comes ``n`` times,
    in any partitions, counts ``n`` times (up to 15), as one process adding
    every value would make it, and ``remove`` can take it out again.
    """
    return _build(
        CountingBloomFilter, _sum_bytes, df, column, expected_items,
        false_positive_rate, layout, seed, depth,
    )


_Filter = TypeVar("_Filter", BloomFilter, CountingBloomFilter)


def _build(
    cls: "type[_Filter]",
    combine: Callable[[Any, Any], bytes],
    df: "DataFrame",
    column: "str | Column",
    expected_items: Optional[int],
    false_positive_rate: float,
    layout: Optional[Layout],
    seed: int,
    depth: int,
) -> _Filter:
    """``build_filter`` for filters of ``cls``, the partition filters'
    bytes combined by ``combine``."""
    from pyspark.sql import functions as F

    key = F.col(column) if isinstance(column, str) else column
    values = _keys(df.select(key.alias("key"))).where(F.col("key").isNotNull())
    if expected_items is None:
        expected_items = max(values.count(), 1)
    items = expected_items  # an int now; a closure would not see it narrowed

    def new_filter() -> _Filter:
        return cls(items, false_positive_rate, layout=layout, seed=seed)

    # Fail on the driver, with the library's message, not in every task.
    empty = new_filter()

    # pyarrow RecordBatches in and out (typed Any: pyarrow ships no stubs).
    def build_partition(batches: Iterable[Any]) -> Iterator[Any]:
        import pyarrow as pa  # type: ignore[import-untyped]  # pyarrow ships no stubs

        # The partition's column as one chunked array, read through its
        # Arrow buffers (no Python object per key) into a new filter through
        # ``from_keys``, the same bits as ``add_many``.
        columns = [batch.column(0) for batch in batches]
        keys = pa.chunked_array(columns) if columns else []
        partition = cls.from_keys(
            keys, false_positive_rate, expected_items=items, layout=layout, seed=seed
        )
        yield pa.record_batch([pa.array([partition.to_bytes()], pa.binary())], names=["filter"])

    filters = values.mapInArrow(build_partition, "filter binary")
    partitions = filters.rdd.getNumPartitions()
    if partitions == 0:
        return empty
    if partitions <= DRIVER_MERGE_PARTITIONS:
        # Few partitions: their filters are merged on the driver as they
        # arrive, sparing the shuffle stages of a tree.
        rows = filters.collect()
        merged = cls.from_bytes(rows[0][0])
        for row in rows[1:]:
            merged = _merge(merged, cls.from_bytes(row[0]))
        return merged
    tree = filters.rdd.map(lambda row: row[0]).treeReduce(combine, depth=depth)
    return cls.from_bytes(tree)


# Builds of at most this many partitions send every partition's filter to
# the driver, which merges them; more go through ``treeReduce``, so that the
# driver receives a few. (A 2M-key build in 8 partitions took 0.73 s merged
# on the driver and 0.88 s through a tree, ``python/bench/spark.py``.)
DRIVER_MERGE_PARTITIONS = 16


def _merge(merged: Any, other: Any) -> Any:
    """``merged`` with ``other``'s keys: a union of plain filters, a sum
    of counting ones."""
    if isinstance(merged, CountingBloomFilter):
        merged += other
    else:
        merged |= other
    return merged


def _keys(column: "DataFrame") -> "DataFrame":
    """``column``, a one-column DataFrame, if its values can be keys: a
    ``TypeError`` on the driver otherwise, rather than one in every task."""
    from pyspark.sql.types import BinaryType, IntegralType, StringType

    field = column.schema.fields[0]
    if not isinstance(field.dataType, (StringType, BinaryType, IntegralType)):
        raise TypeError(
            f"a key column must be string, binary or integral, "
            f"not {field.dataType.simpleString()}"
        )
    return column


def _union_bytes(left: bytes | bytearray, right: bytes | bytearray) -> bytes:
    """The union of two saved filters, saved."""
    union = BloomFilter.from_bytes(left)
    union |= BloomFilter.from_bytes(right)
    return union.to_bytes()


def _sum_bytes(left: bytes | bytearray, right: bytes | bytearray) -> bytes:
    """The sum of two saved counting filters, saved."""
    total = CountingBloomFilter.from_bytes(left)
    total += CountingBloomFilter.from_bytes(right)
    return total.to_bytes()


def contains_udf(bloom: BloomFilter, spark=None):
    """A vectorised boolean UDF (a pandas UDF): whether a value may be in
    ``bloom`` (False for null).

    ``bloom`` is broadcast once; each Python worker reads it once and keeps
    it for every batch of rows it tests, asking ``contains_many`` of the
    batch's non-null values. Use it in any expression::

        may_match = contains_udf(seen)
        events.where(may_match("email"))

    """
    from pyspark.sql import SparkSession
    from pyspark.sql.functions import pandas_udf
    from pyspark.sql.types import BooleanType

    spark = spark or SparkSession.getActiveSession()
    if spark is None:
        raise RuntimeError("no active SparkSession: pass spark=")
    broadcast = spark.sparkContext.broadcast(bloom)

    def contains(keys):  # a pandas Series in and out
        import numpy as np
        import pandas as pd  # type: ignore[import-untyped]  # pandas ships no stubs

        valid = keys.notna().to_numpy()
        answers = np.zeros(len(keys), dtype=bool)
        if valid.any():
            present = keys[valid]
            if present.dtype.kind == "f":  # an integral column with a null
                present = present.astype("int64")
            answers[valid] = broadcast.value.contains_many(present)
        return pd.Series(answers, index=keys.index)

    return pandas_udf(contains, BooleanType())  # type: ignore[call-overload]


def prefilter(df: "DataFrame", column: "str | Column", bloom: BloomFilter) -> "DataFrame":
    """The rows of ``df`` whose ``column`` may be in ``bloom``: a semi-join
    pre-filter. Every row whose value was added to ``bloom`` is kept (a
    Bloom filter has no false negatives); about ``false_positive_rate`` of
    the others are kept too, so follow it with the exact join.

    ``column`` must hold keys of the kind ``bloom`` was built from: string
    values never match a filter built from integers, or the reverse, where
    a join would cast one to the other (see the module's notes).

    Vectorised: ``contains_udf``'s pandas UDF, which ships only the key
    column to Python, in Arrow batches, and a boolean back (filtering whole
    batches in ``mapInArrow`` would ship every column both ways).
    """
    from pyspark.sql import functions as F

    key = F.col(column) if isinstance(column, str) else column
    _keys(df.select(key))
    return df.where(contains_udf(bloom, df.sparkSession)(key))


def from_java(bloom_filter: Any) -> SparkBloomFilter:
    """Spark's own Bloom filter, a JVM object
    (``org.apache.spark.util.sketch.BloomFilter`` through py4j), as a
    ``SparkBloomFilter``: its bytes (``writeTo``) read here, so it answers
    every key as Spark's ``mightContain`` does, in this process, without
    the JVM, from any number of threads.
    """
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    jvm = context._jvm if context is not None else None
    if jvm is None:
        raise RuntimeError("no active SparkContext: a JVM filter needs its gateway")
    out = jvm.java.io.ByteArrayOutputStream()
    bloom_filter.writeTo(out)
    return SparkBloomFilter.from_spark(bytes(out.toByteArray()))


def spark_bloom_filter(
    df: "DataFrame", column: str, expected_items: int, false_positive_rate: float = 0.03
) -> SparkBloomFilter:
    """Spark's own build, ``df.stat.bloomFilter(column, expected_items,
    false_positive_rate)`` on the JVM (no key crosses into Python), as a
    ``SparkBloomFilter``: Spark's filter, asked from Python without the GIL
    or the JVM. Keys as Spark put them: a string column's values are
    ``str`` keys, an integral column's ``int`` keys.
    """
    java = df._jdf.stat().bloomFilter(column, int(expected_items), float(false_positive_rate))
    return from_java(java)
