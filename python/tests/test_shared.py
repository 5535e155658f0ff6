"""Shared filters: one file that several processes map and add to (Linux)."""

import multiprocessing
import pickle
import sys

import pytest

from atomic_bloom import BloomFilter, CountingBloomFilter, FileLeftOpenError

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="shared filters are Linux-only")


def _add_range(args):
    shared, start, stop = args
    return shared.add_many(range(start, stop)), str(shared.shared_path)


def test_a_pool_adding_disjoint_keys_loses_none(tmp_path):
    path = tmp_path / "seen.bloom"
    shared = BloomFilter.create_shared(path, 400_000, 0.01)
    chunks = [(shared, i * 100_000, (i + 1) * 100_000) for i in range(4)]
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = pool.map(_add_range, chunks)
    # The workers had the same file, not copies.
    assert {p for _, p in results} == {str(path)}
    assert all(k in shared for k in range(400_000))
    expected = BloomFilter(400_000, 0.01)
    expected.add_many(range(400_000))
    assert shared == expected
    # Each worker's filter object was freed after its task, closing it:
    # this process's is the last writer, and seals the file.
    shared.close()
    assert BloomFilter.load(path) == expected


def test_a_closed_filter_keeps_answering_and_its_adds_stay_local(tmp_path):
    path = tmp_path / "f.bloom"
    with BloomFilter.create_shared(path, 1000) as f:
        f.add("in the file")
    f.add("only here")
    assert "only here" in f and "in the file" in f
    saved = BloomFilter.load(path)
    assert "in the file" in saved and "only here" not in saved
    f.close()  # again: nothing to do


def test_a_shared_filter_pickles_as_its_file(tmp_path):
    path = tmp_path / "f.bloom"
    writer = CountingBloomFilter.create_shared(path, 1000)
    again = pickle.loads(pickle.dumps(writer))
    assert again.shared_path == path
    again.add("k")
    assert "k" in writer
    assert writer.remove("k")
    assert "k" not in again
    BloomFilter(10).save(tmp_path / "g.bloom")
    reader = BloomFilter.open_shared(tmp_path / "g.bloom", read_only=True)
    assert pickle.loads(pickle.dumps(reader)).shared_path == tmp_path / "g.bloom"
    # A filter in memory pickles as its bytes.
    assert pickle.loads(pickle.dumps(BloomFilter(10))).shared_path is None


def test_a_read_only_handle_keeps_its_adds_to_itself(tmp_path):
    path = tmp_path / "f.bloom"
    f = BloomFilter(1000)
    f.add("saved")
    f.save(path)
    before = path.read_bytes()
    reader = BloomFilter.open_shared(path, read_only=True)
    reader.add("local")
    assert "local" in reader and "saved" in reader
    del reader
    assert path.read_bytes() == before
    # A saved (version 1) file opens read-only, not to write.
    with pytest.raises(OSError, match="version 1"):
        BloomFilter.open_shared(path)


def test_a_file_left_open_raises_until_recovered(tmp_path):
    path = tmp_path / "f.bloom"
    f = BloomFilter.create_shared(path, 1000)
    f.add("k")
    f.flush()
    del f
    data = bytearray(path.read_bytes())
    data[48] = 1  # what a writer killed before closing leaves
    path.write_bytes(bytes(data))
    with pytest.raises(FileLeftOpenError):
        BloomFilter.open_shared(path)
    recovered = BloomFilter.open_shared(path, recover=True)
    assert "k" in recovered
    del recovered
    assert "k" in BloomFilter.load(path)


def test_bad_files_and_arguments(tmp_path):
    with pytest.raises(FileNotFoundError):
        BloomFilter.open_shared(tmp_path / "missing")
    bad = tmp_path / "bad"
    bad.write_bytes(b"not a filter")
    with pytest.raises(ValueError):
        BloomFilter.open_shared(bad, read_only=True)
    with pytest.raises(ValueError):
        BloomFilter.create_shared(tmp_path / "x", 0)
