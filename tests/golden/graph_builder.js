// A small builder for TF.js graph models (the converter's model.json: a GraphDef in JSON, its
// library functions, weights in a manifest), used by make_graph_models.js to write fixtures
// by hand: every Const becomes a manifest weight (as tensorflowjs_converter writes them), and
// weights may be stored quantized (uint8, uint16, float16) as the converter's --quantize_*.
'use strict';

const b64 = (text) => Buffer.from(text, 'latin1').toString('base64');
const A = {
  s: (text) => ({s: b64(text)}),
  i: (n) => ({i: String(n)}),
  f: (x) => ({f: x}),
  b: (x) => ({b: x}),
  type: (dt) => ({type: dt}),
  listI: (xs) => ({list: {i: xs.map(String)}}),
  listF: (xs) => ({list: {f: xs}}),
  listS: (xs) => ({list: {s: xs.map(b64)}}),
  listType: (xs) => ({list: {type: xs}}),
  shape: (dims) => (dims == null ? {shape: {unknownRank: true}}
    : {shape: {dim: dims.map((d) => ({size: String(d)}))}}),
  func: (name) => ({func: {name}}),
};

const TF_DTYPE = {float32: 'DT_FLOAT', int32: 'DT_INT32', bool: 'DT_BOOL', string: 'DT_STRING'};

// Deterministic values: floats 1.5 sin(0.7 i + 1.3 seed + 0.1), ints (7 i + 3 seed) % mod.
function values(shape, seed, dtype = 'float32', mod = 5) {
  const n = shape.reduce((a, c) => a * c, 1);
  const out = [];
  for (let i = 0; i < n; i++) {
    if (dtype === 'float32') out.push(Math.fround(1.5 * Math.sin(0.7 * i + 1.3 * seed + 0.1)));
    else if (dtype === 'int32') out.push((i * 7 + seed * 3) % mod);
    else if (dtype === 'bool') out.push((i + seed) % 3 !== 0);
    else out.push(`s${(i * 7 + seed) % mod}`);
  }
  return out;
}

function float16Bits(value) {
  // Round-to-nearest-even float32 -> IEEE half.
  const f = new Float32Array([value]);
  const x = new Uint32Array(f.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  const mant = x & 0x7fffff;
  if (((x >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 0x1f) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    const m = (mant | 0x800000) >> (1 - exp);
    return sign | ((m + 0x1000 + ((m >> 13) & 1) - 1) >> 13);
  }
  const rounded = mant + 0xfff + ((mant >> 13) & 1);
  if (rounded & 0x800000) return sign | ((exp + 1) << 10);
  return sign | (exp << 10) | (rounded >> 13);
}

function encodeWeight(name, dtype, shape, vals, quantize) {
  const spec = {name, shape, dtype};
  if (quantize && dtype === 'float32') {
    if (quantize === 'float16') {
      spec.quantization = {dtype: 'float16'};
      const out = new Uint16Array(vals.map(float16Bits));
      return [spec, Buffer.from(out.buffer)];
    }
    const bits = quantize === 'uint8' ? 8 : 16;
    const lo = Math.min(...vals, 0);
    const hi = Math.max(...vals, 0);
    const scale = (hi - lo) / (2 ** bits - 1) || 1;
    spec.quantization = {dtype: quantize, scale, min: lo};
    const q = vals.map((v) => Math.round((v - lo) / scale));
    const arr = bits === 8 ? new Uint8Array(q) : new Uint16Array(q);
    return [spec, Buffer.from(arr.buffer)];
  }
  if (dtype === 'string') {
    const parts = [];
    for (const v of vals) {
      const bytes = Buffer.from(v, 'utf8');
      const len = Buffer.alloc(4);
      len.writeUInt32LE(bytes.length);
      parts.push(len, bytes);
    }
    return [spec, Buffer.concat(parts)];
  }
  const Typed = {float32: Float32Array, int32: Int32Array, bool: Uint8Array}[dtype];
  return [spec, Buffer.from(new Typed(vals.map((v) => (dtype === 'bool' ? Number(v) : v))).buffer)];
}

class Graph {
  constructor(model) {
    this.model = model;
    this.nodes = [];
    this.names = new Set();
  }
  unique(base) {
    let name = base;
    for (let k = 1; this.names.has(name); k++) name = `${base}_${k}`;
    this.names.add(name);
    return name;
  }
  op(op, inputs = [], attr = {}, name = null) {
    const n = this.unique(name || op);
    this.nodes.push({name: n, op, input: inputs, attr});
    return n;
  }
  input(name, shape, dtype = 'float32') {
    const attr = {dtype: A.type(TF_DTYPE[dtype])};
    if (shape) attr.shape = A.shape(shape);
    this.op('Placeholder', [], attr, name);
    return name;
  }
  // A Const node whose value is a manifest weight named after it.
  const(vals, shape, dtype = 'float32', {name = null, quantize = null} = {}) {
    const n = this.unique(name || 'Const');
    this.nodes.push({name: n, op: 'Const', input: [], attr: {dtype: A.type(TF_DTYPE[dtype])}});
    this.model.weights.push({name: n, dtype, shape, vals, quantize});
    return n;
  }
  scalar(v, dtype = 'float32', name = null) {
    return this.const([v], [], dtype, {name});
  }
  ints(vals, name = null) {
    return this.const(vals, [vals.length], 'int32', {name});
  }
}

class Model {
  constructor() {
    this.weights = [];
    this.graph = new Graph(this);
    this.functions = [];
    this.initializer = null;
    this.signature = null;
    this.initializerSignature = null;
  }
  // A library function: build(g) returns its output tensor names, in order.
  func(name, args, build) {
    const g = new Graph(this);
    const inputArg = args.map(([argName, dtype]) => {
      g.names.add(argName);
      return {name: argName, type: TF_DTYPE[dtype]};
    });
    const outs = build(g, ...args.map(([argName]) => argName));
    const outputArg = outs.map((_, k) => ({name: `out${k}`, type: 'DT_FLOAT'}));
    const ret = {};
    outs.forEach((t, k) => { ret[`out${k}`] = t; });
    this.functions.push({signature: {name, inputArg, outputArg}, nodeDef: g.nodes, ret});
    return name;
  }
  init(build) {
    this.initializer = new Graph(this);
    build(this.initializer);
  }
  artifacts() {
    const specs = [];
    const buffers = [];
    for (const w of this.weights) {
      const [spec, buf] = encodeWeight(w.name, w.dtype, w.shape, w.vals, w.quantize);
      specs.push(spec);
      buffers.push(buf);
    }
    const topology = {node: this.graph.nodes, library: {}, versions: {producer: 1395}};
    if (this.functions.length) topology.library.function = this.functions;
    const modelJson = {
      format: 'graph-model',
      generatedBy: 'tests/golden/make_graph_models.js',
      convertedBy: 'hand-built (tests/golden/graph_builder.js)',
      modelTopology: topology,
      weightsManifest: [{paths: ['weights.bin'], weights: specs}],
    };
    if (this.signature) modelJson.signature = this.signature;
    if (this.initializer) {
      modelJson.modelInitializer = {node: this.initializer.nodes, versions: {producer: 1395}};
    }
    if (this.initializerSignature) modelJson.initializerSignature = this.initializerSignature;
    return {modelJson, weightData: Buffer.concat(buffers)};
  }
}

module.exports = {A, Model, TF_DTYPE, values};
