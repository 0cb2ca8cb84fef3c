// Runs TF.js 4.22.0's Layers training (cpu backend) on small fixed-weight models and writes
// results/layers_training.json, which tests/layers/test_training_golden.py replays with
// tidytensor. Run: cd tests/golden && node layers_training.js
//
// Every model is a stack of dense layers given as a spec ({units, activation, useBias,
// regularizer}), built with tf.sequential or (for two outputs) tf.model, and its weights are
// set from deterministic values (stored in the JSON), so both sides start identical. Data
// are deterministic too (stored). Sections:
//   train_on_batch: one SGD step per Layers loss (weights after the step, returned values,
//                   tensor count change);
//   fit:            histories of fit(..., shuffle: false) for several optimizers, metrics,
//                   validation split / data, class weights, initial epoch, multiple outputs;
//   evaluate:       evaluate() values in batches;
//   metrics:        tf.metrics.* on fixed inputs;
//   names:          metricsNames for several compile configurations;
//   optimizers:     the optimizer a string makes in compile (class and config);
//   memory:         counts around predict / fit / trainOnBatch / evaluate / dispose;
//   fit_dataset:    fitDataset / evaluateDataset on a small batched dataset;
//   errors:         TF.js's messages for bad calls.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

function counts() {
  const m = tf.memory();
  return [m.numTensors, m.numDataBuffers];
}
function delta(base) {
  const [t, d] = counts();
  return [t - base[0], d - base[1]];
}
const { arr, seq, reshape } = require('./golden_values');

// Weight values for a spec: kernel [inDim, units] and bias [units] per layer.
function weightValues(inputDim, layers, seed) {
  const values = [];
  let dim = inputDim;
  layers.forEach((l, i) => {
    values.push({shape: [dim, l.units], values: seq(dim * l.units, seed + i * 2 + 1, 0.6)});
    if (l.useBias !== false) values.push({shape: [l.units], values: seq(l.units, seed + i * 2 + 2, 0.2)});
    dim = l.units;
  });
  return values;
}

function buildSequential(inputDim, layers) {
  const model = tf.sequential();
  layers.forEach((l, i) => {
    const args = {units: l.units, activation: l.activation || 'linear', useBias: l.useBias !== false};
    if (i === 0) args.inputShape = [inputDim];
    if (l.regularizer) args.kernelRegularizer = tf.regularizers.l1l2(l.regularizer);
    model.add(tf.layers.dense(args));
  });
  return model;
}

// Two-output functional model: shared dense trunk, two heads.
function buildTwoHeads(spec) {
  const input = tf.input({shape: [spec.inputDim]});
  const trunk = tf.layers.dense({units: spec.trunk.units, activation: spec.trunk.activation}).apply(input);
  const outs = spec.heads.map((h) =>
    tf.layers.dense({units: h.units, activation: h.activation, name: h.name}).apply(trunk));
  return tf.model({inputs: input, outputs: outs});
}

function setWeights(model, weights) {
  const ts = weights.map((w) => tf.tensor(w.values, w.shape));
  model.setWeights(ts);
  tf.dispose(ts);
}

function makeOptimizer(o) {
  if (typeof o === 'string') return o;
  return tf.train[o.name](...o.args);
}

function toTensors(d) {
  if (Array.isArray(d) && d.length && d[0] && d[0].shape) return d.map((t) => tf.tensor(t.values, t.shape, t.dtype));
  if (d && d.shape) return tf.tensor(d.values, d.shape, d.dtype);
  if (d && typeof d === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(d)) out[k] = toTensors(v);
    return out;
  }
  return d;
}

// ------------------------------------------------------------------------- scenarios
const N = 10;
const X3 = {values: seq(N * 3, 11, 1.5), shape: [N, 3]};
function onehot(labels, k) {
  const v = [];
  labels.forEach((l) => { for (let j = 0; j < k; j++) v.push(j === l ? 1 : 0); });
  return v;
}
const LABELS = [0, 2, 1, 1, 0, 2, 2, 1, 0, 1];
const Y_ONEHOT = {values: onehot(LABELS, 3), shape: [N, 3]};
const Y_SPARSE = {values: LABELS, shape: [N]};
const Y_SPARSE2 = {values: LABELS, shape: [N, 1]};
const Y_BIN = {values: [1, 0, 0, 1, 1, 0, 1, 0, 0, 1], shape: [N, 1]};
const Y_PM1 = {values: [1, -1, -1, 1, 1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, -1, -1, 1, -1, 1], shape: [N, 2]};
const Y_REG = {values: seq(N * 2, 5, 2), shape: [N, 2]};
const Y_POS = {values: seq(N * 2, 6, 1).map((v) => Number((Math.abs(v) + 0.1).toFixed(4))), shape: [N, 2]};
const Y_PROB = {values: (() => {
  const raw = seq(N * 3, 8, 1).map((v) => Math.abs(v) + 0.05);
  const out = [];
  for (let i = 0; i < N; i++) {
    const s = raw[3 * i] + raw[3 * i + 1] + raw[3 * i + 2];
    for (let j = 0; j < 3; j++) out.push(Number((raw[3 * i + j] / s).toFixed(5)));
  }
  return out;
})(), shape: [N, 3]};

const HIDDEN = {units: 4, activation: 'tanh'};
const TOB = [
  // [loss, output layer, targets, metrics]
  ['meanSquaredError', {units: 2}, Y_REG, ['mse', 'mae']],
  ['meanAbsoluteError', {units: 2}, Y_REG, ['mape']],
  ['meanAbsolutePercentageError', {units: 2}, Y_REG, []],
  ['meanSquaredLogarithmicError', {units: 2, activation: 'softplus'}, Y_POS, []],
  ['squaredHinge', {units: 2}, Y_PM1, []],
  ['hinge', {units: 2}, Y_PM1, []],
  ['categoricalHinge', {units: 3}, Y_ONEHOT, ['acc']],
  ['logcosh', {units: 2}, Y_REG, []],
  ['categoricalCrossentropy', {units: 3, activation: 'softmax'}, Y_ONEHOT, ['accuracy', 'crossentropy']],
  ['sparseCategoricalCrossentropy', {units: 3, activation: 'softmax'}, Y_SPARSE, ['acc', 'ce']],
  ['binaryCrossentropy', {units: 1, activation: 'sigmoid'}, Y_BIN, ['accuracy', 'ce', 'precision']],
  ['kullbackLeiblerDivergence', {units: 3, activation: 'softmax'}, Y_PROB, []],
  ['poisson', {units: 2, activation: 'softplus'}, Y_POS, []],
  ['cosineProximity', {units: 2}, Y_REG, ['cosine']],
];

async function trainOnBatchCases() {
  const out = [];
  for (const [loss, head, y, metrics] of TOB) {
    const layers = [HIDDEN, head];
    const weights = weightValues(3, layers, 3);
    const model = buildSequential(3, layers);
    setWeights(model, weights);
    model.compile({optimizer: tf.train.sgd(0.1), loss, metrics});
    const xs = toTensors(X3);
    const ys = toTensors(y);
    const base = counts();
    const result = await model.trainOnBatch(xs, ys);
    const mem = delta(base);
    out.push({
      loss, layers, weights, x: X3, y, metrics, metrics_names: model.metricsNames, result,
      mem, weights_after: model.getWeights().map(arr),
    });
    tf.dispose([xs, ys]);
    model.dispose();
  }
  return out;
}

const FITS = [
  {name: 'categorical_sgd_split', layers: [HIDDEN, {units: 3, activation: 'softmax'}], y: Y_ONEHOT,
    optimizer: {name: 'sgd', args: [0.5]}, loss: 'categoricalCrossentropy', metrics: ['acc'],
    fit: {epochs: 3, batchSize: 4, shuffle: false, validationSplit: 0.2}},
  {name: 'categorical_adam_valdata', layers: [HIDDEN, {units: 3, activation: 'softmax'}], y: Y_ONEHOT,
    optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['accuracy', 'ce'],
    fit: {epochs: 4, batchSize: 3, shuffle: false}, validation: {x: {values: seq(12, 21, 1.2), shape: [4, 3]},
      y: {values: onehot([1, 0, 2, 1], 3), shape: [4, 3]}}},
  {name: 'binary_rmsprop_classweight', layers: [HIDDEN, {units: 1, activation: 'sigmoid'}], y: Y_BIN,
    optimizer: 'rmsprop', loss: 'binaryCrossentropy', metrics: ['accuracy'],
    fit: {epochs: 3, batchSize: 5, shuffle: false, classWeight: {0: 1, 1: 3}}},
  {name: 'sparse_adagrad', layers: [HIDDEN, {units: 3, activation: 'softmax'}], y: Y_SPARSE,
    optimizer: 'adagrad', loss: 'sparseCategoricalCrossentropy', metrics: ['acc'],
    fit: {epochs: 3, batchSize: 4, shuffle: false, validationSplit: 0.3}},
  {name: 'regression_adamax_initial_epoch', layers: [{units: 2}], y: Y_REG,
    optimizer: 'adamax', loss: 'meanSquaredError', metrics: ['mae', 'MAPE'],
    fit: {epochs: 4, initialEpoch: 1, batchSize: 4, shuffle: false}},
  {name: 'regression_adadelta_regularized', layers: [{units: 3, activation: 'relu', regularizer: {l1: 0.01, l2: 0.02}}, {units: 2}],
    y: Y_REG, optimizer: 'adadelta', loss: 'meanAbsoluteError', metrics: [],
    fit: {epochs: 3, batchSize: 10, shuffle: false}},
  {name: 'momentum_sgd_string', layers: [HIDDEN, {units: 2}], y: Y_REG,
    optimizer: {name: 'momentum', args: [0.05, 0.9]}, loss: 'meanSquaredError', metrics: ['mse'],
    fit: {epochs: 2, batchSize: 3, shuffle: false, validationSplit: 0.25}},
  {name: 'sgd_string', layers: [HIDDEN, {units: 2}], y: Y_REG,
    optimizer: 'sgd', loss: 'meanSquaredError', metrics: [],
    fit: {epochs: 2, batchSize: 32, shuffle: false}},
];

async function fitCases() {
  const out = [];
  for (const c of FITS) {
    const weights = weightValues(3, c.layers, 7);
    const model = buildSequential(3, c.layers);
    setWeights(model, weights);
    model.compile({optimizer: makeOptimizer(c.optimizer), loss: c.loss, metrics: c.metrics});
    const xs = toTensors(X3);
    const ys = toTensors(c.y);
    const args = Object.assign({verbose: 0}, c.fit);
    let vx;
    let vy;
    if (c.validation) {
      vx = toTensors(c.validation.x);
      vy = toTensors(c.validation.y);
      args.validationData = [vx, vy];
    }
    const base = counts();
    const h = await model.fit(xs, ys, args);
    const firstFit = delta(base);
    const base2 = counts();
    await model.fit(xs, ys, args);
    const secondFit = delta(base2);
    out.push(Object.assign({}, c, {
      weights, x: X3, history: h.history, epoch: h.epoch, params: h.params,
      weights_after_first: null, mem_first: firstFit, mem_second: secondFit,
      weights_after: model.getWeights().map(arr),
    }));
    tf.dispose([xs, ys, vx, vy].filter((t) => t));
    model.dispose();
  }
  // Two outputs: loss by dict, metrics for every output.
  const spec = {inputDim: 3, trunk: {units: 4, activation: 'tanh'},
    heads: [{units: 2, activation: 'linear', name: 'reg'}, {units: 3, activation: 'softmax', name: 'cls'}]};
  const model = buildTwoHeads(spec);
  const weights = weightValues(3, [spec.trunk, spec.heads[0]], 9).concat(weightValues(4, [spec.heads[1]], 13));
  setWeights(model, weights);
  model.compile({optimizer: tf.train.sgd(0.2), loss: {reg: 'meanSquaredError', cls: 'categoricalCrossentropy'},
    metrics: {reg: ['mae'], cls: ['acc']}});
  const xs = toTensors(X3);
  const ys = [toTensors(Y_REG), toTensors(Y_ONEHOT)];
  const h = await model.fit(xs, ys, {epochs: 2, batchSize: 4, shuffle: false, verbose: 0, validationSplit: 0.2});
  const ev = model.evaluate(xs, ys, {batchSize: 4});
  out.push({name: 'two_outputs', two_heads: spec, weights, x: X3, ys: [Y_REG, Y_ONEHOT],
    optimizer: {name: 'sgd', args: [0.2]}, loss: {reg: 'meanSquaredError', cls: 'categoricalCrossentropy'},
    metrics: {reg: ['mae'], cls: ['acc']}, fit: {epochs: 2, batchSize: 4, shuffle: false, validationSplit: 0.2},
    metrics_names: model.metricsNames, history: h.history, epoch: h.epoch,
    evaluate: ev.map((t) => t.dataSync()[0]), weights_after: model.getWeights().map(arr)});
  tf.dispose([xs, ...ys, ...ev]);
  model.dispose();
  return out;
}

async function evaluateCases() {
  const layers = [HIDDEN, {units: 3, activation: 'softmax'}];
  const weights = weightValues(3, layers, 17);
  const model = buildSequential(3, layers);
  setWeights(model, weights);
  model.compile({optimizer: 'sgd', loss: 'categoricalCrossentropy', metrics: ['acc', 'ce']});
  const xs = toTensors(X3);
  const ys = toTensors(Y_ONEHOT);
  const base = counts();
  const r = model.evaluate(xs, ys, {batchSize: 3});
  const mem = delta(base);
  const values = r.map((t) => t.dataSync()[0]);
  tf.dispose(r);
  const single = buildSequential(3, [{units: 2}]);
  setWeights(single, weightValues(3, [{units: 2}], 19));
  single.compile({optimizer: 'sgd', loss: 'meanSquaredError'});
  const yr = toTensors(Y_REG);
  const s = single.evaluate(xs, yr, {batchSize: 4});
  const out = [{layers, weights, x: X3, y: Y_ONEHOT, loss: 'categoricalCrossentropy',
    metrics: ['acc', 'ce'], batchSize: 3, values, mem},
  {layers: [{units: 2}], weights: weightValues(3, [{units: 2}], 19), x: X3, y: Y_REG,
    loss: 'meanSquaredError', metrics: [], batchSize: 4, values: [s.dataSync()[0]], scalar: s.rank === 0}];
  tf.dispose([xs, ys, yr, s]);
  model.dispose();
  single.dispose();
  return out;
}

function metricCases() {
  const yt = {values: [0, 1, 1, 0, 1, 0, 0, 1, 1], shape: [3, 3]};
  const yp = {values: [0.2, 0.7, 0.6, 0.4, 0.9, 0.1, 0.3, 0.2, 0.8], shape: [3, 3]};
  const bt = {values: [1, 0, 1, 1, 0, 0], shape: [6]};
  const bp = {values: [1, 0, 0, 1, 1, 0], shape: [6]};
  const st = {values: [2, 0, 1], shape: [3]};
  const rt = {values: [1.5, -2, 3, 0.5, 1, 2], shape: [3, 2]};
  const rp = {values: [1, -1.5, 2.5, 1, 0.5, 2.5], shape: [3, 2]};
  const cases = [
    ['binaryAccuracy', yt, yp], ['binaryCrossentropy', yt, yp], ['categoricalAccuracy', yt, yp],
    ['categoricalCrossentropy', yt, yp], ['sparseCategoricalAccuracy', st, yp],
    ['precision', bt, bp], ['recall', bt, bp], ['precision', {values: [0, 0], shape: [2]}, {values: [0, 0], shape: [2]}],
    ['cosineProximity', rt, rp], ['meanAbsoluteError', rt, rp], ['meanAbsolutePercentageError', rt, rp],
    ['MAPE', rt, rp], ['mape', rt, rp], ['meanSquaredError', rt, rp], ['MSE', rt, rp], ['mse', rt, rp],
    ['r2Score', rt, rp],
  ];
  return cases.map(([name, a, b]) => {
    const ta = toTensors(a);
    const tb = toTensors(b);
    const r = tf.metrics[name](ta, tb);
    const res = {name, y_true: a, y_pred: b, shape: r.shape, values: arr(r)};
    tf.dispose([ta, tb, r]);
    return res;
  });
}

function nameCases() {
  const configs = [
    {loss: 'categoricalCrossentropy', units: 3, metrics: ['accuracy', 'acc', 'crossentropy', 'ce']},
    {loss: 'binaryCrossentropy', units: 2, metrics: ['accuracy']},
    {loss: 'meanSquaredError', units: 1, metrics: ['accuracy', 'crossentropy']},
    {loss: 'meanSquaredError', units: 2, metrics: ['mse', 'MAE', 'mape', 'cosine', 'precision']},
    {loss: 'meanSquaredError', units: 2, metrics: ['mse', 'mse']},
    {loss: 'meanSquaredError', units: 2, metrics: 'mae'},
  ];
  return configs.map((c) => {
    const m = buildSequential(3, [{units: c.units}]);
    m.compile({optimizer: 'sgd', loss: c.loss, metrics: c.metrics});
    const r = Object.assign({}, c, {metrics_names: m.metricsNames});
    m.dispose();
    return r;
  });
}

function optimizerCases() {
  return ['sgd', 'SGD', 'adam', 'Adam', 'rmsprop', 'RMSProp', 'adagrad', 'Adagrad', 'adadelta',
    'Adadelta', 'adamax', 'Adamax'].map((name) => {
    const m = buildSequential(3, [{units: 1}]);
    const base = counts();
    m.compile({optimizer: name, loss: 'meanSquaredError'});
    const r = {name, class_name: m.optimizer.getClassName(), config: m.optimizer.getConfig(),
      compile_mem: delta(base)};
    m.dispose();
    return r;
  });
}

async function memoryCases() {
  const out = {};
  // M15: an Adam-string-compiled Dense(1) after one fit.
  for (const owned of [true, false]) {
    const m = tf.sequential({layers: [tf.layers.dense({units: 1, inputShape: [2]})]});
    const opt = owned ? 'adam' : tf.train.adam();
    m.compile({loss: 'meanSquaredError', optimizer: opt});
    const xs = tf.zeros([4, 2]);
    const ys = tf.zeros([4, 1]);
    const b0 = counts();
    await m.fit(xs, ys, {epochs: 1, verbose: 0});
    const firstFit = delta(b0);
    const b1 = counts();
    await m.fit(xs, ys, {epochs: 2, verbose: 0});
    const secondFit = delta(b1);
    const b2 = counts();
    const r = m.dispose();
    out[owned ? 'adam_string' : 'adam_instance'] = {first_fit: firstFit, second_fit: secondFit,
      dispose: {refCountAfterDispose: r.refCountAfterDispose, numDisposedVariables: r.numDisposedVariables},
      dispose_mem: delta(b2)};
    if (!owned) opt.dispose();
    tf.dispose([xs, ys]);
  }
  // Repeated fit with validation, metrics and callbacks; predict; trainOnBatch; evaluate.
  const layers = [HIDDEN, {units: 3, activation: 'softmax'}];
  const m = buildSequential(3, layers);
  setWeights(m, weightValues(3, layers, 23));
  m.compile({optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['acc']});
  const xs = toTensors(X3);
  const ys = toTensors(Y_ONEHOT);
  const epochCounts = [];
  const batchCounts = [];
  const b0 = counts();
  await m.fit(xs, ys, {epochs: 20, batchSize: 4, verbose: 0, validationSplit: 0.2,
    callbacks: {onEpochEnd: () => epochCounts.push(delta(b0)), onBatchEnd: () => batchCounts.push(delta(b0))}});
  out.fit20 = {layers, epoch_counts: epochCounts, batch_counts_first: batchCounts.slice(0, 3), after: delta(b0)};
  const b1 = counts();
  for (let i = 0; i < 3; i++) {
    await m.fit(xs, ys, {epochs: 2, batchSize: 4, verbose: 0, validationData: [xs, ys],
      callbacks: {onEpochEnd: () => {}, onBatchEnd: () => {}}});
  }
  out.repeat_fit = delta(b1);
  const b2 = counts();
  const p = m.predict(xs);
  out.predict = delta(b2);
  p.dispose();
  const b3 = counts();
  await m.trainOnBatch(xs, ys);
  out.train_on_batch = delta(b3);
  const b4 = counts();
  const e = m.evaluate(xs, ys);
  out.evaluate = delta(b4);
  tf.dispose(e);
  const b5 = counts();
  const r = m.dispose();
  out.dispose = {refCountAfterDispose: r.refCountAfterDispose, numDisposedVariables: r.numDisposedVariables,
    mem: delta(b5)};
  tf.dispose([xs, ys]);
  return out;
}

async function fitDatasetCases() {
  const layers = [HIDDEN, {units: 3, activation: 'softmax'}];
  const weights = weightValues(3, layers, 29);
  const m = buildSequential(3, layers);
  setWeights(m, weights);
  m.compile({optimizer: tf.train.sgd(0.3), loss: 'categoricalCrossentropy', metrics: ['acc']});
  const xRows = reshape(X3.values, X3.shape);
  const yRows = reshape(Y_ONEHOT.values, Y_ONEHOT.shape);
  const ds = tf.data.zip({xs: tf.data.array(xRows), ys: tf.data.array(yRows)}).batch(4);
  const vx = tf.tensor(seq(12, 21, 1.2), [4, 3]);
  const vy = tf.tensor(onehot([1, 0, 2, 1], 3), [4, 3]);
  const b0 = counts();
  const h = await m.fitDataset(ds, {epochs: 3, verbose: 0, validationData: [vx, vy]});
  const mem = delta(b0);
  const b1 = counts();
  const ev = await m.evaluateDataset(ds, {});
  const evMem = delta(b1);
  const out = {layers, weights, x: X3, y: Y_ONEHOT, batch: 4, validation: {x: {values: seq(12, 21, 1.2), shape: [4, 3]},
    y: {values: onehot([1, 0, 2, 1], 3), shape: [4, 3]}}, history: h.history, epoch: h.epoch, mem,
    evaluate: ev.map((t) => t.dataSync()[0]), evaluate_mem: evMem, weights_after: m.getWeights().map(arr)};
  tf.dispose([vx, vy, ...ev]);
  m.dispose();
  return out;
}

async function errorOf(fn) {
  try {
    await fn();
  } catch (e) {
    return e.message;
  }
  return null;
}

async function errorCases() {
  const out = {};
  const m = buildSequential(3, [{units: 2}]);
  const xs = toTensors(X3);
  const ys = toTensors(Y_REG);
  out.uncompiled_fit = await errorOf(() => m.fit(xs, ys, {verbose: 0}));
  out.uncompiled_evaluate = await errorOf(() => m.evaluate(xs, ys));
  out.unknown_loss = await errorOf(() => m.compile({optimizer: 'sgd', loss: 'noSuchLoss'}));
  out.softmax_loss_hint = await errorOf(() => m.compile({optimizer: 'sgd', loss: 'softmaxCrossEntropy'}));
  out.unknown_optimizer = await errorOf(() => m.compile({optimizer: 'nadam', loss: 'meanSquaredError'}));
  out.bad_optimizer = await errorOf(() => m.compile({optimizer: {}, loss: 'meanSquaredError'}));
  out.unknown_metric = await errorOf(() => m.compile({optimizer: 'sgd', loss: 'meanSquaredError', metrics: ['f1']}));
  out.loss_array_length = await errorOf(() => m.compile({optimizer: 'sgd', loss: ['meanSquaredError', 'meanSquaredError']}));
  out.loss_dict_key = await errorOf(() => m.compile({optimizer: 'sgd', loss: {nope: 'meanSquaredError'}}));
  m.compile({optimizer: 'sgd', loss: 'meanSquaredError'});
  const y9 = tf.zeros([9, 2]);
  out.xy_length = await errorOf(() => m.fit(xs, y9, {verbose: 0}));
  const y3 = tf.zeros([10, 3]);
  out.target_shape = await errorOf(() => m.fit(xs, y3, {verbose: 0}));
  const x4 = tf.zeros([10, 4]);
  out.input_shape = await errorOf(() => m.fit(x4, ys, {verbose: 0}));
  out.validation_data_3 = await errorOf(() => m.fit(xs, ys, {verbose: 0, validationData: [xs, ys, ys]}));
  out.validation_data_1 = await errorOf(() => m.fit(xs, ys, {verbose: 0, validationData: [xs]}));
  out.batch_size = await errorOf(() => m.fit(xs, ys, {verbose: 0, batchSize: 0}));
  out.shuffle_batch = await errorOf(() => m.fit(xs, ys, {verbose: 0, shuffle: 'batch'}));
  out.two_inputs = await errorOf(() => m.fit([xs, xs], ys, {verbose: 0}));
  let inner = null;
  await m.fit(xs, ys, {verbose: 0, epochs: 1, callbacks: {onEpochEnd: async () => {
    inner = await errorOf(() => m.fit(xs, ys, {verbose: 0}));
  }}});
  out.fit_ongoing = inner;
  const c = buildSequential(3, [{units: 1, activation: 'softmax'}]);
  c.compile({optimizer: 'sgd', loss: 'categoricalCrossentropy'});
  const y1 = tf.zeros([10, 1]);
  out.categorical_last_dim_1 = await errorOf(() => c.fit(xs, y1, {verbose: 0}));
  out.fit_dataset_epochs = await errorOf(() => m.fitDataset(tf.data.array([1]), {}));
  out.early_stopping_restore = await errorOf(() => tf.callbacks.earlyStopping({restoreBestWeights: true}));
  tf.dispose([xs, ys, y9, y3, x4, y1]);
  m.dispose();
  c.dispose();
  return out;
}

// A 2-output model's evaluate() in TF.js: one entry per output's running total loss before
// the metrics (so the list is one longer than metricsNames); recorded to document it.
async function main() {
  const results = {
    train_on_batch: await trainOnBatchCases(),
    fit: await fitCases(),
    evaluate: await evaluateCases(),
    metrics: metricCases(),
    names: nameCases(),
    optimizers: optimizerCases(),
    memory: await memoryCases(),
    fit_dataset: await fitDatasetCases(),
    errors: await errorCases(),
  };
  const file = path.join(__dirname, 'results', 'layers_training.json');
  fs.writeFileSync(file, JSON.stringify({tfjs: tf.version.tfjs, results}, null, 1) + '\n');
  console.log('wrote', file);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
