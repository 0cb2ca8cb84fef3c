// Differential fuzz of TF.js 4.22.0's Tensor and Variable object API (cpu backend): writes
// results/tensor_api_fuzz.json, which tests/test_tensor_api_fuzz.py replays with tidytensor.
// Run: cd tests/golden && node tensor_api_fuzz.js [seed [out.json]]
//
// Cases (each with a seeded random input of every dtype and rank 0-4, empty shapes included):
//   {kind: 'props', x}: shape, dtype, rank, size, strides, isDisposed, dataSync (values and
//       its TypedArray kind), arraySync, bufferSync (dtype, shape, strides, values), then after
//       dispose: isDisposed, shape, size, whether dataSync/arraySync throw, a second dispose.
//   {kind: 'method', x, name, args}: x[name](...args) -> its result or {error}.  The Python
//       side also calls the function form (tf.<name>(x, ...args)) where TF.js has one.
//   {kind: 'disposed', x, name, args}: the same call on a disposed x (an error in TF.js).
//   {kind: 'variable', steps}: a small program on tf.variable (create, assign, trainable,
//       duplicate names, dispose) with each step's outcome.
// Tensors are {dtype, shape, values} (flat; special floats as "NaN", "Infinity", "-Infinity";
// complex64 as {dtype, shape, re, im}); an argument is {t: tensor}, {ts: [tensors]},
// {num: "Infinity"} or a plain JSON value.  Ids are never recorded (not comparable).
//
// Left out on purpose (TF.js bugs or documented differences):
//   - bool-with-bool arithmetic (add/sub/...): TF.js leaves 2 or 255 in a bool tensor's
//     Uint8Array; tidytensor keeps bools 0/1 (ops/arithmetic.py, test_arithmetic.py), so
//     logSumExp of a bool tensor (max, then sub) and bool pad values other than 0/1 are
//     left out too.
//   - cumsum/cumprod with a negative axis: TF.js 4.22 returns shape [null, ...] and no values.
//   - rfft's fftLength: TF.js 4.22 ignores the zero padding above the inner dimension and
//     reads past the slice below it (rfft([[a, b, c], ...], 2) mixes in c).
//   - reverse/slice/split/unstack/stack/tile/gather/broadcastTo of complex64: TF.js's cpu kernels throw (slice, reverse) or
//     crash (stack reads .real of undefined); tidytensor supports complex64 there.
//   - stridedSlice with unit strides and end < begin: TF.js throws from slice (negative size).
//   - NaN/Infinity in conv-family inputs: TF.js skips padded taps (0 * NaN never happens);
//     tidytensor's zero padding gives NaN at the border.
//   - Variable.assign after dispose: TF.js has no disposed check there and quietly re-points
//     the disposed variable; tidytensor raises the use-after-dispose error.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const { mulberry32 } = require('./prng');

const seed = Number(process.argv[2] || 1);
const outFile = process.argv[3] || path.join(__dirname, 'results', 'tensor_api_fuzz.json');
const rand = mulberry32(seed);
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const shuffle = (xs) => {
  const a = xs.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};
const prod = (s) => s.reduce((a, b) => a * b, 1);

// ------------------------------------------------------------------ encoding
function encNum(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Object.is(v, -0)) return '-0';
  return v;
}
function encTensor(t) {
  if (t.dtype === 'complex64') {
    const d = t.dataSync();
    const re = [], im = [];
    for (let i = 0; i < d.length; i += 2) { re.push(encNum(d[i])); im.push(encNum(d[i + 1])); }
    return {dtype: t.dtype, shape: t.shape, re, im};
  }
  const d = t.dataSync();
  const values = t.dtype === 'string' ? Array.from(d) : Array.from(d, encNum);
  return {dtype: t.dtype, shape: t.shape, values};
}
function encResult(r) {
  if (r instanceof tf.Tensor) return {t: encTensor(r)};
  if (Array.isArray(r)) return {list: r.map(encResult)};
  if (r !== null && typeof r === 'object') {
    const o = {};
    for (const [k, v] of Object.entries(r)) o[k] = encResult(v);
    return {object: o};
  }
  if (typeof r === 'number') return {value: encNum(r)};
  return {value: r === undefined ? null : r};
}
function errText(e) { return String(e && e.message || e).slice(0, 160); }

// ------------------------------------------------------------------ random inputs
function randShape(minRank = 0, maxRank = 4, allowEmpty = true) {
  const r = randInt(minRank, maxRank);
  const s = [];
  for (let i = 0; i < r; i++) s.push(allowEmpty && rand() < 0.07 ? 0 : randInt(1, 4));
  return s;
}
function randFloat() {
  const r = rand();
  if (r < 0.02) return NaN;
  if (r < 0.03) return pick([Infinity, -Infinity]);
  if (r < 0.04) return -0;
  return Math.fround(Math.round((rand() * 6 - 3) * 100) / 100);
}
function randValues(dtype, n) {
  const v = [];
  for (let i = 0; i < n; i++) {
    if (dtype === 'float32') v.push(randFloat());
    else if (dtype === 'int32') v.push(randInt(-6, 6));
    else if (dtype === 'bool') v.push(rand() < 0.5 ? 1 : 0);
    else v.push(pick(['', 'a', 'bc', 'héllo', 'x y', '0']));
  }
  return v;
}
function makeSpec(dtype, shape) {
  const n = prod(shape);
  if (dtype === 'complex64') {
    return {dtype, shape, re: randValues('float32', n).map(encNum), im: randValues('float32', n).map(encNum)};
  }
  return {dtype, shape, values: randValues(dtype, n).map(dtype === 'string' ? (x) => x : encNum)};
}
function decNum(v) {
  return v === 'NaN' ? NaN : v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v === '-0' ? -0 : v;
}
function build(spec) {
  if (spec.dtype === 'complex64') {
    return tf.complex(tf.tensor(spec.re.map(decNum), spec.shape, 'float32'),
                      tf.tensor(spec.im.map(decNum), spec.shape, 'float32'));
  }
  const vals = spec.dtype === 'string' ? spec.values : spec.values.map(decNum);
  if (spec.dtype === 'bool') return tf.tensor(vals.map((x) => !!x), spec.shape, 'bool');
  return tf.tensor(vals, spec.shape, spec.dtype);
}
function decArg(a) {
  if (a !== null && typeof a === 'object' && !Array.isArray(a)) {
    if ('t' in a) return build(a.t);
    if ('ts' in a) return a.ts.map(build);
    if ('num' in a) return decNum(a.num);
    if ('undef' in a) return undefined;
  }
  return a;
}
const T = (spec) => ({t: spec});
const numDtype = () => pick(['float32', 'float32', 'int32', 'bool']);
const anyDtype = () => pick(['float32', 'float32', 'int32', 'bool', 'string', 'complex64']);
const noComplex = () => pick(['float32', 'float32', 'int32', 'bool', 'string']);
const axisOf = (r) => (r === 0 ? 0 : randInt(-r, r - 1));
const maybe = (p, f) => (rand() < p ? f() : {undef: true});

// ------------------------------------------------------------------ method argument makers
// Each maker returns [selfSpec, args] (valid most of the time; some invalid on purpose).
const UNARY = `abs acos acosh asin asinh atan atanh ceil cos cosh elu erf exp expm1 floor isFinite
isInf isNaN log log1p logSigmoid neg reciprocal relu relu6 round rsqrt selu sigmoid sign sin sinh
softplus sqrt square step tan tanh logicalNot onesLike zerosLike clone toFloat toInt toBool
flatten asScalar`.split(/\s+/);
const ARITH = new Set(`add sub mul div divNoNan floorDiv mod pow maximum minimum
squaredDifference atan2`.split(/\s+/));
const BINARY = `add sub mul div divNoNan floorDiv mod pow maximum minimum squaredDifference atan2
equal notEqual greater greaterEqual less lessEqual logicalAnd logicalOr logicalXor`.split(/\s+/);
const REDUCE = 'sum mean max min prod all any logSumExp euclideanNorm'.split(' ');

function broadcastPartner(shape) {
  // a suffix of shape with some dims set to 1, sometimes with an extra leading dim
  const k = randInt(0, shape.length);
  const s = shape.slice(shape.length - k).map((d) => (rand() < 0.3 ? 1 : d));
  if (rand() < 0.15 && s.length < 4) s.unshift(randInt(1, 2));
  return s;
}
function randAxes(r) {
  if (r === 0) return rand() < 0.5 ? {undef: true} : [];
  const c = rand();
  if (c < 0.3) return {undef: true};
  if (c < 0.7) return axisOf(r);
  return shuffle([...Array(r).keys()]).slice(0, randInt(1, r)).map((a) => (rand() < 0.3 ? a - r : a));
}

const MAKERS = {};
for (const n of UNARY) {
  MAKERS[n] = () => {
    const dt = rand() < 0.1 ? anyDtype() : numDtype();
    return [makeSpec(dt, randShape()), []];
  };
}
MAKERS.asScalar = () => [makeSpec(anyDtype(), rand() < 0.7 ? Array(randInt(0, 3)).fill(1) : randShape()), []];
for (const n of BINARY) {
  MAKERS[n] = () => {
    const dt = numDtype();
    const s = randShape();
    let odt = rand() < 0.75 ? dt : numDtype();
    if (ARITH.has(n) && dt === 'bool' && odt === 'bool') odt = 'int32';
    const other = rand() < 0.25 ? pick([2, 0.5, -1.5, 3, 0])
      : T(makeSpec(odt, broadcastPartner(s)));
    return [makeSpec(dt, s), [other]];
  };
}
for (const n of REDUCE) {
  MAKERS[n] = () => {
    const s = randShape();
    let dt = ['all', 'any'].includes(n) ? (rand() < 0.8 ? 'bool' : numDtype()) : numDtype();
    if (n === 'logSumExp' && dt === 'bool') dt = 'float32';
    const args = [randAxes(s.length)];
    if (rand() < 0.6) args.push(rand() < 0.5);
    return [makeSpec(dt, s), args];
  };
}
for (const n of ['argMax', 'argMin']) {
  MAKERS[n] = () => {
    const s = randShape(1, 4);
    return [makeSpec(numDtype(), s), rand() < 0.3 ? [] : [axisOf(s.length)]];
  };
}
MAKERS.norm = () => {
  const s = randShape(1, 3);
  const ord = pick(['euclidean', 'fro', 1, 2, {num: 'Infinity'}, {num: '-Infinity'}]);
  let axis;
  if (rand() < 0.4) axis = {undef: true};
  else if (s.length >= 2 && rand() < 0.4) axis = shuffle([...Array(s.length).keys()]).slice(0, 2);
  else axis = axisOf(s.length);
  return [makeSpec('float32', s), [ord, axis, rand() < 0.5]];
};
for (const n of ['cumsum', 'cumprod']) {
  MAKERS[n] = () => {
    const s = randShape(1, 3);
    return [makeSpec(numDtype(), s), [randInt(0, s.length - 1), rand() < 0.5, rand() < 0.5]];
  };
}
for (const n of ['softmax', 'logSoftmax']) {
  MAKERS[n] = () => [makeSpec('float32', randShape(1, 3)), rand() < 0.5 ? [] : [-1]];
}
MAKERS.reshape = () => {
  const s = randShape();
  const n = prod(s);
  let ns;
  if (n === 0) ns = [0, randInt(1, 3)];
  else {
    ns = [];
    let left = n;
    for (let d = 2; d <= left; d++) while (left % d === 0 && rand() < 0.7) { ns.push(d); left /= d; }
    if (left > 1) ns.push(left);
    if (ns.length && rand() < 0.3) ns[randInt(0, ns.length - 1)] = -1;
    if (rand() < 0.1) ns.push(1);
  }
  if (rand() < 0.08) ns = [n + 1];  // an invalid size
  return [makeSpec(anyDtype(), s), [ns]];
};
MAKERS.reshapeAs = () => {
  const s = randShape();
  const t = shuffle(s);
  return [makeSpec(anyDtype(), s), [T(makeSpec(numDtype(), rand() < 0.9 ? t : [prod(s) + 1]))]];
};
MAKERS.transpose = () => {
  const s = randShape();
  return [makeSpec(anyDtype(), s), rand() < 0.3 ? [] : [shuffle([...Array(s.length).keys()])]];
};
MAKERS.expandDims = () => {
  const s = randShape(0, 3);
  return [makeSpec(anyDtype(), s), rand() < 0.2 ? [] : [randInt(-s.length - 1, s.length)]];
};
MAKERS.squeeze = () => {
  const s = randShape(0, 4).map((d) => (rand() < 0.4 ? 1 : d));
  const ones = s.map((d, i) => (d === 1 ? i : -1)).filter((i) => i >= 0);
  let args = [];
  if (ones.length && rand() < 0.6) args = [shuffle(ones).slice(0, randInt(1, ones.length)).map((a) => (rand() < 0.3 ? a - s.length : a))];
  else if (rand() < 0.1 && s.length) args = [[randInt(0, s.length - 1)]];
  return [makeSpec(anyDtype(), s), args];
};
MAKERS.tile = () => {
  const s = randShape(1, 3);
  return [makeSpec(noComplex(), s), [s.map(() => randInt(1, 2))]];
};
MAKERS.pad = () => {
  const s = randShape(1, 3);
  const dt = numDtype();
  const args = [s.map(() => [randInt(0, 2), randInt(0, 2)])];
  // a bool tensor padded with -2 holds 254 in TF.js's Uint8Array (the bool quirk above)
  if (rand() < 0.5) args.push(dt === 'bool' ? pick([0, 1]) : pick([0, 1.5, -2]));
  return [makeSpec(dt, s), args];
};
MAKERS.mirrorPad = () => {
  const s = randShape(1, 3, false);
  const mode = pick(['reflect', 'symmetric']);
  const lim = (d) => (mode === 'reflect' ? d - 1 : d);
  return [makeSpec(numDtype(), s), [s.map((d) => [randInt(0, lim(d)), randInt(0, lim(d))]), mode]];
};
MAKERS.reverse = () => {
  const s = randShape();
  return [makeSpec(noComplex(), s), s.length ? [randAxes(s.length)] : []];
};
MAKERS.slice = () => {
  const s = randShape(1, 4);
  const begin = s.map((d) => randInt(0, d));
  const size = s.map((d, i) => (rand() < 0.3 ? -1 : randInt(0, d - begin[i])));
  if (rand() < 0.2) return [makeSpec(noComplex(), s), [begin[0], size[0]]];
  return [makeSpec(noComplex(), s), [begin, size]];
};
MAKERS.stridedSlice = () => {
  const s = randShape(1, 3);
  const begin = s.map((d) => randInt(-d, d));
  const end = s.map((d) => randInt(-d, d));
  const strides = s.map(() => pick([1, 1, 2, -1]));
  const args = [begin, end, strides];
  if (rand() < 0.5) args.push(randInt(0, (1 << s.length) - 1), randInt(0, (1 << s.length) - 1));
  if (strides.every((x) => x === 1)) {
    // TF.js bug: with unit strides it slices with size end - begin, which throws when
    // negative (TensorFlow and tidytensor give an empty slice), so keep end >= begin.
    const [bm, em] = [args[3] || 0, args[4] || 0];
    const norm = (v, d) => Math.min(Math.max(v < 0 ? v + d : v, 0), d);
    s.forEach((d, i) => {
      const b = bm & (1 << i) ? 0 : norm(begin[i], d);
      const e = em & (1 << i) ? d : norm(end[i], d);
      if (e < b) end[i] = begin[i];
    });
  }
  return [makeSpec(numDtype(), s), args];
};
MAKERS.gather = () => {
  const s = randShape(1, 3, false);
  const axis = randInt(0, s.length - 1);
  const idx = makeSpec('int32', randShape(0, 2));
  idx.values = idx.values.map(() => randInt(0, s[axis] - 1));
  return [makeSpec(noComplex(), s), [T(idx), rand() < 0.3 ? axis - s.length : axis]];
};
MAKERS.concat = () => {
  const s = randShape(1, 3);
  const axis = randInt(0, s.length - 1);
  const dt = anyDtype();
  const other = () => { const o = s.slice(); o[axis] = randInt(0, 3); return makeSpec(dt, o); };
  const x = rand() < 0.5 ? T(other()) : {ts: [other(), other()]};
  return [makeSpec(dt, s), rand() < 0.2 ? [x] : [x, rand() < 0.3 ? axis - s.length : axis]];
};
MAKERS.stack = () => {
  const s = randShape(0, 3);
  const dt = noComplex();
  const x = rand() < 0.5 ? T(makeSpec(dt, s)) : {ts: [makeSpec(dt, s), makeSpec(dt, s)]};
  return [makeSpec(dt, s), rand() < 0.2 ? [x] : [x, randInt(0, s.length)]];
};
MAKERS.split = () => {
  const s = randShape(1, 3, false);
  const axis = randInt(0, s.length - 1);
  const d = s[axis];
  const divs = [...Array(d).keys()].map((i) => i + 1).filter((k) => d % k === 0);
  let how = pick(divs);
  if (rand() < 0.4) {
    const a = randInt(0, d);
    how = rand() < 0.3 ? [a, -1] : [a, d - a];
  }
  return [makeSpec(noComplex(), s), [how, rand() < 0.3 ? axis - s.length : axis]];
};
MAKERS.unstack = () => {
  const s = randShape(1, 3);
  return [makeSpec(noComplex(), s), rand() < 0.3 ? [] : [axisOf(s.length)]];
};
MAKERS.broadcastTo = () => {
  const target = randShape(0, 4);
  const s = target.slice(target.length - randInt(0, target.length)).map((d) => (rand() < 0.4 ? 1 : d));
  return [makeSpec(noComplex(), s), [target]];
};
for (let r = 1; r <= 5; r++) {
  MAKERS[`as${r}D`] = () => {
    const s = randShape();
    const n = prod(s);
    // a shape of rank r with n elements: n in the first dim, ones after, shuffled
    let ns = [n, ...Array(r - 1).fill(1)];
    if (rand() < 0.5) ns = shuffle(ns);
    if (r === 1 && rand() < 0.4) ns = [];
    return [makeSpec(anyDtype(), s), ns];
  };
}
MAKERS.asType = () => [makeSpec(numDtype(), randShape()), [pick(['float32', 'int32', 'bool'])]];
MAKERS.cast = MAKERS.asType;
MAKERS.oneHot = () => {
  const s = makeSpec('int32', randShape(0, 2));
  s.values = s.values.map(() => randInt(-1, 4));
  const args = [randInt(1, 4)];
  if (rand() < 0.5) args.push(randInt(2, 5), randInt(-1, 1));
  return [s, args];
};
MAKERS.clipByValue = () => {
  const lo = randInt(-3, 1);
  return [makeSpec(pick(['float32', 'int32']), randShape()), [lo, lo + randInt(0, 3)]];
};
MAKERS.where = () => {
  const s = randShape();
  const dt = anyDtype() === 'complex64' ? 'float32' : numDtype();
  return [makeSpec(dt, s), [T(makeSpec('bool', s)), rand() < 0.9 ? T(makeSpec(dt, s)) : T(makeSpec(dt, broadcastPartner(s)))]];
};
MAKERS.topk = () => {
  const s = randShape(1, 3);
  const last = s[s.length - 1];
  const args = rand() < 0.2 ? [] : [randInt(0, last)];
  if (args.length && rand() < 0.5) args.push(rand() < 0.5);
  const x = makeSpec(pick(['float32', 'int32']), s);
  if (x.dtype === 'float32') x.values = x.values.map((v) => (typeof v === 'string' ? 0.5 : v));
  return [x, args];
};
MAKERS.unique = () => {
  const s = randShape(1, 2);
  const x = makeSpec(pick(['float32', 'int32', 'bool', 'string']), s);
  if (x.dtype === 'float32') x.values = x.values.map(() => randInt(-2, 2) / 2);
  return [x, s.length === 2 && rand() < 0.5 ? [randInt(0, 1)] : []];
};
MAKERS.unsortedSegmentSum = () => {
  const s = randShape(1, 3, false);
  const ids = makeSpec('int32', [s[0]]);
  const k = randInt(1, 4);
  ids.values = ids.values.map(() => randInt(0, k - 1));
  return [makeSpec(pick(['float32', 'int32']), s), [T(ids), k]];
};
MAKERS.leakyRelu = () => [makeSpec(pick(['float32', 'int32']), randShape()), rand() < 0.3 ? [] : [pick([0.1, 0.5, -1, 2])]];
MAKERS.prelu = () => {
  const s = randShape(1, 3);
  return [makeSpec('float32', s), [T(makeSpec('float32', broadcastPartner(s)))]];
};
MAKERS.batchNorm = () => {
  const s = randShape(1, 4, false);
  const p = () => T(makeSpec('float32', [s[s.length - 1]]));
  const v = makeSpec('float32', [s[s.length - 1]]);
  v.values = v.values.map(() => randInt(1, 30) / 10);
  const args = [p(), T(v)];
  if (rand() < 0.7) args.push(rand() < 0.3 ? {undef: true} : p(), rand() < 0.3 ? {undef: true} : p(), pick([0.001, 0.1]));
  return [makeSpec('float32', s), args];
};
MAKERS.matMul = () => {
  const m = randInt(1, 4), k = randInt(0, 4), n = randInt(1, 4);
  const ta = rand() < 0.4, tb = rand() < 0.4;
  const batch = rand() < 0.3 ? [randInt(1, 2)] : [];
  const a = [...batch, ...(ta ? [k, m] : [m, k])];
  const b = [...batch, ...(tb ? [n, k] : [k, n])];
  const dt = pick(['float32', 'float32', 'int32']);
  return [makeSpec(dt, a), [T(makeSpec(dt, b)), ta, tb]];
};
MAKERS.dot = () => {
  const ra = randInt(1, 2), rb = randInt(1, 2);
  const k = randInt(1, 4);
  const a = ra === 1 ? [k] : [randInt(1, 3), k];
  const b = rb === 1 ? [k] : [k, randInt(1, 3)];
  return [makeSpec('float32', a), [T(makeSpec('float32', b))]];
};
MAKERS.spaceToBatchND = () => {
  const bs = [randInt(1, 2), randInt(1, 2)];
  const pads = [[randInt(0, 1), 0], [0, randInt(0, 1)]];
  const h = bs[0] * randInt(1, 2) - pads[0][0], w = bs[1] * randInt(1, 2) - pads[1][1];
  return [makeSpec('float32', [randInt(1, 2), h, w, randInt(1, 2)]), [bs, pads]];
};
MAKERS.batchToSpaceND = () => {
  const bs = [randInt(1, 2), randInt(1, 2)];
  const shape = [bs[0] * bs[1] * randInt(1, 2), randInt(1, 3), randInt(1, 3), randInt(1, 2)];
  const crops = [[0, 0], [0, shape[2] * bs[1] > 1 ? randInt(0, 1) : 0]];
  return [makeSpec('float32', shape), [bs, crops]];
};
MAKERS.depthToSpace = () => {
  const b = randInt(2, 3);
  return [makeSpec(pick(['float32', 'int32']), [1, randInt(1, 2), randInt(1, 2), b * b * randInt(1, 2)]), [b]];
};
for (const n of ['resizeBilinear', 'resizeNearestNeighbor']) {
  MAKERS[n] = () => {
    const s = rand() < 0.8 ? [randInt(1, 2), randInt(1, 4), randInt(1, 4), randInt(1, 2)] : [randInt(1, 4), randInt(1, 4), 1];
    const args = [[randInt(1, 5), randInt(1, 5)]];
    if (rand() < 0.6) { const ac = rand() < 0.3; args.push(ac, ac ? false : rand() < 0.5); }
    return [makeSpec(pick(['float32', 'int32']), s), args];
  };
}
for (const n of ['fft', 'ifft']) MAKERS[n] = () => [makeSpec('complex64', randShape(1, 2, false)), []];
MAKERS.rfft = () => {
  const s = randShape(1, 2, false);
  return [makeSpec('float32', s), []];
};
MAKERS.irfft = () => [makeSpec('complex64', randShape(1, 2, false)), []];
MAKERS.localResponseNormalization = () => {
  const args = rand() < 0.3 ? [] : [randInt(1, 3), pick([1, 2]), pick([1, 0.5]), pick([0.5, 0.75])];
  return [makeSpec('float32', [1, randInt(1, 3), randInt(1, 3), randInt(1, 5)]), args];
};
function finite(shape) {
  const spec = makeSpec('float32', shape);
  spec.values = spec.values.map((v) => (typeof v === 'string' ? 0.25 : v));
  return spec;
}
function convIn(rank, ch) {
  return finite( rank === 3 ? [randInt(3, 5), randInt(3, 5), ch] : [randInt(1, 2), randInt(3, 5), randInt(3, 5), ch]);
}
MAKERS.conv1d = () => {
  const ci = randInt(1, 2);
  const x = finite(rand() < 0.5 ? [randInt(3, 6), ci] : [randInt(1, 2), randInt(3, 6), ci]);
  return [x, [T(finite([randInt(1, 3), ci, randInt(1, 2)])), randInt(1, 2), pick(['same', 'valid'])]];
};
MAKERS.conv2d = () => {
  const ci = randInt(1, 2);
  const x = convIn(pick([3, 4]), ci);
  return [x, [T(finite([randInt(1, 3), randInt(1, 3), ci, randInt(1, 2)])), randInt(1, 2), pick(['same', 'valid'])]];
};
MAKERS.conv2dTranspose = () => {
  const co = randInt(1, 2), ci = randInt(1, 2);
  const b = randInt(1, 2), h = randInt(2, 3), w = randInt(2, 3), k = randInt(1, 2), st = randInt(1, 2);
  const pad = pick(['same', 'valid']);
  const oh = pad === 'same' ? h * st : (h - 1) * st + k, ow = pad === 'same' ? w * st : (w - 1) * st + k;
  return [finite([b, h, w, ci]), [T(finite([k, k, co, ci])), [b, oh, ow, co], st, pad]];
};
MAKERS.depthwiseConv2d = () => {
  const ci = randInt(1, 2);
  return [convIn(pick([3, 4]), ci), [T(finite([randInt(1, 3), randInt(1, 3), ci, randInt(1, 2)])), randInt(1, 2), pick(['same', 'valid'])]];
};
MAKERS.separableConv2d = () => {
  const ci = randInt(1, 2), cm = randInt(1, 2);
  return [convIn(pick([3, 4]), ci), [T(finite([2, 2, ci, cm])), T(finite([1, 1, ci * cm, randInt(1, 2)])), 1, pick(['same', 'valid'])]];
};
for (const n of ['avgPool', 'maxPool']) {
  MAKERS[n] = () => [convIn(pick([3, 4]), randInt(1, 2)), [randInt(1, 3), randInt(1, 2), pick(['same', 'valid'])]];
}
MAKERS.pool = () => [convIn(pick([3, 4]), randInt(1, 2)), [[randInt(1, 2), randInt(1, 2)], pick(['avg', 'max']), pick(['same', 'valid'])]];
MAKERS.dilation2d = () => {
  const ci = randInt(1, 2);
  return [convIn(pick([3, 4]), ci), [T(finite([randInt(1, 2), randInt(1, 2), ci])), [1, 1, 1, 1], pick(['same', 'valid'])]];
};

// ------------------------------------------------------------------ the cases
const cases = [];
function runMethod(x, name, args) {
  try {
    const r = x[name](...args.map(decArg));
    return encResult(r);
  } catch (e) {
    return {error: errText(e)};
  }
}

// props
for (let i = 0; i < 26; i++) {
  const spec = makeSpec(anyDtype(), randShape(0, 4));
  const x = build(spec);
  const rec = {kind: 'props', x: spec};
  rec.shape = x.shape; rec.dtype = x.dtype; rec.rank = x.rank; rec.size = x.size;
  rec.strides = x.strides; rec.isDisposed = x.isDisposed;
  const d = x.dataSync();
  rec.dataKind = d.constructor.name;
  rec.data = x.dtype === 'string' ? Array.from(d) : Array.from(d, encNum);
  rec.array = JSON.parse(JSON.stringify(x.arraySync(), (k, v) => (typeof v === 'number' ? encNum(v) : v)));
  const b = x.dtype === 'complex64' ? null : x.bufferSync();
  if (b) rec.buffer = {dtype: b.dtype, shape: b.shape, strides: b.strides, size: b.size,
    values: x.dtype === 'string' ? Array.from(b.values) : Array.from(b.values, encNum)};
  x.dispose();
  rec.after = {isDisposed: x.isDisposed, shape: x.shape, size: x.size, rank: x.rank, dtype: x.dtype};
  for (const m of ['dataSync', 'arraySync', 'bufferSync']) {
    try { x[m](); rec.after[m] = 'ok'; } catch (e) { rec.after[m] = 'error'; }
  }
  try { x.dispose(); rec.after.disposeTwice = 'ok'; } catch (e) { rec.after.disposeTwice = 'error'; }
  cases.push(rec);
}

// methods (each name several times) and disposed calls
const names = Object.keys(MAKERS).sort();
for (const name of names) {
  if (typeof tf.Tensor.prototype[name] !== 'function') throw new Error(`no Tensor.${name}`);
  const reps = UNARY.includes(name) ? 2 : 3;
  for (let i = 0; i < reps; i++) {
    const [spec, args] = MAKERS[name]();
    const x = build(spec);
    cases.push({kind: 'method', name, x: spec, args, result: runMethod(x, name, args)});
    x.dispose();
  }
  const [spec, args] = MAKERS[name]();
  const x = build(spec);
  x.dispose();
  const r = runMethod(x, name, args);
  cases.push({kind: 'disposed', name, x: spec, args, result: r});
}

// variables: small programs
for (let i = 0; i < 30; i++) {
  const steps = [];
  const vars = [];
  const nm = `tafz_${seed}_${i}`;
  const dt = pick(['float32', 'int32', 'bool']);
  const s = randShape(0, 3);
  const init = makeSpec(dt, s);
  const opts = {trainable: pick([true, false, {undef: true}]),
                name: pick([nm, {undef: true}]),
                dtype: pick([{undef: true}, {undef: true}, 'float32', 'int32', 'bool'])};
  const step = (st, fn) => {
    try { st.out = fn(); } catch (e) { st.error = errText(e); }
    steps.push(st);
  };
  const describe = (v) => ({dtype: v.dtype, shape: v.shape, trainable: v.trainable,
    isDisposed: v.isDisposed, values: v.isDisposed ? null : encTensor(v).values,
    name: v.name.startsWith('tafz_') ? v.name : null});
  step({op: 'create', x: init, trainable: opts.trainable, name: opts.name, dtype: opts.dtype}, () => {
    const t = build(init);
    const v = tf.variable(t, decArg(opts.trainable), decArg(opts.name), decArg(opts.dtype));
    t.dispose();
    vars.push(v);
    return describe(v);
  });
  if (!vars.length) { cases.push({kind: 'variable', steps}); continue; }
  const v = vars[0];
  for (let k = 0; k < randInt(1, 4); k++) {
    const c = rand();
    if (c < 0.5) {
      const same = rand() < 0.6;
      const spec = makeSpec(same ? v.dtype : pick(['float32', 'int32', 'bool']), same || rand() < 0.5 ? v.shape : randShape(0, 3));
      step({op: 'assign', x: spec}, () => { const t = build(spec); try { v.assign(t); } finally { t.dispose(); } return describe(v); });
    } else if (c < 0.65) {
      const val = rand() < 0.5;
      step({op: 'setTrainable', value: val}, () => { v.trainable = val; return describe(v); });
    } else if (c < 0.8) {
      const spec = makeSpec('float32', randShape(0, 2));
      step({op: 'create', x: spec, trainable: {undef: true}, name: v.name.startsWith('tafz_') ? v.name : nm + '_b', dtype: {undef: true}}, () => {
        const t = build(spec);
        try { const w = tf.variable(t, undefined, v.name.startsWith('tafz_') ? v.name : nm + '_b'); vars.push(w); return describe(w); } finally { t.dispose(); }
      });
    } else {
      const name = MAKERS.sum ? pick(['sum', 'add', 'reshape', 'clone']) : 'clone';
      const args = name === 'add' ? [1] : name === 'reshape' ? [[-1]] : [];
      step({op: 'method', name, args}, () => encResult(v[name](...args)));
    }
  }
  step({op: 'dispose'}, () => { v.dispose(); return describe(v); });
  step({op: 'method', name: 'clone', args: []}, () => encResult(v.clone()));
  if (v.name.startsWith('tafz_')) {
    step({op: 'create', x: init, trainable: {undef: true}, name: v.name, dtype: {undef: true}}, () => {
      const t = build(init);
      try { const w = tf.variable(t, undefined, v.name); vars.push(w); return describe(w); } finally { t.dispose(); }
    });
  }
  for (const w of vars.slice(1)) w.dispose();
  cases.push({kind: 'variable', steps});
}

const out = {seed, tfjs: tf.version.tfjs, cases};
fs.writeFileSync(outFile, JSON.stringify(out));
console.log(`${cases.length} cases -> ${outFile} (${fs.statSync(outFile).size} bytes)`);
