"""WindowedBloomFilter: the keys of a recent window, by keys or by time."""

import datetime
import io
import pickle
import subprocess
import threading
import time

import pytest

import atomic_bloom
from atomic_bloom import WindowedBloomFilter


def test_a_window_of_keys_keeps_the_last_n_and_forgets_older_ones():
    f = WindowedBloomFilter(1_000, 0.001)
    f.add_many(range(1_000))
    assert all(f.contains_many(range(1_000)))
    # 4 generations of 334 keys: a key stays for 1000 to 1336 newer ones.
    f.add_many(range(10_000, 11_400))
    assert not any(f.contains_many(range(0, 1_000, 10)))
    assert all(f.contains_many(range(10_400, 11_400)))
    assert f.rotations >= 4
    assert f.window == 1_000 and f.generations == 4 and f.keys_per_generation == 334


def test_add_is_false_for_a_key_an_older_generation_holds():
    # The last 9 keys in four generations of 3: "a" comes back within 9 keys
    # each time, from an older generation after the first rotation.
    w = WindowedBloomFilter(9)
    new = [k for k in "a b c d a e f a g h a".split() if w.add(k)]
    assert new == ["a", "b", "c", "d", "e", "f", "g", "h"]
    assert w.rotations >= 2
    assert w.add_many("a b x".split()) == 1


def test_a_window_of_time_forgets_after_it():
    # Two generations of 0.5 s: a key stays 0.5 s to 1 s.
    f = WindowedBloomFilter(1_000, window=datetime.timedelta(seconds=0.5), generations=2)
    assert f.window == 0.5
    f.add("k")
    assert "k" in f
    time.sleep(1.3)
    assert "k" not in f
    assert not f  # every live generation is empty again
    g = WindowedBloomFilter(1_000, window=2.5)
    g.add("k")
    assert "k" in g and g.window == 2.5


def test_rotate_retires_the_oldest_generation():
    f = WindowedBloomFilter(100, generations=2)
    f.add("a")
    assert f.rotate() and "a" in f
    assert f.rotate() and "a" not in f
    assert f.rotations == 2


def test_bad_parameters_are_value_or_type_errors():
    with pytest.raises(ValueError, match="expected_items"):
        WindowedBloomFilter(0)
    with pytest.raises(ValueError, match="generations"):
        WindowedBloomFilter(100, generations=1)
    with pytest.raises(ValueError, match="generations"):
        WindowedBloomFilter(100, generations=65)
    with pytest.raises(ValueError, match="window must be a positive"):
        WindowedBloomFilter(100, window=0)
    with pytest.raises(ValueError, match="window must be a positive"):
        WindowedBloomFilter(100, window=float("nan"))
    with pytest.raises(TypeError, match="window must be seconds"):
        WindowedBloomFilter(100, window="1h")
    with pytest.raises(ValueError, match="when_full"):
        WindowedBloomFilter(100, when_full="grow")
    with pytest.raises(ValueError, match="false-positive rate"):
        WindowedBloomFilter(100, 1.5)
    with pytest.raises(TypeError, match="a key must be"):
        WindowedBloomFilter(100).add(None)
    f = WindowedBloomFilter(100)
    with pytest.raises(TypeError):
        f.add_many(["a", None])
    assert not f  # nothing added


def test_saved_pickled_and_copied_filters_answer_alike():
    f = WindowedBloomFilter(2_000, 0.01, seed=3, layout="sectorized", when_full="keep-filling")
    f.add_many(f"key-{i}" for i in range(3_000))
    for g in (
        WindowedBloomFilter.from_bytes(f.to_bytes()),
        pickle.loads(pickle.dumps(f)),
        f.copy(),
        atomic_bloom.load(io.BytesIO(f.to_bytes())),
    ):
        assert isinstance(g, WindowedBloomFilter)
        assert g == f
        assert g.seed == 3 and g.layout == "sectorized" and g.when_full == "keep-filling"
        assert g.contains_many(f"key-{i}" for i in range(3_000)) == f.contains_many(
            f"key-{i}" for i in range(3_000)
        )
    copy = f.copy()
    f.add("only-in-f")
    assert "only-in-f" not in copy and copy != f
    assert "window='last 2000 keys'" in repr(f) and "generations=4" in repr(f)


def test_the_golden_file_reads_back_and_writes_back_byte_for_byte(golden):
    data = (golden / "v2-windowed-blocked.abf").read_bytes()
    f = WindowedBloomFilter.from_bytes(data)
    assert f.seed == 11 and f.rotations == 4
    assert all(f.contains_many(f"window-{i}" for i in range(500, 1_500)))
    assert f.to_bytes() == data
    # Rebuilt from Python from the same keys, it is the same file.
    g = WindowedBloomFilter(1_000, 0.01, seed=11)
    for i in range(1_500):
        g.add(f"window-{i}")
    assert g.to_bytes() == data


def test_the_cli_dedup_state_and_python_share_the_file(cli, tmp_path):
    state = tmp_path / "seen.abf"
    run = subprocess.run(
        [cli, "dedup", "--window-keys", "1000", "--state", str(state)],
        input=b"a\nb\na\n",
        capture_output=True,
        check=True,
    )
    assert run.stdout == b"a\nb\n"
    f = WindowedBloomFilter.load(state)
    assert "a" in f and "b" in f and "c" not in f
    f.add("c")
    f.save(state)
    run = subprocess.run(
        [cli, "dedup", "--state", str(state)], input=b"c\nd\n", capture_output=True, check=True
    )
    assert run.stdout == b"d\n"


def test_eight_threads_add_query_and_rotate_without_losing_a_key_in_the_window():
    # Writers add their own keys; readers check that every key a writer
    # finished adding before the reader looked is found while its
    # generation is live; a rotator rotates throughout. With three
    # generations a key added at rotation r (in generation r or later)
    # stays until the rotation after r + 2.
    f = WindowedBloomFilter(1_000_000, 0.01, generations=3)
    done = []  # (rotations before the batch was added, batch)
    misses = []
    stop = threading.Event()

    def write(offset):
        for i, start in enumerate(range(offset, 200_000, 4 * 5_000)):
            # Pace the writers by the rotator, so rotations interleave with
            # the adds however the threads are scheduled: batch i waits for
            # rotation i // 2, and the ten batches span at least four.
            deadline = time.monotonic() + 60
            while f.rotations < i // 2 and time.monotonic() < deadline:
                time.sleep(0.001)
            batch = list(range(start, start + 5_000))
            rotations = f.rotations
            f.add_many(batch)
            done.append((rotations, batch))

    def read():
        while not stop.is_set():
            for rotations, batch in list(done):
                found = f.contains_many(batch[:200])
                # Epochs only grow: the query saw none past this one.
                if f.rotations <= rotations + 2:
                    misses.append(found.count(False))

    def rotate():
        while not stop.is_set():
            f.rotate()
            time.sleep(0.002)

    writers = [threading.Thread(target=write, args=(i * 5_000,)) for i in range(4)]
    others = [threading.Thread(target=read) for _ in range(3)] + [threading.Thread(target=rotate)]
    for t in writers + others:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in others:
        t.join()
    assert f.rotations >= 4
    assert len(misses) > 0 and sum(misses) == 0
