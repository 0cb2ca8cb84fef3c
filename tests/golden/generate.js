// Runs every case in specs/*.json on real TF.js (4.22.0, cpu backend) and writes
// results/<same name>.json. Run: cd tests/golden && npm ci && node generate.js [spec ...]
// The spec format is described in tests/golden_util.py.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

function decodeValues(values, dtype) {
  if (dtype === 'string') return values;
  const fix = (v) => (Array.isArray(v) ? v.map(fix)
    : v === 'NaN' ? NaN : v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v);
  return fix(values);
}

function decodeArg(arg) {
  if (arg === null || typeof arg !== 'object' || Array.isArray(arg)) return arg;
  if ('tensor' in arg) {
    return tf.tensor(decodeValues(arg.tensor, arg.dtype), arg.shape, arg.dtype);
  }
  if ('complex' in arg) {
    const [re, im] = arg.complex;
    return tf.complex(tf.tensor(re, arg.shape), tf.tensor(im, arg.shape));
  }
  if ('variable' in arg) {
    return tf.variable(tf.tensor(decodeValues(arg.variable, arg.dtype), arg.shape, arg.dtype));
  }
  if ('list' in arg) return arg.list.map(decodeArg);
  if ('object' in arg) {
    const out = {};
    for (const [k, v] of Object.entries(arg.object)) out[k] = decodeArg(v);
    return out;
  }
  if ('value' in arg) return decodeValues(arg.value, 'float32');
  if ('undefined' in arg) return undefined;
  throw new Error('bad arg ' + JSON.stringify(arg));
}

function encodeNumber(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return v;
}

function encodeResult(r) {
  if (r instanceof tf.Tensor) {
    const data = r.dataSync();
    const values = r.dtype === 'string' ? Array.from(data) : Array.from(data, encodeNumber);
    return {dtype: r.dtype, shape: r.shape, values};
  }
  if (Array.isArray(r)) return {list: r.map(encodeResult)};
  if (r instanceof tf.TensorBuffer) return encodeResult(r.toTensor());
  if (r !== null && typeof r === 'object' && !ArrayBuffer.isView(r)) {
    const out = {};
    for (const [k, v] of Object.entries(r)) out[k] = encodeResult(v);
    return {object: out};
  }
  if (ArrayBuffer.isView(r)) return {value: Array.from(r, encodeNumber)};
  return {value: typeof r === 'number' ? encodeNumber(r) : (r === undefined ? null : r)};
}

function resolve(name) {
  let fn = tf;
  let owner = tf;
  for (const part of name.split('.')) {
    owner = fn;
    fn = fn[part];
    if (fn === undefined) throw new Error('no such op tf.' + name);
  }
  return fn.bind(owner);
}

async function runCase(c) {
  tf.engine().startScope();
  const before = tf.memory();
  let args;
  try {
    args = (c.args || []).map(decodeArg);
    if (c.dy !== undefined) c.dyTensor = decodeArg(c.dy);
  } catch (e) {
    tf.engine().endScope();
    return {error: 'bad args: ' + e.message};
  }
  const mid = tf.memory();
  let result;
  try {
    if (c.grad) {
      // Gradients of the op with respect to the args at positions c.grad (TF.js's tf.grads).
      const fn = resolve(c.op);
      // A position [i, key] names a tensor inside an object argument (tf.fused's config).
      const at = (pos) => (Array.isArray(pos) ? args[pos[0]][pos[1]] : args[pos]);
      const f = (...xs) => {
        const full = args.map((a) => (a !== null && typeof a === 'object' && !(a instanceof tf.Tensor)
          && !Array.isArray(a) ? {...a} : a));
        c.grad.forEach((pos, i) => {
          if (Array.isArray(pos)) full[pos[0]][pos[1]] = xs[i]; else full[pos] = xs[i];
        });
        return fn(...full);
      };
      result = tf.grads(f)(c.grad.map(at), c.dyTensor);
    } else if (c.method) {
      const [self, ...rest] = args;
      result = self[c.op](...rest);
    } else {
      result = resolve(c.op)(...args);
    }
    // then: [method, args]: call a method on the op's result (tf.initializers.x(cfg).apply(shape)).
    if (c.then) result = result[c.then[0]](...c.then[1].map(decodeArg));
    if (result instanceof Promise) result = await result;
  } catch (e) {
    const after = tf.memory();
    tf.engine().endScope();
    tf.disposeVariables();
    return {error: e.message, new_tensors: after.numTensors - mid.numTensors};
  }
  const after = tf.memory();
  const out = encodeResult(result);
  out.new_tensors = after.numTensors - mid.numTensors;
  out.new_buffers = after.numDataBuffers - mid.numDataBuffers;
  out.new_bytes = after.numBytes - mid.numBytes;
  tf.engine().endScope();
  tf.disposeVariables();
  void before;
  return out;
}

async function main() {
  await tf.setBackend('cpu');
  const specDir = path.join(__dirname, 'specs');
  const outDir = path.join(__dirname, 'results');
  const wanted = process.argv.slice(2);
  const files = fs.readdirSync(specDir).filter((f) => f.endsWith('.json'))
    .filter((f) => wanted.length === 0 || wanted.includes(f) || wanted.includes(f.replace('.json', '')));
  for (const file of files) {
    const cases = JSON.parse(fs.readFileSync(path.join(specDir, file), 'utf8'));
    const results = {};
    for (const c of cases) {
      if (c.name in results) throw new Error(`duplicate case name ${c.name} in ${file}`);
      if (process.env.GEN_TRACE) console.error(c.name);
      results[c.name] = await runCase(c);
    }
    const lines = Object.entries(results).map(([k, v]) => ` ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
    fs.writeFileSync(path.join(outDir, file), '{\n' + lines.join(',\n') + '\n}\n');
    console.log(`${file}: ${cases.length} cases`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
