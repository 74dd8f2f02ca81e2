"""Fuzz every parser with 10,000 Hypothesis examples (tests/fuzz/test_fuzz.py runs the same
with a few hundred, derandomized): topic names and specs, --replica-assignment, --topic regexes,
--config/--add-config/--delete-config, TOML profiles and files, client.properties (text, JAAS,
settings, files) and plan files.

Each run takes a new seed (printed, so a failure can be replayed with --seed). Per target it
prints the examples tried, how many were accepted and rejected, the kinds of rejection (messages
with their quoted parts, numbers and paths blanked, counted), the time, and any failure with the
shrunk input Hypothesis found.

Usage: python bench/fuzz.py [--examples 10000] [--target NAME] [--seed N]. Nothing here asserts
a time.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import traceback
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hypothesis import HealthCheck, given, seed, settings

from tests.fuzz.fuzz_targets import TARGETS, Target, pattern


def fuzz(
    target: Target, examples: int, run_seed: int
) -> tuple[int, Counter[str], BaseException | None]:
    kinds: Counter[str] = Counter()
    tried = 0

    def body(value: Any) -> None:
        nonlocal tried
        tried += 1
        message = target.check(value)
        kinds["accepted" if message is None else pattern(message)] += 1

    test = seed(run_seed)(
        settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )(given(target.strategy)(body))
    )
    try:
        test()
    except Exception as exc:  # the failure is the result: print it, go on with the next target
        return tried, kinds, exc
    return tried, kinds, None


def describe(failure: BaseException) -> list[str]:
    failures = failure.exceptions if isinstance(failure, BaseExceptionGroup) else [failure]
    lines = []
    for exc in failures:
        lines += [line.rstrip() for line in traceback.format_exception(exc)[-3:]]
        lines += [note for note in getattr(exc, "__notes__", [])]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--target", choices=sorted(TARGETS), action="append")
    parser.add_argument("--seed", type=int, default=random.randrange(2**32))
    args = parser.parse_args()
    print(f"seed {args.seed} (replay: python bench/fuzz.py --seed {args.seed} --target NAME)")
    failed = []
    for name in args.target or sorted(TARGETS):
        started = time.perf_counter()
        tried, kinds, failure = fuzz(TARGETS[name], args.examples, args.seed)
        elapsed = time.perf_counter() - started
        accepted = kinds.pop("accepted", 0)
        rejected = sum(kinds.values())
        print(
            f"\n{name}: {tried} tried in {elapsed:.1f}s, {accepted} accepted, {rejected} "
            f"rejected ({len(kinds)} kinds of error)"
        )
        for kind, count in kinds.most_common(8):
            print(f"  {count:6d}  {kind}")
        if len(kinds) > 8:
            print(f"  {sum(c for _, c in kinds.most_common()[8:]):6d}  (other kinds)")
        if failure is not None:
            failed.append(name)
            print(f"  FAILURE in {name}:")
            for line in describe(failure):
                print(f"    {line}")
    print(f"\n{len(failed)} target(s) failed{': ' + ', '.join(failed) if failed else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
