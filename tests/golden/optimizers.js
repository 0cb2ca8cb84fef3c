// Runs TF.js 4.22.0's optimizers (cpu backend) on one small least-squares problem and writes
// results/optimizers.json, which tests/optimizers/test_optimizers.py replays with tidytensor.
// Run: cd tests/golden && node optimizers.js
//
// The problem: w (shape [2]) and b (shape [2]) are variables named 'w' and 'b';
//   f = sum(square(x * w + b - y))   with x: [3, 2] and y: [3, 2] fixed below.
// Each scenario makes an optimizer with tf.train.<factory>(...args), runs `steps` minimize
// calls and records, per step, the cost, w, b and the change in num_tensors /
// num_data_buffers; then iterations, getWeights() (names and values), getConfig(), a
// fromConfig round trip and the counts after dispose(). Counts are relative to the moment
// before the optimizer was made.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const X = [[1, -1], [0.5, 2], [-1.5, 0.5]];
const Y = [[1, 0], [2, 1], [-1, 0.5]];
const W0 = [0.5, -0.3];
const B0 = [0.1, 0.2];

const CLASSES = {
  SGD: tf.SGDOptimizer,
  Momentum: tf.MomentumOptimizer,
  Adagrad: tf.AdagradOptimizer,
  Adadelta: tf.AdadeltaOptimizer,
  Adam: tf.AdamOptimizer,
  Adamax: tf.AdamaxOptimizer,
  RMSProp: tf.RMSPropOptimizer,
};

// name, factory, args (null = JS null), steps, options
//   varList: 'bw' -> minimize(f, true, [b, w]); 'w' -> [w] only
//   autoB: b gets an automatic (integer-like) name instead of 'b'
//   setMomentum: call optimizer.setMomentum(v) after step 2
//   setLearningRate: call optimizer.setLearningRate(v) after step 2
const SCENARIOS = [
  ['sgd', 'sgd', [0.05], 5, {}],
  ['sgd_varlist_w', 'sgd', [0.05], 5, {varList: 'w'}],
  ['sgd_set_lr', 'sgd', [0.05], 5, {setLearningRate: 0.01}],
  ['momentum', 'momentum', [0.05, 0.9], 5, {}],
  ['momentum_nesterov', 'momentum', [0.05, 0.9, true], 5, {}],
  ['momentum_set_momentum', 'momentum', [0.05, 0.9], 5, {setMomentum: 0.1}],
  ['momentum_set_lr', 'momentum', [0.05, 0.5, true], 5, {setLearningRate: 0.01}],
  ['adagrad', 'adagrad', [0.1], 5, {}],
  ['adagrad_init', 'adagrad', [0.2, 0.5], 5, {}],
  ['adagrad_varlist_bw', 'adagrad', [0.1], 5, {varList: 'bw'}],
  ['adadelta_default', 'adadelta', [], 5, {}],
  ['adadelta', 'adadelta', [0.05, 0.9, 1e-6], 5, {}],
  ['adam_default', 'adam', [], 5, {}],
  ['adam', 'adam', [0.1, 0.8, 0.9], 5, {}],
  ['adam_eps', 'adam', [0.05, 0.9, 0.99, 1e-4], 5, {}],
  ['adam_varlist_bw', 'adam', [0.1, 0.8, 0.9], 5, {varList: 'bw'}],
  ['adam_auto_name', 'adam', [0.1, 0.8, 0.9], 3, {autoB: true}],
  ['adamax_default', 'adamax', [], 5, {}],
  ['adamax_decay', 'adamax', [0.1, 0.9, 0.99, null, 0.1], 5, {}],
  ['rmsprop', 'rmsprop', [0.05], 5, {}],
  ['rmsprop_momentum', 'rmsprop', [0.05, 0.9, 0.5], 5, {}],
  ['rmsprop_centered_momentum', 'rmsprop', [0.05, 0.8, 0.5, 1e-6, true], 5, {}],
  ['rmsprop_centered', 'rmsprop', [0.01, 0.9, 0, null, true], 5, {}],
  ['rmsprop_varlist_bw', 'rmsprop', [0.05, 0.8, 0.5, 1e-6, true], 5, {varList: 'bw'}],
];

function counts() {
  const m = tf.memory();
  return [m.numTensors, m.numDataBuffers];
}

function delta(base) {
  const [t, d] = counts();
  return [t - base[0], d - base[1]];
}

function errorOf(fn) {
  try {
    fn();
  } catch (e) {
    return e.message;
  }
  return null;
}

async function asyncErrorOf(fn) {
  try {
    await fn();
  } catch (e) {
    return e.message;
  }
  return null;
}

function makeProblem(autoB) {
  const x = tf.tensor2d(X);
  const y = tf.tensor2d(Y);
  const w0 = tf.tensor1d(W0);
  const b0 = tf.tensor1d(B0);
  const w = tf.variable(w0, true, 'w');
  const b = autoB ? tf.variable(b0, true) : tf.variable(b0, true, 'b');
  w0.dispose();
  b0.dispose();
  const f = () => tf.sum(tf.square(tf.sub(tf.add(tf.mul(x, w), b), y)));
  return {x, y, w, b, f, dispose: () => tf.dispose([x, y, w, b])};
}

async function runScenario([name, factory, args, steps, opts]) {
  const p = makeProblem(!!opts.autoB);
  const rename = (n) => (opts.autoB ? n.split(p.b.name + '/').join('<b>/') : n);
  const base = counts();
  const optimizer = tf.train[factory](...args);
  const out = {name, factory, args, steps, options: opts, className: optimizer.getClassName()};
  out.construct = delta(base);
  const varList = opts.varList === 'bw' ? [p.b, p.w] : opts.varList === 'w' ? [p.w] : undefined;
  out.steps_out = [];
  for (let i = 0; i < steps; i++) {
    const cost = optimizer.minimize(p.f, true, varList);
    const mem = delta(base);
    out.steps_out.push({
      cost: cost.dataSync()[0],
      w: Array.from(p.w.dataSync()),
      b: Array.from(p.b.dataSync()),
      mem,
    });
    cost.dispose();
    if (i === 1 && opts.setMomentum != null) optimizer.setMomentum(opts.setMomentum);
    if (i === 1 && opts.setLearningRate != null) optimizer.setLearningRate(opts.setLearningRate);
  }
  // A minimize without the cost returns null and adds nothing.
  const before = counts();
  const ret = optimizer.minimize(p.f, false, varList);
  out.no_cost = {returned_null: ret === null, mem: delta(before), w: Array.from(p.w.dataSync()),
    b: Array.from(p.b.dataSync())};
  out.iterations = optimizer.iterations;
  out.config = optimizer.getConfig();
  const cls = CLASSES[out.className];
  const copy = cls.fromConfig(cls, out.config);
  out.from_config = copy.getConfig();
  copy.dispose();
  if (out.className === 'Adamax') {
    out.get_weights_error = await asyncErrorOf(() => optimizer.getWeights());
    out.set_weights_error = await asyncErrorOf(() => optimizer.setWeights([]));
  } else {
    const weights = await optimizer.getWeights();
    out.weights = weights.map((v) => ({
      name: rename(v.name),
      dtype: v.tensor.dtype,
      shape: v.tensor.shape,
      values: Array.from(v.tensor.dataSync()),
    }));
    weights[0].tensor.dispose();
  }
  const beforeDispose = counts();
  optimizer.dispose();
  out.dispose_mem = delta(beforeDispose);
  out.final_mem = delta(base);
  p.dispose();
  return out;
}

// Two steps with one optimizer, its getWeights() given to a fresh one (fromConfig), three
// more steps with the fresh one: the state carries over exactly.
async function runTransfer(factory, args) {
  const p = makeProblem(false);
  const opt1 = tf.train[factory](...args);
  for (let i = 0; i < 2; i++) opt1.minimize(p.f);
  const weights = await opt1.getWeights();
  const cls = CLASSES[opt1.getClassName()];
  const opt2 = cls.fromConfig(cls, opt1.getConfig());
  await opt2.setWeights(weights);
  const out = {factory, args, iterations_after_set: opt2.iterations, steps_out: []};
  for (let i = 0; i < 3; i++) {
    const cost = opt2.minimize(p.f, true);
    out.steps_out.push({cost: cost.dataSync()[0], w: Array.from(p.w.dataSync()),
      b: Array.from(p.b.dataSync())});
    cost.dispose();
  }
  out.iterations = opt2.iterations;
  out.names = (await opt2.getWeights()).map((v) => v.name);
  weights[0].tensor.dispose();
  opt1.dispose();
  opt2.dispose();
  p.dispose();
  return out;
}

// catalog §3.3 / M12, M13: the memory tests of sgd_optimizer_test.ts and adam_optimizer_test.ts.
function memoryCases() {
  const out = {};
  {
    const initial = tf.memory().numTensors;
    const opt = tf.train.sgd(0.1);
    const x = tf.scalar(4).variable();
    let n = tf.memory().numTensors;
    const cost = opt.minimize(() => x.square(), true);
    const first = tf.memory().numTensors - n;
    const x1 = x.dataSync()[0];
    cost.dispose();
    n = tf.memory().numTensors;
    const ret = opt.minimize(() => x.square(), false);
    const second = tf.memory().numTensors - n;
    const x2 = x.dataSync()[0];
    opt.dispose();
    x.dispose();
    out.sgd = {first, second, x1, x2, returned_null: ret === null,
      end: tf.memory().numTensors - initial};
  }
  {
    const initial = tf.memory().numTensors;
    const opt = tf.train.adam(0.1, 0.8, 0.9);
    const x = tf.tensor1d([2, 4]).variable();
    const f = () => x.square().sum();
    let n = tf.memory().numTensors;
    const cost = opt.minimize(f, true);
    const first = tf.memory().numTensors - n;
    const x1 = Array.from(x.dataSync());
    cost.dispose();
    n = tf.memory().numTensors;
    opt.minimize(f);
    const second = tf.memory().numTensors - n;
    const x2 = Array.from(x.dataSync());
    opt.dispose();
    x.dispose();
    out.adam = {first, second, x1, x2, end: tf.memory().numTensors - initial};
  }
  return out;
}

function errorCases() {
  const p = makeProblem(false);
  const out = {};
  out.non_scalar = errorOf(() => tf.train.sgd(0.1).minimize(() => tf.mul(p.w, 2)));
  out.unconnected = errorOf(() => tf.train.sgd(0.1).minimize(() => tf.scalar(1)));
  out.empty_var_list = errorOf(() => tf.train.sgd(0.1).minimize(p.f, true, []));
  p.dispose();
  return out;
}

async function sgdSetWeightsError() {
  const p = makeProblem(false);
  const opt = tf.train.sgd(0.1);
  const err = await asyncErrorOf(() => opt.setWeights([
    {name: 'iter', tensor: tf.scalar(1, 'int32')}, {name: 'w/x', tensor: tf.zeros([2])}]));
  const base = tf.train.sgd(0.1);
  const baseErr = await asyncErrorOf(() => tf.Optimizer.prototype.getWeights.call(base));
  p.dispose();
  return {sgd_extra: err, base_get_weights: baseErr};
}

async function main() {
  await tf.setBackend('cpu');
  const results = {
    epsilon: tf.backend().epsilon(),
    problem: {x: X, y: Y, w0: W0, b0: B0},
    scenarios: [],
    transfer: [],
  };
  for (const s of SCENARIOS) results.scenarios.push(await runScenario(s));
  for (const [factory, args] of [
    ['sgd', [0.05]],
    ['momentum', [0.05, 0.9, true]],
    ['adagrad', [0.1, 0.5]],
    ['adadelta', [0.05, 0.9, 1e-6]],
    ['adam', [0.1, 0.8, 0.9]],
    ['rmsprop', [0.05, 0.8, 0.5, 1e-6, true]],
    ['rmsprop', [0.05, 0.9, 0.5]],
  ]) {
    results.transfer.push(await runTransfer(factory, args));
  }
  results.memory = memoryCases();
  results.errors = errorCases();
  Object.assign(results.errors, await sgdSetWeightsError());
  const file = path.join(__dirname, 'results', 'optimizers.json');
  fs.writeFileSync(file, JSON.stringify(results, null, 1) + '\n');
  console.log(`wrote ${file}: ${results.scenarios.length} scenarios, ${results.transfer.length} transfers`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
