"""TensorFlow.js's basic concepts — tensors, variables, ops, models, memory — in tidytensor.

The tutorial's snippets, ported line by line (camelCase becomes snake_case). Each ``print``
shows what the tutorial's comment shows, in TF.js's own print format.

The programs are ``tidytensor.demo``'s (``tensors_demo``, ``variables_demo``,
``operations_demo``, ``model_from_ops_demo``, ``dispose_demo``, ``tidy_demo``,
``tidy_keeps_variables_demo``): this script runs them, as ``tidytensor demo --only basics``
does. Read them in ``src/tidytensor/demo.py``.

Run: ``python examples/tensor_basics.py``
"""

from __future__ import annotations

from tidytensor.demo import run

if __name__ == "__main__":
    run(["basics:"])
