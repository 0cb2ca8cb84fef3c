// Differential fuzz of tf.data: random pipelines run on TF.js 4.22.0 (cpu backend), written
// to results/data_fuzz.json and replayed by tests/data/test_data_fuzz.py on tidytensor.
// Run: cd tests/golden && node data_fuzz.js            (the committed seed)
//      cd tests/golden && node data_fuzz.js 12345 /tmp/x.json   (hunt afresh; the Python
//      test reads another file with DATA_FUZZ_JSON=/tmp/x.json)
//
// Each case is a JSON spec (a source and a chain of ops naming functions from a small
// library that tests/data/test_data_fuzz.py implements the same way), a consumption mode
// and what TF.js gave: the dataset's size, every element (tensors as shape/dtype/values,
// objects with their key order), the iterator's next() results, and tf.memory() counts
// after the iteration and after disposing what it handed out. Error cases record messages.
//
// Kept out on purpose (documented differences or TF.js bugs; see the Python test too):
// - zip's size when a part's size is unknown: TF.js takes Math.min(n, null) = 0 or skips
//   the null depending on the order of the parts; tidytensor reports None (unknown).
// - skip(n < 0): TF.js documents (and sizes) it as skipping everything but skips nothing;
//   tidytensor skips everything (tests/data/test_data_golden.py's DEVIATIONS).
// - batching rows of different lengths ([[1, 2], [3]]): TF.js makes ragged garbage.
// - batching lists that hold tensors or objects ([t1, t2], zip([ds1, ds2]) of tensors):
//   TF.js hands any list to tf.tensor() and fails ("... does not match the input size");
//   tidytensor batches such lists item by item (see _structure.batch_rows). Such
//   pipelines are redrawn.
// - take(n < 0).size: TF.js reports the negative count as the size; tidytensor the
//   upstream's size (the elements agree: all of them).
// - shuffle(..., reshuffleEachIteration=false): TF.js 4.22 reshuffles anyway; tidytensor
//   keeps the first iteration's order (the first iteration agrees, and is fuzzed).
// - shuffle(..., reshuffleEachIteration=false) is fuzzed, its second iteration not compared.
// - mapAsync functions are wrapped in tf.tidy here: TF.js leaves intermediates of async
//   transforms to the user (they leak), tidytensor tidies them.
// - forEachAsync callbacks make no tensors (TF.js does not tidy them either).
// - CSV: empty fields only in columns with a default or in a required/label column (TF.js
//   yields undefined for an empty optional field, which tidytensor refuses); no doubled
//   quotes inside quoted fields (TF.js keeps both quotes); no dtype 'string' (TF.js turns
//   numeric text into numbers anyway); no blank lines in the middle of the text.
// - Memory counts are compared exactly only where TF.js leaks nothing after disposing the
//   results. TF.js's concatenate leaks a clone of every tensor of an array source (its
//   chain of iterators is itself an array dataset, which deep-clones the iterators'
//   items); there tidytensor must hand out as many and leak nothing. A stopped iterator
//   (mode 'iter') holds its buffers in both; with a prefetch stage only the end is checked.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const SEED = Number(process.argv[2] || 20240611);
const OUT = process.argv[3] || path.join(__dirname, 'results', 'data_fuzz.json');
const N_CASES = Number(process.argv[4] || 160);

// mulberry32: a small seeded PRNG for the generator's choices (not TF.js's).
function makeRng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)); // inclusive
  const pick = (xs) => xs[int(0, xs.length - 1)];
  const chance = (p) => next() < p;
  return {next, int, pick, chance};
}

// ------------------------------------------------------------------ element kinds
const KINDS = ['num', 'vec', 'obj', 'mixed', 'tensor', 'itensor', 'objt'];
function makeElement(kind, i) {
  switch (kind) {
    case 'num':
      return i * 2 - 3;
    case 'vec':
      return [i, i + 1, 2 * i];
    case 'obj':
      return {b: i, a: [i, -i], c: {d: i + 0.5}};
    case 'mixed':
      return {f: i % 2 === 0, s: 's' + i, n: i};
    case 'tensor':
      return tf.tensor2d([[i, i + 1], [i * 2, -i]]);
    case 'itensor':
      return tf.tensor1d([i, i * 3], 'int32');
    case 'objt':
      return {x: tf.tensor1d([i, i + 1]), y: tf.scalar(i, 'int32')};
  }
  throw new Error('kind ' + kind);
}

// ------------------------------------------------------------------ function library
const isPlainObject = (x) => x != null && typeof x === 'object' && !Array.isArray(x) && !(x instanceof tf.Tensor);
function leafMap(x, fnum, ften) {
  if (x instanceof tf.Tensor) return ften(x);
  if (typeof x === 'number') return fnum(x);
  if (Array.isArray(x)) return x.map((v) => leafMap(v, fnum, ften));
  if (isPlainObject(x)) {
    const out = {};
    for (const k of Object.keys(x)) out[k] = leafMap(x[k], fnum, ften);
    return out;
  }
  return x;
}
function firstNum(x) {
  if (x instanceof tf.Tensor) return x.size && x.dtype !== 'string' ? x.dataSync()[0] : null;
  if (typeof x === 'number') return x;
  if (Array.isArray(x) || isPlainObject(x)) {
    for (const v of Object.values(x)) {
      const r = firstNum(v);
      if (r !== null) return r;
    }
  }
  return null;
}
const firstNumOr0 = (x) => {
  const r = firstNum(x);
  return r === null ? 0 : r;
};

const MAPS = {
  scale: (x) => leafMap(x, (v) => v * 3 - 1, (t) => t.mul(3).sub(1)),
  square: (x) => leafMap(x, (v) => v * v, (t) => t.square()),
  tensorize: (x) => leafMap(x, (v) => tf.scalar(v), (t) => t),
  tensorize_int: (x) => leafMap(x, (v) => tf.scalar(v, 'int32'), (t) => t.toInt()),
  sum: (x) => leafMap(x, (v) => v + 1, (t) => t.sum()),
  flatten: (x) => leafMap(x, (v) => [v, -v], (t) => t.reshape([-1])),
  wrap_obj: (x) => ({v: x, k: firstNumOr0(x)}),
  unwrap: (x) => (Array.isArray(x) ? x[0] : isPlainObject(x) ? x[Object.keys(x)[0]] : x),
  pair: (x) => [x, leafMap(x, (v) => v + 1, (t) => t.add(1))],
  to_float: (x) => leafMap(x, (v) => v / 2, (t) => t.toFloat().div(2)),
};
const FILTERS = {
  mod3: (x) => firstNumOr0(x) % 3 !== 0,
  gt2: (x) => firstNumOr0(x) > 2,
  even_int: (x) => Math.floor(firstNumOr0(x)) % 2 === 0,
};

// ------------------------------------------------------------------ CSV text
const COLUMN_POOL = ['age', 'h', 'label', 'city', 'x y', 'flag', 'k', 'z'];
function genCsv(rng) {
  const nCols = rng.int(2, 5);
  const names = [];
  while (names.length < nCols) {
    const n = rng.pick(COLUMN_POOL);
    if (!names.includes(n)) names.push(n);
  }
  const whitespace = rng.chance(0.15);
  const delimiter = whitespace ? ' ' : rng.pick([',', ',', ';', '\t', '|']);
  // column types: int, float, text, bool
  const types = names.map(() => rng.pick(['int', 'int', 'float', 'text', 'bool']));
  const configs = {};
  const hasDefault = {};
  names.forEach((n, c) => {
    if (!rng.chance(0.5)) return;
    const cfg = {};
    if (rng.chance(0.3) && types[c] !== 'text') cfg.isLabel = true;
    if (rng.chance(0.4) && types[c] !== 'text') cfg.dtype = rng.pick(['int32', 'float32', 'bool']);
    if (rng.chance(0.5) && !whitespace) {
      cfg.default = types[c] === 'text' ? 'dflt' : rng.int(-5, 5);
      hasDefault[n] = true;
    }
    if (rng.chance(0.2)) cfg.required = true;
    configs[n] = cfg;
  });
  const nRows = rng.int(1, 7);
  const cell = (c, r) => {
    const t = types[c];
    if (hasDefault[names[c]] && rng.chance(0.25)) return '';
    let s;
    if (t === 'int') s = rng.chance(0.1) ? rng.pick(['0x1F', '1e2', '+7', 'Infinity', '-Infinity']) : String(rng.int(-20, 40));
    else if (t === 'float') s = String(rng.int(-400, 400) / 8);
    else if (t === 'bool') s = rng.pick(['0', '1', 'true', 'false', 'True']);
    else s = rng.pick(['ab', 'c d', 'e,f', 'q;r', 'xyz']) + r;
    if ((t === 'int' || t === 'float') && !whitespace && rng.chance(0.1)) s = ' ' + s + ' ';
    if (whitespace) s = s.replace(/[\s,;]/g, '_');
    if (s.includes(delimiter) || (!whitespace && rng.chance(0.15))) s = '"' + s + '"';
    return s;
  };
  const lines = [];
  const hasHeader = rng.chance(0.75);
  const header = names.map((n) => (whitespace ? n.replace(' ', '_') : n.includes(delimiter) ? '"' + n + '"' : n));
  if (hasHeader) lines.push(header.join(delimiter));
  for (let r = 0; r < nRows; r++) {
    const row = names.map((_, c) => cell(c, r));
    lines.push(whitespace ? row.join(rng.pick([' ', '  ', '   '])) : row.join(delimiter));
  }
  const eol = rng.chance(0.2) ? '\r\n' : '\n';
  const text = lines.join(eol) + (rng.chance(0.5) ? eol : '');
  const config = {};
  const colNames = whitespace ? header : names;
  if (!hasHeader || rng.chance(0.2)) config.columnNames = colNames;
  if (!hasHeader) config.hasHeader = false;
  if (whitespace) config.delimWhitespace = true;
  else if (delimiter !== ',' || rng.chance(0.2)) config.delimiter = delimiter;
  const cfgs = {};
  for (const [n, cfg] of Object.entries(configs)) cfgs[whitespace ? n.replace(' ', '_') : n] = cfg;
  if (Object.keys(cfgs).length) config.columnConfigs = cfgs;
  if (config.columnConfigs && rng.chance(0.2)) config.configuredColumnsOnly = true;
  return {text, config};
}

let csvCounter = 0;
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'data-fuzz-'));
function csvDataset(text, config) {
  const file = path.join(TMP, `f${csvCounter++}.csv`);
  fs.writeFileSync(file, text);
  return tf.data.csv('file://' + file, config);
}

// ------------------------------------------------------------------ sources
function genSource(rng, depth = 0) {
  const r = rng.next();
  if (r < 0.35) return {type: 'array', kind: rng.pick(KINDS), n: rng.int(0, 7), start: rng.int(-2, 3)};
  if (r < 0.55) return {type: 'gen', kind: rng.pick(KINDS), n: rng.int(0, 7), start: rng.int(-2, 3)};
  if (r < 0.7 && depth === 0) {
    const form = rng.pick(['array', 'object', 'nested']);
    const part = () => ({type: rng.pick(['array', 'array', 'gen']), kind: rng.pick(KINDS), n: rng.int(1, 6), start: rng.int(0, 3)});
    return {type: 'zip', form, parts: form === 'nested' ? [part(), part(), part()] : Array.from({length: rng.int(1, 3)}, part)};
  }
  if (r < 0.82 && depth === 0) {
    const kind = rng.pick(KINDS);
    return {
      type: 'concat',
      parts: [
        {type: rng.pick(['array', 'gen']), kind, n: rng.int(0, 4), start: 0},
        {type: rng.pick(['array', 'gen']), kind, n: rng.int(0, 4), start: 10},
      ],
    };
  }
  return {type: 'csv', ...genCsv(rng)};
}

function buildSource(src) {
  switch (src.type) {
    case 'array':
      return tf.data.array(Array.from({length: src.n}, (_, i) => makeElement(src.kind, src.start + i)));
    case 'gen':
      return tf.data.generator(function* () {
        for (let i = 0; i < src.n; i++) yield makeElement(src.kind, src.start + i);
      });
    case 'zip': {
      const ds = src.parts.map(buildSource);
      if (src.form === 'array') return tf.data.zip(ds);
      if (src.form === 'object') {
        const o = {};
        ds.forEach((d, i) => (o['p' + (ds.length - i)] = d));
        return tf.data.zip(o);
      }
      return tf.data.zip({a: ds[0], b: [ds[1], {c: ds[2]}]});
    }
    case 'concat':
      return buildSource(src.parts[0]).concatenate(buildSource(src.parts[1]));
    case 'csv':
      return csvDataset(src.text, src.config);
  }
  throw new Error('source ' + src.type);
}

// ------------------------------------------------------------------ ops
// An endless repeat of an empty stream never ends in TF.js (tidytensor ends it): an endless
// repeat is only generated where the pipeline so far yields something (run here to see).
async function prefixCount(source, ops) {
  let els;
  try {
    els = await applyOps(buildSource(source), ops).toArray();
  } catch (e) {
    return 0;
  }
  const n = els.length;
  tf.dispose(els);
  return n;
}

async function genOps(rng, source) {
  const ops = [];
  const n = rng.int(0, 5);
  let infinite = false;
  for (let k = 0; k < n; k++) {
    const r = rng.next();
    if (r < 0.2) ops.push({op: 'map', fn: rng.pick(Object.keys(MAPS))});
    else if (r < 0.27) ops.push({op: 'mapAsync', fn: rng.pick(Object.keys(MAPS))});
    else if (r < 0.37) ops.push({op: 'filter', fn: rng.pick(Object.keys(FILTERS))});
    else if (r < 0.55) ops.push({op: 'batch', size: rng.int(1, 4), small: rng.pick([true, true, false])});
    else if (r < 0.67) {
      const o = {op: 'shuffle', buf: rng.int(1, 9), seed: rng.chance(0.7) ? 's' + rng.int(0, 999) : rng.int(1, 99999)};
      if (rng.chance(0.15)) o.reshuffle = false;
      ops.push(o);
    } else if (r < 0.75) ops.push({op: 'take', n: rng.int(-1, 6)});
    else if (r < 0.82) ops.push({op: 'skip', n: rng.int(0, 4)});
    else if (r < 0.92) {
      if (rng.chance(0.3) && (await prefixCount(source, ops)) > 0) {
        ops.push({op: 'repeat', n: null});
        ops.push({op: 'take', n: rng.int(0, 9)});
      } else ops.push({op: 'repeat', n: rng.int(0, 3)});
    } else ops.push({op: 'prefetch', buf: rng.int(1, 4)});
  }
  // A repeat re-iterates what comes before it: a non-reshuffling shuffle there differs.
  ops.forEach((o, k) => {
    if (o.reshuffle === false && ops.slice(k).some((p) => p.op === 'repeat')) delete o.reshuffle;
  });
  return ops;
}

function applyOps(ds, ops) {
  for (const o of ops) {
    switch (o.op) {
      case 'map':
        ds = ds.map(MAPS[o.fn]);
        break;
      case 'mapAsync': {
        const f = MAPS[o.fn];
        ds = ds.mapAsync(async (x) => tf.tidy(() => f(x)));
        break;
      }
      case 'filter':
        ds = ds.filter(FILTERS[o.fn]);
        break;
      case 'batch':
        ds = ds.map(checkListsAreTensorLike).batch(o.size, o.small);
        break;
      case 'shuffle':
        ds = o.reshuffle === false ? ds.shuffle(o.buf, o.seed, false) : ds.shuffle(o.buf, o.seed);
        break;
      case 'take':
        ds = ds.take(o.n);
        break;
      case 'skip':
        ds = ds.skip(o.n);
        break;
      case 'repeat':
        ds = o.n === null ? ds.repeat() : ds.repeat(o.n);
        break;
      case 'prefetch':
        ds = ds.prefetch(o.buf);
        break;
      default:
        throw new Error('op ' + o.op);
    }
  }
  return ds;
}

// ------------------------------------------------------------------ encoding
function encode(v) {
  if (v instanceof tf.Tensor) {
    const fin = (x) => (Array.isArray(x) ? x.map(fin) : typeof x === 'number' && !Number.isFinite(x) ? String(x) : x);
    return {tensor: {shape: v.shape, dtype: v.dtype, values: fin(v.arraySync())}};
  }
  if (Array.isArray(v)) return v.map(encode);
  if (v === null) return null;
  if (v === undefined) return {undefined: true};
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v)) out[k] = encode(v[k]);
    return {object: out, keys: Object.keys(v)};
  }
  return v;
}
const sizeOf = (s) => (s === Infinity ? 'Infinity' : s === undefined ? null : s);

// Whether the spec's size is TF.js's well-defined one (see the header).
function sizeComparable(spec) {
  if (spec.source.type === 'zip') {
    if (spec.source.form === 'nested' || spec.source.parts.some((p) => p.type === 'gen')) return false;
  }
  return !spec.ops.some((o) => o.op === 'take' && o.n < 0);
}

const LIST_BATCH_ERROR = /does not match the input size|passed to 'tensor' must be|list holding a non-number/;

// Run (identity) before every batch here, not in the Python replay: fails where a list
// holds a tensor or an object, which TF.js cannot batch (the pipeline is redrawn).
function checkListsAreTensorLike(x) {
  const walk = (v, inList) => {
    if (Array.isArray(v)) return v.forEach((u) => walk(u, true));
    if (inList && typeof v !== 'number' && typeof v !== 'boolean' && typeof v !== 'string') {
      throw new Error('list holding a non-number');
    }
    if (isPlainObject(v)) Object.values(v).forEach((u) => walk(u, false));
  };
  walk(x, false);
  return x;
}

async function runCase(spec) {
  const out = {};
  let ds;
  const before0 = tf.memory().numTensors;
  try {
    ds = applyOps(buildSource(spec.source), spec.ops);
  } catch (e) {
    out.build_error = e.message;
    return out;
  }
  out.size = sizeOf(ds.size);
  out.size_comparable = sizeComparable(spec);
  if (spec.source.type === 'csv') {
    try {
      out.column_names = await buildSource(spec.source).columnNames();
    } catch (e) {
      out.column_names_error = e.message;
    }
  }
  const before = tf.memory().numTensors;
  out.source_tensors = before - before0;
  const held = [];
  try {
    if (spec.mode === 'toArray' || spec.mode === 'twice') {
      out.runs = [];
      for (let r = 0; r < (spec.mode === 'twice' ? 2 : 1); r++) {
        const els = await ds.toArray();
        held.push(els);
        out.runs.push(els.map(encode));
      }
    } else if (spec.mode === 'iter') {
      const it = await ds.iterator();
      out.steps = [];
      for (let k = 0; k < spec.steps; k++) {
        const r = await it.next();
        held.push(r.value);
        out.steps.push({done: r.done, value: encode(r.value)});
      }
    } else if (spec.mode === 'forEach') {
      out.seen = [];
      await ds.forEachAsync((x) => {
        out.seen.push(encode(x));
      });
    }
  } catch (e) {
    out.error = e.message;
  }
  out.mem_after_iter = tf.memory().numTensors - before;
  tf.dispose(held);
  out.mem_after_dispose = tf.memory().numTensors - before;
  return out;
}

// ------------------------------------------------------------------ fixed error cases
const ERRORS = {
  batch_zero: () => tf.data.array([1, 2]).batch(0).toArray(),
  batch_negative: () => tf.data.array([1, 2]).batch(-2).toArray(),
  shuffle_negative: () => tf.data.array([1, 2]).shuffle(-1),
  zip_number: () => tf.data.zip(3),
  zip_leaf_number: () => tf.data.zip({a: tf.data.array([1]), b: 2}).toArray(),
  to_array_infinite: () => tf.data.array([1]).repeat().toArray(),
  csv_wrong_count: () => csvDataset('a,b\n1,2\n3\n', {}).toArray(),
  csv_wrong_count_many: () => csvDataset('a;b\n1;2;3\n', {delimiter: ';'}).toArray(),
  csv_required_empty: () => csvDataset('a,b\n1,\n', {columnConfigs: {b: {required: true}}}).toArray(),
  csv_label_empty: () => csvDataset('a,b\n,2\n', {columnConfigs: {a: {isLabel: true}}}).toArray(),
  csv_bad_config_key: () => csvDataset('a,b\n1,2\n', {columnConfigs: {c: {isLabel: true}}}).toArray(),
  csv_names_mismatch: () => csvDataset('a,b\n1,2\n', {columnNames: ['a', 'b', 'c']}).toArray(),
  csv_duplicate_names: () => csvDataset('1,2\n', {hasHeader: false, columnNames: ['a', 'a']}).toArray(),
  csv_no_names: () => csvDataset('1,2\n', {hasHeader: false}).toArray(),
  csv_delim_and_whitespace: () => csvDataset('a b\n1 2\n', {delimWhitespace: true, delimiter: ';'}).toArray(),
  batch_mismatched_tensors: () => tf.data.array([tf.tensor1d([1, 2]), tf.tensor1d([3])]).batch(2).toArray(),
};

process.on('unhandledRejection', () => {}); // a prefetch stage's read-ahead may fail unawaited

async function main() {
  await tf.setBackend('cpu');
  const rng = makeRng(SEED);
  const cases = [];
  let redrawn = 0;
  for (let c = 0; c < N_CASES; c++) {
    const source = genSource(rng);
    const spec = {id: c, source, ops: await genOps(rng, source)};
    spec.mode = rng.pick(['toArray', 'toArray', 'twice', 'iter', 'forEach']);
    if (spec.mode === 'iter') spec.steps = rng.int(1, 12);
    const result = await runCase(spec);
    // A prefetch stage's read-ahead goes on after the case: let it settle before the reset.
    for (let k = 0; k < 5; k++) await new Promise((r) => setTimeout(r, 0));
    tf.engine().reset();
    await tf.setBackend('cpu');
    if (LIST_BATCH_ERROR.test(result.error || '')) {
      redrawn++;
      c--;
      continue;
    }
    cases.push({...spec, expected: result});
  }
  console.log(`${redrawn} pipelines redrawn (TF.js cannot batch lists holding tensors or objects)`);
  const errors = {};
  for (const [name, run] of Object.entries(ERRORS)) {
    try {
      await run();
      errors[name] = null;
    } catch (e) {
      errors[name] = e.message;
    }
  }
  const out = {tfjs_version: tf.version.tfjs, seed: SEED, cases, errors};
  fs.writeFileSync(OUT, JSON.stringify(out) + '\n');
  fs.rmSync(TMP, {recursive: true, force: true});
  console.log(`wrote ${OUT}: ${cases.length} cases, ${Object.keys(errors).length} errors, ${fs.statSync(OUT).size} bytes`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
