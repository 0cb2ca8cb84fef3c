// TF.js graph-model goldens for tidytensor's tf.load_graph_model.
//
// 1. Writes hand-built graph models (graph_builder.js) into graph_models/<name>/ (model.json
//    + weights.bin): fused ops with quantized weights, TF 2 While with TensorLists, TF 2 If,
//    a TF 1 while loop (Enter/Merge/Switch/NextIteration/Exit) with a TensorArray, hash
//    tables made by a modelInitializer, non-max suppression and Where.
// 2. Loads every graph_models/<name>/ (those and the published ones, e.g. basic_pitch, from
//    @spotify/basic-pitch) with TF.js 4.22's tf.loadGraphModel, runs it and records in
//    graph_models/<name>/expected.json the inputs, the outputs, and tf.memory() counts.
// 3. Builds one small model per TF op (op_cases below), runs each in TF.js and records the
//    model, its inputs, its outputs or TF.js's error in results/graph_op_cases.json.
//
// Run: cd tests/golden && node make_graph_models.js
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const {A, Model, values} = require('./graph_builder');
const {OP_CASES} = require('./graph_op_cases');

const DIR = path.join(__dirname, 'graph_models');
const F = A.type('DT_FLOAT');
const I = A.type('DT_INT32');

// ------------------------------------------------------------------ hand-built fixtures
const FIXTURES = {
  fused_ops() {
    const m = new Model();
    const g = m.graph;
    const x = g.input('x', [-1, 6, 6, 3]);
    const w1 = g.const(values([3, 3, 3, 4], 1).map((v) => v / 3), [3, 3, 3, 4], 'float32',
      {name: 'conv/kernel', quantize: 'uint8'});
    const b1 = g.const(values([4], 2).map((v) => v / 4), [4], 'float32', {name: 'conv/bias'});
    const c1 = g.op('_FusedConv2D', [x, w1, b1], {T: F, strides: A.listI([1, 1, 1, 1]),
      padding: A.s('SAME'), data_format: A.s('NHWC'), dilations: A.listI([1, 1, 1, 1]),
      fused_ops: A.listS(['BiasAdd', 'Relu']), num_args: A.i(1), epsilon: A.f(0)}, 'conv');
    const w2 = g.const(values([3, 3, 4, 1], 3).map((v) => v / 3), [3, 3, 4, 1], 'float32',
      {name: 'dw/kernel', quantize: 'float16'});
    const b2 = g.const(values([4], 4).map((v) => v / 4), [4], 'float32', {name: 'dw/bias'});
    const c2 = g.op('FusedDepthwiseConv2dNative', [c1, w2, b2], {T: F,
      strides: A.listI([1, 2, 2, 1]), padding: A.s('VALID'), data_format: A.s('NHWC'),
      dilations: A.listI([1, 1, 1, 1]), fused_ops: A.listS(['BiasAdd', 'Relu6']),
      num_args: A.i(1)}, 'dw');
    const pool = g.op('MaxPool', [c2], {T: F, ksize: A.listI([1, 2, 2, 1]),
      strides: A.listI([1, 1, 1, 1]), padding: A.s('SAME'), data_format: A.s('NHWC')}, 'pool');
    const axes = g.ints([1, 2], 'mean/axes');
    const mean = g.op('Mean', [pool, axes], {T: F, keep_dims: A.b(false)}, 'mean');
    const w3 = g.const(values([4, 5], 5).map((v) => v / 2), [4, 5], 'float32',
      {name: 'dense/kernel', quantize: 'uint16'});
    const b3 = g.const(values([5], 6).map((v) => v / 5), [5], 'float32', {name: 'dense/bias'});
    const alpha = g.const(values([5], 7).map((v) => Math.abs(v) / 5), [5], 'float32',
      {name: 'dense/alpha'});
    const d = g.op('_FusedMatMul', [mean, w3, b3, alpha], {T: F, transpose_a: A.b(false),
      transpose_b: A.b(false), fused_ops: A.listS(['BiasAdd', 'Prelu']), num_args: A.i(2)},
      'dense');
    g.op('Softmax', [d], {T: F}, 'probs');
    m.signature = {
      inputs: {image: {name: 'x:0', dtype: 'DT_FLOAT'}},
      outputs: {probs: {name: 'probs:0', dtype: 'DT_FLOAT'}, logits: {name: 'dense:0',
        dtype: 'DT_FLOAT'}},
    };
    return {model: m, runs: [
      {inputs: {x: {shape: [2, 6, 6, 3], seed: 11}}},
      {inputs: {image: {shape: [1, 6, 6, 3], seed: 12}}, outputs: ['logits']},
    ]};
  },

  while_v2() {
    // acc = x; i = 0; while i < n: acc = acc * 0.5 + i; list[i] = acc; i += 1
    const m = new Model();
    m.func('cond', [['i', 'int32'], ['n', 'int32'], ['acc', 'float32'], ['list', 'int32']],
      (g, i, n) => [g.op('Less', [i, n], {T: I}, 'less')]);
    m.func('body', [['i', 'int32'], ['n', 'int32'], ['acc', 'float32'], ['list', 'int32']],
      (g, i, n, acc, list) => {
        const half = g.scalar(0.5, 'float32', 'body/half');
        const one = g.scalar(1, 'int32', 'body/one');
        const scaled = g.op('Mul', [acc, half], {T: F}, 'scaled');
        const fi = g.op('Cast', [i], {SrcT: I, DstT: F}, 'fi');
        const next = g.op('AddV2', [scaled, fi], {T: F}, 'next');
        const list2 = g.op('TensorListSetItem', [list, i, next], {element_dtype: F}, 'set');
        const i2 = g.op('AddV2', [i, one], {T: I}, 'inc');
        return [`${i2}:z:0`, n, `${next}:z:0`, `${list2}:output_handle:0`];
      });
    const g = m.graph;
    const x = g.input('x', [3]);
    const n = g.input('n', [], 'int32');
    const zero = g.scalar(0, 'int32', 'zero');
    const shape = g.ints([3], 'element_shape');
    const reserve = g.op('TensorListReserve', [shape, n], {element_dtype: F,
      shape_type: I}, 'reserve');
    const loop = g.op('StatelessWhile', [zero, n, x, reserve], {T: A.listType(
      ['DT_INT32', 'DT_INT32', 'DT_FLOAT', 'DT_VARIANT']), cond: A.func('cond'),
    body: A.func('body'), parallel_iterations: A.i(10)}, 'loop');
    const minus1 = g.scalar(-1, 'int32', 'stack_shape');
    g.op('TensorListStack', [`${loop}:3`, minus1], {element_dtype: F, num_elements: A.i(-1)},
      'stack');
    g.op('Identity', [`${loop}:2`], {T: F}, 'final');
    return {model: m, runs: [
      {inputs: {x: {shape: [3], seed: 1}, n: {shape: [], dtype: 'int32', values: [4]}},
        outputs: ['final', 'stack'], async: true},
      {inputs: {x: {shape: [3], seed: 2}, n: {shape: [], dtype: 'int32', values: [1]}},
        outputs: ['stack', 'final'], async: true},
    ]};
  },

  if_v2() {
    const m = new Model();
    m.func('then_fn', [['x', 'float32'], ['y', 'float32']], (g, x, y) => [
      `${g.op('Mul', [x, y], {T: F}, 'prod')}:z:0`]);
    m.func('else_fn', [['x', 'float32'], ['y', 'float32']], (g, x, y) => [
      `${g.op('Sub', [x, y], {T: F}, 'diff')}:z:0`]);
    const g = m.graph;
    const c = g.input('c', [], 'bool');
    const x = g.input('x', [2, 2]);
    const y = g.input('y', [2, 2]);
    const r = g.op('StatelessIf', [c, x, y], {Tcond: A.type('DT_BOOL'),
      Tin: A.listType(['DT_FLOAT', 'DT_FLOAT']), Tout: A.listType(['DT_FLOAT']),
      then_branch: A.func('then_fn'), else_branch: A.func('else_fn')}, 'cond');
    g.op('Relu', [r], {T: F}, 'out');
    return {model: m, runs: [
      {inputs: {c: {shape: [], dtype: 'bool', values: [true]}, x: {shape: [2, 2], seed: 3},
        y: {shape: [2, 2], seed: 4}}, async: true},
      {inputs: {c: {shape: [], dtype: 'bool', values: [false]}, x: {shape: [2, 2], seed: 3},
        y: {shape: [2, 2], seed: 4}}, async: true},
    ]};
  },

  v1_loop() {
    // TF 1: i = 0; acc = x; while i < n: acc = acc * 2; ta[i] = acc; i += 1
    const m = new Model();
    const g = m.graph;
    const n = g.input('n', [], 'int32');
    const x = g.input('x', [2]);
    const i0 = g.scalar(0, 'int32', 'i0');
    const one = g.scalar(1, 'int32', 'one');
    const two = g.scalar(2, 'float32', 'two');
    const ta = g.op('TensorArrayV3', [n], {dtype: F, element_shape: A.shape([2]),
      dynamic_size: A.b(false), clear_after_read: A.b(true),
      identical_element_shapes: A.b(true), tensor_array_name: A.s('')}, 'ta');
    const frame = A.s('while');
    const enter = (t, name, constant = false) => g.op('Enter', [t], {T: F, frame_name: frame,
      is_constant: A.b(constant), parallel_iterations: A.i(10)}, name);
    const ei = enter(i0, 'enter_i');
    const ea = enter(x, 'enter_acc');
    const ef = enter(`${ta}:1`, 'enter_flow');
    const en = enter(n, 'enter_n', true);
    const eo = enter(one, 'enter_one', true);
    const et = enter(two, 'enter_two', true);
    const eta = enter(ta, 'enter_ta', true);
    const mi = g.op('Merge', [ei, 'next_i'], {T: I, N: A.i(2)}, 'merge_i');
    const ma = g.op('Merge', [ea, 'next_acc'], {T: F, N: A.i(2)}, 'merge_acc');
    const mf = g.op('Merge', [ef, 'next_flow'], {T: F, N: A.i(2)}, 'merge_flow');
    const less = g.op('Less', [mi, en], {T: I}, 'less');
    const cond = g.op('LoopCond', [less], {}, 'cond');
    const si = g.op('Switch', [mi, cond], {T: I}, 'switch_i');
    const sa = g.op('Switch', [ma, cond], {T: F}, 'switch_acc');
    const sf = g.op('Switch', [mf, cond], {T: F}, 'switch_flow');
    const ii = g.op('Identity', [`${si}:1`], {T: I}, 'id_i');
    const ia = g.op('Identity', [`${sa}:1`], {T: F}, 'id_acc');
    const iflow = g.op('Identity', [`${sf}:1`], {T: F}, 'id_flow');
    const acc2 = g.op('Mul', [ia, et], {T: F}, 'double');
    const w = g.op('TensorArrayWriteV3', [eta, ii, acc2, iflow], {T: F}, 'write');
    const i2 = g.op('AddV2', [ii, eo], {T: I}, 'inc');
    g.op('NextIteration', [i2], {T: I}, 'next_i');
    g.op('NextIteration', [acc2], {T: F}, 'next_acc');
    g.op('NextIteration', [w], {T: F}, 'next_flow');
    g.op('Exit', [`${sa}:0`], {T: F}, 'exit_acc');
    const xf = g.op('Exit', [`${sf}:0`], {T: F}, 'exit_flow');
    const size = g.op('TensorArraySizeV3', [ta, xf], {}, 'size');
    const range = g.op('Range', [i0, size, one], {Tidx: I}, 'range');
    g.op('TensorArrayGatherV3', [ta, range, xf], {dtype: F, element_shape: A.shape([2])},
      'gather');
    return {model: m, runs: [
      {inputs: {n: {shape: [], dtype: 'int32', values: [3]}, x: {shape: [2], seed: 5}},
        outputs: ['exit_acc', 'gather'], async: true},
    ]};
  },

  v1_cond() {
    // TF 1's tf.cond: Switch sends x down one branch; Merge takes the branch that ran.
    const m = new Model();
    const g = m.graph;
    const x = g.input('x', [3]);
    const total = g.op('Sum', [x, g.ints([0], 'axis')], {T: F, keep_dims: A.b(false)}, 'total');
    const pred = g.op('Greater', [total, g.scalar(0, 'float32', 'zero')], {T: F}, 'pred');
    const sw = g.op('Switch', [x, pred], {T: F}, 'switch');
    const t = g.op('Mul', [`${sw}:1`, g.scalar(2, 'float32', 'two')], {T: F}, 'then');
    const e = g.op('Neg', [`${sw}:0`], {T: F}, 'else');
    const merged = g.op('Merge', [e, t], {T: F, N: A.i(2)}, 'merge');
    g.op('AddV2', [merged, g.scalar(1, 'float32', 'one')], {T: F}, 'out');
    return {model: m, runs: [
      {inputs: {x: {shape: [3], values: [1, 2, -0.5]}}, outputs: ['out'], async: true},
      {inputs: {x: {shape: [3], values: [-1, 2, -3.5]}}, outputs: ['out'], async: true},
    ]};
  },

  v1_nested_loop() {
    // TF 1: for i in range(n): for j in range(i + 1): acc = acc + x * (j + 1)
    const m = new Model();
    const g = m.graph;
    const n = g.input('n', [], 'int32');
    const x = g.input('x', [2]);
    const zero = g.scalar(0, 'int32', 'zero');
    const one = g.scalar(1, 'int32', 'one');
    const enter = (t, name, frame, constant = false) => g.op('Enter', [t], {T: F,
      frame_name: A.s(frame), is_constant: A.b(constant), parallel_iterations: A.i(1)}, name);
    // outer loop state: i, acc
    const oi = enter(zero, 'o_enter_i', 'outer');
    const oa = enter(x, 'o_enter_acc', 'outer');
    const on = enter(n, 'o_enter_n', 'outer', true);
    const oone = enter(one, 'o_enter_one', 'outer', true);
    const ox = enter(x, 'o_enter_x', 'outer', true);
    const omi = g.op('Merge', [oi, 'o_next_i'], {T: I, N: A.i(2)}, 'o_merge_i');
    const oma = g.op('Merge', [oa, 'o_next_acc'], {T: F, N: A.i(2)}, 'o_merge_acc');
    const ocond = g.op('LoopCond', [g.op('Less', [omi, on], {T: I}, 'o_less')], {}, 'o_cond');
    const osi = g.op('Switch', [omi, ocond], {T: I}, 'o_switch_i');
    const osa = g.op('Switch', [oma, ocond], {T: F}, 'o_switch_acc');
    const oii = g.op('Identity', [`${osi}:1`], {T: I}, 'o_i');
    const oia = g.op('Identity', [`${osa}:1`], {T: F}, 'o_acc');
    const limit = g.op('AddV2', [oii, oone], {T: I}, 'o_limit');
    // The inner loop's inputs are values of the outer body (made again in each outer
    // iteration, as TensorFlow builds them): its state j, acc, and its constants.
    const bZero = g.op('Sub', [oii, oii], {T: I}, 'o_body_zero');
    const bOne = g.op('Identity', [oone, `^${oii}`], {T: I}, 'o_body_one');
    const bX = g.op('Identity', [ox, `^${oii}`], {T: F}, 'o_body_x');
    const ij = enter(bZero, 'i_enter_j', 'inner');
    const ia = enter(oia, 'i_enter_acc', 'inner');
    const il = enter(limit, 'i_enter_limit', 'inner', true);
    const ione = enter(bOne, 'i_enter_one', 'inner', true);
    const ix = enter(bX, 'i_enter_x', 'inner', true);
    const imj = g.op('Merge', [ij, 'i_next_j'], {T: I, N: A.i(2)}, 'i_merge_j');
    const ima = g.op('Merge', [ia, 'i_next_acc'], {T: F, N: A.i(2)}, 'i_merge_acc');
    const icond = g.op('LoopCond', [g.op('Less', [imj, il], {T: I}, 'i_less')], {}, 'i_cond');
    const isj = g.op('Switch', [imj, icond], {T: I}, 'i_switch_j');
    const isa = g.op('Switch', [ima, icond], {T: F}, 'i_switch_acc');
    const jj = g.op('Identity', [`${isj}:1`], {T: I}, 'i_j');
    const ja = g.op('Identity', [`${isa}:1`], {T: F}, 'i_acc');
    const j1 = g.op('AddV2', [jj, ione], {T: I}, 'i_j1');
    const scale = g.op('Cast', [j1], {SrcT: I, DstT: F}, 'i_scale');
    const step = g.op('Mul', [ix, scale], {T: F}, 'i_step');
    const ja2 = g.op('AddV2', [ja, step], {T: F}, 'i_acc2');
    g.op('NextIteration', [j1], {T: I}, 'i_next_j');
    g.op('NextIteration', [ja2], {T: F}, 'i_next_acc');
    const innerOut = g.op('Exit', [`${isa}:0`], {T: F}, 'i_exit_acc');
    const oi2 = g.op('AddV2', [oii, oone], {T: I}, 'o_inc');
    g.op('NextIteration', [oi2], {T: I}, 'o_next_i');
    g.op('NextIteration', [innerOut], {T: F}, 'o_next_acc');
    g.op('Exit', [`${osa}:0`], {T: F}, 'result');
    g.op('Exit', [`${osi}:0`], {T: I}, 'count');
    return {model: m, runs: [
      {inputs: {n: {shape: [], dtype: 'int32', values: [3]}, x: {shape: [2], values: [1, 0.5]}},
        outputs: ['result', 'count'], async: true},
      {inputs: {n: {shape: [], dtype: 'int32', values: [0]}, x: {shape: [2], values: [1, 0.5]}},
        outputs: ['result'], async: true},
    ]};
  },

  hash_table() {
    const m = new Model();
    const tableAttrs = {key_dtype: A.type('DT_STRING'), value_dtype: I,
      shared_name: A.s('table'), use_node_name_sharing: A.b(false)};
    m.init((g) => {
      const table = g.op('HashTableV2', [], tableAttrs, 'table');
      const keys = g.const(['apple', 'banana', 'cherry', 'date'], [4], 'string',
        {name: 'init/keys'});
      const vals = g.const([10, 20, 30, 40], [4], 'int32', {name: 'init/values'});
      g.op('LookupTableImportV2', [table, keys, vals], {Tin: A.type('DT_STRING'), Tout: I},
        'import');
    });
    const g = m.graph;
    const words = g.input('words', [-1], 'string');
    const table = g.op('HashTableV2', [], tableAttrs, 'table');
    const dflt = g.scalar(-1, 'int32', 'default');
    const found = g.op('LookupTableFindV2', [table, words, dflt], {Tin: A.type('DT_STRING'),
      Tout: I}, 'lookup');
    g.op('LookupTableSizeV2', [table], {}, 'size');
    g.op('Mul', [found, found], {T: I}, 'squared');
    return {model: m, runs: [
      {inputs: {words: {shape: [5], dtype: 'string',
        values: ['banana', 'kiwi', 'apple', 'date', 'banana']}},
      outputs: ['lookup', 'size', 'squared'], async: true},
    ]};
  },

  hash_table_resource() {
    // As TensorFlow 2 models convert: the initializer's table handle is an output of its
    // signature (with a resource id), fed to the main graph's resource placeholder.
    const m = new Model();
    const tableAttrs = {key_dtype: I, value_dtype: F, shared_name: A.s('ids'),
      use_node_name_sharing: A.b(false)};
    m.init((g) => {
      const table = g.op('HashTableV2', [], tableAttrs, 'init_table');
      const keys = g.const([3, 1, 4, 5, 9], [5], 'int32', {name: 'init/ids'});
      const vals = g.const([0.3, 0.1, 0.4, 0.5, 0.9], [5], 'float32', {name: 'init/scores'});
      g.op('InitializeTableV2', [table, keys, vals], {Tkey: I, Tval: F}, 'init');
    });
    // TF.js's table initialization ops output the table's handle: the initializer's output.
    m.initializerSignature = {outputs: {'init:0': {name: 'init:0', dtype: 'DT_RESOURCE',
      resourceId: 77}}};
    const g = m.graph;
    const ids = g.input('ids', [-1], 'int32');
    g.op('Placeholder', [], {dtype: A.type('DT_RESOURCE'), shape: A.shape([])}, 'table_handle');
    const dflt = g.scalar(-1, 'float32', 'missing');
    const found = g.op('LookupTableFindV2', ['table_handle', ids, dflt], {Tin: I, Tout: F},
      'lookup');
    g.op('Sum', [found, g.ints([0], 'axis')], {T: F, keep_dims: A.b(false)}, 'total');
    m.signature = {
      inputs: {ids: {name: 'ids:0', dtype: 'DT_INT32'},
        table_handle: {name: 'table_handle:0', dtype: 'DT_RESOURCE', resourceId: 77}},
      outputs: {scores: {name: 'lookup:0', dtype: 'DT_FLOAT'},
        total: {name: 'total:0', dtype: 'DT_FLOAT'}},
    };
    return {model: m, runs: [
      {inputs: {ids: {shape: [6], dtype: 'int32', values: [1, 2, 3, 4, 5, 9]}}, async: true},
    ]};
  },

  nms() {
    const m = new Model();
    const g = m.graph;
    const boxes = g.input('boxes', [-1, 4]);
    const scores = g.input('scores', [-1]);
    const maxOut = g.scalar(4, 'int32', 'max_output');
    const iou = g.scalar(0.3, 'float32', 'iou');
    const thr = g.scalar(0.1, 'float32', 'score_threshold');
    const sigma = g.scalar(0.0, 'float32', 'sigma');
    g.op('NonMaxSuppressionV5', [boxes, scores, maxOut, iou, thr, sigma], {T: F,
      pad_to_max_output_size: A.b(false)}, 'nms');
    const sel = g.op('GatherV2', [boxes, 'nms', g.scalar(0, 'int32', 'axis0')], {Tparams: F,
      Tindices: I, Taxis: I, batch_dims: A.i(0)}, 'selected_boxes');
    const half = g.scalar(0.5, 'float32', 'half');
    const high = g.op('Greater', [scores, half], {T: F}, 'high');
    g.op('Where', [high], {T: A.type('DT_BOOL')}, 'where');
    g.op('Identity', [sel], {T: F}, 'boxes_out');
    return {model: m, runs: [
      {inputs: {
        boxes: {shape: [6, 4], values: [0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9,
          0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101]},
        scores: {shape: [6], values: [0.9, 0.75, 0.6, 0.95, 0.5, 0.3]}},
      outputs: ['nms', 'nms:1', 'boxes_out', 'where'], async: true},
    ]};
  },
};

// Runs for the published models found in npm packages (their files are committed as they are)
// and for the models tensorflowjs_converter wrote (make_converted_graph_models.py).
const PUBLISHED = {
  basic_pitch: [{inputs: {input_2: {shape: [1, 43844, 1], seed: 7, scale: 0.3}}}],
  converted_cnn: [{inputs: {input_1: {shape: [2, 8, 8, 3], seed: 8}}}],
  converted_while: [
    {inputs: {x: {shape: [2, 3], seed: 9}, n: {shape: [], dtype: 'int32', values: [4]}},
      async: true},
    {inputs: {x: {shape: [1, 3], values: [-5, -6, -7]}, n: {shape: [], dtype: 'int32',
      values: [1]}}, async: true},
  ],
  converted_detect: [{inputs: {
    boxes: {shape: [6, 4], values: [0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9,
      0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101]},
    scores: {shape: [6], values: [0.9, 0.75, 0.6, 0.95, 0.5, 0.3]}}, async: true}],
  converted_lookup: [{inputs: {words: {shape: [5], dtype: 'string',
    values: ['dog', 'cow', 'cat', 'fish', 'bird']}}, async: true}],
};

// ------------------------------------------------------------------ running TF.js
function feedValues(spec) {
  const dtype = spec.dtype || 'float32';
  const vals = spec.values || values(spec.shape, spec.seed, dtype).map(
    (v) => (spec.scale ? Math.fround(v * spec.scale) : v));
  return {shape: spec.shape, dtype, values: vals};
}

function encode(v) {
  if (typeof v !== 'number') return v;
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return v;
}

// Large float32 values are stored as base64 of their little-endian bytes (`f32`).
function packed(shape, dtype, vals) {
  if (dtype === 'float32' && vals.length > 1000) {
    return {shape, dtype, f32: Buffer.from(new Float32Array(vals).buffer).toString('base64')};
  }
  return {shape, dtype, values: dtype === 'float32' ? Array.from(vals).map(encode) : vals};
}

function record(t) {
  if (t.dtype === 'string') {
    return {shape: t.shape, dtype: t.dtype,
      values: t.dataSync().map((b) => Buffer.from(b).toString('utf8'))};
  }
  if (t.dtype === 'bool') {
    return {shape: t.shape, dtype: t.dtype, values: Array.from(t.dataSync()).map((v) => !!v)};
  }
  return packed(t.shape, t.dtype, Array.from(t.dataSync()));
}

function handlerFor(dir) {
  return {
    load: async () => {
      const json = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
      const specs = [];
      const bufs = [];
      for (const group of json.weightsManifest || []) {
        specs.push(...group.weights);
        for (const p of group.paths) bufs.push(fs.readFileSync(path.join(dir, p)));
      }
      const data = Buffer.concat(bufs);
      return {
        modelTopology: json.modelTopology, format: json.format, signature: json.signature,
        userDefinedMetadata: json.userDefinedMetadata, modelInitializer: json.modelInitializer,
        initializerSignature: json.initializerSignature, weightSpecs: specs,
        weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
      };
    },
  };
}

async function runModel(model, run) {
  const feeds = {};
  const recordedInputs = {};
  for (const [name, spec] of Object.entries(run.inputs)) {
    const v = feedValues(spec);
    recordedInputs[name] = packed(v.shape, v.dtype, v.values);
    feeds[name] = tf.tensor(v.values, v.shape, v.dtype);
  }
  const call = () => (run.async ? model.executeAsync(feeds, run.outputs)
    : Promise.resolve(model.execute(feeds, run.outputs)));
  // A first call (TF.js runs a model's initializer on its first execution), then the measured
  // one; `once`: an op that returns a tensor it was given runs once (disposing its output would
  // dispose that tensor).
  if (!run.once) tf.dispose(await call());
  const before = tf.memory().numTensors;
  const out = await call();
  const after = tf.memory().numTensors;
  const outs = Array.isArray(out) ? out : [out];
  const results = outs.map(record);
  if (!run.once) tf.dispose(out);
  const afterDispose = tf.memory().numTensors;
  tf.dispose(Object.values(feeds));
  return {inputs: recordedInputs, outputs: run.outputs || null, async: !!run.async,
    once: !!run.once, results, memory: {newTensors: after - before, leaked: afterDispose - before}};
}

async function recordDir(name, runs) {
  const dir = path.join(DIR, name);
  const start = tf.memory().numTensors;
  const model = await tf.loadGraphModel(handlerFor(dir));
  const loaded = tf.memory().numTensors - start;
  const out = {
    inputs: model.inputs, outputs: model.outputs, inputNodes: model.inputNodes,
    outputNodes: model.outputNodes, modelVersion: model.modelVersion,
    weightTensors: loaded, runs: [],
  };
  for (const run of runs) out.runs.push(await runModel(model, run));
  model.dispose();
  out.restoredAfterDispose = tf.memory().numTensors === start;
  fs.writeFileSync(path.join(dir, 'expected.json'), JSON.stringify(out, null, 1) + '\n');
  console.log(`${name}: ${out.runs.length} runs, ${loaded} weight tensors`);
}

async function recordCases() {
  const cases = [];
  for (const c of OP_CASES) {
    const {model, runs} = c.build();
    const {modelJson, weightData} = model.artifacts();
    const entry = {name: c.name, op: c.op, random: !!c.random, modelJson,
      weightData: weightData.toString('base64'), runs: []};
    const artifacts = {
      modelTopology: modelJson.modelTopology, format: 'graph-model',
      weightSpecs: modelJson.weightsManifest[0].weights, modelInitializer:
        modelJson.modelInitializer, signature: modelJson.signature,
      weightData: weightData.buffer.slice(weightData.byteOffset,
        weightData.byteOffset + weightData.byteLength),
    };
    let m;
    try {
      m = await tf.loadGraphModel(tf.io.fromMemory(artifacts));
      for (const run of runs) {
        try {
          entry.runs.push(await runModel(m, run));
        } catch (e) {
          entry.runs.push({inputs: run.inputs, outputs: run.outputs || null,
            async: !!run.async, error: String(e.message).slice(0, 300)});
        }
      }
    } catch (e) {
      entry.loadError = String(e.message).slice(0, 300);
    }
    if (m) m.dispose();
    cases.push(entry);
  }
  // Every op name the installed converter maps (its op lists are compiled into its bundle).
  const bundle = fs.readFileSync(require.resolve('@tensorflow/tfjs-converter'), 'utf8');
  const tfjsOpNames = [...new Set([...bundle.matchAll(/'tfOpName': '([A-Za-z0-9_]+)'/g)]
    .map((m) => m[1]))].sort();
  fs.writeFileSync(path.join(__dirname, 'results', 'graph_op_cases.json'),
    JSON.stringify({tfjs: '4.22.0', tfjsOpNames, cases}) + '\n');
  const failed = cases.filter((c) => c.loadError || c.runs.some((r) => r.error));
  console.log(`op cases: ${cases.length}, with a TF.js error: ${failed.map((c) => c.name)}`);
}

async function main() {
  await tf.setBackend('cpu');
  const only = process.argv.slice(2);
  for (const [name, build] of Object.entries(FIXTURES)) {
    if (only.length && !only.includes(name)) continue;
    const {model, runs} = build();
    const {modelJson, weightData} = model.artifacts();
    const dir = path.join(DIR, name);
    fs.mkdirSync(dir, {recursive: true});
    fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJson, null, 1) + '\n');
    fs.writeFileSync(path.join(dir, 'weights.bin'), weightData);
    await recordDir(name, runs);
  }
  for (const [name, runs] of Object.entries(PUBLISHED)) {
    if (only.length && !only.includes(name)) continue;
    await recordDir(name, runs);
  }
  if (!only.length || only.includes('op_cases')) await recordCases();
}

main().catch((e) => { console.error(e); process.exit(1); });
