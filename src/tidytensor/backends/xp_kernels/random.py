"""Random kernels: TF.js's CPU ``Multinomial``.

The probabilities are worked out exactly as TF.js's CPU softmax does (max, subtract, ``exp``
in double precision rounded to float32, a sequential double sum rounded to float32, divide),
so that seeded draws land on the same events as in TF.js. Sampling runs on the host.
"""

from __future__ import annotations

import numpy as np

from ... import kernel_names as k
from ...random_engines import multinomial_samples


def _tfjs_softmax(logits: np.ndarray) -> np.ndarray:
    x = logits.astype(np.float32)
    m = x.max(axis=-1, keepdims=True)
    a = (x - m).astype(np.float32)
    b = np.exp(a.astype(np.float64)).astype(np.float32)
    # A running double-precision sum, in order (not NumPy's pairwise sum).
    s = np.add.accumulate(b.astype(np.float64), axis=-1)[..., -1:].astype(np.float32)
    return (b / s).astype(np.float32)


def multinomial(logits, *, xp, num_samples, seed, normalized):
    host = logits.get() if hasattr(logits, "get") else np.asarray(logits)
    with np.errstate(all="ignore"):
        probs = host.astype(np.float32) if normalized else _tfjs_softmax(host)
    return xp.asarray(multinomial_samples(probs, num_samples, seed))


KERNELS = {
    k.MULTINOMIAL: multinomial,
}
