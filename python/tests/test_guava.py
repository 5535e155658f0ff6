"""Guava's own Bloom filters, bit for bit: files Guava wrote
(tests/golden/guava-*, by tests/jvm/GuavaFilters.java) answer every key as
Guava's mightContain did, and write back byte for byte."""

import os
import pickle
import threading

import pytest

from atomic_bloom import CorruptFilterError, GuavaBloomFilter


def present(funnel, i):
    return {"strings": f"guava-{i}", "longs": i * 7919, "bytes": str(i).encode()}[funnel]


def absent(funnel, i):
    n = 1_000_000_000_000 + i
    return {"strings": f"absent-{i}", "longs": n, "bytes": str(n).encode()}[funnel]


@pytest.mark.parametrize("funnel", ["strings", "longs", "bytes"])
@pytest.mark.parametrize("count,percent", [(1000, 3), (20000, 1)])
def test_guava_files_answer_as_guava_did(golden, funnel, count, percent):
    name = f"guava-{funnel}-{count}-p{percent}"
    data = (golden / f"{name}.bin").read_bytes()
    f = GuavaBloomFilter.from_guava(data)
    assert f.strategy == "MURMUR128_MITZ_64"
    assert all(f.contains_many([present(funnel, i) for i in range(count)]))
    answers = f.contains_many([absent(funnel, i) for i in range(100_000)])
    hits = "".join(f" {i}" for i, hit in enumerate(answers) if hit)
    assert f"{funnel}{hits}\n" == (golden / f"{name}.answers").read_text()
    assert f.to_guava() == data
    assert pickle.loads(pickle.dumps(f)) == f
    # Guava's sizing, the same keys: Guava's filter.
    built = GuavaBloomFilter(count, percent / 100)
    assert built.add_many([present(funnel, i) for i in range(count)]) > 0
    assert built == f


def test_bad_guava_bytes_raise(golden):
    data = (golden / "guava-strings-1000-p3.bin").read_bytes()
    with pytest.raises(CorruptFilterError, match="truncated"):
        GuavaBloomFilter.from_guava(data[:-1])
    with pytest.raises(CorruptFilterError, match="strategy 7"):
        GuavaBloomFilter.from_guava(b"\x07" + data[1:])
    with pytest.raises(ValueError):
        GuavaBloomFilter(100, 1.5)
    with pytest.raises(TypeError):
        GuavaBloomFilter(100).add(None)


def test_load_reads_guavas_format_from_a_path_or_a_file_object(golden, tmp_path):
    import atomic_bloom

    path = golden / "guava-strings-1000-p3.bin"
    f = atomic_bloom.load(path)
    assert isinstance(f, GuavaBloomFilter)
    assert f == GuavaBloomFilter.from_guava(path.read_bytes())
    with open(path, "rb") as file:
        assert atomic_bloom.load(file) == f


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_load_reads_guavas_format_from_a_named_pipe(golden, tmp_path):
    # A pipe is read once: its first bytes tell Guava's format.
    import atomic_bloom

    data = (golden / "guava-longs-1000-p3.bin").read_bytes()
    pipe = tmp_path / "filter.fifo"
    os.mkfifo(pipe)
    writer = threading.Thread(target=pipe.write_bytes, args=(data,))
    writer.start()
    loaded = atomic_bloom.load(pipe)
    writer.join()
    assert loaded == GuavaBloomFilter.from_guava(data)
