"""atomic_bloom.spark against Spark's own Bloom filter, side by side on a local Spark.

    pip install './python[spark]'
    python python/bench/spark.py                  # 2M keys, 8 partitions, local[2]
    python python/bench/spark.py --keys 20000000

Builds and pre-filters with a cached DataFrame of URL-like string keys,
rounds alternating between the ways, each figure the median of the
rounds in keys (or rows) per second:

- build: ``build_filter`` (one filter per partition from its Arrow
  batches, OR-merged) against ``df.stat.bloomFilter`` (Spark's own sketch,
  built in the JVM, called through py4j as PySpark has no wrapper), both
  sized for the keys at p = 1%;
- pre-filter: ``prefilter`` (a pandas UDF, ``contains_many`` per Arrow
  batch) against a row UDF (``key in bloom`` per row, what ``prefilter``
  was before) with rows pickled (``useArrow=False``, pyspark 3.5's
  default) and Arrow-optimised (pyspark 4's default), each counting the
  kept rows of a DataFrame of as many rows, half of them keys;
- bounds: the same jobs' Arrow transfer with no key read (``mapInArrow``
  counting each batch's rows; a pandas UDF answering True), which no
  work on the Python side can beat;
- first call: the session's first Python job (the no-op transfer above:
  Spark starts its Python workers), then its first build, each against
  its median warm run.
"""

import argparse
import os
import statistics
import sys
import time


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def count_rows(batches):
    """The rows of a partition's Arrow batches, with no key read."""
    import pyarrow as pa

    rows = sum(batch.num_rows for batch in batches)
    yield pa.record_batch([pa.array([rows], pa.int64())], names=["rows"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=2_000_000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql.functions import pandas_udf, udf
    from pyspark.sql.types import BooleanType

    from atomic_bloom import BloomFilter
    from atomic_bloom.spark import build_filter, prefilter

    spark = (
        SparkSession.builder.master(args.master)
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    n, rate = args.keys, 0.01
    url = F.concat(F.lit("https://example.com/page/"), F.col("id").cast("string")).alias("url")
    keys = spark.range(n).select(url).repartition(args.partitions).cache()
    keys.count()
    # Half of these rows are keys: ids 0, 2, 4, ... of twice the range.
    events = spark.range(0, 2 * n, 2).select(url).repartition(args.partitions).cache()
    events.count()

    def transfer():
        return keys.mapInArrow(count_rows, "rows long").agg(F.sum("rows")).collect()[0][0]

    first_python_job, _ = timed(transfer)
    first, reference = timed(lambda: build_filter(keys, "url", expected_items=n))
    broadcast = spark.sparkContext.broadcast(reference)

    def row_contains(key):
        return key is not None and key in broadcast.value

    row_udf = udf(row_contains, BooleanType(), useArrow=False)
    arrow_row_udf = udf(row_contains, BooleanType(), useArrow=True)
    expected_kept = events.where(row_udf("url")).count()
    every_row = pandas_udf(lambda keys: keys.notna(), BooleanType())

    ways = {
        "build: atomic_bloom build_filter": lambda: build_filter(keys, "url", expected_items=n),
        # PySpark has no wrapper for it: the JVM's DataFrameStatFunctions.
        "build: Spark df.stat.bloomFilter": lambda: keys._jdf.stat().bloomFilter("url", n, rate),
        "build bound: Arrow transfer alone": transfer,
        "pre-filter: atomic_bloom prefilter": lambda: prefilter(events, "url", reference).count(),
        "pre-filter: row UDF, pickled rows": lambda: events.where(row_udf("url")).count(),
        "pre-filter: row UDF, Arrow-optimised": lambda: events.where(arrow_row_udf("url")).count(),
        "pre-filter bound: pandas UDF answering True": lambda: events.where(every_row("url")).count(),
    }
    seconds = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, way in ways.items():
            elapsed, result = timed(way)
            seconds[name].append(elapsed)
            if name.startswith("build: atomic"):
                assert result == reference, "builds differ"
            if name.startswith("pre-filter:"):
                assert result == expected_kept, (name, result, expected_kept)
    median = {name: statistics.median(s) for name, s in seconds.items()}

    print(f"# {n:,} str keys, {args.partitions} partitions, p = {rate}, master {args.master}, "
          f"median of {args.rounds} alternating rounds")
    print("| what | M keys or rows/s |")
    print("|---|---|")
    for name, s in median.items():
        print(f"| {name} | {n / s / 1e6:.2f} |")
    print(f"| first Python job of the session, no-op transfer (s) | {first_python_job:.2f} |")
    print(f"| first build of the session, after it (s) | {first:.2f} |")
    print()
    print("| ratio | value |")
    print("|---|---|")
    build, spark_build = median["build: atomic_bloom build_filter"], median["build: Spark df.stat.bloomFilter"]
    ours = median["pre-filter: atomic_bloom prefilter"]
    print(f"| build_filter / stat.bloomFilter (speed) | {spark_build / build:.2f} |")
    for baseline in ("pickled rows", "Arrow-optimised"):
        rows = median[f"pre-filter: row UDF, {baseline}"]
        print(f"| prefilter / row UDF, {baseline} (speed) | {rows / ours:.2f} |")
    warm_transfer = median["build bound: Arrow transfer alone"]
    print(f"| first Python job / warm transfer (time) | {first_python_job / warm_transfer:.2f} |")
    print(f"| first build / warm build (time) | {first / build:.2f} |")
    spark.stop()


if __name__ == "__main__":
    main()
