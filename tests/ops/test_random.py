"""Random ops against TF.js goldens, plus hand-written edge cases."""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf
from golden_util import case_ids, check_case, load_cases
from tidytensor import random_engines

CASES = load_cases("random")


@pytest.mark.parametrize(("case", "expected"), CASES, ids=case_ids(CASES))
def test_golden(case, expected):
    check_case(case, expected)


N = 200_000


def _stats(t):
    v = t.numpy().astype(np.float64)
    return v.mean(), v.std()


# ----------------------------------------------------------------------------- engines
def test_alea_matches_seedrandom():
    # First draws of seedrandom 3.0.5's alea(seed), recorded in Node.
    r = random_engines.Alea("hello")
    assert [r() for _ in range(4)] == [
        0.8750656815245748,
        0.33650841237977147,
        0.6642807484604418,
        0.5072691291570663,
    ]
    r = random_engines.Alea("héllo😀")  # UTF-16 code units, as charCodeAt
    assert r() == 0.9318372523412108
    r = random_engines.Alea("")
    assert r.take(2).tolist() == [0.1666577742435038, 0.4869158477522433]


def test_seed_is_formatted_as_javascript_does():
    a = tf.random_normal([3], 0, 1, "float32", 7)
    b = tf.random_normal([3], 0, 1, "float32", 7.0)
    assert a.data_sync().tolist() == b.data_sync().tolist()
    assert a.data_sync().tolist() == [-1.3710527420043945, 0.029286757111549377, -1.092186689376831]
    assert random_engines.js_number_to_string(1e21) == "1e+21"
    assert random_engines.js_number_to_string(1.5e-7) == "1.5e-7"
    assert random_engines.js_number_to_string(-0.0) == "0"


def test_gamma_seeded_value_from_tfjs():
    g = tf.random_gamma([4], 2, 1, "float32", 7)
    assert g.data_sync().tolist() == [
        2.7732796669006348,
        0.2897314131259918,
        1.260534644126892,
        0.49854934215545654,
    ]


def test_same_seed_same_values_different_seed_different_values():
    a = tf.random_uniform([50], 0, 1, "float32", 3).data_sync()
    b = tf.random_uniform([50], 0, 1, "float32", 3).data_sync()
    c = tf.random_uniform([50], 0, 1, "float32", 4).data_sync()
    assert a.tolist() == b.tolist()
    assert a.tolist() != c.tolist()


def test_gauss_stream_is_the_same_through_take_and_next_value():
    g1 = random_engines.MPRandGauss(0, 1, None, True, 3)
    g2 = random_engines.MPRandGauss(0, 1, None, True, 3)
    one_by_one = [g1.next_value() for _ in range(9)]
    assert one_by_one == g2.take(4).tolist() + g2.take(0).tolist() + g2.take(5).tolist()


# ----------------------------------------------------------------------------- unseeded
def test_unseeded_normal_distribution():
    mean, std = _stats(tf.random_normal([N], 3, 2))
    assert abs(mean - 3) < 0.03 and abs(std - 2) < 0.03
    x = tf.random_normal([1000], 0, 5, "int32")
    assert x.dtype == "int32"
    a = tf.random_standard_normal([N])
    mean, std = _stats(a)
    assert abs(mean) < 0.02 and abs(std - 1) < 0.02


def test_unseeded_truncated_normal_distribution():
    t = tf.truncated_normal([N], 1, 2)
    v = t.numpy()
    assert v.min() >= -3 and v.max() <= 5
    mean, std = _stats(t)
    # A normal truncated at two standard deviations has std 0.8796 sigma.
    assert abs(mean - 1) < 0.03 and abs(std - 2 * 0.8796) < 0.03


def test_unseeded_uniform_distribution():
    # The draws are float64 in [minval, maxval); as in TF.js, storing them as float32 rounds
    # a draw within half an ulp of maxval (about 1 in 3e7 here) up to maxval itself.
    draws = random_engines.uniform_sampler(-2, 6, None)(N)
    assert draws.min() >= -2 and draws.max() < 6
    v = tf.random_uniform([N], -2, 6).numpy()
    assert v.min() >= -2 and v.max() <= 6
    assert abs(v.mean() - 2) < 0.03
    i = tf.random_uniform_int([N], 0, 10).numpy()
    assert i.dtype == np.int32 and i.min() == 0 and i.max() == 9
    counts = np.bincount(i, minlength=10) / N
    assert np.all(np.abs(counts - 0.1) < 0.01)


def test_unseeded_gamma_distribution():
    for alpha, beta in ((2.5, 3.0), (0.4, 1.0)):
        mean, std = _stats(tf.random_gamma([N], alpha, beta))
        assert abs(mean - alpha * beta) / (alpha * beta) < 0.02
        assert abs(std - np.sqrt(alpha) * beta) / (np.sqrt(alpha) * beta) < 0.03


def test_unseeded_multinomial_frequencies():
    logits = tf.tensor([[0.0, np.log(3.0)], [np.log(4.0), 0.0]])
    draws = tf.multinomial(logits, 20_000).numpy()
    assert draws.shape == (2, 20_000)
    assert abs(draws[0].mean() - 0.75) < 0.02
    assert abs(draws[1].mean() - 0.2) < 0.02
    probs = tf.multinomial(tf.tensor([0.2, 0.3, 0.5]), 20_000, None, True).numpy()
    np.testing.assert_allclose(np.bincount(probs, minlength=3) / 20_000, [0.2, 0.3, 0.5], atol=0.02)


def test_multinomial_seed_zero_means_unseeded():
    a = tf.multinomial(tf.tensor([1.0, 1.0]), 200, 0).data_sync()
    b = tf.multinomial(tf.tensor([1.0, 1.0]), 200, 0).data_sync()
    assert a.tolist() != b.tolist()


# ----------------------------------------------------------------------------- other behaviour
def test_each_random_op_makes_one_tensor_and_runs_no_kernel():
    for fn in (
        lambda: tf.random_normal([3], 0, 1, "float32", 1),
        lambda: tf.random_standard_normal([3]),
        lambda: tf.random_uniform([3]),
        lambda: tf.random_uniform_int([3], 0, 5),
        lambda: tf.random_gamma([3], 2),
        lambda: tf.rand([3], lambda: 1),
    ):
        p = tf.profile(fn)
        assert p.kernel_names == []
        assert p.new_tensors == 1 and p.new_bytes == 12
    p = tf.profile(lambda: tf.multinomial([1, 2, 3], 4, 5))
    assert p.kernel_names == ["Reshape", "Multinomial"]
    assert p.new_tensors == 1
    assert tf.memory().num_data_buffers == tf.memory().num_tensors


def test_rand():
    calls = []

    def f():
        calls.append(1)
        return 1.5

    assert tf.rand([2, 2], f, "int32").array_sync() == [[1, 1], [1, 1]]
    assert len(calls) == 4
    assert tf.rand([3], lambda: True).array_sync() == [1.0, 1.0, 1.0]
    assert tf.rand([2], lambda: 0.4, "bool").array_sync() == [0, 0]
    with pytest.raises(tf.DTypeError, match="Unknown data type string"):
        tf.rand([2], f, "string")
    with pytest.raises(tf.ArgumentTypeError, match="must be a function"):
        tf.rand([2], 3)


def test_random_uniform_bool_stores_like_uint8():
    # TF.js writes minval + range * u into a Uint8Array: the stored byte decides.
    v = tf.random_uniform([5], 0, 3, "bool", 5)
    assert v.array_sync() == [0, 0, 1, 0, 1]


def test_bad_arguments():
    with pytest.raises(tf.InvalidArgumentError, match="alpha >= 0"):
        tf.random_gamma([2], -1)
    # TF.js 4.22: u ** (1 / 0) is 0, so alpha 0 draws zeros.
    zeros = tf.random_gamma([2], 0, 1, "float32", 3)
    assert zeros.array_sync() == [0, 0]
    zeros.dispose()
    with pytest.raises(tf.DTypeError, match="Unsupported data type string"):
        tf.random_uniform([2], 0, 1, "string")
    with pytest.raises(tf.DTypeError, match="Unsupported data type complex64"):
        tf.random_gamma([2], 1, 1, "complex64")
    with pytest.raises(tf.InvalidArgumentError, match="num_samples"):
        tf.multinomial([1, 2], 1.5)
    with pytest.raises(tf.DTypeError, match="complex64"):
        tf.multinomial(tf.complex([1, 2], [0, 0]), 2)
    assert tf.memory().num_tensors == 1  # only the complex argument


def test_multinomial_nan_logits_pick_last_event():
    out = tf.multinomial(tf.tensor([[0.5, float("nan"), 0.5]]), 5, 3, True).array_sync()
    assert all(e in (0, 2) for e in out[0])
