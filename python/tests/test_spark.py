"""The distributed build on a real Spark: local[2], 12 partitions.

Skipped when pyspark is not installed, unless ATOMIC_BLOOM_REQUIRE_SPARK is
set (as CI sets it), which makes a missing pyspark a failure.
"""

import os
import subprocess
import sys

import pytest

if os.environ.get("ATOMIC_BLOOM_REQUIRE_SPARK"):
    import pyspark  # noqa: F401  (fail, do not skip)
else:
    pytest.importorskip("pyspark")

from atomic_bloom import BloomFilter, CountingBloomFilter
from atomic_bloom.spark import build_counting_filter, build_filter, prefilter

KEYS = 30_000
PARTITIONS = 12
RATE = 0.01


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # The executors' Python workers import atomic_bloom: run them on this
    # interpreter, where it is installed (on a cluster, install it on every
    # node or ship it with spark.archives).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("atomic-bloom-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.fixture(scope="module")
def users(spark):
    rows = [(f"user-{i}@example.com", i) for i in range(KEYS)] + [(None, -1)]
    return spark.createDataFrame(rows, "email string, id long").repartition(PARTITIONS).cache()


def single_process_build(keys, **params):
    f = BloomFilter(**params)
    f.add_many(keys)
    return f


def test_the_merged_filter_equals_a_single_process_build(users):
    assert users.rdd.getNumPartitions() >= 8
    built = build_filter(users, "email", expected_items=KEYS, false_positive_rate=RATE)
    expected = single_process_build(
        (f"user-{i}@example.com" for i in range(KEYS)),
        expected_items=KEYS,
        false_positive_rate=RATE,
    )
    assert built == expected  # bit for bit: the OR of the partitions is the whole


def test_many_partitions_merge_through_a_tree_to_the_same_filter(spark):
    # Past 16 partitions the filters merge in a treeReduce, not on the
    # driver; plain and counting builds alike equal a single build.
    keys = [f"t{i}" for i in range(4000)] * 2
    df = spark.createDataFrame([(k,) for k in keys], "key string").repartition(20)
    assert df.rdd.getNumPartitions() > 16
    assert build_filter(df, "key", expected_items=4000) == single_process_build(
        keys, expected_items=4000
    )
    counted = CountingBloomFilter(4000)
    counted.add_many(keys)
    assert build_counting_filter(df, "key", expected_items=4000) == counted


def test_a_counting_build_adds_up_the_partitions_counts(spark):
    # Values repeated across partitions count as often as they come, as in
    # one process adding every value; then each copy can be removed.
    values = [f"k{i}" for i in range(6000)] * 2 + [f"k{i}" for i in range(100)]
    df = spark.createDataFrame([(v,) for v in values], "key string").repartition(PARTITIONS)
    built = build_counting_filter(df, "key", expected_items=6000)
    expected = CountingBloomFilter(6000)
    expected.add_many(values)
    assert isinstance(built, CountingBloomFilter) and built == expected
    assert built.count("k50") == 3 and built.count("k5000") == 2


def test_binary_and_derived_columns_are_keys_like_bytes(users):
    from pyspark.sql import functions as F

    built = build_filter(users, F.encode("email", "UTF-8"), expected_items=KEYS)
    expected = single_process_build(
        (f"user-{i}@example.com".encode() for i in range(KEYS)), expected_items=KEYS
    )
    assert built == expected  # and bytes are the same keys as the str


def test_integer_columns_and_counted_sizes_work_too(users):
    built = build_filter(users, "id", layout="word", seed=5)  # sized by counting: KEYS + 1
    expected = single_process_build(
        range(-1, KEYS), expected_items=KEYS + 1, layout="word", seed=5
    )
    assert built == expected


def test_the_broadcast_prefilter_keeps_every_match_and_few_others(spark, users):
    seen = build_filter(users, "email", expected_items=KEYS, false_positive_rate=RATE)
    absent = 20_000
    events = spark.createDataFrame(
        [(f"user-{i}@example.com",) for i in range(0, KEYS, 3)]
        + [(f"stranger-{i}@example.org",) for i in range(absent)]
        + [(None,)],
        "email string",
    ).repartition(PARTITIONS)
    kept = {row.email for row in prefilter(events, "email", seen).collect()}
    matches = {f"user-{i}@example.com" for i in range(0, KEYS, 3)}
    assert matches <= kept  # no false negative
    false_positives = len(kept - matches)
    # Binomial(20000, 0.01): mean 200, sd 14; 1.5x the target is 7 sd away.
    assert false_positives < absent * RATE * 1.5
    assert None not in kept


def test_the_vectorised_prefilter_and_udf_answer_as_the_filter_does_per_key(spark):
    # Every kind of key column, nulls among them: prefilter (Arrow batches)
    # and contains_udf (a pandas UDF) keep exactly the rows whose value is
    # `in` the filter, per key, in Python; other columns pass unchanged.
    from pyspark.sql import functions as F

    from atomic_bloom.spark import contains_udf

    rows = [(f"v{i}", i, f"v{i}".encode(), i * 10) for i in range(0, 3000)] + [(None, None, None, -1)]
    df = spark.createDataFrame(rows, "s string, n long, b binary, other long").repartition(5)
    for column, keys in [
        ("s", [f"v{i}" for i in range(0, 3000, 2)]),
        ("n", list(range(0, 3000, 2))),
        ("b", [f"v{i}".encode() for i in range(0, 3000, 2)]),
    ]:
        seen = BloomFilter(1500, 0.05)  # a high rate: many false positives to agree on
        seen.add_many(keys)
        position = "snb".index(column)
        expected = sorted(row for row in rows if row[position] is not None and row[position] in seen)
        assert len(expected) > 1500  # every key, and false positives too
        kept = prefilter(df, column, seen)
        assert kept.columns == df.columns
        assert sorted(tuple(row) for row in kept.collect()) == expected, column
        udf_kept = df.where(contains_udf(seen, spark)(column)).collect()
        assert sorted(tuple(row) for row in udf_kept) == expected, column
    # A derived column, and a DataFrame whose every key is null.
    seen = BloomFilter(100)
    seen.add("V7")
    assert [r.n for r in prefilter(df, F.upper("s"), seen).collect()] == [7]
    nulls = spark.createDataFrame([(None,), (None,)], "s string")
    assert prefilter(nulls, "s", seen).count() == 0


def test_a_string_column_and_an_integer_column_meet_only_after_a_cast(spark, users):
    from pyspark.sql import functions as F

    # Ids kept as text on one side and as numbers on the other: Spark's
    # join casts the text to the number, so "00042" matches 42. The filter
    # does not: a str and an int are different keys.
    text_ids = users.select(F.format_string("%05d", "id").alias("id")).where("id >= 0")
    events = spark.createDataFrame([(i,) for i in range(0, 2 * KEYS, 7)], "id long")
    matches = {row.id for row in events.join(text_ids, "id").select(events.id).collect()}
    assert len(matches) == len(range(0, KEYS, 7))

    as_text = build_filter(text_ids, "id", expected_items=KEYS)
    kept = {row.id for row in prefilter(events, "id", as_text).collect()}
    # Only false positives pass: Binomial(4286, 0.01), mean 43, sd 6.5.
    assert len(kept & matches) < len(matches) * RATE * 2

    # Cast at the build, as the join does: every match is kept.
    as_numbers = build_filter(text_ids, F.col("id").cast("long"), expected_items=KEYS)
    assert matches <= {row.id for row in prefilter(events, "id", as_numbers).collect()}


def test_a_saved_spark_filter_loads_in_the_cli(users, cli, tmp_path):
    seen = build_filter(users, "email", expected_items=KEYS, false_positive_rate=RATE)
    seen.save(tmp_path / "emails.abf")
    keys = tmp_path / "keys.txt"
    keys.write_text("".join(f"user-{i}@example.com\n" for i in range(KEYS)))
    run = subprocess.run([cli, "query", "-q", str(tmp_path / "emails.abf"), str(keys)])
    assert run.returncode == 0
    info = subprocess.run(
        [cli, "info", str(tmp_path / "emails.abf")], capture_output=True, text=True, check=True
    )
    assert "blocked" in info.stdout


def test_bad_parameters_fail_on_the_driver(users):
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        build_filter(users, "email", expected_items=10, false_positive_rate=2.0)


def test_a_column_of_another_type_fails_on_the_driver(spark, users):
    # Doubles, dates or structs are not keys: said before any job runs.
    prices = spark.createDataFrame([(1.5,), (2.5,)], "price double")
    with pytest.raises(TypeError, match="string, binary or integral, not double"):
        build_filter(prices, "price", expected_items=10)
    seen = build_filter(users, "email", expected_items=KEYS)
    with pytest.raises(TypeError, match="not double"):
        prefilter(prices, "price", seen)


def test_spark_builds_and_python_asks(users, spark):
    """Spark's own build (df.stat.bloomFilter, on the JVM) read here answers
    as Spark's mightContain does; a filter written here reads in Spark."""
    from atomic_bloom.spark import from_java, spark_bloom_filter

    ours = spark_bloom_filter(users, "email", expected_items=KEYS, false_positive_rate=RATE)
    emails = [f"user-{i}@example.com" for i in range(KEYS)]
    assert all(ours.contains_many(emails))
    java = users._jdf.stat().bloomFilter("email", KEYS, RATE)
    absent = [f"nobody-{i}@example.com" for i in range(2000)]
    assert [java.mightContainString(k) for k in absent] == ours.contains_many(absent)
    assert from_java(java) == ours
    # Back to the JVM: Spark's readFrom of our bytes answers the same.
    ours.add("added in python")
    back = spark.sparkContext._jvm.org.apache.spark.util.sketch.BloomFilter.readFrom(
        bytearray(ours.to_spark())
    )
    assert back.mightContainString("added in python")
    assert [back.mightContainString(k) for k in absent] == ours.contains_many(absent)
