"""A private event loop on a thread of its own, for async generators and async map functions.

The data API is synchronous, and the caller may itself be running an event loop (asyncio
code, Jupyter), where ``loop.run_until_complete`` is refused. So each async source gets a
loop on a daemon thread; the caller blocks on ``run(coro)``. Every coroutine runs in a
task with a fresh tidytensor scope stack (no active scope): the tensors it makes belong
to the pipeline, never to whatever scope the calling thread had open.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable
from typing import Any

from ..engine import new_context, restore_context


async def _in_pipeline_context(aw: Awaitable[Any]) -> Any:
    token = new_context(None)
    try:
        return await aw
    finally:
        restore_context(token)


class LoopThread:
    """An event loop running forever on a daemon thread until :meth:`close`."""

    def __init__(self, name: str = "tidytensor-data-async") -> None:
        import asyncio  # here, not at import: 26 ms of ``import tidytensor`` for async sources

        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._closed = False
        self._thread.start()

    def _run(self) -> None:
        import asyncio

        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, aw: Awaitable[Any]) -> Any:
        """Runs ``aw`` on the loop and returns its result (or raises its exception)."""
        if threading.current_thread() is self._thread:
            raise RuntimeError("LoopThread.run() called from its own loop thread")
        import asyncio

        future = asyncio.run_coroutine_threadsafe(_in_pipeline_context(aw), self.loop)
        return future.result()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self._thread:
            self._thread.join()
            self.loop.close()
