// Differential fuzz of TF.js 4.22.0's model.summary() text (cpu backend): writes
// results/summary_fuzz.json, which tests/layers/test_summary_fuzz.py replays with tidytensor.
// Run: cd tests/golden && node summary_fuzz.js [seed [count [out.json]]]
// (a console.warn from a summary of a stale compiled model is not recorded)
//
// Each case is a seeded random Sequential or functional model (several layer families,
// wrappers, nested Sequential/functional models, shared layers and shared nested models,
// several inputs and outputs, parameterless layers, long names that overflow the columns),
// built in a fresh Node process (`node summary_fuzz.js --one SEED INDEX`) so that automatic
// layer and model names start from 1, as in a fresh program (the Python tests reset
// tidytensor's name counters before each case).
//
// A case is a program of steps that the Python side replays in order (the same construction
// order gives the same automatic names):
//   {op: 'input', shape, name?, dtype?}          -> tensors.push(tf.input(...))
//   {op: 'layer', factory, args}                 -> layers.push(tf.layers[factory](args));
//        an arg {$layer: {factory, args}} is a layer built first (wrappers)
//   {op: 'apply', layer, inputs}                 -> tensors.push(...outputs of apply)
//   {op: 'model', inputs, outputs, name?}        -> layers.push(tf.model(...))
//   {op: 'sequential', layers, name?}            -> layers.push(tf.sequential(...))
//   {op: 'compile', model}                       -> compile({optimizer: 'sgd', loss: 'meanSquaredError'})
//   {op: 'trainable', layer, value}              -> layers[layer].trainable = value
// (an input step has batchShape instead of shape when its batch size is fixed)
// Recorded: for each model index in `summarized` (the outer model and the nested ones), the
// lines that summary(lineLength, positions, printFn) passed to printFn for each entry of
// `variants` ([lineLength or null, positions or null]).
'use strict';
const fs = require('fs');
const path = require('path');
const {execFileSync} = require('child_process');

const { mulberry32 } = require('./prng');

// ------------------------------------------------------------------ the child: one case
function runCase(seed, index) {
  const tf = require('@tensorflow/tfjs');
  const rand = mulberry32(seed * 7919 + index * 104729 + 1);
  const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];

  const steps = [];
  const layers = [];
  const layerInputShapes = [];  // the input shape (no batch) a plain layer was made for
  const layerFactories = [];
  const tensors = [];
  const consumed = [];
  let nameCount = 0;

  function maybeName() {
    const r = rand();
    if (r < 0.7) return undefined;
    nameCount += 1;
    if (r < 0.85) return `n${nameCount}_${pick(['x', 'proj', 'enc', 'head'])}`;
    const words = ['very', 'long', 'layer', 'name', 'that', 'overflows', 'the', 'column',
      'projection', 'encoder', 'block', 'residual'];
    let s = `n${nameCount}`;
    const len = randInt(25, 80);
    while (s.length < len) s += '_' + pick(words);
    return s;
  }
  function withName(args) {
    const name = maybeName();
    if (name !== undefined) args.name = name;
    if (rand() < 0.08) args.trainable = false;
    return args;
  }
  function makeLayer(spec) {
    const args = {};
    for (const [k, v] of Object.entries(spec.args || {})) {
      args[k] = v !== null && typeof v === 'object' && v.$layer ? makeLayer(v.$layer) : v;
    }
    return tf.layers[spec.factory](args);
  }
  function addLayer(spec, inputShape) {
    steps.push({op: 'layer', factory: spec.factory, args: spec.args});
    layers.push(makeLayer(spec));
    layerInputShapes.push(inputShape);
    layerFactories.push(spec.factory);
    return layers.length - 1;
  }
  function addInput(shape, dtype) {
    const step = {op: 'input', shape};
    const config = {shape};
    if (rand() < 0.1) {  // a fixed batch size
      delete step.shape;
      delete config.shape;
      step.batchShape = config.batchShape = [2, ...shape];
    }
    const name = maybeName();
    if (name !== undefined) step.name = config.name = name;
    if (dtype) step.dtype = config.dtype = dtype;
    steps.push(step);
    tensors.push(tf.input(config));
    consumed.push(false);
    return tensors.length - 1;
  }
  function apply(layerIdx, inputIdxs) {
    steps.push({op: 'apply', layer: layerIdx, inputs: inputIdxs});
    const ins = inputIdxs.map((i) => tensors[i]);
    let out = layers[layerIdx].apply(ins.length === 1 ? ins[0] : ins);
    for (const i of inputIdxs) consumed[i] = true;
    out = Array.isArray(out) ? out : [out];
    const idxs = [];
    for (const t of out) {
      tensors.push(t);
      consumed.push(false);
      idxs.push(tensors.length - 1);
    }
    return idxs;
  }
  const shapeOf = (i) => tensors[i].shape.slice(1);
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  // A random plain layer for inputs of `shape` (no batch dim); null when none fits.
  function layerFor(shape) {
    const rank = shape.length;
    const last = shape[rank - 1];
    const known = shape.every((d) => d !== null);
    const any = [
      () => ({factory: 'activation', args: withName({activation: pick(['relu', 'tanh', 'softmax', 'linear'])})}),
      () => ({factory: 'dropout', args: withName({rate: 0.25})}),
      () => ({factory: 'batchNormalization', args: withName({})}),
      () => ({factory: 'layerNormalization', args: withName({})}),
      () => ({factory: pick(['reLU', 'elu', 'softmax', 'leakyReLU', 'thresholdedReLU']), args: withName({})}),
      () => ({factory: 'prelu', args: withName({})}),
      () => ({factory: 'gaussianNoise', args: withName({stddev: 0.1})}),
      () => ({factory: 'dense', args: withName({units: pick([1, 2, 3, 8, 32, 100, 1000]),
        activation: pick([undefined, 'relu', 'sigmoid']), useBias: rand() < 0.8})}),
    ];
    const opts = [...any];
    if (rank === 1) {
      opts.push(() => ({factory: 'dense', args: withName({units: randInt(1, 64)})}));
      opts.push(() => ({factory: 'repeatVector', args: withName({n: randInt(2, 4)})}));
      if (last % 2 === 0) opts.push(() => ({factory: 'reshape', args: withName({targetShape: [2, last / 2]})}));
      opts.push(() => ({factory: 'reshape', args: withName({targetShape: [last, 1, 1]})}));
    }
    if (rank === 2) {
      const rnn = () => pick(['lstm', 'gru', 'simpleRNN']);
      opts.push(() => ({factory: rnn(), args: withName({units: randInt(1, 16), returnSequences: rand() < 0.5})}));
      opts.push(() => ({factory: 'conv1d', args: withName({filters: randInt(1, 8), kernelSize: 1, padding: 'same'})}));
      if (shape[0] >= 2) {
        opts.push(() => ({factory: pick(['maxPooling1d', 'averagePooling1d']), args: withName({poolSize: 2})}));
      }
      opts.push(() => ({factory: pick(['globalAveragePooling1d', 'globalMaxPooling1d']), args: withName({})}));
      if (known) opts.push(() => ({factory: 'flatten', args: withName({})}));
      opts.push(() => ({factory: 'permute', args: withName({dims: [2, 1]})}));
      opts.push(() => ({factory: 'timeDistributed', args: withName({layer: {$layer: {factory: 'dense', args: {units: randInt(1, 6)}}}})}));
      opts.push(() => ({factory: 'bidirectional', args: withName({layer: {$layer: {factory: pick(['lstm', 'gru']),
        args: {units: randInt(1, 5), returnSequences: rand() < 0.5}}}, mergeMode: pick([undefined, 'concat', 'sum', 'ave'])})}));
      if (known) opts.push(() => ({factory: 'reshape', args: withName({targetShape: [shape[0], last, 1]})}));
    }
    if (rank === 3) {
      opts.push(() => ({factory: 'conv2d', args: withName({filters: randInt(1, 16), kernelSize: randInt(1, 3), padding: 'same'})}));
      opts.push(() => ({factory: 'depthwiseConv2d', args: withName({kernelSize: 1, depthMultiplier: randInt(1, 2)})}));
      opts.push(() => ({factory: 'separableConv2d', args: withName({filters: randInt(1, 8), kernelSize: 1})}));
      opts.push(() => ({factory: 'conv2dTranspose', args: withName({filters: randInt(1, 4), kernelSize: 2, strides: 2})}));
      if (shape[0] >= 2 && shape[1] >= 2) {
        opts.push(() => ({factory: pick(['maxPooling2d', 'averagePooling2d']), args: withName({poolSize: 2})}));
        opts.push(() => ({factory: 'cropping2D', args: withName({cropping: [[1, 0], [0, 1]]})}));
      }
      opts.push(() => ({factory: pick(['globalAveragePooling2d', 'globalMaxPooling2d']), args: withName({})}));
      opts.push(() => ({factory: 'zeroPadding2d', args: withName({padding: 1})}));
      opts.push(() => ({factory: 'upSampling2d', args: withName({size: [2, 2]})}));
      opts.push(() => ({factory: 'flatten', args: withName({})}));
      opts.push(() => ({factory: 'reshape', args: withName({targetShape: [shape[0] * shape[1], last]})}));
    }
    return pick(opts)();
  }
  function clean(args) {
    for (const k of Object.keys(args)) if (args[k] === undefined) delete args[k];
    return args;
  }
  function randomShape() {
    const family = pick(['vector', 'vector', 'sequence', 'image']);
    if (family === 'vector') return [randInt(1, 12)];
    if (family === 'sequence') return [randInt(1, 6), randInt(1, 8)];
    return [randInt(1, 6), randInt(1, 6), randInt(1, 4)];
  }

  // A chain of plain layers starting at `shape`; the first gets `inputShape` when asked.
  function chainSpecs(shape, n, withInputShape) {
    const specs = [];
    let cur = shape;
    for (let i = 0; i < n; ++i) {
      const spec = layerFor(cur);
      clean(spec.args);
      if (i === 0 && withInputShape) {
        spec.args.inputShape = cur;
        if (rand() < 0.15) spec.args.batchSize = randInt(1, 8);
      }
      const probe = makeLayer({factory: spec.factory, args: {...spec.args, name: undefined}});
      let out = probe.computeOutputShape([null, ...cur]);
      if (Array.isArray(out[0])) out = out[0];
      const next = out.slice(1);
      if (next.some((d) => d === null || d > 64) || next.reduce((a, b) => a * b, 1) > 4096) continue;
      specs.push({spec, inShape: cur});
      cur = next;
    }
    return {specs, out: cur};
  }
  // Builds a Sequential whose first layer gets `inputShape`; returns its layer index.
  function nestedSequential(shape) {
    const {specs} = chainSpecs(shape, randInt(1, 3), true);
    if (specs.length === 0) return null;
    const idxs = specs.map(({spec, inShape}) => addLayer(spec, inShape));
    const step = {op: 'sequential', layers: idxs};
    const name = maybeName();
    if (name !== undefined) step.name = name;
    steps.push(step);
    layers.push(tf.sequential({layers: idxs.map((i) => layers[i]), name}));
    layerInputShapes.push(shape);
    layerFactories.push('sequential');
    return layers.length - 1;
  }
  // Builds a functional model with one input of `shape` and 1-2 outputs.
  function nestedFunctional(shape) {
    const inp = addInput(shape);
    let heads = [inp];
    const n = randInt(1, 3);
    for (let i = 0; i < n; ++i) {
      const src = pick(heads);
      const spec = layerFor(shapeOf(src));
      clean(spec.args);
      const l = addLayer(spec, shapeOf(src));
      const [o] = apply(l, [src]);
      heads = heads.filter((h) => h !== inp);
      heads.push(o);
      if (heads.length > 2) heads.shift();
    }
    const outputs = heads.filter((h) => h !== inp);
    const step = {op: 'model', inputs: [inp], outputs};
    const name = maybeName();
    if (name !== undefined) step.name = name;
    steps.push(step);
    layers.push(tf.model({inputs: tensors[inp], outputs: outputs.map((o) => tensors[o]), name}));
    layerInputShapes.push(shape);
    layerFactories.push('model');
    return layers.length - 1;
  }

  const summarized = [];
  let target;
  if (rand() < 0.4) {
    // Sequential: a chain, perhaps with a nested model in it.
    let shape = randomShape();
    let firstSpecs;
    const useEmbedding = rand() < 0.15;
    if (useEmbedding) {
      const t = randInt(1, 6);
      const dim = randInt(2, 10);
      firstSpecs = [{spec: {factory: 'embedding', args: clean(withName({inputDim: randInt(5, 50), outputDim: dim, inputShape: [t]}))}, inShape: [t]}];
      shape = [t, dim];
    } else {
      const c = chainSpecs(shape, 1, true);
      firstSpecs = c.specs;
      shape = c.out;
      if (firstSpecs.length === 0) throw new Error('retry');
    }
    const members = firstSpecs.map(({spec, inShape}) => addLayer(spec, inShape));
    const n = randInt(1, 6);
    for (let i = 0; i < n; ++i) {
      if (rand() < 0.2) {
        const inner = rand() < 0.5 ? nestedSequential(shape) : nestedFunctional(shape);
        if (inner === null) continue;
        if (layers[inner].outputs.length !== 1) continue;
        members.push(inner);
        summarized.push(inner);
        shape = layers[inner].outputs[0].shape.slice(1);
      } else {
        const {specs, out} = chainSpecs(shape, 1, false);
        if (specs.length === 0) continue;
        members.push(addLayer(specs[0].spec, specs[0].inShape));
        shape = out;
      }
    }
    const step = {op: 'sequential', layers: members};
    const name = maybeName();
    if (name !== undefined) step.name = name;
    steps.push(step);
    layers.push(tf.sequential({layers: members.map((i) => layers[i]), name}));
    target = layers.length - 1;
  } else {
    // Functional: inputs, plain layers, merges, shared layers, nested models.
    const inputs = [];
    const nInputs = randInt(1, 3);
    const base = randomShape();
    for (let i = 0; i < nInputs; ++i) {
      const shape = rand() < 0.6 ? base : randomShape();
      // A sequence of any length: [null, features].
      inputs.push(addInput(shape.length === 2 && rand() < 0.3 ? [null, shape[1]] : shape));
    }
    const applied = [];  // plain layer indices that were applied (sharing candidates)
    const nOps = nInputs + randInt(1, 7);
    for (let k = 0; k < nOps; ++k) {
      const fresh = tensors.map((_, i) => i).filter((i) => !consumed[i]);
      const src = k < nInputs ? inputs[k] : (rand() < 0.7 && fresh.length ? pick(fresh) : randInt(0, tensors.length - 1));
      const r = rand();
      const sameShape = tensors.map((_, i) => i).filter((i) => i !== src && same(shapeOf(i), shapeOf(src)));
      const catOk = tensors.map((_, i) => i).filter((i) => i !== src && shapeOf(i).length === shapeOf(src).length &&
        same(shapeOf(i).slice(0, -1), shapeOf(src).slice(0, -1)));
      if (k >= nInputs && r < 0.2 && sameShape.length) {
        const others = [pick(sameShape)];
        if (sameShape.length > 1 && rand() < 0.3) others.push(pick(sameShape.filter((i) => i !== others[0])));
        const l = addLayer({factory: pick(['add', 'multiply', 'average', 'maximum', 'minimum']), args: clean(withName({}))}, null);
        apply(l, [src, ...others]);
      } else if (k >= nInputs && r < 0.32 && catOk.length) {
        const l = addLayer({factory: 'concatenate', args: clean(withName({}))}, null);
        apply(l, rand() < 0.5 ? [src, pick(catOk)] : [pick(catOk), src]);
      } else if (r < 0.5 && applied.length) {
        // A shared layer: one made for the same input shape, or a last-axis layer on another rank.
        const lastAxis = ['dense', 'activation', 'dropout', 'reLU', 'elu', 'softmax'];
        const cands = applied.filter((l) => same(layerInputShapes[l], shapeOf(src)) ||
          (lastAxis.includes(layerFactories[l]) && shapeOf(src).length >= 1 &&
           layerInputShapes[l][layerInputShapes[l].length - 1] === shapeOf(src)[shapeOf(src).length - 1]));
        if (cands.length) {
          apply(pick(cands), [src]);
          continue;
        }
        const spec = layerFor(shapeOf(src));
        clean(spec.args);
        const l = addLayer(spec, shapeOf(src));
        apply(l, [src]);
        applied.push(l);
      } else if (r < 0.62) {
        const inner = rand() < 0.5 ? nestedSequential(shapeOf(src)) : nestedFunctional(shapeOf(src));
        if (inner === null) continue;
        summarized.push(inner);
        apply(inner, [src]);
        if (rand() < 0.4) {
          const again = tensors.map((_, i) => i).filter((i) => same(shapeOf(i), layerInputShapes[inner]));
          apply(inner, [pick(again)]);  // a shared nested model
        }
      } else {
        const spec = layerFor(shapeOf(src));
        clean(spec.args);
        if (spec.factory === 'reshape' && shapeOf(src).length === 1 && rand() < 0.5) continue;
        const l = addLayer(spec, shapeOf(src));
        apply(l, [src]);
        applied.push(l);
      }
    }
    let outputs = tensors.map((_, i) => i).filter((i) => !consumed[i]);
    if (rand() < 0.2) {
      const extra = tensors.map((_, i) => i).filter((i) => consumed[i] && !inputs.includes(i));
      if (extra.length) outputs.push(pick(extra));
    }
    outputs = outputs.slice(0, 5);
    const step = {op: 'model', inputs, outputs};
    const name = maybeName();
    if (name !== undefined) step.name = name;
    steps.push(step);
    layers.push(tf.model({inputs: inputs.map((i) => tensors[i]), outputs: outputs.map((i) => tensors[i]), name}));
    target = layers.length - 1;
  }
  summarized.unshift(target);

  // Compiling collects the trainable weights; freezing a layer or a model afterwards makes
  // the summary count the collected ones (and warn).
  const post = [];
  if (rand() < 0.3) post.push({op: 'compile', model: target});
  if (rand() < 0.35) post.push({op: 'trainable', layer: rand() < 0.3 ? target : randInt(0, layers.length - 1), value: false});
  if (rand() < 0.5) post.reverse();
  for (const step of post) {
    steps.push(step);
    runPostStep(layers, step);
  }

  function fractions(n) {
    const xs = Array.from({length: n - 1}, () => Math.round(rand() * 100) / 100).sort((a, b) => a - b);
    return [...xs, 1];
  }
  function absolute(n, lineLength) {
    const xs = Array.from({length: n - 1}, () => randInt(2, lineLength)).sort((a, b) => a - b);
    return [...xs, lineLength];
  }
  const summaries = summarized.map((m, j) => {
    const plain = captureSummary(layers[m], null, null);
    const cols = plain[1].includes('Receives inputs') ? 5 : 4;
    const L = randInt(30, 150);
    const variants = [
      [null, null],
      [L, fractions(cols)],
      [L, absolute(cols, L)],
      [null, fractions(cols).map((p) => Math.round(p * 0.9 * 100) / 100)],  // all < 1: relative
      [randInt(40, 130), null],
      [randInt(60, 120) + 0.7, absolute(cols, 100).map((p, i) => p + (i === cols - 1 ? 0 : 0.5))],  // fractional
      [randInt(60, 120), fractions(9 - cols)],  // the other layout's column count
    ];
    return {model: m, variants: j === 0 ? variants.slice(0, 4).concat(variants.slice(5)) : variants.slice(0, 4)};
  });
  return {steps, target, summaries};
}

function runPostStep(layers, step) {
  if (step.op === 'compile') {
    layers[step.model].compile({optimizer: 'sgd', loss: 'meanSquaredError'});
  } else {
    layers[step.layer].trainable = step.value;
  }
}

function captureSummary(model, lineLength, positions) {
  const lines = [];
  model.summary(lineLength === null ? undefined : lineLength,
    positions === null ? undefined : positions, (l) => lines.push(l));
  return lines;
}

// ------------------------------------------------------------------ the child: a replay
// Builds the models from the steps alone (as the Python test does) and records the summaries.
function replay(c) {
  const tf = require('@tensorflow/tfjs');
  const layers = [];
  const tensors = [];
  function makeLayer(spec) {
    const args = {};
    for (const [k, v] of Object.entries(spec.args || {})) {
      args[k] = v !== null && typeof v === 'object' && v.$layer ? makeLayer(v.$layer) : v;
    }
    return tf.layers[spec.factory](args);
  }
  for (const step of c.steps) {
    if (step.op === 'input') {
      const config = step.batchShape ? {batchShape: step.batchShape} : {shape: step.shape};
      if (step.name !== undefined) config.name = step.name;
      if (step.dtype !== undefined) config.dtype = step.dtype;
      tensors.push(tf.input(config));
    } else if (step.op === 'layer') {
      layers.push(makeLayer(step));
    } else if (step.op === 'apply') {
      const ins = step.inputs.map((i) => tensors[i]);
      const out = layers[step.layer].apply(ins.length === 1 ? ins[0] : ins);
      tensors.push(...(Array.isArray(out) ? out : [out]));
    } else if (step.op === 'model') {
      layers.push(tf.model({inputs: step.inputs.map((i) => tensors[i]),
        outputs: step.outputs.map((i) => tensors[i]), name: step.name}));
    } else if (step.op === 'sequential') {
      layers.push(tf.sequential({layers: step.layers.map((i) => layers[i]), name: step.name}));
    } else {
      runPostStep(layers, step);
    }
  }
  for (const s of c.summaries) {
    s.lines = s.variants.map(([ll, pos]) => captureSummary(layers[s.model], ll, pos));
  }
  return c;
}

// ------------------------------------------------------------------ the parent
function child(args, input) {
  return execFileSync(process.execPath, [__filename, ...args],
    {encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'ignore'], maxBuffer: 1 << 28});
}
function main() {
  const seed = Number(process.argv[2] || 20250612);
  const count = Number(process.argv[3] || 23);
  const file = process.argv[4] || path.join(__dirname, 'results', 'summary_fuzz.json');
  const cases = [];
  for (let i = 0; i < count; ++i) {
    const c = JSON.parse(child(['--replay'], child(['--gen', String(seed), String(i)])));
    cases.push({name: String(i), ...c});
  }
  const tf = require('@tensorflow/tfjs');
  fs.writeFileSync(file, JSON.stringify({seed, tfjs: tf.version.tfjs, cases}) + '\n');
  console.log(`wrote ${cases.length} cases, ${fs.statSync(file).size} bytes to ${file}`);
}

if (process.argv[2] === '--gen') {
  // Drawing a case probes layers (which uses up automatic names): only the steps leave here.
  const seed = Number(process.argv[3]);
  const index = Number(process.argv[4]);
  for (let attempt = 0; ; ++attempt) {
    try {
      const c = runCase(seed + attempt * 1000003, index);
      process.stdout.write(JSON.stringify(c));
      break;
    } catch (e) {
      if (attempt > 50) throw e;  // a draw TF.js rejects: the next draw
    }
  }
} else if (process.argv[2] === '--replay') {
  process.stdout.write(JSON.stringify(replay(JSON.parse(fs.readFileSync(0, 'utf8')))));
} else {
  main();
}
