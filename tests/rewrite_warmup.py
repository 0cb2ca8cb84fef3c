"""A fresh checkout's first run: pytest-xdist's workers share the rewriting of the test
modules' asserts instead of each doing all of it.

pytest rewrites a test module's asserts when it first imports it and caches the result in
``__pycache__`` (where bytecode is written). Every xdist worker collects every module, so on
a fresh clone each worker rewrites all ~165 of them, at the same moment, each on its own
core: the same 10.8 s (a single process's cold collection took 16.2 s, warm 5.9 s), done
twice over on two workers. Here worker ``k`` of ``n`` (``k > 0``) first imports its share,
the ``k``-th ``n``-th of the modules in collection order (importing them rewrites and caches
them), and then collects as usual, while worker 0 starts collecting at once: each finds the
others' shares cached when it gets to them. On two workers the cold collection went from
14.6-14.8 s to 10.1-11.9 s (the workers' own clocks, from start to collected).

Nothing else changes: where the cache is already warm a share is only imported earlier
(pytest's collection then finds the module imported, from the same file, under the name it
gives it), and outside xdist, or with bytecode writing off, nothing is imported ahead.
"""

from __future__ import annotations

import fnmatch
import importlib
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["import_share", "module_paths", "share"]


def share(paths: list[Path], worker: int, workers: int) -> list[Path]:
    """Worker ``worker``'s share of ``paths``: the ``worker``-th of ``workers`` equal runs,
    none for worker 0 (it collects from the start)."""
    if worker <= 0 or workers <= 1 or worker >= workers:
        return []
    return paths[worker * len(paths) // workers : (worker + 1) * len(paths) // workers]


def module_paths(config: Any) -> list[Path]:
    """The test modules under the run's arguments (or ``testpaths``) in collection order, as
    pytest imports them: files matching ``python_files`` outside packages (a module in a
    package gets a dotted name), in folders ``norecursedirs`` does not skip."""
    patterns = config.getini("python_files")
    skip_dirs = config.getini("norecursedirs")
    found: list[Path] = []
    for arg in config.args:
        root = Path(str(arg).split("::")[0])
        if root.is_file():
            candidates = [root]
        elif root.is_dir():
            candidates = []
            for folder, dirs, files in os.walk(root):
                dirs[:] = [d for d in dirs if not any(fnmatch.fnmatch(d, p) for p in skip_dirs)]
                candidates += [Path(folder) / name for name in files]
        else:
            continue
        for path in candidates:
            if any(fnmatch.fnmatch(path.name, p) for p in patterns):
                if not (path.parent / "__init__.py").exists():
                    found.append(path.resolve())
    return sorted(set(found), key=lambda p: p.parts)


def import_share(config: Any) -> list[str]:
    """Imports this xdist worker's share of the test modules (see the module's doc); returns
    the names imported. A module that fails to import is left to the collection, which
    imports it again and reports it as it always does."""
    worker = getattr(config, "workerinput", None)  # what pytest-xdist gives its workers
    if sys.dont_write_bytecode or worker is None:
        return []
    index = int("".join(c for c in worker["workerid"] if c.isdigit()) or 0)
    mine = share(module_paths(config), index, int(worker["workercount"]))
    imported = []
    for path in mine:
        if path.stem in sys.modules:
            continue
        folder = str(path.parent)
        sys.path.insert(0, folder)  # as pytest's default (prepend) import mode
        try:
            importlib.import_module(path.stem)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: BLE001 - a skip at import, an error: pytest's to report
            continue
        else:
            imported.append(path.stem)
        finally:
            # Only the entry made here goes: what the module added to sys.path as it was
            # imported stays, as it would had pytest imported it (a module imported here is
            # not imported again).
            sys.path.remove(folder)
    return imported
