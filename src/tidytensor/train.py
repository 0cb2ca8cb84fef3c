"""``tf.train``: TF.js's optimizer factories (``tf.train.sgd(0.1)``, ``tf.train.adam()``, ...)
and, for convenience, the optimizer classes.

>>> opt = tf.train.adam(0.01)
>>> opt.get_class_name()
'Adam'
>>> opt.dispose()
"""

from __future__ import annotations

from .optimizers import (
    AdadeltaOptimizer,
    AdagradOptimizer,
    AdamaxOptimizer,
    AdamOptimizer,
    MomentumOptimizer,
    Optimizer,
    OptimizerConstructors,
    RMSPropOptimizer,
    SGDOptimizer,
)
from .optimizers.constructors import adadelta, adagrad, adam, adamax, momentum, rmsprop, sgd

__all__ = [
    "AdadeltaOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "AdamaxOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "OptimizerConstructors",
    "RMSPropOptimizer",
    "SGDOptimizer",
    "adadelta",
    "adagrad",
    "adam",
    "adamax",
    "momentum",
    "rmsprop",
    "sgd",
]
