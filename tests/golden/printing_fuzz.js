// Differential fuzz of TF.js 4.22.0's tensor text output (cpu backend): writes
// results/printing_fuzz.json, which tests/test_printing_fuzz.py replays with tidytensor.
// Run: cd tests/golden && node printing_fuzz.js [seed [out.json]]
//
// Seeded random tensors of rank 0-6 (shapes with 0-size dims and with dims over 20, which TF.js
// elides with '...'), dtypes float32/int32/bool/string/complex64, values drawn from special
// classes (NaN, +-Infinity, -0, denormals, exponent-range magnitudes, float32 integers, toFixed
// rounding ties, long and unicode strings). Recorded per tensor: toString(), toString(true)
// (`true` when it is exactly the dtype/rank/shape/values header lines then toString()'s lines),
// and the console.log calls made by t.print(), t.print(true), tf.print(t, true); for
// numeric dtypes also tf.variable(t)'s toString() and print(). A print record is `true` when it
// is exactly one console.log of the matching toString text (it always is in 4.22.0), else the
// list of logged strings.
//
// Values travel as: float32 -> base64 of the little-endian Float32Array bytes; int32 -> list;
// bool -> list of 0/1; string -> list; complex64 -> [base64 re, base64 im].
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const SEED = Number(process.argv[2] || 20250611);
const NUM_CASES = 360;

const { mulberry32 } = require('./prng');
const rand = mulberry32(SEED);
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));  // inclusive
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

const DTYPES = ['float32', 'float32', 'float32', 'int32', 'bool', 'string', 'complex64'];
const MAX_SIZE = 360;

function randomShape(rank) {
  for (;;) {
    const shape = [];
    const kind = rand();
    for (let i = 0; i < rank; ++i) {
      let d;
      const r = rand();
      if (r < 0.05) d = 0;
      else if (r < 0.15 && kind < 0.35) d = randInt(21, 30);  // elided with '...'
      else if (r < 0.2) d = randInt(18, 22);                  // around the limit of 20
      else d = randInt(1, rank >= 5 ? 2 : 4);
      shape.push(d);
    }
    if (shape.reduce((a, b) => a * b, 1) <= (rank >= 4 ? MAX_SIZE / 4 : MAX_SIZE)) return shape;
  }
}

const FLOAT_CLASSES = {
  small: () => (rand() - 0.5) * 4,
  digits: () => Math.round((rand() - 0.5) * 2000) / 100,
  large: () => (rand() < 0.5 ? -1 : 1) * Math.pow(10, randInt(6, 38)) * (1 + rand()),
  tiny: () => (rand() < 0.5 ? -1 : 1) * Math.pow(10, -randInt(5, 45)) * (1 + rand()),
  nearZero: () => (rand() - 0.5) * 2e-7,
  integer: () => randInt(-100000, 100000),
  bigInteger: () => (rand() < 0.5 ? -1 : 1) * randInt(16777200, 16777300),
  special: () => pick([NaN, Infinity, -Infinity, -0, 0, 3.4028234663852886e38, -3.4028234663852886e38,
    1.401298464324817e-45, 1.1754943508222875e-38, 1e21, 1e20, 1e-7, 1e-6, 0.5, -1]),
  tie: () => (rand() < 0.5 ? -1 : 1) * (2 * randInt(0, 600) + 1) / 256,
  eighth: () => randInt(-40, 40) / 8,
};
const FLOAT_CLASS_NAMES = Object.keys(FLOAT_CLASSES);

const STRING_POOL = ['', 'a', 'hello', 'Hello, World!', "it's", 'tab\there', 'line\nbreak',
  'quote"d', '\u00e9t\u00e9', '\u65e5\u672c\u8a9e', '\ud83d\ude00', 'a\ud83c\udf89b', 'e\u0301',
  '\u0645\u0631\u062d\u0628\u0627', ' lead', 'trail ', '[1, 2]', 'null', 'NaN', '0.1',
  '\u00df\u00df\u00df', '\u2603\u2603'];

function randomString() {
  const r = rand();
  if (r < 0.6) return pick(STRING_POOL);
  if (r < 0.8) {
    const n = randInt(20, 60);
    let s = '';
    for (let i = 0; i < n; ++i) s += String.fromCharCode(97 + randInt(0, 25));
    return s;
  }
  const n = randInt(1, 8);
  let s = '';
  for (let i = 0; i < n; ++i) s += pick(STRING_POOL);
  return s;
}

function floatValues(n) {
  const classes = [pick(FLOAT_CLASS_NAMES)];
  if (rand() < 0.5) classes.push(pick(FLOAT_CLASS_NAMES));
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) out[i] = FLOAT_CLASSES[pick(classes)]();
  return out;
}

function intValues(n) {
  const mode = rand();
  const out = new Int32Array(n);
  for (let i = 0; i < n; ++i) {
    if (mode < 0.4) out[i] = randInt(-9, 9);
    else if (mode < 0.7) out[i] = randInt(-100000, 100000);
    else out[i] = rand() < 0.3 ? pick([-2147483648, 2147483647, 0, -1]) : randInt(-2147483648, 2147483647);
  }
  return out;
}

const b64 = (f32) => Buffer.from(f32.buffer, f32.byteOffset, f32.byteLength).toString('base64');

function captureLogs(fn) {
  const orig = console.log;
  const calls = [];
  console.log = (...args) => calls.push(args.map(String).join(' '));
  try { fn(); } finally { console.log = orig; }
  return calls;
}
const printRecord = (calls, text) => (calls.length === 1 && calls[0] === text ? true : calls);

function makeCase(i) {
  const rank = i < 40 ? 0 : randInt(1, 6);
  const dtype = pick(DTYPES);
  const shape = rank === 0 ? [] : randomShape(rank);
  const n = shape.reduce((a, b) => a * b, 1);
  const c = {name: `${i}: ${dtype} [${shape}]`, dtype, shape};
  let t;
  if (dtype === 'float32') {
    const v = floatValues(n);
    c.values = b64(v);
    t = tf.tensor(v, shape, 'float32');
  } else if (dtype === 'int32') {
    const v = intValues(n);
    c.values = Array.from(v);
    t = tf.tensor(v, shape, 'int32');
  } else if (dtype === 'bool') {
    const v = Array.from({length: n}, () => (rand() < 0.5 ? 1 : 0));
    c.values = v;
    t = tf.tensor(v.map((x) => x === 1), shape, 'bool');
  } else if (dtype === 'string') {
    const v = Array.from({length: n}, randomString);
    c.values = v;
    t = tf.tensor(v, shape, 'string');
  } else {
    const re = floatValues(n);
    const im = floatValues(n);
    c.values = [b64(re), b64(im)];
    t = tf.tidy(() => tf.complex(tf.tensor(re, shape), tf.tensor(im, shape)));
  }
  c.str = t.toString();
  const verbose = t.toString(true);
  // Stored as `true` when it is the header lines followed by toString()'s value lines.
  const header = `Tensor\n  dtype: ${dtype}\n  rank: ${rank}\n  shape: [${shape}]\n  values:`;
  c.verbose = verbose === header + c.str.slice('Tensor'.length) ? true : verbose;
  c.print = printRecord(captureLogs(() => t.print()), c.str);
  c.printVerbose = printRecord(captureLogs(() => t.print(true)), verbose);
  c.tfPrintVerbose = printRecord(captureLogs(() => tf.print(t, true)), verbose);
  if (dtype !== 'string' && dtype !== 'complex64') {
    const v = tf.variable(t);
    const vs = v.toString();
    c.variable = vs === c.str ? true : vs;
    c.variablePrint = printRecord(captureLogs(() => v.print()), c.str);
    v.dispose();
  }
  t.dispose();
  return c;
}

const cases = [];
for (let i = 0; i < NUM_CASES; ++i) cases.push(makeCase(i));
const out = {seed: SEED, tfjs: tf.version.tfjs, cases};
const file = process.argv[3] || path.join(__dirname, 'results', 'printing_fuzz.json');
fs.writeFileSync(file, JSON.stringify(out) + '\n');
console.log(`wrote ${cases.length} cases, ${fs.statSync(file).size} bytes to ${file}`);
