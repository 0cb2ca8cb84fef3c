"""Bytes per tensor handle (issue 16): ``sys.getsizeof`` of one handle and of its buffer
record, and what 100k live scalar handles made by ``tf.add`` cost by ``tracemalloc`` (the
handle, the record and the NumPy scalar each holds), on the engine core that runs::

    PYTHONPATH=src python benchmarks/handle_memory.py
    TIDYTENSOR_PURE_PYTHON=1 PYTHONPATH=src python benchmarks/handle_memory.py

Prints one JSON object.
"""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc

N = 100_000


def measure(n: int = N) -> dict:
    import numpy as np

    import tidytensor as tf

    a, b = tf.scalar(1.5), tf.scalar(2.25)
    one = tf.add(a, b)
    sizes = {
        "core": tf.engine().core,
        "handle_getsizeof": sys.getsizeof(one),
        "record_getsizeof": sys.getsizeof(one.data_id),
        "numpy_scalar_getsizeof": sys.getsizeof(np.float32(1.0)),
        "handle_gc_tracked": gc.is_tracked(one),
    }
    one.dispose()
    tf.engine().start_scope("handle memory")
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    results = [tf.add(a, b) for _ in range(n)]
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    allocated = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    # The list holding the results is not the handles' cost: 8 bytes a slot.
    list_bytes = sys.getsizeof(results)
    sizes["tracemalloc_bytes_per_handle"] = round((allocated - list_bytes) / n, 1)
    sizes["live_handles"] = n
    del results
    tf.engine().end_scope(None)
    tf.dispose([a, b])
    return sizes


if __name__ == "__main__":
    print(json.dumps(measure()))
