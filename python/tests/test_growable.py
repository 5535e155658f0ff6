"""GrowableBloomFilter: growing as keys arrive, its limits, and its files."""

import copy
import io
import pickle
import subprocess
import threading

import pytest

import atomic_bloom
from atomic_bloom import (
    BloomFilter,
    CorruptFilterError,
    FilterFullError,
    GrowableBloomFilter,
)


class TestGrowth:
    def test_it_grows_past_its_initial_capacity_and_keeps_every_key(self):
        f = GrowableBloomFilter(100, 0.01)
        assert f.num_sub_filters == 1
        new = f.add_many(range(10_000))
        assert new > 9_900  # a key that is a false positive is not new
        assert all(f.contains_many(range(10_000)))
        capacities = [s["capacity"] for s in f.sub_filter_stats()]
        assert capacities == [100 * 2**i for i in range(len(capacities))]
        assert sum(capacities) >= 10_000 > sum(capacities[:-1])
        assert f.num_sub_filters == len(capacities)
        assert f.estimated_len() == new

    def test_the_measured_rate_stays_below_the_target(self):
        f = GrowableBloomFilter(100, 0.01, seed=5)
        f.add_many(range(100_000))
        assert f.false_positive_rate_bound() < 0.01
        probes = 200_000
        false_positives = sum(f.contains_many(range(10**9, 10**9 + probes)))
        assert false_positives / probes < 0.01

    def test_each_sub_filter_is_larger_and_tighter_than_the_last(self):
        f = GrowableBloomFilter(50, 0.02, growth_factor=4.0, tightening_ratio=0.8, layout="standard")
        f.add_many(range(4_000))  # past 50 + 200 + 800, within 3200 more
        stats = f.sub_filter_stats()
        assert [s["capacity"] for s in stats] == [50, 200, 800, 3200]
        for i, s in enumerate(stats):
            assert s["false_positive_rate"] == pytest.approx(0.02 * 0.2 * 0.8**i)
            assert s["capacity"] < s["fill_limit"]
            assert s["inserted"] <= s["capacity"]  # one thread: no overfill
        assert [s["num_bits"] for s in stats] == sorted(s["num_bits"] for s in stats)
        bits = sum(s["num_bits"] for s in stats)
        assert bits // 8 <= f.memory_bytes <= bits // 8 + 64 * len(stats)  # whole cache lines

    def test_present_keys_and_the_contains_forms_agree(self):
        f = GrowableBloomFilter(10)
        f.update(["a", b"b"], [3, bytearray(b"d")])
        assert f.add("a") is False
        assert f.add("e") is True
        assert "b" in f and memoryview(b"d") in f
        assert f.contains_many(["a", "b", 3, "d", "e", "never"]) == [True] * 5 + [False]

    def test_parameters_read_back(self):
        f = GrowableBloomFilter(
            500, 0.001, growth_factor=3.0, tightening_ratio=0.9, layout="word", seed=9,
            max_sub_filters=5, memory_limit=1 << 20,
        )
        assert (f.initial_capacity, f.false_positive_rate) == (500, 0.001)
        assert (f.growth_factor, f.tightening_ratio) == (3.0, 0.9)
        assert (f.layout, f.seed, f.max_sub_filters, f.memory_limit) == ("word", 9, 5, 1 << 20)
        assert GrowableBloomFilter().memory_limit is None
        assert GrowableBloomFilter().initial_capacity == 1000
        assert repr(f) == (
            "<atomic_bloom.GrowableBloomFilter initial_capacity=500 false_positive_rate=0.001 "
            "growth_factor=3.0 tightening_ratio=0.9 num_sub_filters=1 layout='word' seed=9>"
        )
        tight = GrowableBloomFilter(100, 1e-5)
        assert "false_positive_rate=1e-05 growth_factor=2.0 tightening_ratio=0.9" in repr(tight)


class TestBadParameters:
    @pytest.mark.parametrize(
        "kwargs, message",
        [
            ({"initial_capacity": 0}, "initial_capacity must be at least 1"),
            ({"initial_capacity": -5}, "initial_capacity must be at least 1"),
            ({"growth_factor": 1.0}, "growth factor"),
            ({"growth_factor": float("nan")}, "growth factor"),
            ({"tightening_ratio": 1.0}, "tightening ratio"),
            ({"tightening_ratio": 0.0}, "tightening ratio"),
            ({"false_positive_rate": 0.0}, "rate"),
            ({"false_positive_rate": 1e-300}, "hash"),
            ({"layout": "hexagonal"}, "hexagonal"),
            ({"seed": -1}, "seed must be between 0 and 2\\*\\*64 - 1"),
            ({"max_sub_filters": 0}, "sub-filters"),
            ({"max_sub_filters": 2**40}, "max_sub_filters must be between 1 and 64"),
            ({"memory_limit": -1}, "memory_limit must be between 0 and"),
            ({"memory_limit": 10}, "memory limit"),
        ],
    )
    def test_each_is_a_value_error_that_names_it(self, kwargs, message):
        with pytest.raises(ValueError, match=message):
            GrowableBloomFilter(**kwargs)


class TestLimits:
    def test_the_sub_filter_limit_refuses_new_keys_and_keeps_the_rest(self):
        f = GrowableBloomFilter(10, 0.01, max_sub_filters=2)
        added = 0
        with pytest.raises(FilterFullError, match="2 sub-filters"):
            for key in range(1000):
                f.add(key)
                added += 1
        assert 30 <= added < 1000  # room for 10 + 20 new keys, and false positives
        assert all(f.contains_many(range(added)))
        assert f.num_sub_filters == 2
        assert f.add(0) is False  # a present key needs no room

    def test_a_bad_key_in_add_many_adds_nothing(self):
        f = GrowableBloomFilter(10, 0.01)
        with pytest.raises(TypeError, match="not NoneType"):
            f.add_many([str(i) for i in range(40_000)] + [None])
        assert not f
        assert f.num_sub_filters == 1

    def test_add_many_stops_at_the_key_that_did_not_fit(self):
        one_by_one = GrowableBloomFilter(10, 0.01, max_sub_filters=2)
        with pytest.raises(FilterFullError):
            for key in range(1000):
                one_by_one.add(key)
        bulk = GrowableBloomFilter(10, 0.01, max_sub_filters=2)
        with pytest.raises(FilterFullError):
            bulk.add_many(range(1000))
        assert bulk == one_by_one  # the keys before it, and nothing after

    def test_add_many_takes_every_key_before_adding_any(self):
        # Keys are checked first (a bad key adds nothing), so the whole
        # iterable is taken even when the filter fills early; the keys that
        # fit are in.
        taken = 0

        def keys():
            nonlocal taken
            for i in range(100_000):
                taken += 1
                yield i

        f = GrowableBloomFilter(10, 0.01, max_sub_filters=1)
        with pytest.raises(FilterFullError):
            f.add_many(keys())
        assert taken == 100_000
        assert all(f.contains_many(range(10)))

    def test_a_memory_limit_given_on_load_bounds_growth(self):
        # A file records its own limit (here none); the reader's replaces it.
        f = GrowableBloomFilter(1000)
        f.add_many(range(1000))
        held = f.memory_bytes
        for loaded in (
            GrowableBloomFilter.from_bytes(f.to_bytes(), memory_limit=held),
            GrowableBloomFilter.load(io.BytesIO(f.to_bytes()), memory_limit=held),
        ):
            assert loaded.memory_limit == held
            with pytest.raises(FilterFullError, match="memory limit"):
                loaded.add_many(range(1000, 10_000))
            assert loaded.memory_bytes == held
        unbounded = GrowableBloomFilter.from_bytes(f.to_bytes())
        assert unbounded.memory_limit is None
        unbounded.add_many(range(1000, 10_000))
        assert unbounded.memory_bytes > held
        with pytest.raises(ValueError):
            GrowableBloomFilter.from_bytes(f.to_bytes(), memory_limit=-1)

    def test_the_memory_limit_refuses_growth_past_it(self):
        first = GrowableBloomFilter(1000).memory_bytes
        f = GrowableBloomFilter(1000, memory_limit=first)
        with pytest.raises(FilterFullError, match="memory limit"):
            f.add_many(range(10_000))
        assert f.memory_bytes == first
        assert all(f.contains_many(range(1000)))


class TestFiles:
    def sample(self):
        """The filter of `tests/golden/v2-growable-blocked.abf` (see tests/all/growable.rs)."""
        f = GrowableBloomFilter(20, 0.01, tightening_ratio=0.5, seed=11)
        f.add_many(f"growable-{i}" for i in range(200))
        return f

    def test_python_builds_the_rust_golden_file_byte_for_byte(self, golden):
        path = golden / "v2-growable-blocked.abf"
        assert self.sample().to_bytes() == path.read_bytes()
        for loaded in (GrowableBloomFilter.load(path), atomic_bloom.load(path)):
            assert isinstance(loaded, GrowableBloomFilter)
            assert loaded.num_sub_filters == 4
            assert all(loaded.contains_many(f"growable-{i}" for i in range(200)))

    def test_save_load_pickle_and_copy_keep_everything(self, tmp_path):
        f = self.sample()
        f.save(tmp_path / "g.abf")
        for back in (
            GrowableBloomFilter.load(tmp_path / "g.abf"),
            GrowableBloomFilter.from_bytes(memoryview(f.to_bytes())),
            pickle.loads(pickle.dumps(f)),
            copy.copy(f),
            copy.deepcopy(f),
        ):
            assert back == f
            assert back.sub_filter_stats() == f.sub_filter_stats()
        other = f.copy()
        other.add("one more")
        assert other != f

    def test_a_loaded_filter_goes_on_growing(self):
        f = GrowableBloomFilter.from_bytes(self.sample().to_bytes())
        f.add_many(f"more-{i}" for i in range(1000))
        assert f.num_sub_filters > 4
        assert all(f.contains_many(f"growable-{i}" for i in range(200)))

    def test_reading_another_kind_names_the_class_to_use(self):
        with pytest.raises(CorruptFilterError, match="read it with BloomFilter"):
            GrowableBloomFilter.from_bytes(BloomFilter(100).to_bytes())
        with pytest.raises(CorruptFilterError, match="read it with GrowableBloomFilter"):
            BloomFilter.from_bytes(GrowableBloomFilter(100).to_bytes())

    def test_files_cross_with_the_cli_both_ways(self, cli, tmp_path):
        keys = [f"url-{i}" for i in range(5000)]
        (tmp_path / "keys.txt").write_text("\n".join(keys) + "\n")
        built = tmp_path / "cli.abf"
        subprocess.run(
            [cli, "build", "--growable", "--initial-capacity", "100", "--seed", "3",
             "-o", str(built), str(tmp_path / "keys.txt")],
            check=True,
            capture_output=True,
        )
        theirs = atomic_bloom.load(built)
        assert isinstance(theirs, GrowableBloomFilter)
        assert all(theirs.contains_many(keys))
        # The CLI inserts on every core, so its sub-filters' counts and bits
        # may differ from a sequential build's; their number and sizes do not.
        mine = GrowableBloomFilter(100, seed=3)
        mine.add_many(keys)
        sizes = lambda f: [(s["capacity"], s["num_bits"]) for s in f.sub_filter_stats()]
        assert sizes(theirs) == sizes(mine)
        mine.save(tmp_path / "py.abf")
        run = subprocess.run(
            [cli, "query", "-q", str(tmp_path / "py.abf"), str(tmp_path / "keys.txt")]
        )
        assert run.returncode == 0, "the CLI reported a key Python added as absent"


def test_threads_growing_one_filter_lose_no_key():
    threads, per_thread = 8, 20_000
    f = GrowableBloomFilter(100, 0.01)
    parts = [range(t * per_thread, (t + 1) * per_thread) for t in range(threads)]
    workers = [threading.Thread(target=f.add_many, args=(part,)) for part in parts]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert all(f.contains_many(range(threads * per_thread)))
    for s in f.sub_filter_stats():
        assert s["inserted"] < s["fill_limit"] + threads
    assert f.false_positive_rate_bound() < 0.01
