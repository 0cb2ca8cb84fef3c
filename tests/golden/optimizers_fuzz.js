// Differential fuzz of TF.js 4.22's optimizers (cpu backend): draws RANDOM optimizer scenarios
// (seeded, so the file is reproducible), runs them with real TF.js and writes
// results/optimizers_fuzz.json, which tests/optimizers/test_optimizers_fuzz.py replays with
// tidytensor (with and without fused optimizer kernels).
// Run: cd tests/golden && node optimizers_fuzz.js [seed] [outfile]
// (the committed file uses the default seed; another seed hunts elsewhere).
//
// A scenario: an optimizer made with tf.train.<factory>(...args) (random hyperparameters,
// epsilon given or omitted, null where a JS caller would pass null), float32 variables of
// random shapes (scalars and empty tensors included; some not trainable) and a sequence of
// actions:
//   minimize   {returnCost, varList: names | null, terms: [{name, c: b64, q}]}
//              f = sum over terms of sum(v * c) (+ q * sum(square(v)) when q != null)
//   apply      {form: 'dict' | 'list', entries: [{name, grad: b64 | null}]}: applyGradients;
//              entries may be a subset, in any order; 'dict' keys are inserted in that order
//              (JS then lists array-index keys first); a null grad is {name, tensor: null}
//              in the list form and an absent key in the dict form
//   addVar     {name, shape, init: b64, trainable}: a variable made between steps
//   weights    getWeights(): names, dtypes, shapes and values (the iter tensor disposed)
//   roundTrip  setWeights(await getWeights()) on the same optimizer
//   transfer   {via: 'class' | 'serialization'}: getWeights(), a new optimizer from
//              getConfig() (Cls.fromConfig or the serialization map's fromConfig),
//              setWeights(weights) onto it, the old one disposed; later actions use the new one
//   config     getConfig() and the config of fromConfig(getConfig())
//   setLR / setMomentum {value}
// After each action: every live variable's values (b64 float32), iterations, and
// tf.memory() [numTensors, numDataBuffers, numBytes] relative to just before the optimizer
// was made (gradient tensors the script makes are disposed before counting); an action that
// throws records its message. At the end: dispose() and the counts again.
//
// Left out on purpose (TF.js behaviour that tidytensor does not copy, see test file):
//   - gradients whose shape differs from their variable's (or from the state slot they land
//     in when the order changes): TF.js broadcasts and then fails in assign() halfway through a
//     step; the state slots here always line up in shape.
//   - non-number hyperparameters (TF.js computes with NaN; tidytensor raises), and other bad
//     arguments that TF.js lets through or fails on obscurely where tidytensor raises a clear
//     error first: applyGradients naming no registered variable (TF.js: "Argument 'b' passed to
//     'add' must be a Tensor..."), a gradient that is a plain array (TF.js converts it),
//     setWeights with an empty list (TF.js: a TypeError) or a state count that is not a
//     multiple of the slots (TF.js slices it silently), a missing required argument.
//   - minimize() when applyGradients throws: TF.js leaves the gradients and the cost
//     undisposed, tidytensor disposes them (see compatible() below).
//   - a disposed optimizer used after setWeights replaced its state (see the end of
//     drawScenario()): TF.js's ops do not check for disposed tensors.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const SEED = Number(process.argv[2] || 213);
const OUTFILE = process.argv[3] || path.join(__dirname, 'results', 'optimizers_fuzz.json');
const N_SCENARIOS = Number(process.argv[4] || 90);

const { mulberry32 } = require('./prng');
const rand = mulberry32(SEED);
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const coin = (p = 0.5) => rand() < p;
const round4 = (x) => Math.round(x * 10000) / 10000;
const prod = (s) => s.reduce((a, b) => a * b, 1);
const b64 = (arr) => Buffer.from(new Float32Array(arr).buffer).toString('base64');
function shuffle(xs) {
  const a = xs.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = randInt(0, i);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

const FINITE_SPECIAL = [0, -0, 1e30, -1e30, 3e38, 1e-30, -1e-30, 1e-40, 1e-44];
const NONFINITE = [NaN, Infinity, -Infinity];

function values(n, special, nonfinite) {
  const out = [];
  for (let i = 0; i < n; i++) {
    if (special && coin(0.25)) out.push(pick(FINITE_SPECIAL));
    else if (nonfinite && coin(0.12)) out.push(pick(NONFINITE));
    else out.push(round4((rand() * 2 - 1) * pick([0.1, 1, 3, 20])));
  }
  return out;
}

function randomShape() {
  const r = rand();
  if (r < 0.2) return [];
  if (r < 0.3) return pick([[0], [2, 0], [0, 3]]);
  const rank = randInt(1, 3);
  const shape = [];
  for (let i = 0; i < rank; i++) shape.push(randInt(1, rank === 1 ? 5 : 3));
  return shape;
}

// Array-index names (listed first, numerically, among JS object keys) are large so that they
// never meet the numeric names TF.js gives unnamed variables.
const VAR_NAMES = ['w', 'b', 'kernel', 'dense/bias', '70000', '400000', '5000000', 'x_1', 'v'];

const lr = () => pick([0.001, 0.01, 0.05, 0.1, 0.5, 1, round4(rand()), 2.5, -0.1, 0]);
// 1 makes 1 - beta and 1 - accBeta zero (0 / 0 and x / 0 in the updates).
const frac = () => pick([0, 0.5, 0.8, 0.9, 0.95, 0.99, 0.999, round4(rand()), 1]);
const eps = () => pick([undefined, null, 1e-8, 1e-6, 1e-3, 0.1, 0]);

function drawOptimizer() {
  const factory = pick(['sgd', 'momentum', 'adagrad', 'adadelta', 'adam', 'adamax', 'rmsprop']);
  let args;
  switch (factory) {
    case 'sgd': args = [lr()]; break;
    case 'momentum': args = coin(0.3) ? [lr(), frac()] : [lr(), frac(), coin()]; break;
    case 'adagrad':
      args = coin(0.3) ? [lr()] : [lr(), pick([0.1, 0, 1, 0.01, round4(rand() * 2)])];
      break;
    case 'adadelta': args = coin(0.15) ? [] : [lr(), frac(), eps()]; break;
    case 'adam': args = coin(0.15) ? [] : [lr(), frac(), frac(), eps()]; break;
    case 'adamax':
      args = coin(0.15) ? [] : [lr(), frac(), frac(), eps(), pick([0, 0.1, 0.01, 1, round4(rand())])];
      break;
    case 'rmsprop':
      args = [lr(), frac(), pick([0, 0, 0.5, 0.9, round4(rand())]), eps(), coin()];
      if (coin(0.3)) args = args.slice(0, randInt(1, 4));
      break;
  }
  // Trailing undefineds are omitted arguments; inner ones become null in JSON (= None).
  while (args.length && args[args.length - 1] === undefined) args.pop();
  return {factory, args: args.map((a) => (a === undefined ? null : a))};
}

function counts(base) {
  const m = tf.memory();
  const now = [m.numTensors, m.numDataBuffers, m.numBytes];
  return base ? now.map((v, i) => v - base[i]) : now;
}

const CLASSES = {
  SGD: tf.SGDOptimizer, Momentum: tf.MomentumOptimizer, Adagrad: tf.AdagradOptimizer,
  Adadelta: tf.AdadeltaOptimizer, Adam: tf.AdamOptimizer, Adamax: tf.AdamaxOptimizer,
  RMSProp: tf.RMSPropOptimizer,
};

function fromConfig(via, className, config) {
  if (via === 'class') {
    const cls = CLASSES[className];
    return cls.fromConfig(cls, config);
  }
  const [cls, fn] = tf.serialization.SerializationMap.getMap().classNameMap[className];
  return fn(cls, config);
}

function drawScenario(id) {
  const {factory, args} = drawOptimizer();
  const special = coin(0.5);
  const nonfinite = special && coin(0.35);
  // A risky scenario may give a gradient of another variable's shape to a state slot, make an
  // int32 variable, or dispose the optimizer before its last steps: errors part way through.
  const risky = coin(0.12);
  const names = shuffle(VAR_NAMES).slice(0, randInt(1, 4));
  const vars = names.map((name) => {
    const shape = randomShape();
    const v = {name, shape, init: b64(values(prod(shape), false, false)), trainable: coin(0.9)};
    if (risky && coin(0.15)) {
      v.dtype = 'int32';
      v.init = values(prod(shape), false, false).map(Math.round);
    }
    return v;
  });
  const spare = shuffle(VAR_NAMES.filter((n) => !names.includes(n)));
  // A shape map so that each state slot index always holds one shape: the first apply/minimize
  // fixes slot order; later calls keep the same order on a prefix (and may append), or use
  // variables of one shape in any order.
  const actions = [];
  const nSteps = randInt(3, 7);
  let slotOrder = null; // names in slot order, once fixed
  const live = vars.map((v) => ({...v}));  // copies: setTrainable changes them
  const sameShape = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const shapeOf = (n) => live.find((v) => v.name === n).shape;
  const jsOrder = (ns) => {
    const idx = ns.filter((n) => /^(0|[1-9]\d*)$/.test(n)).sort((a, b) => a - b);
    return idx.concat(ns.filter((n) => !/^(0|[1-9]\d*)$/.test(n)));
  };
  const dtypeOf = (n) => live.find((v) => v.name === n).dtype || 'float32';
  // Whether a list of names lines up with slotOrder (same shape and dtype per index). Only an
  // applyGradients call of a risky scenario may be incompatible, and no minimize follows one:
  // TF.js's minimize does not dispose the gradients and the cost when applyGradients throws
  // (its memory counts then grow by their number), where tidytensor's disposes them.
  let broken = false;
  function compatible(order, mayBreak) {
    if (slotOrder == null) return true;
    for (let i = 0; i < order.length && i < slotOrder.length; i++) {
      if (!sameShape(shapeOf(order[i]), shapeOf(slotOrder[i])) ||
          dtypeOf(order[i]) !== dtypeOf(slotOrder[i])) {
        if (mayBreak && risky && coin(0.5)) {
          broken = true;
          return true;
        }
        return false;
      }
    }
    return true;
  }
  function fix(order) {
    if (slotOrder == null) slotOrder = order.slice();
    else if (order.length > slotOrder.length) slotOrder = slotOrder.concat(order.slice(slotOrder.length));
  }
  function grad(n) {
    return b64(values(prod(shapeOf(n)), special, nonfinite));
  }
  // An applyGradients entry: a float32 gradient of the variable's shape, or one that
  // broadcasts to it, an int32 gradient, or the variable itself.
  function entry(n) {
    const shape = shapeOf(n);
    const r = rand();
    if (r < 0.12 && shape.length) {
      let g = shape.slice(randInt(0, shape.length));
      g = g.map((d) => (coin(0.4) ? 1 : d));
      if (g.some((d, i) => d !== shape[shape.length - g.length + i] && d !== 1)) g = [];
      if (risky && coin(0.3)) g = [2].concat(shape);  // too big: assign() throws
      return {name: n, grad: b64(values(prod(g), special, nonfinite)), shape: g};
    }
    if (r < 0.2) {
      return {name: n, grad: values(prod(shape), false, false).map((x) => Math.round(x)),
        dtype: 'int32'};
    }
    if (r < 0.25) return {name: n, grad: null, self: true};
    return {name: n, grad: grad(n)};
  }
  for (let s = 0; s < nSteps; s++) {
    const r = rand();
    if (r < 0.1 && spare.length) {
      const shape = randomShape();
      const v = {name: spare.pop(), shape, init: b64(values(prod(shape), false, false)),
        trainable: true};
      live.push({...v});
      actions.push({op: 'addVar', ...v});
      continue;
    }
    if (r < 0.45 && !broken) {
      // minimize (never with an int32 variable in the loss: its update would throw)
      for (let tries = 0; tries < 20; tries++) {
        const trainable = live.filter((v) => v.trainable && !v.dtype).map((v) => v.name);
        const inLoss = shuffle(trainable).slice(0, randInt(1, trainable.length));
        if (!inLoss.length) break;
        let varList = null;
        let order;
        if (coin(0.5)) {
          // Some listed variables may be outside the loss, or not trainable (null grads).
          const extra = shuffle(live.map((v) => v.name).filter((n) => !inLoss.includes(n)));
          varList = shuffle(inLoss.concat(extra.slice(0, randInt(0, extra.length))));
          if (coin(0.1)) varList.push(pick(varList));  // listed twice: updated twice
          order = varList;
        } else {
          // Every trainable variable (registration order, as JS keys) that the loss reaches.
          order = jsOrder(live.map((v) => v.name)).filter((n) => inLoss.includes(n));
        }
        if (!compatible(order, false)) continue;
        fix(order);
        const terms = inLoss.map((n) => ({name: n, c: grad(n),
          q: coin(0.4) ? pick([0.5, 1, -0.25, 2]) : null}));
        actions.push({op: 'minimize', returnCost: coin(), varList, terms});
        break;
      }
      continue;
    }
    if (r < 0.8) {
      for (let tries = 0; tries < 20; tries++) {
        let names;
        if (slotOrder != null && coin(0.5)) names = slotOrder.slice(0, randInt(1, slotOrder.length));
        else names = shuffle(live.map((v) => v.name)).slice(0, randInt(1, live.length));
        const form = coin() ? 'dict' : 'list';
        if (form === 'list' && coin(0.1)) names.push(pick(names));  // one variable twice
        if (form === 'dict') names = [...new Set(names)];
        const nulls = names.map(() => coin(0.15));
        // A dict leaves the null gradients out, so they take no slot index there.
        const order = form === 'dict' ? jsOrder(names.filter((n, i) => !nulls[i])) : names;
        if (!order.length || !compatible(order, true)) continue;
        fix(order);
        const entries = names.map((n, i) => (nulls[i] ? {name: n, grad: null} : entry(n)));
        actions.push({op: 'apply', form, entries});
        break;
      }
      continue;
    }
    if (r < 0.84) actions.push({op: 'weights'});
    else if (r < 0.87) {
      const v = pick(live);
      actions.push({op: 'setTrainable', name: v.name, value: !v.trainable});
      v.trainable = !v.trainable;
    }
    else if (r < 0.92) actions.push({op: 'roundTrip'});
    else if (r < 0.97) actions.push({op: 'transfer', via: pick(['class', 'serialization'])});
    else if (factory === 'sgd' || factory === 'momentum') {
      actions.push(coin() || factory === 'sgd' ? {op: 'setLR', value: lr()}
        : {op: 'setMomentum', value: frac()});
    } else actions.push({op: 'config'});
  }
  // Adam's setWeights recomputes accBeta1/accBeta2 as pow(beta, iterations + 1): half of the
  // Adam scenarios get a transfer (or round trip) and one more full step.
  if (factory === 'adam' && slotOrder != null && !broken && coin(0.5)) {
    actions.push(coin() ? {op: 'transfer', via: 'class'} : {op: 'roundTrip'});
    actions.push({op: 'apply', form: 'list', entries: slotOrder.map((n) => ({name: n, grad: grad(n)}))});
  }
  // A disposed optimizer used again: applyGradients throws (no minimize: see compatible()).
  // Not after a roundTrip: the state variables that setWeights replaced stay registered and
  // share their buffers with the new ones, so TF.js (which checks no tensor for disposal in
  // its ops) goes on computing with the disposed state, where tidytensor raises its
  // use-after-dispose error.
  if (risky && coin(0.5) && !actions.some((a) => a.op === 'roundTrip')) {
    actions.push({op: 'dispose'});
    const names = slotOrder || [live[0].name];
    actions.push({op: 'apply', form: 'list', entries: names.map((n) => ({name: n, grad: grad(n)}))});
    // Not for Adam: its setWeights assigns accBeta1/accBeta2 before it makes the new state
    // variables, so TF.js assigns to the disposed accBeta variables (its assign checks no
    // disposal) and re-registers their buffers; tidytensor raises first.
    if (coin() && factory !== 'adam') actions.push({op: 'roundTrip'});
  }
  if (coin(0.4)) actions.push({op: 'weights'});
  actions.push({op: 'config'});
  return {id, factory, args, special, nonfinite, vars, actions};
}

function tensorOf(b64s, shape) {
  const buf = Buffer.from(b64s, 'base64');
  const arr = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  return tf.tensor(arr, shape, 'float32');
}

async function run(sc) {
  const vars = {};
  const order = []; // live variable names, creation order
  const shapes = {};
  function makeVar(v) {
    const t = v.dtype === 'int32' ? tf.tensor(v.init, v.shape, 'int32') : tensorOf(v.init, v.shape);
    vars[v.name] = tf.variable(t, v.trainable, v.name);
    t.dispose();
    order.push(v.name);
    shapes[v.name] = v.shape;
  }
  for (const v of sc.vars) makeVar(v);
  const base = counts();
  let opt = tf.train[sc.factory](...sc.args);
  const out = {className: opt.getClassName(), construct: counts(base), steps: []};
  for (const a of sc.actions) {
    const rec = {};
    try {
      switch (a.op) {
        case 'addVar': makeVar(a); break;
        case 'minimize': {
          const cs = a.terms.map((t) => [vars[t.name], tensorOf(t.c, shapes[t.name]), t.q]);
          const f = () => {
            let total = null;
            for (const [v, c, q] of cs) {
              let term = tf.sum(tf.mul(v, c));
              if (q != null) term = tf.add(term, tf.mul(tf.sum(tf.square(v)), q));
              total = total == null ? term : tf.add(total, term);
            }
            return total;
          };
          const varList = a.varList == null ? undefined : a.varList.map((n) => vars[n]);
          const cost = opt.minimize(f, a.returnCost, varList);
          if (a.returnCost) {
            rec.cost = b64(cost.dataSync());
            rec.cost_mem = counts(base);
            cost.dispose();
          } else {
            rec.returned_null = cost === null;
          }
          tf.dispose(cs.map((x) => x[1]));
          break;
        }
        case 'apply': {
          const made = [];
          const gradOf = (e) => {
            if (e.self) return vars[e.name];
            if (e.grad == null) return null;
            const t = e.dtype === 'int32' ? tf.tensor(e.grad, shapes[e.name], 'int32')
              : tensorOf(e.grad, e.shape || shapes[e.name]);
            made.push(t);
            return t;
          };
          let grads;
          if (a.form === 'dict') {
            grads = {};
            for (const e of a.entries) {
              const t = gradOf(e);
              if (t != null) grads[e.name] = t;
            }
          } else {
            grads = a.entries.map((e) => ({name: e.name, tensor: gradOf(e)}));
          }
          try {
            opt.applyGradients(grads);
          } finally {
            tf.dispose(made);
          }
          break;
        }
        case 'weights': {
          const ws = await opt.getWeights();
          rec.weights = ws.map((w) => ({name: w.name, dtype: w.tensor.dtype, shape: w.tensor.shape,
            values: w.tensor.dtype === 'int32' ? Array.from(w.tensor.dataSync())
              : b64(w.tensor.dataSync())}));
          ws[0].tensor.dispose();
          break;
        }
        case 'roundTrip': {
          const ws = await opt.getWeights();
          await opt.setWeights(ws);
          ws[0].tensor.dispose();
          break;
        }
        case 'transfer': {
          const ws = await opt.getWeights();
          const opt2 = fromConfig(a.via, opt.getClassName(), opt.getConfig());
          await opt2.setWeights(ws);
          ws[0].tensor.dispose();
          opt.dispose();
          opt = opt2;
          break;
        }
        case 'config': {
          rec.config = opt.getConfig();
          const copy = fromConfig('serialization', opt.getClassName(), rec.config);
          rec.from_config = copy.getConfig();
          copy.dispose();
          break;
        }
        case 'setLR': opt.setLearningRate(a.value); break;
        case 'setTrainable': vars[a.name].trainable = a.value; break;
        case 'dispose': opt.dispose(); break;
        case 'setMomentum': opt.setMomentum(a.value); break;
      }
    } catch (e) {
      rec.error = e.message;
    }
    rec.iterations = opt.iterations;
    rec.values = order.map((n) => b64(vars[n].dataSync()));
    rec.mem = counts(base);
    out.steps.push(rec);
  }
  try {
    opt.dispose();
  } catch (e) {
    out.dispose_error = e.message;
  }
  out.final_mem = counts(base);
  tf.dispose(order.map((n) => vars[n]));
  out.leaked = counts(base);
  return out;
}

// Bad arguments: what each call throws (the gist is compared).
async function errorCases() {
  const out = {};
  const rec = async (name, fn) => {
    try {
      await fn();
      out[name] = null;
    } catch (e) {
      out[name] = e.message;
    }
  };
  const w = tf.variable(tf.zeros([3]), true, 'err_w');
  const nt = tf.variable(tf.zeros([2]), false, 'err_nt');
  await rec('rmsprop_null_lr', () => tf.train.rmsprop(null));
  await rec('minimize_not_scalar', () => tf.train.sgd(0.1).minimize(() => tf.mul(w, 2)));
  await rec('minimize_unconnected', () => tf.train.adam(0.1).minimize(() => tf.scalar(1)));
  await rec('minimize_only_non_trainable', () => tf.train.sgd(0.1).minimize(
    () => tf.sum(nt), true, [nt]));
  await rec('minimize_var_list_not_variables', () => tf.train.sgd(0.1).minimize(
    () => tf.sum(w), true, [tf.zeros([3])]));
  await rec('minimize_f_not_function', () => tf.train.sgd(0.1).minimize(3));
  await rec('adamax_get_weights', () => tf.train.adamax().getWeights());
  await rec('adamax_set_weights', () => tf.train.adamax().setWeights([]));
  await rec('sgd_set_weights_extra', () => tf.train.sgd(0.1).setWeights(
    [{name: 'iter', tensor: tf.scalar(1, 'int32')}, {name: 'x', tensor: tf.zeros([2])}]));
  tf.dispose([w, nt]);
  return out;
}

async function main() {
  await tf.setBackend('cpu');
  const scenarios = [];
  for (let i = 0; i < N_SCENARIOS; i++) {
    const sc = drawScenario(i);
    sc.result = await run(sc);
    scenarios.push(sc);
  }
  const out = {tfjs_version: tf.version.tfjs, seed: SEED, epsilon: tf.backend().epsilon(),
    scenarios, errors: await errorCases()};
  const text = JSON.stringify(out) + '\n';
  fs.writeFileSync(OUTFILE, text);
  const errs = scenarios.filter((s) => s.result.steps.some((r) => r.error)).length;
  console.log(`wrote ${OUTFILE}: ${scenarios.length} scenarios (${errs} with errors), ` +
    `${(text.length / 1024).toFixed(0)} KB`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
