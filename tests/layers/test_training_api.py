"""compile / fit / evaluate / train_on_batch / fit_dataset semantics beyond the goldens:
validation split before shuffling, sample and class weights, ownership of optimizers,
bad inputs leaving the model unchanged, dataset iteration and disposal, losses and metrics
by name, and the bundled Iris data."""

from __future__ import annotations

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.layers as L
from tidytensor.datasets import iris_csv_path, load_iris
from tidytensor.layers import losses as LS
from tidytensor.layers import metrics as M
from tidytensor.layers.errors import (
    LayersNotImplementedError,
    LayersRuntimeError,
    LayersValueError,
)


def dense_model(units=1, activation="linear", input_dim=1, kernel="zeros"):
    return L.models.sequential(
        [
            L.dense(
                units=units,
                activation=activation,
                input_shape=[input_dim],
                kernel_initializer=kernel,
            )
        ]
    )


def weights_of(model):
    return [w.numpy() for w in model.get_weights()]


# ------------------------------------------------------------------------- compile
def functional(units=1, input_dim=1):
    inp = L.input(shape=[input_dim])
    return L.models.model(
        inputs=inp, outputs=L.dense(units=units, kernel_initializer="zeros").apply(inp)
    )


def test_bad_compile_leaves_the_model_as_it_was(cleanup):
    # (A Sequential rebuilds its inner model on every compile, as in TF.js.)
    model = cleanup(functional())
    opt = cleanup(tf.train.sgd(0.1))
    model.compile(optimizer=opt, loss="mse", metrics=["mae"])
    before = tf.memory().num_tensors
    for kwargs, error in [
        (dict(optimizer="adam", loss="nope"), "Unknown loss nope"),
        (dict(optimizer="adam", loss="mse", metrics=["f1"]), "Unknown metric f1"),
        (dict(optimizer="nadam", loss="mse"), "Unknown optimizer nadam"),
        (dict(optimizer=opt, loss="mse", metrics={"nope": "mae"}), "Unknown entry in metrics"),
        (dict(optimizer=opt, loss=3), "A loss must be a string name or a function"),
        (dict(optimizer=opt, loss=None), "When passing an Array as loss"),
    ]:
        with pytest.raises(LayersValueError, match=error):
            model.compile(**kwargs)
        assert model.optimizer is opt and model.metrics_names == ["loss", "mae"]
    assert tf.memory().num_tensors == before  # no optimizer was made for a failed compile
    with pytest.raises(LayersValueError, match="did you mean 'loss'"):
        model.compile(optimizer=opt, los="mse")


def test_recompiling_disposes_the_owned_optimizer():
    model = functional()
    x, y = tf.ones([4, 1]), tf.ones([4, 1])
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, y, verbose=0)  # Adam: accBeta1, accBeta2, m and v for 2 weights
    before = tf.memory().num_tensors
    old = model.optimizer
    model.compile(optimizer="sgd", loss="mse")
    assert tf.memory().num_tensors == before - 6 + 1  # Adam's 6 freed, SGD's -lr scalar made
    assert model.optimizer is not old and model.is_optimizer_owned
    mine = tf.train.sgd(0.5)
    model.compile(optimizer=mine, loss="mse")
    assert not model.is_optimizer_owned
    model.compile(optimizer=mine, loss="mae")  # a user optimizer is never disposed
    assert model.dispose().num_disposed_variables == 2
    mine.dispose()


def test_loss_list_and_function_and_missing_dict_entry(cleanup):
    inp = L.input(shape=[2])
    a = L.dense(units=1, name="a").apply(inp)
    b = L.dense(units=2, name="b").apply(inp)
    model = cleanup(L.models.model(inputs=inp, outputs=[a, b]))

    def half_mse(y_true, y_pred):
        return tf.mul(0.5, LS.mean_squared_error(y_true, y_pred))

    model.compile(optimizer="sgd", loss=["mse", half_mse], metrics=["mae", M.mean_squared_error])
    assert model.metrics_names == [
        "loss",
        "a_loss",
        "b_loss",
        "a_mae",
        "a_meanSquaredError",
        "b_mae",
        "b_meanSquaredError",
    ]
    x, ya, yb = tf.ones([4, 2]), tf.zeros([4, 1]), tf.zeros([4, 2])
    values = model.train_on_batch(x, [ya, yb])
    assert values[0] == pytest.approx(values[1] + values[2], rel=1e-6)
    assert values[4] == pytest.approx(values[1], rel=1e-6) and values[6] == pytest.approx(
        2 * values[2], rel=1e-6
    )
    with pytest.warns(UserWarning, match='Output "b" is missing from loss dictionary'):
        model.compile(optimizer="sgd", loss={"a": "mse"})
    with pytest.raises(LayersValueError, match="one entry per model output"):
        model.compile(optimizer="sgd", loss=["mse"])


def test_losses_and_metrics_by_name():
    assert LS.get("meanSquaredError") is LS.get("mean_squared_error") is LS.get("mse")
    assert LS.get("kullbackLeiblerDivergence") is LS.get("kld") is LS.get("kl_divergence")
    assert LS.get(LS.hinge) is LS.hinge
    with pytest.raises(LayersValueError, match="Unknown loss huber"):
        LS.get("huber")
    assert M.get("binaryAccuracy") is M.get("binary_accuracy") is M.binary_accuracy
    assert M.get("recall") is M.recall and M.get("MAE") is LS.mean_absolute_error
    with pytest.raises(LayersValueError, match="Unknown metric None"):
        M.get(None)
    assert M.get_loss_or_metric_name(LS.mean_squared_error) == "meanSquaredError"
    assert M.get_loss_or_metric_name(M.recall) == "recall"
    assert M.get_loss_or_metric_name("mse") == "mse"

    def my_metric(y_true, y_pred):
        return tf.sub(y_true, y_pred)

    assert M.get_loss_or_metric_name(my_metric) == "my_metric"
    with pytest.raises(LayersNotImplementedError):
        M.top_k_categorical_accuracy(tf.ones([1, 2]), tf.ones([1, 2]))
    with pytest.raises(LayersValueError, match="must have the same shape"):
        LS.sigmoid_cross_entropy_with_logits(tf.ones([2]), tf.ones([3]))


def test_accuracy_resolution_and_sparse_rank1_labels(cleanup):
    model = cleanup(dense_model(units=3, activation="softmax", input_dim=2, kernel="glorotUniform"))
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    assert model.model.metrics_tensors[0][0] is M.sparse_categorical_accuracy
    loss, acc = model.train_on_batch(tf.ones([4, 2]), tf.tensor1d([0, 1, 2, 1]))
    assert isinstance(loss, float) and acc in (0.0, 0.25, 0.5, 0.75, 1.0)


# ---------------------------------------------------------------------------- fit
def test_fit_uncompiled_and_bad_arguments(cleanup):
    model = cleanup(
        L.models.model(inputs=(i := L.input(shape=[1])), outputs=L.dense(units=1).apply(i))
    )
    x = tf.ones([4, 1])
    with pytest.raises(
        LayersRuntimeError, match="You must compile a model before training/testing"
    ):
        model.fit(x, x, verbose=0)
    with pytest.raises(LayersRuntimeError, match="You must compile a model"):
        model.train_on_batch(x, x)
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(LayersValueError, match="'batchSize' \\(did you mean 'batch_size'\\?\\)"):
        model.fit(x, x, batchSize=2)
    with pytest.raises(LayersValueError, match="validation_split must be a number in \\[0, 1\\)"):
        model.fit(x, x, validation_split=1.5, verbose=0)
    with pytest.raises(LayersValueError, match="epochs must be a non-negative integer"):
        model.fit(x, x, epochs=2.5, verbose=0)
    with pytest.raises(LayersValueError, match="verbose must be 0, 1 or 2"):
        model.fit(x, x, verbose=-1)
    with pytest.raises(LayersNotImplementedError, match="steps_per_epoch mode"):
        model.fit(x, x, steps_per_epoch=2, verbose=0)
    with pytest.raises(LayersValueError, match="Expected tensor to be at least 1D"):
        model.fit(tf.scalar(1), tf.scalar(1), verbose=0)
    assert not model.is_training


def test_zero_epochs_and_initial_epoch_past_the_end(cleanup):
    model = cleanup(dense_model())
    model.compile(optimizer="sgd", loss="mse")
    before = weights_of(model)
    h = model.fit(tf.ones([2, 1]), tf.ones([2, 1]), epochs=3, initial_epoch=3, verbose=0)
    assert h.epoch == [] and h.history == {}
    h = model.fit(tf.ones([2, 1]), tf.ones([2, 1]), epochs=0, verbose=0)
    assert h.epoch == []
    np.testing.assert_array_equal(before[0], weights_of(model)[0])


def recording_mse(seen):
    def loss(y_true, y_pred):
        seen.append(sorted(int(v) for v in y_true.data_sync()))
        return LS.mean_squared_error(y_true, y_pred)

    return loss


@pytest.mark.parametrize("shuffle", [False, True])
def test_validation_split_is_the_last_samples_taken_before_shuffling(shuffle, cleanup):
    seen = []
    model = cleanup(dense_model())
    model.compile(optimizer=cleanup(tf.train.sgd(0.001)), loss=recording_mse(seen))
    x = tf.tensor2d([[float(i)] for i in range(10)])
    y = tf.tensor2d([[float(i)] for i in range(10)])
    checks = []

    def on_epoch_end(epoch, logs):
        # val_loss equals the loss on the last 2 samples at the end of the epoch.
        val = model.evaluate(x.slice([8, 0], [2, 1]), y.slice([8, 0], [2, 1]))
        checks.append((logs["val_loss"], val.array_sync()))
        val.dispose()

    model.fit(
        x,
        y,
        epochs=3,
        batch_size=4,
        shuffle=shuffle,
        validation_split=0.2,
        verbose=0,
        callbacks={"on_epoch_end": on_epoch_end},
    )
    # Per epoch: two training batches (samples 0-7 in some order), then the validation batch.
    for epoch in range(3):
        train, val = seen[epoch * 4 : epoch * 4 + 2], seen[epoch * 4 + 2]
        assert sorted(train[0] + train[1]) == list(range(8))
        assert val == [8, 9]
        if not shuffle:
            assert train == [[0, 1, 2, 3], [4, 5, 6, 7]]
    for logged, direct in checks:
        assert logged == pytest.approx(direct, rel=1e-6)


def test_shuffle_changes_the_batches(cleanup):
    seen = []
    model = cleanup(dense_model())
    model.compile(optimizer=cleanup(tf.train.sgd(0.0)), loss=recording_mse(seen))
    x = tf.tensor2d([[float(i)] for i in range(12)])
    model.fit(x, x, epochs=6, batch_size=4, verbose=0)
    epochs = [tuple(map(tuple, seen[i : i + 3])) for i in range(0, 18, 3)]
    assert len(set(epochs)) > 1
    assert all(sorted(sum(map(list, e), [])) == list(range(12)) for e in epochs)


def test_sample_weight_scales_the_step_and_class_weight_matches_it(cleanup):
    x = tf.tensor2d([[1.0], [2.0], [-1.0], [0.5]])
    y = tf.tensor2d([[1.0], [0.0], [1.0], [0.0]])

    def trained(lr, **kw):
        model = cleanup(dense_model(kernel="ones"))
        model.compile(optimizer=cleanup(tf.train.sgd(lr)), loss="mse")
        loss = model.train_on_batch(x, y, **kw)
        return loss, weights_of(model)

    plain_loss, plain = trained(0.2)
    doubled_loss, doubled = trained(0.1, sample_weight=tf.tensor1d([2, 2, 2, 2]))
    assert doubled_loss == pytest.approx(2 * plain_loss, rel=1e-6)
    for a, b in zip(plain, doubled, strict=False):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    _, by_sample = trained(0.1, sample_weight=[1.0, 3.0, 1.0, 3.0])
    _, by_class = trained(0.1, class_weight={1: 1.0, 0: 3.0})
    for a, b in zip(by_sample, by_class, strict=False):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    model = cleanup(dense_model())
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(
        LayersValueError, match="The class 0 exists in the data but not in class_weight"
    ):
        model.fit(x, y, class_weight={1: 1.0}, verbose=0)
    with pytest.raises(LayersValueError, match="one weight per sample"):
        model.fit(x, y, sample_weight=[1.0, 2.0], verbose=0)
    before = tf.memory().num_tensors
    model.fit(
        x,
        y,
        sample_weight=np.array([1, 2, 3, 4], np.float32),
        class_weight={0: 1, 1: 2},
        validation_split=0.25,
        verbose=0,
        epochs=2,
    )
    assert tf.memory().num_tensors == before


def test_evaluate_forms_and_verbose(capsys, cleanup):
    model = cleanup(dense_model(kernel="ones"))
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    x = np.array([[1.0], [2.0]], np.float32)
    before = tf.memory().num_tensors
    result = model.evaluate(x, [[0.0], [0.0]], verbose=1)
    assert [r.array_sync() for r in result] == pytest.approx([2.5, 1.5])
    assert tf.memory().num_tensors == before + 2
    assert capsys.readouterr().out == "loss: 2.5000 - mae: 1.5000\n"
    tf.dispose(result)
    with pytest.raises(LayersNotImplementedError, match="sample_weight"):
        model.evaluate(x, x, sample_weight=[1, 1])


def test_fit_on_an_owned_adam_then_dispose_counts():
    model = dense_model(input_dim=2)
    model.compile(optimizer="adam", loss="mse")
    model.fit(tf.zeros([4, 2]), tf.zeros([4, 1]), verbose=0)
    result = model.dispose()
    assert (result.ref_count_after_dispose, result.num_disposed_variables) == (0, 8)


# ------------------------------------------------------------------------ datasets
class Batches:
    """An iterable of ``[xs, ys]`` NumPy batches, or of tensor dicts; counts iterators."""

    def __init__(self, n_batches=3, as_numpy=False, endless=False):
        self.n = n_batches
        self.as_numpy = as_numpy
        self.endless = endless
        self.iterators = 0
        self.closed = 0
        self.made = []

    def iterator(self):
        self.iterators += 1
        outer = self

        class It:
            def __init__(self):
                self.i = 0

            def __iter__(self):
                return self

            def __next__(self):
                if not outer.endless and self.i >= outer.n:
                    raise StopIteration
                self.i += 1
                x = np.full((2, 1), self.i, np.float32)
                if outer.as_numpy:
                    return [x, 2 * x]
                xs, ys = tf.tensor(x), tf.tensor(2 * x)
                outer.made += [xs, ys]
                return {"xs": xs, "ys": ys}

            def close(self):
                outer.closed += 1

        return It()


def test_fit_dataset_numpy_batches_and_epochs(cleanup):
    model = cleanup(dense_model())
    model.compile(optimizer=cleanup(tf.train.sgd(0.01)), loss="mse")
    ds = Batches(as_numpy=True)
    before = tf.memory().num_tensors
    h = model.fit_dataset(ds, epochs=2, verbose=0)
    assert tf.memory().num_tensors == before
    assert ds.iterators == 2 and h.epoch == [0, 1]
    assert h.params["steps"] is None and h.params["samples"] is None


def test_fit_dataset_batches_per_epoch_keeps_one_stream_and_closes_it(cleanup):
    model = cleanup(dense_model())
    model.compile(optimizer=cleanup(tf.train.sgd(0.01)), loss="mse")
    ds = Batches(endless=True)
    h = model.fit_dataset(ds, epochs=3, batches_per_epoch=2, verbose=0)
    assert ds.iterators == 1 and ds.closed == 1 and len(h.epoch) == 3
    assert len(ds.made) == 12 and all(t.is_disposed for t in ds.made)
    short = Batches(n_batches=3)
    with pytest.warns(UserWarning, match="ran out of data after 1 batches"):
        h = model.fit_dataset(short, epochs=2, batches_per_epoch=2, verbose=0)
    assert h.epoch == [0, 1]


def test_fit_dataset_with_dataset_validation_and_evaluate_dataset_batches(cleanup):
    model = cleanup(dense_model())
    model.compile(optimizer=cleanup(tf.train.sgd(0.01)), loss="mse", metrics=["mae"])
    before = tf.memory().num_tensors
    h = model.fit_dataset(
        Batches(), epochs=2, verbose=0, validation_data=Batches(), validation_batches=2
    )
    assert list(h.history) == ["val_loss", "val_mae", "loss", "mae"]  # TF.js's order
    assert tf.memory().num_tensors == before
    loss, mae = model.evaluate_dataset(Batches(n_batches=2))
    full = model.evaluate(tf.tensor2d([[1], [1], [2], [2]]), tf.tensor2d([[2], [2], [4], [4]]))
    assert loss.array_sync() == pytest.approx(full[0].array_sync(), rel=1e-6)
    with pytest.warns(UserWarning, match="ran out of data during evaluate_dataset"):
        model.evaluate_dataset(Batches(n_batches=1), batches=3)
    it = Batches(n_batches=5).iterator()
    model.evaluate_dataset(it, batches=2)  # an iterator is read where it stands
    assert it.i == 2


def test_fit_dataset_errors(cleanup):
    model = cleanup(dense_model())
    with pytest.raises(LayersRuntimeError, match="compile"):
        model.fit_dataset(Batches(), epochs=1)
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(LayersValueError, match="epochs is expected to be a positive integer"):
        model.fit_dataset(Batches(), epochs=0)
    with pytest.raises(LayersValueError, match="batches_per_epoch is expected to be a positive"):
        model.fit_dataset(Batches(), epochs=1, batches_per_epoch=-1)
    with pytest.raises(
        LayersValueError, match="`validation_split` is not supported by `fit_dataset"
    ):
        model.fit_dataset(Batches(), epochs=1, validation_split=0.2)
    with pytest.raises(LayersValueError, match="expected to generate objects of the form"):
        model.fit_dataset([tf.ones([2, 1])], epochs=1, verbose=0)
    with pytest.raises(LayersValueError, match="lacks the required input key"):
        model.fit_dataset(
            [{"xs": {"nope": tf.ones([2, 1])}, "ys": tf.ones([2, 1])}], epochs=1, verbose=0
        )
    with pytest.raises(LayersValueError, match="Batch size mismatch"):
        model.fit_dataset([(tf.ones([2, 1]), tf.ones([3, 1]))], epochs=1, verbose=0)
    with pytest.raises(LayersValueError, match="the dataset produced no batches"):
        model.evaluate_dataset([])
    assert not model.model.is_training
    with pytest.raises(LayersRuntimeError, match="You must compile a model"):
        functional().fit_dataset(Batches(), epochs=1)


# ---------------------------------------------------------------------------- iris
def test_iris_data():
    iris = load_iris()
    assert np.bincount(iris.target).tolist() == [50, 50, 50]
    assert iris.target[:50].tolist() == [0] * 50 and iris.target[100:].tolist() == [2] * 50
    rows = {
        0: [5.1, 3.5, 1.4, 0.2],
        50: [7.0, 3.2, 4.7, 1.4],
        100: [6.3, 3.3, 6.0, 2.5],
        149: [5.9, 3.0, 5.1, 1.8],
        34: [4.9, 3.1, 1.5, 0.2],
        37: [4.9, 3.6, 1.4, 0.1],
    }
    for i, row in rows.items():
        np.testing.assert_allclose(iris.data[i], row, rtol=1e-6)
    # Fisher's per-species column sums.
    sums = [
        np.round(iris.data[iris.target == k].astype(np.float64).sum(axis=0), 1).tolist()
        for k in range(3)
    ]
    assert sums == [
        [250.3, 171.4, 73.1, 12.3],
        [296.8, 138.5, 213.0, 66.3],
        [329.4, 148.7, 277.6, 101.3],
    ]
    assert iris_csv_path().read_text().splitlines()[0] == (
        "sepal_length,sepal_width,petal_length,petal_width,species"
    )


def test_iris_demo_reaches_90_percent():
    from tidytensor import demo

    assert demo.iris_training_demo(epochs=30) >= 0.9


def test_inputs_and_targets_by_name(cleanup):
    inp = L.input(shape=[2], name="features")
    out = L.dense(units=1, name="score", kernel_initializer="ones").apply(inp)
    model = cleanup(L.models.model(inputs=inp, outputs=out))
    model.compile(optimizer=cleanup(tf.train.sgd(0.1)), loss={"score": "mse"})
    x = np.ones((4, 2), np.float32)
    by_name = model.evaluate({"features": x}, {"score": np.zeros((4, 1), np.float32)})
    assert by_name.array_sync() == pytest.approx(4.0)
    by_name.dispose()
    before = tf.memory().num_tensors
    model.fit({"features": x}, {"score": np.zeros((4, 1), np.float32)}, verbose=0)
    assert tf.memory().num_tensors == before
    with pytest.raises(LayersValueError, match='No data provided for "features"'):
        model.fit({"other": x}, np.zeros((4, 1)), verbose=0)
