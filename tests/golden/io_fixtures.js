// Builds real TF.js 4.22.0 layers models, saves them with tf.io.withSaveHandler into
// io/<name>/ (model.json + weight files) and records, in io/<name>/predict.json, the
// predictions TF.js makes after LOADING those files back (so every fixture is known to load in
// TF.js, and quantized weights are decoded by TF.js itself). tests/io/test_fixtures.py loads
// each fixture in tidytensor and compares. Also writes io/codec.json: tf.io.encodeWeights /
// decodeWeights on every dtype and quantization.
//
// Run: cd tests/golden && node io_fixtures.js [name ...]
//
// Layouts written (`layout` below):
//   'tfjs'      model.json + weights.bin (tfjs-node's file:// layout)
//   'shards:N'  one group cut into group1-shardKofM.bin files of N bytes (weights span shards)
//   'groups:N'  one group per layer, each cut into N-byte shards (groupG-shardKofM.bin)
// Variants: 'keras' rewrites the topology in the converter's form (model_config, keras
// version, InputLayer first); 'cell_scope' adds TF 2.2's inner RNN cell scope to weight names;
// 'keras3' renames weights to Keras 3's `<layer>/vars/<i>`; 'quantize:<dtype>' stores float32
// weights quantized as tensorflowjs_converter --quantize_<dtype> does.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const OUT = path.join(__dirname, 'io');
const L = tf.layers;

// ------------------------------------------------------------------ deterministic values
function pattern(n, seed, scale) {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = scale * Math.sin(0.7 * i + 1.3 * seed + 0.1);
  return out;
}

function setDeterministicWeights(model) {
  let k = 0;
  for (const w of model.weights) {
    const n = w.shape.reduce((a, b) => a * b, 1);
    const fanIn = w.shape.length > 1 ? w.shape.slice(0, -1).reduce((a, b) => a * b, 1) : 4;
    let values = pattern(n, ++k, 1 / Math.sqrt(Math.max(fanIn, 1)));
    if (/variance/.test(w.originalName)) values = values.map((v) => Math.abs(v) + 0.5);
    if (/gamma/.test(w.originalName)) values = values.map((v) => v + 1);
    const t = tf.tensor(values, w.shape, w.dtype);
    w.write(t);
    t.dispose();
  }
}

function input(shape, seed, {ints = 0} = {}) {
  const n = shape.reduce((a, b) => a * b, 1);
  const values = ints ? Array.from({length: n}, (_, i) => (i * 7 + seed * 3) % ints)
    : Array.from(pattern(n, seed + 100, 1.5));
  return {shape, dtype: 'float32', values};
}

// ------------------------------------------------------------------ quantization (converter)
function float32ToFloat16Bits(value) {
  const f32 = new Float32Array([value]);
  const x = new Uint32Array(f32.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && (half & 1))) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1))) half++;
  return sign | half;
}

function roundHalfEven(x) {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function quantize(values, dtype) {
  if (dtype === 'float16') {
    const out = new Uint16Array(values.length);
    for (let i = 0; i < values.length; i++) out[i] = float32ToFloat16Bits(values[i]);
    return {bytes: new Uint8Array(out.buffer), meta: {dtype: 'float16'}};
  }
  const quantMax = dtype === 'uint8' ? 255 : 65535;
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) { min = Math.min(min, v); max = Math.max(max, v); }
  const out = dtype === 'uint8' ? new Uint8Array(values.length) : new Uint16Array(values.length);
  let scale = 1;
  let nudgedMin = min;
  if (min !== max) {
    scale = (max - min) / quantMax;
    if (min <= 0 && 0 <= max) nudgedMin = -roundHalfEven(-min / scale) * scale;
    const nudgedMax = quantMax * scale + nudgedMin;
    for (let i = 0; i < values.length; i++) {
      const c = Math.min(Math.max(values[i], nudgedMin), nudgedMax);
      out[i] = Math.min(quantMax, Math.max(0, roundHalfEven((c - nudgedMin) / scale)));
    }
  }
  return {bytes: new Uint8Array(out.buffer), meta: {dtype, min: nudgedMin, scale, original_dtype: 'float32'}};
}

const SIZE = {float32: 4, int32: 4, bool: 1, complex64: 8};

function quantizeArtifacts(specs, data, dtype) {
  const parts = [];
  const newSpecs = [];
  let offset = 0;
  for (const spec of specs) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const len = n * SIZE[spec.dtype];
    const slice = data.slice(offset, offset + len);
    offset += len;
    if (spec.dtype === 'float32') {
      const q = quantize(new Float32Array(slice), dtype);
      parts.push(q.bytes);
      newSpecs.push(Object.assign({}, spec, {quantization: q.meta}));
    } else {
      parts.push(new Uint8Array(slice));
      newSpecs.push(spec);
    }
  }
  return {specs: newSpecs, data: concat(parts).buffer};
}

function concat(parts) {
  const total = parts.reduce((a, p) => a + p.byteLength, 0);
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) { out.set(new Uint8Array(p.buffer || p, p.byteOffset || 0, p.byteLength), o); o += p.byteLength; }
  return out;
}

// ------------------------------------------------------------------ writing a fixture
function specBytes(spec) {
  const n = spec.shape.reduce((a, b) => a * b, 1);
  if (spec.quantization) return n * (spec.quantization.dtype === 'uint8' ? 1 : 2);
  return n * SIZE[spec.dtype];
}

function shardNames(g, count) {
  return Array.from({length: count}, (_, i) => `group${g}-shard${i + 1}of${count}.bin`);
}

function writeFixture(dir, artifacts, layout, specs, data) {
  fs.rmSync(dir, {recursive: true, force: true});
  fs.mkdirSync(dir, {recursive: true});
  const bytes = new Uint8Array(data);
  let manifest;
  if (layout === 'tfjs') {
    fs.writeFileSync(path.join(dir, 'weights.bin'), bytes);
    manifest = [{paths: ['weights.bin'], weights: specs}];
  } else if (layout.startsWith('shards:')) {
    const size = Number(layout.split(':')[1]);
    const count = Math.max(1, Math.ceil(bytes.length / size));
    const names = shardNames(1, count);
    names.forEach((n, i) => fs.writeFileSync(path.join(dir, n), bytes.slice(i * size, (i + 1) * size)));
    manifest = [{paths: names, weights: specs}];
  } else if (layout.startsWith('groups:')) {
    const size = Number(layout.split(':')[1]);
    const byLayer = new Map();
    for (const s of specs) {
      const layer = s.group === 'optimizer' ? '__optimizer' : s.name.split('/')[0];
      if (!byLayer.has(layer)) byLayer.set(layer, []);
      byLayer.get(layer).push(s);
    }
    manifest = [];
    let offset = 0;
    let g = 0;
    for (const groupSpecs of byLayer.values()) {
      g++;
      const len = groupSpecs.reduce((a, s) => a + specBytes(s), 0);
      const gBytes = bytes.slice(offset, offset + len);
      offset += len;
      const count = Math.max(1, Math.ceil(len / size));
      const names = shardNames(g, count);
      names.forEach((n, i) => fs.writeFileSync(path.join(dir, n), gBytes.slice(i * size, (i + 1) * size)));
      manifest.push({paths: names, weights: groupSpecs});
    }
  } else {
    throw new Error('bad layout ' + layout);
  }
  const modelJSON = tf.io.getModelJSONForModelArtifacts
    ? tf.io.getModelJSONForModelArtifacts(artifacts, manifest)
    : Object.assign({}, {modelTopology: artifacts.modelTopology, format: artifacts.format,
      generatedBy: artifacts.generatedBy, convertedBy: artifacts.convertedBy,
      weightsManifest: manifest}, artifacts.trainingConfig ? {trainingConfig: artifacts.trainingConfig} : {},
    artifacts.userDefinedMetadata ? {userDefinedMetadata: artifacts.userDefinedMetadata} : {});
  fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJSON));
}

// An IOHandler reading a fixture directory the way tf.io.http does: model.json, then every
// path of every group, concatenated.
function dirHandler(dir) {
  return {
    load: async () => {
      const modelJSON = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
      const buffers = [];
      for (const group of modelJSON.weightsManifest) {
        for (const p of group.paths) buffers.push(new Uint8Array(fs.readFileSync(path.join(dir, p))));
      }
      const weightSpecs = [].concat(...modelJSON.weightsManifest.map((g) => g.weights));
      const weightData = concat(buffers).buffer;
      return Object.assign(tf.io.getModelArtifactsForJSONSync
        ? tf.io.getModelArtifactsForJSONSync(modelJSON, weightSpecs, weightData)
        : {modelTopology: modelJSON.modelTopology, weightSpecs, weightData,
          trainingConfig: modelJSON.trainingConfig, userDefinedMetadata: modelJSON.userDefinedMetadata});
    },
  };
}

function kerasTopology(topology) {
  // The converter's form: {keras_version, backend, model_config: {class_name, config}}, and a
  // Sequential's layers start with an explicit InputLayer (Keras 2.x).
  const config = JSON.parse(JSON.stringify(topology.config));
  if (topology.class_name === 'Sequential') {
    const first = config.layers[0].config;
    config.layers.unshift({class_name: 'InputLayer', config: {
      batch_input_shape: first.batch_input_shape, dtype: 'float32', sparse: false,
      ragged: false, name: first.name + '_input'}});
    delete first.batch_input_shape;
  }
  return {keras_version: '2.15.0', backend: 'tensorflow',
    model_config: {class_name: topology.class_name, config}};
}

async function saveFixture(name, model, inputs, opts = {}) {
  const dir = path.join(OUT, name);
  let artifacts;
  await model.save(tf.io.withSaveHandler(async (a) => { artifacts = a; return {modelArtifactsInfo: {}}; }),
    {includeOptimizer: !!opts.includeOptimizer});
  let specs = artifacts.weightSpecs.map((s) => Object.assign({}, s));
  let data = artifacts.weightData;
  const variants = opts.variants || [];
  for (const v of variants) {
    if (v === 'keras') {
      artifacts.modelTopology = kerasTopology(artifacts.modelTopology);
      artifacts.generatedBy = 'keras v2.15.0';
      artifacts.convertedBy = 'TensorFlow.js Converter v4.22.0';
    } else if (v === 'cell_scope') {
      specs = specs.map((s) => {
        const parts = s.name.split('/');
        if (parts.length === 2 && opts.cells && opts.cells[parts[0]]) {
          return Object.assign({}, s, {name: `${parts[0]}/${opts.cells[parts[0]]}/${parts[1]}`});
        }
        return s;
      });
    } else if (v === 'keras3') {
      const index = new Map();
      specs = specs.map((s) => {
        const layer = s.name.split('/')[0];
        const i = index.get(layer) || 0;
        index.set(layer, i + 1);
        return Object.assign({}, s, {name: `${layer}/vars/${i}`});
      });
    } else if (v.startsWith('quantize:')) {
      const q = quantizeArtifacts(specs, data, v.split(':')[1]);
      specs = q.specs;
      data = q.data;
    }
  }
  artifacts.weightSpecs = specs;
  artifacts.weightData = data;
  writeFixture(dir, artifacts, opts.layout || 'tfjs', specs, data);

  // The oracle: TF.js loads the files it just wrote and predicts.
  const loaded = await tf.loadLayersModel(dirHandler(dir), {strict: true});
  const xs = inputs.map((i) => tf.tensor(i.values, i.shape, i.dtype));
  let ys = loaded.predict(xs.length === 1 ? xs[0] : xs);
  if (!Array.isArray(ys)) ys = [ys];
  const record = {
    name,
    description: opts.description || '',
    inputs,
    outputs: ys.map((y) => ({shape: y.shape, dtype: y.dtype, values: Array.from(y.dataSync())})),
    weights: loaded.weights.map((w) => w.originalName),
  };
  if (opts.includeOptimizer && loaded.optimizer) {
    const ow = await loaded.optimizer.getWeights();
    record.optimizer = {className: loaded.optimizer.getClassName(), config: loaded.optimizer.getConfig(),
      weights: ow.map((w) => ({name: w.name, shape: w.tensor.shape, values: Array.from(w.tensor.dataSync())}))};
  }
  fs.writeFileSync(path.join(dir, 'predict.json'), JSON.stringify(record, null, 1) + '\n');
  tf.dispose(xs);
  tf.dispose(ys);
  loaded.dispose();
  model.dispose();
}

// ------------------------------------------------------------------ the fixtures
function seq(layers) {
  const m = tf.sequential({layers});
  setDeterministicWeights(m);
  return m;
}

function fn(inputs, outputs) {
  const m = tf.model({inputs, outputs});
  setDeterministicWeights(m);
  return m;
}

const FIXTURES = {
  async dense() {
    const m = seq([
      L.dense({units: 5, activation: 'relu', inputShape: [4], kernelRegularizer: tf.regularizers.l2({l2: 0.01}), name: 'hidden'}),
      L.dropout({rate: 0.5}),
      L.dense({units: 3, activation: 'sigmoid', name: 'out'}),
    ]);
    m.setUserDefinedMetadata({purpose: 'io fixture', labels: ['a', 'b', 'c']});
    await saveFixture('dense', m, [input([3, 4], 1)], {description: 'Sequential Dense/Dropout/Dense, L2, user metadata'});
  },
  async core_layers() {
    const m = seq([
      L.dense({units: 8, activation: 'tanh', inputShape: [6]}),
      L.reshape({targetShape: [2, 4]}),
      L.permute({dims: [2, 1]}),
      L.flatten(),
      L.repeatVector({n: 2}),
      L.flatten(),
      L.activation({activation: 'softmax'}),
    ]);
    await saveFixture('core_layers', m, [input([2, 6], 2)], {description: 'Reshape, Permute, Flatten, RepeatVector, Activation'});
  },
  async sharded_groups() {
    const m = seq([
      L.dense({units: 7, activation: 'relu', inputShape: [5], name: 'a'}),
      L.dense({units: 6, activation: 'elu', name: 'b'}),
      L.dense({units: 2, name: 'c'}),
    ]);
    await saveFixture('sharded_groups', m, [input([4, 5], 3)], {layout: 'groups:36', description: 'one group per layer, 36-byte shards (weights span shards)'});
  },
  async sharded() {
    const m = seq([
      L.dense({units: 9, activation: 'relu', inputShape: [5]}),
      L.dense({units: 3, activation: 'softmax'}),
    ]);
    await saveFixture('sharded', m, [input([2, 5], 4)], {layout: 'shards:50', description: 'one group in 50-byte shards'});
  },
  async functional_multi_io() {
    const a = tf.input({shape: [4], name: 'in_a'});
    const b = tf.input({shape: [4], name: 'in_b'});
    const shared = L.dense({units: 3, activation: 'relu', name: 'shared'});
    const ha = shared.apply(a);
    const hb = shared.apply(b);
    const outA = L.dense({units: 2, activation: 'softmax', name: 'out_a'}).apply(ha);
    const outB = L.dense({units: 1, name: 'out_b'}).apply(L.dense({units: 3, activation: 'tanh', name: 'mid_b'}).apply(hb));
    const m = fn([a, b], [outA, outB]);
    await saveFixture('functional_multi_io', m, [input([3, 4], 5), input([3, 4], 6)], {description: 'two inputs, two outputs, a shared layer'});
  },
  async nested() {
    const inner = tf.sequential({layers: [L.dense({units: 4, activation: 'relu', inputShape: [3], name: 'inner_d1'}), L.dense({units: 2, name: 'inner_d2'})], name: 'inner_seq'});
    const x = tf.input({shape: [3], name: 'outer_in'});
    const y = L.dense({units: 1, activation: 'sigmoid', name: 'outer_out'}).apply(inner.apply(x));
    const m = fn(x, y);
    await saveFixture('nested', m, [input([2, 3], 7)], {description: 'a Sequential inside a functional model'});
  },
  async keras_converted() {
    const m = seq([
      L.dense({units: 6, activation: 'relu', inputShape: [4], name: 'dense'}),
      L.dense({units: 2, activation: 'softmax', name: 'dense_1'}),
    ]);
    await saveFixture('keras_converted', m, [input([3, 4], 8)], {variants: ['keras'], layout: 'groups:40', description: "converter form: model_config, Keras names, InputLayer first, groups"});
  },
  async keras3_vars() {
    const m = seq([
      L.dense({units: 4, activation: 'relu', inputShape: [3], name: 'dense'}),
      L.dense({units: 2, name: 'dense_1'}),
    ]);
    await saveFixture('keras3_vars', m, [input([2, 3], 9)], {variants: ['keras3'], description: 'Keras 3 weight names <layer>/vars/<i>'});
  },
  async compiled_adam() {
    const m = seq([
      L.dense({units: 4, activation: 'relu', inputShape: [3], name: 'h'}),
      L.dense({units: 1, activation: 'sigmoid', name: 'o'}),
    ]);
    m.compile({optimizer: tf.train.adam(0.01), loss: 'binaryCrossentropy', metrics: ['accuracy']});
    const x = tf.tensor(input([8, 3], 10).values, [8, 3]);
    const y = tf.tensor([[0], [1], [1], [0], [1], [0], [0], [1]]);
    await m.fit(x, y, {epochs: 3, batchSize: 4, shuffle: false, verbose: 0});
    tf.dispose([x, y]);
    await saveFixture('compiled_adam', m, [input([2, 3], 11)], {includeOptimizer: true, description: 'compiled with Adam, trained, saved with its optimizer'});
  },
  async quantized_uint8() {
    const m = seq([L.dense({units: 6, activation: 'relu', inputShape: [4]}), L.dense({units: 3})]);
    await saveFixture('quantized_uint8', m, [input([3, 4], 12)], {variants: ['quantize:uint8'], description: 'uint8 affine quantized weights'});
  },
  async quantized_uint16() {
    const m = seq([L.dense({units: 6, activation: 'relu', inputShape: [4]}), L.dense({units: 3})]);
    await saveFixture('quantized_uint16', m, [input([3, 4], 13)], {variants: ['quantize:uint16'], layout: 'shards:24', description: 'uint16 quantized weights in shards'});
  },
  async quantized_float16() {
    const m = seq([L.dense({units: 6, activation: 'relu', inputShape: [4]}), L.dense({units: 3})]);
    await saveFixture('quantized_float16', m, [input([3, 4], 14)], {variants: ['quantize:float16'], description: 'float16 weights'});
  },
  async conv2d() {
    const m = seq([
      L.conv2d({filters: 4, kernelSize: 3, padding: 'same', activation: 'relu', inputShape: [6, 6, 2]}),
      L.maxPooling2d({poolSize: 2}),
      L.conv2d({filters: 3, kernelSize: [2, 2], strides: 1, padding: 'valid', useBias: false}),
      L.flatten(),
      L.dense({units: 2}),
    ]);
    await saveFixture('conv2d', m, [input([2, 6, 6, 2], 15)], {description: 'Conv2D, MaxPooling2D, Flatten, Dense'});
  },
  async conv1d() {
    const m = seq([
      L.conv1d({filters: 4, kernelSize: 3, activation: 'relu', inputShape: [10, 3]}),
      L.averagePooling1d({poolSize: 2}),
      L.maxPooling1d({poolSize: 2, padding: 'same'}),
      L.globalMaxPooling1d({}),
      L.dense({units: 2}),
    ]);
    await saveFixture('conv1d', m, [input([2, 10, 3], 16)], {description: 'Conv1D, AveragePooling1D, MaxPooling1D, GlobalMaxPooling1D'});
  },
  async conv2d_transpose() {
    const m = seq([L.conv2dTranspose({filters: 2, kernelSize: 3, strides: 2, padding: 'same', inputShape: [4, 4, 3]}), L.flatten()]);
    await saveFixture('conv2d_transpose', m, [input([1, 4, 4, 3], 17)], {description: 'Conv2DTranspose'});
  },
  async separable_depthwise() {
    const m = seq([
      L.separableConv2d({filters: 4, kernelSize: 3, depthMultiplier: 1, padding: 'same', inputShape: [5, 5, 2]}),
      L.depthwiseConv2d({kernelSize: 2, depthMultiplier: 2, activation: 'relu'}),
      L.globalAveragePooling2d({}),
    ]);
    await saveFixture('separable_depthwise', m, [input([2, 5, 5, 2], 18)], {description: 'SeparableConv2D, DepthwiseConv2D, GlobalAveragePooling2D'});
  },
  async pooling2d() {
    const m = seq([
      L.averagePooling2d({poolSize: 2, strides: 1, inputShape: [5, 5, 2]}),
      L.maxPooling2d({poolSize: [2, 2], padding: 'same'}),
      L.globalMaxPooling2d({}),
    ]);
    await saveFixture('pooling2d', m, [input([2, 5, 5, 2], 19)], {description: 'AveragePooling2D, MaxPooling2D, GlobalMaxPooling2D'});
  },
  async padding_cropping() {
    const m = seq([
      L.zeroPadding2d({padding: 1, inputShape: [3, 3, 2]}),
      L.cropping2D({cropping: [[1, 0], [0, 1]]}),
      L.upSampling2d({size: [2, 2]}),
      L.flatten(),
    ]);
    await saveFixture('padding_cropping', m, [input([1, 3, 3, 2], 20)], {description: 'ZeroPadding2D, Cropping2D, UpSampling2D'});
  },
  async simple_rnn() {
    const m = seq([L.simpleRNN({units: 4, inputShape: [5, 3], returnSequences: true}), L.simpleRNN({units: 2})]);
    await saveFixture('simple_rnn', m, [input([2, 5, 3], 21)], {description: 'stacked SimpleRNN'});
  },
  async lstm() {
    const m = seq([L.lstm({units: 4, inputShape: [5, 3], name: 'lstm'}), L.dense({units: 2})]);
    await saveFixture('lstm', m, [input([2, 5, 3], 22)], {description: 'LSTM + Dense'});
  },
  async lstm_cell_scope() {
    const m = seq([L.lstm({units: 3, inputShape: [4, 2], name: 'lstm'}), L.dense({units: 1, name: 'dense'})]);
    await saveFixture('lstm_cell_scope', m, [input([2, 4, 2], 23)], {variants: ['keras', 'cell_scope'], cells: {lstm: 'lstm_cell'}, description: "TF 2.2 names lstm/lstm_cell/kernel (inner cell scope)"});
  },
  async gru() {
    const m = seq([L.gru({units: 4, inputShape: [5, 3], returnSequences: true}), L.gru({units: 2, resetAfter: false})]);
    await saveFixture('gru', m, [input([2, 5, 3], 24)], {description: 'GRU (reset_after true then false)'});
  },
  async bidirectional_lstm() {
    const m = seq([L.bidirectional({layer: L.lstm({units: 3, returnSequences: true}), inputShape: [4, 2], mergeMode: 'concat'}),
      L.bidirectional({layer: L.gru({units: 2}), mergeMode: 'sum'}), L.dense({units: 1})]);
    await saveFixture('bidirectional_lstm', m, [input([2, 4, 2], 25)], {description: 'Bidirectional LSTM (concat) and GRU (sum)'});
  },
  async time_distributed() {
    const m = seq([L.timeDistributed({layer: L.dense({units: 3, activation: 'relu'}), inputShape: [4, 5]}), L.globalAveragePooling1d({})]);
    await saveFixture('time_distributed', m, [input([2, 4, 5], 26)], {description: 'TimeDistributed(Dense), GlobalAveragePooling1D'});
  },
  async batch_normalization() {
    const m = seq([L.dense({units: 4, inputShape: [3]}), L.batchNormalization(), L.activation({activation: 'relu'}), L.dense({units: 2})]);
    await saveFixture('batch_normalization', m, [input([3, 3], 27)], {description: 'BatchNormalization (non-trainable moving stats)'});
  },
  async layer_normalization() {
    const m = seq([L.dense({units: 5, inputShape: [3]}), L.layerNormalization(), L.dense({units: 2})]);
    await saveFixture('layer_normalization', m, [input([3, 3], 28)], {description: 'LayerNormalization'});
  },
  async embedding() {
    const m = seq([L.embedding({inputDim: 10, outputDim: 3, inputLength: 4}), L.flatten(), L.dense({units: 2})]);
    await saveFixture('embedding', m, [input([3, 4], 29, {ints: 10})], {description: 'Embedding (integer ids as float32)'});
  },
  async merge() {
    const a = tf.input({shape: [4], name: 'a'});
    const b = tf.input({shape: [4], name: 'b'});
    const da = L.dense({units: 3, name: 'da'}).apply(a);
    const db = L.dense({units: 3, name: 'db'}).apply(b);
    const merged = [
      L.add().apply([da, db]), L.multiply().apply([da, db]), L.average().apply([da, db]),
      L.maximum().apply([da, db]), L.minimum().apply([da, db]), L.subtract ? L.subtract().apply([da, db]) : da,
    ];
    const cat = L.concatenate({axis: -1}).apply(merged);
    const outs = [L.dense({units: 2, name: 'head1'}).apply(cat), L.dense({units: 1, name: 'head2'}).apply(merged[0])];
    const m = fn([a, b], outs);
    await saveFixture('merge', m, [input([2, 4], 30), input([2, 4], 31)], {description: 'Add, Multiply, Average, Maximum, Minimum, Concatenate; 2 in, 2 out'});
  },
  async dot() {
    const a = tf.input({shape: [4]});
    const b = tf.input({shape: [4]});
    const out = L.dot({axes: 1, normalize: true}).apply([L.dense({units: 3}).apply(a), L.dense({units: 3}).apply(b)]);
    const m = fn([a, b], out);
    await saveFixture('dot', m, [input([2, 4], 32), input([2, 4], 33)], {description: 'Dot (normalized)'});
  },
  async advanced_activations() {
    const m = seq([L.dense({units: 6, inputShape: [4]}), L.leakyReLU({alpha: 0.2}), L.dense({units: 6}), L.prelu(),
      L.elu(), L.thresholdedReLU({theta: 0.1}), L.reLU({maxValue: 0.8}), L.softmax()]);
    await saveFixture('advanced_activations', m, [input([3, 4], 34)], {description: 'LeakyReLU, PReLU, ELU, ThresholdedReLU, ReLU, Softmax'});
  },
};

// ------------------------------------------------------------------ weight codec golden
async function codec() {
  const tensors = {
    f: tf.tensor([1.5, -2.25, 3e-8, 1e30], [2, 2]),
    i: tf.tensor([1, -2, 2147483647, -2147483648], [4], 'int32'),
    b: tf.tensor([true, false, true], [3], 'bool'),
    s: tf.tensor(['a', '', 'héllo', '日本'], [2, 2], 'string'),
    c: tf.complex(tf.tensor([1, -2]), tf.tensor([0.5, 3])),
    e: tf.zeros([0, 3]),
  };
  const {data, specs} = await tf.io.encodeWeights(tensors);
  const bytes = Buffer.from(new Uint8Array(data));
  // Quantized entries decoded by TF.js (bytes chosen by hand).
  const qSpecs = [
    {name: 'q8', shape: [4], dtype: 'float32', quantization: {dtype: 'uint8', min: -1, scale: 0.5}},
    {name: 'q16', shape: [3], dtype: 'float32', quantization: {dtype: 'uint16', min: 0.25, scale: 0.001}},
    {name: 'qi', shape: [4], dtype: 'int32', quantization: {dtype: 'uint8', min: -3.3, scale: 1.5}},
    {name: 'h', shape: [5], dtype: 'float32', quantization: {dtype: 'float16'}},
  ];
  const qBytes = concat([new Uint8Array([0, 1, 2, 255]), new Uint8Array(new Uint16Array([0, 1000, 65535]).buffer),
    new Uint8Array([0, 1, 3, 200]), new Uint8Array(new Uint16Array([0x3c00, 0xc000, 0x7bff, 0x0001, 0x3555]).buffer)]);
  const decoded = tf.io.decodeWeights(qBytes.buffer, qSpecs);
  const out = {
    encode: {specs, data: bytes.toString('base64')},
    quantized: {specs: qSpecs, data: Buffer.from(qBytes).toString('base64'),
      decoded: Object.fromEntries(Object.entries(decoded).map(([k, v]) => [k, {dtype: v.dtype, values: Array.from(v.dataSync())}]))},
  };
  fs.writeFileSync(path.join(OUT, 'codec.json'), JSON.stringify(out, null, 1) + '\n');
  tf.dispose(Object.values(tensors));
  tf.dispose(Object.values(decoded));
}

async function main() {
  await tf.setBackend('cpu');
  fs.mkdirSync(OUT, {recursive: true});
  const only = process.argv.slice(2);
  for (const [name, build] of Object.entries(FIXTURES)) {
    if (only.length && !only.includes(name)) continue;
    await build();
    console.log('wrote', name);
  }
  if (!only.length || only.includes('codec')) {
    await codec();
    console.log('wrote codec');
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
