"""The ``tidytensor`` command: ``tidytensor demo`` runs the seeds' programs.

>>> build_parser().parse_args(['demo', '--only', 'tidy']).only
['tidy']
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="tidytensor",
        description="TensorFlow.js's system for Python: tensors, tidy/dispose memory, "
        "autodiff and layers.",
    )
    parser.add_argument("--version", action="version", version=f"tidytensor {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser(
        "demo",
        help="run the seed programs: leaks and their fixes with tf.dispose and tf.tidy",
        description="Runs seed 000's memory programs (predict and arg_max loops, normalize) "
        "and seed 001's basics, printing what the seeds print.",
    )
    demo.add_argument(
        "--only",
        nargs="+",
        metavar="WORD",
        help="run only the programs whose title contains one of these words",
    )
    demo.add_argument("--list", action="store_true", help="list the programs and exit")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "demo":
        parser.print_help()
        return 2
    from . import demo

    if args.list:
        for title, _ in demo.PROGRAMS:
            print(title)
        return 0
    titles = [t for t, _ in demo.PROGRAMS]
    if args.only and not any(w.lower() in t.lower() for w in args.only for t in titles):
        print(
            f"tidytensor demo: no program title contains {' or '.join(args.only)}", file=sys.stderr
        )
        return 2
    demo.run(args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
