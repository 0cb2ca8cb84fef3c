// Differential fuzz of the Layers API and the model format: draws RANDOM but valid layer
// configurations of every TF.js 4.22 layer family (seeded, so the file is reproducible),
// builds each in a small model with seeded random weights on the cpu backend, and writes
// results/layer_configs_fuzz.json, which tests/layers/test_layer_configs_fuzz.py replays.
// Run: cd tests/golden && node layer_configs_fuzz.js [seed] [outfile]
// (the committed file uses the default seed; another seed hunts elsewhere).
//
// Each case records:
//   recipe: {model: 'sequential'|'functional', name, inputs: [{name, shape, dtype}],
//            layers: [{spec, inbound}], outputs}, where spec = {factory, args} (TF.js's factory
//            name and camelCase args; args.layer / args.cell hold nested specs) and inbound /
//            outputs are refs: 'in<j>', <layer index> or [<layer index>, <output index>];
//   inputs: [{shape, dtype, b64}] (float32 little-endian, batch included);
//   outputs: predict()'s [{shape, b64}];
//   layer_output_shapes: model.layers[i].outputShape;
//   topology, weight_specs, weight_data (base64): what model.save() hands a save handler
//     (model.toJSON(null, false) equals topology; the script checks it);
//   reloaded_same: whether TF.js's own loadLayersModel(fromMemory(artifacts)) predicts the same;
//   reloaded_outputs: what the reloaded model predicts, when that differs (loading applies the
//     weights' constraints a second time, which moves unitNorm'ed weights), else null;
//   reloaded_topology: that reloaded model's toJSON when it differs from topology (an
//     Embedding built without an input shape gains dtype: 'float32'), else null.
// A drawn configuration that TF.js refuses is dropped (counted in `refused`) and drawn again.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const SEED = Number(process.argv[2] || 20250611);
const OUTFILE = process.argv[3] || path.join(__dirname, 'results', 'layer_configs_fuzz.json');

// ------------------------------------------------------------------ seeded random numbers
const { mulberry32 } = require('./prng');
let rand = mulberry32(SEED);
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));  // inclusive
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const coin = (p = 0.5) => rand() < p;
const round3 = (x) => Math.round(x * 1000) / 1000;
const prod = (s) => s.reduce((a, b) => a * b, 1);

// 'gelu_new' is left out: TF.js 4.22 registers it but its serialization name (geluNew) does not
// deserialize ("Unknown activation: geluNew"), so a model using it cannot be built by name.
const ACTIVATIONS = ['linear', 'relu', 'sigmoid', 'tanh', 'elu', 'selu', 'softplus', 'softsign',
  'hardSigmoid', 'relu6', 'swish', 'mish', 'gelu', 'softmax'];
const act = () => pick(ACTIVATIONS);
const fmt = () => pick(['channelsLast', 'channelsFirst']);
const pad = () => pick(['valid', 'same']);
const b64 = (arr) => Buffer.from(new Float32Array(arr).buffer).toString('base64');

// Maybe an int, maybe an n-tuple.
function intOrTuple(n, lo, hi) {
  if (coin(0.4)) return randInt(lo, hi);
  return Array.from({length: n}, () => randInt(lo, hi));
}
const tuple = (v, n) => (Array.isArray(v) ? v : Array(n).fill(v));

// Spatial sizes that a kernel/stride/dilation/padding accepts (valid padding needs size >=
// the dilated kernel).
function spatialFor(kernel, dilation, n) {
  const k = tuple(kernel, n);
  const d = tuple(dilation || 1, n);
  return k.map((kk, i) => (kk - 1) * d[i] + 1 + randInt(0, 3));
}
// [spatial..., channels] or [channels, spatial...]
const withChannels = (spatial, c, dataFormat) =>
  (dataFormat === 'channelsFirst' ? [c, ...spatial] : [...spatial, c]);

// ------------------------------------------------------------------ single-layer draws
// Each returns {spec, inputShape (no batch), [dtype], [values]}.
function convDraw(rank, factory) {
  const kernel = intOrTuple(rank, 1, 3);
  const useStrides = coin();
  const strides = useStrides ? intOrTuple(rank, 1, 3) : 1;
  const transpose = /Transpose/.test(factory);
  // TF.js's DepthwiseConv2D.call never hands dilationRate to the op (its output shape and
  // values ignore it, while the config keeps it): no dilation for depthwiseConv2d.
  const dilates = !useStrides && !transpose && factory !== 'depthwiseConv2d';
  const dilation = (dilates && coin(0.5)) ? intOrTuple(rank, 1, 2) : 1;
  // TF.js's Conv1D with channelsFirst computes in channels-last and never transposes back
  // (predict's shape disagrees with its own outputShape), and its getConfig drops data_format.
  let dataFormat = factory === 'conv1d' ? 'channelsLast' : fmt();
  const args = {kernelSize: kernel, padding: pad(), dataFormat, activation: act(),
    useBias: coin(0.7)};
  if (factory !== 'depthwiseConv2d') args.filters = randInt(1, 4);
  if (strides !== 1 || coin(0.2)) args.strides = strides;
  if (dilation !== 1 || coin(0.1)) args.dilationRate = dilation;
  if (factory === 'separableConv2d' || factory === 'depthwiseConv2d') {
    if (coin(0.6)) args.depthMultiplier = randInt(1, 3);
  }
  // TF.js's SeparableConv2D with channelsFirst adds the bias in channels-first layout to its
  // still channels-last result (wrong values, or a broadcast error): no bias there.
  if (factory === 'separableConv2d' && dataFormat === 'channelsFirst') args.useBias = false;
  if (coin(0.15)) delete args.dataFormat;
  if (coin(0.15)) delete args.activation;
  const spatial = spatialFor(kernel, dilation, rank);
  return {spec: {factory, args}, inputShape: withChannels(spatial, randInt(1, 3),
    args.dataFormat || 'channelsLast')};
}

function poolDraw(rank, kind) {
  const factory = `${kind}Pooling${rank}d`;
  const poolSize = rank === 1 ? pick([randInt(1, 3), [randInt(1, 3)]]) : intOrTuple(rank, 1, 3);
  const args = {poolSize, padding: pad()};
  if (coin(0.6)) args.strides = rank === 1 ? randInt(1, 3) : intOrTuple(rank, 1, 3);
  let dataFormat = 'channelsLast';
  if (rank > 1 && coin(0.5)) { dataFormat = fmt(); args.dataFormat = dataFormat; }
  if (coin(0.1)) delete args.poolSize;
  const spatial = spatialFor(args.poolSize || 2, 1, rank);
  return {spec: {factory, args}, inputShape: withChannels(spatial, randInt(1, 3), dataFormat)};
}

function globalPoolDraw() {
  const rank = pick([1, 2]);
  const factory = `global${pick(['Average', 'Max'])}Pooling${rank}d`;
  const args = {};
  let dataFormat = 'channelsLast';
  if (rank === 2 && coin(0.6)) { dataFormat = fmt(); args.dataFormat = dataFormat; }
  const spatial = Array.from({length: rank}, () => randInt(1, 4));
  return {spec: {factory, args}, inputShape: withChannels(spatial, randInt(1, 3), dataFormat)};
}

function rnnArgs(kind, units) {
  const args = {units};
  if (coin(0.5)) args.activation = pick(['tanh', 'relu', 'sigmoid', 'linear', 'softsign']);
  if (kind !== 'simpleRNN' && coin(0.5)) {
    args.recurrentActivation = pick(['hardSigmoid', 'sigmoid', 'tanh']);
  }
  if (coin(0.3)) args.useBias = false;
  if (coin(0.2)) args.dropout = 0.3;
  if (coin(0.2)) args.recurrentDropout = 0.2;
  if (kind === 'lstm' && coin(0.3)) args.unitForgetBias = coin();
  if (kind !== 'simpleRNN' && coin(0.3)) args.implementation = pick([1, 2]);
  // TF.js's GRUCell refuses resetAfter: true ("does not support reset_after")
  if (kind === 'gru' && coin(0.3)) args.resetAfter = false;
  return args;
}

function recurrentDraw() {
  const kind = pick(['simpleRNN', 'gru', 'lstm']);
  const args = rnnArgs(kind, randInt(1, 4));
  if (coin(0.5)) args.returnSequences = true;
  if (coin(0.35)) args.returnState = true;
  if (coin(0.4)) args.goBackwards = true;
  if (coin(0.2)) args.stateful = false;
  return {spec: {factory: kind, args}, inputShape: [randInt(1, 4), randInt(1, 3)]};
}

function cellRnnDraw() {
  const kinds = ['simpleRNN', 'gru', 'lstm'];
  const cellSpec = () => {
    const kind = pick(kinds);
    const a = rnnArgs(kind, randInt(1, 3));
    return {factory: `${kind}Cell`, args: a};
  };
  const cell = coin(0.35) ? [cellSpec(), cellSpec()] : cellSpec();
  const args = {cell};
  if (coin(0.5)) args.returnSequences = true;
  if (coin(0.3)) args.returnState = true;
  if (coin(0.4)) args.goBackwards = true;
  return {spec: {factory: 'rnn', args}, inputShape: [randInt(1, 4), randInt(1, 3)]};
}

const SINGLE = {
  dense() {
    const args = {units: randInt(1, 5)};
    if (coin(0.7)) args.activation = act();
    if (coin(0.3)) args.useBias = false;
    const shape = coin(0.7) ? [randInt(1, 5)] : [randInt(1, 3), randInt(1, 4)];
    return {spec: {factory: 'dense', args}, inputShape: shape};
  },
  activation() {
    const shape = Array.from({length: randInt(1, 3)}, () => randInt(1, 4));
    return {spec: {factory: 'activation', args: {activation: act()}}, inputShape: shape};
  },
  dropout() {
    const args = {rate: round3(rand() * 0.9)};
    if (coin(0.2)) args.seed = randInt(0, 100);
    return {spec: {factory: 'dropout', args}, inputShape: [randInt(1, 4), randInt(1, 3)]};
  },
  flatten() {
    const shape = Array.from({length: randInt(2, 4)}, () => randInt(1, 3));  // ndim >= 3
    const args = coin(0.5) ? {dataFormat: fmt()} : {};
    return {spec: {factory: 'flatten', args}, inputShape: shape};
  },
  reshape() {
    const shape = Array.from({length: randInt(1, 3)}, () => randInt(1, 4));
    // target: a random factorization of the size, maybe with one -1
    const n = prod(shape);
    const target = [];
    let left = n;
    for (let i = 0; i < 3 && left > 1; i++) {
      const divs = [];
      for (let d = 1; d <= left; d++) if (left % d === 0) divs.push(d);
      const d = pick(divs);
      target.push(d);
      left /= d;
    }
    target.push(left);
    if (coin(0.4)) target[randInt(0, target.length - 1)] = -1;
    return {spec: {factory: 'reshape', args: {targetShape: target}}, inputShape: shape};
  },
  permute() {
    const rank = randInt(2, 4);
    const dims = Array.from({length: rank}, (_, i) => i + 1);
    for (let i = dims.length - 1; i > 0; i--) {
      const j = randInt(0, i);
      [dims[i], dims[j]] = [dims[j], dims[i]];
    }
    const shape = Array.from({length: rank}, () => randInt(1, 3));
    return {spec: {factory: 'permute', args: {dims}}, inputShape: shape};
  },
  repeatVector() {
    return {spec: {factory: 'repeatVector', args: {n: randInt(1, 4)}},
      inputShape: [randInt(1, 4)]};
  },
  conv1d: () => convDraw(1, 'conv1d'),
  conv2d: () => convDraw(2, 'conv2d'),
  conv2dTranspose: () => convDraw(2, 'conv2dTranspose'),
  conv3d: () => convDraw(3, 'conv3d'),
  separableConv2d: () => convDraw(2, 'separableConv2d'),
  depthwiseConv2d: () => convDraw(2, 'depthwiseConv2d'),
  pool1d: () => poolDraw(1, pick(['max', 'average'])),
  pool2d: () => poolDraw(2, pick(['max', 'average'])),
  pool3d: () => poolDraw(3, pick(['max', 'average'])),
  globalPool: globalPoolDraw,
  upSampling2d() {
    const args = {};
    // TF.js's UpSampling2D reads size[0] and size[1]: a number size gives NaN sizes and a
    // [b, null, null, c] tensor, where tidytensor (like Keras) repeats the number: pairs only.
    if (coin(0.7)) args.size = [randInt(1, 3), randInt(1, 3)];
    if (coin(0.5)) args.interpolation = pick(['nearest', 'bilinear']);
    let dataFormat = 'channelsLast';
    if (coin(0.5)) { dataFormat = fmt(); args.dataFormat = dataFormat; }
    return {spec: {factory: 'upSampling2d', args},
      inputShape: withChannels([randInt(1, 3), randInt(1, 3)], randInt(1, 2), dataFormat)};
  },
  cropping2D() {
    const h = randInt(3, 6);
    const w = randInt(3, 6);
    const c = () => [randInt(0, 1), randInt(0, 1)];
    const cropping = pick([randInt(0, 1), [randInt(0, 1), randInt(0, 1)], [c(), c()]]);
    const args = {cropping};
    let dataFormat = 'channelsLast';
    if (coin(0.5)) { dataFormat = fmt(); args.dataFormat = dataFormat; }
    return {spec: {factory: 'cropping2D', args},
      inputShape: withChannels([h, w], randInt(1, 2), dataFormat)};
  },
  zeroPadding2d() {
    const c = () => [randInt(0, 2), randInt(0, 2)];
    const args = {};
    if (coin(0.8)) args.padding = pick([randInt(0, 2), [randInt(0, 2), randInt(0, 2)], [c(), c()]]);
    let dataFormat = 'channelsLast';
    if (coin(0.5)) { dataFormat = fmt(); args.dataFormat = dataFormat; }
    return {spec: {factory: 'zeroPadding2d', args},
      inputShape: withChannels([randInt(1, 3), randInt(1, 3)], randInt(1, 2), dataFormat)};
  },
  batchNormalization() {
    const rank = randInt(1, 3);  // TF.js's batchNorm kernel stops at rank 4
    const shape = Array.from({length: rank}, () => randInt(1, 4));
    const args = {};
    if (coin(0.6)) args.axis = pick([-1, ...Array.from({length: rank}, (_, i) => i + 1)]);
    if (coin(0.4)) args.momentum = round3(rand());
    if (coin(0.4)) args.epsilon = pick([1e-3, 0.01, 0.1, 1e-5]);
    if (coin(0.3)) args.center = false;
    if (coin(0.3)) args.scale = false;
    return {spec: {factory: 'batchNormalization', args}, inputShape: shape};
  },
  layerNormalization() {
    const rank = randInt(1, 3);
    const shape = Array.from({length: rank}, () => randInt(2, 4));
    const args = {};
    const axes = Array.from({length: rank}, (_, i) => i + 1);
    if (coin(0.7)) {
      const pickAxis = () => (coin(0.3) ? pick(axes) - rank - 1 : pick(axes));
      const a = pickAxis();
      const b = pickAxis();
      const norm = (x) => (x < 0 ? x + rank + 1 : x);
      args.axis = (coin(0.5) || norm(a) === norm(b)) ? a : [a, b];
    }
    if (coin(0.4)) args.epsilon = pick([1e-3, 0.01, 0.1]);
    if (coin(0.3)) args.center = false;
    if (coin(0.3)) args.scale = false;
    return {spec: {factory: 'layerNormalization', args}, inputShape: shape};
  },
  embedding() {
    const inputDim = randInt(2, 6);
    const len = randInt(1, 4);
    const args = {inputDim, outputDim: randInt(1, 4)};
    if (coin(0.4)) args.maskZero = true;
    if (coin(0.4)) args.inputLength = len;
    return {spec: {factory: 'embedding', args}, inputShape: [len], ints: inputDim};
  },
  recurrent: recurrentDraw,
  cellRnn: cellRnnDraw,
  bidirectional() {
    const kind = pick(['simpleRNN', 'gru', 'lstm']);
    const inner = rnnArgs(kind, randInt(1, 3));
    if (coin(0.5)) inner.returnSequences = true;
    if (coin(0.3)) inner.goBackwards = true;
    const args = {layer: {factory: kind, args: inner}};
    if (coin(0.8)) args.mergeMode = pick(['concat', 'sum', 'mul', 'ave', null]);
    return {spec: {factory: 'bidirectional', args}, inputShape: [randInt(1, 4), randInt(1, 3)]};
  },
  timeDistributed() {
    const t = randInt(1, 3);
    const which = randInt(0, 2);
    if (which === 0) {
      const inner = {factory: 'dense', args: {units: randInt(1, 3), activation: act()}};
      return {spec: {factory: 'timeDistributed', args: {layer: inner}},
        inputShape: [t, randInt(1, 4)]};
    }
    if (which === 1) {
      const inner = {factory: 'conv2d', args: {filters: randInt(1, 2), kernelSize: 2,
        padding: pad()}};
      return {spec: {factory: 'timeDistributed', args: {layer: inner}},
        inputShape: [t, randInt(2, 3), randInt(2, 3), randInt(1, 2)]};
    }
    return {spec: {factory: 'timeDistributed', args: {layer: {factory: 'flatten', args: {}}}},
      inputShape: [t, randInt(1, 3), randInt(1, 3)]};
  },
  noise(k) {
    const factory = ['alphaDropout', 'gaussianNoise', 'gaussianDropout'][k % 3];
    const args = factory === 'gaussianNoise' ? {stddev: round3(rand())} : {rate: round3(rand() * 0.8)};
    return {spec: {factory, args}, inputShape: [randInt(1, 3), randInt(1, 4)]};
  },
  advancedActivation(k) {
    const factory = ['prelu', 'elu', 'leakyReLU', 'reLU', 'thresholdedReLU', 'softmax'][k % 6];
    const rank = randInt(1, 3);
    const shape = Array.from({length: rank}, () => randInt(1, 4));
    const args = {};
    if (factory === 'prelu' && rank > 1 && coin(0.5)) {
      args.sharedAxes = coin() ? randInt(1, rank) : [...new Set([randInt(1, rank), randInt(1, rank)])];
    }
    if (factory === 'prelu' && coin(0.3)) args.alphaInitializer = 'ones';
    // TF.js's ELU layer refuses any alpha but 1 ("not supported ... yet")
    if (factory === 'elu' && coin(0.5)) args.alpha = 1;
    if (factory === 'leakyReLU' && coin(0.7)) args.alpha = round3(rand());
    if (factory === 'reLU' && coin(0.7)) args.maxValue = round3(rand() * 2);
    if (factory === 'thresholdedReLU' && coin(0.7)) args.theta = round3(rand() * 1.5);
    // TF.js's softmax kernel only takes the last axis
    if (factory === 'softmax' && coin(0.7)) args.axis = pick([-1, rank]);
    return {spec: {factory, args}, inputShape: shape};
  },
};

// ------------------------------------------------------------------ decorations
// Random initializers / regularizers / constraints (by name or as {className, config}) and
// trainable: false, on the weights each factory has: they only change the configuration and
// (trainable) the order of model.weights, since the weights are overwritten afterwards.
const INITIALIZERS = ['zeros', 'ones', 'glorotUniform', 'glorotNormal', 'heNormal', 'heUniform',
  'leCunNormal', 'leCunUniform', 'randomNormal', 'randomUniform', 'truncatedNormal',
  'orthogonal', 'varianceScaling',
  () => ({className: 'VarianceScaling', config: {scale: round3(rand() * 3 + 0.1),
    mode: pick(['fanIn', 'fanOut', 'fanAvg']), distribution: pick(['normal', 'uniform',
      'truncatedNormal']), seed: randInt(0, 99)}}),
  () => ({className: 'RandomNormal', config: {mean: round3(rand()), stddev: round3(rand() + 0.01)}}),
  () => ({className: 'RandomUniform', config: {minval: -round3(rand()), maxval: round3(rand())}}),
  () => ({className: 'TruncatedNormal', config: {mean: 0, stddev: round3(rand() + 0.01)}}),
  () => ({className: 'Constant', config: {value: round3(rand() * 2 - 1)}}),
  () => ({className: 'Orthogonal', config: {gain: round3(rand() * 2 + 0.1)}})];
const REGULARIZERS = ['l1l2',
  () => ({className: 'L1L2', config: {l1: round3(rand() * 0.1), l2: round3(rand() * 0.1)}}),
  () => ({className: 'L1L2', config: {l1: round3(rand() * 0.1)}}),
  () => ({className: 'L1L2', config: {l2: round3(rand() * 0.1)}})];
const CONSTRAINTS = ['maxNorm', 'nonNeg', 'unitNorm', 'minMaxNorm',
  (oneD) => ({className: 'MaxNorm', config: {maxValue: round3(rand() * 3 + 0.1),
    axis: oneD ? 0 : randInt(0, 1)}}),
  (oneD) => ({className: 'UnitNorm', config: {axis: oneD ? 0 : randInt(0, 1)}}),
  // (rate 1 only: a LayerVariable's write() applies the constraint, so loading applies it a
  // second time, and a MinMaxNorm with rate < 1 moves the weights again, in TF.js as here.)
  () => ({className: 'MinMaxNorm', config: {minValue: 0.1, maxValue: round3(rand() * 2 + 0.2),
    rate: 1, axis: 0}})];
const drawFrom = (xs, oneD) => {
  const x = pick(xs);
  return typeof x === 'function' ? x(oneD) : x;
};
// Orthogonal refuses 1-D weights (bias, beta, gamma).
const INIT_1D = INITIALIZERS.filter((x, i) => x !== 'orthogonal' && i !== INITIALIZERS.length - 1);
const CONV = ['kernel', 'bias'];
const WEIGHTS = {dense: CONV, conv1d: CONV, conv2d: CONV, conv3d: CONV, conv2dTranspose: CONV,
  separableConv2d: ['depthwise', 'pointwise', 'bias'], depthwiseConv2d: ['depthwise', 'bias'],
  simpleRNN: ['kernel', 'recurrent', 'bias'], gru: ['kernel', 'recurrent', 'bias'],
  lstm: ['kernel', 'recurrent', 'bias'], simpleRNNCell: ['kernel', 'recurrent', 'bias'],
  gruCell: ['kernel', 'recurrent', 'bias'], lstmCell: ['kernel', 'recurrent', 'bias'],
  embedding: ['embeddings'], batchNormalization: ['beta', 'gamma'],
  prelu: ['alpha']};
// layerNormalization takes initializers and regularizers only (TF.js ignores constraint
// arguments there; tidytensor refuses arguments a layer does not have).
const NO_CONSTRAINTS = new Set(['layerNormalization']);
WEIGHTS.layerNormalization = ['beta', 'gamma'];
function decorate(factory, args) {
  // (Constraints matter: a LayerVariable's write() applies its constraint, so the weights
  // set below and those loaded back are constrained.)
  // depthwiseConv2d gets no depthwiseRegularizer: TF.js cannot load its own save of one
  // ("shape of the new value () and previous value (...) must match"); nor a
  // depthwiseConstraint: TF.js's getConfig writes depthwise_constraint: null whatever it is.
  for (const w of WEIGHTS[factory] || []) {
    const oneD = ['bias', 'beta', 'gamma'].includes(w);
    // (no pointwiseInitializer: TF.js's SeparableConv2D uses depthwiseInitializer in its place,
    // a bug tidytensor fixes, documented in layers/convolutional.py)
    if (w !== 'pointwise' && coin(0.2)) {
      args[`${w}Initializer`] = drawFrom(oneD ? INIT_1D : INITIALIZERS);
    }
    const noReg = w === 'alpha' || (factory === 'depthwiseConv2d' && w === 'depthwise');
    if (!noReg && coin(0.15)) args[`${w}Regularizer`] = drawFrom(REGULARIZERS);
    const noConstraint = (factory === 'depthwiseConv2d' && w === 'depthwise') ||
      NO_CONSTRAINTS.has(factory);
    if (!noConstraint && coin(0.12)) args[`${w}Constraint`] = drawFrom(CONSTRAINTS, oneD);
  }
  if (factory === 'batchNormalization') {
    if (coin(0.15)) args.movingMeanInitializer = drawFrom(INITIALIZERS);
    if (coin(0.15)) args.movingVarianceInitializer = pick(['ones', 'zeros']);
  }
  // (activityRegularizer is left out: TF.js refuses to apply such a layer symbolically,
  // "Layer invocation in the presence of activity regularizer(s) is not supported yet".)
  if (coin(0.08)) args.trainable = false;
}

// ------------------------------------------------------------------ model recipes
let layerNo = 0;
function named(spec) {
  const args = {...spec.args};
  decorate(spec.factory, args);
  for (const key of ['layer', 'cell']) {
    if (args[key] === undefined) continue;
    args[key] = Array.isArray(args[key]) ? args[key].map(named) : named(args[key]);
  }
  args.name = `${spec.factory.toLowerCase()}_${++layerNo}`;
  return {factory: spec.factory, args};
}

function singleRecipe(name, family, k) {
  const d = SINGLE[family](k);
  const spec = named(d.spec);
  const returnsState = d.spec.args.returnState || (d.spec.factory === 'bidirectional' &&
    d.spec.args.mergeMode === null);
  if (returnsState || coin(0.3)) {
    // functional: tf.input -> layer (all of its outputs are model outputs)
    return {model: 'functional', name, inputs: [{name: `${name}_in`, shape: d.inputShape,
      dtype: 'float32'}], layers: [{spec, inbound: ['in0']}], outputs: 'all', ints: d.ints};
  }
  spec.args.inputShape = d.inputShape;
  if (coin(0.2)) {
    delete spec.args.inputShape;
    spec.args.batchInputShape = [null, ...d.inputShape];
  }
  return {model: 'sequential', name, inputs: [{shape: d.inputShape, dtype: 'float32'}],
    layers: [{spec}], ints: d.ints};
}

// Functional mixes: branches joined by a merge layer, maybe masking + recurrent, etc.
function mergeRecipe(name, k) {
  const kind = ['add', 'concatenate', 'average', 'maximum', 'minimum', 'multiply', 'dot'][k % 7];
  const nIn = kind === 'dot' ? 2 : randInt(2, 3);
  const rank = kind === 'dot' ? randInt(1, 2) : randInt(1, 3);
  const base = Array.from({length: rank}, () => randInt(1, 4));
  const inputs = [];
  const layers = [];
  const refs = [];
  const args = {};
  for (let j = 0; j < nIn; j++) {
    let shape = [...base];
    if (kind === 'concatenate' && rank > 0) {
      args.axis = args.axis !== undefined ? args.axis
        : pick([-1, ...Array.from({length: rank}, (_, i) => i + 1)]);
      const ax = args.axis < 0 ? rank - 1 : args.axis - 1;
      shape[ax] = randInt(1, 3);
    }
    inputs.push({name: `${name}_in${j}`, shape, dtype: 'float32'});
    if (coin(0.4) && kind !== 'dot' && kind !== 'concatenate') {
      // a dense branch keeping the shape
      layers.push({spec: named({factory: 'dense', args: {units: shape[shape.length - 1],
        activation: act()}}), inbound: [`in${j}`]});
      refs.push(layers.length - 1);
    } else {
      refs.push(`in${j}`);
    }
  }
  if (kind === 'dot') {
    const r = rank + 1;  // with batch
    if (r === 2) args.axes = pick([1, -1, [1, 1]]);
    else {
      const a = randInt(1, 2);
      const b = randInt(1, 2);
      // make the contracted axes agree
      inputs[1].shape[b - 1] = inputs[0].shape[a - 1];
      args.axes = coin(0.3) ? a : [a, b];
      if (!Array.isArray(args.axes)) inputs[1].shape[a - 1] = inputs[0].shape[a - 1];
    }
    if (coin(0.5)) args.normalize = coin();
  }
  layers.push({spec: named({factory: kind, args}), inbound: refs});
  if (coin(0.5)) {
    layers.push({spec: named({factory: 'dense', args: {units: randInt(1, 3)}}),
      inbound: [layers.length - 1]});
  }
  return {model: 'functional', name, inputs, layers, outputs: [layers.length - 1]};
}

function maskingRecipe(name) {
  const t = randInt(2, 5);
  const f = randInt(1, 3);
  const maskValue = pick([0, -1, 1.5]);
  const kind = pick(['simpleRNN', 'gru', 'lstm']);
  const rargs = rnnArgs(kind, randInt(1, 3));
  if (coin(0.5)) rargs.returnSequences = true;
  if (coin(0.3)) rargs.goBackwards = true;
  const layers = [{spec: named({factory: 'masking', args: {maskValue}})}];
  if (coin(0.3)) layers.push({spec: named({factory: 'bidirectional', args: {
    layer: {factory: kind, args: rargs}, mergeMode: pick(['concat', 'sum', 'ave', 'mul'])}})});
  else layers.push({spec: named({factory: kind, args: rargs})});
  if (coin(0.3)) layers.push({spec: named({factory: 'dense', args: {units: 2}})});
  layers[0].spec.args.inputShape = [t, f];
  return {model: 'sequential', name, inputs: [{shape: [t, f], dtype: 'float32'}], layers,
    maskValue};
}

function embeddingRnnRecipe(name) {
  const inputDim = randInt(3, 6);
  const t = randInt(2, 5);
  const kind = pick(['simpleRNN', 'gru', 'lstm']);
  const rargs = rnnArgs(kind, randInt(1, 3));
  if (coin(0.5)) rargs.returnSequences = true;
  const layers = [
    {spec: named({factory: 'embedding', args: {inputDim, outputDim: randInt(1, 3),
      maskZero: coin(0.7), inputShape: [t]}})},
    {spec: named({factory: kind, args: rargs})},
  ];
  if (rargs.returnSequences && coin(0.5)) {
    layers.push({spec: named({factory: 'globalAveragePooling1d', args: {}})});
  }
  return {model: 'sequential', name, inputs: [{shape: [t], dtype: 'float32'}], layers,
    ints: inputDim};
}

function convStackRecipe(name) {
  const dataFormat = fmt();
  const c = randInt(1, 3);
  const h = randInt(5, 8);
  const w = randInt(5, 8);
  const layers = [
    {spec: named({factory: 'conv2d', args: {filters: randInt(1, 3), kernelSize: pick([2, 3]),
      padding: pad(), dataFormat, activation: act(), inputShape: withChannels([h, w], c,
        dataFormat)}})},
    {spec: named({factory: pick(['maxPooling2d', 'averagePooling2d']), args: {poolSize: 2,
      dataFormat, padding: 'same'}})},
  ];
  if (coin(0.5)) layers.push({spec: named({factory: 'batchNormalization',
    args: {axis: dataFormat === 'channelsFirst' ? 1 : -1}})});
  if (coin(0.5)) layers.push({spec: named({factory: 'zeroPadding2d', args: {padding: 1,
    dataFormat}})});
  layers.push({spec: named({factory: pick(['flatten', 'globalAveragePooling2d',
    'globalMaxPooling2d']), args: pick([{}, {dataFormat}])})});
  layers.push({spec: named({factory: 'dense', args: {units: randInt(1, 3),
    activation: 'softmax'}})});
  return {model: 'sequential', name, inputs: [{shape: layers[0].spec.args.inputShape,
    dtype: 'float32'}], layers};
}

function residualRecipe(name) {
  const f = randInt(2, 4);
  const t = randInt(2, 4);
  const inputs = [{name: `${name}_in`, shape: [t, f], dtype: 'float32'}];
  const layers = [
    {spec: named({factory: 'dense', args: {units: f, activation: act()}}), inbound: ['in0']},
    {spec: named({factory: 'layerNormalization', args: {}}), inbound: [0]},
    {spec: named({factory: 'add', args: {}}), inbound: ['in0', 1]},
    {spec: named({factory: pick(['lstm', 'gru', 'simpleRNN']), args: {units: 2,
      returnSequences: true, returnState: true}}), inbound: [2]},
    {spec: named({factory: 'concatenate', args: {axis: -1}}), inbound: [[3, 0], 2]},
    {spec: named({factory: 'flatten', args: {}}), inbound: [4]},
    {spec: named({factory: 'dense', args: {units: randInt(1, 3)}}), inbound: [5]},
  ];
  return {model: 'functional', name, inputs, layers, outputs: [6, [3, 1]]};
}

function sharedLayerRecipe(name) {
  const f = randInt(1, 4);
  const inputs = [{name: `${name}_a`, shape: [f], dtype: 'float32'},
    {name: `${name}_b`, shape: [f], dtype: 'float32'}];
  const layers = [
    {spec: named({factory: 'dense', args: {units: randInt(1, 3), activation: act()}}),
      inbound: ['in0'], shared: ['in1']},
    {spec: named({factory: pick(['add', 'multiply', 'maximum', 'concatenate', 'average']), args: {}}),
      inbound: [[0, 0], [0, 1]]},
  ];
  return {model: 'functional', name, inputs, layers, outputs: [1]};
}

function nestedModelRecipe(name) {
  const f = randInt(2, 4);
  return {model: 'nested', name, inputs: [{shape: [f], dtype: 'float32'}],
    inner: {factory: 'dense', args: {units: randInt(1, 3), activation: act()}},
    outer: {factory: 'dense', args: {units: randInt(1, 3)}}};
}

// ------------------------------------------------------------------ building in TF.js
function make(spec) {
  const args = {...spec.args};
  for (const key of ['layer', 'cell']) {
    if (args[key] === undefined) continue;
    args[key] = Array.isArray(args[key]) ? args[key].map(make) : make(args[key]);
  }
  return tf.layers[spec.factory](args);
}

function build(recipe) {
  if (recipe.model === 'sequential') {
    return tf.sequential({name: recipe.name, layers: recipe.layers.map((l) => make(l.spec))});
  }
  if (recipe.model === 'nested') {
    const inner = tf.sequential({name: `${recipe.name}_inner`, layers: [make({...recipe.inner,
      args: {...recipe.inner.args, name: `${recipe.name}_d1`, inputShape: recipe.inputs[0].shape}})]});
    return tf.sequential({name: recipe.name, layers: [inner, make({...recipe.outer,
      args: {...recipe.outer.args, name: `${recipe.name}_d2`}})]});
  }
  const ins = recipe.inputs.map((i) => tf.input({shape: i.shape, name: i.name, dtype: i.dtype}));
  const outs = [];
  const deref = (r) => {
    if (typeof r === 'string') return ins[Number(r.slice(2))];
    if (Array.isArray(r)) return outs[r[0]][r[1]];
    const o = outs[r];
    return Array.isArray(o) && o.length === 1 ? o[0] : o;
  };
  for (const l of recipe.layers) {
    const layer = make(l.spec);
    const xs = l.inbound.map(deref);
    let y = layer.apply(xs.length === 1 ? xs[0] : xs);
    if (l.shared) {
      const y2 = layer.apply(l.shared.map(deref)[0]);
      y = [y, y2];
    }
    outs.push(Array.isArray(y) ? y : [y]);
  }
  let outputs;
  if (recipe.outputs === 'all') outputs = outs[outs.length - 1];
  else outputs = recipe.outputs.map((r) => (Array.isArray(r) ? outs[r[0]][r[1]] : outs[r][0]));
  return tf.model({inputs: ins, outputs: outputs.length === 1 ? outputs[0] : outputs,
    name: recipe.name});
}

function setRandomWeights(model) {
  for (const w of model.weights) {
    const n = prod(w.shape);
    const fanIn = w.shape.length > 1 ? prod(w.shape.slice(0, -1)) : 4;
    const scale = 1.5 / Math.sqrt(Math.max(fanIn, 1));
    let values = Array.from({length: n}, () => (rand() * 2 - 1) * scale);
    if (/variance/.test(w.originalName)) values = values.map((v) => Math.abs(v) + 0.5);
    if (/gamma/.test(w.originalName)) values = values.map((v) => v + 1);
    const t = tf.tensor(values, w.shape, w.dtype);
    w.write(t);
    t.dispose();
  }
}

function makeInput(shape, recipe) {
  const n = prod(shape);
  let values;
  if (recipe.ints) values = Array.from({length: n}, () => randInt(0, recipe.ints - 1));
  else values = Array.from({length: n}, () => round3(rand() * 4 - 2));
  if (recipe.maskValue !== undefined) {
    // mask whole timesteps: [batch, t, f]
    const [b, t, f] = shape;
    for (let i = 0; i < b; i++) {
      for (let s = 0; s < t; s++) {
        if (coin(0.35)) for (let k = 0; k < f; k++) values[(i * t + s) * f + k] = recipe.maskValue;
      }
    }
  }
  return values;
}

const FAMILIES = Object.keys(SINGLE);
const PER_FAMILY = {dense: 4, activation: 6, dropout: 2, flatten: 3, reshape: 4, permute: 3,
  repeatVector: 2, conv1d: 7, conv2d: 8, conv2dTranspose: 7, conv3d: 5, separableConv2d: 7,
  depthwiseConv2d: 7, pool1d: 5, pool2d: 7, pool3d: 5, globalPool: 5, upSampling2d: 5,
  cropping2D: 4, zeroPadding2d: 4, batchNormalization: 7, layerNormalization: 7, embedding: 4,
  recurrent: 10, cellRnn: 8, bidirectional: 8, timeDistributed: 4, noise: 4,
  advancedActivation: 9};
const MIXES = {merge: [mergeRecipe, 11], masking: [maskingRecipe, 6],
  embeddingRnn: [embeddingRnnRecipe, 4], convStack: [convStackRecipe, 4],
  residual: [residualRecipe, 2], shared: [sharedLayerRecipe, 3], nested: [nestedModelRecipe, 2]};

async function runCase(recipe) {
  recipe = JSON.parse(JSON.stringify(recipe));  // TF.js writes customObjects into configs
  const recipeOut = JSON.parse(JSON.stringify(recipe));
  const model = build(recipe);
  setRandomWeights(model);
  const inShapes = model.inputs.map((i) => [2, ...i.shape.slice(1)]);
  const inputs = inShapes.map((s) => ({shape: s, dtype: 'float32', values: makeInput(s, recipe)}));
  const xs = inputs.map((i) => tf.tensor(i.values, i.shape, 'float32'));
  let ys = model.predict(xs.length === 1 ? xs[0] : xs);
  ys = Array.isArray(ys) ? ys : [ys];
  const outputs = ys.map((y) => ({shape: y.shape, b64: b64(y.dataSync())}));
  for (const y of ys) {
    const v = y.dataSync();
    for (let i = 0; i < v.length; i++) {
      if (!Number.isFinite(v[i])) throw new Error(`non-finite output ${v[i]}`);
    }
  }
  let artifacts;
  await model.save(tf.io.withSaveHandler(async (a) => {
    artifacts = a;
    return {modelArtifactsInfo: {dateSaved: new Date(), modelTopologyType: 'JSON'}};
  }));
  const toJSON = model.toJSON(null, false);
  if (JSON.stringify(toJSON) !== JSON.stringify(artifacts.modelTopology)) {
    throw new Error('toJSON differs from the saved topology');
  }
  // TF.js's own round trip (some configurations do not survive it: reload_error)
  let reloadedSame = false;
  let reloadError = null;
  let reloadedTopology = null;
  let reloadedOutputs = null;
  try {
    const loaded = await tf.loadLayersModel(tf.io.fromMemory(artifacts));
    const again = loaded.toJSON(null, false);
    if (JSON.stringify(again) !== JSON.stringify(artifacts.modelTopology)) reloadedTopology = again;
    let ys2 = loaded.predict(xs.length === 1 ? xs[0] : xs);
    ys2 = Array.isArray(ys2) ? ys2 : [ys2];
    reloadedSame = ys2.length === ys.length;
    for (let k = 0; reloadedSame && k < ys.length; k++) {
      const a = ys[k].dataSync();
      const b = ys2[k].dataSync();
      for (let i = 0; i < a.length; i++) {
      // (a constraint is applied again on load: unitNorm etc. move by a float rounding)
      if (Math.abs(a[i] - b[i]) > 1e-4 * Math.max(1, Math.abs(a[i]))) {
        reloadedSame = false;
        reloadError = `predicts ${b[i]} for ${a[i]} at output ${k}, index ${i}`;
        break;
      }
    }
    }
    if (!reloadedSame) reloadedOutputs = ys2.map((y) => ({shape: y.shape, b64: b64(y.dataSync())}));
    tf.dispose(ys2);
    loaded.dispose();
  } catch (e) {
    reloadError = e.message;
    if (process.env.VERBOSE) console.error('reload', recipe.name, JSON.stringify(recipe), e.message);
  }
  const layerOutputShapes = model.layers.map((l) => l.outputShape);
  tf.dispose([xs, ys]);
  model.dispose();
  delete recipeOut.ints;
  delete recipeOut.maskValue;
  return {
    name: recipe.name,
    recipe: recipeOut,
    inputs: inputs.map((i) => ({shape: i.shape, dtype: i.dtype, b64: b64(i.values)})),
    outputs,
    layer_output_shapes: layerOutputShapes,
    topology: artifacts.modelTopology,
    weight_specs: artifacts.weightSpecs,
    weight_data: Buffer.from(artifacts.weightData).toString('base64'),
    reloaded_same: reloadedSame,
    reload_error: reloadError,
    reloaded_topology: reloadedTopology,
    reloaded_outputs: reloadedOutputs,
  };
}

async function main() {
  await tf.setBackend('cpu');
  const cases = [];
  const refused = {};
  const drawAndRun = async (family, draw, k) => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const name = `${family}_${k}`;
      const recipe = draw(name);
      try {
        cases.push(await runCase(recipe));
        return;
      } catch (e) {
        refused[family] = (refused[family] || 0) + 1;
        if (process.env.VERBOSE) console.error(family, JSON.stringify(recipe), e.message);
      }
    }
    throw new Error(`${family}: no valid draw in 20 tries`);
  };
  for (const family of FAMILIES) {
    for (let k = 0; k < PER_FAMILY[family]; k++) {
      await drawAndRun(family, (name) => singleRecipe(name, family, k), k);
    }
  }
  for (const [family, [draw, count]] of Object.entries(MIXES)) {
    for (let k = 0; k < count; k++) await drawAndRun(family, (name) => draw(name, k), k);
  }
  const notReloaded = cases.filter((c) => !c.reloaded_same).map((c) => c.name);
  console.log('TF.js cannot reload (the same):', notReloaded.join(' '));
  const out = {tfjs_version: tf.version.tfjs, seed: SEED, refused, cases};
  fs.writeFileSync(OUTFILE, JSON.stringify(out) + '\n');
  const size = fs.statSync(OUTFILE).size;
  console.log(`wrote ${cases.length} cases (${size} bytes) to ${OUTFILE}; refused`, refused);
}

// The recipe drawers are shared with layer_grads_fuzz.js (reseed() restarts the stream).
function reseed(seed) {
  rand = mulberry32(seed);
  layerNo = 0;
}
module.exports = {reseed, rand: () => rand(), randInt, pick, coin, round3, prod, b64, SINGLE,
  FAMILIES, PER_FAMILY, MIXES, singleRecipe, build, setRandomWeights, makeInput};

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
