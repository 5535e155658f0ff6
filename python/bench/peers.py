"""atomic_bloom against rbloom, abloom and pybloom-live, side by side in one run.

    pip install ./python rbloom abloom pybloom-live
    python python/bench/peers.py            # 1M str keys, p = 1%, 5 rounds
    python python/bench/peers.py --layout sectorized

Every filter gets the same keys at the same rate: URLs like
"https://example.com/page/123456", created afresh for each round (a str
caches its Python hash, which rbloom uses, so reusing keys would favour it).
Rounds alternate between the libraries, so that noise from other work on
the machine falls on all of them; each figure is the median of the rounds,
in million keys per second, and the last column is atomic_bloom's median
divided by the peer's.

The per-key rows time a Python loop of `f.add(key)` and of `key in f` for
every library: the call's own overhead, which the bulk methods avoid.

"2 threads" splits the keys in two halves added (or queried) by two Python
threads at once, into one shared filter: rbloom and pybloom-live are not
safe to share that way, so they have only 1-thread rows. The halves are
contiguous, as two workers' own batches would be: dealing the keys out
alternately instead gives each thread every other `str` object, and
objects made one after another share cache lines, so each thread would
read nearly all of the keys' memory (see BENCHMARKS.md,
"Python against rbloom and pybloom-live").
"""

import argparse
import platform
import statistics
import threading
import time

import atomic_bloom

try:
    import rbloom
except ImportError:  # pragma: no cover
    rbloom = None
try:
    import abloom
except ImportError:  # pragma: no cover
    abloom = None
try:
    import pybloom_live
except ImportError:  # pragma: no cover
    pybloom_live = None


def fresh_keys(n, offset=0):
    return [f"https://example.com/page/{offset + i}" for i in range(n)]


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def contiguous_parts(keys, threads):
    """`keys` cut into `threads` contiguous parts."""
    size = -(-len(keys) // threads)
    return [keys[i:i + size] for i in range(0, len(keys), size)]


def in_threads(fn, parts):
    threads = [threading.Thread(target=fn, args=(p,)) for p in parts]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start


def ours_insert(n, rate, layout, threads):
    keys = fresh_keys(n)
    f = atomic_bloom.BloomFilter(n, rate, layout=layout)
    if threads == 1:
        return timed(lambda: f.add_many(keys))
    return in_threads(f.add_many, contiguous_parts(keys, threads))


def ours_from_keys(n, rate, layout):
    keys = fresh_keys(n)
    return timed(lambda: atomic_bloom.BloomFilter.from_keys(keys, rate, layout=layout))


def ours_query(n, rate, layout, threads):
    f = atomic_bloom.BloomFilter(n, rate, layout=layout)
    f.add_many(fresh_keys(n))
    keys = fresh_keys(n)
    if threads == 1:
        return timed(lambda: f.contains_many(keys))
    return in_threads(f.contains_many, contiguous_parts(keys, threads))


def peer_insert(make, n, rate):
    """A peer's bulk `update(keys)` (rbloom's and abloom's) into
    `make(n, rate)`, empty."""
    keys = fresh_keys(n)
    f = make(n, rate)
    return timed(lambda: f.update(keys))


def peer_query(make, n, rate):
    """A peer's `in` loop over absent keys, of `make(n, rate)` holding n."""
    f = make(n, rate)
    f.update(fresh_keys(n))
    keys = fresh_keys(n)
    return timed(lambda: [k in f for k in keys])


def add_loop(f, n):
    """A loop of `f.add(key)` over n fresh keys: the per-key call a
    Python user times first."""
    keys = fresh_keys(n)
    add = f.add
    return timed(lambda: [add(k) for k in keys])


def in_loop(f, n):
    """A loop of `key in f` over n absent keys, `f` holding n."""
    for k in fresh_keys(n, offset=10 * n):
        f.add(k)
    keys = fresh_keys(n)
    return timed(lambda: [k in f for k in keys])


def pybloom_insert(n, rate):
    keys = fresh_keys(n)
    f = pybloom_live.BloomFilter(capacity=n, error_rate=rate)
    return timed(lambda: [f.add(k) for k in keys])


def pybloom_query(n, rate):
    f = pybloom_live.BloomFilter(capacity=n, error_rate=rate)
    for k in fresh_keys(n):
        f.add(k)
    keys = fresh_keys(n)
    return timed(lambda: [k in f for k in keys])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--rate", type=float, default=0.01)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--layout", default="blocked",
                        help="atomic_bloom's layout (the peers have one each)")
    parser.add_argument("--pybloom-keys", type=int, default=200_000,
                        help="pybloom-live is pure Python: fewer keys keep the run short")
    args = parser.parse_args()
    n, rate, layout = args.keys, args.rate, args.layout
    try:  # the library's own check, and its message, before any round runs
        atomic_bloom.BloomFilter(n, rate, layout=layout)
    except ValueError as e:
        parser.error(str(e))

    rows = {
        "atomic_bloom add_many, 1 thread": lambda: n / ours_insert(n, rate, layout, 1),
        "atomic_bloom add_many, 2 threads": lambda: n / ours_insert(n, rate, layout, 2),
        "atomic_bloom from_keys, 1 thread": lambda: n / ours_from_keys(n, rate, layout),
        "atomic_bloom contains_many, 1 thread": lambda: n / ours_query(n, rate, layout, 1),
        "atomic_bloom contains_many, 2 threads": lambda: n / ours_query(n, rate, layout, 2),
    }
    per_key = {"atomic_bloom": lambda: atomic_bloom.BloomFilter(n, rate, layout=layout)}
    if rbloom:
        per_key["rbloom"] = lambda: rbloom.Bloom(n, rate)
    if abloom:
        per_key["abloom"] = lambda: abloom.BloomFilter(n, rate)
    for name, make in per_key.items():
        rows[f"{name} add loop"] = lambda make=make: n / add_loop(make(), n)
        rows[f"{name} in loop"] = lambda make=make: n / in_loop(make(), n)
    if rbloom:
        rows["rbloom update, 1 thread"] = lambda: n / peer_insert(rbloom.Bloom, n, rate)
        rows["rbloom `in` loop, 1 thread"] = lambda: n / peer_query(rbloom.Bloom, n, rate)
    if abloom:
        rows["abloom update, 1 thread"] = lambda: n / peer_insert(abloom.BloomFilter, n, rate)
        rows["abloom `in` loop, 1 thread"] = lambda: n / peer_query(abloom.BloomFilter, n, rate)
    if pybloom_live:
        m = args.pybloom_keys
        rows["pybloom-live add loop, 1 thread"] = lambda: m / pybloom_insert(m, rate)
        rows["pybloom-live `in` loop, 1 thread"] = lambda: m / pybloom_query(m, rate)

    results = {name: [] for name in rows}
    for _ in range(args.rounds):
        for name, run in rows.items():
            results[name].append(run() / 1e6)
    median = {name: statistics.median(r) for name, r in results.items()}

    print(f"# {n:,} str keys, p = {rate}, atomic_bloom layout {layout}, median of {args.rounds} rounds; "
          f"{platform.python_implementation()} {platform.python_version()}, {platform.processor() or platform.machine()}")
    print("| what | M keys/s |")
    print("|---|---|")
    for name, value in median.items():
        print(f"| {name} | {value:.2f} |")
    ours_in, ours_q = median["atomic_bloom add_many, 1 thread"], median["atomic_bloom contains_many, 1 thread"]
    print()
    print("| ratio | value |")
    print("|---|---|")
    print(f"| add_many 2 threads / 1 thread | {median['atomic_bloom add_many, 2 threads'] / ours_in:.2f} |")
    print(f"| contains_many 2 threads / 1 thread | {median['atomic_bloom contains_many, 2 threads'] / ours_q:.2f} |")
    for peer in per_key:
        if peer != "atomic_bloom":
            for call in ("add", "in"):
                ours = median[f"atomic_bloom {call} loop"]
                print(f"| per-key `{call}` loop / {peer}'s | {ours / median[f'{peer} {call} loop']:.2f} |")
    for peer in ("rbloom", "abloom", "pybloom-live"):
        inserts = [k for k in median if k.startswith(peer) and ("update" in k or "add" in k)]
        queries = [k for k in median if k.startswith(peer) and "`in`" in k]
        if inserts:
            print(f"| add_many 1 thread / {peer} insert | {ours_in / median[inserts[0]]:.2f} |")
            built = median["atomic_bloom from_keys, 1 thread"]
            print(f"| from_keys 1 thread / {peer} insert | {built / median[inserts[0]]:.2f} |")
        if queries:
            print(f"| contains_many 1 thread / {peer} query | {ours_q / median[queries[0]]:.2f} |")


if __name__ == "__main__":
    main()
