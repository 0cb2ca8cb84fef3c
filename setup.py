"""Builds tidytensor's compiled per-op core (``src/tidytensor/_handles_c.pyx``, issue 16).

Everything else is in pyproject.toml. The extension is optional: where it cannot be built (no
C compiler), the install goes on without it and tidytensor runs its pure-Python engine
(``_handles_py.py``, the reference), logging one notice at import. Set
``TIDYTENSOR_REQUIRE_CORE=1`` to make a failed build fail the install instead (CI does).
``TIDYTENSOR_CORE_CFLAGS`` adds compiler flags (e.g. ``-fsanitize=address`` for a checked
build).
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

REQUIRED = os.environ.get("TIDYTENSOR_REQUIRE_CORE", "").strip() not in ("", "0")


class OptionalBuildExt(build_ext):
    """Builds the core; a failure is a warning unless TIDYTENSOR_REQUIRE_CORE is set."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any build failure falls back the same way
            self._fallback(exc)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            self._fallback(exc)

    def _fallback(self, exc):
        if REQUIRED:
            raise exc
        sys.stderr.write(
            f"warning: tidytensor's compiled core was not built ({exc}); tidytensor will run "
            "its pure-Python engine (slower per op). Install a C compiler and reinstall to "
            "build it, or set TIDYTENSOR_REQUIRE_CORE=1 to make this an error.\n"
        )


def extensions():
    flags = os.environ.get("TIDYTENSOR_CORE_CFLAGS", "").split()
    try:
        from Cython.Build import cythonize
    except ImportError as exc:  # only without build isolation (pyproject requires Cython)
        if REQUIRED:
            raise
        sys.stderr.write(f"warning: Cython is missing ({exc}): no compiled core\n")
        return []
    ext = Extension(
        "tidytensor._handles_c",
        ["src/tidytensor/_handles_c.pyx"],
        extra_compile_args=flags,
        extra_link_args=flags,
    )
    return cythonize([ext], language_level=3, quiet=True)


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
