"""TF.js's optimizers (``tfjs-core/src/optimizers``): the ``Optimizer`` base class, the seven
optimizers and their ``tf.train.*`` factories (in :mod:`tidytensor.optimizers.constructors`).

``OPTIMIZER_CLASSES`` maps each serialization name (``'SGD'``, ``'Adam'``, ...) to its class,
as TF.js's ``registerOptimizers`` does for ``serialization.registerClass``.
"""

from __future__ import annotations

from .adadelta import AdadeltaOptimizer
from .adagrad import AdagradOptimizer
from .adam import AdamOptimizer
from .adamax import AdamaxOptimizer
from .constructors import OptimizerConstructors
from .momentum import MomentumOptimizer
from .optimizer import Optimizer, OptimizerVariable
from .rmsprop import RMSPropOptimizer
from .sgd import SGDOptimizer

__all__ = [
    "OPTIMIZER_CLASSES",
    "AdadeltaOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "AdamaxOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "OptimizerConstructors",
    "OptimizerVariable",
    "RMSPropOptimizer",
    "SGDOptimizer",
]

#: Serialization name -> class (TF.js's ``register_optimizers.ts`` order).
OPTIMIZER_CLASSES: dict[str, type[Optimizer]] = {
    cls.class_name: cls
    for cls in (
        AdadeltaOptimizer,
        AdagradOptimizer,
        AdamOptimizer,
        AdamaxOptimizer,
        MomentumOptimizer,
        RMSPropOptimizer,
        SGDOptimizer,
    )
}
