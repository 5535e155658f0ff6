"""CountingBloomFilter: removing keys, counts, and its plain projection."""

import pytest

from atomic_bloom import BloomFilter, CountingBloomFilter, IncompatibleFilterError


def test_a_removed_key_is_gone_and_the_others_stay():
    f = CountingBloomFilter(10_000, 0.001)
    f.add_many(range(1000))
    assert f.remove(5) is True
    assert 5 not in f
    assert all(f.contains_many(k for k in range(1000) if k != 5))


def test_counts_follow_adds_and_removes():
    f = CountingBloomFilter(1000)
    for _ in range(3):
        f.add("x")
    assert f.count("x") == 3
    f.remove("x")
    assert f.count("x") == 2
    assert f.count("never") == 0


def test_checked_remove_leaves_absent_keys_alone():
    f = CountingBloomFilter(1000)
    f.add("kept")
    before = f.to_bytes()
    assert f.remove("never added") is False
    assert f.to_bytes() == before
    assert f.remove_many(["never", "kept", "kept"]) == 1
    assert "kept" not in f


def test_unchecked_remove_decrements_regardless():
    f = CountingBloomFilter(1000, layout="word")
    f.add("a")
    assert f.remove("a", checked=False) is True
    assert f.remove("a", checked=False) is False  # counters already at zero


def test_add_many_counts_keys_that_were_absent():
    f = CountingBloomFilter(1000)
    assert f.add_many(["a", "b", "a"]) == 2
    assert f.count("a") == 2
    f.update(["c"], [b"d"])
    assert f.contains_many(["c", "d", "e"]) == [True, True, False]


def test_to_bloom_answers_the_same_in_less_memory():
    f = CountingBloomFilter(5000, seed=3)
    f.add_many(range(5000))
    f.remove_many(range(2500))
    plain = f.to_bloom()
    assert isinstance(plain, BloomFilter)
    probe = list(range(10_000))
    assert plain.contains_many(probe) == f.contains_many(probe)
    assert plain.memory_bytes * 4 == f.memory_bytes


def test_copy_clear_and_estimates():
    f = CountingBloomFilter(10_000)
    f.add_many(range(5000))
    c = f.copy()
    assert c == f
    c.clear()
    assert c == CountingBloomFilter(10_000) and f != c
    assert 4700 < f.estimated_len() < 5300
    assert 0 < f.estimated_false_positive_rate() < 0.01
    assert f.saturated_counters() == 0
    assert f.num_counters == f.memory_bytes * 2


def test_filters_add_up_as_counters_do():
    # The filters of two parts of the keys add up to the filter of all of
    # them, counter for counter; removing one part leaves the other's.
    left, right = [f"k{i}" for i in range(3000)], [f"k{i}" for i in range(2000, 5000)]
    a, b, whole = CountingBloomFilter(5000), CountingBloomFilter(5000), CountingBloomFilter(5000)
    a.add_many(left)
    b.add_many(right)
    whole.add_many(left + right)
    total = a + b
    assert total == whole and a != whole
    assert total.count("k2500") == 2
    a += b
    assert a == whole
    a.remove_many(right)
    only_left = CountingBloomFilter(5000)
    only_left.add_many(left)
    assert a == only_left
    with pytest.raises(IncompatibleFilterError):
        a + CountingBloomFilter(5000, seed=1)
    with pytest.raises(TypeError):
        a + BloomFilter(5000)


def test_bad_parameters_and_keys_raise():
    with pytest.raises(ValueError, match="expected_items"):
        CountingBloomFilter(0)
    with pytest.raises(TypeError, match="str, bytes"):
        CountingBloomFilter(10).remove(2.5)
    with pytest.raises(ValueError, match="unknown layout"):
        CountingBloomFilter(10, layout="x")


def test_repr_describes_the_filter_in_angle_brackets():
    f = CountingBloomFilter(100, layout="word", seed=3)
    assert repr(f) == (
        f"<atomic_bloom.CountingBloomFilter num_counters={f.num_counters} "
        f"num_hashes={f.num_hashes} layout='word' seed=3>"
    )


class TestBadKeys:
    # A counting filter's bulk calls check every key before changing any
    # counter: a retry after mending the input must not count a key twice
    # or remove one twice (which would take counts from other keys).
    def test_a_bad_key_in_add_many_adds_nothing(self):
        f = CountingBloomFilter(50_000, 1e-4)
        keys = [str(i) for i in range(40_000)] + [None]
        with pytest.raises(TypeError, match="not NoneType"):
            f.add_many(keys)
        assert not f
        f.add_many(keys[:-1])
        assert f.count("7") == 1

    def test_a_bad_key_in_remove_many_removes_nothing(self):
        f = CountingBloomFilter(50_000, 1e-4)
        keys = [str(i) for i in range(40_000)]
        f.add_many(keys)
        before = f.copy()
        for checked in (True, False):
            with pytest.raises(TypeError, match="not NoneType"):
                f.remove_many(keys + [None], checked=checked)
            assert f == before
        assert f.remove_many(keys) == 40_000
        assert not f
