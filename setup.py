"""Builds tidytensor's compiled per-op core (``src/tidytensor/_handles_c.pyx``, issue 16) and
its compiled float32 kernel loops (``src/tidytensor/backends/xp_kernels/_float32_c.pyx``,
issue 15).

Everything else is in pyproject.toml. The extensions are optional: where they cannot be built
(no C compiler), the install goes on without them and tidytensor runs its pure-Python engine
(``_handles_py.py``, the reference), logging one notice at import, and the kernels their NumPy
code (the loops' reference). Set
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
    """Builds the extensions; a failure is a warning unless TIDYTENSOR_REQUIRE_CORE is set."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any build failure falls back the same way
            self._fallback(exc)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            self._fallback(exc, ext.name)

    def _fallback(self, exc, name="tidytensor's compiled extensions"):
        if REQUIRED:
            raise exc
        sys.stderr.write(
            f"warning: {name} was not built ({exc}); tidytensor will run its pure-Python "
            "reference there (slower). Install a C compiler and reinstall to build it, or set "
            "TIDYTENSOR_REQUIRE_CORE=1 to make this an error.\n"
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
    core = Extension(
        "tidytensor._handles_c",
        ["src/tidytensor/_handles_c.pyx"],
        extra_compile_args=flags,
        extra_link_args=flags,
    )
    # The loops must round every float32 operation as NumPy does: no contraction of a
    # multiplication and an addition into one fused multiply-add (GCC and Clang contract by
    # default where the target has FMA), never -ffast-math. -fno-math-errno only lets sqrtf
    # be the bare square-root instruction (vectorizable); its results are the same.
    loops = Extension(
        "tidytensor.backends.xp_kernels._float32_c",
        ["src/tidytensor/backends/xp_kernels/_float32_c.pyx"],
        extra_compile_args=[*flags, *FLOAT32_FLAGS],  # last: they win over CFLAGS' own
        extra_link_args=flags,
    )
    return cythonize([core, loops], language_level=3, quiet=True)


#: Compiler flags of the float32 loops (GCC and Clang; MSVC's spelling in BuildExt).
FLOAT32_FLAGS = ["-ffp-contract=off", "-fno-math-errno"]


class BuildExt(OptionalBuildExt):
    def build_extensions(self):
        if self.compiler.compiler_type == "msvc":  # MSVC's spelling of the same rule
            for ext in self.extensions:
                args = [a for a in ext.extra_compile_args if a not in FLOAT32_FLAGS]
                if len(args) < len(ext.extra_compile_args):
                    ext.extra_compile_args = ["/fp:precise", *args]  # no contraction since VS 2022
        super().build_extensions()


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExt})
