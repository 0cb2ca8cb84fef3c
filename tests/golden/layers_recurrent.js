// Runs the recurrent-layer scenarios (SimpleRNN, GRU, LSTM, their cells, RNN, StackedRNNCells,
// Bidirectional, TimeDistributed, ConvLSTM2D) on real TF.js 4.22.0 (cpu backend) and writes
// results/layers_recurrent.json, which tests/layers/test_recurrent.py, test_wrappers.py and
// test_convolutional_recurrent.py replay with tidytensor.
// Run: cd tests/golden && node layers_recurrent.js
//
// Each scenario runs in a fresh Node process (`node layers_recurrent.js --one <name>`), so
// layer and weight names start from 1 as in a fresh program.
//
// Scenario kinds:
//   seq: a Sequential model from {factory, args} layer specs (TF.js's camelCase arguments;
//        {"$layer": spec} stands for a nested layer or cell, a list of them for a list).
//   fn:  a functional model made by BUILDERS[name] (mirrored in the Python tests).
// For both, every weight is set to deterministic values, then recorded: names, configs
// (toJSON), summary, predict outputs and memory deltas; unless noGrad, the loss
// L = sum over outputs of mean((y - target)^2) with training=true, its gradients for every
// trainable weight and for the float inputs; unless noTrain, the weights after one
// compile({sgd(0.5), 'meanSquaredError'}) + trainOnBatch step.
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
function intValues(shape, seed, high) {
  const out = [];
  for (let i = 0; i < sizeOf(shape); ++i) out.push((i * 7 + seed * 3) % high);
  return out;
}
function mem() { const m = tf.memory(); return [m.numTensors, m.numDataBuffers]; }
function delta(before) { const m = mem(); return [m[0] - before[0], m[1] - before[1]]; }
function enc(t) {
  if (Array.isArray(t)) return t.map(enc);
  return {shape: t.shape, dtype: t.dtype, values: Array.from(t.dataSync())};
}
function toList(x) { return Array.isArray(x) ? x : [x]; }
function summaryLines(model) {
  const lines = [];
  model.summary(undefined, undefined, (l) => lines.push(l));
  return lines;
}
function errorOf(fn) {
  try { fn(); } catch (e) { return e.message; }
  return null;
}
function resolveArg(v) {
  if (Array.isArray(v)) return v.map(resolveArg);
  if (v !== null && typeof v === 'object' && '$layer' in v) return makeLayer(v.$layer);
  return v;
}
function makeLayer(spec) {
  const args = {};
  for (const [k, v] of Object.entries(spec.args || {})) args[k] = resolveArg(v);
  return tf.layers[spec.factory](args);
}
function setDeterministicWeights(model) {
  const given = model.weights.map((w, j) => values(sizeOf(w.shape), j));
  const tensors = model.weights.map((w, j) => tf.tensor(given[j], w.shape));
  model.setWeights(tensors);
  tf.dispose(tensors);
  return given;
}
// Input j of a scenario: {shape, seed?, dtype?, high?, zeroSteps?: [[sample, step], ...]}.
function makeInput(spec, j) {
  let vals;
  if (spec.dtype === 'int32') {
    vals = intValues(spec.shape, j + 1, spec.high);
  } else {
    vals = inputValues(spec.shape, j + 1);
  }
  const perStep = sizeOf(spec.shape.slice(2));
  for (const [s, t] of spec.zeroSteps || []) {
    const start = (s * spec.shape[1] + t) * perStep;
    for (let k = 0; k < perStep; ++k) vals[start + k] = 0;
  }
  return {vals, tensor: tf.tensor(vals, spec.shape, spec.dtype || 'float32')};
}
function layerConfigs(model) {
  const json = model.toJSON(null, false);
  const layers = json.config.layers;
  return layers.map((l) => ({className: l.class_name, config: l.config}));
}

// ------------------------------------------------------------ seq scenarios
const L = (factory, args) => ({factory, args});
const SEQ = {
  // SimpleRNN
  srnn_default: {layers: [L('simpleRNN', {units: 3, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  srnn_seq_relu_nobias: {layers: [L('simpleRNN', {units: 3, activation: 'relu', useBias: false, returnSequences: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  srnn_backwards: {layers: [L('simpleRNN', {units: 3, goBackwards: true, returnSequences: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  srnn_back_last: {layers: [L('simpleRNN', {units: 2, goBackwards: true, inputShape: [3, 2]})], xs: [{shape: [3, 3, 2]}]},
  srnn_masking: {layers: [L('masking', {maskValue: 0, inputShape: [5, 2]}), L('simpleRNN', {units: 3, returnSequences: true})],
    xs: [{shape: [3, 5, 2], zeroSteps: [[0, 1], [0, 4], [1, 0], [2, 2], [2, 3]]}]},
  srnn_masking_back: {layers: [L('masking', {inputShape: [5, 2]}), L('simpleRNN', {units: 3, goBackwards: true})],
    xs: [{shape: [2, 5, 2], zeroSteps: [[0, 0], [0, 4], [1, 2]]}]},
  srnn_elu: {layers: [L('simpleRNN', {units: 3, activation: 'elu', returnSequences: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  srnn_hard_sigmoid: {layers: [L('simpleRNN', {units: 3, activation: 'hardSigmoid', returnSequences: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  srnn_sigmoid: {layers: [L('simpleRNN', {units: 2, activation: 'sigmoid', inputShape: [3, 3]})], xs: [{shape: [2, 3, 3]}]},
  srnn_dropout: {layers: [L('simpleRNN', {units: 3, dropout: 0.3, recurrentDropout: 0.2, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}], noTrain: true, noGrad: true},
  srnn_seed001: {layers: [L('simpleRNN', {units: 20, recurrentInitializer: 'GlorotNormal', inputShape: [80, 4]})], xs: [{shape: [2, 80, 4]}]},
  srnn_dense: {layers: [L('simpleRNN', {units: 4, returnSequences: true, inputShape: [3, 2]}), L('simpleRNN', {units: 3}), L('dense', {units: 2})], xs: [{shape: [4, 3, 2]}]},
  // GRU
  gru_default: {layers: [L('gru', {units: 3, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  gru_seq_back: {layers: [L('gru', {units: 3, returnSequences: true, goBackwards: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  gru_relu_sigmoid_nobias: {layers: [L('gru', {units: 2, activation: 'relu', recurrentActivation: 'sigmoid', useBias: false, returnSequences: true, inputShape: [4, 3]})], xs: [{shape: [2, 4, 3]}]},
  gru_masking: {layers: [L('masking', {inputShape: [5, 2]}), L('gru', {units: 3, returnSequences: true})],
    xs: [{shape: [3, 5, 2], zeroSteps: [[0, 1], [1, 0], [1, 4], [2, 2]]}]},
  gru_null_activation: {layers: [L('gru', {units: 2, activation: null, recurrentActivation: 'tanh', inputShape: [3, 2]})], xs: [{shape: [2, 3, 2]}]},
  gru_hard_sigmoid_activation: {layers: [L('gru', {units: 3, activation: 'hardSigmoid', returnSequences: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  gru_softsign: {layers: [L('gru', {units: 3, activation: 'softsign', inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  gru_dropout: {layers: [L('gru', {units: 3, dropout: 0.25, recurrentDropout: 0.25, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}], noTrain: true, noGrad: true},
  // LSTM
  lstm_default: {layers: [L('lstm', {units: 3, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  lstm_seq: {layers: [L('lstm', {units: 3, returnSequences: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  lstm_back_seq: {layers: [L('lstm', {units: 3, returnSequences: true, goBackwards: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  lstm_masking: {layers: [L('masking', {inputShape: [5, 2]}), L('lstm', {units: 3, returnSequences: true})],
    xs: [{shape: [3, 5, 2], zeroSteps: [[0, 1], [0, 2], [1, 4], [2, 0]]}]},
  lstm_masking_back_last: {layers: [L('masking', {inputShape: [5, 2]}), L('lstm', {units: 2, goBackwards: true})],
    xs: [{shape: [2, 5, 2], zeroSteps: [[0, 4], [1, 0], [1, 1]]}]},
  lstm_unit_forget_bias: {layers: [L('lstm', {units: 2, unitForgetBias: true, inputShape: [3, 2]})], xs: [{shape: [2, 3, 2]}]},
  lstm_relu_sigmoid_nobias: {layers: [L('lstm', {units: 3, activation: 'relu', recurrentActivation: 'sigmoid', useBias: false, returnSequences: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  lstm_linear_tanh: {layers: [L('lstm', {units: 2, activation: 'linear', recurrentActivation: 'tanh', inputShape: [3, 2]})], xs: [{shape: [2, 3, 2]}]},
  lstm_hard_sigmoid_activation: {layers: [L('lstm', {units: 3, activation: 'hardSigmoid', returnSequences: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  lstm_stacked_dense: {layers: [L('lstm', {units: 4, returnSequences: true, inputShape: [4, 3]}), L('lstm', {units: 3}), L('dense', {units: 2, activation: 'softmax'})], xs: [{shape: [3, 4, 3]}]},
  lstm_initializers: {layers: [L('lstm', {units: 2, kernelInitializer: 'glorotUniform', recurrentInitializer: 'randomUniform', biasInitializer: 'ones', inputShape: [3, 2], name: 'my_lstm'})], xs: [{shape: [1, 3, 2]}]},
  lstm_dropout: {layers: [L('lstm', {units: 3, dropout: 0.2, recurrentDropout: 0.1, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}], noTrain: true, noGrad: true},
  lstm_embedding_mask: {layers: [L('embedding', {inputDim: 5, outputDim: 3, maskZero: true, inputLength: 4}), L('lstm', {units: 2, returnSequences: true})],
    xs: [{shape: [3, 4], dtype: 'int32', high: 5}]},
  // RNN with cells
  rnn_lstm_cell: {layers: [L('rnn', {cell: {$layer: L('lstmCell', {units: 3})}, returnSequences: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  rnn_gru_cell_back: {layers: [L('rnn', {cell: {$layer: L('gruCell', {units: 2})}, goBackwards: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  rnn_simple_cell: {layers: [L('rnn', {cell: {$layer: L('simpleRNNCell', {units: 2, activation: 'relu'})}, inputShape: [3, 2]})], xs: [{shape: [2, 3, 2]}]},
  rnn_cell_list: {layers: [L('rnn', {cell: [{$layer: L('simpleRNNCell', {units: 2})}, {$layer: L('gruCell', {units: 3})}], returnSequences: true, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  rnn_stacked_cells: {layers: [L('rnn', {cell: {$layer: L('stackedRNNCells', {cells: [{$layer: L('lstmCell', {units: 2})}, {$layer: L('lstmCell', {units: 3})}]})}, inputShape: [3, 2]})], xs: [{shape: [2, 3, 2]}]},
  rnn_stacked_masking: {layers: [L('masking', {inputShape: [4, 2]}), L('rnn', {cell: [{$layer: L('lstmCell', {units: 2})}, {$layer: L('simpleRNNCell', {units: 2})}], returnSequences: true})],
    xs: [{shape: [2, 4, 2], zeroSteps: [[0, 1], [1, 3]]}]},
  // Wrappers
  bidi_lstm_concat: {layers: [L('bidirectional', {layer: {$layer: L('lstm', {units: 3})}, inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  bidi_gru_sum_seq: {layers: [L('bidirectional', {layer: {$layer: L('gru', {units: 3, returnSequences: true})}, mergeMode: 'sum', inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  bidi_lstm_ave_seq: {layers: [L('bidirectional', {layer: {$layer: L('lstm', {units: 2, returnSequences: true})}, mergeMode: 'ave', inputShape: [3, 2]})], xs: [{shape: [2, 3, 2]}]},
  bidi_srnn_mul: {layers: [L('bidirectional', {layer: {$layer: L('simpleRNN', {units: 3})}, mergeMode: 'mul', inputShape: [4, 2]})], xs: [{shape: [2, 4, 2]}]},
  bidi_masking: {layers: [L('masking', {inputShape: [5, 2]}), L('bidirectional', {layer: {$layer: L('lstm', {units: 2, returnSequences: true})}})],
    xs: [{shape: [2, 5, 2], zeroSteps: [[0, 0], [0, 3], [1, 4]]}]},
  bidi_backwards_layer: {layers: [L('bidirectional', {layer: {$layer: L('gru', {units: 2, goBackwards: true, returnSequences: true})}, inputShape: [3, 2]})], xs: [{shape: [2, 3, 2]}]},
  bidi_dense: {layers: [L('bidirectional', {layer: {$layer: L('lstm', {units: 3, returnSequences: true})}, inputShape: [4, 2]}), L('lstm', {units: 2}), L('dense', {units: 1})], xs: [{shape: [2, 4, 2]}]},
  td_dense: {layers: [L('timeDistributed', {layer: {$layer: L('dense', {units: 3, activation: 'relu'})}, inputShape: [3, 4]})], xs: [{shape: [2, 3, 4]}]},
  td_after_lstm: {layers: [L('lstm', {units: 4, returnSequences: true, inputShape: [3, 2]}), L('timeDistributed', {layer: {$layer: L('dense', {units: 2})}})], xs: [{shape: [2, 3, 2]}]},
  td_flatten: {layers: [L('timeDistributed', {layer: {$layer: L('flatten', {})}, inputShape: [3, 2, 2]}), L('simpleRNN', {units: 2})], xs: [{shape: [2, 3, 2, 2]}]},
  // ConvLSTM2D
  convlstm_valid: {layers: [L('convLstm2d', {filters: 2, kernelSize: 3, inputShape: [3, 5, 5, 2]})], xs: [{shape: [2, 3, 5, 5, 2]}]},
  convlstm_same_seq: {layers: [L('convLstm2d', {filters: 2, kernelSize: [3, 2], padding: 'same', returnSequences: true, inputShape: [3, 4, 4, 1]})], xs: [{shape: [1, 3, 4, 4, 1]}]},
  convlstm_strides_back: {layers: [L('convLstm2d', {filters: 1, kernelSize: 2, strides: 2, goBackwards: true, unitForgetBias: true, inputShape: [2, 5, 5, 2]})], xs: [{shape: [2, 2, 5, 5, 2]}]},
  convlstm_channels_first: {layers: [L('convLstm2d', {filters: 2, kernelSize: 2, dataFormat: 'channelsFirst', inputShape: [2, 1, 4, 4]})], xs: [{shape: [1, 2, 1, 4, 4]}]},
};

// ------------------------------------------------------------- fn builders
const BUILDERS = {
  lstm_return_state: () => {
    const x = tf.input({shape: [4, 2]});
    const outs = tf.layers.lstm({units: 3, returnSequences: true, returnState: true}).apply(x);
    return {model: tf.model({inputs: x, outputs: outs}), xs: [{shape: [2, 4, 2]}]};
  },
  gru_return_state: () => {
    const x = tf.input({shape: [4, 2]});
    const outs = tf.layers.gru({units: 3, returnState: true, goBackwards: true}).apply(x);
    return {model: tf.model({inputs: x, outputs: outs}), xs: [{shape: [2, 4, 2]}]};
  },
  srnn_return_state_masking: () => {
    const x = tf.input({shape: [4, 2]});
    const m = tf.layers.masking().apply(x);
    const outs = tf.layers.simpleRNN({units: 2, returnState: true, returnSequences: true}).apply(m);
    return {model: tf.model({inputs: x, outputs: outs}), xs: [{shape: [2, 4, 2], zeroSteps: [[0, 3], [1, 1]]}]};
  },
  lstm_initial_state: () => {
    const x = tf.input({shape: [4, 2]});
    const h0 = tf.input({shape: [3]});
    const c0 = tf.input({shape: [3]});
    const y = tf.layers.lstm({units: 3, returnSequences: true}).apply(x, {initialState: [h0, c0]});
    return {model: tf.model({inputs: [x, h0, c0], outputs: y}), xs: [{shape: [2, 4, 2]}, {shape: [2, 3]}, {shape: [2, 3]}]};
  },
  gru_initial_state: () => {
    const x = tf.input({shape: [3, 2]});
    const h0 = tf.input({shape: [2]});
    const y = tf.layers.gru({units: 2}).apply(x, {initialState: h0});
    return {model: tf.model({inputs: [x, h0], outputs: y}), xs: [{shape: [2, 3, 2]}, {shape: [2, 2]}]};
  },
  bidi_null_merge: () => {
    const x = tf.input({shape: [4, 2]});
    const outs = tf.layers.bidirectional({layer: tf.layers.lstm({units: 2, returnSequences: true}), mergeMode: null}).apply(x);
    return {model: tf.model({inputs: x, outputs: outs}), xs: [{shape: [2, 4, 2]}]};
  },
  bidi_return_state: () => {
    const x = tf.input({shape: [3, 2]});
    const outs = tf.layers.bidirectional({layer: tf.layers.lstm({units: 2, returnState: true})}).apply(x);
    return {model: tf.model({inputs: x, outputs: outs}), xs: [{shape: [2, 3, 2]}]};
  },
  convlstm_return_state: () => {
    const x = tf.input({shape: [2, 4, 4, 1]});
    const outs = tf.layers.convLstm2d({filters: 2, kernelSize: 2, returnState: true}).apply(x);
    return {model: tf.model({inputs: x, outputs: outs}), xs: [{shape: [1, 2, 4, 4, 1]}]};
  },
};

async function runModel(model, xsSpec, opts) {
  const out = {};
  out.layerNames = model.layers.map((l) => l.name);
  out.weights = model.weights.map((w) => ({name: w.name, originalName: w.originalName, shape: w.shape, trainable: w.trainable}));
  out.givenWeights = setDeterministicWeights(model);
  out.layerConfigs = layerConfigs(model);
  out.summary = summaryLines(model);
  out.countParams = model.countParams();
  const inputs = xsSpec.map(makeInput);
  out.xs = inputs.map((i) => i.vals);
  const xs = inputs.map((i) => i.tensor);
  const feed = xs.length === 1 ? xs[0] : xs;
  let before = mem();
  const y = model.predict(feed);
  out.predictDelta = delta(before);
  out.y = enc(y);
  before = mem();
  const y2 = model.predict(feed);
  out.predictDelta2 = delta(before);
  before = mem();
  tf.tidy(() => { model.predict(feed); });
  out.tidyPredictDelta = delta(before);
  tf.dispose([y, y2]);
  const outShapes = toList(model.outputs).map((o) => o.shape);
  const targets = toList(y).map((t, j) => tf.tensor(values(sizeOf(t.shape), 50 + j), t.shape));
  const lossOf = (ys) => tf.addN(toList(ys).map((yy, j) => tf.mean(tf.square(tf.sub(yy, targets[j])))));
  if (!opts.noGrad) {
    const vars = model.trainableWeights.map((w) => w.read());
    const {value, grads} = tf.variableGrads(() => lossOf(model.apply(feed, {training: true})), vars);
    out.loss = value.dataSync()[0];
    out.grads = vars.map((v) => Array.from(grads[v.name].dataSync()));
    const floatIdx = xs.map((x, j) => (x.dtype === 'float32' ? j : -1)).filter((j) => j >= 0);
    if (floatIdx.length > 0) {
      const f = (...args) => {
        const all = xs.slice();
        floatIdx.forEach((j, k) => { all[j] = args[k]; });
        return lossOf(model.apply(all.length === 1 ? all[0] : all, {training: true}));
      };
      try {
        const dxs = tf.grads(f)(floatIdx.map((j) => xs[j]));
        out.inputGrads = floatIdx.map((j, k) => ({index: j, values: Array.from(dxs[k].dataSync())}));
      } catch (e) {
        out.inputGradsError = e.message;
      }
    }
  }
  if (!opts.noTrain) {
    model.compile({optimizer: tf.train.sgd(0.5), loss: 'meanSquaredError'});
    try {
      const lossValue = await model.trainOnBatch(feed, targets.length === 1 ? targets[0] : targets);
      out.trainLoss = lossValue;
      out.trainedWeights = model.getWeights().map((w) => Array.from(w.dataSync()));
    } catch (e) {
      // TF.js adds the outputs' unreduced losses: outputs of different shapes fail.
      out.trainError = e.message;
    }
  }
  out.outShapes = outShapes;
  return out;
}

async function runSeq(name, spec) {
  const layers = spec.layers.map(makeLayer);
  const model = tf.sequential({layers});
  return Object.assign({kind: 'seq', spec}, await runModel(model, spec.xs, spec));
}

async function runFn(name) {
  const {model, xs} = BUILDERS[name]();
  return Object.assign({kind: 'fn', xsSpec: xs}, await runModel(model, xs, {}));
}

// ---------------------------------------------------------- custom scenarios
const CUSTOM = {};

CUSTOM.stateful = () => {
  const model = tf.sequential({layers: [tf.layers.lstm({units: 2, stateful: true, batchInputShape: [2, 3, 2]})]});
  const out = {};
  out.givenWeights = setDeterministicWeights(model);
  const layer = model.layers[0];
  out.initialStates = layer.states.map((s) => enc(s));
  const x = tf.tensor(inputValues([2, 3, 2], 1), [2, 3, 2]);
  out.x = Array.from(x.dataSync());
  let before = mem();
  out.y1 = enc(model.predict(x));
  out.delta1 = delta(before);
  before = mem();
  out.y2 = enc(model.predict(x));
  out.delta2 = delta(before);
  out.statesAfter = layer.states.map((s) => enc(s));
  before = mem();
  model.resetStates();
  out.resetDelta = delta(before);
  out.y3 = enc(model.predict(x));
  const h = tf.tensor(values(4, 9), [2, 2]);
  const c = tf.tensor(values(4, 10), [2, 2]);
  layer.resetStates([h, c]);
  out.y4 = enc(model.predict(x));
  out.resetWrongCount = errorOf(() => layer.resetStates([h]));
  out.resetWrongShape = errorOf(() => layer.resetStates([tf.zeros([3, 2]), tf.zeros([2, 2])]));
  const srnn = tf.sequential({layers: [tf.layers.simpleRNN({units: 2, stateful: true, batchInputShape: [2, 3, 2], returnSequences: true})]});
  setDeterministicWeights(srnn);
  out.srnnY1 = enc(srnn.predict(x));
  out.srnnY2 = enc(srnn.predict(x));
  return out;
};

CUSTOM.stateful_training = async () => {
  const model = tf.sequential({layers: [tf.layers.simpleRNN({units: 2, stateful: true, batchInputShape: [2, 3, 2]}), tf.layers.dense({units: 1})]});
  setDeterministicWeights(model);
  model.compile({optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError'});
  const x = tf.tensor(inputValues([2, 3, 2], 1), [2, 3, 2]);
  const y = tf.tensor([[0.5], [-0.5]]);
  const out = {};
  let before = mem();
  out.loss1 = await model.trainOnBatch(x, y);
  out.delta1 = delta(before);
  before = mem();
  out.loss2 = await model.trainOnBatch(x, y);
  out.delta2 = delta(before);
  before = mem();
  model.resetStates();
  out.resetDelta = delta(before);
  out.weights = model.getWeights().map((w) => Array.from(w.dataSync()));
  return out;
};

CUSTOM.eager = () => {
  const out = {};
  const x = tf.tensor(inputValues([2, 4, 3], 2), [2, 4, 3]);
  const layers = {
    simpleRNN: tf.layers.simpleRNN({units: 2}),
    gru: tf.layers.gru({units: 2, returnSequences: true}),
    lstm: tf.layers.lstm({units: 2, returnState: true}),
    lstmDropout: tf.layers.lstm({units: 2, dropout: 0.5}),
    gruRecurrentDropout: tf.layers.gru({units: 2, recurrentDropout: 0.5}),
    rnnCellDropout: tf.layers.rnn({cell: tf.layers.lstmCell({units: 2, dropout: 0.5})}),
    bidirectional: tf.layers.bidirectional({layer: tf.layers.gru({units: 2})}),
    timeDistributed: tf.layers.timeDistributed({layer: tf.layers.dense({units: 2})}),
  };
  for (const [name, layer] of Object.entries(layers)) {
    let before = mem();
    const y = layer.apply(x);
    const first = delta(before);
    before = mem();
    const y2 = layer.apply(x);
    const second = delta(before);
    before = mem();
    tf.tidy(() => { layer.apply(x); });
    const tidied = delta(before);
    before = mem();
    const r = layer.dispose();
    out[name] = {first, second, tidied, dispose: [r.refCountAfterDispose, r.numDisposedVariables], disposeDelta: delta(before),
      outShapes: toList(y).map((t) => t.shape)};
    tf.dispose([y, y2]);
  }
  return out;
};

CUSTOM.mask_kwarg = () => {
  // A mask given explicitly to apply(), and a mask with values other than 0/1.
  const out = {};
  const layer = tf.layers.gru({units: 2, returnSequences: true});
  const x = tf.tensor(inputValues([2, 3, 2], 3), [2, 3, 2]);
  layer.apply(x);
  const given = values(sizeOf(layer.weights[0].shape), 0);
  layer.setWeights(layer.weights.map((w, j) => tf.tensor(values(sizeOf(w.shape), j), w.shape)));
  out.weights = layer.weights.map((w, j) => values(sizeOf(w.shape), j));
  out.x = Array.from(x.dataSync());
  out.y = enc(layer.apply(x, {mask: tf.tensor2d([[1, 0, 1], [0.5, 1, 0]])}));
  out.yBool = enc(layer.apply(x, {mask: tf.tensor2d([[true, false, true], [true, true, false]], [2, 3], 'bool')}));
  return out;
};

CUSTOM.errors = () => {
  const out = {};
  out.rank2 = errorOf(() => tf.layers.lstm({units: 2}).apply(tf.zeros([2, 3])));
  out.unitsZero = errorOf(() => tf.layers.simpleRNN({units: 0}));
  out.resetAfter = errorOf(() => tf.layers.gru({units: 2, resetAfter: true}));
  out.noCell = errorOf(() => tf.layers.rnn({}));
  out.badMergeMode = errorOf(() => tf.layers.bidirectional({layer: tf.layers.lstm({units: 2}), mergeMode: 'max'}));
  out.tdRank2 = errorOf(() => tf.layers.timeDistributed({layer: tf.layers.dense({units: 2})}).apply(tf.zeros([2, 3])));
  out.resetNotStateful = errorOf(() => {
    const l = tf.layers.lstm({units: 2});
    l.apply(tf.zeros([1, 2, 2]));
    l.resetStates();
  });
  out.statefulNoBatch = errorOf(() => tf.layers.lstm({units: 2, stateful: true}).apply(tf.zeros([1, 2, 2])));
  out.wrongStateCount = errorOf(() => tf.layers.lstm({units: 2}).apply(tf.zeros([1, 2, 2]), {initialState: [tf.zeros([1, 2])]}));
  out.convUnroll = errorOf(() => tf.layers.convLstm2d({filters: 1, kernelSize: 2, unroll: true}));
  out.convRank4 = errorOf(() => tf.layers.convLstm2d({filters: 1, kernelSize: 2}).apply(tf.zeros([1, 2, 3, 3])));
  out.bidiOddStates = errorOf(() => tf.layers.bidirectional({layer: tf.layers.gru({units: 2})}).apply(tf.zeros([1, 2, 2]), {initialState: [tf.zeros([1, 2])]}));
  out.bidiWeights = errorOf(() => tf.layers.bidirectional({layer: tf.layers.gru({units: 2}), weights: [tf.zeros([1])]}));
  const l = tf.layers.lstm({units: 2, inputShape: [3, 2]});
  l.apply(tf.zeros([1, 3, 2]));
  out.wrongFeatures = errorOf(() => l.apply(tf.zeros([1, 3, 4])));
  return out;
};

// ------------------------------------------------------------------- driver
async function runOne(name) {
  if (name in SEQ) return runSeq(name, SEQ[name]);
  if (name in BUILDERS) return runFn(name);
  return Object.assign({kind: 'custom'}, await CUSTOM[name]());
}

if (process.argv[2] === '--one') {
  runOne(process.argv[3]).then((result) => {
    process.stdout.write('@@RESULT@@' + JSON.stringify(result));
  });
} else {
  const only = process.argv[2];
  const names = [...Object.keys(SEQ), ...Object.keys(BUILDERS), ...Object.keys(CUSTOM)].filter((n) => !only || n === only);
  const results = {};
  for (const name of names) {
    const stdout = execFileSync(process.execPath, [__filename, '--one', name], {encoding: 'utf8', maxBuffer: 1 << 26});
    results[name] = JSON.parse(stdout.slice(stdout.indexOf('@@RESULT@@') + 10));
    process.stderr.write('.');
  }
  if (only) {
    process.stdout.write(JSON.stringify(results[only], null, 1) + '\n');
  } else {
    const file = path.join(__dirname, 'results', 'layers_recurrent.json');
    const lines = names.map((n) => `  ${JSON.stringify(n)}: ${JSON.stringify(results[n])}`);
    fs.writeFileSync(file, `{"tfjsVersion": ${JSON.stringify(tf.version.tfjs)}, "scenarios": {\n${lines.join(',\n')}\n}}\n`);
    process.stderr.write(`\nwrote ${names.length} scenarios to ${file}\n`);
  }
}
