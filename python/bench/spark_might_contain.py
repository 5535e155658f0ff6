"""Queries of a filter Spark built: from Python with SparkBloomFilter, against Spark's mightContain.

    pip install './python[spark]'
    python python/bench/spark_might_contain.py              # 1M keys and rows, local[2]
    python python/bench/spark_might_contain.py --keys 4000000

Spark builds a filter of URL-like string keys on the JVM
(``df.stat.bloomFilter``, p = 1%) and ``from_java`` reads it into a
``SparkBloomFilter``. Then, over the same rows (as many as keys, half of
them keys), rounds alternating between the ways, each figure the
median of the rounds in rows per second:

- Spark's ``mightContainString`` as a SQL UDF: a Java ``UDF1`` holding
  Spark's filter, compiled here with ``javac`` and registered with
  ``spark.udf.registerJavaFunction``; Spark counts the rows it keeps, with
  no row leaving the JVM (the fastest way Spark asks its own filter);
- ``contains_many`` of the rows' keys held in a Python list: the filter
  asked from Python, as a service that has the keys in hand asks it;
- the same rows kept in Spark through a pandas UDF calling
  ``contains_many`` per Arrow batch (``atomic_bloom.spark.prefilter``);
- ``mightContainString`` called from Python through py4j, key by key
  (what PySpark offers on the filter object itself), on a sample.

Every way keeps the same rows: the bench checks it.
"""

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

UDF_SOURCE = """
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.util.sketch.BloomFilter;
import java.io.FileInputStream;
import java.io.InputStream;

/** Spark's own mightContainString, as a SQL function over a column. */
public class MightContain implements UDF1<String, Boolean> {
    private static volatile BloomFilter filter;

    private static BloomFilter filter() throws Exception {
        if (filter == null) {
            synchronized (MightContain.class) {
                if (filter == null) {
                    try (InputStream in = new FileInputStream(System.getProperty("bloom.file"))) {
                        filter = BloomFilter.readFrom(in);
                    }
                }
            }
        }
        return filter;
    }

    @Override
    public Boolean call(String key) throws Exception {
        return key != null && filter().mightContainString(key);
    }
}
"""


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def compile_udf(directory, jars):
    """MightContain.class in a jar of its own, built against PySpark's jars."""
    source = os.path.join(directory, "MightContain.java")
    with open(source, "w") as f:
        f.write(UDF_SOURCE)
    classpath = os.pathsep.join(jars)
    subprocess.run(["javac", "-cp", classpath, "-d", directory, source], check=True)
    jar = os.path.join(directory, "might-contain.jar")
    subprocess.run(["jar", "cf", jar, "-C", directory, "MightContain.class"], check=True)
    return jar


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--py4j-sample", type=int, default=20_000)
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import pyspark
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType

    from atomic_bloom.spark import from_java, prefilter

    workdir = tempfile.mkdtemp(prefix="might-contain-")
    jars = glob.glob(os.path.join(os.path.dirname(pyspark.__file__), "jars", "*.jar"))
    udf_jar = compile_udf(workdir, jars)
    filter_file = os.path.join(workdir, "filter.spark")
    spark = (
        SparkSession.builder.master(args.master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.jars", udf_jar)
        .config("spark.driver.extraJavaOptions", f"-Dbloom.file={filter_file}")
        .getOrCreate()
    )
    n, rate = args.keys, 0.01
    url = F.concat(F.lit("https://example.com/page/"), F.col("id").cast("string")).alias("url")
    keys = spark.range(n).select(url).repartition(args.partitions).cache()
    keys.count()
    # Half of these rows are keys: ids 0, 2, 4, ... of twice the range.
    rows = spark.range(0, 2 * n, 2).select(url).repartition(args.partitions).cache()
    rows.count()
    java_filter = keys._jdf.stat().bloomFilter("url", n, rate)
    ours = from_java(java_filter)
    with open(filter_file, "wb") as f:
        f.write(ours.to_spark())
    spark.udf.registerJavaFunction("might_contain", "MightContain", BooleanType())
    python_keys = [row.url for row in rows.collect()]
    sample = python_keys[: args.py4j_sample]

    expected_kept = rows.where(F.expr("might_contain(url)")).count()
    ways = {
        "Spark: mightContainString as a Java SQL UDF, rows counted in the JVM": lambda: rows.where(
            F.expr("might_contain(url)")
        ).count(),
        "atomic_bloom: contains_many of the keys in a Python list": lambda: sum(
            ours.contains_many(python_keys)
        ),
        "atomic_bloom: prefilter in Spark (pandas UDF, contains_many per batch)": lambda: prefilter(
            rows, "url", ours
        ).count(),
    }
    seconds = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, way in ways.items():
            elapsed, kept = timed(way)
            seconds[name].append(elapsed)
            assert kept == expected_kept, (name, kept, expected_kept)
    py4j_seconds, py4j_answers = timed(
        lambda: [java_filter.mightContainString(key) for key in sample]
    )
    assert py4j_answers == ours.contains_many(sample), "py4j and contains_many disagree"
    median = {name: statistics.median(s) for name, s in seconds.items()}

    rows_n = len(python_keys)
    print(f"# Spark {pyspark.__version__}: a filter of {n:,} str keys (p = {rate}) asked for "
          f"{rows_n:,} rows, half of them keys; master {args.master}, median of {args.rounds} "
          "alternating rounds")
    print("| way | M rows/s |")
    print("|---|---|")
    for name, s in median.items():
        print(f"| {name} | {rows_n / s / 1e6:.2f} |")
    print(f"| Spark: mightContainString through py4j, key by key ({len(sample):,} keys) | "
          f"{len(sample) / py4j_seconds / 1e6:.4f} |")
    print()
    udf = median["Spark: mightContainString as a Java SQL UDF, rows counted in the JVM"]
    from_python = median["atomic_bloom: contains_many of the keys in a Python list"]
    in_spark = median["atomic_bloom: prefilter in Spark (pandas UDF, contains_many per batch)"]
    print("| ratio (speed) | value |")
    print("|---|---|")
    print(f"| contains_many from Python / Spark's UDF | {udf / from_python:.2f} |")
    print(f"| prefilter in Spark / Spark's UDF | {udf / in_spark:.2f} |")
    per_key_py4j = py4j_seconds / len(sample)
    print(f"| contains_many from Python / py4j mightContainString | "
          f"{per_key_py4j * rows_n / from_python:.0f} |")
    spark.stop()


if __name__ == "__main__":
    main()
