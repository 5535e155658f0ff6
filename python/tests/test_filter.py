"""BloomFilter: construction, keys, bulk calls, set operations, estimates."""

import array
import copy
import sys

import pytest

import atomic_bloom
from atomic_bloom import BloomFilter, IncompatibleFilterError, key_hash

LAYOUTS = ["standard", "blocked", "word", "sectorized", "split-block"]



def assert_counted_new(added, new, n, f):
    """`add_many` counts the keys it found new as per-key adds in order
    would, for one chunk of keys (32768) inserted on the calling thread.
    More are inserted by several threads at once, or built aside and
    merged: a key whose bits other keys set (a false positive of the final
    filter `f`) is then counted new or not by which came first, so the
    counts may differ by about the false-positive rate of `n` keys."""
    if n <= 32768:
        assert added == new
    else:
        assert abs(added - new) <= 2 * f.estimated_false_positive_rate() * n + 10, (added, new)

class TestConstruction:
    def test_parameters_are_kept(self):
        f = BloomFilter(1000, 0.001, layout="standard", seed=9)
        assert (f.layout, f.seed) == ("standard", 9)
        assert f.num_bits >= 14_000 and f.num_hashes == 10
        assert f.memory_bytes * 8 >= f.num_bits

    def test_defaults_are_the_librarys(self):
        f = BloomFilter(1000)
        assert (f.layout, f.seed) == ("blocked", 0)
        assert f == BloomFilter(1000, 0.01, layout="blocked", seed=0)

    @pytest.mark.parametrize(
        "args, kwargs, message",
        [
            ((0,), {}, "expected_items must be at least 1, got 0"),
            ((-5,), {}, "expected_items must be at least 1, got -5"),
            ((100, 0.0), {}, "strictly between 0 and 1"),
            ((100, 1.0), {}, "strictly between 0 and 1"),
            ((100, float("nan")), {}, "strictly between 0 and 1"),
            ((100,), {"layout": "cuckoo"}, 'unknown layout "cuckoo"'),
            ((100,), {"seed": -1}, "seed must be between 0 and 2**64 - 1"),
            ((100,), {"seed": 2**64}, "seed must be between 0 and 2**64 - 1"),
            ((2**100,), {}, "expected_items must be at most"),
            ((2**63,), {}, "below what a 64-bit hash can give"),
            ((2**62, 0.5), {}, "cannot reach a false-positive rate of 0.5"),
            ((10**13, 1e-4), {"layout": "standard"}, "above the maximum"),
        ],
    )
    def test_bad_parameters_are_value_errors_that_say_what_is_wrong(self, args, kwargs, message):
        with pytest.raises(ValueError, match=message.replace("*", r"\*").replace("(", r"\(")):
            BloomFilter(*args, **kwargs)

    def test_wrong_parameter_types_are_type_errors(self):
        with pytest.raises(TypeError):
            BloomFilter("many")
        with pytest.raises(TypeError):
            BloomFilter(100, layout=3)

    def test_repr_describes_the_filter_in_angle_brackets(self):
        # No call recreates a filter (its bits are part of its value), so
        # its repr is Python's `<...>` form, values written as Python would.
        assert repr(BloomFilter(100, seed=7)) == (
            "<atomic_bloom.BloomFilter num_bits=1024 num_hashes=7 layout='blocked' seed=7>"
        )


class TestKeys:
    @pytest.mark.parametrize("layout", LAYOUTS)
    def test_an_added_key_is_always_found(self, layout):
        f = BloomFilter(10_000, 0.01, layout=layout)
        keys = [f"key-{i}" for i in range(10_000)]
        for key in keys:
            f.add(key)
        assert all(key in f for key in keys)

    def test_add_says_whether_the_key_was_new(self):
        f = BloomFilter(100)
        assert f.add("a") is True
        assert f.add("a") is False

    def test_str_and_every_bytes_like_are_one_key(self):
        f = BloomFilter(100)
        f.add("héllo")
        utf8 = "héllo".encode()
        assert utf8 in f
        assert bytearray(utf8) in f
        assert memoryview(utf8) in f
        assert memoryview(b"xx" + utf8)[2:] in f
        assert key_hash("héllo") == key_hash(utf8) == key_hash(bytearray(utf8))

    def test_ints_are_their_64_bits(self):
        f = BloomFilter(100)
        f.add(-1)
        assert 2**64 - 1 in f  # the same 64 bits, as in Rust
        assert True not in BloomFilter(100)
        f.add(True)
        assert 1 in f  # bool is an int, as in Python
        assert key_hash(5) != key_hash(b"\x05" + bytes(7))  # no length: another key

    def test_an_int_and_its_decimal_string_are_different_keys(self):
        f = BloomFilter(100)
        f.add(42)
        assert "42" not in f

    def test_str_subclasses_are_str_keys(self):
        class Name(str):
            pass

        f = BloomFilter(100)
        f.add(Name("x"))
        assert "x" in f

    def test_integers_of_other_types_are_the_int_they_convert_to(self):
        # As everywhere Python takes an integer: `operator.index`.
        class Index:
            def __init__(self, n):
                self.n = n

            def __index__(self):
                return self.n

        f = BloomFilter(100)
        assert f.add(Index(7))
        assert not f.add(7)
        assert Index(7) in f and Index(8) not in f
        assert f.add_many([Index(-1), Index(9)]) == 2
        assert 2**64 - 1 in f and 9 in f
        assert key_hash(Index(-1)) == key_hash(2**64 - 1)
        with pytest.raises(OverflowError, match="fit in 64 bits"):
            f.add(Index(2**64))
        # An __index__ that refuses makes a TypeError, its reason the cause.
        with pytest.raises(TypeError, match="not Index") as refused:
            f.add(Index("seven"))
        assert isinstance(refused.value.__cause__, TypeError)

    def test_numpy_integers_are_keys(self):
        np = pytest.importorskip("numpy")
        f = BloomFilter(100)
        assert f.add_many(np.array([1, 2, 3], dtype=np.int64)) == 3
        assert f.contains_many(np.array([1, 2, 3, 4], dtype=np.uint32)) == [True] * 3 + [False]
        assert np.uint64(2**64 - 1) not in f
        f.add(-1)
        assert np.uint64(2**64 - 1) in f
        # Unlike Python's bool, numpy's is not an integer type.
        with pytest.raises(TypeError, match="not bool"):
            f.add(np.bool_(True))

    @pytest.mark.parametrize("key", [1.5, None, ("a",), ["a"], object(), {"a": 1}])
    def test_other_types_are_type_errors_naming_the_accepted_ones(self, key):
        f = BloomFilter(100)
        with pytest.raises(TypeError, match="str, bytes, bytearray, memoryview or int"):
            f.add(key)
        with pytest.raises(TypeError):
            key in f

    @pytest.mark.parametrize("key", [2**64, -(2**63) - 1, 10**30])
    def test_ints_past_64_bits_are_overflow_errors(self, key):
        with pytest.raises(OverflowError, match="fit in 64 bits"):
            BloomFilter(100).add(key)

    def test_a_str_that_is_not_valid_utf8_is_an_error_not_a_crash(self):
        with pytest.raises(UnicodeEncodeError):
            BloomFilter(100).add("\ud800")

    def test_long_keys_hash_the_same_in_bulk_and_one_by_one(self):
        # Keys past 256 bytes are hashed after the GIL is released.
        keys = ["x" * n for n in (255, 256, 257, 10_000)] + [b"y" * 300, bytearray(b"z" * 300)]
        one_by_one, bulk = BloomFilter(100), BloomFilter(100)
        for key in keys:
            one_by_one.add(key)
        assert bulk.add_many(keys) == len(keys)
        assert bulk == one_by_one
        assert bulk.contains_many(keys) == [True] * len(keys)


class TestFromKeys:
    """A filter built from its keys (``from_keys``) is the
    filter ``add_many`` builds, for both fixed-size classes and every layout."""

    @pytest.mark.parametrize("layout", LAYOUTS)
    @pytest.mark.parametrize("cls", [BloomFilter, atomic_bloom.CountingBloomFilter])
    def test_the_same_bits_as_add_many(self, cls, layout):
        keys = [f"key-{i}" for i in range(5_000)] + list(range(3_000)) + ["key-7"] * 3
        built = cls.from_keys(keys, 0.001, layout=layout, seed=4)
        added = cls(len(keys), 0.001, layout=layout, seed=4)
        added.add_many(keys)
        assert built == added
        assert all(key in built for key in keys)

    def test_a_sized_input_needs_no_count_and_an_iterator_does(self):
        f = BloomFilter.from_keys(range(1_000))
        assert f == BloomFilter.from_keys(iter(range(1_000)), expected_items=1_000)
        with pytest.raises(TypeError, match="needs expected_items"):
            BloomFilter.from_keys(k for k in range(10))

    @pytest.mark.parametrize("layout", LAYOUTS)
    def test_many_chunks_built_by_a_helper_thread_give_the_same_bits(self, layout):
        # Past one chunk (32768 keys) a helper thread inserts while the
        # caller takes the next chunk; long keys are hashed by the helper.
        keys = [f"https://example.com/{i}" for i in range(150_000)]
        keys[70_000] = "x" * 1_000
        built = BloomFilter.from_keys(keys, 0.01, layout=layout)
        one_by_one = BloomFilter(len(keys), 0.01, layout=layout)
        for key in keys:
            one_by_one.add(key)
        assert built == one_by_one

    def test_a_bad_key_raises_and_builds_nothing(self):
        with pytest.raises(TypeError):
            BloomFilter.from_keys(["a", None, "b"])
        keys = [str(i) for i in range(100_000)] + [1.5] + ["after"]
        with pytest.raises(TypeError, match="not float"):
            BloomFilter.from_keys(keys)
        with pytest.raises(ValueError, match="expected_items must be at least 1"):
            BloomFilter.from_keys(["a"], expected_items=0)

    def test_no_keys_make_an_empty_filter(self):
        f = BloomFilter.from_keys([])
        assert not f and "a" not in f
        assert f == BloomFilter.from_keys((), expected_items=1)

    @pytest.mark.parametrize("batch", ["abc", b"abc", bytearray(b"abc")])
    def test_a_single_str_or_bytes_is_not_a_batch(self, batch):
        f = BloomFilter(100)
        for bulk in (f.add_many, f.contains_many, f.update, BloomFilter.from_keys):
            with pytest.raises(TypeError, match="not a single"):
                bulk(batch)
        assert not f


class TestBulk:
    def test_add_many_counts_new_keys_like_add_would(self):
        f = BloomFilter(1000, layout="word")
        assert f.add_many(["a", "b", "a", 1, 1]) == 3
        assert f.add_many(["a", "c"]) == 1

    def test_add_many_takes_any_iterable(self):
        f = BloomFilter(10_000)
        f.add_many(str(i) for i in range(5000))
        f.add_many(range(5000))
        f.add_many({b"x", b"y"})
        f.add_many(iter([]))
        assert all(f.contains_many(str(i) for i in range(5000)))
        assert all(f.contains_many(range(5000)))

    def test_bulk_and_per_key_build_the_same_filter(self):
        keys = [f"k{i}" for i in range(20_000)] + list(range(20_000))
        one, many = BloomFilter(40_000), BloomFilter(40_000)
        for key in keys:
            one.add(key)
        many.add_many(keys)
        assert one == many

    def test_update_adds_every_iterable(self):
        f = BloomFilter(100)
        assert f.update(["a"], (b"b",), range(3)) is None
        assert f.contains_many(["a", "b", 0, 1, 2, "z"]) == [True] * 5 + [False]

    def test_contains_many_answers_in_order(self):
        f = BloomFilter(10_000, 0.0001)
        f.add_many(range(0, 10_000, 2))
        assert f.contains_many(range(10)) == [i % 2 == 0 for i in range(10)]

    def test_contains_many_answers_in_order_over_many_chunks(self):
        # Past one chunk a helper thread answers while the caller takes the
        # next: the answers still come in the keys' order.
        f = BloomFilter(200_000, 1e-6)
        present = [f"p{i}" for i in range(100_000)]
        f.add_many(present)
        keys = [key for i, p in enumerate(present) for key in (p, f"a{i}")]
        keys[150_001] = "y" * 1_000  # a long key, hashed by the helper
        assert f.contains_many(keys) == [k in f for k in keys]
        assert f.contains_many(keys)[:4] == [True, False, True, False]

    def test_contains_many_stops_at_a_bad_key_past_the_first_chunks(self):
        f = BloomFilter(1_000)
        with pytest.raises(TypeError, match="not NoneType"):
            f.contains_many([str(i) for i in range(100_000)] + [None])

    @pytest.mark.parametrize("how", ["staged", "spread"])
    def test_a_large_add_many_sets_the_bits_of_per_key_adds(self, how):
        # Past one chunk, a batch with a len() large against the filter is
        # built aside while keys are taken and merged ("staged"); others (a
        # generator) are inserted on every core at once ("spread"). Into a
        # filter holding keys already, some of them the batch's.
        keys = [f"s{i}" for i in range(300_000)] + list(range(100_000))
        before = [f"s{i}" for i in range(0, 600_000, 7)]
        batch, one_by_one = BloomFilter(len(keys), 0.01), BloomFilter(len(keys), 0.01)
        for f in (batch, one_by_one):
            for key in before:
                f.add(key)
        added = batch.add_many(keys if how == "staged" else (k for k in keys))
        new = sum(one_by_one.add(key) for key in keys)
        assert batch == one_by_one
        assert_counted_new(added, new, len(keys), one_by_one)
        assert new < len(keys) - 40_000  # the keys added before are not new

    def test_integer_buffers_give_the_keys_iterating_them_gives(self):
        # array.array and memoryviews are read as their values, a chunk at a
        # time, to the same keys as their items one by one, past one chunk
        # too. (A bytes or bytearray is one key, refused as a batch.)
        samples = [
            array.array("q", range(-5, 40_000)),
            array.array("b", [-128, -1, 0, 1, 127]),
            array.array("H", [0, 1, 65535]),
            array.array("Q", [0, 2**64 - 1]),
            memoryview(b"abc"),
            memoryview(array.array("i", [-(2**31), 2**31 - 1])),
        ]
        for keys in samples:
            one_by_one, bulk = BloomFilter(50_000), BloomFilter(50_000)
            new = sum(one_by_one.add(key) for key in list(keys))
            assert_counted_new(bulk.add_many(keys), new, len(keys), one_by_one)
            assert bulk == one_by_one
            assert bulk.contains_many(keys) == [True] * len(keys)

    def test_numpy_integer_arrays_are_read_as_their_values(self):
        np = pytest.importorskip("numpy")
        values = np.arange(-1000, 1000)
        for dtype in ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", ">i4", "<u8", ">i8"]:
            keys = values.astype(dtype)
            one_by_one, bulk = BloomFilter(5000), BloomFilter(5000)
            one_by_one.add_many(keys.tolist())
            bulk.add_many(keys)
            assert bulk == one_by_one, dtype
        strided = np.arange(100)[::3]
        expected = BloomFilter(1000)
        expected.add_many(strided.tolist())
        f = BloomFilter(1000)
        f.add_many(strided)
        assert f == expected
        # Not a buffer of integers: taken key by key, as before.
        with pytest.raises(TypeError):
            BloomFilter(100).add_many(np.zeros((2, 2), dtype=np.int64))
        with pytest.raises(TypeError):
            BloomFilter(100).add_many(np.array([1.5]))

    def test_a_subclass_of_an_array_gives_the_keys_its_iteration_gives(self):
        # A masked array's buffer still holds a value under each mask; its
        # iteration gives `numpy.ma.masked`, which is no key. So it is taken
        # key by key, as any subclass of a buffer type is: its iteration may
        # differ from its buffer.
        np = pytest.importorskip("numpy")
        f = BloomFilter(100, 1e-6)
        with pytest.raises(TypeError, match="not MaskedConstant"):
            f.add_many(np.ma.array([1, 2, 3], mask=[0, 1, 0]))
        assert not f  # a bad key: nothing added

        class Reversed(array.array):
            def __iter__(self):
                return reversed(list(super().__iter__()))

        g = BloomFilter(100, 1e-6)
        assert g.add_many(Reversed("q", [7, 8])) == 2
        assert g.contains_many(Reversed("q", [7, 9])) == [False, True]

    def test_a_pandas_column_gives_the_keys_its_iteration_gives(self):
        # Integer and object columns are read through their NumPy values
        # (integers as a buffer); the keys are those iterating the column
        # gives, whatever its dtype.
        pd = pytest.importorskip("pandas")
        np = pytest.importorskip("numpy")
        columns = [
            pd.Series(np.arange(-50_000, 50_000)),
            pd.Series((np.arange(300) % 256).astype("uint8")),
            pd.Series([f"k{i}" for i in range(40_000)]),
            pd.Series(["a", "b", "a"], dtype="category"),
            pd.Series([7, 8, 7], dtype="category"),
            pd.Series([1, 2], dtype="Int64"),
            pd.Series([1, None, 3], dtype="Int64"),
            pd.Series([7, None, 8], dtype="category"),  # 7, nan, 8 when iterated
            pd.Series([True, False]),  # Python bools when iterated: keys
            pd.Index([10, 20, 30]),
            pd.Series([b"x", "y", 3], dtype=object),
        ]
        for dtype in ["string[python]", "string[pyarrow]"]:
            try:
                columns.append(pd.Series(["p", "q", "p"], dtype=dtype))
                columns.append(pd.Series(["p", None], dtype=dtype))
            except ImportError:  # pragma: no cover
                pass
        for column in columns:
            one_by_one, bulk = BloomFilter(200_000), BloomFilter(200_000)
            new, failure = 0, None
            try:
                for key in column:
                    new += one_by_one.add(key)
            except TypeError as error:
                failure = str(error)
            if failure is None:
                assert_counted_new(bulk.add_many(column), new, len(column), one_by_one)
                assert bulk.contains_many(column) == [True] * len(column)
                assert bulk == one_by_one, column.dtype
            else:
                # A missing value is no key: the same error, and nothing
                # added.
                with pytest.raises(TypeError) as raised:
                    bulk.add_many(column)
                assert str(raised.value) == failure, column.dtype
                assert bulk == BloomFilter(200_000), column.dtype
        with pytest.raises(TypeError, match="float"):
            BloomFilter(100).add_many(pd.Series([1.5]))

    def test_an_arrow_array_gives_the_keys_of_its_values(self):
        # Iterating one gives pyarrow scalars, which are no keys: the keys
        # of an array of integers, strings or binaries are its values, as
        # to_pylist gives them.
        pa = pytest.importorskip("pyarrow")
        urls = [f"https://example.com/{i}" for i in range(40_000)]
        arrays = [
            pa.array(range(-50_000, 50_000)),
            pa.array(range(256), pa.uint8()),
            pa.array([2**64 - 1, 0], pa.uint64()),
            pa.array(urls),
            pa.array(urls[:100], pa.large_string()),
            pa.array([u.encode() for u in urls[:100]]),
            pa.array([b"ab", b"cd"], pa.binary(2)),
            pa.array(["a", "b", "a"]).dictionary_encode(),
            pa.chunked_array([urls[:20_000], urls[20_000:]]),
            pa.array(range(10))[3:7],  # a slice: its own values only
            pa.array(urls)[33_000:39_000],  # a slice past the first chunk
            pa.array(["", "", "x", ""]),  # empty values, one data byte
            pa.array(["", ""]),
            pa.array([], pa.string()),
            pa.chunked_array([urls[:10], []], pa.large_string()),
        ]
        for keys in arrays:
            one_by_one, bulk = BloomFilter(200_000, 1e-6), BloomFilter(200_000, 1e-6)
            new = sum(one_by_one.add(key) for key in keys.to_pylist())
            assert_counted_new(bulk.add_many(keys), new, len(keys), one_by_one)
            assert bulk == one_by_one, keys.type
            assert bulk.contains_many(keys) == [True] * len(keys)
        # A null is no key, as None is not: nothing is added.
        f = BloomFilter(100, 1e-6)
        for keys in (pa.array([1, None, 3]), pa.array(["x", None])):
            with pytest.raises(TypeError, match="not NoneType"):
                f.add_many(keys)
        assert not f
        # Arrays of other types are iterated, and their scalars are no keys.
        with pytest.raises(TypeError, match="not DoubleScalar"):
            BloomFilter(100).add_many(pa.array([1.5]))

    def test_a_malformed_arrow_array_is_an_error_not_a_crash(self):
        # Strings and binaries are read through their offsets and data
        # buffers, which from_buffers lets a caller assemble wrongly.
        pa = pytest.importorskip("pyarrow")
        np = pytest.importorskip("numpy")
        data = pa.py_buffer(b"abcdef")
        # Offsets that run backwards, or past the data and back (pyarrow
        # checks only the last one against the data).
        for offsets in ([0, 2, 1], [0, 7, 3]):
            array = pa.Array.from_buffers(
                pa.string(), 2, [None, pa.py_buffer(np.array(offsets, np.int32).tobytes()), data]
            )
            f = BloomFilter(100)
            with pytest.raises(ValueError, match="malformed Arrow array"):
                f.add_many(array)
            assert not f
            with pytest.raises(ValueError, match="malformed Arrow array"):
                f.contains_many(array)

    def test_a_bad_key_midway_raises_with_nothing_added(self):
        # Every key is checked before any is added, past the first chunk
        # of 32768 too, so the caller can mend the input and call again.
        f = BloomFilter(50_000, 1e-6)
        keys = [str(i) for i in range(40_000)] + [None] + ["after"]
        with pytest.raises(TypeError, match="not NoneType"):
            f.add_many(keys)
        assert not f
        with pytest.raises(TypeError):
            f.update(keys)
        assert not f
        with pytest.raises(TypeError):
            f.contains_many(keys)
        assert f.add_many(k for k in keys if k is not None) == 40_001

    def test_an_exception_from_the_iterable_propagates_with_nothing_added(self):
        def keys():
            yield "a"
            raise RuntimeError("source failed")

        f = BloomFilter(100)
        with pytest.raises(RuntimeError, match="source failed"):
            f.add_many(keys())
        assert "a" not in f

    def test_a_non_iterable_is_a_type_error(self):
        with pytest.raises(TypeError):
            BloomFilter(100).add_many(5)


class TestSetOperations:
    def test_union_holds_the_keys_of_both(self):
        a, b = BloomFilter(1000, seed=3), BloomFilter(1000, seed=3)
        a.add_many(range(100))
        b.add_many(range(100, 200))
        union = a | b
        assert all(union.contains_many(range(200)))
        assert not all(a.contains_many(range(200)))  # a is unchanged
        a |= b
        assert a == union

    def test_intersection_keeps_the_common_keys(self):
        a, b = BloomFilter(1000), BloomFilter(1000)
        a.add_many(range(150))
        b.add_many(range(100, 200))
        both = a & b
        assert all(both.contains_many(range(100, 150)))
        a &= b
        assert a == both

    @pytest.mark.parametrize(
        "other, reason",
        [
            (BloomFilter(2000), "different sizes"),
            (BloomFilter(1000, seed=1), "seed"),
            (BloomFilter(1000, layout="word"), "different layouts"),
        ],
    )
    def test_incompatible_filters_raise_a_clear_error(self, other, reason):
        f = BloomFilter(1000)
        for op in (lambda: f | other, lambda: f & other):
            with pytest.raises(IncompatibleFilterError, match=reason):
                op()
        with pytest.raises(ValueError):
            f |= other

    def test_other_types_are_not_implemented(self):
        with pytest.raises(TypeError):
            BloomFilter(100) | {"a"}


@pytest.mark.parametrize(
    "cls", [BloomFilter, atomic_bloom.CountingBloomFilter, atomic_bloom.GrowableBloomFilter]
)
def test_every_method_has_a_docstring(cls):
    # Python-level dunders too; the slot wrappers (`__or__`, ...) have
    # CPython's own.
    names = [n for n in vars(cls) if not n.startswith("_")]
    names += ["__copy__", "__deepcopy__", "__sizeof__", "__reduce__"]
    undocumented = [n for n in names if not (getattr(cls, n).__doc__ or "").strip()]
    assert not undocumented
    assert cls.__doc__ and cls.__doc__.strip()


class TestCopyClearEstimates:
    def test_copies_are_equal_and_independent(self):
        f = BloomFilter(1000)
        f.add("a")
        for c in (f.copy(), copy.copy(f), copy.deepcopy(f)):
            assert c == f and c is not f
            c.add("b")
            assert "b" not in f

    @pytest.mark.parametrize(
        "cls", [BloomFilter, atomic_bloom.CountingBloomFilter, atomic_bloom.GrowableBloomFilter]
    )
    def test_getsizeof_counts_the_bits(self, cls):
        small, large = cls(1_000), cls(1_000_000)
        assert sys.getsizeof(small) >= small.memory_bytes
        assert sys.getsizeof(large) - sys.getsizeof(small) == large.memory_bytes - small.memory_bytes

    @pytest.mark.parametrize(
        "cls", [BloomFilter, atomic_bloom.CountingBloomFilter, atomic_bloom.GrowableBloomFilter]
    )
    def test_a_filter_is_false_while_empty_as_a_set_is(self, cls):
        f = cls(1000)
        assert not f and not f.copy()
        f.add("a")
        assert f and f.copy()

    def test_clearing_or_removing_every_key_makes_a_filter_false_again(self):
        f = BloomFilter(1000)
        f.add_many(range(500))
        f.clear()
        assert not f
        c = atomic_bloom.CountingBloomFilter(1000)
        c.add_many(["a", "b", "a"])
        c.remove_many(["a", "b"])
        assert c
        c.remove("a")
        assert not c

    def test_clear_removes_every_key(self):
        f = BloomFilter(1000)
        f.add_many(range(500))
        f.clear()
        assert f == BloomFilter(1000)
        assert f.estimated_len() == 0

    def test_estimates_follow_the_keys(self):
        f = BloomFilter(100_000, 0.01)
        f.add_many(range(50_000))
        assert 48_000 < f.estimated_len() < 52_000
        assert 0 < f.estimated_false_positive_rate() < 0.01

    def test_a_full_filter_has_no_length_estimate(self):
        f = BloomFilter(1, 0.5, layout="standard")
        f.add_many(range(10_000))
        assert f.estimated_len() is None

    def test_filters_are_not_hashable(self):
        with pytest.raises(TypeError):
            hash(BloomFilter(10))


def test_the_false_positive_rate_is_about_the_target():
    f = BloomFilter(100_000, 0.01)
    f.add_many(range(100_000))
    false_positives = sum(f.contains_many(range(100_000, 300_000)))
    assert false_positives / 200_000 < 0.013
