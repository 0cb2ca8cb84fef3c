"""The engine's kernel error path: a kernel that raised (rerun quietly when it only tripped
a floating-point warning the user made an error, else wrapped in a ``KernelError``), and the
name of the op the user called, for error messages.

``KernelErrors`` is mixed into ``Engine`` (``engine.py``); nothing here runs unless a kernel
fails or an error message is being written.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..errors import KernelError, TidyTensorError
from ..naming import snake_case
from .memory_guard import describe_need, op_name, out_of_host_memory
from .output_bounds import output_bound


class KernelErrors:
    """Kernel failure handling (mixed into ``Engine``)."""

    #: The code object shared by every op wrapper (``Engine.make_op`` sets it): finds the
    #: running op when reporting errors.
    _op_wrapper_code: Any = None

    def _kernel_retry(
        self, kernel_name: str, kernel: Callable, inputs: tuple, attrs: Any, exc: Exception
    ) -> Any:
        """Kernels follow IEEE semantics silently, as TF.js does (1/0 is Infinity). They run
        without an errstate guard (it costs more than a scalar op), so a user who turned
        floating-point warnings into errors sees one here: run the kernel again quietly."""
        if not isinstance(exc, (Warning, FloatingPointError)):
            raise self._kernel_failure(kernel_name, inputs, exc, attrs) from exc
        try:
            with self._backend.quiet():
                return kernel(inputs, attrs)
        except TidyTensorError:
            raise
        except Exception as again:
            raise self._kernel_failure(kernel_name, inputs, again, attrs) from again

    def _kernel_failure(
        self, kernel_name: str, inputs: tuple, exc: Exception, attrs: Any = None
    ) -> Exception:
        shapes = ", ".join(f"{t.dtype}{list(t._shape)}" for t in inputs)
        if isinstance(exc, MemoryError):
            what = (
                f"{describe_need(output_bound(kernel_name, inputs, attrs))} (kernel "
                f"'{kernel_name}' on inputs ({shapes}))"
            )
            return out_of_host_memory(op_name(self, kernel_name), what, exc)
        return KernelError(
            f"Kernel '{kernel_name}' (op '{self._op_name(kernel_name)}') failed on inputs "
            f"({shapes}): {type(exc).__name__}: {exc}"
        )

    def _op_name(self, kernel_name: str) -> str:
        """The op the user called: the outermost running op wrapper (read from the call
        stack, on the error path only)."""
        wrapper_code = self._op_wrapper_code
        name = None
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code is wrapper_code:
                name = frame.f_locals["name"][:-4]
            frame = frame.f_back
        return snake_case(name) if name else kernel_name
