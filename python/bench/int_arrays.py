"""add_many of integer keys: a NumPy array against a list of ints.

    pip install "./python[bench]"
    python python/bench/int_arrays.py            # 1M int64 keys, p = 1%, 7 rounds

A NumPy integer array (any buffer of integers) is read as its values, a
chunk at a time, with one copy and no Python object per key; a list holds
one `int` object per key, each taken with the GIL held. The third row
converts the array with `tolist()` first, what a caller had to do before
arrays were read directly. Rounds alternate between the three; each figure
is the median, in million keys per second.
"""

import argparse
import platform
import statistics
import time

import numpy as np

import atomic_bloom


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    n = args.keys
    array = np.arange(n, dtype=np.int64) * 7919
    as_list = array.tolist()
    ways = {
        "numpy int64 array": lambda f: f.add_many(array),
        "list of int": lambda f: f.add_many(as_list),
        "array.tolist(), then add_many": lambda f: f.add_many(array.tolist()),
    }
    print(
        f"# {n:,} int keys, p = 0.01, median of {args.rounds} rounds; "
        f"CPython {platform.python_version()}, {platform.machine()}"
    )
    print("| layout | " + " | ".join(ways) + " |")
    print("|---" * (len(ways) + 1) + "|")
    for layout in ["blocked", "sectorized"]:
        rates = {name: [] for name in ways}
        for _ in range(args.rounds):
            for name, add in ways.items():
                f = atomic_bloom.BloomFilter(n, layout=layout)
                start = time.perf_counter()
                add(f)
                rates[name].append(n / (time.perf_counter() - start) / 1e6)
        cells = " | ".join(f"{statistics.median(r):.1f}" for r in rates.values())
        print(f"| {layout} | {cells} |")


if __name__ == "__main__":
    main()
