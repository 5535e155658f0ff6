"""add_many of a pandas column: read through its NumPy values against
iterating it.

    pip install "./python[bench]"
    python python/bench/columns.py            # 1M keys a column, p = 1%, 7 rounds

`add_many(column)` reads a `Series` of integers through its NumPy array
(no Python object per key) and one of `str` through the array of its
objects. `add_many(iter(column))` takes the keys as the column's own
iterator makes them, one new Python object per value, which is what
`add_many` did with a column before. The keys are the same either way.
Rounds alternate between the two; each figure is the median, in million
keys per second.
"""

import argparse
import platform
import statistics
import time

import numpy as np
import pandas as pd

import atomic_bloom


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    n = args.keys
    urls = pd.Series([f"https://example.com/page/{i}" for i in range(n)])
    columns = {
        "int64": pd.Series(np.arange(n, dtype=np.int64) * 7919),
        "str (object)": urls,
        "str (string[pyarrow])": urls.astype("string[pyarrow]"),
    }
    ways = {
        "add_many(column)": lambda f, column: f.add_many(column),
        "add_many(iter(column))": lambda f, column: f.add_many(iter(column)),
    }
    print(
        f"# {n:,} keys a column, p = 0.01, layout blocked, median of {args.rounds} rounds; "
        f"CPython {platform.python_version()}, pandas {pd.__version__}, {platform.machine()}"
    )
    print("| column | " + " | ".join(ways) + " | ratio |")
    print("|---" * (len(ways) + 2) + "|")
    for name, column in columns.items():
        rates = {way: [] for way in ways}
        for _ in range(args.rounds):
            for way, add in ways.items():
                f = atomic_bloom.BloomFilter(n)
                start = time.perf_counter()
                add(f, column)
                rates[way].append(n / (time.perf_counter() - start) / 1e6)
        medians = [statistics.median(r) for r in rates.values()]
        cells = " | ".join(f"{m:.1f}" for m in medians)
        print(f"| {name} | {cells} | {medians[0] / medians[1]:.2f} |")


if __name__ == "__main__":
    main()
