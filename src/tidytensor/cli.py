"""The ``tidytensor`` command: ``tidytensor demo`` runs example programs (memory, basics,
training);
``tidytensor summary MODEL`` describes a saved model; ``tidytensor predict MODEL --input FILE``
runs it.

>>> build_parser().parse_args(['demo', '--only', 'tidy']).only
['tidy']
>>> build_parser().parse_args(['predict', 'm/', '--input', 'x.npy']).input
'x.npy'
>>> build_parser().parse_args(['summary', 'm/', '--import', 'a', '-m', 'b.py']).imports
['a', 'b.py']
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__, demo, model_commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tidytensor",
        description="TensorFlow.js's system for Python: tensors, tidy/dispose memory, "
        "autodiff and layers.",
    )
    parser.add_argument("--version", action="version", version=f"tidytensor {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser(
        "demo",
        help="run example programs: memory leaks and their fixes with tf.dispose and "
        "tf.tidy, tensor basics, training a classifier",
        description="Runs the memory programs of TF.js's guides (predict and arg_max loops, "
        "normalize: each leak, then its fix with tf.dispose or tf.tidy, with the tensor "
        "count), the basics (tensors, variables, ops, dispose, tidy), then trains an Iris "
        "classifier with fit() and shows the tensor count staying flat.",
    )
    demo.add_argument(
        "--only",
        nargs="+",
        metavar="WORD",
        help="run only the programs whose title contains one of these words",
    )
    demo.add_argument("--list", action="store_true", help="list the programs and exit")
    summary = commands.add_parser(
        "summary",
        help="describe a saved layers model (model.json and its weights)",
        description="Loads MODEL (a model.json, its directory, a file:// or http(s):// URL, or "
        "localstorage://name) and prints its format, weights manifest and layer table.",
    )
    summary.add_argument("model", metavar="MODEL")
    _add_import_option(summary)
    summary.add_argument("--line-length", type=int, default=None, help="width of the layer table")
    predict = commands.add_parser(
        "predict",
        help="run a saved layers model on inputs from a .json, .npy or .npz file",
        description="Loads MODEL and prints model.predict(inputs) as JSON. --input is a .npy "
        "array, a .npz of arrays (by input name, or in order), or a .json nested list (one "
        "input), list of nested lists (one per input) or object keyed by input name.",
    )
    predict.add_argument("model", metavar="MODEL")
    _add_import_option(predict)
    predict.add_argument("--input", required=True, metavar="FILE", help=".json, .npy or .npz")
    predict.add_argument(
        "--output", metavar="FILE", help="write the output(s) to a .json, .npy or .npz file"
    )
    predict.add_argument("--batch-size", type=int, default=None, help="default 32")
    predict.add_argument(
        "--no-strict", action="store_true", help="load even if some weights do not match"
    )
    return parser


def _add_import_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "-m",
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE (a dotted name found from the current directory, or a .py file) "
        "before loading, so that the custom layers it registers with "
        "tf.serialization.register_class load; repeatable",
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in ("summary", "predict"):
        return model_commands.run(args)
    if args.command != "demo":
        parser.print_help()
        return 2

    if args.list:
        for title, _ in demo.PROGRAMS:
            print(title)
        return 0
    if args.only and not any(demo.matches(title, args.only) for title, _ in demo.PROGRAMS):
        print(
            f"tidytensor demo: no program title contains {' or '.join(args.only)}", file=sys.stderr
        )
        return 2
    demo.run(args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
