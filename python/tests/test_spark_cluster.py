"""Getting the package to a cluster's executors: the recipe python/README.md
gives ("On a cluster"), checked on a local standalone cluster
(`local-cluster[1,1,1024]`: a master, a worker and an executor of their
own, each in its own process and folder).

The executor's Python here is one that lacks atomic_bloom: this venv's
interpreter with every package of the venv but atomic_bloom on its path.
Shipped as an archive with the job, the package reaches it and the build
runs; not shipped, the same build fails for want of the module.

Skipped when pyspark is not installed, unless ATOMIC_BLOOM_REQUIRE_SPARK is
set (as CI sets it).
"""

import os
import shutil
import stat
import sys
import zipfile
from pathlib import Path

import pytest

if os.environ.get("ATOMIC_BLOOM_REQUIRE_SPARK"):
    import pyspark
else:
    pyspark = pytest.importorskip("pyspark")

import atomic_bloom
from atomic_bloom import BloomFilter


@pytest.fixture
def executor_python(tmp_path, monkeypatch):
    """A Python for the executors with the venv's packages but atomic_bloom."""
    site = Path(pyspark.__file__).resolve().parents[1]
    others = tmp_path / "site-without-atomic-bloom"
    others.mkdir()
    for entry in site.iterdir():
        if not entry.name.startswith("atomic_bloom"):
            (others / entry.name).symlink_to(entry)
    wrapper = tmp_path / "executor-python"
    # -S: no site-packages of the interpreter's own; Spark's PYTHONPATH
    # (pyspark, and what the job ships) comes first.
    wrapper.write_text(
        "#!/bin/sh\n"
        f'PYTHONPATH="${{PYTHONPATH:+$PYTHONPATH:}}{others}" '
        f'exec {sys._base_executable} -S "$@"\n'
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PYSPARK_PYTHON", str(wrapper))
    return wrapper


@pytest.fixture
def package_archive(tmp_path):
    """The installed package as `pip install --target DIR` lays it out,
    zipped: what `--archives` ships."""
    archive = tmp_path / "atomic_bloom_pkg.zip"
    package = Path(atomic_bloom.__file__).parent
    with zipfile.ZipFile(archive, "w") as out:
        for path in package.rglob("*"):
            if "__pycache__" not in path.parts:
                out.write(path, Path("atomic_bloom") / path.relative_to(package))
    return archive


def build_on_a_cluster(**conf):
    from pyspark.sql import SparkSession

    from atomic_bloom.spark import build_filter

    builder = (
        SparkSession.builder.master("local-cluster[1,1,1024]")
        .appName("atomic-bloom-cluster-test")
        .config("spark.ui.enabled", "false")
        .config("spark.pyspark.driver.python", sys.executable)
    )
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    try:
        df = spark.createDataFrame([(f"k{i}",) for i in range(2000)], "key string")
        return build_filter(df.repartition(3), "key", expected_items=2000)
    finally:
        spark.stop()


@pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="no Java")
def test_a_package_shipped_as_an_archive_reaches_executors_without_it(
    executor_python, package_archive
):
    # The control first (a builder's options outlive its session in some
    # pyspark versions): the build, nothing shipped.
    with pytest.raises(Exception, match="No module named 'atomic_bloom'"):
        build_on_a_cluster()

    built = build_on_a_cluster(
        **{
            "spark.archives": f"{package_archive}#atomic_bloom_pkg",
            "spark.executorEnv.PYTHONPATH": "atomic_bloom_pkg",
        }
    )
    expected = BloomFilter(2000)
    expected.add_many(f"k{i}" for i in range(2000))
    assert built == expected
