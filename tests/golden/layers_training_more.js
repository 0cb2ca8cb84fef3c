// Runs more TF.js 4.22.0 Layers training scenarios (cpu backend) and writes
// results/layers_training_more.json, which tests/layers/test_training_more_golden.py replays
// with tidytensor. Run: cd tests/golden && node layers_training_more.js
//
// Each scenario is data: a model spec (a sequential stack of dense / batchNormalization
// layers, or one of the named functional builders below), weights set from deterministic
// values (stored), compile arguments (metrics may name tf.metrics functions or the custom
// `absDiff`), and a list of actions (fit, trainOnBatch, evaluate, predict, fitDataset,
// evaluateDataset) with their arguments. Each action records its result or error, the
// History (history, epoch, params), the hook calls a recording callback saw (with a copy of
// the logs at call time), early-stopping state, and the weights afterwards.
// Covered here (and not in layers_training.js): uneven batches and per-batch logs, callback
// order and logs, initialEpoch with validation, batch sizes over the sample count, metric
// strings and functions, per-output loss lists and metric dicts, list/dict inputs and
// targets, class weights (one-hot, binary, sparse, per output), regularizers (kernel, bias,
// activity), batch normalization statistics, frozen layers, early stopping variants,
// stopTraining from a batch hook, epochs 0, rank-1 data, fitDataset variants, and errors.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const { arr, seq, reshape } = require('./golden_values');
function onehot(labels, k) {
  const v = [];
  labels.forEach((l) => { for (let j = 0; j < k; j++) v.push(j === l ? 1 : 0); });
  return v;
}

// ------------------------------------------------------------------------------- data
const N = 10;
const LABELS = [0, 2, 1, 1, 0, 2, 2, 1, 0, 1];
const DATA = {
  X3: {values: seq(N * 3, 11, 1.5), shape: [N, 3]},
  X2: {values: seq(N * 2, 12, 1.2), shape: [N, 2]},
  X1: {values: seq(N, 13, 2), shape: [N]},
  XV: {values: seq(12, 21, 1.2), shape: [4, 3]},
  XV2: {values: seq(8, 22, 1.2), shape: [4, 2]},
  X4: {values: seq(N * 4, 14, 1), shape: [N, 4]},
  X3_9: {values: seq(9 * 3, 15, 1), shape: [9, 3]},
  YREG: {values: seq(N * 2, 5, 2), shape: [N, 2]},
  YREG1: {values: seq(N, 16, 1.5), shape: [N]},
  YVREG: {values: seq(8, 23, 2), shape: [4, 2]},
  YOH: {values: onehot(LABELS, 3), shape: [N, 3]},
  YVOH: {values: onehot([1, 0, 2, 1], 3), shape: [4, 3]},
  YSP: {values: LABELS, shape: [N]},
  YSP2: {values: LABELS, shape: [N, 1]},
  YBIN: {values: [1, 0, 0, 1, 1, 0, 1, 0, 0, 1], shape: [N, 1]},
  YREG3D: {values: seq(N * 2, 17, 1), shape: [N, 2, 1]},
  YREG_9: {values: seq(9 * 2, 18, 1), shape: [9, 2]},
  YBIN2: {values: onehot([1, 0, 0, 1, 1, 0, 1, 0, 0, 1], 2), shape: [N, 2]},
  SW: {values: [1, 2, 1, 0.5, 1, 1, 2, 1, 1, 0.5], shape: [N]},
  YHALF: {values: [0, 1, 0.5, 1, 0, 1, 1, 0, 0, 1], shape: [N, 1]},
  YOH_INT: {values: onehot(LABELS, 3), shape: [N, 3], dtype: 'int32'},
  YSP_INT: {values: LABELS, shape: [N], dtype: 'int32'},
  YBIN_INT: {values: [1, 0, 0, 1, 1, 0, 1, 0, 0, 1], shape: [N, 1], dtype: 'int32'},
  X3_2: {values: seq(6, 19, 1), shape: [2, 3]},
  YREG_2: {values: seq(4, 20, 1), shape: [2, 2]},
  X23: {values: seq(N * 6, 24, 1.3), shape: [N, 2, 3]},
  Y23: {values: onehot([0, 2, 1, 1, 0, 2, 2, 1, 0, 1, 1, 2, 0, 0, 2, 1, 1, 0, 2, 2], 3), shape: [N, 2, 3]},
  Y2SP: {values: [0, 2, 1, 1, 0, 2, 2, 1, 0, 1, 1, 2, 0, 0, 2, 1, 1, 0, 2, 2], shape: [N, 2]},
  Y2SP1: {values: [0, 2, 1, 1, 0, 2, 2, 1, 0, 1, 1, 2, 0, 0, 2, 1, 1, 0, 2, 2], shape: [N, 2, 1]},
  XINT: {values: [0, 1, 2, 3, 4, 1, 1, 0, 2, 3, 3, 4, 0, 0, 1, 2, 4, 4, 3, 1, 2, 0, 1, 3, 1, 3, 2, 4,
    0, 2, 4, 1, 3, 3, 0, 2, 4, 2, 1, 0], shape: [N, 4], dtype: 'int32'},
};
function tensorOf(name) {
  const d = DATA[name];
  return tf.tensor(d.values, d.shape, d.dtype);
}
// A data reference: a name, a list of names, or a dict {key: name}.
function resolve(ref, made) {
  if (ref == null) return ref;
  if (typeof ref === 'string') {
    const t = tensorOf(ref);
    made.push(t);
    return t;
  }
  if (Array.isArray(ref)) return ref.map((r) => resolve(r, made));
  const out = {};
  for (const [k, v] of Object.entries(ref)) out[k] = resolve(v, made);
  return out;
}

// ----------------------------------------------------------------------------- models
function regularizer(spec) {
  return spec == null ? undefined : tf.regularizers.l1l2(spec);
}
function denseArgs(l) {
  const args = {units: l.units, activation: l.activation || 'linear', useBias: l.useBias !== false};
  if (l.name) args.name = l.name;
  if (l.kernelRegularizer) args.kernelRegularizer = regularizer(l.kernelRegularizer);
  if (l.biasRegularizer) args.biasRegularizer = regularizer(l.biasRegularizer);
  if (l.activityRegularizer) args.activityRegularizer = regularizer(l.activityRegularizer);
  if (l.trainable === false) args.trainable = false;
  return args;
}
function makeLayer(l, inputShape) {
  const type = l.type || 'dense';
  let args;
  if (type === 'dense') args = denseArgs(l);
  else if (type === 'batchNormalization') {
    args = {momentum: l.momentum, epsilon: l.epsilon};
    if (l.trainable === false) args.trainable = false;
  }
  else if (type === 'embedding') args = {inputDim: l.inputDim, outputDim: l.outputDim, inputLength: l.inputLength};
  else if (type === 'flatten') args = {};
  else if (type === 'dropout') args = {rate: l.rate, seed: l.seed};
  else throw new Error('unknown layer type ' + type);
  if (inputShape) args.inputShape = inputShape;
  return tf.layers[type](args);
}
const BUILDERS = {
  // inputs in_a [3] and in_b [2] -> concatenate -> dense(4, tanh) -> dense(2) 'out'
  two_in() {
    const a = tf.input({shape: [3], name: 'in_a'});
    const b = tf.input({shape: [2], name: 'in_b'});
    const c = tf.layers.concatenate().apply([a, b]);
    const h = tf.layers.dense({units: 4, activation: 'tanh', name: 'hidden'}).apply(c);
    const o = tf.layers.dense({units: 2, name: 'out'}).apply(h);
    return tf.model({inputs: [a, b], outputs: o});
  },
  // input x [3] -> dense(4, tanh) -> heads reg (dense 2) and cls (dense 3 softmax)
  two_out() {
    const x = tf.input({shape: [3], name: 'x'});
    const h = tf.layers.dense({units: 4, activation: 'tanh', name: 'trunk'}).apply(x);
    const r = tf.layers.dense({units: 2, name: 'reg'}).apply(h);
    const c = tf.layers.dense({units: 3, activation: 'softmax', name: 'cls'}).apply(h);
    return tf.model({inputs: x, outputs: [r, c]});
  },
  // in_a [3], in_b [2] -> concatenate -> dense(4, tanh) -> reg (dense 2), bin (dense 1 sigmoid)
  two_in_two_out() {
    const a = tf.input({shape: [3], name: 'in_a'});
    const b = tf.input({shape: [2], name: 'in_b'});
    const c = tf.layers.concatenate().apply([a, b]);
    const h = tf.layers.dense({units: 4, activation: 'tanh', name: 'hidden'}).apply(c);
    const r = tf.layers.dense({units: 2, name: 'reg'}).apply(h);
    const o = tf.layers.dense({units: 1, activation: 'sigmoid', name: 'bin'}).apply(h);
    return tf.model({inputs: [a, b], outputs: [r, o]});
  },
  // x [3] -> a Sequential sub-model (dense 4 tanh, kernel L2) -> dense(2) 'out'
  nested_sequential() {
    const inner = tf.sequential({layers: [tf.layers.dense({units: 4, activation: 'tanh', inputShape: [3],
      kernelRegularizer: tf.regularizers.l2({l2: 0.05}), name: 'inner_dense'})], name: 'inner'});
    const x = tf.input({shape: [3], name: 'x'});
    const o = tf.layers.dense({units: 2, name: 'out'}).apply(inner.apply(x));
    return tf.model({inputs: x, outputs: o});
  },
  // in_a [3], in_b [3] -> one dense(4, tanh) applied to both -> add -> dense(2) 'out'
  shared_dense() {
    const a = tf.input({shape: [3], name: 'in_a'});
    const b = tf.input({shape: [3], name: 'in_b'});
    const shared = tf.layers.dense({units: 4, activation: 'tanh', name: 'shared'});
    const h = tf.layers.add().apply([shared.apply(a), shared.apply(b)]);
    return tf.model({inputs: [a, b], outputs: tf.layers.dense({units: 2, name: 'out'}).apply(h)});
  },
  // x [3] -> dense(2) 'out' given twice as the model's outputs
  same_output_twice() {
    const x = tf.input({shape: [3], name: 'x'});
    const o = tf.layers.dense({units: 2, name: 'out'}).apply(x);
    return tf.model({inputs: x, outputs: [o, o]});
  },
};
function buildModel(spec) {
  if (spec.builder) return BUILDERS[spec.builder]();
  const model = tf.sequential();
  spec.layers.forEach((l, i) => model.add(makeLayer(l, i === 0 ? spec.inputShape : undefined)));
  return model;
}
// Deterministic weight values by position (and kind: BN gammas and variances stay positive).
function weightValues(model, seed) {
  return model.weights.map((w, i) => {
    const size = w.shape.reduce((a, b) => a * b, 1);
    const base = seq(size, seed + i, 1);
    let values;
    const n = w.originalName;
    if (/gamma/.test(n)) values = base.map((v) => Number((1 + 0.2 * v).toFixed(4)));
    else if (/moving_variance/.test(n)) values = base.map((v) => Number((1 + 0.3 * Math.abs(v)).toFixed(4)));
    else if (/beta|moving_mean|bias/.test(n)) values = base.map((v) => Number((0.2 * v).toFixed(4)));
    else values = base.map((v) => Number((0.6 * v).toFixed(4)));
    return {shape: w.shape, values};
  });
}

// ----------------------------------------------------------------------------- compile
function absDiff(yTrue, yPred) {
  return tf.mean(tf.abs(tf.sub(yTrue, yPred)), -1);
}
function lossOrMetric(m) {
  if (m == null || typeof m === 'string') return m;
  if (Array.isArray(m)) return m.map(lossOrMetric);
  if (m.fn) return tf.metrics[m.fn];
  if (m.custom === 'absDiff') return absDiff;
  if (m.core) return tf.losses[m.core];
  const out = {};
  for (const [k, v] of Object.entries(m)) out[k] = lossOrMetric(v);
  return out;
}
function makeOptimizer(o) {
  if (typeof o === 'string') return o;
  return tf.train[o.name](...o.args);
}

// --------------------------------------------------------------------------- callbacks
function copyLogs(logs) {
  if (logs == null) return null;
  const out = {};
  for (const [k, v] of Object.entries(logs)) out[k] = typeof v === 'number' ? v : (v && v.dataSync ? v.dataSync()[0] : v);
  return out;
}
function makeCallbacks(specs, model, rec) {
  const out = [];
  for (const s of specs || []) {
    if (s.record) {
      out.push(new tf.CustomCallback({
        onTrainBegin: (logs) => { rec.events.push(['trainBegin', null, copyLogs(logs)]); },
        onTrainEnd: (logs) => { rec.events.push(['trainEnd', null, copyLogs(logs)]); },
        onEpochBegin: (e, logs) => { rec.events.push(['epochBegin', e, copyLogs(logs)]); },
        onEpochEnd: (e, logs) => { rec.events.push(['epochEnd', e, copyLogs(logs)]); },
        onBatchBegin: (b, logs) => { rec.events.push(['batchBegin', b, copyLogs(logs)]); },
        onBatchEnd: (b, logs) => { rec.events.push(['batchEnd', b, copyLogs(logs)]); },
      }));
    } else if (s.earlyStopping) {
      const es = tf.callbacks.earlyStopping(s.earlyStopping);
      rec.earlyStopping.push(es);
      out.push(es);
    } else if (s.stopAt) {
      let epoch = -1;
      out.push(new tf.CustomCallback({
        onEpochBegin: (e) => {
          epoch = e;
          if (s.stopAt.batch === -1 && e === s.stopAt.epoch) model.stopTraining = true;
        },
        onBatchEnd: (b) => {
          if (epoch === s.stopAt.epoch && b === s.stopAt.batch) model.stopTraining = true;
        },
      }));
    }
  }
  return out;
}

// ----------------------------------------------------------------------------- actions
function camelArgs(args, made) {
  const out = Object.assign({}, args);
  if (Array.isArray(out.validationData)) out.validationData = out.validationData.map((r) => resolve(r, made));
  if (out.sampleWeight) out.sampleWeight = resolve(out.sampleWeight, made);
  return out;
}
function datasetOf(spec, made) {
  // rows of x and y, zipped as {xs, ys} (form 'dict') or [xs, ys] (form 'array'), batched.
  const rowsOf = (ref) => {
    if (typeof ref === 'string' && spec.form === 'array') {
      // [xs, ys] pairs of tensors (rows as tensors, so that batching stacks each side).
      return tf.data.array(reshape(DATA[ref].values, DATA[ref].shape)).map((r) => tf.tensor(r));
    }
    if (typeof ref === 'string') return tf.data.array(reshape(DATA[ref].values, DATA[ref].shape));
    if (Array.isArray(ref)) return tf.data.zip(ref.map(rowsOf));
    const o = {};
    for (const [k, v] of Object.entries(ref)) o[k] = rowsOf(v);
    return tf.data.zip(o);
  };
  let ds = spec.form === 'array' ? tf.data.zip([rowsOf(spec.x), rowsOf(spec.y)]) :
    tf.data.zip({xs: rowsOf(spec.x), ys: rowsOf(spec.y)});
  ds = ds.batch(spec.batch);
  if (spec.repeat) ds = ds.repeat();
  return ds;
}
function values(r) {
  if (r == null) return r;
  if (Array.isArray(r)) return r.map(values);
  if (r instanceof tf.Tensor) return {shape: r.shape, values: arr(r)};
  return r;
}
async function runAction(model, a) {
  const rec = {op: a.op, events: [], earlyStopping: []};
  const made = [];
  let warnings = [];
  const warn = console.warn;
  console.warn = (...m) => { warnings.push(m.join(' ')); };
  try {
    const x = resolve(a.x, made);
    const y = resolve(a.y, made);
    const args = camelArgs(a.args || {}, made);
    if (a.op === 'fit' || a.op === 'fitDataset') {
      args.callbacks = makeCallbacks(a.callbacks, model, rec);
      if (args.verbose == null) args.verbose = 0;
      let h;
      if (a.op === 'fit') {
        h = await model.fit(x, y, args);
      } else {
        if (args.validationData && a.validationDataset) args.validationData = datasetOf(a.validationDataset, made);
        h = await model.fitDataset(datasetOf(a.dataset, made), args);
      }
      rec.history = h.history;
      rec.history_keys = Object.keys(h.history);
      rec.epoch = h.epoch;
      rec.params = h.params;
      rec.early = rec.earlyStopping.map((es) => ({best: es.best, wait: es.wait, stoppedEpoch: es.stoppedEpoch}));
    } else if (a.op === 'trainOnBatch') {
      rec.result = await model.trainOnBatch(x, y);
    } else if (a.op === 'evaluate') {
      const r = model.evaluate(x, y, args);
      rec.result = values(r);
      tf.dispose(r);
    } else if (a.op === 'evaluateDataset') {
      const r = await model.evaluateDataset(datasetOf(a.dataset, made), args);
      rec.result = values(r);
      tf.dispose(r);
    } else if (a.op === 'predict') {
      const r = model.predict(x, args);
      rec.result = values(r);
      tf.dispose(r);
    } else if (a.op === 'compile') {
      model.compile({optimizer: makeOptimizer(a.compile.optimizer), loss: lossOrMetric(a.compile.loss),
        metrics: lossOrMetric(a.compile.metrics)});
      rec.metrics_names = model.metricsNames;
    } else if (a.op === 'freeze') {
      model.layers[a.layer].trainable = false;
    } else if (a.op === 'freezeModel') {
      model.trainable = false;
    } else {
      throw new Error('unknown op ' + a.op);
    }
  } catch (e) {
    rec.error = {name: e.name, message: e.message};
  } finally {
    console.warn = warn;
    tf.dispose(made);
  }
  delete rec.earlyStopping;
  if (warnings.length) rec.warnings = warnings;
  rec.weights = model.getWeights().map(arr);
  return rec;
}

// --------------------------------------------------------------------------- scenarios
const DENSE_REG = {inputShape: [3], layers: [{units: 4, activation: 'tanh'}, {units: 2}]};
const DENSE_CAT = {inputShape: [3], layers: [{units: 4, activation: 'tanh'}, {units: 3, activation: 'softmax'}]};
const DENSE_BIN = {inputShape: [3], layers: [{units: 4, activation: 'tanh'}, {units: 1, activation: 'sigmoid'}]};
const SGD = (lr) => ({name: 'sgd', args: [lr]});
const REC = [{record: true}];

const SCENARIOS = [
  {name: 'uneven_batches_record', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError', metrics: ['mae', 'mse']},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 3, epochs: 3, shuffle: false}, callbacks: REC}]},
  {name: 'initial_epoch_split_record', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanAbsoluteError', metrics: ['mse']},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 4, epochs: 3, initialEpoch: 1, shuffle: false, validationSplit: 0.35}, callbacks: REC}]},
  {name: 'batch_over_n_valdata', model: DENSE_CAT, compile: {optimizer: {name: 'adam', args: [0.05]}, loss: 'categoricalCrossentropy', metrics: ['acc']},
    actions: [{op: 'fit', x: 'X3', y: 'YOH', args: {batchSize: 64, epochs: 3, shuffle: false, validationData: ['XV', 'YVOH']}, callbacks: REC},
      {op: 'evaluate', x: 'X3', y: 'YOH', args: {batchSize: 64}}, {op: 'predict', x: 'XV', args: {batchSize: 3}}]},
  {name: 'metric_strings_categorical', model: DENSE_CAT,
    compile: {optimizer: 'adam', loss: 'categoricalCrossentropy',
      metrics: ['accuracy', 'categoricalAccuracy', 'crossentropy', 'categoricalCrossentropy', 'precision', 'cosine', 'MAE', 'mse']},
    actions: [{op: 'fit', x: 'X3', y: 'YOH', args: {batchSize: 4, epochs: 2, shuffle: false, validationSplit: 0.2}},
      {op: 'evaluate', x: 'X3', y: 'YOH', args: {batchSize: 3}}, {op: 'trainOnBatch', x: 'X3', y: 'YOH'}]},
  {name: 'metric_strings_binary', model: DENSE_BIN,
    compile: {optimizer: SGD(0.3), loss: 'binaryCrossentropy', metrics: ['acc', 'binaryAccuracy', 'precision', 'ce', 'mape']},
    actions: [{op: 'fit', x: 'X3', y: 'YBIN', args: {batchSize: 4, epochs: 2, shuffle: false}},
      {op: 'trainOnBatch', x: 'X3', y: 'YBIN'}]},
  {name: 'metric_strings_binary_two_units', model: {inputShape: [3], layers: [{units: 2, activation: 'sigmoid'}]},
    compile: {optimizer: SGD(0.3), loss: 'binaryCrossentropy', metrics: ['accuracy', 'crossentropy']},
    actions: [{op: 'fit', x: 'X3', y: 'YBIN2', args: {batchSize: 5, epochs: 2, shuffle: false}}]},
  {name: 'metric_strings_sparse_rank1', model: DENSE_CAT,
    compile: {optimizer: SGD(0.2), loss: 'sparseCategoricalCrossentropy', metrics: ['acc', 'ce', 'sparseCategoricalCrossentropy']},
    actions: [{op: 'fit', x: 'X3', y: 'YSP', args: {batchSize: 4, epochs: 2, shuffle: false, validationSplit: 0.3}, callbacks: REC},
      {op: 'evaluate', x: 'X3', y: 'YSP2', args: {batchSize: 4}}, {op: 'trainOnBatch', x: 'X3', y: 'YSP2'}]},
  {name: 'metric_functions', model: DENSE_REG,
    compile: {optimizer: SGD(0.1), loss: {custom: 'absDiff'},
      metrics: [{fn: 'binaryAccuracy'}, {fn: 'recall'}, {fn: 'precision'}, {custom: 'absDiff'}, {fn: 'meanSquaredError'},
        {fn: 'categoricalAccuracy'}, {fn: 'cosineProximity'}, {fn: 'MAPE'}]},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 4, epochs: 2, shuffle: false}, callbacks: REC},
      {op: 'trainOnBatch', x: 'X3', y: 'YREG'}]},
  {name: 'two_out_loss_list_metric_dict', model: {builder: 'two_out'},
    compile: {optimizer: SGD(0.2), loss: ['meanSquaredError', 'categoricalCrossentropy'], metrics: {reg: 'mae', cls: ['acc', 'ce']}},
    actions: [{op: 'fit', x: 'X3', y: {reg: 'YREG', cls: 'YOH'}, args: {batchSize: 4, epochs: 2, shuffle: false}, callbacks: REC},
      {op: 'trainOnBatch', x: 'X3', y: ['YREG', 'YOH']},
      {op: 'trainOnBatch', x: {x: 'X3'}, y: {reg: 'YREG', cls: 'YOH'}},
      {op: 'predict', x: 'X3', args: {batchSize: 4}}]},
  {name: 'two_out_metric_list_all_outputs', model: {builder: 'two_out'},
    compile: {optimizer: SGD(0.1), loss: {reg: 'meanAbsoluteError', cls: 'categoricalCrossentropy'}, metrics: ['mse', 'acc']},
    actions: [{op: 'fit', x: 'X3', y: ['YREG', 'YOH'], args: {batchSize: 5, epochs: 2, shuffle: false}}]},
  {name: 'two_in_list_and_dict', model: {builder: 'two_in'},
    compile: {optimizer: SGD(0.1), loss: 'meanSquaredError', metrics: ['mae']},
    actions: [{op: 'fit', x: ['X3', 'X2'], y: 'YREG', args: {batchSize: 3, epochs: 2, shuffle: false, validationData: [['XV', 'XV2'], 'YVREG']}, callbacks: REC},
      {op: 'fit', x: {in_b: 'X2', in_a: 'X3'}, y: {out: 'YREG'}, args: {batchSize: 4, epochs: 1, shuffle: false, validationSplit: 0.2}},
      {op: 'evaluate', x: {in_a: 'X3', in_b: 'X2'}, y: 'YREG', args: {batchSize: 4}},
      {op: 'evaluate', x: ['X3', 'X2'], y: 'YREG', args: {batchSize: 3}},
      {op: 'trainOnBatch', x: {in_a: 'X3', in_b: 'X2'}, y: 'YREG'},
      {op: 'predict', x: ['XV', 'XV2'], args: {batchSize: 3}}]},
  {name: 'two_in_two_out', model: {builder: 'two_in_two_out'},
    compile: {optimizer: {name: 'rmsprop', args: [0.01]}, loss: {reg: 'meanSquaredError', bin: 'binaryCrossentropy'}, metrics: {bin: ['acc', 'precision']}},
    actions: [{op: 'fit', x: {in_a: 'X3', in_b: 'X2'}, y: {reg: 'YREG', bin: 'YBIN'}, args: {batchSize: 4, epochs: 2, shuffle: false}, callbacks: REC},
      {op: 'trainOnBatch', x: ['X3', 'X2'], y: ['YREG', 'YBIN']}]},
  {name: 'class_weight_onehot_split', model: DENSE_CAT, compile: {optimizer: SGD(0.3), loss: 'categoricalCrossentropy', metrics: ['acc']},
    actions: [{op: 'fit', x: 'X3', y: 'YOH', args: {batchSize: 4, epochs: 2, shuffle: false, validationSplit: 0.2, classWeight: {0: 1, 1: 2, 2: 0.5}}}]},
  {name: 'class_weight_binary', model: DENSE_BIN, compile: {optimizer: SGD(0.3), loss: 'binaryCrossentropy', metrics: ['acc']},
    actions: [{op: 'fit', x: 'X3', y: 'YBIN', args: {batchSize: 3, epochs: 2, shuffle: false, classWeight: {0: 0.25, 1: 3}}}]},
  {name: 'class_weight_sparse_list', model: DENSE_CAT, compile: {optimizer: SGD(0.3), loss: 'sparseCategoricalCrossentropy', metrics: ['acc']},
    actions: [{op: 'fit', x: 'X3', y: 'YSP2', args: {batchSize: 4, epochs: 2, shuffle: false, classWeight: [{0: 2, 1: 1, 2: 0.5}]}}]},
  {name: 'class_weight_per_output', model: {builder: 'two_out'},
    compile: {optimizer: SGD(0.2), loss: ['meanSquaredError', 'categoricalCrossentropy']},
    actions: [{op: 'fit', x: 'X3', y: ['YREG', 'YOH'], args: {batchSize: 4, epochs: 2, shuffle: false, classWeight: {cls: {0: 3, 1: 1, 2: 0.5}}}}]},
  {name: 'regularizers', model: {inputShape: [3], layers: [
    {units: 4, activation: 'relu', kernelRegularizer: {l1: 0.01, l2: 0.05}, biasRegularizer: {l2: 0.1}},
    {units: 2, kernelRegularizer: {l2: 0.03}}]},
  compile: {optimizer: SGD(0.05), loss: 'meanSquaredError', metrics: ['mse']},
  actions: [{op: 'evaluate', x: 'X3', y: 'YREG', args: {batchSize: 4}},
    {op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 4, epochs: 2, shuffle: false, validationSplit: 0.2}, callbacks: REC},
    {op: 'trainOnBatch', x: 'X3', y: 'YREG'}]},
  // TF.js refuses to apply a layer with an activity regularizer to a symbolic input.
  {name: 'activity_regularizer_build', model: {inputShape: [3], layers: [{units: 2, activityRegularizer: {l1: 0.02}}]}, actions: []},
  {name: 'batchnorm_stats', model: {inputShape: [3], layers: [{units: 4}, {type: 'batchNormalization', momentum: 0.8}, {units: 2}]},
    // SGD, not Adam: the dense bias before the BN gets only rounding-noise gradients, which
    // Adam would scale up to full steps (and so would move the BN's moving mean).
    compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 4, epochs: 2, shuffle: false, validationData: ['XV', 'YVREG']}},
      {op: 'evaluate', x: 'X3', y: 'YREG', args: {batchSize: 4}}, {op: 'predict', x: 'XV'},
      {op: 'trainOnBatch', x: 'X3', y: 'YREG'}]},
  {name: 'frozen_layer', model: {inputShape: [3], layers: [{units: 4, activation: 'tanh', trainable: false}, {units: 2}]},
    compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 5, epochs: 2, shuffle: false}}]},
  {name: 'frozen_after_compile', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'freeze', layer: 0}, {op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 5, epochs: 1, shuffle: false}},
      {op: 'compile', compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'}},
      {op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 5, epochs: 1, shuffle: false}}]},
  {name: 'early_stopping_min_delta', model: DENSE_REG, compile: {optimizer: SGD(0.05), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 5, epochs: 10, shuffle: false},
      callbacks: [{earlyStopping: {monitor: 'loss', minDelta: 0.05, patience: 1}}, {record: true}]}]},
  {name: 'early_stopping_acc_auto', model: DENSE_CAT, compile: {optimizer: SGD(0.01), loss: 'categoricalCrossentropy', metrics: ['acc']},
    actions: [{op: 'fit', x: 'X3', y: 'YOH', args: {batchSize: 10, epochs: 6, shuffle: false},
      callbacks: [{earlyStopping: {monitor: 'acc'}}]}]},
  {name: 'early_stopping_baseline', model: DENSE_REG, compile: {optimizer: SGD(0.05), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 5, epochs: 8, shuffle: false, validationData: ['XV', 'YVREG']},
      callbacks: [{earlyStopping: {baseline: 0.001, patience: 2}}]}]},
  {name: 'early_stopping_mode_max_on_loss', model: DENSE_REG, compile: {optimizer: SGD(0.05), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 5, epochs: 8, shuffle: false},
      callbacks: [{earlyStopping: {monitor: 'loss', mode: 'max', patience: 2}}]}]},
  {name: 'early_stopping_missing_monitor', model: DENSE_REG, compile: {optimizer: SGD(0.05), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 5, epochs: 3, shuffle: false},
      callbacks: [{earlyStopping: {patience: 0}}]}]},
  {name: 'stop_from_batch_hook', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError', metrics: ['mae']},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 3, epochs: 4, shuffle: false, validationSplit: 0.2},
      callbacks: [{stopAt: {epoch: 1, batch: 1}}, {record: true}]}]},
  {name: 'epochs_zero', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {epochs: 0}, callbacks: REC},
      {op: 'fit', x: 'X3', y: 'YREG', args: {epochs: 2, initialEpoch: 2}, callbacks: REC}]},
  {name: 'rank1_data', model: {inputShape: [1], layers: [{units: 3, activation: 'tanh'}, {units: 1}]},
    compile: {optimizer: SGD(0.1), loss: 'meanSquaredError', metrics: ['mae']},
    actions: [{op: 'fit', x: 'X1', y: 'YREG1', args: {batchSize: 4, epochs: 2, shuffle: false, validationSplit: 0.2}},
      {op: 'evaluate', x: 'X1', y: 'YREG1'}, {op: 'trainOnBatch', x: 'X1', y: 'YREG1'}, {op: 'predict', x: 'X1'}]},
  {name: 'verbose_values', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {epochs: 1, verbose: 2, shuffle: false}, callbacks: REC},
      {op: 'evaluate', x: 'X3', y: 'YREG', args: {verbose: 1}}, {op: 'predict', x: 'X3', args: {verbose: true}}]},
  {name: 'embedding_int32_inputs', model: {inputShape: [4], layers: [{type: 'embedding', inputDim: 5, outputDim: 3, inputLength: 4},
    {type: 'flatten'}, {units: 3, activation: 'softmax'}]},
  compile: {optimizer: SGD(0.5), loss: 'sparseCategoricalCrossentropy', metrics: ['acc']},
  actions: [{op: 'fit', x: 'XINT', y: 'YSP', args: {batchSize: 4, epochs: 2, shuffle: false, validationSplit: 0.2}},
    {op: 'evaluate', x: 'XINT', y: 'YSP2', args: {batchSize: 3}}, {op: 'trainOnBatch', x: 'XINT', y: 'YSP'}, {op: 'predict', x: 'XINT'}]},
  {name: 'class_weight_sparse_rank1', model: DENSE_CAT, compile: {optimizer: SGD(0.3), loss: 'sparseCategoricalCrossentropy'},
    actions: [{op: 'fit', x: 'X3', y: 'YSP', args: {batchSize: 3, epochs: 2, shuffle: false, classWeight: {0: 0.5, 1: 1.5, 2: 1}}}]},
  {name: 'single_metric_not_in_list', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: ['meanSquaredError'], metrics: 'mae'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 4, epochs: 1, shuffle: false}},
      {op: 'compile', compile: {optimizer: SGD(0.1), loss: 'meanSquaredError', metrics: {fn: 'meanAbsoluteError'}}},
      {op: 'trainOnBatch', x: 'X3', y: 'YREG'}]},
  // tf.losses.* (core) functions as the loss: called as (labels, predictions), reduced to a scalar.
  {name: 'core_loss_mse', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: {core: 'meanSquaredError'}, metrics: ['mae']},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 4, epochs: 2, shuffle: false, validationSplit: 0.2}},
      {op: 'trainOnBatch', x: 'X3', y: 'YREG'}, {op: 'evaluate', x: 'X3', y: 'YREG', args: {batchSize: 3}}]},
  {name: 'core_loss_softmax_ce', model: {inputShape: [3], layers: [{units: 4, activation: 'tanh'}, {units: 3}]},
    compile: {optimizer: SGD(0.3), loss: {core: 'softmaxCrossEntropy'}, metrics: ['acc']},
    actions: [{op: 'fit', x: 'X3', y: 'YOH', args: {batchSize: 4, epochs: 2, shuffle: false}},
      {op: 'evaluate', x: 'X3', y: 'YOH', args: {batchSize: 3}}]},
  {name: 'core_loss_sigmoid_ce_class_weight', model: {inputShape: [3], layers: [{units: 4, activation: 'tanh'}, {units: 1}]},
    compile: {optimizer: SGD(0.3), loss: {core: 'sigmoidCrossEntropy'}},
    actions: [{op: 'fit', x: 'X3', y: 'YBIN', args: {batchSize: 4, epochs: 2, shuffle: false, classWeight: {0: 1, 1: 2}}}]},
  {name: 'core_losses_others', model: {builder: 'two_out'},
    compile: {optimizer: SGD(0.1), loss: [{core: 'huberLoss'}, {core: 'logLoss'}]},
    actions: [{op: 'fit', x: 'X3', y: ['YREG', 'YOH'], args: {batchSize: 4, epochs: 2, shuffle: false}},
      {op: 'compile', compile: {optimizer: SGD(0.1), loss: [{core: 'absoluteDifference'}, {core: 'hingeLoss'}]}},
      {op: 'trainOnBatch', x: 'X3', y: ['YREG', 'YOH']}]},
  {name: 'all_frozen', model: {inputShape: [3], layers: [{units: 2, trainable: false}]},
    compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {epochs: 1}}, {op: 'trainOnBatch', x: 'X3', y: 'YREG'},
      {op: 'evaluate', x: 'X3', y: 'YREG'}]},
  {name: 'model_frozen_after_compile', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'freezeModel'}, {op: 'fit', x: 'X3', y: 'YREG', args: {epochs: 1}},
      {op: 'compile', compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'}}, {op: 'fit', x: 'X3', y: 'YREG', args: {epochs: 1}}]},
  {name: 'loss_dict_missing_output', model: {builder: 'two_out'}, compile: {optimizer: SGD(0.1), loss: {reg: 'meanSquaredError'}},
    actions: [{op: 'fit', x: 'X3', y: ['YREG', 'YOH'], args: {epochs: 1}}]},
  {name: 'class_weight_non_integer_labels', model: DENSE_BIN, compile: {optimizer: SGD(0.1), loss: 'binaryCrossentropy'},
    actions: [{op: 'fit', x: 'X3', y: 'YHALF', args: {classWeight: {0: 1, 1: 2}}}]},
  {name: 'int32_targets', model: DENSE_CAT, compile: {optimizer: SGD(0.3), loss: 'categoricalCrossentropy', metrics: ['acc', 'precision']},
    actions: [{op: 'fit', x: 'X3', y: 'YOH_INT', args: {batchSize: 4, epochs: 2, shuffle: false, validationSplit: 0.2, classWeight: {0: 1, 1: 2, 2: 1}}},
      {op: 'evaluate', x: 'X3', y: 'YOH_INT', args: {batchSize: 4}},
      {op: 'compile', compile: {optimizer: SGD(0.3), loss: 'sparseCategoricalCrossentropy', metrics: ['acc']}},
      {op: 'fit', x: 'X3', y: 'YSP_INT', args: {batchSize: 4, epochs: 2, shuffle: false}},
      {op: 'trainOnBatch', x: 'X3', y: 'YSP_INT'}]},
  {name: 'int32_binary_targets', model: DENSE_BIN, compile: {optimizer: SGD(0.3), loss: 'binaryCrossentropy', metrics: ['acc', 'precision', 'binaryAccuracy']},
    actions: [{op: 'fit', x: 'X3', y: 'YBIN_INT', args: {batchSize: 4, epochs: 2, shuffle: false}},
      {op: 'evaluate', x: 'X3', y: 'YBIN_INT', args: {batchSize: 4}}]},
  {name: 'stop_at_epoch_begin', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 4, epochs: 4, shuffle: false, validationSplit: 0.2},
      callbacks: [{stopAt: {epoch: 1, batch: -1}}, {record: true}]}]},
  {name: 'batchnorm_frozen', model: {inputShape: [3], layers: [{units: 4}, {type: 'batchNormalization', momentum: 0.5, trainable: false}, {units: 2}]},
    compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 5, epochs: 2, shuffle: false}}]},
  {name: 'dropout_seeded', model: {inputShape: [3], layers: [{units: 6, activation: 'relu'}, {type: 'dropout', rate: 0.5, seed: 7}, {units: 2}]},
    compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 5, epochs: 2, shuffle: false}}, {op: 'predict', x: 'XV'}]},
  {name: 'split_leaves_no_training_samples', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3_2', y: 'YREG_2', args: {epochs: 2, validationSplit: 0.6}, callbacks: REC},
      {op: 'fit', x: 'X3_2', y: 'YREG_2', args: {epochs: 1, validationSplit: 0.5}, callbacks: REC}]},
  {name: 'nested_sequential_regularized', model: {builder: 'nested_sequential'},
    compile: {optimizer: SGD(0.1), loss: 'meanSquaredError', metrics: ['mae']},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 4, epochs: 2, shuffle: false, validationSplit: 0.2}},
      {op: 'trainOnBatch', x: 'X3', y: 'YREG'}, {op: 'evaluate', x: 'X3', y: 'YREG'}]},
  {name: 'shared_dense_two_inputs', model: {builder: 'shared_dense'},
    compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: ['X3', 'XV'], y: 'YREG', args: {epochs: 1}},
      {op: 'fit', x: {in_a: 'X3', in_b: 'X3'}, y: 'YREG', args: {batchSize: 3, epochs: 2, shuffle: false}}]},
  {name: 'same_output_twice', model: {builder: 'same_output_twice'},
    compile: {optimizer: SGD(0.1), loss: 'meanSquaredError', metrics: ['mae']},
    actions: [{op: 'fit', x: 'X3', y: ['YREG', 'YREG'], args: {batchSize: 4, epochs: 2, shuffle: false}},
      {op: 'trainOnBatch', x: 'X3', y: ['YREG', 'YREG']}]},
  {name: 'rank3_outputs', model: {inputShape: [2, 3], layers: [{units: 3, activation: 'softmax'}]},
    compile: {optimizer: SGD(0.3), loss: 'categoricalCrossentropy', metrics: ['acc', 'mse', 'precision', 'ce']},
    actions: [{op: 'fit', x: 'X23', y: 'Y23', args: {batchSize: 4, epochs: 2, shuffle: false, validationSplit: 0.2}},
      {op: 'evaluate', x: 'X23', y: 'Y23', args: {batchSize: 3}},
      {op: 'compile', compile: {optimizer: SGD(0.3), loss: 'sparseCategoricalCrossentropy', metrics: ['acc', 'ce']}},
      {op: 'fit', x: 'X23', y: 'Y2SP', args: {epochs: 1}},
      {op: 'fit', x: 'X23', y: 'Y2SP1', args: {batchSize: 4, epochs: 2, shuffle: false}},
      {op: 'trainOnBatch', x: 'X23', y: 'Y2SP1'}]},
  {name: 'lenient_arguments', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fit', x: 'X3', y: 'YREG', args: {epochs: 1, validationSplit: 1}},
      {op: 'fit', x: 'X3', y: 'YREG', args: {epochs: 1, validationSplit: 1.5}},
      {op: 'fit', x: 'X3', y: 'YREG', args: {epochs: -1}},
      {op: 'fitDataset', dataset: {x: 'X3', y: 'YREG', batch: 4}, args: {epochs: 2.5}},
      {op: 'fitDataset', dataset: {x: 'X3', y: 'YREG', batch: 4}, args: {epochs: 0}},
      {op: 'fitDataset', dataset: {x: 'X3', y: 'YREG', batch: 4}, validationDataset: {x: 'XV', y: 'YVREG', batch: 2},
        args: {epochs: 1, validationData: true, validationBatches: 0}},
      {op: 'evaluateDataset', dataset: {x: 'X3', y: 'YREG', batch: 4}, args: {batches: 1.5}}]},
  // ------------------------------------------------------------------ datasets
  {name: 'dataset_initial_epoch_record', model: DENSE_CAT, compile: {optimizer: SGD(0.2), loss: 'categoricalCrossentropy', metrics: ['acc']},
    actions: [{op: 'fitDataset', dataset: {x: 'X3', y: 'YOH', batch: 3}, args: {epochs: 3, initialEpoch: 1}, callbacks: REC},
      {op: 'evaluateDataset', dataset: {x: 'X3', y: 'YOH', batch: 4}, args: {batches: 2}}]},
  {name: 'dataset_batches_per_epoch', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError', metrics: ['mae']},
    actions: [{op: 'fitDataset', dataset: {x: 'X3', y: 'YREG', batch: 4, repeat: true}, validationDataset: {x: 'XV', y: 'YVREG', batch: 3},
      args: {epochs: 3, batchesPerEpoch: 2, validationData: true, validationBatches: 1}, callbacks: REC}]},
  {name: 'dataset_ran_out', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fitDataset', dataset: {x: 'X3', y: 'YREG', batch: 4}, args: {epochs: 3, batchesPerEpoch: 2}}]},
  {name: 'dataset_class_weight_valdata', model: DENSE_BIN, compile: {optimizer: SGD(0.3), loss: 'binaryCrossentropy', metrics: ['acc']},
    actions: [{op: 'fitDataset', dataset: {x: 'X3', y: 'YBIN', batch: 4}, args: {epochs: 2, classWeight: {0: 0.5, 1: 2},
      validationData: ['X3', 'YBIN'], validationBatchSize: 3}}]},
  {name: 'dataset_two_in_two_out', model: {builder: 'two_in_two_out'},
    compile: {optimizer: SGD(0.1), loss: ['meanSquaredError', 'binaryCrossentropy'], metrics: {bin: 'acc'}},
    actions: [{op: 'fitDataset', dataset: {x: {in_a: 'X3', in_b: 'X2'}, y: {reg: 'YREG', bin: 'YBIN'}, batch: 4}, args: {epochs: 2}, callbacks: REC},
      {op: 'evaluateDataset', dataset: {x: {in_a: 'X3', in_b: 'X2'}, y: {reg: 'YREG', bin: 'YBIN'}, batch: 3}}]},
  // -------------------------------------------------------------------- errors
  {name: 'errors_single', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [
      {op: 'fit', x: 'X3', y: 'YREG3D', args: {}},
      {op: 'fit', x: 'X3_9', y: 'YREG', args: {}},
      {op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: 2.5}},
      {op: 'fit', x: 'X3', y: 'YREG', args: {batchSize: -1}},
      {op: 'fit', x: 'X3', y: 'YREG', args: {validationData: ['XV', 'YVOH']}},
      {op: 'fit', x: 'X3', y: 'YREG', args: {validationData: ['X2', 'YVREG']}},
      {op: 'fit', x: 'X3', y: 'YREG', args: {sampleWeight: 'SW'}},
      {op: 'fit', x: {nope: 'X3'}, y: 'YREG', args: {}},
      {op: 'evaluate', x: 'X3', y: 'YREG_9', args: {}},
      {op: 'evaluate', x: 'X4', y: 'YREG', args: {}},
      {op: 'evaluate', x: 'X3', y: 'YREG', args: {batchSize: 0}},
      {op: 'trainOnBatch', x: 'X3_9', y: 'YREG'},
      {op: 'trainOnBatch', x: 'X3', y: 'YOH'},
      {op: 'predict', x: 'X4'},
      {op: 'predict', x: 'X3', args: {batchSize: 0}},
      {op: 'compile', compile: {optimizer: 'sgd', loss: 'meanSquaredError', metrics: ['recall']}},
      {op: 'compile', compile: {optimizer: 'sgd', loss: 'meanSquaredError', metrics: ['sparseCategoricalAccuracy']}},
    ]},
  {name: 'errors_class_weight', model: DENSE_CAT, compile: {optimizer: SGD(0.1), loss: 'categoricalCrossentropy'},
    actions: [{op: 'fit', x: 'X3', y: 'YOH', args: {classWeight: {0: 1, 1: 2}}},
      {op: 'fit', x: 'X3', y: 'YSP2', args: {}}]},
  {name: 'errors_sparse_targets', model: DENSE_CAT, compile: {optimizer: SGD(0.1), loss: 'sparseCategoricalCrossentropy'},
    actions: [{op: 'fit', x: 'X3', y: 'YOH', args: {}}, {op: 'evaluate', x: 'X3', y: 'YOH', args: {}}]},
  {name: 'errors_binary_targets', model: DENSE_BIN, compile: {optimizer: SGD(0.1), loss: 'binaryCrossentropy'},
    actions: [{op: 'fit', x: 'X3', y: 'YBIN2', args: {}}]},
  {name: 'errors_multi', model: {builder: 'two_in_two_out'},
    compile: {optimizer: SGD(0.1), loss: ['meanSquaredError', 'binaryCrossentropy']},
    actions: [
      {op: 'fit', x: ['X3'], y: ['YREG', 'YBIN'], args: {}},
      {op: 'fit', x: 'X3', y: ['YREG', 'YBIN'], args: {}},
      {op: 'fit', x: {in_a: 'X3'}, y: ['YREG', 'YBIN'], args: {}},
      {op: 'fit', x: ['X3', 'X2'], y: {reg: 'YREG'}, args: {}},
      {op: 'fit', x: ['X3', 'X2'], y: 'YREG', args: {}},
      {op: 'fit', x: ['X3_9', 'X2'], y: ['YREG', 'YBIN'], args: {}},
      {op: 'fit', x: ['X3', 'X2'], y: ['YREG_9', 'YBIN'], args: {}},
      {op: 'fit', x: ['X3', 'X2'], y: ['YREG', 'YBIN'], args: {classWeight: [{0: 1, 1: 1}]}},
      {op: 'fit', x: ['X3', 'X2'], y: ['YREG', 'YBIN'], args: {classWeight: {0: 1, 1: 1}}},
      {op: 'predict', x: ['X3']},
      {op: 'compile', compile: {optimizer: 'sgd', loss: 'meanSquaredError', metrics: {nope: 'mse'}}},
    ]},
  {name: 'errors_uncompiled', model: DENSE_REG,
    actions: [{op: 'trainOnBatch', x: 'X3', y: 'YREG'}, {op: 'evaluateDataset', dataset: {x: 'X3', y: 'YREG', batch: 4}},
      {op: 'predict', x: 'XV'}]},
  {name: 'errors_dataset', model: DENSE_REG, compile: {optimizer: SGD(0.1), loss: 'meanSquaredError'},
    actions: [{op: 'fitDataset', dataset: {x: 'X3', y: 'YREG', batch: 4}, args: {epochs: 1, batchesPerEpoch: 0}},
      {op: 'fitDataset', dataset: {x: 'X3', y: 'YREG', batch: 4}, args: {epochs: 1, validationSplit: 0.2}},
      {op: 'fitDataset', dataset: {x: 'X3', y: 'YREG', batch: 4}, args: {epochs: 1, validationData: ['XV', 'YVREG', 'YVREG']}},
      {op: 'fitDataset', dataset: {x: 'X4', y: 'YREG', batch: 4}, args: {epochs: 1}},
      {op: 'evaluateDataset', dataset: {x: 'X3', y: 'YREG', batch: 4}, args: {batches: 0}},
      // TF.js 4.22 takes only {xs, ys} elements (a [xs, ys] pair fails while building the message).
      {op: 'fitDataset', dataset: {x: 'X3', y: 'YREG', batch: 4, form: 'array'}, args: {epochs: 1}}]},
];

async function runScenario(s) {
  let model;
  const buildWarnings = [];
  const warn = console.warn;
  console.warn = (...m) => {
    const text = m.join(' ');
    if (!text.includes('tfjs-node')) buildWarnings.push(text);  // not the Node banner
  };
  try {
    model = buildModel(s.model);
  } catch (e) {
    return {name: s.name, model: s.model, build_error: {name: e.name, message: e.message}};
  } finally {
    console.warn = warn;
  }
  const weights = weightValues(model, 40);
  const ts = weights.map((w) => tf.tensor(w.values, w.shape));
  model.setWeights(ts);
  tf.dispose(ts);
  const out = {name: s.name, model: s.model, compile: s.compile, actions: s.actions, weights,
    weight_names: model.weights.map((w) => w.originalName), build_warnings: buildWarnings};
  if (s.compile) {
    const warn = console.warn;
    const warnings = [];
    console.warn = (...m) => { warnings.push(m.join(' ')); };
    try {
      model.compile({optimizer: makeOptimizer(s.compile.optimizer), loss: lossOrMetric(s.compile.loss),
        metrics: lossOrMetric(s.compile.metrics)});
    } finally {
      console.warn = warn;
    }
    out.metrics_names = model.metricsNames;
    out.compile_warnings = warnings;
  }
  out.records = [];
  for (const a of s.actions) out.records.push(await runAction(model, a));
  model.dispose();
  return out;
}

async function main() {
  const scenarios = [];
  for (const s of SCENARIOS) scenarios.push(await runScenario(s));
  const file = path.join(__dirname, 'results', 'layers_training_more.json');
  fs.writeFileSync(file, JSON.stringify({tfjs: tf.version.tfjs, data: DATA, scenarios}) + '\n');
  console.log('wrote', file, fs.statSync(file).size, 'bytes');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
