"""``tf.train.*``: the optimizer factories (TF.js's ``OptimizerConstructors``,
``optimizer_constructors.ts``), with TF.js's defaults."""

from __future__ import annotations

from .adadelta import AdadeltaOptimizer
from .adagrad import AdagradOptimizer
from .adam import AdamOptimizer
from .adamax import AdamaxOptimizer
from .momentum import MomentumOptimizer
from .rmsprop import RMSPropOptimizer
from .sgd import SGDOptimizer

__all__ = [
    "OptimizerConstructors",
    "adadelta",
    "adagrad",
    "adam",
    "adamax",
    "momentum",
    "rmsprop",
    "sgd",
]


def sgd(learning_rate: float) -> SGDOptimizer:
    """Stochastic gradient descent: ``w <- w - learning_rate * g``.

    >>> opt = tf.train.sgd(0.1)
    >>> opt.get_config()
    {'learningRate': 0.1}
    >>> opt.dispose()
    """
    return SGDOptimizer(learning_rate)


def momentum(
    learning_rate: float, momentum: float, use_nesterov: bool = False
) -> MomentumOptimizer:
    """Gradient descent with momentum (Nesterov's when ``use_nesterov``)."""
    return MomentumOptimizer(learning_rate, momentum, use_nesterov)


def rmsprop(
    learning_rate: float,
    decay: float = 0.9,
    momentum: float = 0.0,
    epsilon: float | None = None,
    centered: bool = False,
) -> RMSPropOptimizer:
    """RMSProp; ``epsilon=None`` is the backend's epsilon (1e-7).

    >>> tf.train.rmsprop(0.1).get_config()
    {'learningRate': 0.1, 'decay': 0.9, 'momentum': 0.0, 'epsilon': 1e-07, 'centered': False}
    """
    return RMSPropOptimizer(learning_rate, decay, momentum, epsilon, centered)


def adam(
    learning_rate: float = 0.001,
    beta1: float = 0.9,
    beta2: float = 0.999,
    epsilon: float | None = None,
) -> AdamOptimizer:
    """Adam; ``epsilon=None`` is the backend's epsilon (1e-7)."""
    return AdamOptimizer(learning_rate, beta1, beta2, epsilon)


def adadelta(
    learning_rate: float = 0.001, rho: float = 0.95, epsilon: float | None = None
) -> AdadeltaOptimizer:
    """Adadelta; ``epsilon=None`` is the backend's epsilon (1e-7)."""
    return AdadeltaOptimizer(learning_rate, rho, epsilon)


def adamax(
    learning_rate: float = 0.002,
    beta1: float = 0.9,
    beta2: float = 0.999,
    epsilon: float | None = None,
    decay: float = 0.0,
) -> AdamaxOptimizer:
    """Adamax; ``epsilon=None`` is the backend's epsilon (1e-7)."""
    return AdamaxOptimizer(learning_rate, beta1, beta2, epsilon, decay)


def adagrad(learning_rate: float, initial_accumulator_value: float = 0.1) -> AdagradOptimizer:
    """Adagrad; each accumulator starts at ``initial_accumulator_value``."""
    return AdagradOptimizer(learning_rate, initial_accumulator_value)


class OptimizerConstructors:
    """TF.js's ``tf.OptimizerConstructors``: the same factories as static methods."""

    sgd = staticmethod(sgd)
    momentum = staticmethod(momentum)
    rmsprop = staticmethod(rmsprop)
    adam = staticmethod(adam)
    adadelta = staticmethod(adadelta)
    adamax = staticmethod(adamax)
    adagrad = staticmethod(adagrad)
