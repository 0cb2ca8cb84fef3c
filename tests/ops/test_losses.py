"""tf.losses against TF.js goldens, plus gradient checks, Reduction, errors and properties
vs NumPy."""

from __future__ import annotations

import zlib
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tidytensor as tf
from golden_util import case_ids, check_case, load_cases

CASES = load_cases("losses")
Reduction = tf.losses.Reduction


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


# ---------------------------------------------------------------------------- gradient checks
class GradSpec(NamedTuple):
    name: str
    fn: object
    shapes: list
    ranges: list  # (low, high) per argument


S = [3, 4]
W = [1, 4]


# Constant arguments, made on each call (the engine is reset between tests).
def _w():
    return tf.tensor2d([[0.5, 0.0, 2.0, 1.0]])


def _w3():
    return tf.tensor1d([1.0, 0.5, 2.0])


def _onehot():
    return tf.tensor2d([[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]])


def _soft_labels():
    return tf.tensor2d([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25], [0.0, 0.5, 0.5, 0.0]])


GRAD_OPS = [
    GradSpec(
        "absolute_difference",
        lambda a, b, w: tf.losses.absolute_difference(a, b, w, Reduction.MEAN),
        [S, S, W],
        [(-2, 2), (-2, 2), (0.5, 2)],
    ),
    GradSpec(
        "absolute_difference_nonzero",
        lambda a, b: tf.losses.absolute_difference(a, b, _w()),
        [S, S],
        [(-2, 2), (-2, 2)],
    ),
    # SUM_BY_NONZERO_WEIGHTS counts weights with notEqual (no gradient): weights stay fixed.
    GradSpec(
        "compute_weighted_loss", lambda l: tf.losses.compute_weighted_loss(l, _w()), [S], [(0, 3)]
    ),
    GradSpec(
        "compute_weighted_loss_mean",
        lambda l, w: tf.losses.compute_weighted_loss(l, w, Reduction.MEAN),
        [S, W],
        [(0, 3), (0.5, 2)],
    ),
    GradSpec(
        "compute_weighted_loss_sum",
        lambda l: tf.losses.compute_weighted_loss(l, None, Reduction.SUM),
        [S],
        [(0, 3)],
    ),
    GradSpec(
        "compute_weighted_loss_none",
        lambda l, w: tf.losses.compute_weighted_loss(l, w, Reduction.NONE),
        [S, W],
        [(0, 3), (0.5, 2)],
    ),
    GradSpec(
        "cosine_distance",
        lambda a, b: tf.losses.cosine_distance(a, b, 1),
        [S, S],
        [(-1, 1), (-1, 1)],
    ),
    GradSpec("hinge_loss", lambda a, b: tf.losses.hinge_loss(a, b), [S, S], [(0, 1), (-3, 3)]),
    GradSpec(
        "huber_loss", lambda a, b: tf.losses.huber_loss(a, b, None, 0.7), [S, S], [(-2, 2), (-2, 2)]
    ),
    GradSpec("log_loss", lambda a, b: tf.losses.log_loss(a, b), [S, S], [(0, 1), (0.1, 0.9)]),
    GradSpec(
        "mean_squared_error",
        lambda a, b, w: tf.losses.mean_squared_error(a, b, w, Reduction.MEAN),
        [S, S, W],
        [(-2, 2), (-2, 2), (0.5, 2)],
    ),
    GradSpec(
        "sigmoid_cross_entropy",
        lambda a, b: tf.losses.sigmoid_cross_entropy(a, b, None, 0.1),
        [S, S],
        [(0, 1), (-4, 4)],
    ),
    # TF.js's custom gradient assumes each row of labels sums to 1 and gives dy * (labels -
    # softmax) for the labels (not their true gradient): check the logits' gradient only.
    GradSpec(
        "softmax_cross_entropy",
        lambda z: tf.losses.softmax_cross_entropy(_onehot(), z, None, 0.1),
        [S],
        [(-4, 4)],
    ),
    GradSpec(
        "softmax_cross_entropy_none",
        lambda z: tf.losses.softmax_cross_entropy(_soft_labels(), z, _w3(), 0, Reduction.NONE),
        [S],
        [(-4, 4)],
    ),
]


@pytest.mark.parametrize("spec", GRAD_OPS, ids=[s.name for s in GRAD_OPS])
def test_check_grads(spec):
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()))  # stable across runs
    args = [
        tf.tensor(rng.uniform(lo, hi, shape).astype(np.float32), list(shape))
        for shape, (lo, hi) in zip(spec.shapes, spec.ranges, strict=True)
    ]
    tf.testing.check_grads(spec.fn, args)


def test_grad_table_covers_every_loss():
    names = {s.name for s in GRAD_OPS}
    for op_name in tf.losses.__all__:
        assert any(n == op_name or n.startswith(op_name + "_") for n in names), op_name


def test_weights_gradient_through_nonzero_count_fails_as_in_tfjs():
    losses, w = tf.tensor1d([1.0, 2.0]), tf.tensor1d([0.5, 1.0])
    with pytest.raises(tf.TidyTensorError, match="gradient function not found for NotEqual"):
        tf.grad(lambda t: tf.losses.compute_weighted_loss(losses, t))(w)


def test_softmax_cross_entropy_custom_gradient():
    labels = tf.tensor2d([[0.0, 1.0], [1.0, 0.0]])
    logits = tf.tensor2d([[1.0, 2.0], [3.0, 4.0]])
    dl, dz = tf.grads(lambda a, b: tf.losses.softmax_cross_entropy(a, b, None, 0, Reduction.SUM))(
        [labels, logits]
    )
    sm = tf.softmax(logits).numpy()
    np.testing.assert_allclose(dz.numpy(), sm - labels.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dl.numpy(), labels.numpy() - sm, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------- Reduction
def test_reduction_enum():
    assert [int(r) for r in Reduction] == [0, 1, 2, 3]
    assert Reduction.NONE == 0 and Reduction.SUM_BY_NONZERO_WEIGHTS == 3
    assert Reduction["MEAN"] is Reduction.MEAN and Reduction(2) is Reduction.SUM
    assert "Reduction" not in tf.losses.__all__
    assert sorted(tf.losses.__all__) == [
        "absolute_difference",
        "compute_weighted_loss",
        "cosine_distance",
        "hinge_loss",
        "huber_loss",
        "log_loss",
        "mean_squared_error",
        "sigmoid_cross_entropy",
        "softmax_cross_entropy",
    ]


def test_reduction_enum_and_ints_agree():
    a, b = tf.tensor1d([1.0, 2.0, 3.0]), tf.tensor1d([1.0, 1.0, 1.0])
    for r in Reduction:
        tf.testing.assert_close(
            tf.losses.mean_squared_error(a, b, None, r),
            tf.losses.mean_squared_error(a, b, None, int(r)),
        )


def test_catalog_o20_o21():
    a, b = tf.tensor1d([1, 2, 3]), tf.tensor1d([1, 1, 1])
    assert tf.losses.mean_squared_error(a, b).array_sync() == pytest.approx(1.6666666)
    assert tf.losses.mean_squared_error(a, b, reduction=Reduction.NONE).array_sync() == [0, 1, 4]
    out = tf.losses.softmax_cross_entropy(
        tf.tensor2d([[0, 1], [1, 0]]), tf.tensor2d([[1, 2], [3, 4]])
    )
    assert out.array_sync() == pytest.approx(0.8132616)


def test_keyword_arguments():
    l2, p2 = tf.tensor2d([[1.0, 9.0], [2.0, -5.0]]), tf.tensor2d([[4.0, 8.0], [12.0, 8.0]])
    w = tf.tensor2d([[1.0, 0.0], [2.0, 3.0]])
    pairs = [
        (
            tf.losses.huber_loss(l2, p2, weights=w, delta=2.0, reduction=Reduction.SUM),
            tf.losses.huber_loss(l2, p2, w, 2.0, 2),
        ),
        (
            tf.losses.log_loss(tf.tensor1d([1.0, 0.0]), tf.tensor1d([0.9, 0.2]), epsilon=1e-3),
            tf.losses.log_loss(tf.tensor1d([1.0, 0.0]), tf.tensor1d([0.9, 0.2]), None, 1e-3),
        ),
        (
            tf.losses.cosine_distance(l2, p2, axis=0, reduction=Reduction.MEAN),
            tf.losses.cosine_distance(l2, p2, 0, None, 1),
        ),
        (
            tf.losses.sigmoid_cross_entropy(multi_class_labels=l2, logits=p2, label_smoothing=0.2),
            tf.losses.sigmoid_cross_entropy(l2, p2, None, 0.2),
        ),
        (
            tf.losses.softmax_cross_entropy(
                onehot_labels=l2, logits=p2, weights=w, label_smoothing=0.1
            ),
            tf.losses.softmax_cross_entropy(l2, p2, w, 0.1),
        ),
        (
            tf.losses.compute_weighted_loss(losses=p2, weights=w, reduction=Reduction.MEAN),
            tf.losses.compute_weighted_loss(p2, w, 1),
        ),
        (
            tf.losses.absolute_difference(labels=l2, predictions=p2),
            tf.losses.absolute_difference(l2, p2),
        ),
        (
            tf.losses.hinge_loss(l2, predictions=p2, reduction=Reduction.NONE),
            tf.losses.hinge_loss(l2, p2, None, 0),
        ),
    ]
    for a, b in pairs:
        tf.testing.assert_close(a, b)


def test_none_means_default():
    a, b = tf.tensor1d([0.0, 1.0]), tf.tensor1d([0.5, 3.0])
    tf.testing.assert_close(
        tf.losses.huber_loss(a, b, None, None, None), tf.losses.huber_loss(a, b)
    )
    tf.testing.assert_close(
        tf.losses.log_loss(a, tf.tensor1d([0.5, 0.5]), None, None),
        tf.losses.log_loss(a, tf.tensor1d([0.5, 0.5])),
    )


# ---------------------------------------------------------------------------- memory
def test_losses_leave_only_their_result():
    a, b = tf.tensor2d([[0.0, 1.0], [1.0, 0.0]]), tf.tensor2d([[1.0, 2.0], [3.0, 4.0]])
    w = tf.tensor1d([0.5, 2.0])
    for fn in (
        tf.losses.absolute_difference,
        tf.losses.hinge_loss,
        tf.losses.huber_loss,
        tf.losses.log_loss,
        tf.losses.mean_squared_error,
        tf.losses.sigmoid_cross_entropy,
        tf.losses.softmax_cross_entropy,
    ):
        before = tf.memory()
        y = fn(a, b)
        after = tf.memory()
        assert (
            after.num_tensors - before.num_tensors,
            after.num_data_buffers - before.num_data_buffers,
        ) == (1, 1)
        y.dispose()
    before = tf.memory().num_tensors
    y = tf.losses.softmax_cross_entropy(a, b, w, 0.2, Reduction.MEAN)
    assert tf.memory().num_tensors == before + 1
    y.dispose()


# ---------------------------------------------------------------------------- errors
def test_errors():
    a = tf.tensor1d([1.0, 2.0, 3.0])
    with pytest.raises(
        tf.ShapeError, match=r"^Error in mean_squared_error: shapes \[3\] and \[2\] must match$"
    ):
        tf.losses.mean_squared_error(a, tf.tensor1d([1.0, 2.0]))
    with pytest.raises(
        tf.ShapeError, match=r"^Error in hinge_loss: shapes \[\] and \[3\] must match$"
    ):
        tf.losses.hinge_loss(tf.scalar(1), a)
    with pytest.raises(tf.InvalidArgumentError, match=r"^Unknown reduction: 5$"):
        tf.losses.compute_weighted_loss(a, None, 5)
    with pytest.raises(tf.InvalidArgumentError, match=r"^Unknown reduction: mean$"):
        tf.losses.compute_weighted_loss(a, None, "mean")
    with pytest.raises(
        tf.ArgumentTypeError, match="Argument 'weights' passed to 'log_loss' must be a Tensor"
    ):
        tf.losses.log_loss(a, a, {})
    with pytest.raises(
        tf.DTypeError,
        match="Argument 'onehot_labels' passed to 'softmax_cross_entropy' must be numeric",
    ):
        tf.losses.softmax_cross_entropy(tf.tensor1d(["a"]), tf.tensor1d(["b"]))


# ---------------------------------------------------------------------------- properties
pairs = st.integers(1, 4).flatmap(
    lambda n: st.tuples(
        hnp.arrays(np.float32, (n, 3), elements=st.floats(-5, 5, width=32)),
        hnp.arrays(np.float32, (n, 3), elements=st.floats(-5, 5, width=32)),
        hnp.arrays(np.float32, (n, 1), elements=st.floats(0, 2, width=32)),
    )
)


@settings(max_examples=40, deadline=None)
@given(pairs)
def test_losses_match_numpy(data):
    lab, pred, w = (x.astype(np.float64) for x in data)
    tl, tp, tw = (tf.tensor(x) for x in data)
    wb = np.broadcast_to(w, lab.shape)
    nonzero = max(np.count_nonzero(wb), 0)

    def by_nonzero(losses):
        total = float((losses * wb).sum())
        return total / nonzero if nonzero else (np.nan if total == 0 else np.inf * np.sign(total))

    checks = [
        (tf.losses.absolute_difference(tl, tp, tw), by_nonzero(np.abs(lab - pred))),
        (tf.losses.mean_squared_error(tl, tp, tw), by_nonzero((lab - pred) ** 2)),
        (
            tf.losses.mean_squared_error(tl, tp, tw, Reduction.SUM),
            float(((lab - pred) ** 2 * wb).sum()),
        ),
        (
            tf.losses.absolute_difference(tl, tp, None, Reduction.MEAN),
            float(np.abs(lab - pred).mean()),
        ),
    ]
    err = np.abs(pred - lab)
    quad = np.minimum(err, 1.0)
    checks.append(
        (
            tf.losses.huber_loss(tl, tp, None, None, Reduction.SUM),
            float((0.5 * quad**2 + (err - quad)).sum()),
        )
    )
    sce = np.maximum(pred, 0) - pred * lab + np.log1p(np.exp(-np.abs(pred)))
    checks.append(
        (tf.losses.sigmoid_cross_entropy(tl, tp, None, 0, Reduction.SUM), float(sce.sum()))
    )
    shifted = pred - pred.max(-1, keepdims=True)
    log_sm = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    checks.append(
        (
            tf.losses.softmax_cross_entropy(tl, tp, None, 0, Reduction.SUM),
            float(-(log_sm * lab).sum()),
        )
    )
    for got, want in checks:
        np.testing.assert_allclose(float(got.array_sync()), want, rtol=1e-4, atol=1e-3)
    tf.dispose([tl, tp, tw])
