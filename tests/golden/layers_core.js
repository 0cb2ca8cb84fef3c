// Runs the Layers API core scenarios on real TF.js 4.22.0 (cpu backend) and writes
// results/layers_core.json, which tests/layers/test_layers_core.py replays with tidytensor.
// Run: cd tests/golden && node layers_core.js
//
// Each scenario runs in a fresh Node process (`node layers_core.js --one <name>`), so layer,
// model and weight names start from 1 exactly as in a fresh program; the Python tests reset
// tidytensor's name counters before each scenario.
//
// Scenario kinds:
//   seq:  a Sequential model from a list of {factory, args} layer specs. Arguments are TF.js's
//         (camelCase); {"$init"|"$reg"|"$con": [factory, args]} stands for
//         tf.initializers|regularizers|constraints.<factory>(args). Every weight is set to
//         deterministic values (`weightValues`) before predicting. Recorded: names, weights
//         (before and after the write, which applies constraints), summary lines, toJSON,
//         predict output and memory deltas, tidy-wrapped predict delta, dispose result.
//   custom: hand-written functions below, mirrored one-to-one in the Python tests.
'use strict';
const fs = require('fs');
const path = require('path');
const {execFileSync} = require('child_process');
const tf = require('@tensorflow/tfjs');

// ------------------------------------------------------------------ helpers
function values(n, seed) {
  const out = [];
  for (let i = 0; i < n; ++i) out.push(Math.round(Math.sin(0.7 * i + 1.3 * seed + 0.1) * 6000) / 10000);
  return out;
}
function sizeOf(shape) { return shape.reduce((a, b) => a * b, 1); }
function inputValues(shape, seed) {
  return values(sizeOf(shape), seed + 17).map((v) => Math.round(v * 3.3 * 1000) / 1000);
}
function resolveArg(v) {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    if ('$init' in v) return tf.initializers[v.$init[0]](v.$init[1]);
    if ('$reg' in v) return tf.regularizers[v.$reg[0]](v.$reg[1]);
    if ('$con' in v) return tf.constraints[v.$con[0]](v.$con[1]);
  }
  return v;
}
function makeLayer(spec) {
  const args = {};
  for (const [k, v] of Object.entries(spec.args || {})) args[k] = resolveArg(v);
  return tf.layers[spec.factory](args);
}
function mem() { const m = tf.memory(); return [m.numTensors, m.numDataBuffers]; }
function delta(before) { const m = mem(); return [m[0] - before[0], m[1] - before[1]]; }
function enc(t) {
  if (Array.isArray(t)) return t.map(enc);
  return {shape: t.shape, dtype: t.dtype, values: Array.from(t.dataSync())};
}
function summaryLines(model, ...args) {
  const lines = [];
  model.summary(args[0], args[1], (l) => lines.push(l));
  return lines;
}
function errorOf(fn) {
  try { fn(); } catch (e) { return e.message; }
  return null;
}
function weightInfo(model) {
  return model.weights.map((w) => ({name: w.name, originalName: w.originalName, shape: w.shape, trainable: w.trainable}));
}
function setDeterministicWeights(model) {
  const given = model.weights.map((w, j) => values(sizeOf(w.shape), j));
  const tensors = model.weights.map((w, j) => tf.tensor(given[j], w.shape));
  model.setWeights(tensors);
  tf.dispose(tensors);
  return given;
}

// ------------------------------------------------------------ seq scenarios
const ACTIVATIONS = ['elu', 'hardSigmoid', 'linear', 'relu', 'relu6', 'selu', 'sigmoid', 'softmax',
  'softplus', 'softsign', 'tanh', 'swish', 'mish', 'gelu', 'gelu_new', 'logSoftmax'];
const SEQ = {};
for (const act of ACTIVATIONS) {
  SEQ['dense_' + act] = {layers: [{factory: 'dense', args: {units: 3, activation: act, inputShape: [4]}}], x: [5, 4]};
}
Object.assign(SEQ, {
  dense_no_bias: {layers: [{factory: 'dense', args: {units: 2, useBias: false, inputShape: [3]}}], x: [4, 3]},
  dense_input_dim: {layers: [{factory: 'dense', args: {units: 2, inputDim: 3, activation: 'tanh'}}], x: [3, 3]},
  dense_rank3: {layers: [{factory: 'dense', args: {units: 2, inputShape: [2, 3]}}], x: [2, 2, 3]},
  dense_rank3_sigmoid: {layers: [{factory: 'dense', args: {units: 2, activation: 'sigmoid', inputShape: [2, 3]}}], x: [2, 2, 3]},
  dense_named_batch: {layers: [{factory: 'dense', args: {units: 2, batchInputShape: [null, 3], name: 'my_dense', trainable: false}}], x: [2, 3]},
  dense_batch_size: {layers: [{factory: 'dense', args: {units: 1, inputShape: [2], batchSize: 4}}], x: [4, 2]},
  dense_initializers: {layers: [{factory: 'dense', args: {units: 2, inputShape: [3],
    kernelInitializer: {$init: ['heUniform', {seed: 3}]}, biasInitializer: {$init: ['constant', {value: 0.5}]}}},
  {factory: 'dense', args: {units: 2, kernelInitializer: 'leCunNormal', biasInitializer: 'ones'}},
  {factory: 'dense', args: {units: 2, kernelInitializer: {$init: ['varianceScaling', {scale: 2, mode: 'fanOut', distribution: 'uniform', seed: 5}]},
    biasInitializer: {$init: ['randomNormal', {mean: 0.1, stddev: 0.2, seed: 7}]}}},
  {factory: 'dense', args: {units: 2, kernelInitializer: {$init: ['orthogonal', {gain: 1.5, seed: 2}]},
    biasInitializer: {$init: ['randomUniform', {minval: -0.2, maxval: 0.3, seed: 1}]}}},
  {factory: 'dense', args: {units: 2, kernelInitializer: {$init: ['truncatedNormal', {mean: 0, stddev: 0.3, seed: 4}]},
    biasInitializer: {$init: ['identity', {gain: 2}]}, useBias: false}},
  {factory: 'dense', args: {units: 2, kernelInitializer: 'glorotUniform', biasInitializer: 'zeros'}}], x: [2, 3]},
  dense_reg_con: {layers: [{factory: 'dense', args: {units: 2, inputShape: [3],
    kernelRegularizer: {$reg: ['l2', {l2: 0.01}]}, biasRegularizer: {$reg: ['l1l2', {l1: 0.1, l2: 0.2}]},
    kernelConstraint: {$con: ['maxNorm', {maxValue: 0.5, axis: 0}]}, biasConstraint: {$con: ['nonNeg']}}},
  {factory: 'dense', args: {units: 2, kernelRegularizer: {$reg: ['l1', {l1: 0.05}]},
    kernelConstraint: {$con: ['unitNorm', {axis: 1}]}, biasConstraint: {$con: ['minMaxNorm', {minValue: 0.1, maxValue: 0.3, rate: 0.5}]}}},
  {factory: 'dense', args: {units: 1, kernelRegularizer: 'l1l2', kernelConstraint: 'nonNeg'}}], x: [3, 3]},
  activation_relu: {layers: [{factory: 'activation', args: {activation: 'relu', inputShape: [3]}}], x: [4, 3]},
  activation_softmax_rank3: {layers: [{factory: 'activation', args: {activation: 'softmax', inputShape: [2, 3]}}], x: [2, 2, 3]},
  activation_linear: {layers: [{factory: 'activation', args: {activation: 'linear', inputShape: [3]}}], x: [2, 3]},
  dropout: {layers: [{factory: 'dropout', args: {rate: 0.5, inputShape: [4]}}], x: [3, 4]},
  dropout_noise_shape: {layers: [{factory: 'dense', args: {units: 3, inputShape: [4]}},
    {factory: 'dropout', args: {rate: 0.3, noiseShape: [null, 1], seed: 7}}], x: [3, 4]},
  spatial_dropout1d: {layers: [{factory: 'spatialDropout1d', args: {rate: 0.3, inputShape: [3, 4], seed: 2}}], x: [2, 3, 4]},
  flatten: {layers: [{factory: 'flatten', args: {inputShape: [2, 3, 2]}}], x: [2, 2, 3, 2]},
  flatten_channels_first: {layers: [{factory: 'flatten', args: {dataFormat: 'channelsFirst', inputShape: [2, 3, 2]}}], x: [2, 2, 3, 2]},
  repeat_vector: {layers: [{factory: 'repeatVector', args: {n: 3, inputShape: [4]}}], x: [2, 4]},
  reshape: {layers: [{factory: 'reshape', args: {targetShape: [2, -1], inputShape: [6]}}], x: [3, 6]},
  reshape_3d: {layers: [{factory: 'reshape', args: {targetShape: [3, 2], inputShape: [2, 3]}},
    {factory: 'dense', args: {units: 2}}], x: [2, 2, 3]},
  permute: {layers: [{factory: 'permute', args: {dims: [2, 1], inputShape: [2, 3]}}], x: [2, 2, 3]},
  permute_3d: {layers: [{factory: 'permute', args: {dims: [3, 1, 2], inputShape: [2, 3, 4]}}], x: [2, 2, 3, 4]},
  masking: {layers: [{factory: 'masking', args: {maskValue: 0.5, inputShape: [3, 2]}}], x: [2, 3, 2], maskRows: true},
  mlp: {layers: [{factory: 'dense', args: {units: 4, activation: 'relu', inputShape: [3]}},
    {factory: 'dropout', args: {rate: 0.2}}, {factory: 'dense', args: {units: 3, activation: 'softmax'}}], x: [7, 3], batchSize: 3},
  input_layer_first: {layers: [{factory: 'inputLayer', args: {inputShape: [3], name: 'first_input'}},
    {factory: 'dense', args: {units: 2}}], x: [2, 3]},
});

function runSeq(name, spec) {
  const layers = spec.layers.map(makeLayer);
  const model = tf.sequential({layers});
  const givenWeights = setDeterministicWeights(model);
  const xVals = inputValues(spec.x, 1);
  if (spec.maskRows) for (let i = 0; i < spec.x[2]; ++i) xVals[i] = 0.5;  // masks step 0 of sample 0
  const x = tf.tensor(xVals, spec.x);
  const out = {kind: 'seq', spec, x: xVals};
  out.layerNames = model.layers.map((l) => l.name);
  out.modelName = model.name;
  out.weights = weightInfo(model);
  out.givenWeights = givenWeights;
  out.weightValues = model.getWeights().map((w) => Array.from(w.dataSync()));
  out.countParams = model.countParams();
  out.summary = summaryLines(model);
  out.summaryNarrow = summaryLines(model, 70, [0.4, 0.6, 0.85, 1]);
  out.jsonString = model.toJSON();
  let before = mem();
  const y = model.predict(x);
  out.predictDelta = delta(before);
  out.y = enc(y);
  before = mem();
  const y2 = model.predict(x, {batchSize: spec.batchSize || 2});
  out.predictBatchedDelta = delta(before);
  out.yBatched = enc(y2);
  before = mem();
  tf.tidy(() => { model.predict(x); });
  out.tidyPredictDelta = delta(before);
  before = mem();
  const y3 = model.predictOnBatch(x);
  out.predictOnBatchDelta = delta(before);
  tf.dispose([y, y2, y3]);
  before = mem();
  const r = model.dispose();
  out.dispose = [r.refCountAfterDispose, r.numDisposedVariables];
  out.disposeDelta = delta(before);
  out.disposeAgainError = errorOf(() => model.dispose());
  x.dispose();
  return out;
}

// ---------------------------------------------------------- custom scenarios
const CUSTOM = {};

CUSTOM.functional_two_in_two_out = () => {
  const a = tf.input({shape: [3], name: 'in_a'});
  const b = tf.input({shape: [3]});
  const shared = tf.layers.dense({units: 4, activation: 'tanh', name: 'shared'});
  const ha = shared.apply(a);
  const hb = shared.apply(b);
  const head1 = tf.layers.dense({units: 2});
  const out1 = head1.apply(ha);
  const act = tf.layers.activation({activation: 'sigmoid'});
  const out2 = act.apply(hb);
  const model = tf.model({inputs: [a, b], outputs: [out1, out2]});
  const out = {};
  out.names = {a: a.name, b: b.name, ha: ha.name, hb: hb.name, out1: out1.name, out2: out2.name,
    model: model.name, layers: model.layers.map((l) => l.name), inputNames: model.inputNames, outputNames: model.outputNames};
  out.shapes = {ha: ha.shape, out1: out1.shape, out2: out2.shape};
  out.givenWeights = setDeterministicWeights(model);
  out.weights = weightInfo(model);
  out.summary = summaryLines(model);
  out.jsonString = model.toJSON();
  const xa = tf.tensor(inputValues([5, 3], 1), [5, 3]);
  const xb = tf.tensor(inputValues([5, 3], 2), [5, 3]);
  out.xa = Array.from(xa.dataSync()); out.xb = Array.from(xb.dataSync());
  let before = mem();
  const ys = model.predict([xa, xb], {batchSize: 2});
  out.predictDelta = delta(before);
  out.ys = enc(ys);
  out.executeSharedError = errorOf(() => model.execute([xa, xb], [ha.name, out2.name]));
  tf.dispose(ys);
  out.getLayerByIndex = model.getLayer(null, 2).name;
  out.getLayerByNumber = model.getLayer(3).name;
  out.errors = {
    noSuchLayer: errorOf(() => model.getLayer('nope')),
    layerIndex: errorOf(() => model.getLayer(null, 9)),
    predictOneTensor: errorOf(() => model.predict(xa)),
    predictWrongShape: errorOf(() => model.predict([xa, tf.zeros([5, 2])])),
  };
  out.countParams = model.countParams();
  before = mem();
  const r = model.dispose();
  out.dispose = [r.refCountAfterDispose, r.numDisposedVariables];
  out.disposeDelta = delta(before);
  out.disposeAgainError = errorOf(() => model.dispose());
  out.applyDisposedError = errorOf(() => shared.apply(xa));
  return out;
};

CUSTOM.functional_branches = () => {
  const a = tf.input({shape: [4]});
  const h = tf.layers.dense({units: 3, activation: 'relu'}).apply(a);
  const o1 = tf.layers.dense({units: 2}).apply(h);
  const o2 = tf.layers.dense({units: 1, activation: 'sigmoid'}).apply(h);
  const model = tf.model({inputs: a, outputs: [o1, o2], name: 'branches'});
  const out = {};
  out.names = {a: a.name, h: h.name, o1: o1.name, o2: o2.name, layers: model.layers.map((l) => l.name)};
  out.givenWeights = setDeterministicWeights(model);
  out.summary = summaryLines(model);
  out.jsonString = model.toJSON();
  const x = tf.tensor(inputValues([3, 4], 3), [3, 4]);
  out.x = Array.from(x.dataSync());
  let before = mem();
  const ys = model.predict(x);
  out.predictDelta = delta(before);
  out.ys = enc(ys);
  before = mem();
  const ex = model.execute(x, [h.name, o2.name]);
  out.executeDelta = delta(before);
  out.execute = enc(ex);
  before = mem();
  const exDict = model.execute({[a.name]: x}, h.name);
  out.executeDictDelta = delta(before);
  out.executeDict = enc(exDict);
  out.executeUnknown = errorOf(() => model.execute(x, 'nope'));
  out.executeEmpty = errorOf(() => model.execute(x, []));
  out.executeCount = errorOf(() => model.execute([x, x], h.name));
  return out;
};

CUSTOM.nested_model = () => {
  const inner = tf.sequential({layers: [
    tf.layers.dense({units: 3, activation: 'relu', inputShape: [2]}), tf.layers.dense({units: 2})]});
  const x = tf.input({shape: [2]});
  const y = inner.apply(x);
  const z = tf.layers.dense({units: 1, activation: 'sigmoid'}).apply(y);
  const model = tf.model({inputs: x, outputs: z});
  const out = {};
  out.names = {inner: inner.name, model: model.name, layers: model.layers.map((l) => l.name), y: y.name, z: z.name};
  out.givenWeights = setDeterministicWeights(model);
  out.weights = weightInfo(model);
  out.summary = summaryLines(model);
  out.innerSummary = summaryLines(inner);
  out.jsonString = model.toJSON();
  const xv = tf.tensor(inputValues([3, 2], 4), [3, 2]);
  out.x = Array.from(xv.dataSync());
  let before = mem();
  const yv = model.predict(xv);
  out.predictDelta = delta(before);
  out.y = enc(yv);
  out.innerY = enc(inner.predict(xv));
  before = mem();
  const r = model.dispose();
  out.dispose = [r.refCountAfterDispose, r.numDisposedVariables];
  out.disposeDelta = delta(before);
  return out;
};

CUSTOM.sequential_of_sequential = () => {
  const inner = tf.sequential({layers: [tf.layers.dense({units: 3, inputShape: [2]})]});
  const outer = tf.sequential();
  outer.add(inner);
  outer.add(tf.layers.dense({units: 1}));
  const out = {};
  out.names = {inner: inner.name, outer: outer.name, layers: outer.layers.map((l) => l.name)};
  out.givenWeights = setDeterministicWeights(outer);
  out.weights = weightInfo(outer);
  out.summary = summaryLines(outer);
  out.jsonString = outer.toJSON();
  const xv = tf.tensor(inputValues([2, 2], 5), [2, 2]);
  out.x = Array.from(xv.dataSync());
  out.y = enc(outer.predict(xv));
  const before = mem();
  const r = outer.dispose();
  out.dispose = [r.refCountAfterDispose, r.numDisposedVariables];
  out.disposeDelta = delta(before);
  return out;
};

CUSTOM.dense_apply_dispose = () => {  // catalog M14
  const out = {};
  const d = tf.layers.dense({units: 1, inputShape: [4]});
  out.notBuiltError = errorOf(() => d.dispose());
  const x = tf.zeros([2, 4]);
  let before = mem();
  const y = d.apply(x);
  out.applyDelta = delta(before);
  out.name = d.name;
  out.weightNames = d.weights.map((w) => w.name);
  before = mem();
  const r = d.dispose();
  out.dispose = [r.refCountAfterDispose, r.numDisposedVariables];
  out.disposeDelta = delta(before);
  out.disposeAgainError = errorOf(() => d.dispose());
  out.applyAfterError = errorOf(() => d.apply(x));
  tf.dispose([x, y]);
  const built = tf.layers.dense({units: 1});
  built.build([null, 2]);
  out.notUsedError = errorOf(() => built.dispose());
  out.builtWeightNames = built.weights.map((w) => w.name);
  return out;
};

CUSTOM.shared_layer_two_models = () => {
  const d = tf.layers.dense({units: 2, inputShape: [3]});
  const m1 = tf.sequential({layers: [d]});
  const x = tf.input({shape: [3]});
  const m2 = tf.model({inputs: x, outputs: d.apply(x)});
  const out = {names: [m1.name, m2.name, d.name]};
  let before = mem();
  let r = m1.dispose();
  out.dispose1 = [r.refCountAfterDispose, r.numDisposedVariables];
  out.delta1 = delta(before);
  before = mem();
  r = m2.dispose();
  out.dispose2 = [r.refCountAfterDispose, r.numDisposedVariables];
  out.delta2 = delta(before);
  return out;
};

CUSTOM.eager_layer_memory = () => {
  const out = {};
  const x = tf.tensor2d([[1, 0, 2], [0, 0, 0]]);
  const x3 = tf.tensor3d([[[1, 0], [0, 0]], [[0, 0], [2, 3]]]);
  const cases = {
    dense_first: [tf.layers.dense({units: 2, kernelInitializer: 'ones'}), x],
    activation_linear: [tf.layers.activation({activation: 'linear'}), x],
    activation_elu: [tf.layers.activation({activation: 'elu'}), x],
    activation_gelu_new: [tf.layers.activation({activation: 'gelu_new'}), x],
    dropout_infer: [tf.layers.dropout({rate: 0.5}), x],
    dropout_rate0: [tf.layers.dropout({rate: 0}), x],
    spatial_dropout: [tf.layers.spatialDropout1d({rate: 0.5}), x3],
    flatten: [tf.layers.flatten(), x3],
    repeat_vector: [tf.layers.repeatVector({n: 2}), x],
    reshape: [tf.layers.reshape({targetShape: [3, 1]}), x],
    permute: [tf.layers.permute({dims: [2, 1]}), x3],
    masking: [tf.layers.masking(), x3],
  };
  for (const [name, [layer, input]] of Object.entries(cases)) {
    let before = mem();
    const y = layer.apply(input);
    const first = delta(before);
    before = mem();
    const y2 = layer.apply(input);
    const second = delta(before);
    before = mem();
    tf.tidy(() => { layer.apply(input); });
    const tidied = delta(before);
    out[name] = {first, second, tidied, y: enc(y)};
    if (name === 'dropout_infer') {
      before = mem();
      const yt = layer.apply(input, {training: true});
      out[name].trainingDelta = delta(before);
      out[name].trainingShape = yt.shape;
    }
  }
  return out;
};

CUSTOM.errors = () => {
  const out = {};
  const d = tf.layers.dense({units: 2, inputShape: [4]});
  out.rank1 = errorOf(() => d.apply(tf.zeros([4])));
  d.apply(tf.zeros([1, 4]));
  out.wrongLastDim = errorOf(() => d.apply(tf.zeros([2, 3])));
  out.unknownActivation = errorOf(() => tf.layers.dense({units: 2, activation: 'foo'}));
  out.unknownInitializer = errorOf(() => tf.layers.dense({units: 2, kernelInitializer: 'foo'}));
  out.badUnits = errorOf(() => tf.layers.dense({units: 0}));
  out.badUnitsFloat = errorOf(() => tf.layers.dense({units: 1.5}));
  out.setWeightsCount = errorOf(() => d.setWeights([tf.zeros([4, 2])]));
  out.setWeightsShape = errorOf(() => d.setWeights([tf.zeros([4, 3]), tf.zeros([2])]));
  out.permuteDims = errorOf(() => tf.layers.permute({dims: [1, 3]}));
  out.reshapeSize = errorOf(() => tf.layers.reshape({targetShape: [4]}).apply(tf.zeros([2, 3])));
  out.reshapeTwoUnknown = errorOf(() => tf.layers.reshape({targetShape: [-1, -1]}).apply(tf.zeros([2, 4])));
  out.repeatVectorNdim = errorOf(() => tf.layers.repeatVector({n: 2}).apply(tf.zeros([2, 3, 4])));
  out.spatialNdim = errorOf(() => tf.layers.spatialDropout1d({rate: 0.1}).apply(tf.zeros([2, 3])));
  out.flattenUndefined = errorOf(() => tf.layers.flatten().apply(tf.input({shape: [null, 3]})));
  out.flattenRank2 = errorOf(() => tf.layers.flatten().apply(tf.zeros([2, 3])));
  out.seqNoInputShape = errorOf(() => tf.sequential({layers: [tf.layers.dense({units: 1})]}));
  out.inputNoShape = errorOf(() => tf.input({}));
  out.inputBoth = errorOf(() => tf.input({shape: [2], batchShape: [null, 2]}));
  out.mixedSymbolic = errorOf(() => tf.layers.dense({units: 1}).apply([tf.input({shape: [2]}), tf.zeros([1, 2])]));
  const m = tf.sequential({layers: [tf.layers.dense({units: 2, inputShape: [3]})]});
  out.predictWrongShape = errorOf(() => m.predict(tf.zeros([2, 4])));
  out.predictWrongRank = errorOf(() => m.predict(tf.zeros([2, 3, 1])));
  out.predictScalar = errorOf(() => m.predict(tf.scalar(1)));
  out.predictBatchSize = errorOf(() => m.predict(tf.zeros([2, 3]), {batchSize: 0}));
  out.predictOnBatchWrongShape = errorOf(() => m.predictOnBatch(tf.zeros([2, 4])));
  out.inputLayerApply = errorOf(() => tf.layers.inputLayer({inputShape: [2], name: 'il'}).apply(tf.zeros([1, 2])));
  out.countParamsNotBuilt = errorOf(() => tf.layers.dense({units: 1}).countParams());
  out.duplicateNames = errorOf(() => {
    const i = tf.input({shape: [2]});
    const a = tf.layers.dense({units: 2, name: 'same'}).apply(i);
    const b = tf.layers.dense({units: 2, name: 'same'}).apply(a);
    return tf.model({inputs: i, outputs: b});
  });
  out.disconnected = errorOf(() => {
    const i1 = tf.input({shape: [2]});
    const i2 = tf.input({shape: [2]});
    return tf.model({inputs: i1, outputs: tf.layers.dense({units: 1}).apply(i2)});
  });
  return out;
};

CUSTOM.naming = async () => {
  const out = {};
  const d1 = tf.layers.dense({units: 1});
  const d2 = tf.layers.dense({units: 1});
  const act = tf.layers.activation({activation: 'relu'});
  const sd = tf.layers.spatialDropout1d({rate: 0.1});
  const rv = tf.layers.repeatVector({n: 2});
  const i1 = tf.input({shape: [2]});
  const i2 = tf.input({shape: [2], name: 'custom'});
  const s1 = tf.sequential();
  const s2 = tf.sequential();
  const m1 = tf.model({inputs: i1, outputs: d1.apply(i1)});
  const m2 = tf.model({inputs: i2, outputs: d2.apply(i2)});
  out.layers = [d1.name, d2.name, act.name, sd.name, rv.name, i1.name, i2.name];
  out.models = [s1.name, s2.name, m1.name, m2.name];
  out.weights = [...m1.weights, ...m2.weights].map((w) => [w.name, w.originalName]);
  // The same config loaded three times: weight names get suffixes, original names do not.
  const base = tf.sequential({layers: [tf.layers.dense({units: 2, inputShape: [3], name: 'reused'})]});
  const json = base.toJSON(null, false);
  const loaded = [];
  for (let i = 0; i < 3; ++i) {
    const m = await tf.models.modelFromJSON({modelTopology: json});
    loaded.push(m.weights.map((w) => [w.name, w.originalName]));
  }
  out.loaded = loaded;
  return out;
};

CUSTOM.constraints_regularizers = () => {
  const w = tf.tensor2d([[1, -2, 3], [-4, 5, -6]]);
  const out = {w: Array.from(w.dataSync())};
  const cons = {
    maxNorm: tf.constraints.maxNorm({maxValue: 4, axis: 0}),
    maxNormAxis1: tf.constraints.maxNorm({maxValue: 4, axis: 1}),
    unitNorm: tf.constraints.unitNorm({axis: 1}),
    nonNeg: tf.constraints.nonNeg(),
    minMaxNorm: tf.constraints.minMaxNorm({minValue: 2, maxValue: 5, rate: 0.7, axis: 0}),
  };
  out.constraints = {};
  for (const [k, c] of Object.entries(cons)) {
    out.constraints[k] = {y: Array.from(c.apply(w).dataSync()), config: c.getConfig(), className: c.getClassName()};
  }
  const regs = {l1: tf.regularizers.l1({l1: 0.1}), l2: tf.regularizers.l2(), l1l2: tf.regularizers.l1l2({l1: 0.01, l2: 0.5}),
    l1Default: tf.regularizers.l1()};
  out.regularizers = {};
  for (const [k, r] of Object.entries(regs)) {
    out.regularizers[k] = {y: r.apply(w).dataSync()[0], config: r.getConfig()};
  }
  return out;
};

CUSTOM.initializers = () => {
  const out = {};
  const inits = {
    zeros: tf.initializers.zeros(), ones: tf.initializers.ones(), constant: tf.initializers.constant({value: 3}),
    randomUniform: tf.initializers.randomUniform({minval: -1, maxval: 2, seed: 3}),
    randomNormal: tf.initializers.randomNormal({mean: 1, stddev: 2, seed: 3}),
    truncatedNormal: tf.initializers.truncatedNormal({stddev: 0.5, seed: 9}),
    identity: tf.initializers.identity({gain: 3}),
    varianceScaling: tf.initializers.varianceScaling({scale: 3, mode: 'fanAvg', distribution: 'uniform', seed: 11}),
    glorotUniform: tf.initializers.glorotUniform({seed: 1}), glorotNormal: tf.initializers.glorotNormal({seed: 1}),
    heNormal: tf.initializers.heNormal({seed: 2}), heUniform: tf.initializers.heUniform({seed: 2}),
    leCunNormal: tf.initializers.leCunNormal({seed: 3}), leCunUniform: tf.initializers.leCunUniform({seed: 3}),
    orthogonal: tf.initializers.orthogonal({gain: 2, seed: 5}),
  };
  for (const [k, init] of Object.entries(inits)) {
    const shape = k === 'identity' ? [3, 3] : [3, 4];
    const before = mem();
    const t = init.apply(shape);
    out[k] = {y: enc(t), delta: delta(before), config: init.getConfig(), className: init.getClassName()};
  }
  const conv = tf.initializers.glorotUniform({seed: 4}).apply([3, 3, 2, 4]);
  out.convKernel = enc(conv);
  return out;
};

// ------------------------------------------------------------------- driver
async function runOne(name) {
  if (name in SEQ) return runSeq(name, SEQ[name]);
  return Object.assign({kind: 'custom'}, await CUSTOM[name]());
}

if (process.argv[2] === '--one') {
  runOne(process.argv[3]).then((result) => {
    process.stdout.write('@@RESULT@@' + JSON.stringify(result));
  });
} else {
  const names = [...Object.keys(SEQ), ...Object.keys(CUSTOM)];
  const results = {};
  for (const name of names) {
    const stdout = execFileSync(process.execPath, [__filename, '--one', name], {encoding: 'utf8', maxBuffer: 1 << 26});
    results[name] = JSON.parse(stdout.slice(stdout.indexOf('@@RESULT@@') + 10));
    process.stderr.write('.');
  }
  const file = path.join(__dirname, 'results', 'layers_core.json');
  const lines = names.map((n) => `  ${JSON.stringify(n)}: ${JSON.stringify(results[n])}`);
  fs.writeFileSync(file, `{"tfjsVersion": ${JSON.stringify(tf.version.tfjs)}, "scenarios": {\n${lines.join(',\n')}\n}}\n`);
  process.stderr.write(`\nwrote ${names.length} scenarios to ${file}\n`);
}
