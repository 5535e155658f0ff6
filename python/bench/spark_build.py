"""Keys per second of atomic_bloom.spark.build_filter on a local Spark.

    pip install './python[spark]'
    python python/bench/spark_build.py                 # 2M keys, local[2]
    python python/bench/spark_build.py --keys 10000000 # the README's figures

Builds one filter from a cached DataFrame of string keys split into 2, 8
and 32 partitions, three times each, and prints the median keys/s: the
per-partition builds run on the executors, the merge is a treeReduce of
the partition filters' bytes. The single-process build of the same keys
(add_many on the driver) is the baseline of the last column. A last row
per partition count times the Arrow transfer alone: the same mapInArrow
job over the same keys, counting the rows of each batch and touching no
key, which bounds what any work on the Python side could reach.
"""

import argparse
import os
import statistics
import sys
import time

from atomic_bloom import BloomFilter
from atomic_bloom.spark import build_filter


def count_rows(batches):
    """The rows of a partition's Arrow batches, with no key read."""
    import pyarrow as pa

    rows = sum(batch.num_rows for batch in batches)
    yield pa.record_batch([pa.array([rows], pa.int64())], names=["rows"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=2_000_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = (
        SparkSession.builder.master(args.master)
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    n = args.keys
    base = spark.range(n).select(F.concat(F.lit("https://example.com/page/"), F.col("id").cast("string")).alias("url"))

    keys = [f"https://example.com/page/{i}" for i in range(n)]
    single = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        f = BloomFilter(n, 0.01)
        f.add_many(keys)
        single.append(n / (time.perf_counter() - start))
    single_rate = statistics.median(single)
    reference = f

    print(f"# {n:,} str keys, p = 0.01, master {args.master}, median of {args.rounds}")
    print("| partitions | keys/s | / single-process add_many |")
    print("|---|---|---|")
    print(f"| (driver only) | {single_rate:,.0f} | 1.00 |")
    for partitions in (2, 8, 32):
        df = base.repartition(partitions).cache()
        df.count()
        rates = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            built = build_filter(df, "url", expected_items=n)
            rates.append(n / (time.perf_counter() - start))
            assert built == reference, "the Spark build differs from the single build"
        rate = statistics.median(rates)
        print(f"| {partitions} | {rate:,.0f} | {rate / single_rate:.2f} |")
        transfer = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            rows = df.mapInArrow(count_rows, "rows long").agg(F.sum("rows")).collect()[0][0]
            transfer.append(n / (time.perf_counter() - start))
            assert rows == n
        rate = statistics.median(transfer)
        print(f"| {partitions}, Arrow transfer alone | {rate:,.0f} | {rate / single_rate:.2f} |")
        df.unpersist()
    spark.stop()


if __name__ == "__main__":
    main()
