"""Summarizes several ``benchmarks/run.py --json`` files of the same workloads: for each
workload, tidytensor's time over each peer's in every run (each run's ratio is paired: its
repeats were interleaved) and the median of those ratios over the runs.

One run on a shared VM swings by ±20%; the median of a few runs' paired ratios is what
RESULTS.md quotes. With ``--baseline`` runs, the ``tt-base`` column answers "is any workload
slower than before?".

Usage::

    python benchmarks/run.py --baseline /tmp/old --json /tmp/run1.json   # (several times)
    python benchmarks/compare_runs.py /tmp/run1.json /tmp/run2.json /tmp/run3.json
    python benchmarks/compare_runs.py --peer tt-base /tmp/run*.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path


def paired_ratios(runs: list[list[dict]], peer: str) -> dict[str, list[float]]:
    """Workload name -> tidytensor's median time over ``peer``'s, one ratio per run that
    measured both (in the order of the first run's workloads)."""
    ratios: dict[str, list[float]] = {}
    for run in runs:
        for result in run:
            frameworks = result["frameworks"]
            mine = frameworks.get("tidytensor", {}).get("median")
            theirs = frameworks.get(peer, {}).get("median")
            ratios.setdefault(result["workload"], [])
            if mine and theirs:
                ratios[result["workload"]].append(mine / theirs)
    return ratios


def table(ratios: dict[str, list[float]], peer: str) -> str:
    width = max(len(name) for name in ratios)
    lines = [f"{'workload'.ljust(width)}  median tt/{peer}  per run", "-" * (width + 40)]
    for name, values in ratios.items():
        if not values:
            lines.append(f"{name.ljust(width)}  {'n/a':>14}")
            continue
        median = statistics.median(values)
        runs = " ".join(f"{v:.2f}" for v in values)
        lines.append(f"{name.ljust(width)}  {median:13.2f}x  {runs}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="run.py --json outputs")
    parser.add_argument(
        "--peer",
        action="append",
        help="the peer(s) to compare with (default: tt-base where measured, and torch)",
    )
    args = parser.parse_args(argv)
    runs = [json.loads(path.read_text()) for path in args.files]
    peers = args.peer or [
        p
        for p in ("tt-base", "torch")
        if any(p in result["frameworks"] for run in runs for result in run)
    ]
    for i, peer in enumerate(peers):
        if i:
            print()
        print(table(paired_ratios(runs, peer), peer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
