"""add_many (and add) into one shared filter: two worker processes against one.

    python python/bench/shared_pool.py           # 2M URL keys, p = 1%, 7 rounds (Linux)

Python threads share one filter but not the interpreter: one thread already
keeps the cores busy taking keys under the GIL. Processes are how Python
uses more cores, and a shared filter (``BloomFilter.create_shared``) is one
filter they all add to. Each worker process opens the file
(``open_shared``) and makes its keys before the clock starts; then, told to
go, adds them with one ``add_many``. A round times one worker adding every
key and two workers adding half each, in alternating order, into the file
emptied before each; the figure is the median of the rounds' ratios (two
workers' keys per second over one's), with their range. The same again with
a loop of ``add`` calls, one key each. Each row also says how many cores
one worker kept busy (its CPU time over the wall time): ``add_many``
inserts on a helper thread while the caller's thread takes keys, so one
process may already use two cores, which leaves a second process little.
"""

import argparse
import multiprocessing as mp
import os
import platform
import statistics
import tempfile
import time

import atomic_bloom


def add_many(f, keys):
    f.add_many(keys)


def add_each(f, keys):
    add = f.add
    for key in keys:
        add(key)


def worker(path, start, stop, how, ready, go, done):
    f = atomic_bloom.BloomFilter.open_shared(path)
    keys = [f"https://example.com/page/{i}" for i in range(start, stop)]
    ready.put(os.getpid())
    go.wait()
    cpu = time.process_time()
    how(f, keys)
    done.put((time.monotonic(), time.process_time() - cpu))
    f.close()


def timed(ctx, path, n, workers, how):
    """Seconds from go until the last of `workers` processes has added its
    share of n keys, and the CPU seconds they took."""
    ready, done, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    share = n // workers
    procs = [
        ctx.Process(target=worker, args=(path, i * share, (i + 1) * share, how, ready, go, done))
        for i in range(workers)
    ]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get()
    start = time.monotonic()
    go.set()
    reports = [done.get() for _ in procs]
    for p in procs:
        p.join()
    return max(end for end, _ in reports) - start, sum(cpu for _, cpu in reports)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=2_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    n = args.keys
    ctx = mp.get_context("fork")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "seen.bloom")
        parent = atomic_bloom.BloomFilter.create_shared(path, n, 0.01)
        print(
            f"# {n:,} URL keys into one shared filter, p = 0.01, {args.rounds} rounds; "
            f"CPython {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs"
        )
        print("| call | 1 worker, M keys/s | cores it used | 2 workers, M keys/s | 2 / 1 (range) |")
        print("|---|---|---|---|---|")
        for name, how in [("add_many", add_many), ("add, a call a key", add_each)]:
            ratios, one_rates, two_rates, cores = [], [], [], []
            for r in range(args.rounds):
                rates = {}
                for workers in (1, 2) if r % 2 == 0 else (2, 1):
                    parent.clear()
                    wall, cpu = timed(ctx, path, n, workers, how)
                    rates[workers] = n / wall / 1e6
                    if workers == 1:
                        cores.append(cpu / wall)
                one_rates.append(rates[1])
                two_rates.append(rates[2])
                ratios.append(rates[2] / rates[1])
            assert all(f"https://example.com/page/{i}" in parent for i in range(0, n, 997))
            print(
                f"| {name} | {statistics.median(one_rates):.2f} | {statistics.median(cores):.2f} "
                f"| {statistics.median(two_rates):.2f} | {statistics.median(ratios):.2f} "
                f"({min(ratios):.2f}-{max(ratios):.2f}) |"
            )
        parent.close()


if __name__ == "__main__":
    main()
