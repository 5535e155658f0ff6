"""Saving, loading and pickling, and the files Python, Rust and the CLI share."""

import errno
import importlib.metadata
import io
import os
import pickle
import struct
import subprocess
import sys
import threading

import pytest

import atomic_bloom
from atomic_bloom import (
    BloomFilter,
    CorruptFilterError,
    CountingBloomFilter,
    GrowableBloomFilter,
    ParquetBloomFilter,
    key_hash,
)


def mixed_keys():
    """The keys of `tests/golden/v1-mixed-keys.abf` (see tests/all/golden.rs)."""
    for i in range(100):
        yield f"key-{i}"
        yield (i * 0x9E37_79B9_7F4A_7C15) % 2**64
        yield -i - 1


class TestGoldenFiles:
    def test_key_hashes_match_the_published_vectors(self, golden):
        checked = 0
        for line in (golden / "key-hashes.tsv").read_text().splitlines():
            if line.startswith("#"):
                continue
            seed, key_hex, expected = line.split("\t")
            key = bytes.fromhex(key_hex)
            assert key_hash(key, int(seed)) == int(expected, 16), line
            assert key_hash(memoryview(key), int(seed)) == int(expected, 16)
            if key.isascii():
                assert key_hash(key.decode(), int(seed)) == int(expected, 16)
            checked += 1
        assert checked >= 30

    def test_the_cli_golden_file_is_what_python_builds_from_the_same_lines(self, golden):
        # `atomic-bloom build --expected 100 --seed 7` of the lines line-0 .. line-99
        f = BloomFilter(100, 0.01, seed=7)
        f.add_many(f"line-{i}" for i in range(100))
        assert f.to_bytes() == (golden / "v1-cli-lines.abf").read_bytes()

    def test_zero_copy_inputs_build_the_cli_golden_file(self, golden):
        # Columns read through their buffers (pyarrow strings and binaries,
        # pandas columns backed by them) or their NumPy values give the
        # keys the CLI's lines are.
        pa = pytest.importorskip("pyarrow")
        pd = pytest.importorskip("pandas")
        np = pytest.importorskip("numpy")
        lines = [f"line-{i}" for i in range(100)]
        expected = (golden / "v1-cli-lines.abf").read_bytes()
        columns = {
            "pyarrow string": pa.array(lines),
            "pyarrow large_string": pa.array(lines, pa.large_string()),
            "pyarrow binary": pa.array([line.encode() for line in lines]),
            "pyarrow chunked": pa.chunked_array([lines[:30], lines[30:]]),
            "pyarrow slice": pa.array(["x"] + lines + ["y"])[1:101],
            "pandas object": pd.Series(lines),
            "pandas string[pyarrow]": pd.Series(lines, dtype="string[pyarrow]"),
            "pandas ArrowDtype": pd.Series(lines, dtype=pd.ArrowDtype(pa.string())),
            "numpy object": np.array(lines, dtype=object),
        }
        for name, keys in columns.items():
            f = BloomFilter(100, 0.01, seed=7)
            f.add_many(keys)
            assert f.to_bytes() == expected, name
            built = BloomFilter.from_keys(keys, 0.01, expected_items=100, seed=7)
            assert built.to_bytes() == expected, name
            assert f.contains_many(keys) == [True] * 100, name

    def test_int_arrays_build_the_rust_golden_file(self, golden):
        # The golden file's ints as NumPy and pyarrow arrays of each width
        # and signedness that holds them, its strs as a pyarrow array.
        pa = pytest.importorskip("pyarrow")
        np = pytest.importorskip("numpy")
        keys = list(mixed_keys())
        strs = [k for k in keys if isinstance(k, str)]
        big = [k for k in keys if isinstance(k, int) and k >= 0]
        negative = [k for k in keys if isinstance(k, int) and k < 0]
        for arrays in (
            [np.array(big, np.uint64), np.array(negative, np.int64)],
            [pa.array(big, pa.uint64()), pa.array(negative, pa.int64())],
            [np.array(big, np.uint64), np.array(negative, np.int8)],
        ):
            f = BloomFilter(300, 0.01, seed=42)
            f.add_many(pa.array(strs))
            for array in arrays:
                f.add_many(array)
            assert f.to_bytes() == (golden / "v1-mixed-keys.abf").read_bytes()

    def test_str_and_int_keys_build_the_rust_golden_file(self, golden):
        f = BloomFilter(300, 0.01, seed=42)
        for key in mixed_keys():
            f.add(key)
        assert f.to_bytes() == (golden / "v1-mixed-keys.abf").read_bytes()

    @pytest.mark.parametrize(
        "name", ["standard", "blocked", "word", "blocked-seeded", "sectorized", "split-block"]
    )
    def test_plain_golden_files_load_and_write_back_byte_for_byte(self, golden, name):
        data = (golden / f"v1-{name}.abf").read_bytes()
        f = BloomFilter.from_bytes(data)
        assert f.layout == name.removesuffix("-seeded")
        assert f.to_bytes() == data

    @pytest.mark.parametrize("layout", ["standard", "blocked", "word", "sectorized", "split-block"])
    def test_counting_golden_files_load_and_write_back_byte_for_byte(self, golden, layout):
        path = golden / f"v2-counting-{layout}.abf"
        f = CountingBloomFilter.load(path)
        assert f.layout == layout
        assert f.to_bytes() == path.read_bytes()
        assert isinstance(atomic_bloom.load(path), CountingBloomFilter)


@pytest.mark.parametrize("reader", [atomic_bloom.load, BloomFilter.load])
def test_a_filter_file_opened_in_text_mode_is_a_type_error_that_says_binary(reader, tmp_path):
    BloomFilter(100).save(tmp_path / "f.abf")
    with open(tmp_path / "f.abf", encoding="utf-8") as text:
        with pytest.raises(TypeError, match='binary file \\(open it with "rb"\\)'):
            reader(text)


def test_the_package_version_is_the_distributions():
    assert atomic_bloom.__version__ == importlib.metadata.version("atomic-bloom")


class TestParquetFilters:
    """A filter a Parquet writer built answers with Parquet's hash (XXH64 of
    the plain encoding): `tests/golden/v1-split-block-parquet.abf` holds
    "key-0".."key-99" as strings, 0..99 as INT32 and -1..-100 as INT64."""

    def test_load_gives_a_parquet_filter_that_finds_every_value(self, golden):
        path = golden / "v1-split-block-parquet.abf"
        f = atomic_bloom.load(path)
        assert isinstance(f, ParquetBloomFilter)
        assert f.layout == "split-block" and f.seed == 0
        assert all(f"key-{i}" in f for i in range(100))
        assert all(struct.pack("<i", i) in f for i in range(100))
        assert all(-i - 1 in f for i in range(100))  # an int is an INT64
        assert sum(f"other-{i}" in f for i in range(10_000)) < 300
        assert f.to_bytes() == path.read_bytes()
        assert ParquetBloomFilter.from_bytes(path.read_bytes()) == f
        assert pickle.loads(pickle.dumps(f)) == f

    def test_the_default_readers_refuse_it_and_say_which_to_use(self, golden):
        with pytest.raises(CorruptFilterError, match="Parquet"):
            BloomFilter.load(golden / "v1-split-block-parquet.abf")

    def test_python_and_the_cli_agree_on_a_parquet_filter(self, golden, cli, tmp_path):
        f = atomic_bloom.load(golden / "v1-split-block-parquet.abf")
        f.add("added-in-python")
        f.save(tmp_path / "names.abf")
        (tmp_path / "keys.txt").write_text(
            "".join(f"key-{i}\n" for i in range(100)) + "added-in-python\n"
        )
        found = subprocess.run(
            [cli, "query", "-q", str(tmp_path / "names.abf"), str(tmp_path / "keys.txt")]
        )
        assert found.returncode == 0


class TestRoundTrips:
    @pytest.mark.parametrize("cls", [BloomFilter, CountingBloomFilter])
    def test_save_load_bytes_and_pickle_give_back_an_equal_filter(self, cls, tmp_path):
        f = cls(1000, 0.01, layout="sectorized", seed=5)
        f.add_many(range(300))
        path = tmp_path / "f.abf"
        f.save(path)
        assert cls.load(path) == f
        assert cls.load(str(path)) == f
        assert atomic_bloom.load(path) == f
        assert cls.from_bytes(f.to_bytes()) == f
        assert cls.from_bytes(bytearray(f.to_bytes())) == f
        assert cls.from_bytes(memoryview(f.to_bytes())) == f
        for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
            assert pickle.loads(pickle.dumps(f, protocol)) == f

    @pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
    @pytest.mark.parametrize("cls", [BloomFilter, CountingBloomFilter, GrowableBloomFilter])
    def test_a_filter_loads_from_a_named_pipe(self, cls, tmp_path):
        # A pipe has no length and is read once: it is read as a stream.
        f = cls(1000, 0.01)
        f.add_many(range(300))
        pipe = tmp_path / "filter.fifo"
        os.mkfifo(pipe)
        for load in (cls.load, atomic_bloom.load):
            writer = threading.Thread(target=pipe.write_bytes, args=(f.to_bytes(),))
            writer.start()
            loaded = load(pipe)
            writer.join()
            assert type(loaded) is cls and loaded == f

    def test_paths_are_taken_as_open_takes_them(self, tmp_path):
        # str, bytes and os.PathLike, and on POSIX a name that is not UTF-8.
        f = BloomFilter(100)
        f.add("x")
        names = [tmp_path / "a.abf", str(tmp_path / "b.abf"), os.fsencode(tmp_path / "c.abf")]
        if os.name == "posix":
            names.append(os.fsencode(tmp_path) + b"/not-utf8-\xff.abf")
        for name in names:
            f.save(name)
            assert os.path.exists(name)
            assert BloomFilter.load(name) == f and atomic_bloom.load(name) == f
        with pytest.raises(TypeError, match="str, bytes or os.PathLike"):
            f.save(3)

    @pytest.mark.parametrize("cls", [BloomFilter, CountingBloomFilter, GrowableBloomFilter])
    def test_binary_file_objects_are_written_and_read_as_paths_are(self, cls, tmp_path):
        f = cls(1000, 0.01)
        f.add_many(range(300))
        buffer = io.BytesIO()
        assert f.save(buffer) is None
        assert buffer.getvalue() == f.to_bytes()
        for load in (cls.load, atomic_bloom.load):
            buffer.seek(0)
            loaded = load(buffer)
            assert type(loaded) is cls and loaded == f
        # A file-like object whose write returns nothing took it all.
        class Parts:
            def __init__(self):
                self.parts = []

            def write(self, data):
                self.parts.append(bytes(data))

        parts = Parts()
        f.save(parts)
        assert b"".join(parts.parts) == f.to_bytes()
        # An open file, buffered or raw (whose write may take less than it
        # is given), written here and read by path, and the other way.
        for buffering in (-1, 0):
            path = tmp_path / f"f{buffering}.abf"
            with open(path, "wb", buffering=buffering) as out:
                f.save(out)
            assert cls.load(path) == f
            with open(path, "rb", buffering=buffering) as source:
                assert cls.load(source) == f

    def test_a_file_object_that_fails_raises_its_own_error(self):
        class Full(io.RawIOBase):
            def writable(self):
                return True

            def write(self, data):
                raise OSError(errno.ENOSPC, "No space left on device")

        with pytest.raises(OSError, match="No space left"):
            BloomFilter(100).save(Full())
        with pytest.raises(TypeError, match="binary file"):
            BloomFilter(100).save(io.StringIO())
        with pytest.raises(TypeError, match="binary file"):
            BloomFilter.load(io.StringIO("text"))
        with pytest.raises(CorruptFilterError, match="bad magic"):
            BloomFilter.load(io.BytesIO(b"not a filter"))
        # A stream holds one filter: bytes after it are corrupt data.
        with pytest.raises(CorruptFilterError):
            BloomFilter.load(io.BytesIO(BloomFilter(100).to_bytes() + b"more"))
        with pytest.raises(TypeError, match=r"str, bytes or os.PathLike\) or a binary file"):
            BloomFilter.load(3)

    def test_pickles_carry_the_validated_format(self):
        f = BloomFilter(100)
        assert f.to_bytes() in pickle.dumps(f)

    def test_a_pickled_filter_crosses_processes_intact(self):
        f = BloomFilter(10_000)
        f.add_many(range(1000))
        child = (
            "import pickle, sys; f = pickle.load(sys.stdin.buffer); f.add(5000); "
            "sys.stdout.buffer.write(pickle.dumps(f))"
        )
        run = subprocess.run(
            [sys.executable, "-c", child], input=pickle.dumps(f), capture_output=True, timeout=60
        )
        assert run.returncode == 0, run.stderr.decode()
        back = pickle.loads(run.stdout)
        assert 5000 in back and all(back.contains_many(range(1000)))


class TestBadData:
    def test_garbage_is_a_corrupt_filter_error(self):
        with pytest.raises(CorruptFilterError, match="bad magic"):
            BloomFilter.from_bytes(b"not a filter at all, not even close")
        with pytest.raises(ValueError):  # CorruptFilterError is a ValueError
            BloomFilter.from_bytes(b"")

    @pytest.mark.parametrize(
        "build",
        [
            lambda: BloomFilter(50, layout="word"),
            lambda: CountingBloomFilter(50, layout="word"),
            lambda: GrowableBloomFilter(4, layout="word"),  # several sub-filters
        ],
        ids=["plain", "counting", "growable"],
    )
    def test_every_truncation_and_every_flipped_byte_is_caught(self, build):
        f = build()
        f.add_many(range(50))
        data, read = f.to_bytes(), type(f).from_bytes
        for end in range(len(data)):
            with pytest.raises(CorruptFilterError):
                read(data[:end])
        for i in range(len(data)):
            damaged = bytearray(data)
            damaged[i] ^= 0x40
            with pytest.raises(CorruptFilterError):
                read(damaged)
        with pytest.raises(CorruptFilterError, match="trailing"):
            read(data + b"\0")

    def test_reading_the_other_kind_names_the_class_to_use(self):
        counting = CountingBloomFilter(100).to_bytes()
        with pytest.raises(CorruptFilterError, match="read it with CountingBloomFilter"):
            BloomFilter.from_bytes(counting)
        with pytest.raises(CorruptFilterError, match="read it with BloomFilter"):
            CountingBloomFilter.from_bytes(BloomFilter(100).to_bytes())

    def test_non_bytes_are_type_errors(self):
        with pytest.raises(TypeError, match="bytes, bytearray or memoryview"):
            BloomFilter.from_bytes("a str")

    def test_files_that_cannot_be_read_or_written_are_os_errors(self, tmp_path):
        with pytest.raises(FileNotFoundError):
            BloomFilter.load(tmp_path / "missing.abf")
        with pytest.raises(FileNotFoundError):
            atomic_bloom.load(tmp_path / "missing.abf")
        with pytest.raises(OSError):
            BloomFilter(10).save(tmp_path / "no-such-dir" / "f.abf")
        (tmp_path / "junk.abf").write_bytes(b"junk")
        with pytest.raises(CorruptFilterError):
            atomic_bloom.load(tmp_path / "junk.abf")

    @pytest.mark.skipif(sys.platform == "win32", reason="errno and filename are set on POSIX")
    @pytest.mark.parametrize("cls", [BloomFilter, CountingBloomFilter, GrowableBloomFilter])
    def test_os_errors_name_the_file_as_open_does(self, cls, tmp_path):
        missing = tmp_path / "missing.abf"
        with pytest.raises(FileNotFoundError) as by_open:
            open(missing, "rb")
        for read in (cls.load, atomic_bloom.load):
            with pytest.raises(FileNotFoundError) as raised:
                read(missing)
            assert raised.value.errno == errno.ENOENT
            assert raised.value.filename == str(missing)
            assert str(raised.value) == str(by_open.value)
        target = tmp_path / "no-such-dir" / "f.abf"
        with pytest.raises(FileNotFoundError) as raised:
            cls(10).save(target)
        assert raised.value.errno == errno.ENOENT
        assert raised.value.filename == str(target)
        with pytest.raises(IsADirectoryError) as by_open:
            open(tmp_path, "wb")
        with pytest.raises(IsADirectoryError) as raised:
            cls(10).save(tmp_path)
        assert raised.value.errno == errno.EISDIR
        assert str(raised.value) == str(by_open.value)


class TestCli:
    """Files cross between Python and the `atomic-bloom` CLI both ways."""

    def test_the_cli_finds_every_key_python_added(self, cli, tmp_path):
        keys = [f"user-{i}" for i in range(5000)]
        f = BloomFilter(5000, 0.001)
        f.add_many(keys)
        f.save(tmp_path / "py.abf")
        (tmp_path / "keys.txt").write_text("\n".join(keys) + "\n")
        run = subprocess.run(
            [cli, "query", "-q", str(tmp_path / "py.abf"), str(tmp_path / "keys.txt")]
        )
        assert run.returncode == 0, "the CLI reported a key Python added as absent"
        absent = subprocess.run(
            [cli, "query", "--absent", str(tmp_path / "py.abf"), "-"],
            input="\n".join(f"other-{i}" for i in range(2000)),
            capture_output=True,
            text=True,
        )
        reported_absent = absent.stdout.split()
        assert len(reported_absent) > 1900  # about 0.1% false positives
        assert not any(f.contains_many(reported_absent))

    def test_python_reads_what_the_cli_builds(self, cli, tmp_path):
        keys = [f"url-{i}" for i in range(3000)]
        (tmp_path / "keys.txt").write_text("\n".join(keys) + "\n")
        for extra in ([], ["--counting"]):
            out = tmp_path / "cli.abf"
            subprocess.run(
                [cli, "build", "--expected", "3000", "--seed", "11", "-o", str(out), *extra,
                 str(tmp_path / "keys.txt")],
                check=True,
                capture_output=True,
            )
            f = atomic_bloom.load(out)
            assert isinstance(f, CountingBloomFilter if extra else BloomFilter)
            assert all(f.contains_many(keys))
            mine = type(f)(3000, 0.01, seed=11)
            mine.add_many(keys)
            assert mine == f

    def test_a_name_that_is_not_utf8_is_the_cli_line_of_its_bytes(self, cli, tmp_path):
        # What os.listdir makes of a file name that is not UTF-8: a str
        # with a lone surrogate, which has no UTF-8 and so is no key.
        name = os.fsdecode(b"report-\xff.csv")
        f = BloomFilter(10, 0.01)
        with pytest.raises(UnicodeEncodeError):
            f.add(name)
        f.add(os.fsencode(name))
        f.save(tmp_path / "names.abf")
        (tmp_path / "names.txt").write_bytes(b"report-\xff.csv\n")
        run = subprocess.run(
            [cli, "query", "-q", str(tmp_path / "names.abf"), str(tmp_path / "names.txt")]
        )
        assert run.returncode == 0, "the CLI did not find the name's bytes"
