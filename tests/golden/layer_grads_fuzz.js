// Differential fuzz of GRADIENTS through every TF.js 4.22 layer family: draws random layer
// configurations with layer_configs_fuzz.js's recipe generator (seeded; its own results are
// untouched), builds each small model on the cpu backend, sets seeded random weights, compiles
// with SGD (learning rate 0.1) and a random Layers loss (targets drawn to fit it) on every
// output, and runs two trainOnBatch steps on fixed random inputs and targets. Writes results/layer_grads_fuzz.json, which
// tests/layers/test_layer_grads_fuzz.py replays.
// Run: cd tests/golden && node layer_grads_fuzz.js [seed] [outfile]
// (the committed file uses the default seed; another seed hunts elsewhere).
//
// Each case records: name, recipe (as in layer_configs_fuzz.json), inputs and targets
// ([{shape, b64}], float32), weights0 (every weight of model.weights after the seeded write,
// trainable or not: [{name, shape, b64}]), losses (what each trainOnBatch returned, a list) and
// weights (model.weights after each step).
// Configurations that are random in training are changed or left out (listed in `skipped`
// with the reason): Dropout / AlphaDropout / GaussianNoise / GaussianDropout layers draw fresh
// masks or noise each step (no shared stream with tidytensor), and an RNN's dropout /
// recurrentDropout arguments are removed from the recipe for the same reason. A case whose
// training TF.js itself cannot do, or whose losses are not finite, is recorded in `skipped`.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const gen = require('./layer_configs_fuzz.js');

const SEED = Number(process.argv[2] || 20250612);
const OUTFILE = process.argv[3] || path.join(__dirname, 'results', 'layer_grads_fuzz.json');
const BATCH = 3;
// TF.js 4.22's ResizeNearestNeighborGrad (cpu) reads dy with the images' batch stride (wrong
// for a batch over 1; tests/golden/fuzz_specs.py leaves it out too): UpSampling2D trains on a
// batch of 1.
const batchFor = (family) => (family === 'upSampling2d' ? 1 : BATCH);

// Families drawn, and how many of each (fewer than the predict fuzz: the file holds three
// weight sets a case).
const PER_FAMILY = {dense: 4, activation: 4, flatten: 2, reshape: 2, permute: 2,
  repeatVector: 2, conv1d: 6, conv2d: 7, conv2dTranspose: 6, conv3d: 4, separableConv2d: 6,
  depthwiseConv2d: 6, pool1d: 4, pool2d: 6, pool3d: 4, globalPool: 5, upSampling2d: 5,
  cropping2D: 3, zeroPadding2d: 3, batchNormalization: 8, layerNormalization: 8, embedding: 4,
  recurrent: 9, cellRnn: 7, bidirectional: 7, timeDistributed: 4, advancedActivation: 11};
const MIXES = {merge: 11, masking: 6, embeddingRnn: 4, convStack: 4, residual: 2, shared: 3,
  nested: 2};
const RANDOM_IN_TRAINING = ['dropout', 'noise'];

// TF.js's RNN layers drop their cells' regularization losses (RNN.losses holds only the layer's
// own; Bidirectional reports its unused template's): a documented difference, tidytensor counts
// them as Keras does (tests/layers/test_recurrent.py, layers/wrappers.py). So no regularizers
// on recurrent layers and cells here.
const RECURRENT = new Set(['simpleRNN', 'gru', 'lstm', 'simpleRNNCell', 'gruCell', 'lstmCell']);
function strip(spec) {
  delete spec.args.dropout;
  delete spec.args.recurrentDropout;
  if (RECURRENT.has(spec.factory)) {
    for (const k of ['kernelRegularizer', 'recurrentRegularizer', 'biasRegularizer']) {
      delete spec.args[k];
    }
  }
  for (const key of ['layer', 'cell']) {
    const inner = spec.args[key];
    if (inner) (Array.isArray(inner) ? inner : [inner]).forEach(strip);
  }
}
function stripRecipe(recipe) {
  for (const l of recipe.layers || []) strip(l.spec);
  return recipe;
}

// A linear Dense (units = the last input dimension, so the shape is kept) in front of a
// single layer, so that gradients flow THROUGH the layer (its input gradient) to trainable
// weights even where the layer has none of its own; not in front of an Embedding (integer
// input).
let preNo = 0;
function withPreDense(recipe) {
  if (recipe.ints) return recipe;
  const shape = recipe.inputs[0].shape;
  const pre = {factory: 'dense', args: {units: shape[shape.length - 1], name: `pre_dense_${++preNo}`}};
  if (recipe.model === 'sequential') {
    const first = recipe.layers[0].spec.args;
    pre.args.inputShape = shape;
    delete first.inputShape;
    delete first.batchInputShape;
    recipe.layers.unshift({spec: pre});
    return recipe;
  }
  const shift = (r) => (typeof r === 'number' ? r + 1 : Array.isArray(r) ? [r[0] + 1, r[1]] : r);
  for (const l of recipe.layers) l.inbound = l.inbound.map((r) => (r === 'in0' ? 0 : shift(r)));
  recipe.layers.unshift({spec: pre, inbound: ['in0']});
  if (Array.isArray(recipe.outputs)) recipe.outputs = recipe.outputs.map(shift);
  return recipe;
}

// The loss of a case (every output gets it) and targets that fit it.
const LOSSES = ['meanSquaredError', 'meanSquaredError', 'meanAbsoluteError',
  'meanAbsolutePercentageError', 'meanSquaredLogarithmicError', 'squaredHinge', 'hinge',
  'categoricalHinge', 'logcosh', 'categoricalCrossentropy', 'sparseCategoricalCrossentropy',
  'binaryCrossentropy', 'kullbackLeiblerDivergence', 'poisson', 'cosineProximity'];
function targetsFor(loss, shape, classes) {
  const n = gen.prod(shape);
  const last = shape[shape.length - 1];
  const u = () => gen.round3(gen.rand());
  const oneHot = () => Array.from({length: n}, (_, i) => i % last).map((j, i, a) => {
    if (j === 0) a.hot = gen.randInt(0, last - 1);
    return j === a.hot ? 1 : 0;
  });
  switch (loss) {
    case 'meanAbsolutePercentageError':
      return Array.from({length: n}, () => (gen.coin() ? 1 : -1) * (0.5 + u()));
    case 'meanSquaredLogarithmicError': case 'poisson':
      return Array.from({length: n}, () => 2 * u());
    case 'squaredHinge': case 'hinge':
      return Array.from({length: n}, () => (gen.coin() ? 1 : -1));
    case 'categoricalHinge': case 'categoricalCrossentropy': case 'kullbackLeiblerDivergence':
      return oneHot();
    case 'sparseCategoricalCrossentropy':
      return Array.from({length: n}, () => gen.randInt(0, classes - 1));
    case 'binaryCrossentropy':
      return Array.from({length: n}, () => (gen.coin(0.5) ? u() : gen.randInt(0, 1)));
    default:
      return Array.from({length: n}, () => gen.round3(gen.rand() * 2 - 1));
  }
}

const f32 = (t) => ({shape: t.shape, b64: gen.b64(t.dataSync())});
const weightsOf = (model) => model.weights.map((w) => {
  const v = w.read();
  return {name: w.originalName, shape: w.shape, b64: gen.b64(v.dataSync())};
});

async function runCase(recipe, batch) {
  recipe = JSON.parse(JSON.stringify(recipe));  // TF.js writes customObjects into configs
  const recipeOut = JSON.parse(JSON.stringify(recipe));
  const model = gen.build(recipe);
  try {
    gen.setRandomWeights(model);
    const inShapes = model.inputs.map((i) => [batch, ...i.shape.slice(1)]);
    const xs = inShapes.map((s) => tf.tensor(gen.makeInput(s, recipe), s, 'float32'));
    const loss = gen.pick(LOSSES);
    const ys = model.outputs.map((o) => {
      const s = [batch, ...o.shape.slice(1)];
      const classes = s[s.length - 1];
      if (loss === 'sparseCategoricalCrossentropy') s[s.length - 1] = 1;
      return tf.tensor(targetsFor(loss, s, classes), s, 'float32');
    });
    const weights0 = weightsOf(model);
    model.compile({optimizer: tf.train.sgd(0.1), loss});
    const losses = [];
    const weights = [];
    let problem = null;
    for (let step = 0; step < 2; step++) {
      const l = await model.trainOnBatch(xs.length === 1 ? xs[0] : xs,
        ys.length === 1 ? ys[0] : ys);
      const ls = Array.isArray(l) ? l : [l];
      if (!ls.every(Number.isFinite)) problem = problem || `non-finite loss ${ls}`;
      losses.push(ls);
      const ws = weightsOf(model);
      for (const w of model.weights) {
        if (!Array.from(w.read().dataSync()).every(Number.isFinite)) {
          problem = problem || `non-finite weight ${w.originalName}`;
        }
      }
      weights.push(ws);
    }
    delete recipeOut.ints;
    delete recipeOut.maskValue;
    const out = {name: recipe.name, recipe: recipeOut, loss, inputs: xs.map(f32),
      targets: ys.map(f32), weights0, losses, weights};
    tf.dispose([xs, ys]);
    if (problem) return {skip: problem};  // (a loss that does not fit the outputs; no recipe kept)
    return out;
  } finally {
    model.dispose();
  }
}

async function main() {
  await tf.setBackend('cpu');
  gen.reseed(SEED);
  const cases = [];
  const refused = {};
  const skipped = [];
  const drawAndRun = async (family, draw, k) => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const name = `${family}_${k}`;
      const recipe = stripRecipe(draw(name));
      let result;
      try {
        gen.build(JSON.parse(JSON.stringify(recipe))).dispose();  // TF.js refuses the config?
      } catch (e) {
        refused[family] = (refused[family] || 0) + 1;
        if (process.env.VERBOSE) console.error(family, JSON.stringify(recipe), e.message);
        continue;
      }
      try {
        result = await runCase(recipe, batchFor(family));
      } catch (e) {
        result = {skip: `TF.js cannot train it: ${e.message}`, recipe};
      }
      if (result.skip) {
        const same = skipped.find((x) => x.name === name && x.why === result.skip);
        if (same) same.times += 1;
        else skipped.push({name, why: result.skip, times: 1, recipe: result.recipe});
        continue;
      }
      cases.push(result);
      return;
    }
    console.warn(`${family}_${k}: no trainable draw in 20 tries`);
  };
  for (const family of gen.FAMILIES) {
    if (RANDOM_IN_TRAINING.includes(family)) {
      skipped.push({name: family, why: 'random in training (fresh masks / noise each step)'});
      continue;
    }
    for (let k = 0; k < PER_FAMILY[family]; k++) {
      await drawAndRun(family, (name) => withPreDense(gen.singleRecipe(name, family, k)), k);
    }
  }
  for (const [family, count] of Object.entries(MIXES)) {
    const draw = gen.MIXES[family][0];
    for (let k = 0; k < count; k++) await drawAndRun(family, (name) => draw(name, k), k);
  }
  const out = {tfjs_version: tf.version.tfjs, seed: SEED, batch: BATCH, learning_rate: 0.1,
    loss: 'meanSquaredError', refused, skipped, cases};
  fs.writeFileSync(OUTFILE, JSON.stringify(out) + '\n');
  const size = fs.statSync(OUTFILE).size;
  console.log(`wrote ${cases.length} cases (${size} bytes) to ${OUTFILE}; refused`, refused);
  for (const s of skipped) console.log('skipped', s.name, s.why);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
