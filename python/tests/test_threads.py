"""One filter shared by many Python threads: nothing lost, nothing extra."""

import _thread
import os
import signal
import sys
import threading
import time

import pytest

import atomic_bloom
from atomic_bloom import BloomFilter, CountingBloomFilter

THREADS = 8


def run_threads(target, args_per_thread):
    threads = [threading.Thread(target=target, args=args) for args in args_per_thread]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def overlapping_slices(keys, threads=THREADS):
    """Each thread gets half of the keys, starting at its own offset: every
    key goes to several threads at once."""
    n = len(keys)
    return [
        [keys[(start + j) % n] for j in range(n // 2)]
        for start in range(0, n, n // threads)
    ]


@pytest.mark.parametrize("layout", ["standard", "blocked", "word", "sectorized", "split-block"])
def test_eight_threads_adding_overlapping_keys_equal_a_sequential_build(layout):
    keys = [f"k{i}" for i in range(100_000)] + list(range(100_000))
    shared = BloomFilter(200_000, 0.01, layout=layout)
    run_threads(lambda part: shared.add_many(part), [(p,) for p in overlapping_slices(keys)])
    sequential = BloomFilter(200_000, 0.01, layout=layout)
    for key in keys:
        sequential.add(key)
    assert shared == sequential  # bit for bit: no key lost, nothing extra
    assert all(shared.contains_many(keys))


def test_per_key_adds_from_eight_threads_equal_a_sequential_build():
    keys = [f"u{i}".encode() for i in range(40_000)]
    shared = BloomFilter(40_000)
    run_threads(lambda part: [shared.add(k) for k in part], [(p,) for p in overlapping_slices(keys)])
    sequential = BloomFilter(40_000)
    sequential.add_many(keys)
    assert shared == sequential


def test_readers_never_miss_a_key_added_before_they_started():
    f = BloomFilter(100_000)
    before = list(range(50_000))
    f.add_many(before)
    misses = []

    def read():
        misses.append(sum(not hit for hit in f.contains_many(before)))

    def write(offset):
        f.add_many(range(100_000 + offset, 150_000, 4))

    threads = [threading.Thread(target=read) for _ in range(4)]
    threads += [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert misses == [0, 0, 0, 0]


def test_counting_adds_and_removes_from_eight_threads_balance():
    keys = [f"c{i}" for i in range(20_000)]
    f = CountingBloomFilter(20_000)
    f.add_many(keys)  # one occurrence each, removed again below
    parts = [keys[i::THREADS] for i in range(THREADS)]

    def churn(part):
        f.add_many(part)
        f.remove_many(part, checked=False)

    run_threads(churn, [(p,) for p in parts])
    expected = CountingBloomFilter(20_000)
    expected.add_many(keys)
    assert f == expected
    assert f.remove_many(keys) == len(keys)
    assert f == CountingBloomFilter(20_000)


def test_free_threaded_python_keeps_the_gil_off_after_importing_the_module():
    # Importing a module that does not declare itself safe re-enables the
    # GIL on a free-threaded CPython; only such a build can check it.
    import sysconfig

    if not sysconfig.get_config_var("Py_GIL_DISABLED"):
        pytest.skip("not a free-threaded CPython")
    assert atomic_bloom is not None and not sys._is_gil_enabled()


def interrupt_once_keys_arrive(f):
    """A thread that sends the main thread a KeyboardInterrupt (as Ctrl-C
    would) once `f` holds a key: while a bulk call on the main thread is
    under way."""

    def wait_then_interrupt():
        while not f.estimated_len():
            time.sleep(0.001)
        _thread.interrupt_main()

    thread = threading.Thread(target=wait_then_interrupt)
    thread.start()
    return thread


def test_ctrl_c_stops_a_long_bulk_call_between_chunks():
    # Python's own SIGINT handler, whatever this process inherited: one
    # started in the background by a shell ignores SIGINT, and then
    # `interrupt_main` does nothing.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        n = 20_000_000
        # Iterated in C, so no bytecode runs (and no handler) between keys.
        keys = iter(range(n))
        f = BloomFilter(n, 0.01)
        interrupter = interrupt_once_keys_arrive(f)
        with pytest.raises(KeyboardInterrupt):
            f.add_many(keys)
        interrupter.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    # Stopped early, keeping what it had added: without the check the call
    # would add every key and only then raise.
    assert 0 < f.estimated_len() < n // 4


@pytest.mark.parametrize(
    "keys",
    [
        pytest.param(lambda n: range(n), id="range"),
        # Read as a buffer of random 64-bit values, a chunk at a time.
        pytest.param(lambda n: memoryview(os.urandom(8 * n)).cast("Q"), id="buffer"),
    ],
)
def test_ctrl_c_while_keys_are_taken_adds_nothing(keys):
    # Every key is taken before any is inserted: a signal that arrives
    # while they are taken leaves the filter unchanged. A real signal, as
    # Ctrl-C is (a timer's SIGALRM whose handler raises KeyboardInterrupt):
    # `interrupt_main` from a thread would wait for the GIL, which the call
    # holds while it takes keys from a range.
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        n = 20_000_000
        keys = keys(n)
        f = BloomFilter(n, 0.01)
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        with pytest.raises(KeyboardInterrupt):
            f.add_many(keys)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not f
