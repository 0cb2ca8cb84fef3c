// Differential memory-accounting programs: random sequences of tensor, scope, variable,
// gradient, optimizer and layers steps, run on TF.js 4.22.0 (cpu backend).
//
//   node memory_programs.js generate [count] [seed]
//       draws `count` programs (default 110) with a seeded PRNG, writes
//       programs/memory_programs.json, then replays them (as below).
//   node memory_programs.js
//       replays programs/memory_programs.json and writes results/memory_programs.json.
//
// tests/test_memory_programs.py replays the same programs on tidytensor and compares every
// record exactly.
//
// The generator runs each program live while drawing it (a tidy's body, and a gradient
// function's body, are drawn inside the callback), so it knows which handles are alive,
// their shapes and dtypes. Replay does not depend on the generator.
//
// Program format: {name, deterministic, steps: [step, ...]}. Handles are integers; every
// step that makes tensors names the handles it binds (`out`). Steps (snake_case fields):
//   tensor {out, values, shape, dtype}             tf.tensor(values, shape, dtype)
//   unary {fn, x, out, method}                     x.fn() or tf.fn(x)
//   binary {fn, a, b | lit, out, method}           a.fn(b) or tf.fn(a, b); lit: a JS number
//   view {fn, x, arg, out, method}                 clone/reshape/cast/expandDims/squeeze/flatten
//   slice {x, out}                                 x.slice(0, 1) (a new buffer on cpu)
//   concat {xs, out} / stack {xs, out} / unstack {x, outs}
//   dispose {x}                                    x.dispose()
//   tf_dispose {arg: C}                            tf.dispose(container)
//   keep {x}                                       tf.keep(x)
//   tidy {name, body, ret: C, throw}               tf.tidy([name,] () => {body; return C})
//   start_scope {name} / end_scope {ret: C}        tf.engine().startScope / endScope
//   variable {x, out, trainable, name, dtype, method}
//   assign {v, x}
//   dispose_variables {}
//   data_sync {x} / array_sync {x}                 the value is recorded (rounded)
//   buffer {shape, dtype, out} / buffer_sync {x, out} / buffer_set {b, value, loc}
//   to_tensor {b, out}
//   custom {variant, x, out}                       one of two tf.customGrad ops (below)
//   grad {f, x, dy, out} / grads {f, xs, outs}
//   value_and_grad {f, x, out_value, out_grad} / value_and_grads {f, xs, out_value, out_grads}
//   variable_grads {f, var_list, out_value, out_grads: {varName: handle}}
//   optimizer {kind, args, out}  minimize {opt, f, return_cost, var_list, out}
//   opt_dispose {opt}
//   model {out, units, activation, input_dim, optimizer: null | "sgd" | "adam" | {o: handle}}
//   predict {m, x, out}  fit {m, x, y, epochs, batch_size}  model_dispose {m}
// A function F is {params: [handle...], body: [step...], ret: handle}.
// A container C is null | {t: h} | {l: [C...]} | {d: {key: C}} | {n: number} | {s: string}.
//
// Records (one per executed step, nested ones included, in execution order):
//   {p: path, n: [numTensors, numDataBuffers, numBytes], d: [disposed handles],
//    e?: error message, v?: value}
// `p` is the step's path: "3" (top level), "3.1" (second step of step 3's body), "3.f0"
// (first step of the function of step 3).
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

// MEMORY_PROGRAMS=<name> writes and reads programs/<name>.json and results/<name>.json
// instead (for exploring more seeds without touching the committed files).
const FILE = `${process.env.MEMORY_PROGRAMS || 'memory_programs'}.json`;
const SPECS = path.join(__dirname, 'programs', FILE);
const RESULTS = path.join(__dirname, 'results', FILE);

// ------------------------------------------------------------------ shared definitions

const customSquare = tf.customGrad((x, save) => {
  save([x]);
  return {value: x.square(), gradFunc: (dy, saved) => [dy.mul(saved[0]).mul(2)]};
});
// No tidy around the value: its temporary x*3 is the customGrad op's to free.
const customAffine = tf.customGrad((x) => ({value: x.mul(3).add(1), gradFunc: (dy) => [dy.mul(3)]}));
const CUSTOM = [customSquare, customAffine];

function round(v) {
  if (Array.isArray(v)) return v.map(round);
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (!Number.isFinite(v)) return String(v);
  return Math.round(v * 1e4) / 1e4;
}

function build(ctx, c) {
  if (c == null) return null;
  if ('t' in c) return ctx.H[c.t];
  if ('l' in c) return c.l.map((x) => build(ctx, x));
  if ('d' in c) {
    const o = {};
    for (const k of Object.keys(c.d)) o[k] = build(ctx, c.d[k]);
    return o;
  }
  if ('n' in c) return c.n;
  return c.s;
}

// Layer and model names carry process-wide counters ('sequential_21', 'dense_Dense3'):
// drop them.
function errorText(e) {
  return String(e && e.message !== undefined ? e.message : e).replace(/\b(sequential|dense)_\w*?\d+\b/g, '$1_N');
}

// A variable freed by tf.disposeVariables() counts as disposed. TF.js leaves its isDisposed
// false (disposeVariables skips Variable.dispose's flag), so a later v.dispose() frees its
// buffer a second time, the bug of catalog §1.4; tidytensor sets the flag. The generator
// treats such variables as disposed too (never uses them again).
function isDisposed(ctx, h) {
  return ctx.H[h].isDisposed || ctx.gone.has(ctx.H[h]);
}

function record(ctx, p, extra) {
  const m = tf.memory();
  const d = [];
  for (const h of Object.keys(ctx.H)) if (isDisposed(ctx, h)) d.push(Number(h));
  ctx.trace.push(Object.assign({p, n: [m.numTensors, m.numDataBuffers, m.numBytes], d}, extra));
}

// Runs a body: from the spec (replay), or drawn live by `gen` (generation).
function runBody(ctx, body, p, gen, level) {
  if (gen) {
    const n = level.count;
    for (let i = 0; i < n || level.openScopes > 0; i++) {
      const s = i < n ? gen.step(level) : gen.endScope(level);
      if (s == null) continue;
      body.push(s);
      execSync(ctx, s, `${p}${body.length - 1}`, gen, level);
    }
  } else {
    body.forEach((s, i) => execSync(ctx, s, `${p}${i}`, null, null));
  }
}

function fnOf(ctx, F, p, gen, level, kind) {
  return (...args) => {
    F.params.forEach((h, i) => {
      ctx.H[h] = args[i];
    });
    const sub = gen ? gen.fLevel(level, F, kind) : null;
    runBody(ctx, F.body, `${p}.f`, gen, sub);
    if (gen) F.ret = gen.fRet(sub, F, `${p}.f`);
    return ctx.H[F.ret];
  };
}

const OPS = {
  tensor(ctx, s) {
    ctx.H[s.out] = tf.tensor(s.values, s.shape, s.dtype);
  },
  unary(ctx, s) {
    const x = ctx.H[s.x];
    ctx.H[s.out] = s.method ? x[s.fn]() : tf[s.fn](x);
  },
  binary(ctx, s) {
    const a = ctx.H[s.a];
    const b = s.b == null ? s.lit : ctx.H[s.b];
    ctx.H[s.out] = s.method ? a[s.fn](b) : tf[s.fn](a, b);
  },
  view(ctx, s) {
    const x = ctx.H[s.x];
    const args = s.fn === 'clone' || s.fn === 'flatten' ? [] : [s.arg];
    ctx.H[s.out] = s.method ? x[s.fn](...args) : tf[s.fn](x, ...args);
  },
  slice(ctx, s) {
    ctx.H[s.out] = ctx.H[s.x].slice(0, 1);
  },
  concat(ctx, s) {
    ctx.H[s.out] = tf.concat(s.xs.map((h) => ctx.H[h]));
  },
  stack(ctx, s) {
    ctx.H[s.out] = tf.stack(s.xs.map((h) => ctx.H[h]));
  },
  unstack(ctx, s) {
    tf.unstack(ctx.H[s.x]).forEach((t, i) => {
      ctx.H[s.outs[i]] = t;
    });
  },
  dispose(ctx, s) {
    ctx.H[s.x].dispose();
  },
  tf_dispose(ctx, s) {
    tf.dispose(build(ctx, s.arg));
  },
  keep(ctx, s) {
    tf.keep(ctx.H[s.x]);
  },
  tidy(ctx, s, p, gen, level) {
    const fn = () => {
      const sub = gen ? gen.tidyLevel(level) : null;
      runBody(ctx, s.body, `${p}.`, gen, sub);
      if (gen) gen.tidyRet(s, level, sub);
      if (s.throw) throw new Error('boom');
      return build(ctx, s.ret);
    };
    if (s.name == null) tf.tidy(fn);
    else tf.tidy(s.name, fn);
  },
  start_scope(ctx, s) {
    tf.engine().startScope(s.name == null ? undefined : s.name);
  },
  end_scope(ctx, s) {
    tf.engine().endScope(build(ctx, s.ret));
  },
  variable(ctx, s) {
    const x = ctx.H[s.x];
    const name = s.name == null ? undefined : s.name;
    const dtype = s.dtype == null ? undefined : s.dtype;
    ctx.H[s.out] = s.method ? x.variable(s.trainable, name, dtype) : tf.variable(x, s.trainable, name, dtype);
  },
  assign(ctx, s) {
    ctx.H[s.v].assign(ctx.H[s.x]);
  },
  dispose_variables(ctx) {
    const registered = new Set(Object.values(tf.engine().state.registeredVariables));
    for (const t of Object.values(ctx.H)) if (registered.has(t)) ctx.gone.add(t);
    tf.disposeVariables();
  },
  data_sync(ctx, s) {
    return round(Array.from(ctx.H[s.x].dataSync()));
  },
  array_sync(ctx, s) {
    return round(ctx.H[s.x].arraySync());
  },
  buffer(ctx, s) {
    ctx.B[s.out] = tf.buffer(s.shape, s.dtype);
  },
  buffer_sync(ctx, s) {
    ctx.B[s.out] = ctx.H[s.x].bufferSync();
  },
  buffer_set(ctx, s) {
    ctx.B[s.b].set(s.value, ...s.loc);
  },
  to_tensor(ctx, s) {
    ctx.H[s.out] = ctx.B[s.b].toTensor();
  },
  custom(ctx, s) {
    ctx.H[s.out] = CUSTOM[s.variant](ctx.H[s.x]);
  },
  grad(ctx, s, p, gen, level) {
    const f = fnOf(ctx, s.f, p, gen, level, 'grad');
    const dy = s.dy == null ? undefined : ctx.H[s.dy];
    ctx.H[s.out] = tf.grad(f)(ctx.H[s.x], dy);
  },
  grads(ctx, s, p, gen, level) {
    const f = fnOf(ctx, s.f, p, gen, level, 'grad');
    tf.grads(f)(s.xs.map((h) => ctx.H[h])).forEach((t, i) => {
      ctx.H[s.outs[i]] = t;
    });
  },
  value_and_grad(ctx, s, p, gen, level) {
    const f = fnOf(ctx, s.f, p, gen, level, 'grad');
    const r = tf.valueAndGrad(f)(ctx.H[s.x]);
    ctx.H[s.out_value] = r.value;
    ctx.H[s.out_grad] = r.grad;
  },
  value_and_grads(ctx, s, p, gen, level) {
    const f = fnOf(ctx, s.f, p, gen, level, 'grad');
    const r = tf.valueAndGrads(f)(s.xs.map((h) => ctx.H[h]));
    ctx.H[s.out_value] = r.value;
    r.grads.forEach((t, i) => {
      ctx.H[s.out_grads[i]] = t;
    });
  },
  variable_grads(ctx, s, p, gen, level) {
    const f = fnOf(ctx, s.f, p, gen, level, 'scalar');
    const varList = s.var_list == null ? undefined : s.var_list.map((h) => ctx.H[h]);
    const r = tf.variableGrads(f, varList);
    ctx.H[s.out_value] = r.value;
    // Non-trainable variables listed in var_list get null entries.
    const names = Object.keys(r.grads).filter((k) => r.grads[k] != null).sort();
    if (gen) for (const k of names) s.out_grads[k] = gen.newHandle();
    for (const k of names) ctx.H[s.out_grads[k]] = r.grads[k];
    // Automatic names ("2372") come from process-wide counters: compared as '<auto>'.
    return Object.keys(r.grads).map((k) => (/^\d+$/.test(k) ? '<auto>' : k)).sort();
  },
  optimizer(ctx, s) {
    ctx.O[s.out] = tf.train[s.kind](...s.args);
  },
  minimize(ctx, s, p, gen, level) {
    const f = fnOf(ctx, s.f, p, gen, level, 'scalar');
    const varList = s.var_list == null ? undefined : s.var_list.map((h) => ctx.H[h]);
    const r = ctx.O[s.opt].minimize(f, s.return_cost, varList);
    if (s.out != null) ctx.H[s.out] = r;
    return r === null ? 'null' : 'tensor';
  },
  opt_dispose(ctx, s) {
    ctx.O[s.opt].dispose();
  },
  model(ctx, s) {
    const m = tf.sequential();
    s.units.forEach((u, i) => {
      const cfg = {units: u, activation: s.activation};
      if (i === 0) cfg.inputShape = [s.input_dim];
      m.add(tf.layers.dense(cfg));
      if (i === 0 && s.extra === 'dropout') m.add(tf.layers.dropout({rate: 0.5}));
      if (i === 0 && s.extra === 'batchNormalization') m.add(tf.layers.batchNormalization());
    });
    if (s.optimizer != null) {
      const optimizer = typeof s.optimizer === 'string' ? s.optimizer : ctx.O[s.optimizer.o];
      m.compile({optimizer, loss: 'meanSquaredError'});
    }
    ctx.M[s.out] = m;
  },
  predict(ctx, s) {
    ctx.H[s.out] = ctx.M[s.m].predict(ctx.H[s.x], s.batch_size == null ? undefined : {batchSize: s.batch_size});
  },
  model_dispose(ctx, s) {
    const r = ctx.M[s.m].dispose();
    return [r.refCountAfterDispose, r.numDisposedVariables];
  },
  evaluate(ctx, s) {
    ctx.H[s.out] = ctx.M[s.m].evaluate(ctx.H[s.x], ctx.H[s.y], {batchSize: s.batch_size});
  },
  layer(ctx, s) {
    ctx.L[s.out] = tf.layers.dense({units: s.units, activation: s.activation});
  },
  apply(ctx, s) {
    ctx.H[s.out] = ctx.L[s.l].apply(ctx.H[s.x]);
  },
  layer_dispose(ctx, s) {
    const r = ctx.L[s.l].dispose();
    return [r.refCountAfterDispose, r.numDisposedVariables];
  },
};

// Steps that TF.js runs asynchronously (top level only).
const ASYNC_OPS = {
  async fit(ctx, s) {
    const args = {epochs: s.epochs, batchSize: s.batch_size, verbose: 0};
    if (s.validation_split) args.validationSplit = s.validation_split;
    await ctx.M[s.m].fit(ctx.H[s.x], ctx.H[s.y], args);
  },
  async get_weights(ctx, s) {
    // Only the new 'iter' scalar gets a handle: the others are the optimizer's own state
    // variables, which the program must not dispose under it.
    const ws = await ctx.O[s.opt].getWeights();
    if (s.outs.length === 0) s.outs.push(ctx.gen.newHandle());
    ctx.H[s.outs[0]] = ws[0].tensor;
    return ws.map((w) => w.name);
  },
};

function execSync(ctx, s, p, gen, level) {
  const extra = {};
  try {
    const v = OPS[s.op](ctx, s, p, gen, level);
    if (v !== undefined) extra.v = v;
  } catch (e) {
    extra.e = errorText(e);
  }
  record(ctx, p, extra);
}

async function execAsync(ctx, s, p) {
  const extra = {};
  try {
    const v = await ASYNC_OPS[s.op](ctx, s);
    if (v !== undefined) extra.v = v;
  } catch (e) {
    extra.e = errorText(e);
  }
  record(ctx, p, extra);
}

async function runProgram(prog, gen) {
  tf.engine().reset();
  await tf.setBackend('cpu');
  tf.engine().startScope('test'); // as tests/conftest.py does for every test
  const ctx = {H: {}, B: {}, O: {}, M: {}, L: {}, trace: [], gone: new Set(), gen};
  if (gen) gen.begin(ctx);
  const level = gen ? gen.topLevel() : null;
  const steps = prog.steps;
  const n = gen ? level.count : steps.length;
  for (let i = 0; i < n || (gen && level.openScopes > 0); i++) {
    let s;
    if (gen) {
      s = i < n ? gen.step(level) : gen.endScope(level);
      if (s == null) continue;
      steps.push(s);
    } else {
      s = steps[i];
    }
    const p = gen ? `${steps.length - 1}` : `${i}`;
    if (s.op in ASYNC_OPS) await execAsync(ctx, s, p);
    else execSync(ctx, s, p, gen, level);
  }
  return ctx.trace;
}

// ------------------------------------------------------------------ the generator

const { mulberry32 } = require('./prng');

const SHAPES = [[], [3], [2, 3], [1, 3], [2, 1]];
const UNARY = ['square', 'neg', 'exp', 'relu', 'abs', 'sum', 'mean', 'sigmoid', 'tanh'];
const BINARY = ['add', 'sub', 'mul', 'div', 'maximum', 'squaredDifference'];
const OPTIMIZERS = [
  ['sgd', [0.1]],
  ['momentum', [0.1, 0.9]],
  ['momentum', [0.05, 0.5, true]],
  ['adam', [0.1]],
  ['adam', [0.05, 0.8, 0.9]],
  ['rmsprop', [0.05]],
  ['rmsprop', [0.05, 0.9, 0.5, null, true]],
  ['adagrad', [0.1]],
  ['adadelta', [0.5]],
  ['adamax', [0.1]],
];

const numeric = (t) => t.dtype === 'float32' || t.dtype === 'int32';
// String tensors are made, read, kept, returned, put in containers and disposed, but no
// kernel or variable makes another handle on them: TF.js counts a string tensor's bytes
// only when tf.tensor writes them (a view or kernel output adds 0) and subtracts its
// buffer's bytes whenever any handle on it is disposed (numBytes can go negative);
// tidytensor counts them per handle like other dtypes (tests/test_memory.py
// test_string_views_count_bytes_per_handle), a deliberate difference.
const notString = (t) => t.dtype !== 'string';
const STRINGS = ['a', 'bb', '', 'ccc', 'é', '日本'];

function size(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

function broadcastable(a, b) {
  const n = Math.max(a.length, b.length);
  for (let i = 1; i <= n; i++) {
    const x = a.length - i >= 0 ? a[a.length - i] : 1;
    const y = b.length - i >= 0 ? b[b.length - i] : 1;
    if (x !== y && x !== 1 && y !== 1) return false;
  }
  return true;
}

class Gen {
  constructor(seed) {
    this.rng = mulberry32(seed);
    this.deterministic = true;
  }
  r() {
    return this.rng();
  }
  chance(p) {
    return this.r() < p;
  }
  int(lo, hi) {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }
  pick(a) {
    return a[Math.floor(this.r() * a.length)];
  }
  begin(ctx) {
    this.ctx = ctx;
    this.next = 0;
    this.dep = {}; // in a function body: handle -> Set of roots (params, xs, variables) it reaches
    this.varCount = 0;
    this.optState = {}; // optimizer handle -> {disposed, vars, model}
    this.modelState = {}; // model handle -> {disposed, compiled}
    this.layerState = {}; // layer handle -> {disposed, gone, inDim}
    this.bufState = {}; // buffer handle -> 'fresh' (from tf.buffer, never turned into a tensor) | 'used'
  }
  newHandle() {
    return this.next++;
  }
  topLevel() {
    return {depth: 0, top: true, inF: false, count: this.int(5, 30), openScopes: 0, created: []};
  }
  tidyLevel(level) {
    return {
      depth: level.depth + 1,
      top: false,
      inF: level.inF,
      roots: level.roots,
      count: this.int(1, 6),
      openScopes: 0,
      created: [],
    };
  }
  fLevel(level, F, kind) {
    // Connections count only through steps run inside f (what the tape sees): a fresh map
    // (an enclosing function's map comes back when this one has returned, see fRet).
    const outerDep = this.dep;
    this.dep = {};
    const roots = new Set();
    // groups: each must reach the result (grads: every x; variables: any one of them).
    F.groups = F.params.length ? F.params.map((h, i) => [h, F.roots[i]]) : [F.roots];
    for (const g of F.groups) {
      for (const r of g) {
        roots.add(r);
        this.dep[r] = new Set([r]);
      }
    }
    delete F.roots;
    return {depth: level.depth + 1, top: false, inF: true, nested: level.inF, kind, roots, count: this.int(1, 5),
      openScopes: 0, created: [...F.params], outerDep};
  }

  // ---- handle queries
  t(h) {
    return this.ctx.H[h];
  }
  handles(pred) {
    return Object.keys(this.ctx.H).map(Number).filter((h) => pred(this.ctx.H[h], h));
  }
  live(pred = () => true) {
    return this.handles((t, h) => !isDisposed(this.ctx, h) && pred(t, h));
  }
  dead(pred = () => true) {
    return this.handles((t, h) => isDisposed(this.ctx, h) && pred(t, h));
  }
  isVar(h) {
    return this.ctx.H[h] instanceof tf.Variable;
  }
  depOf(...hs) {
    const s = new Set();
    for (const h of hs) if (h != null && this.dep[h]) for (const r of this.dep[h]) s.add(r);
    return s;
  }
  connected(level, h) {
    if (!level.roots) return false;
    for (const r of this.depOf(h)) if (level.roots.has(r)) return true;
    return false;
  }
  // An input for an op: in a function body, usually one on the path to the roots.
  input(level, pred = () => true) {
    const ok = this.live((t) => pred(t) && (!level.inF || t.dtype === 'float32'));
    if (ok.length === 0) return null;
    if (level.inF && this.chance(0.75)) {
      const c = ok.filter((h) => this.connected(level, h));
      if (c.length) return this.pick(c);
    }
    if (this.chance(0.5) && level.created.length) {
      const c = ok.filter((h) => level.created.includes(h));
      if (c.length) return this.pick(c);
    }
    return this.pick(ok);
  }
  out(level, ...inputs) {
    const h = this.newHandle();
    this.dep[h] = this.depOf(...inputs);
    level.created.push(h);
    return h;
  }

  // ---- steps
  step(level) {
    const kinds = level.inF ? this.fKinds(level) : this.kinds(level);
    for (let tries = 0; tries < 20; tries++) {
      let total = 0;
      for (const [, w] of kinds) total += w;
      let x = this.r() * total;
      let kind = kinds[0][0];
      for (const [k, w] of kinds) {
        x -= w;
        if (x < 0) {
          kind = k;
          break;
        }
      }
      const s = this['g_' + kind](level);
      if (s != null) return s;
    }
    return this.g_tensor(level);
  }
  kinds(level) {
    const hasModel = this.models((st) => !st.disposed).length > 0;
    const k = [
      ['tensor', 3], ['unary', 3], ['binary', 3], ['view', 3.5], ['slice', 0.5], ['concat', 0.5],
      ['unstack', 0.5], ['dispose', 2.5], ['dispose_again', 1], ['tf_dispose', 1.2], ['keep', 1.5],
      ['tidy', level.depth < 3 ? 2.5 : 0], ['start_scope', level.depth < 3 ? 0.7 : 0], ['end_scope', 0.7],
      ['variable', 1.5], ['assign', 1], ['dispose_variable', 0.7], ['data_sync', 1.5],
      ['use_disposed', 0.8], ['buffer', 0.8], ['custom', 0.8], ['grad', 2], ['variable_grads', 1],
      ['optimizer', 0.4], ['minimize', 2.5], ['opt_dispose', 0.3], ['dispose_variables', 0.1],
      ['model', level.top ? 0.4 : 0.1], ['predict', hasModel ? 2 : 0], ['fit', level.top && hasModel ? 3 : 0],
      ['model_dispose', 0.3], ['evaluate', hasModel ? 1 : 0], ['layer', 0.4], ['apply', 1], ['layer_dispose', 0.3],
      ['get_weights', level.top ? 0.5 : 0],
    ];
    return k.filter(([, w]) => w > 0);
  }
  fKinds(level) {
    return [
      ['tensor', 1], ['unary', 3], ['binary', 3], ['view', 2], ['keep', 0.5], ['data_sync', 0.5],
      ['custom', 1.2], ['tidy', level.depth < 4 ? 1.2 : 0], ['grad', level.nested ? 0 : 0.4],
    ].filter(([, w]) => w > 0);
  }

  values(shape, dtype) {
    const n = size(shape);
    const out = [];
    for (let i = 0; i < n; i++) {
      if (dtype === 'int32') out.push(this.int(-3, 3));
      else if (dtype === 'string') out.push(this.pick(STRINGS));
      else if (dtype === 'bool') out.push(this.chance(0.5));
      else out.push(Math.round((this.r() * 3 - 1.5) * 10) / 10 + 0); // + 0: no -0 (JSON drops its sign)
    }
    return out;
  }
  g_tensor(level) {
    const shape = this.pick(SHAPES);
    let dtype = 'float32';
    if (!level.inF) {
      const r = this.r();
      dtype = r < 0.13 ? 'int32' : r < 0.19 ? 'string' : r < 0.24 ? 'bool' : 'float32';
    }
    return {op: 'tensor', out: this.out(level), values: this.values(shape, dtype), shape, dtype};
  }
  // Outside gradient functions some steps take what may fail (a bool input, shapes that do
  // not broadcast, mixed dtypes): the op's scope must free what it made before it threw.
  // (Inside one, a failing step would fail the gradient call: see fRet.)
  loose(level) {
    return !level.inF && this.chance(0.08);
  }
  g_unary(level) {
    const x = this.input(level, this.loose(level) ? notString : numeric);
    if (x == null) return null;
    return {op: 'unary', fn: this.pick(UNARY), x, out: this.out(level, x), method: this.chance(0.5)};
  }
  g_binary(level) {
    const loose = this.loose(level);
    const a = this.input(level, loose ? notString : numeric);
    if (a == null) return null;
    // No maximum inside a gradient of a gradient: its gradient uses Less, which has no
    // gradient in TF.js, so the outer call fails in its backward pass, where TF.js leaks
    // the tape and tidytensor frees it (see fRet).
    const fn = this.pick(level.nested ? BINARY.filter((b) => b !== 'maximum') : BINARY);
    const method = this.chance(0.5);
    if (this.chance(0.25)) {
      return {op: 'binary', fn, a, lit: this.pick([2, 0.5, -1, 3]), out: this.out(level, a), method};
    }
    const sa = this.t(a).shape;
    // In a gradient function, maximum and squaredDifference broadcast no input: TF.js's
    // gradients of these two do not sum over broadcast axes (they throw "Error in gradient
    // for op Maximum ... does not match the shape of the input"); tidytensor's do
    // (tests/test_broadcast_gradients.py), a deliberate fix that is no memory question.
    const exact = level.inF && (fn === 'maximum' || fn === 'squaredDifference');
    const fits = (t) => (exact ? t.shape.length === sa.length && t.shape.every((d, i) => d === sa[i]) : broadcastable(sa, t.shape));
    const b = this.input(level, loose ? notString : (t) => numeric(t) && fits(t));
    if (b == null) return null;
    return {op: 'binary', fn, a, b, out: this.out(level, a, b), method};
  }
  g_view(level) {
    const x = this.input(level, notString);
    if (x == null) return null;
    const t = this.t(x);
    const shape = t.shape;
    const fns = ['clone', 'reshape', 'expandDims', 'flatten'];
    if (t.dtype !== 'string') fns.push('cast');
    if (shape.includes(1)) fns.push('squeeze');
    const fn = this.pick(fns);
    let method = this.chance(0.6);
    let arg;
    if (fn === 'reshape') {
      const n = size(shape);
      const options = [[n], [-1], [1, n], [n, 1]];
      if (n === 6) options.push([3, 2], [2, 3]);
      arg = this.pick(options);
    } else if (fn === 'cast') {
      arg = level.inF ? 'float32' : this.pick(['float32', 'int32']);
    } else if (fn === 'expandDims') {
      arg = this.int(0, shape.length);
    } else if (fn === 'squeeze') {
      const ones = shape.map((d, i) => (d === 1 ? i : -1)).filter((i) => i >= 0);
      arg = this.chance(0.5) ? [this.pick(ones)] : null;
    } else if (fn === 'flatten') {
      method = true; // TF.js has no tf.flatten
    }
    const s = {op: 'view', fn, x, out: this.out(level, x), method};
    if (arg !== undefined) s.arg = arg;
    return s;
  }
  g_slice(level) {
    const x = this.input(level, (t) => notString(t) && t.rank >= 1);
    if (x == null) return null;
    return {op: 'slice', x, out: this.out(level, x)};
  }
  g_concat(level) {
    const a = this.input(level, (t) => notString(t) && t.rank >= 1);
    if (a == null) return null;
    const ta = this.t(a);
    const loose = this.loose(level);
    const same = this.live((t) => notString(t) && (loose || (t.dtype === ta.dtype && t.rank === ta.rank &&
      t.shape.slice(1).every((d, i) => d === ta.shape[i + 1]))));
    const xs = [a, this.pick(same)];
    if (this.chance(0.5)) {
      const same2 = same.filter((h) => loose || this.t(h).shape[0] === ta.shape[0]);
      return {op: 'stack', xs: [a, this.pick(same2)], out: this.out(level, ...xs)};
    }
    return {op: 'concat', xs, out: this.out(level, ...xs)};
  }
  g_unstack(level) {
    const x = this.input(level, (t) => notString(t) && t.rank >= 1);
    if (x == null) return null;
    const outs = [];
    for (let i = 0; i < this.t(x).shape[0]; i++) outs.push(this.out(level, x));
    return {op: 'unstack', x, outs};
  }
  g_dispose(level) {
    // Disposing a variable is g_dispose_variable; a live variable here too, rarely.
    const c = this.live((t, h) => !this.isVar(h) || this.chance(0.1));
    if (c.length === 0) return null;
    return {op: 'dispose', x: this.pick(c)};
  }
  g_dispose_again() {
    // A second Variable.dispose() is left out: TF.js decrements the shared buffer's count
    // again (catalog §1.4, "Bug"); tidytensor makes it a no-op (API.md §2, documented).
    const c = this.dead((t, h) => !this.isVar(h));
    if (c.length === 0) return null;
    return {op: 'dispose', x: this.pick(c)};
  }
  container(level, depth, pickTensor) {
    const r = this.r();
    if (depth > 2 || r < 0.45) {
      const h = pickTensor();
      return h == null ? {n: 1} : {t: h};
    }
    if (r < 0.7) {
      const l = [];
      for (let i = this.int(0, 3); i > 0; i--) l.push(this.container(level, depth + 1, pickTensor));
      return {l};
    }
    if (r < 0.93) {
      const d = {};
      for (let i = this.int(1, 3); i > 0; i--) d['k' + i] = this.container(level, depth + 1, pickTensor);
      return {d};
    }
    return this.chance(0.5) ? {n: this.int(0, 9)} : {s: 'str'};
  }
  g_tf_dispose(level) {
    // Disposed variables are left out of the container: tf.dispose calls Variable.dispose
    // again (see g_dispose_again).
    const ok = this.handles((t, h) => !this.isVar(h) || (!isDisposed(this.ctx, h) && this.chance(0.2)));
    if (ok.length === 0) return null;
    return {op: 'tf_dispose', arg: this.container(level, 0, () => this.pick(ok))};
  }
  g_keep(level) {
    // Outside a function body, a disposed tensor now and then (keep only sets a flag).
    const c = level.inF ? this.live((t, h) => level.created.includes(h)) : this.chance(0.1) ? this.dead() : this.live();
    if (c.length === 0) return null;
    return {op: 'keep', x: this.pick(c)};
  }
  g_tidy(level) {
    const s = {op: 'tidy', name: this.chance(0.3) ? 'named' : null, body: [], ret: null};
    if (!level.inF && this.chance(0.06)) s.throw = true;
    return s;
  }
  tidyRet(s, level, inner) {
    const created = inner.created;
    const live = this.live();
    const pickTensor = () => {
      const r = this.r();
      const c = created.filter((h) => live.includes(h));
      if (r < 0.7 && c.length) return this.pick(c);
      if (r < 0.93 && live.length) return this.pick(live);
      const all = this.handles(() => true);
      return all.length ? this.pick(all) : null;
    };
    if (inner.inF) {
      const c = created.filter((h) => live.includes(h) && this.connected(inner, h));
      s.ret = c.length ? (this.chance(0.7) ? {t: this.pick(c)} : {l: [{t: this.pick(c)}, {t: this.pick(live)}]}) : null;
    } else {
      s.ret = this.chance(0.12) ? null : this.container(inner, 0, pickTensor);
    }
    // What the tidy returns lives on in the enclosing body.
    for (const h of created) if (!level.created.includes(h)) level.created.push(h);
  }
  g_start_scope(level) {
    level.openScopes++;
    return {op: 'start_scope', name: this.chance(0.5) ? 'scope' : null};
  }
  g_end_scope(level) {
    if (level.openScopes === 0) return null;
    return this.endScope(level);
  }
  endScope(level) {
    level.openScopes--;
    const live = this.live();
    const all = this.handles((t, h) => !this.isVar(h) || !isDisposed(this.ctx, h));
    const pick = () => this.pick(this.chance(0.9) ? live : all);
    const ret = this.chance(0.3) || live.length === 0 ? null : this.container(level, 0, pick);
    return {op: 'end_scope', ret};
  }
  makeTensor(level, shape) {
    return {op: 'tensor', out: this.out(level), values: this.values(shape, 'float32'), shape, dtype: 'float32'};
  }
  g_variable(level, forTraining = false) {
    const x = this.input(level, forTraining ? (t) => t.dtype === 'float32' : notString);
    if (x == null) return null;
    const h = this.newHandle();
    level.created.push(h);
    const liveNames = this.live((t, k) => this.isVar(k)).map((k) => this.t(k).name);
    let name = `v${this.varCount++}`;
    const taken = !forTraining && liveNames.length > 0 && this.chance(0.08);
    if (taken) name = this.pick(liveNames); // already registered: an error
    const s = {op: 'variable', x, out: h, trainable: forTraining || this.chance(0.85), name, dtype: null, method: this.chance(0.5)};
    // A dtype with a taken name is left out: TF.js casts before it checks the name (and
    // leaks the cast); tidytensor checks first, as catalog §1.8 describes ("the throw
    // happens before any counting").
    if (!taken && !forTraining && this.chance(0.1)) s.dtype = this.t(x).dtype === 'int32' ? 'float32' : 'int32';
    return s;
  }
  g_assign(level) {
    // Assigning to a disposed variable is left out: TF.js's assign does not check and
    // decrements the old buffer again (the Variable.dispose bug of catalog §1.4).
    const vs = this.live((t, h) => this.isVar(h));
    if (vs.length === 0) return null;
    const v = this.pick(vs);
    const tv = this.t(v);
    // v.assign(v) (through another handle of the same variable) is left out: TF.js frees
    // the buffer before taking a new reference to it, and the variable is then broken.
    let c = this.live((t) => t !== tv && t.dtype === tv.dtype &&
      t.shape.length === tv.shape.length && t.shape.every((d, i) => d === tv.shape[i]));
    if (c.length === 0 || this.chance(0.1)) c = this.live((t) => t !== tv); // a mismatch: an error
    if (c.length === 0) return null;
    const x = this.pick(c);
    return {op: 'assign', v, x};
  }
  g_dispose_variable() {
    const vs = this.live((t, h) => this.isVar(h));
    if (vs.length === 0) return null;
    return {op: 'dispose', x: this.pick(vs)};
  }
  g_dispose_variables(level) {
    if (level.inF) return null;
    // Optimizers' and models' variables go too: mark them unusable.
    for (const k of Object.keys(this.optState)) this.optState[k].disposed = true;
    // model.dispose() afterwards is left out: it checks its variables' isDisposed, which
    // TF.js leaves false here and tidytensor sets (see isDisposed), so only tidytensor
    // raises "LayersVariable ... is already disposed".
    for (const k of Object.keys(this.modelState)) this.modelState[k].disposed = this.modelState[k].gone = true;
    for (const k of Object.keys(this.layerState)) this.layerState[k].disposed = this.layerState[k].gone = true;
    return {op: 'dispose_variables'};
  }
  g_data_sync(level) {
    const x = this.input(level);
    if (x == null) return null;
    return {op: this.chance(0.5) ? 'data_sync' : 'array_sync', x};
  }
  g_use_disposed(level) {
    // Only tensor methods: they check isDisposed in TF.js ('Tensor is disposed.'). A
    // functional op on a disposed tensor is left out: TF.js runs it silently when another
    // tensor shares the buffer, and throws a TypeError from moveData otherwise; tidytensor
    // raises its clear use-after-dispose error both times (catalog §1.4).
    const c = this.dead((t) => t.isDisposed); // not variables freed by disposeVariables (above)
    if (c.length === 0) return null;
    const x = this.pick(c);
    const r = this.r();
    if (r < 0.3) return {op: 'data_sync', x};
    if (r < 0.5) return {op: 'array_sync', x};
    if (r < 0.7) return {op: 'unary', fn: this.pick(UNARY), x, out: this.out(level, x), method: true};
    if (r < 0.8) return {op: 'variable', x, out: this.out(level, x), trainable: true, name: null, dtype: null, method: true};
    return {op: 'view', fn: this.pick(['clone', 'flatten']), x, out: this.out(level, x), method: true};
  }
  g_buffer(level) {
    const bufs = Object.keys(this.ctx.B).map(Number);
    const fresh = bufs.filter((b) => this.bufState[b] === 'fresh');
    const r = this.r();
    if (r < 0.3 && fresh.length) {
      // Only a buffer from tf.buffer() that has not been turned into a tensor is written: on
      // the cpu backend TF.js's bufferSync() and toTensor() share the typed array with the
      // tensor (a write would change the tensor's values), which is not memory accounting.
      const b = this.pick(fresh);
      const shape = this.ctx.B[b].shape;
      return {op: 'buffer_set', b, value: this.int(-3, 3), loc: shape.map((d) => this.int(0, d - 1))};
    }
    if (r < 0.6 && bufs.length) {
      const b = this.pick(bufs);
      this.bufState[b] = 'used';
      return {op: 'to_tensor', b, out: this.out(level)};
    }
    if (r < 0.8) {
      const x = this.input(level);
      if (x == null) return null;
      const b = this.newHandle();
      this.bufState[b] = 'used';
      return {op: 'buffer_sync', x, out: b};
    }
    const b = this.newHandle();
    this.bufState[b] = 'fresh';
    return {op: 'buffer', shape: this.pick(SHAPES), dtype: this.pick(['float32', 'int32']), out: b};
  }
  g_custom(level) {
    const x = this.input(level, (t) => t.dtype === 'float32');
    if (x == null) return null;
    return {op: 'custom', variant: this.int(0, 1), x, out: this.out(level, x)};
  }
  g_grad(level) {
    // In a function body this is a gradient of a gradient: the inner call's results are
    // left off the outer path (no entry in this.dep), so the outer f never needs them to
    // reach its xs (an inner gradient may be constant), but they may join it.
    const floats = this.live((t) => t.dtype === 'float32');
    if (floats.length === 0) return null;
    const kind = this.pick(['grad', 'grad', 'grads', 'value_and_grad', 'value_and_grads']);
    const n = kind === 'grads' || kind === 'value_and_grads' ? this.int(1, 2) : 1;
    const xs = [];
    for (let i = 0; i < n; i++) xs.push(this.pick(floats));
    const params = xs.map(() => this.newHandle());
    const F = {params, body: [], ret: null, roots: xs};
    if (kind === 'grad') {
      const s = {op: 'grad', f: F, x: xs[0], dy: null, out: this.newHandle()};
      const scalars = this.live((t) => t.dtype === 'float32' && t.rank === 0);
      if (scalars.length && this.chance(0.3)) {
        s.dy = this.pick(scalars);
        F.scalar = true;
      }
      level.created.push(s.out);
      return s;
    }
    if (kind === 'grads') {
      const outs = xs.map(() => this.newHandle());
      level.created.push(...outs);
      return {op: 'grads', f: F, xs, outs};
    }
    if (kind === 'value_and_grad') {
      const s = {op: 'value_and_grad', f: F, x: xs[0], out_value: this.newHandle(), out_grad: this.newHandle()};
      level.created.push(s.out_value, s.out_grad);
      return s;
    }
    const s = {op: 'value_and_grads', f: F, xs, out_value: this.newHandle(), out_grads: xs.map(() => this.newHandle())};
    level.created.push(s.out_value, ...s.out_grads);
    return s;
  }
  trainableVars() {
    return this.live((t, h) => this.isVar(h) && t.trainable && t.dtype === 'float32');
  }
  g_variable_grads(level) {
    const vs = this.trainableVars();
    if (vs.length === 0) return null;
    const target = vs.filter(() => this.chance(0.6));
    if (target.length === 0) target.push(this.pick(vs));
    let varList = this.chance(0.5) ? [...target] : null;
    const frozen = this.live((t, h) => this.isVar(h) && !t.trainable);
    if (varList && frozen.length && this.chance(0.4)) varList.push(this.pick(frozen)); // a null entry
    const F = {params: [], body: [], ret: null, roots: target, scalar: true};
    const s = {op: 'variable_grads', f: F, var_list: varList, out_value: this.newHandle(), out_grads: {}};
    level.created.push(s.out_value);
    return s;
  }
  g_optimizer(level) {
    let [kind, args] = this.pick(OPTIMIZERS);
    // TF.js's momentum optimizer does not keep its scalar m: made inside a tidy or scope, it
    // is unusable afterwards, in both libraries, and each fails at its own point of the
    // update (a use of a disposed tensor, left out as in g_use_disposed).
    if (kind === 'momentum' && !(level.top && level.openScopes === 0)) [kind, args] = OPTIMIZERS[0];
    const o = this.newHandle();
    this.optState[o] = {disposed: false, vars: null, model: false};
    return {op: 'optimizer', kind, args, out: o};
  }
  g_minimize(level) {
    // Each optimizer keeps one list of variables, given explicitly every time: TF.js (and
    // tidytensor with it) keeps optimizer state by the variable's position in the list, so
    // a varying list mixes states up, which is no memory question.
    const os = Object.keys(this.optState).map(Number).filter((o) => !this.optState[o].disposed && !this.optState[o].model);
    if (os.length === 0) return null;
    const o = this.pick(os);
    const st = this.optState[o];
    if (st.vars == null) {
      const vs = this.trainableVars();
      if (vs.length === 0) return this.g_variable(level, true); // for a later minimize
      st.vars = vs.filter(() => this.chance(0.6));
      if (st.vars.length === 0) st.vars.push(this.pick(vs));
    } else if (st.vars.some((h) => isDisposed(this.ctx, h))) {
      return null;
    }
    const F = {params: [], body: [], ret: null, roots: st.vars, scalar: true};
    const returnCost = this.chance(0.6);
    const s = {op: 'minimize', opt: o, f: F, return_cost: returnCost, var_list: st.vars, out: returnCost ? this.newHandle() : null};
    if (s.out != null) level.created.push(s.out);
    return s;
  }
  g_opt_dispose() {
    // A second optimizer.dispose() is left out: it disposes the optimizer's variables
    // again (the Variable.dispose bug of catalog §1.4).
    const os = Object.keys(this.optState).map(Number).filter((o) => !this.optState[o].disposed && !this.optState[o].model);
    if (os.length === 0) return null;
    const o = this.pick(os);
    this.optState[o].disposed = true;
    return {op: 'opt_dispose', opt: o};
  }
  g_model() {
    const m = this.newHandle();
    const units = this.chance(0.5) ? [1] : [this.int(2, 4), 1];
    let optimizer = this.pick([null, 'sgd', 'adam', 'rmsprop']);
    const free = Object.keys(this.optState).map(Number).filter((o) => !this.optState[o].disposed && this.optState[o].vars == null && !this.optState[o].model);
    if (free.length && this.chance(0.3)) {
      const o = this.pick(free);
      this.optState[o].model = true; // used by this model only
      optimizer = {o};
    }
    this.modelState[m] = {disposed: false, compiled: optimizer != null};
    this.deterministic = false; // initial weights are random
    const extra = this.pick([null, null, 'dropout', 'batchNormalization']);
    return {op: 'model', out: m, units, activation: this.pick(['linear', 'relu']), input_dim: 3, optimizer, extra};
  }
  models(pred) {
    return Object.keys(this.modelState).map(Number).filter((m) => pred(this.modelState[m]));
  }
  g_predict(level) {
    const ms = this.models((st) => !st.disposed);
    if (ms.length === 0) return null;
    const x = this.input(level, (t) => numeric(t) && t.rank === 2 && t.shape[1] === 3);
    if (x == null) return this.makeTensor(level, [2, 3]); // for a later predict
    return {op: 'predict', m: this.pick(ms), x, batch_size: this.chance(0.3) ? 1 : null, out: this.out(level, x)};
  }
  g_fit(level) {
    const ms = this.models((st) => !st.disposed && st.compiled);
    if (ms.length === 0) return null;
    const x = this.input(level, (t) => t.rank === 2 && t.shape[1] === 3 && t.shape[0] === 2 && t.dtype === 'float32');
    const y = this.input(level, (t) => t.rank === 2 && t.shape[1] === 1 && t.shape[0] === 2 && t.dtype === 'float32');
    if (x == null || y == null) return this.makeTensor(level, x == null ? [2, 3] : [2, 1]); // for a later fit
    const s = {op: 'fit', m: this.pick(ms), x, y, epochs: this.int(1, 2), batch_size: this.pick([1, 2])};
    if (this.chance(0.3)) s.validation_split = 0.5;
    return s;
  }
  g_evaluate(level) {
    const ms = this.models((st) => !st.disposed && st.compiled);
    if (ms.length === 0) return null;
    const x = this.input(level, (t) => t.rank === 2 && t.shape[1] === 3 && t.shape[0] === 2 && t.dtype === 'float32');
    const y = this.input(level, (t) => t.rank === 2 && t.shape[1] === 1 && t.shape[0] === 2 && t.dtype === 'float32');
    if (x == null || y == null) return this.makeTensor(level, x == null ? [2, 3] : [2, 1]);
    return {op: 'evaluate', m: this.pick(ms), x, y, batch_size: this.pick([1, 2]), out: this.out(level, x, y)};
  }
  g_layer() {
    const l = this.newHandle();
    this.layerState[l] = {disposed: false, inDim: null};
    this.deterministic = false; // initial weights are random
    return {op: 'layer', out: l, units: this.int(1, 3), activation: this.pick(['linear', 'relu', 'sigmoid'])};
  }
  g_apply(level) {
    const ls = Object.keys(this.layerState).map(Number).filter((l) => !this.layerState[l].disposed);
    if (ls.length === 0) return null;
    const l = this.pick(ls);
    const st = this.layerState[l];
    const x = this.input(level, (t) => t.dtype === 'float32' && t.rank === 2 && (st.inDim == null || t.shape[1] === st.inDim));
    if (x == null) return null;
    st.inDim = this.t(x).shape[1];
    return {op: 'apply', l, x, out: this.out(level, x)};
  }
  g_layer_dispose() {
    // Disposing twice, or before the layer is built, throws in both.
    const ls = Object.keys(this.layerState).map(Number).filter((l) => !this.layerState[l].gone);
    if (ls.length === 0) return null;
    const l = this.pick(ls);
    this.layerState[l].disposed = true;
    return {op: 'layer_dispose', l};
  }
  g_get_weights() {
    const os = Object.keys(this.optState).map(Number).filter((o) => !this.optState[o].disposed);
    if (os.length === 0) return null;
    return {op: 'get_weights', opt: this.pick(os), outs: []};
  }
  g_model_dispose() {
    const ms = this.models((st) => !st.gone);
    if (ms.length === 0) return null;
    const m = this.pick(ms);
    this.modelState[m].disposed = true; // a second dispose throws in both
    return {op: 'model_dispose', m};
  }

  // ---- function bodies
  fRet(level, F, p) {
    const emit = (s) => {
      F.body.push(s);
      execSync(this.ctx, s, `${p}${F.body.length - 1}`, this, level);
      return s.out;
    };
    const live = this.live();
    const usable = (h) => live.includes(h) && this.t(h).dtype === 'float32';
    const reaches = (h, g) => [...this.depOf(h)].some((r) => g.includes(r));
    // f never returns a root itself (f = x => x) nor anything off the path: the gradient
    // call would fail after f ran, and there TF.js leaks the tape's saved tensors and y
    // while tidytensor frees them (a deliberate fix, tests/test_memory_cases.py).
    const roots = [...level.roots];
    let c = level.created.filter((h) => usable(h) && this.connected(level, h) && !roots.includes(h));
    let ret = c.length ? this.pick(c) : emit({op: 'unary', fn: 'square', x: this.pick(F.groups[0].filter(usable)), out: this.out(level, F.groups[0][0]), method: true});
    for (const g of F.groups) {
      if (reaches(ret, g)) continue;
      const cg = level.created.filter((h) => usable(h) && reaches(h, g) && !roots.includes(h));
      const other = cg.length ? this.pick(cg) : emit({op: 'unary', fn: 'square', x: this.pick(g.filter(usable)), out: this.out(level, g[0]), method: true});
      const a = emit({op: 'unary', fn: 'sum', x: ret, out: this.out(level, ret), method: true});
      const b = emit({op: 'unary', fn: 'sum', x: other, out: this.out(level, other), method: false});
      ret = emit({op: 'binary', fn: 'add', a, b, out: this.out(level, a, b), method: true});
    }
    if (F.scalar && this.t(ret).rank !== 0) {
      ret = emit({op: 'unary', fn: this.pick(['sum', 'mean']), x: ret, out: this.out(level, ret), method: this.chance(0.5)});
    }
    delete F.scalar;
    delete F.groups;
    this.dep = level.outerDep;
    return ret;
  }
}

async function generate(count, seed) {
  let programs = [];
  for (let i = 0; i < count; i++) {
    const gen = new Gen(seed * 1000 + i);
    const prog = {name: `p${String(i).padStart(3, '0')}`, deterministic: true, steps: []};
    prog.trace = await runProgram(prog, gen);
    prog.deterministic = gen.deterministic;
    programs.push(prog);
  }
  // Replay what JSON keeps (the specs as they will be read back), not the live objects.
  programs = JSON.parse(JSON.stringify(programs));
  const traces = {};
  for (const prog of programs) {
    traces[prog.name] = prog.trace;
    delete prog.trace;
  }
  fs.writeFileSync(SPECS, JSON.stringify(programs) + '\n');
  return {programs, traces};
}

async function replay(programs, traces) {
  const results = {};
  const dropped = [];
  for (const prog of programs) {
    results[prog.name] = await runProgram(prog, null);
    // Replay must reproduce what the generator saw.
    // (Values read in programs with a model differ: its initial weights are random.)
    const strip = (t) => (prog.deterministic ? t : t.map((r) => Object.assign({}, r, {v: undefined})));
    if (traces && JSON.stringify(strip(traces[prog.name])) !== JSON.stringify(strip(results[prog.name]))) {
      const a = strip(traces[prog.name]);
      const b = strip(results[prog.name]);
      const i = a.findIndex((r, k) => JSON.stringify(r) !== JSON.stringify(b[k]));
      const where = `${JSON.stringify(a[i])} vs ${JSON.stringify(b[i])}`;
      // One known cause is TF.js's own: automatic variable names ("224") come from a
      // process-wide counter, and now and then one is "already registered" in one run and
      // not the other (seen once in 3000 programs). Such a program is dropped; any other
      // difference is a bug of this script.
      if (!/Variable with name \d+ was already registered/.test(where)) {
        throw new Error(`replay of ${prog.name} differs from its generation at ${where}`);
      }
      console.log(`dropped ${prog.name}: ${where}`);
      delete results[prog.name];
      dropped.push(prog.name);
    }
  }
  if (dropped.length) {
    programs = programs.filter((p) => !dropped.includes(p.name));
    fs.writeFileSync(SPECS, JSON.stringify(programs) + '\n');
  }
  fs.writeFileSync(RESULTS, JSON.stringify(results) + '\n');
  let errors = 0;
  let records = 0;
  for (const k of Object.keys(results)) {
    records += results[k].length;
    errors += results[k].filter((r) => r.e !== undefined).length;
  }
  console.log(`${programs.length} programs, ${records} records, ${errors} with errors`);
}

async function main() {
  const args = process.argv.slice(2);
  // TF.js greets every backend start in Node; keep the output to the summary.
  const log = console.log;
  console.log = (...a) => {
    if (!/tfjs-node|^=+$/.test(String(a[0]))) log(...a);
  };
  if (args[0] === 'generate') {
    const {programs, traces} = await generate(Number(args[1] || 110), Number(args[2] || 7));
    await replay(programs, traces);
  } else {
    await replay(JSON.parse(fs.readFileSync(SPECS, 'utf8')), null);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
