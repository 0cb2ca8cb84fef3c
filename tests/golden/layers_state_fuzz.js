// Differential fuzz of the Layers API's INTROSPECTION and STATE surface in TF.js 4.22: random
// models drawn with layer_configs_fuzz.js's recipe generator (single layers in Sequential or
// functional models, merges, masking + RNNs, residual stacks, shared layers, nested models)
// plus a few of this file's own (a nested functional model with a shared layer and several
// inputs and outputs, a layer shared over inputs of different shapes). For each model it
// records what these give back, or the error message they throw:
//   model.stopTraining (before anything builds it), model.layers (names, classes, trainable),
//   getLayer by name / by index and its errors, weights / trainableWeights /
//   nonTrainableWeights (names, originalNames, shapes), countParams per layer and model,
//   each layer's input / output / outputShape / per-node shapes / computeOutputShape and getConfig -> fromConfig ->
//   getConfig round trip, model.inputs / outputs / inputNames / outputNames, setWeights with
//   a deterministic value set (sums of getWeights after it), setWeights with a weight too few
//   and with a wrong shape (error, and whether the weights stayed as they were), trainable
//   toggling (a layer, a nested model, the whole model) and each layer called again on an
//   incompatible input (inputSpec errors or the output shape when it is accepted, and the
// warnings it prints).
// Writes results/layers_state_fuzz.json, replayed by tests/layers/test_layers_state_fuzz.py.
// Run: cd tests/golden && node layers_state_fuzz.js [seed] [outfile]
// (the committed file uses the default seed; another seed hunts elsewhere).
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const gen = require('./layer_configs_fuzz.js');

const SEED = Number(process.argv[2] || 20250614);
const OUTFILE = process.argv[3] || path.join(__dirname, 'results', 'layers_state_fuzz.json');

const PER_FAMILY = 1;  // single-layer recipes drawn per family
const MIXES = {merge: 5, masking: 3, embeddingRnn: 2, convStack: 2, residual: 2, shared: 3,
  nested: 3};

// ------------------------------------------------------------------ extra recipes
// These are built here (not by gen.build): a functional model nested in another with a shared
// Dense (two inbound nodes), two inputs and two outputs.
function nestedFunctionalRecipe(name) {
  const f = gen.randInt(2, 4);
  return {model: 'nested_functional', name, f, units: gen.randInt(1, 3),
    units2: gen.randInt(1, 3), act: gen.pick(['relu', 'tanh', 'linear']), bn: gen.coin()};
}
function buildNestedFunctional(r) {
  const a = tf.input({shape: [r.f], name: `${r.name}_ia`});
  const b = tf.input({shape: [r.f], name: `${r.name}_ib`});
  const shared = tf.layers.dense({units: r.units, activation: r.act, name: `${r.name}_shared`});
  let ya = shared.apply(a);
  const yb = shared.apply(b);
  if (r.bn) ya = tf.layers.batchNormalization({name: `${r.name}_bn`}).apply(ya);
  const merged = tf.layers.concatenate({name: `${r.name}_cat`}).apply([ya, yb]);
  const inner = tf.model({inputs: [a, b], outputs: [merged, yb], name: `${r.name}_inner`});
  const x1 = tf.input({shape: [r.f], name: `${r.name}_x1`});
  const x2 = tf.input({shape: [r.f], name: `${r.name}_x2`});
  const [m, s] = inner.apply([x1, x2]);
  const head = tf.layers.dense({units: r.units2, name: `${r.name}_head`}).apply(m);
  return tf.model({inputs: [x1, x2], outputs: [head, s], name: r.name});
}
// A Dense shared over inputs of shape [f] and [t, f]: its inputShape / outputShape are
// ill-defined (errors), its per-node shapes are not.
function sharedShapesRecipe(name) {
  return {model: 'shared_shapes', name, f: gen.randInt(1, 3), t: gen.randInt(2, 3),
    units: gen.randInt(1, 3)};
}
function buildSharedShapes(r) {
  const a = tf.input({shape: [r.f], name: `${r.name}_a`});
  const b = tf.input({shape: [r.t, r.f], name: `${r.name}_b`});
  const d = tf.layers.dense({units: r.units, name: `${r.name}_d`});
  const ya = d.apply(a);
  const yb = tf.layers.flatten({name: `${r.name}_flat`}).apply(d.apply(b));
  const out = tf.layers.concatenate({name: `${r.name}_cat`}).apply([ya, yb]);
  return tf.model({inputs: [a, b], outputs: out, name: r.name});
}
function build(recipe) {
  if (recipe.model === 'nested_functional') return buildNestedFunctional(recipe);
  if (recipe.model === 'shared_shapes') return buildSharedShapes(recipe);
  return gen.build(JSON.parse(JSON.stringify(recipe)));  // TF.js writes into configs
}

// ------------------------------------------------------------------ recording
const attempt = (f) => {
  try {
    const v = f();
    return {value: v === undefined ? null : v};
  } catch (e) {
    return {error: e.message};
  }
};
const names = (ws) => ws.map((w) => w.name);
const weightInfo = (ws) => ws.map((w) => ({name: w.name, original: w.originalName,
  shape: w.shape, trainable: w.trainable}));
const sums = (model) => model.getWeights().map((t) => gen.round3(t.sum().dataSync()[0] * 1000) / 1000);
const symbolic = (ts) => ts.map((t) => ({name: t.name, shape: t.shape, dtype: t.dtype}));
const shapeOf = (x) => (Array.isArray(x) ? x.map((t) => t.shape) : x.shape);
const stable = (x) => JSON.stringify(x);

// Deterministic values for setWeights: weight k, element i -> ((i * 7 + k * 3) % 11 - 5) / 10
// (plus 1 for a variance or gamma, so that normalization layers stay sane).
function fillValues(model) {
  return model.weights.map((w, k) => {
    const n = gen.prod(w.shape);
    const extra = /variance|gamma/.test(w.originalName) ? 1 : 0;
    const vals = Array.from({length: n}, (_, i) => ((i * 7 + k * 3) % 11 - 5) / 10 + extra);
    return tf.tensor(vals, w.shape, w.dtype);
  });
}

function layerRecord(layer) {
  const rec = {name: layer.name, cls: layer.getClassName(), trainable: layer.trainable,
    inbound: layer.inboundNodes.length};
  rec.count = attempt(() => layer.countParams());
  rec.weights = names(layer.weights);
  rec.trainable_weights = names(layer.trainableWeights);
  rec.non_trainable_weights = names(layer.nonTrainableWeights);
  rec.input = attempt(() => shapeOf(layer.input));
  rec.output = attempt(() => shapeOf(layer.output));
  rec.output_shape = attempt(() => layer.outputShape);
  rec.nodes = layer.inboundNodes.map((_, i) => [shapeOf(layer.getInputAt(i)),
    shapeOf(layer.getOutputAt(i))]);
  if (rec.input.value !== undefined) {
    rec.compute_output_shape = attempt(() => layer.computeOutputShape(rec.input.value));
  }
  rec.config_round_trip = attempt(() => {
    const cfg = layer.getConfig();
    const copy = JSON.parse(JSON.stringify(cfg));
    const again = layer.constructor.fromConfig(layer.constructor, copy);
    // rnn({cell: [...]}) names its StackedRNNCells with a process-wide counter, afresh in
    // fromConfig too: the number is not compared.
    const unnumbered = (c) => stable(c).replace(/(_StackedRNNCells)\d+/g, '$1#');
    const same = unnumbered(again.getConfig()) === unnumbered(cfg);
    if (!same && process.env.VERBOSE) {
      console.error(layer.name, unnumbered(cfg), '\n->', unnumbered(again.getConfig()));
    }
    return same;
  });
  return rec;
}

function trainableState(model) {
  return {trainable: model.trainable, trainable_weights: names(model.trainableWeights),
    non_trainable_weights: names(model.nonTrainableWeights), count: model.countParams(),
    layers: model.layers.map((l) => l.trainable)};
}

// Each layer called once more on an incompatible symbolic input: one more dimension, and
// (for rank >= 2) the last dimension one larger.
function incompatible(layer) {
  if (layer.inboundNodes.length !== 1 || layer.getClassName() === 'InputLayer') return null;
  const shape = attempt(() => shapeOf(layer.input)).value;
  if (!shape || Array.isArray(shape[0])) return null;  // several inputs
  const out = {};
  const tries = {extra_dim: [...shape.slice(1), 2]};
  if (shape.length >= 2 && shape[shape.length - 1] !== null) {
    tries.last_plus_one = [...shape.slice(1, -1), shape[shape.length - 1] + 1];
  }
  for (const [key, s] of Object.entries(tries)) {
    const warnings = [];
    const warn = console.warn;
    console.warn = (...a) => warnings.push(a.join(' '));
    try {
      out[key] = {shape: s, ...attempt(() => {
        const y = layer.apply(tf.input({shape: s}));
        return Array.isArray(y) ? y.map((t) => t.shape) : y.shape;
      })};
    } finally {
      console.warn = warn;
    }
    out[key].warnings = warnings;
  }
  return out;
}

function runCase(recipe, model) {
  const rec = {name: recipe.name, recipe};
  // First: stopTraining before anything builds a Sequential's inner model.
  rec.stop_training = attempt(() => model.stopTraining);
  rec.cls = model.getClassName();
  rec.layers = model.layers.map(layerRecord);
  rec.count = model.countParams();
  rec.stop_training_built = attempt(() => model.stopTraining);
  rec.weights = weightInfo(model.weights);
  rec.trainable_weights = names(model.trainableWeights);
  rec.non_trainable_weights = names(model.nonTrainableWeights);
  rec.inputs = symbolic(model.inputs);
  rec.outputs = symbolic(model.outputs);
  rec.input_names = model.inputNames;
  rec.output_names = model.outputNames;
  rec.output_shape = attempt(() => model.outputShape);
  const n = model.layers.length;
  rec.get_layer = {
    by_name: model.layers.map((l) => model.layers.indexOf(model.getLayer(l.name))),
    by_index: model.layers.map((_, i) => model.getLayer(undefined, i).name),
    missing_name: attempt(() => model.getLayer('no_such_layer').name),
    index_past_end: attempt(() => model.getLayer(undefined, n).name),
    neither: attempt(() => model.getLayer().name),
  };
  // setWeights: deterministic values, then a list one short, then a wrong shape.
  const vals = fillValues(model);
  rec.set_weights = attempt(() => {
    model.setWeights(vals);
    return sums(model);
  });
  if (vals.length > 0) {
    rec.set_too_few = attempt(() => model.setWeights(vals.slice(0, -1)));
    rec.too_few_unchanged = stable(sums(model)) === stable(rec.set_weights.value);
    const k = gen.randInt(0, vals.length - 1);
    const bad = vals.map((v, i) => (i === k ? tf.zeros([...v.shape, 2]) : v));
    rec.bad_shape_index = k;
    rec.set_bad_shape = attempt(() => model.setWeights(bad));
    rec.bad_shape_unchanged = stable(sums(model)) === stable(rec.set_weights.value);
  }
  rec.set_too_many = attempt(() => model.setWeights([...vals, tf.zeros([1])]));
  // trainable toggling: one layer with weights, then (if any) a nested model, then the model.
  const toggles = [];
  const withWeights = model.layers.filter((l) => l.weights.length > 0);
  if (withWeights.length > 0) {
    const l = gen.pick(withWeights);
    l.trainable = false;
    toggles.push({what: `layer ${l.name} off`, layer: l.name, value: false,
      layer_trainable_weights: names(l.trainableWeights),
      layer_non_trainable_weights: names(l.nonTrainableWeights), ...trainableState(model)});
  }
  const nested = model.layers.find((l) => l.layers !== undefined);
  if (nested) {
    nested.trainable = false;
    toggles.push({what: `model ${nested.name} off`, layer: nested.name, value: false,
      layer_trainable_weights: names(nested.trainableWeights),
      layer_non_trainable_weights: names(nested.nonTrainableWeights), ...trainableState(model)});
  }
  model.trainable = false;
  toggles.push({what: 'model off', layer: null, value: false, ...trainableState(model)});
  model.trainable = true;
  toggles.push({what: 'model on', layer: null, value: true, ...trainableState(model)});
  rec.toggles = toggles;
  // Last (it adds inbound nodes): incompatible inputs.
  rec.incompatible = model.layers.map(incompatible);
  return rec;
}

function main() {
  gen.reseed(SEED);
  const cases = [];
  const refused = {};
  const draw = (family, mk) => {
    for (let tries = 0; tries < 20; tries++) {
      const recipe = mk();
      let model;
      try {
        model = build(recipe);  // built once: TF.js's weight names are unique process-wide
      } catch (e) {
        refused[family] = (refused[family] || 0) + 1;
        continue;
      }
      cases.push(runCase(recipe, model));
      return;
    }
  };
  for (const family of gen.FAMILIES) {
    for (let k = 0; k < PER_FAMILY; k++) {
      draw(family, () => gen.singleRecipe(`${family}_${k}`, family, gen.randInt(0, 20)));
    }
  }
  for (const [family, count] of Object.entries(MIXES)) {
    const mk = gen.MIXES[family][0];
    for (let k = 0; k < count; k++) draw(family, () => mk(`${family}_${k}`, k));
  }
  for (let k = 0; k < 3; k++) draw('nestedFunctional', () => nestedFunctionalRecipe(`nestfn_${k}`));
  for (let k = 0; k < 2; k++) draw('sharedShapes', () => sharedShapesRecipe(`sharedshapes_${k}`));
  const out = {tfjs_version: tf.version.tfjs, seed: SEED, refused, cases};
  fs.writeFileSync(OUTFILE, JSON.stringify(out) + '\n');
  const size = fs.statSync(OUTFILE).size;
  console.log(`wrote ${cases.length} cases (${size} bytes) to ${OUTFILE}; refused`, refused);
}

tf.setBackend('cpu').then(main).catch((e) => {
  console.error(e);
  process.exit(1);
});
