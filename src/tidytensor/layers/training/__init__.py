"""Training a ``LayersModel`` (TF.js's ``engine/training.ts``, ``training_tensors.ts``,
``training_utils.ts`` and ``training_dataset.ts``; Keras 3's ``trainers/``).

The model's ``compile``, ``fit``, ``evaluate``, ``train_on_batch``, ``fit_dataset`` and
``evaluate_dataset`` methods come from :class:`~.trainer.Trainer`, which calls the functions
of these modules (each takes the model first):

- ``trainer``: the ``Trainer`` mixin of ``LayersModel`` (the methods, their signatures and docs).
- ``compile``: ``compile``, optimizer names, losses and metrics.
- ``inputs``: standardizing ``x``, ``y``, sample and class weights.
- ``steps``: the train and test step functions, ``train_on_batch``, the test loop.
- ``loops``: ``fit`` and ``evaluate`` over in-memory tensors.
- ``dataset_loops``: ``fit_dataset`` and ``evaluate_dataset``.
- ``args``: argument checks (unknown keywords, ``verbose``, ``epochs``).
- ``callbacks/``: ``Callback``, ``History``, ``EarlyStopping``... and ``progress``: the
  progress bar of ``verbose=1``.

Memory, as in TF.js: ``fit`` and ``evaluate`` run every batch inside ``tf.tidy``; repeated
``fit`` calls leave no tensor behind (with validation, metrics and callbacks); the first step
of an optimizer creates its state (Adam: two tensors per trainable weight);
``train_on_batch`` returns plain numbers and adds no tensor; ``evaluate`` returns new scalars
(the caller disposes them). Logs handed to callbacks hold Python numbers.

>>> import tidytensor.layers as layers
>>> model = tf.sequential([layers.dense(units=1, input_shape=[1], kernel_initializer='zeros')])
>>> model.compile(optimizer=tf.train.sgd(0.1), loss='meanSquaredError')
>>> xs, ys = tf.tensor2d([[1], [2], [3]]), tf.tensor2d([[2], [4], [6]])
>>> before = tf.memory().num_tensors
>>> history = model.fit(xs, ys, epochs=3, batch_size=3, shuffle=False, verbose=0)
>>> [round(v, 4) for v in history.history['loss']]
[18.6667, 0.2963, 0.0734]
>>> tf.memory().num_tensors - before
0
"""
