"""Spark's own Bloom filters, read and written bit for bit: the files Spark
wrote (tests/golden/spark-*, by tests/jvm/SparkFilters.java) answer every
key as Spark's mightContain did. The JVM round trips are in test_spark.py."""

import pickle

import pytest

import atomic_bloom
from atomic_bloom import CorruptFilterError, SparkBloomFilter

GOLDEN = [
    ("spark-v1-1000-p03", 1, 0, 1000),
    ("spark-v2-1000-p03", 2, 0, 1000),
    ("spark-v2-5000-p001-seed7", 2, 7, 5000),
]


def answers(f):
    strings = "".join(f" {i}" for i in range(100_000) if f"absent-{i}" in f)
    longs = "".join(f" {i}" for i in range(100_000) if 1_000_000_000_000 + i in f)
    return f"strings{strings}\nlongs{longs}\n"


@pytest.mark.parametrize("name,version,seed,count", GOLDEN)
def test_spark_files_answer_as_spark_did(golden, name, version, seed, count):
    data = (golden / f"{name}.bin").read_bytes()
    f = SparkBloomFilter.from_spark(data)
    assert (f.version, f.seed) == (version, seed)
    keys = [f"spark-{i}" for i in range(count)] + [i * 7919 for i in range(count)]
    keys += [str(i).encode() for i in range(count)]
    assert all(f.contains_many(keys))
    assert answers(f) == (golden / f"{name}.answers").read_text()
    assert f.to_spark() == data
    # Spark's format and the library's both load, and pickle.
    assert atomic_bloom.load(golden / f"{name}.bin") == f
    assert SparkBloomFilter.from_bytes(f.to_bytes()) == f
    assert pickle.loads(pickle.dumps(f)) == f


def test_bad_spark_bytes_raise(golden):
    data = (golden / "spark-v2-1000-p03.bin").read_bytes()
    with pytest.raises(CorruptFilterError, match="truncated"):
        SparkBloomFilter.from_spark(data[:-1])
    with pytest.raises(CorruptFilterError, match="version 3"):
        SparkBloomFilter.from_spark(b"\0\0\0\3" + data[4:])
    with pytest.raises(TypeError):
        SparkBloomFilter.from_spark("not bytes")


def test_a_new_filter_is_sized_as_sparks_create(golden):
    # tests/jvm/SparkFilters.java wrote it with BloomFilter.create(3000, 0.03).
    data = (golden / "spark-v2-1000-p03.bin").read_bytes()
    f = SparkBloomFilter(3000, 0.03)
    for i in range(1000):
        f.add(f"spark-{i}")
        f.add(i * 7919)
        f.add(str(i).encode())
    assert f.to_spark() == data
    with pytest.raises(ValueError):
        SparkBloomFilter(10, 1.5)
