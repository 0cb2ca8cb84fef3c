// One small graph model per TF op name TF.js's converter maps, for make_graph_models.js:
// each case feeds its first input(s) through Placeholders, stores the rest as Const weights,
// runs one node of the op (and reads each named output). `random` cases are compared by
// shape and dtype only.
'use strict';
const {A, Model, values} = require('./graph_builder');

const F = A.type('DT_FLOAT');
const I = A.type('DT_INT32');
const B = A.type('DT_BOOL');
const S = A.type('DT_STRING');

const X = (shape, seed = 1, dtype = 'float32', mod = 5) =>
  ({shape, dtype, values: values(shape, seed, dtype, mod)});
const V = (vals, shape = null, dtype = 'float32') =>
  ({shape: shape || [vals.length], dtype, values: vals});
const Vi = (vals, shape = null) => V(vals, shape, 'int32');
const Sc = (v, dtype = 'float32') => V([v], [], dtype);
const Si = (v) => Sc(v, 'int32');
const Vb = (vals, shape = null) => V(vals, shape, 'bool');
const Vs = (vals, shape = null) => V(vals, shape, 'string');
const pos = (spec) => ({...spec, values: spec.values.map((v) => Math.abs(v) + 0.1)});

const OP_CASES = [];

// op: the TF op; ins: value specs (the first `feed` are fed, the rest are Consts);
// opts: outputs (output indices, default [0]), feed (default 1), async, random, name.
function unit(op, ins, attr = {}, opts = {}) {
  const name = opts.name || op;
  const feed = opts.feed === undefined ? Math.min(1, ins.length) : opts.feed;
  OP_CASES.push({
    name, op,
    build() {
      const m = new Model();
      const g = m.graph;
      const inputs = {};
      const names = ins.map((spec, k) => {
        if (k < feed) {
          const n = `in${k}`;
          g.input(n, spec.shape, spec.dtype);
          inputs[n] = spec;
          return n;
        }
        return g.const(spec.values, spec.shape, spec.dtype, {name: `c${k}`});
      });
      const node = g.op(op, names, attr, 'op');
      const outputs = (opts.outputs || [0]).map((k) => (k ? `${node}:${k}` : node));
      return {model: m, runs: [{inputs, outputs, async: !!opts.async, once: !!opts.once}]};
    },
    random: !!opts.random,
  });
}

const x = X([2, 3, 4], 1);
const y = X([2, 3, 4], 2);
const xp = pos(x);
const img = X([1, 5, 5, 2], 3);
const imgNHWC = A.s('NHWC');

// ------------------------------------------------------------------- arithmetic
for (const op of ['Add', 'AddV2', 'Sub', 'RealDiv', 'Div', 'Mul', 'Maximum', 'Minimum',
  'SquaredDifference']) unit(op, [x, y], {T: F});
unit('DivNoNan', [x, V([0, 1, 2, 0], [4])], {T: F});
unit('FloorDiv', [x, pos(y)], {T: F});
unit('Mod', [Vi([7, -7, 9, 4]), Vi([3, 3, -4, 2])], {T: I});
unit('FloorMod', [x, pos(y)], {T: F});
unit('Pow', [xp, y], {T: F});
unit('AddN', [x, y, X([2, 3, 4], 3)], {T: F, N: A.i(3)}, {feed: 2});
unit('BiasAdd', [x, X([4], 4)], {T: F, data_format: imgNHWC});

// ------------------------------------------------------------------- basic math
const UNARY = ['Abs', 'Acos', 'Asin', 'Atan', 'Ceil', 'Cos', 'Cosh', 'Elu', 'Exp', 'Floor', 'Log',
  'Neg', 'Relu', 'Relu6', 'Selu', 'Sigmoid', 'Sin', 'Sinh', 'Sqrt', 'Rsqrt', 'Square', 'Tan',
  'Tanh', 'Sign', 'Round', 'Expm1', 'Log1p', 'Reciprocal', 'Softplus', 'Asinh', 'Acosh', 'Atanh',
  'Erf', 'IsNan', 'IsFinite', 'IsInf'];
for (const op of UNARY) unit(op, [x], {T: F});
unit('Atan2', [x, y], {T: F});
unit('ClipByValue', [x, Sc(-0.5), Sc(0.7)], {T: F});
unit('Prelu', [x, X([4], 5)], {T: F});
unit('LeakyRelu', [x], {T: F, alpha: A.f(0.1)});
unit('Complex', [X([2, 3], 1), X([2, 3], 2)], {T: F, Tout: A.type('DT_COMPLEX64')},
  {feed: 2, name: 'Complex'});
// Real, Imag and ComplexAbs read a Complex node.
for (const op of ['Real', 'Imag', 'ComplexAbs']) {
  OP_CASES.push({name: op, op, build() {
    const m = new Model();
    const g = m.graph;
    g.input('re', [2, 3]);
    g.input('im', [2, 3]);
    const c = g.op('Complex', ['re', 'im'], {T: F}, 'complex');
    g.op(op, [c], {T: A.type('DT_COMPLEX64'), Tout: F}, 'op');
    return {model: m, runs: [{inputs: {re: X([2, 3], 1), im: X([2, 3], 2)}, outputs: ['op']}]};
  }});
}

// ------------------------------------------------------------------- logical
for (const op of ['Equal', 'NotEqual', 'Greater', 'GreaterEqual', 'Less', 'LessEqual']) {
  unit(op, [Vi([1, 2, 3, 4, 5, 6]), Vi([3, 2, 1, 4, 6, 5])], {T: I});
}
const bA = Vb([true, false, true, false]);
const bB = Vb([true, true, false, false]);
for (const op of ['LogicalAnd', 'LogicalOr']) unit(op, [bA, bB]);
unit('LogicalNot', [bA]);
unit('Select', [Vb([true, false, true, false, false, true], [2, 3]), X([2, 3], 1), X([2, 3], 2)],
  {T: F});
unit('SelectV2', [Vb([true, false, true]), X([2, 3], 1), X([2, 3], 2)], {T: F});
unit('BitwiseAnd', [Vi([12, 10, 7, 255]), Vi([10, 6, 3, 15])], {T: I});

// ------------------------------------------------------------------- matrices
const m34 = X([3, 4], 6);
const m45 = X([4, 5], 7);
unit('MatMul', [m34, m45], {T: F, transpose_a: A.b(false), transpose_b: A.b(false)});
unit('MatMul', [X([4, 3], 6), X([5, 4], 7)], {T: F, transpose_a: A.b(true),
  transpose_b: A.b(true)}, {name: 'MatMul_transposed'});
unit('BatchMatMul', [x, X([2, 4, 2], 8)], {T: F, adj_x: A.b(false), adj_y: A.b(false)});
unit('BatchMatMulV2', [x, X([2, 2, 4], 8)], {T: F, adj_x: A.b(false), adj_y: A.b(true)});
unit('Transpose', [x, Vi([2, 0, 1])], {T: F});
unit('Einsum', [m34, m45], {T: F, N: A.i(2), equation: A.s('ij,jk->ik')}, {feed: 2});
unit('MatrixBandPart', [X([4, 4], 9), Si(1), Si(0)], {T: F});
unit('_FusedMatMul', [m34, m45, X([5], 10)], {T: F, transpose_a: A.b(false),
  transpose_b: A.b(false), fused_ops: A.listS(['BiasAdd', 'Relu']), num_args: A.i(1)});
unit('_FusedMatMul', [m34, m45, X([5], 10)], {T: F, transpose_a: A.b(false),
  transpose_b: A.b(false), fused_ops: A.listS(['BiasAdd', 'LeakyRelu']), num_args: A.i(1),
  leakyrelu_alpha: A.f(0.3)}, {name: '_FusedMatMul_leakyrelu'});

// ------------------------------------------------------------------- convolution
const conv = (extra = {}) => ({T: F, strides: A.listI([1, 1, 1, 1]), padding: A.s('SAME'),
  data_format: imgNHWC, dilations: A.listI([1, 1, 1, 1]), ...extra});
const pool = (extra = {}) => ({T: F, ksize: A.listI([1, 2, 2, 1]),
  strides: A.listI([1, 2, 2, 1]), padding: A.s('VALID'), data_format: imgNHWC, ...extra});
unit('AvgPool', [img], pool());
unit('MaxPool', [img], pool({padding: A.s('SAME')}));
unit('MaxPoolWithArgmax', [img], pool({include_batch_in_index: A.b(false)}),
  {outputs: [0, 1]});
const vol = X([1, 4, 4, 4, 2], 11);
const pool3 = {T: F, ksize: A.listI([1, 2, 2, 2, 1]), strides: A.listI([1, 1, 2, 2, 1]),
  padding: A.s('VALID'), data_format: A.s('NDHWC')};
unit('AvgPool3D', [vol], pool3);
unit('MaxPool3D', [vol], pool3);
unit('Conv1D', [X([1, 6, 2], 12), X([3, 2, 3], 13)], {T: F, stride: A.i(1),
  padding: A.s('SAME'), data_format: A.s('NWC'), dilation: A.i(1)});
unit('Conv2D', [img, X([3, 3, 2, 3], 14)], conv({strides: A.listI([1, 2, 2, 1])}));
unit('Conv2D', [img, X([2, 2, 2, 3], 14)], conv({padding: A.s('EXPLICIT'),
  explicit_paddings: A.listI([0, 0, 1, 2, 2, 1, 0, 0])}), {name: 'Conv2D_explicit'});
unit('Conv2D', [img, X([2, 2, 2, 3], 14)], conv({dilations: A.listI([1, 2, 2, 1])}),
  {name: 'Conv2D_dilated'});
unit('_FusedConv2D', [img, X([3, 3, 2, 3], 15), X([3], 16)], conv({
  fused_ops: A.listS(['BiasAdd', 'Elu']), num_args: A.i(1)}));
unit('_FusedConv2D', [img, X([3, 3, 2, 3], 15), X([3], 16), pos(X([3], 17))], conv({
  fused_ops: A.listS(['BiasAdd', 'Prelu']), num_args: A.i(2)}), {name: '_FusedConv2D_prelu'});
unit('_FusedConv2D', [img, X([3, 3, 2, 3], 15), X([3], 16)], conv({
  fused_ops: A.listS(['BiasAdd', 'Sigmoid']), num_args: A.i(1)}),
{name: '_FusedConv2D_sigmoid'});
unit('Conv2DBackpropInput', [Vi([1, 5, 5, 2]), X([3, 3, 2, 3], 18), X([1, 3, 3, 3], 19)],
  conv({strides: A.listI([1, 2, 2, 1])}), {feed: 0});
unit('DepthwiseConv2d', [img, X([3, 3, 2, 2], 20)], conv());
unit('DepthwiseConv2dNative', [img, X([3, 3, 2, 1], 20)], conv({strides: A.listI([1, 2, 2, 1]),
  padding: A.s('VALID')}));
unit('FusedDepthwiseConv2dNative', [img, X([3, 3, 2, 1], 21), X([2], 22)], conv({
  fused_ops: A.listS(['BiasAdd', 'Relu']), num_args: A.i(1)}));
unit('Conv3D', [vol, X([2, 2, 2, 2, 3], 23)], {T: F, strides: A.listI([1, 1, 1, 1, 1]),
  padding: A.s('SAME'), data_format: A.s('NDHWC'), dilations: A.listI([1, 1, 1, 1, 1])});
unit('Dilation2D', [img, X([2, 2, 2], 24)], {T: F, strides: A.listI([1, 1, 1, 1]),
  rates: A.listI([1, 1, 1, 1]), padding: A.s('SAME')});

// ------------------------------------------------------------------- creation
unit('Fill', [Vi([2, 3]), Sc(1.5)], {T: F, index_type: I}, {feed: 0});
unit('LinSpace', [Sc(-1), Sc(2), Si(7)], {T: F, Tidx: I}, {feed: 0});
unit('OneHot', [Vi([0, 2, 1, 3]), Si(4), Sc(5), Sc(-1)], {T: F, TI: I, axis: A.i(-1)});
unit('Ones', [Vi([2, 2])], {T: F}, {feed: 0});
unit('OnesLike', [x], {T: F});
unit('Zeros', [Vi([3, 1])], {T: F}, {feed: 0});
unit('ZerosLike', [x], {T: F});
unit('Range', [Sc(1, 'int32'), Sc(10, 'int32'), Sc(3, 'int32')], {Tidx: I}, {feed: 0});
unit('RandomStandardNormal', [Vi([3, 4])], {dtype: F, T: I, seed: A.i(1), seed2: A.i(2)},
  {feed: 0, random: true});
unit('RandomUniform', [Vi([3, 4])], {dtype: F, T: I, seed: A.i(1), seed2: A.i(2)},
  {feed: 0, random: true});
unit('RandomUniformInt', [Vi([3, 4]), Si(0), Si(10)], {Tout: I, T: I, seed: A.i(1),
  seed2: A.i(2)}, {feed: 0, random: true});
unit('TruncatedNormal', [Vi([3, 4])], {dtype: F, T: I, seed: A.i(1), seed2: A.i(2)},
  {feed: 0, random: true});
unit('Multinomial', [X([2, 4], 25), Si(3)], {T: F, seed: A.i(1), seed2: A.i(2),
  output_dtype: I}, {random: true});

// ------------------------------------------------------------------- dynamic
const boxes = V([0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9, 0, 10, 1, 11, 0, 10.1, 1, 11.1,
  0, 100, 1, 101], [6, 4]);
const scores = V([0.9, 0.75, 0.6, 0.95, 0.5, 0.3]);
unit('NonMaxSuppressionV2', [boxes, scores, Si(3), Sc(0.5)], {T: F}, {feed: 2, async: true});
unit('NonMaxSuppressionV3', [boxes, scores, Si(5), Sc(0.5), Sc(0.55)], {T: F},
  {feed: 2, async: true});
unit('NonMaxSuppressionV4', [boxes, scores, Si(5), Sc(0.5), Sc(0.4)], {T: F,
  pad_to_max_output_size: A.b(true)}, {feed: 2, async: true, outputs: [0, 1]});
unit('NonMaxSuppressionV5', [boxes, scores, Si(5), Sc(0.5), Sc(0.0), Sc(0.5)], {T: F},
  {feed: 2, async: true, outputs: [0, 1]});
unit('Where', [Vb([true, false, true, true, false, true], [2, 3])], {T: B}, {async: true});
unit('ListDiff', [Vi([1, 2, 3, 4, 5, 6]), Vi([2, 4, 7])], {T: I, out_idx: I},
  {feed: 2, async: true, outputs: [0, 1]});

// ------------------------------------------------------------------- evaluation
unit('LowerBound', [V([1, 2, 4, 8, 3, 5, 7, 9], [2, 4]), V([0, 4, 9, 6, 3, 10], [2, 3])],
  {T: F, out_type: I}, {feed: 2});
unit('UpperBound', [V([1, 2, 4, 8, 3, 5, 7, 9], [2, 4]), V([0, 4, 9, 6, 3, 10], [2, 3])],
  {T: F, out_type: I}, {feed: 2});
unit('TopKV2', [x, Si(2)], {T: F, sorted: A.b(true)}, {outputs: [0, 1]});
unit('Unique', [Vi([4, 1, 4, 2, 1, 7])], {T: I, out_idx: I}, {outputs: [0, 1], async: true});
unit('UniqueV2', [Vi([1, 2, 1, 2, 3, 4], [3, 2]), Vi([0])], {T: I, Taxis: I, out_idx: I},
  {outputs: [0, 1], async: true});

// ------------------------------------------------------------------- graph
// Both return a tensor they were given (the weight, the input): one call, as TF.js does.
unit('PlaceholderWithDefault', [x], {dtype: F, shape: A.shape([2, 3, 4])}, {feed: 0, once: true});
unit('Identity', [x], {T: F});
unit('IdentityN', [x, y], {T: A.listType(['DT_FLOAT', 'DT_FLOAT'])}, {feed: 2, outputs: [0, 1]});
unit('Snapshot', [x], {T: F});
unit('Rank', [x], {T: F});
unit('Size', [x], {T: F, out_type: I});
unit('Shape', [x], {T: F, out_type: I});
unit('ShapeN', [x, X([5], 2)], {T: F, N: A.i(2), out_type: I}, {feed: 2, outputs: [0, 1]});
unit('Print', [x, X([3], 2)], {T: F, message: A.s('hello'), first_n: A.i(-1),
  summarize: A.i(3), U: A.listType(['DT_FLOAT'])}, {once: true});
unit('StopGradient', [x], {T: F});
unit('FakeQuantWithMinMaxVars', [x, Sc(-1), Sc(1)], {num_bits: A.i(8),
  narrow_range: A.b(false)});
// NoOp: a node read only through a control input.
OP_CASES.push({name: 'NoOp', op: 'NoOp', build() {
  const m = new Model();
  const g = m.graph;
  g.input('in0', [2, 3, 4]);
  g.op('NoOp', [], {}, 'noop');
  g.op('Identity', ['in0', '^noop'], {T: F}, 'op');
  return {model: m, runs: [{inputs: {in0: x}, outputs: ['op']}]};
}});

// ------------------------------------------------------------------- image
unit('ResizeBilinear', [img, Vi([7, 3])], {T: F, align_corners: A.b(false),
  half_pixel_centers: A.b(true)});
unit('ResizeNearestNeighbor', [img, Vi([3, 8])], {T: F, align_corners: A.b(true),
  half_pixel_centers: A.b(false)});
unit('CropAndResize', [img, V([0, 0, 1, 1, 0.2, 0.1, 0.7, 0.9], [2, 4]), Vi([0, 0]),
  Vi([3, 3])], {T: F, method: A.s('bilinear'), extrapolation_value: A.f(0)});
unit('ImageProjectiveTransformV3', [img, V([1, 0.1, 0.5, 0.2, 1, -0.3, 0, 0], [1, 8]),
  Vi([5, 5]), Sc(0.5)], {dtype: F, interpolation: A.s('BILINEAR'),
  fill_mode: A.s('CONSTANT')});

// ------------------------------------------------------------------- normalization
unit('EuclideanNorm', [x, Vi([1])], {T: F, keep_dims: A.b(true), Tidx: I});
for (const op of ['FusedBatchNorm', 'FusedBatchNormV2', 'FusedBatchNormV3']) {
  unit(op, [img, X([2], 26), X([2], 27), X([2], 28), pos(X([2], 29))], {T: F, U: F,
    epsilon: A.f(0.01), data_format: imgNHWC, is_training: A.b(false)});
}
unit('LRN', [img], {T: F, depth_radius: A.i(1), bias: A.f(1), alpha: A.f(0.5),
  beta: A.f(0.75)});
unit('Softmax', [x], {T: F});
unit('LogSoftmax', [x], {T: F});

// ------------------------------------------------------------------- reduction
for (const op of ['Max', 'Mean', 'Min', 'Sum', 'Prod']) {
  unit(op, [x, Vi([1])], {T: F, Tidx: I, keep_dims: A.b(false)});
}
unit('Sum', [x, Vi([0, 2])], {T: F, Tidx: I, keep_dims: A.b(true)}, {name: 'Sum_keep_dims'});
const bools = Vb([true, false, true, true, true, true], [2, 3]);
unit('All', [bools, Vi([1])], {Tidx: I, keep_dims: A.b(false)});
unit('Any', [bools, Vi([0])], {Tidx: I, keep_dims: A.b(false)});
unit('ArgMax', [x, Si(2)], {T: F, Tidx: I, output_type: I});
unit('ArgMin', [x, Si(1)], {T: F, Tidx: I, output_type: I});
unit('Cumsum', [x, Si(1)], {T: F, Tidx: I, exclusive: A.b(true), reverse: A.b(false)});
unit('Cumprod', [x, Si(2)], {T: F, Tidx: I, exclusive: A.b(false), reverse: A.b(true)});
unit('Bincount', [Vi([1, 1, 3, 0, 4, 3]), Si(5), V([])], {T: F});
unit('DenseBincount', [Vi([1, 1, 3, 0, 4, 3]), Si(5), V([0.5, 1, 2, 3, 4, 5])], {T: F,
  Tidx: I, binary_output: A.b(false)});

// ------------------------------------------------------------------- slice and join
unit('ConcatV2', [x, y, Si(2)], {T: F, N: A.i(2), Tidx: I}, {feed: 2});
unit('Concat', [Si(1), x, y], {T: F, N: A.i(2)}, {feed: 0});
unit('GatherV2', [x, Vi([2, 0]), Si(1)], {Tparams: F, Tindices: I, Taxis: I,
  batch_dims: A.i(0)});
unit('Gather', [x, Vi([1, 0, 1])], {Tparams: F, Tindices: I});
unit('Reverse', [x, Vb([true, false, true])], {T: F});
unit('ReverseV2', [x, Vi([1])], {T: F, Tidx: I});
unit('Slice', [x, Vi([0, 1, 1]), Vi([2, 2, -1])], {T: F, Index: I});
unit('StridedSlice', [x, Vi([0, 2, 0]), Vi([2, 0, 4]), Vi([1, -1, 2])], {T: F, Index: I,
  begin_mask: A.i(1), end_mask: A.i(0), ellipsis_mask: A.i(0), new_axis_mask: A.i(0),
  shrink_axis_mask: A.i(0)});
unit('StridedSlice', [x, Vi([1, 0]), Vi([2, 0]), Vi([1, 1])], {T: F, Index: I,
  begin_mask: A.i(0), end_mask: A.i(2), ellipsis_mask: A.i(0), new_axis_mask: A.i(0),
  shrink_axis_mask: A.i(1)}, {name: 'StridedSlice_shrink'});
unit('Pack', [X([3], 1), X([3], 2), X([3], 3)], {T: F, N: A.i(3), axis: A.i(1)}, {feed: 3});
unit('Unpack', [X([3, 2], 1)], {T: F, num: A.i(3), axis: A.i(0)}, {outputs: [0, 1, 2]});
unit('Tile', [X([2, 3], 1), Vi([2, 1])], {T: F, Tmultiples: I});
unit('Split', [Si(2), x], {T: F, num_split: A.i(2)}, {feed: 0, outputs: [0, 1]});
unit('SplitV', [x, Vi([1, 2]), Si(1)], {T: F, Tlen: I, num_split: A.i(2)}, {outputs: [0, 1]});
unit('ScatterNd', [Vi([0, 2, 3], [3, 1]), V([1, 2, 3]), Vi([5])], {T: F, Tindices: I});
unit('GatherNd', [x, Vi([0, 1, 1, 2], [2, 2])], {Tparams: F, Tindices: I});
unit('SparseToDense', [Vi([0, 2, 3], [3, 1]), Vi([5]), V([1, 2, 3]), Sc(-1)], {T: F,
  Tindices: I, validate_indices: A.b(true)}, {feed: 0});
unit('TensorScatterUpdate', [X([4, 2], 1), Vi([1, 3], [2, 1]), V([9, 9, 8, 8], [2, 2])],
  {T: F, Tindices: I});

// ------------------------------------------------------------------- sparse
unit('SparseFillEmptyRows', [Vi([0, 0, 1, 0, 1, 3, 3, 1], [4, 2]), V([1, 2, 3, 4]),
  Vi([5, 4]), Sc(-1)], {T: F}, {feed: 0, outputs: [0, 1, 2, 3], async: true});
unit('SparseReshape', [Vi([0, 0, 1, 0, 1, 3], [3, 2]), Vi([2, 4]), Vi([4, -1])], {},
  {feed: 0, outputs: [0, 1]});
unit('SparseSegmentMean', [X([4, 3], 1), Vi([0, 1, 3]), Vi([0, 0, 2])], {T: F, Tidx: I,
  Tsegmentids: I});
unit('SparseSegmentSum', [X([4, 3], 1), Vi([0, 1, 3]), Vi([0, 0, 2])], {T: F, Tidx: I,
  Tsegmentids: I});

// ------------------------------------------------------------------- spectral
for (const op of ['FFT', 'IFFT']) {
  OP_CASES.push({name: op, op, build() {
    const m = new Model();
    const g = m.graph;
    g.input('re', [2, 4]);
    g.input('im', [2, 4]);
    const c = g.op('Complex', ['re', 'im'], {T: F}, 'complex');
    const f = g.op(op, [c], {Tcomplex: A.type('DT_COMPLEX64')}, 'op');
    g.op('Real', [f], {T: A.type('DT_COMPLEX64'), Tout: F}, 'real');
    g.op('Imag', [f], {T: A.type('DT_COMPLEX64'), Tout: F}, 'imag');
    return {model: m, runs: [{inputs: {re: X([2, 4], 1), im: X([2, 4], 2)},
      outputs: ['real', 'imag']}]};
  }});
}
OP_CASES.push({name: 'RFFT', op: 'RFFT', build() {
  const m = new Model();
  const g = m.graph;
  g.input('in0', [2, 6]);
  const len = g.ints([6], 'fft_length');
  const f = g.op('RFFT', ['in0', len], {Treal: F, Tcomplex: A.type('DT_COMPLEX64')}, 'op');
  g.op('ComplexAbs', [f], {T: A.type('DT_COMPLEX64'), Tout: F}, 'abs');
  return {model: m, runs: [{inputs: {in0: X([2, 6], 3)}, outputs: ['abs']}]};
}});
OP_CASES.push({name: 'IRFFT', op: 'IRFFT', build() {
  const m = new Model();
  const g = m.graph;
  g.input('re', [2, 4]);
  g.input('im', [2, 4]);
  const c = g.op('Complex', ['re', 'im'], {T: F}, 'complex');
  const len = g.ints([6], 'fft_length');
  g.op('IRFFT', [c, len], {Treal: F, Tcomplex: A.type('DT_COMPLEX64')}, 'op');
  return {model: m, runs: [{inputs: {re: X([2, 4], 1), im: X([2, 4], 2)}, outputs: ['op']}]};
}});

// ------------------------------------------------------------------- string
const words = Vs(['the quick fox', 'a b', '', 'jumps over'], [4]);
unit('StaticRegexReplace', [words], {pattern: A.s('[aeiou]'), rewrite: A.s('_'),
  replace_global: A.b(true)});
unit('StringNGrams', [Vs(['a', 'b', 'c', 'd', 'e']), Vi([0, 3, 5])], {separator: A.s('|'),
  ngram_widths: A.listI([1, 2]), left_pad: A.s('<'), right_pad: A.s('>'), pad_width: A.i(1),
  preserve_short_sequences: A.b(false), Tsplits: I}, {feed: 2, outputs: [0, 1]});
unit('StringSplit', [words, Sc(' ', 'string')], {skip_empty: A.b(true)},
  {outputs: [0, 1, 2]});
unit('StringToHashBucketFast', [words], {num_buckets: A.i(100)});

// ------------------------------------------------------------------- transformation
unit('Cast', [x], {SrcT: F, DstT: I, Truncate: A.b(false)});
unit('Cast', [Vi([0, 1, 2])], {SrcT: I, DstT: B}, {name: 'Cast_bool'});
unit('ExpandDims', [x, Si(-1)], {T: F, Tdim: I});
unit('MirrorPad', [X([2, 3], 1), Vi([1, 1, 2, 2], [2, 2])], {T: F, Tpaddings: I,
  mode: A.s('REFLECT')});
unit('MirrorPad', [X([2, 3], 1), Vi([1, 1, 2, 2], [2, 2])], {T: F, Tpaddings: I,
  mode: A.s('SYMMETRIC')}, {name: 'MirrorPad_symmetric'});
unit('Pad', [X([2, 3], 1), Vi([1, 0, 0, 2], [2, 2])], {T: F, Tpaddings: I});
unit('PadV2', [X([2, 3], 1), Vi([1, 0, 0, 2], [2, 2]), Sc(7)], {T: F, Tpaddings: I});
unit('Reshape', [x, Vi([4, -1])], {T: F, Tshape: I});
unit('EnsureShape', [x], {T: F, shape: A.shape([2, -1, 4])});
unit('Squeeze', [X([1, 3, 1, 2], 1)], {T: F, squeeze_dims: A.listI([0])});
unit('Squeeze', [X([1, 3, 1, 2], 1)], {T: F}, {name: 'Squeeze_all'});
unit('SpaceToBatchND', [X([1, 4, 4, 1], 1), Vi([2, 2]), Vi([0, 0, 0, 0], [2, 2])], {T: F,
  Tblock_shape: I, Tpaddings: I});
unit('BatchToSpaceND', [X([4, 2, 2, 1], 1), Vi([2, 2]), Vi([0, 0, 0, 0], [2, 2])], {T: F,
  Tblock_shape: I, Tcrops: I});
unit('DepthToSpace', [X([1, 2, 2, 4], 1)], {T: F, block_size: A.i(2),
  data_format: imgNHWC});
unit('BroadcastTo', [X([1, 3], 1), Vi([2, 3])], {T: F, Tidx: I});
unit('BroadcastArgs', [Vi([2, 1, 3]), Vi([4, 1])], {T: I}, {feed: 2});

// ------------------------------------------------------------------- ragged
unit('RaggedGather', [Vi([0, 2, 3, 3, 5]), V([1, 2, 3, 4, 5]), Vi([3, 0])], {Tvalues: F,
  Tindices: I, Tsplits: I, PARAMS_RAGGED_RANK: A.i(1), OUTPUT_RAGGED_RANK: A.i(1)},
{feed: 0, outputs: [0, 1]});
unit('RaggedRange', [Vi([0, 5]), Vi([3, 8]), Vi([1, 2])], {T: I, Tsplits: I},
  {feed: 0, outputs: [0, 1]});
unit('RaggedTensorToTensor', [Vi([3, 4]), V([1, 2, 3, 4, 5]), Sc(-1), Vi([0, 2, 2, 5])],
  {T: F, Tindex: I, Tshape: I, num_row_partition_tensors: A.i(1),
    row_partition_types: A.listS(['ROW_SPLITS'])}, {feed: 0});

// ------------------------------------------------------------------- control (TensorList etc.)
function listCase(name, op, build) {
  OP_CASES.push({name, op, build() {
    const m = new Model();
    const g = m.graph;
    g.input('in0', [3, 2]);
    const outputs = build(g, 'in0');
    return {model: m, runs: [{inputs: {in0: X([3, 2], 1)}, outputs, async: true}]};
  }});
}
const EL = {element_dtype: F, shape_type: I};
const minus1 = (g) => g.scalar(-1, 'int32');
listCase('TensorListFromTensor', 'TensorListFromTensor', (g, t) => {
  const l = g.op('TensorListFromTensor', [t, g.ints([2])], EL, 'list');
  return [g.op('TensorListStack', [l, minus1(g)], {element_dtype: F}, 'op')];
});
listCase('TensorListGetItem', 'TensorListGetItem', (g, t) => {
  const l = g.op('TensorListFromTensor', [t, g.ints([2])], EL, 'list');
  return [g.op('TensorListGetItem', [l, g.scalar(1, 'int32'), g.ints([2])], EL, 'op')];
});
listCase('TensorListSetItem', 'TensorListSetItem', (g, t) => {
  const l = g.op('TensorListFromTensor', [t, g.ints([2])], EL, 'list');
  const v = g.const([7, 8], [2]);
  const l2 = g.op('TensorListSetItem', [l, g.scalar(2, 'int32'), v], EL, 'op');
  return [g.op('TensorListStack', [l2, minus1(g)], {element_dtype: F}, 'stack')];
});
listCase('TensorListPushBack', 'TensorListPushBack', (g, t) => {
  const l = g.op('EmptyTensorList', [g.ints([2]), g.scalar(5, 'int32')], EL, 'empty');
  const row = g.op('StridedSlice', [t, g.ints([0]), g.ints([1]), g.ints([1])], {T: F,
    Index: I, shrink_axis_mask: A.i(1)}, 'row');
  const l2 = g.op('TensorListPushBack', [l, row], EL, 'op');
  const l3 = g.op('TensorListPushBack', [l2, row], EL, 'push2');
  const len = g.op('TensorListLength', [l3], {}, 'length');
  const stack = g.op('TensorListStack', [l3, minus1(g)], {element_dtype: F}, 'stack');
  // Popping changes the list: it runs after the reads (control inputs).
  const popped = g.op('TensorListPopBack', [l3, g.ints([2]), `^${len}`, `^${stack}`], EL, 'pop');
  const after = g.op('TensorListLength', [l3, `^${popped}`], {}, 'length_after');
  // TF.js's TensorListPopBack returns the element as its output 0 (TensorFlow's output 1).
  return [stack, len, popped, after];
});
listCase('TensorListReserve', 'TensorListReserve', (g, t) => {
  const l = g.op('TensorListReserve', [g.ints([2]), g.scalar(3, 'int32')], EL, 'op');
  const rows = g.op('Unpack', [t], {T: F, num: A.i(3), axis: A.i(0)}, 'rows');
  let cur = l;
  for (const k of [0, 1, 2]) {
    cur = g.op('TensorListSetItem', [cur, g.scalar(2 - k, 'int32'), `${rows}:${k}`], EL,
      `set${k}`);
  }
  const resized = g.op('TensorListResize', [cur, g.scalar(2, 'int32')], {}, 'resize');
  return [g.op('TensorListStack', [cur, minus1(g)], {element_dtype: F}, 'stack'),
    g.op('TensorListGather', [resized, g.ints([1, 0]), g.ints([2])], EL, 'gather')];
});
listCase('TensorListScatter', 'TensorListScatter', (g, t) => {
  const l = g.op('TensorListScatter', [t, g.ints([2, 0, 1]), g.ints([2])], EL, 'op');
  return [g.op('TensorListConcat', [l], {element_dtype: F, element_shape: A.shape([2])},
    'concat')];
});
listCase('TensorListScatterV2', 'TensorListScatterV2', (g, t) => {
  const l = g.op('TensorListScatterV2', [t, g.ints([3, 0, 1]), g.ints([2]),
    g.scalar(4, 'int32')], EL, 'op');
  return [g.op('TensorListLength', [l], {}, 'length')];
});
listCase('TensorListSplit', 'TensorListSplit', (g, t) => {
  const l = g.op('TensorListSplit', [t, minus1(g), g.ints([1, 1, 1])], EL, 'op');
  return [g.op('TensorListStack', [l, minus1(g)], {element_dtype: F}, 'stack'),
    g.op('TensorListConcatV2', [l, g.ints([2]), g.ints([0])], {element_dtype: F,
      element_shape: A.shape([2])}, 'concat')];
});
// TensorArray ops outside a loop.
listCase('TensorArrayV3', 'TensorArrayV3', (g, t) => {
  const ta = g.op('TensorArrayV3', [g.scalar(3, 'int32')], {dtype: F,
    element_shape: A.shape([2]), dynamic_size: A.b(false), clear_after_read: A.b(false),
    identical_element_shapes: A.b(true), tensor_array_name: A.s('')}, 'ta');
  const sc = g.op('TensorArrayScatterV3', [ta, g.ints([2, 0, 1]), t, `${ta}:1`], {T: F},
    'scatter');
  const rd = g.op('TensorArrayReadV3', [ta, g.scalar(0, 'int32'), sc], {dtype: F}, 'read');
  const ga = g.op('TensorArrayGatherV3', [ta, g.ints([1, 2]), sc], {dtype: F,
    element_shape: A.shape([2])}, 'gather');
  const cc = g.op('TensorArrayConcatV3', [ta, sc], {dtype: F}, 'concat');
  const sz = g.op('TensorArraySizeV3', [ta, sc], {}, 'size');
  return [rd, ga, cc, sz];
});
listCase('TensorArraySplitV3', 'TensorArraySplitV3', (g, t) => {
  const ta = g.op('TensorArrayV3', [g.scalar(3, 'int32')], {dtype: F,
    element_shape: A.shape([2]), dynamic_size: A.b(true), clear_after_read: A.b(false),
    identical_element_shapes: A.b(true), tensor_array_name: A.s('')}, 'ta');
  const sp = g.op('TensorArraySplitV3', [ta, t, g.ints([1, 1, 1]), `${ta}:1`], {T: F}, 'split');
  const rd = g.op('TensorArrayReadV3', [ta, g.scalar(1, 'int32'), sp], {dtype: F}, 'read');
  const w = g.op('TensorArrayWriteV3', [ta, g.scalar(3, 'int32'), g.const([1, 2], [2]), sp],
    {T: F}, 'write');
  const size = g.op('TensorArraySizeV3', [ta, w], {}, 'size');
  g.op('TensorArrayCloseV3', [ta], {}, 'close');
  return [rd, size];
});

module.exports = {OP_CASES};
