// Runs TF.js 4.22.0's layer families (advanced activations, convolution, depthwise convolution,
// padding, pooling, normalization, embeddings, merge, noise, preprocessing) on the cpu backend
// and writes results/layers_families.json, which tests/layers/test_<module>.py replay with
// tidytensor (the convolutional_depthwise cases in test_convolutional.py).
// Run: cd tests/golden && node layers_families.js
//
// Each case builds ONE layer with tf.layers[factory](args) (args get the case's name), puts it
// in a model — a one-layer tf.sequential when it has one input (args carry inputShape), else a
// tf.model over tf.input()s named <name>_in<j> — sets every weight to fixed values, and records:
//   weights: [{name (the part after 'layer/'), shape, values}] in layer.weights order;
//   inputs: [{shape, dtype, values}] (batch included);
//   output: predict()'s {shape, dtype, values};
//   output_shape: the model's symbolic output shape;
//   config: the layer's entry of model.toJSON() (snake_case, as model.json has it);
//   summary: model.summary()'s lines;
//   training (options.training): {output, weights} of layer.apply(inputs, {training: true}).
// options.mode 'apply' skips the model (for layers whose output shape TF.js cannot infer):
// the layer is applied to the inputs `applyTimes` times (outputs: one per call); config is
// then taken from a tf.model wrapping the layer afterwards.
// ERROR_CASES record the message TF.js throws for bad arguments or inputs.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

// Fixed, JSON-exact values: inputs in [-2, 2], weights in [-0.5, 0.5] (3 decimals).
function inputValues(n, salt) {
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push(Math.round(Math.cos(0.53 * i + 0.2 * salt + 0.1) * 1000) / 500);
  }
  return out;
}
function weightValues(n, k, positive) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const v = Math.round(Math.sin(0.37 * i + 1.1 * k + 0.3) * 1000) / 2000;
    out.push(positive ? 0.5 + Math.abs(v) : v);
  }
  return out;
}
const prod = (s) => s.reduce((a, b) => a * b, 1);

// [module, name, factory, args, inputShapes (batch included), options]
//   options.values: explicit input values (one array per input); options.dtype: input dtype
//   options.training: also record a training=True call
//   options.skip: list of fields the Python side does not compare, each with a reason in
//     `why` (TF.js bugs that tidytensor fixes)
//   options.configDrop: keys tidytensor adds to this case's config (documented deviations)
// CenterCrop.computeOutputShape overwrites its argument in TF.js, so a model's input shape
// becomes the cropped one and predict() refuses the real input: apply the layer directly.
const CENTER_CROP_OPTS = {mode: 'apply', skip: ['output_shape', 'summary'],
  why: 'TF.js CenterCrop.computeOutputShape mutates the input shape of the model'};
// Resizing.call hands the executor's input list to resizeBilinear in TF.js, so it fails inside
// a model, and its output shape drops the batch axis: apply the layer directly.
const RESIZING_OPTS = {mode: 'apply', skip: ['output_shape', 'summary'],
  why: 'TF.js Resizing fails inside models; its output shape is [height, width, shape[2]]'};
// CategoryEncoding.computeOutputShape also overwrites its argument: apply directly.
const CATEGORY_OPTS = {mode: 'apply', skip: ['output_shape', 'summary'],
  why: 'TF.js CategoryEncoding.computeOutputShape mutates the input shape of the model'};
const CASES = [
  // ---------------------------------------------------------------- advanced activations
  ['advanced_activations', 'relu_default', 'reLU', {}, [[2, 5]]],
  ['advanced_activations', 'relu_max', 'reLU', {maxValue: 1.5}, [[2, 5]]],
  ['advanced_activations', 'leaky_default', 'leakyReLU', {}, [[2, 5]]],
  ['advanced_activations', 'leaky_alpha', 'leakyReLU', {alpha: 0.1}, [[2, 3, 2]]],
  ['advanced_activations', 'prelu_default', 'prelu', {}, [[2, 4]]],
  ['advanced_activations', 'prelu_shared', 'prelu', {sharedAxes: [1, 2]}, [[2, 2, 3, 2]]],
  ['advanced_activations', 'elu_default', 'elu', {}, [[2, 5]]],
  ['advanced_activations', 'thresholded', 'thresholdedReLU', {theta: 0.5}, [[2, 5]]],
  ['advanced_activations', 'thresholded_default', 'thresholdedReLU', {}, [[3, 2]]],
  ['advanced_activations', 'softmax_default', 'softmax', {}, [[2, 4]]],
  ['advanced_activations', 'softmax_last', 'softmax', {axis: -1}, [[2, 3, 4]]],
  ['advanced_activations', 'softmax_axes', 'softmax', {axis: [1, 2]}, [[2, 3, 2]]],
  // ------------------------------------------------------------------------ convolution
  ['convolutional', 'conv1d_basic', 'conv1d', {filters: 2, kernelSize: 3}, [[2, 5, 3]]],
  ['convolutional', 'conv1d_same_stride', 'conv1d',
    {filters: 3, kernelSize: 2, strides: 2, padding: 'same', activation: 'relu'}, [[2, 5, 2]]],
  ['convolutional', 'conv1d_dilated', 'conv1d',
    {filters: 2, kernelSize: 2, dilationRate: 2, useBias: false, activation: 'tanh'}, [[1, 6, 2]]],
  ['convolutional', 'conv2d_basic', 'conv2d', {filters: 3, kernelSize: 3}, [[2, 5, 5, 2]]],
  ['convolutional', 'conv2d_same_stride_relu', 'conv2d',
    {filters: 2, kernelSize: 3, strides: 2, padding: 'same', activation: 'relu'}, [[1, 5, 5, 2]]],
  ['convolutional', 'conv2d_dilated_tanh', 'conv2d',
    {filters: 2, kernelSize: [2, 3], dilationRate: 2, activation: 'tanh'}, [[1, 6, 7, 1]]],
  ['convolutional', 'conv2d_rect_elu', 'conv2d',
    {filters: 2, kernelSize: [2, 3], strides: [1, 2], activation: 'elu'}, [[2, 4, 6, 2]]],
  ['convolutional', 'conv2d_channels_first', 'conv2d',
    {filters: 2, kernelSize: 2, dataFormat: 'channelsFirst', activation: 'sigmoid'},
    [[2, 3, 4, 4]]],
  ['convolutional', 'conv2d_no_bias', 'conv2d',
    {filters: 1, kernelSize: 1, useBias: false}, [[1, 3, 3, 2]]],
  ['convolutional', 'conv2d_transpose_valid', 'conv2dTranspose',
    {filters: 2, kernelSize: 3}, [[2, 3, 3, 2]]],
  ['convolutional', 'conv2d_transpose_same_stride', 'conv2dTranspose',
    {filters: 3, kernelSize: 3, strides: 2, padding: 'same', activation: 'relu'}, [[1, 3, 3, 2]]],
  ['convolutional', 'conv2d_transpose_channels_first', 'conv2dTranspose',
    {filters: 2, kernelSize: 2, strides: 2, dataFormat: 'channelsFirst'}, [[1, 2, 3, 3]]],
  ['convolutional', 'conv3d_basic', 'conv3d', {filters: 2, kernelSize: 2}, [[2, 3, 4, 4, 2]]],
  ['convolutional', 'conv3d_same_stride', 'conv3d',
    {filters: 2, kernelSize: [2, 3, 3], strides: 2, padding: 'same', activation: 'relu'},
    [[1, 3, 4, 5, 1]]],
  ['convolutional', 'conv3d_channels_first', 'conv3d',
    {filters: 2, kernelSize: 2, dataFormat: 'channelsFirst'}, [[1, 2, 3, 3, 3]]],
  ['convolutional', 'conv3d_transpose_valid', 'conv3dTranspose',
    {filters: 2, kernelSize: 2, strides: 2}, [[1, 2, 3, 3, 2]]],
  ['convolutional', 'conv3d_transpose_same', 'conv3dTranspose',
    {filters: 1, kernelSize: 3, padding: 'same'}, [[2, 2, 2, 3, 2]]],
  ['convolutional', 'separable_basic', 'separableConv2d',
    {filters: 3, kernelSize: 3}, [[2, 5, 5, 2]]],
  ['convolutional', 'separable_same_stride_dm2', 'separableConv2d',
    {filters: 2, kernelSize: 2, strides: 2, padding: 'same', depthMultiplier: 2,
      activation: 'relu'}, [[1, 4, 5, 3]],
    {configDrop: ['depth_multiplier'],
      why: 'TF.js drops depthMultiplier from the config; tidytensor keeps it when it is not 1'}],
  ['convolutional_depthwise', 'depthwise_basic', 'depthwiseConv2d', {kernelSize: 3},
    [[2, 5, 5, 2]]],
  ['convolutional_depthwise', 'depthwise_dm2_same_stride', 'depthwiseConv2d',
    {kernelSize: [2, 3], depthMultiplier: 2, strides: 2, padding: 'same', activation: 'relu'},
    [[1, 5, 6, 2]]],
  ['convolutional_depthwise', 'depthwise_channels_first', 'depthwiseConv2d',
    {kernelSize: 2, dataFormat: 'channelsFirst'}, [[1, 2, 4, 4]]],
  ['convolutional', 'cropping_pairs', 'cropping2D', {cropping: [[1, 0], [0, 2]]}, [[2, 4, 5, 2]]],
  ['convolutional', 'cropping_int', 'cropping2D', {cropping: 1}, [[1, 4, 4, 1]]],
  ['convolutional', 'cropping_sym_channels_first', 'cropping2D',
    {cropping: [1, 2], dataFormat: 'channelsFirst'}, [[1, 2, 4, 6]]],
  ['convolutional', 'upsampling_default', 'upSampling2d', {}, [[1, 2, 3, 2]]],
  ['convolutional', 'upsampling_bilinear', 'upSampling2d',
    {size: [2, 3], interpolation: 'bilinear'}, [[1, 2, 2, 1]]],
  ['convolutional', 'upsampling_channels_first', 'upSampling2d',
    {size: [3, 2], dataFormat: 'channelsFirst'}, [[1, 2, 2, 3]]],
  // ---------------------------------------------------------------------------- padding
  ['padding', 'zero_padding_default', 'zeroPadding2d', {}, [[1, 2, 3, 2]]],
  ['padding', 'zero_padding_int', 'zeroPadding2d', {padding: 2}, [[1, 2, 2, 1]]],
  ['padding', 'zero_padding_sym', 'zeroPadding2d', {padding: [1, 2]}, [[2, 2, 2, 1]]],
  ['padding', 'zero_padding_pairs', 'zeroPadding2d', {padding: [[1, 0], [2, 1]]}, [[1, 2, 2, 2]]],
  ['padding', 'zero_padding_channels_first', 'zeroPadding2d',
    {padding: [[0, 1], [1, 0]], dataFormat: 'channelsFirst'}, [[1, 2, 2, 3]]],
  // ---------------------------------------------------------------------------- pooling
  ['pooling', 'max_pool1d_default', 'maxPooling1d', {}, [[2, 6, 3]]],
  ['pooling', 'max_pool1d_same_stride', 'maxPooling1d',
    {poolSize: 3, strides: 2, padding: 'same'}, [[1, 7, 2]]],
  ['pooling', 'avg_pool1d_default', 'averagePooling1d', {}, [[2, 5, 2]]],
  ['pooling', 'avg_pool1d_same', 'averagePooling1d', {poolSize: [3], strides: 1, padding: 'same'},
    [[1, 5, 2]]],
  ['pooling', 'max_pool2d_default', 'maxPooling2d', {}, [[2, 4, 5, 2]]],
  ['pooling', 'max_pool2d_same', 'maxPooling2d',
    {poolSize: [3, 2], strides: [2, 1], padding: 'same'}, [[1, 5, 4, 2]]],
  ['pooling', 'max_pool2d_channels_first', 'maxPooling2d',
    {poolSize: 2, dataFormat: 'channelsFirst'}, [[1, 2, 4, 4]]],
  ['pooling', 'avg_pool2d_default', 'averagePooling2d', {}, [[2, 4, 4, 1]]],
  ['pooling', 'avg_pool2d_same_stride', 'averagePooling2d',
    {poolSize: 3, strides: 2, padding: 'same'}, [[1, 5, 5, 2]]],
  ['pooling', 'avg_pool2d_channels_first', 'averagePooling2d',
    {poolSize: [2, 1], dataFormat: 'channelsFirst'}, [[1, 3, 4, 2]]],
  ['pooling', 'max_pool3d_default', 'maxPooling3d', {}, [[1, 4, 4, 4, 2]]],
  ['pooling', 'max_pool3d_same', 'maxPooling3d', {poolSize: 3, strides: 2, padding: 'same'},
    [[1, 3, 5, 4, 1]]],
  ['pooling', 'avg_pool3d_default', 'averagePooling3d', {}, [[2, 2, 4, 4, 1]]],
  ['pooling', 'avg_pool3d_channels_first', 'averagePooling3d',
    {poolSize: [1, 2, 2], dataFormat: 'channelsFirst'}, [[1, 2, 2, 4, 4]]],
  ['pooling', 'global_avg1d', 'globalAveragePooling1d', {}, [[2, 4, 3]]],
  ['pooling', 'global_max1d', 'globalMaxPooling1d', {}, [[2, 4, 3]]],
  ['pooling', 'global_avg2d', 'globalAveragePooling2d', {}, [[2, 3, 4, 2]]],
  ['pooling', 'global_avg2d_channels_first', 'globalAveragePooling2d',
    {dataFormat: 'channelsFirst'}, [[2, 3, 4, 2]]],
  ['pooling', 'global_max2d', 'globalMaxPooling2d', {}, [[2, 3, 4, 2]]],
  ['pooling', 'global_max2d_channels_first', 'globalMaxPooling2d',
    {dataFormat: 'channelsFirst'}, [[1, 2, 3, 3]]],
  // ---------------------------------------------------------------------- normalization
  ['normalization', 'batchnorm_2d', 'batchNormalization', {}, [[4, 3]], {training: true}],
  ['normalization', 'batchnorm_4d', 'batchNormalization', {momentum: 0.9, epsilon: 0.01},
    [[2, 3, 3, 2]], {training: true}],
  ['normalization', 'batchnorm_axis1', 'batchNormalization', {axis: 1}, [[2, 3, 4]],
    {training: true}],
  ['normalization', 'batchnorm_3d_no_center', 'batchNormalization', {center: false},
    [[2, 4, 3]]],
  ['normalization', 'batchnorm_no_scale', 'batchNormalization', {scale: false}, [[3, 2]]],
  ['normalization', 'layernorm_default', 'layerNormalization', {}, [[3, 4]]],
  ['normalization', 'layernorm_axes', 'layerNormalization', {axis: [1, 2], epsilon: 0.01},
    [[2, 3, 2]]],
  ['normalization', 'layernorm_mid_axis', 'layerNormalization', {axis: 1, center: false},
    [[2, 3, 2]]],
  ['normalization', 'layernorm_no_scale', 'layerNormalization', {scale: false}, [[2, 5]]],
  // ------------------------------------------------------------------------- embeddings
  ['embeddings', 'embedding_basic', 'embedding', {inputDim: 5, outputDim: 3}, [[2, 4]],
    {values: [[0, 1, 4, 2, 3, 3, 0, 1]], dtype: 'int32'}],
  ['embeddings', 'embedding_input_length', 'embedding',
    {inputDim: 6, outputDim: 2, inputLength: 3}, [[2, 3]],
    {values: [[5, 0, 1, 2, 2, 4]], dtype: 'float32'}],
  ['embeddings', 'embedding_mask_zero', 'embedding',
    {inputDim: 4, outputDim: 2, maskZero: true, inputShape: [3]}, [[2, 3]],
    {values: [[0, 1, 3, 2, 0, 0]], dtype: 'int32'}],
  // ------------------------------------------------------------------------------ merge
  ['merge', 'add_two', 'add', {}, [[2, 3], [2, 3]]],
  ['merge', 'add_three', 'add', {}, [[2, 2, 2], [2, 2, 2], [2, 2, 2]]],
  ['merge', 'add_broadcast_rank', 'add', {}, [[2, 2, 3], [2, 3]]],
  ['merge', 'average_two', 'average', {}, [[2, 4], [2, 4]]],
  ['merge', 'maximum_three', 'maximum', {}, [[2, 3], [2, 3], [2, 3]]],
  ['merge', 'minimum_two', 'minimum', {}, [[3, 2], [3, 2]]],
  ['merge', 'multiply_two', 'multiply', {}, [[2, 3], [2, 3]]],
  ['merge', 'concat_last', 'concatenate', {}, [[2, 3], [2, 2]]],
  ['merge', 'concat_axis1', 'concatenate', {axis: 1}, [[2, 2, 3], [2, 4, 3]]],
  ['merge', 'dot_vectors', 'dot', {axes: 1}, [[3, 4], [3, 4]]],
  ['merge', 'dot_normalize', 'dot', {axes: -1, normalize: true}, [[2, 3], [2, 3]]],
  ['merge', 'dot_matrices', 'dot', {axes: [2, 1]}, [[2, 2, 3], [2, 3, 2]]],
  ['merge', 'dot_mixed_rank', 'dot', {axes: [2, 1]}, [[2, 2, 3], [2, 3]]],
  // ------------------------------------------------------------------------------ noise
  ['noise', 'gaussian_noise', 'gaussianNoise', {stddev: 0.5}, [[2, 3]]],
  ['noise', 'gaussian_dropout', 'gaussianDropout', {rate: 0.3}, [[2, 3]]],
  ['noise', 'alpha_dropout', 'alphaDropout', {rate: 0.2}, [[2, 3]]],
  // ---------------------------------------------------------------------- preprocessing
  ['preprocessing', 'rescaling', 'rescaling', {scale: 0.5, offset: -1}, [[2, 3]]],
  ['preprocessing', 'rescaling_scale_only', 'rescaling', {scale: 2}, [[2, 2, 2]]],
  ['preprocessing', 'center_crop', 'centerCrop', {height: 2, width: 3}, [[2, 4, 5, 2]],
    CENTER_CROP_OPTS],
  ['preprocessing', 'center_crop_odd', 'centerCrop', {height: 3, width: 3}, [[1, 4, 4, 1]],
    CENTER_CROP_OPTS],
  ['preprocessing', 'center_crop_upsize', 'centerCrop', {height: 5, width: 6}, [[1, 3, 4, 1]],
    CENTER_CROP_OPTS],
  ['preprocessing', 'center_crop_rank3', 'centerCrop', {height: 2, width: 2}, [[4, 3, 2]],
    CENTER_CROP_OPTS],
  ['preprocessing', 'resizing_bilinear', 'resizing', {height: 3, width: 5}, [[1, 2, 3, 2]],
    RESIZING_OPTS],
  ['preprocessing', 'resizing_nearest_crop', 'resizing',
    {height: 4, width: 2, interpolation: 'nearest', cropToAspectRatio: true}, [[2, 3, 3, 1]],
    RESIZING_OPTS],
  ['preprocessing', 'category_one_hot', 'categoryEncoding', {numTokens: 4, outputMode: 'oneHot'},
    [[3]], Object.assign({values: [[3, 0, 2]], dtype: 'int32'}, CATEGORY_OPTS)],
  ['preprocessing', 'category_one_hot_column', 'categoryEncoding',
    {numTokens: 3, outputMode: 'oneHot'}, [[3, 1]],
    Object.assign({values: [[2, 0, 1]], dtype: 'int32'}, CATEGORY_OPTS)],
  ['preprocessing', 'category_multi_hot', 'categoryEncoding', {numTokens: 5}, [[2, 3]],
    Object.assign({values: [[0, 4, 4, 1, 2, 3]], dtype: 'int32'}, CATEGORY_OPTS)],
  ['preprocessing', 'category_count', 'categoryEncoding', {numTokens: 3, outputMode: 'count'},
    [[2, 4]], Object.assign({values: [[0, 2, 2, 2, 1, 1, 0, 1]], dtype: 'float32'},
        CATEGORY_OPTS)],
  ['preprocessing', 'random_width_seeded', 'randomWidth',
    {factor: 0.5, seed: 7}, [[1, 3, 4, 2]],
    {mode: 'apply', applyTimes: 2, skip: ['output_shape', 'summary'],
      why: 'TF.js reports [undefined, -1, input_shape[2]] as the output shape'}],
  ['preprocessing', 'random_width_nearest', 'randomWidth',
    {factor: [-0.5, 0.25], interpolation: 'nearest', seed: 3}, [[2, 4, 4, 1]],
    {mode: 'apply', applyTimes: 2, skip: ['output_shape', 'summary'],
      why: 'TF.js reports [undefined, -1, input_shape[2]] as the output shape'}],
];

// [module, name, factory, args, inputShape (batch included) or null, what]
// what: 'construct' (the constructor throws) or 'apply' (applying to an input throws).
const ERROR_CASES = [
  ['advanced_activations', 'elu_alpha', 'elu', {alpha: 2}, null, 'construct'],
  ['advanced_activations', 'prelu_shared_axes_type', 'prelu', {sharedAxes: 'x'}, null, 'construct'],
  ['convolutional', 'conv2d_kernel_size_type', 'conv2d', {filters: 2, kernelSize: 'x'}, null,
    'construct'],
  ['convolutional', 'conv2d_filters_missing', 'conv2d', {kernelSize: 2}, null, 'construct'],
  ['convolutional', 'conv2d_filters_zero', 'conv2d', {filters: 0, kernelSize: 2}, null,
    'construct'],
  ['convolutional', 'conv2d_bad_padding', 'conv2d', {filters: 1, kernelSize: 2, padding: 'full'},
    null, 'construct'],
  ['convolutional', 'conv2d_bad_data_format', 'conv2d',
    {filters: 1, kernelSize: 2, dataFormat: 'NCHW'}, null, 'construct'],
  ['convolutional', 'conv2d_kernel_size_len', 'conv2d', {filters: 1, kernelSize: [2, 2, 2]}, null,
    'construct'],
  ['convolutional', 'conv2d_transpose_causal', 'conv2dTranspose',
    {filters: 1, kernelSize: 2, padding: 'causal'}, null, 'construct'],
  ['convolutional', 'separable_kernel_initializer', 'separableConv2d',
    {filters: 1, kernelSize: 2, kernelInitializer: 'ones'}, null, 'construct'],
  ['convolutional', 'conv2d_rank3_input', 'conv2d', {filters: 1, kernelSize: 2}, [4, 4, 1],
    'apply'],
  ['convolutional', 'conv1d_rank4_input', 'conv1d', {filters: 1, kernelSize: 2}, [1, 4, 4, 1],
    'apply'],
  ['convolutional', 'upsampling_rank3_input', 'upSampling2d', {}, [1, 4, 4], 'apply'],
  ['padding', 'zero_padding_len3', 'zeroPadding2d', {padding: [1, 2, 3]}, null, 'construct'],
  ['padding', 'zero_padding_rank3', 'zeroPadding2d', {}, [1, 3, 3], 'apply'],
  ['pooling', 'max_pool2d_strides_len', 'maxPooling2d', {strides: [1, 2, 3]}, null, 'construct'],
  ['pooling', 'max_pool1d_pool_size_len', 'maxPooling1d', {poolSize: [2, 2]}, null, 'construct'],
  ['pooling', 'avg_pool2d_rank3', 'averagePooling2d', {}, [2, 4, 4], 'apply'],
  ['pooling', 'global_max1d_rank2', 'globalMaxPooling1d', {}, [2, 4], 'apply'],
  ['normalization', 'layernorm_axis_type', 'layerNormalization', {axis: 'x'}, null, 'construct'],
  ['normalization', 'layernorm_bad_axis', 'layerNormalization', {axis: 3}, [2, 3], 'apply'],
  ['embeddings', 'embedding_no_input_dim', 'embedding', {outputDim: 2}, null, 'construct'],
  ['embeddings', 'embedding_output_dim_float', 'embedding', {inputDim: 3, outputDim: 1.5}, null,
    'construct'],
  ['merge', 'concat_mismatch', 'concatenate', {}, [[2, 3], [3, 3]], 'apply'],
  ['merge', 'add_single', 'add', {}, [[2, 3]], 'apply'],
  ['merge', 'dot_incompatible', 'dot', {axes: 1}, [[2, 3], [2, 4]], 'apply'],
  ['preprocessing', 'resizing_bad_interpolation', 'resizing',
    {height: 2, width: 2, interpolation: 'area'}, null, 'construct'],
  ['preprocessing', 'random_width_bad_factor', 'randomWidth', {factor: -0.5}, null, 'construct'],
  ['preprocessing', 'category_out_of_range', 'categoryEncoding', {numTokens: 3}, [2], 'apply'],
];

function makeInputs(shapes, opts) {
  return shapes.map((shape, j) => {
    const dtype = opts.dtype || 'float32';
    const values = opts.values ? opts.values[j] : inputValues(prod(shape), j);
    return {shape, dtype, values};
  });
}

function layerConfig(model, name) {
  const json = model.toJSON(null, false);
  const layers = json.config.layers;
  const entry = layers.find((l) => l.config.name === name);
  return {class_name: entry.class_name, config: entry.config};
}

function record(t) {
  return {shape: t.shape, dtype: t.dtype, values: Array.from(t.dataSync())};
}

function weightRecords(layer) {
  return layer.weights.map((w) => ({
    name: w.originalName.split('/').slice(1).join('/'),
    shape: w.shape,
    values: Array.from(w.read().dataSync()),
  }));
}

function runCase([module, name, factory, args, shapes, opts = {}]) {
  const out = {module, name, factory, args, input_shapes: shapes, options: opts};
  const inputs = makeInputs(shapes, opts);
  out.inputs = inputs;
  const xs = inputs.map((i) => tf.tensor(i.values, i.shape, i.dtype));
  const fullArgs = Object.assign({name}, args);
  let model = null;
  let layer;
  if (opts.mode === 'apply') {
    layer = tf.layers[factory](fullArgs);
    out.outputs = [];
    for (let k = 0; k < (opts.applyTimes || 1); k++) {
      const y = layer.apply(xs.length === 1 ? xs[0] : xs);
      out.outputs.push(record(y));
      y.dispose();
    }
    const ins = shapes.map((s) => tf.input({shape: s.slice(1), dtype: inputs[0].dtype}));
    model = tf.model({inputs: ins, outputs: layer.apply(ins.length === 1 ? ins[0] : ins)});
  } else {
    if (shapes.length === 1) {
      if (fullArgs.inputShape == null && fullArgs.batchInputShape == null) {
        fullArgs.inputShape = shapes[0].slice(1);
      }
      layer = tf.layers[factory](fullArgs);
      model = tf.sequential({layers: [layer]});
    } else {
      layer = tf.layers[factory](fullArgs);
      const ins = shapes.map((s, j) => tf.input({shape: s.slice(1), name: `${name}_in${j}`}));
      model = tf.model({inputs: ins, outputs: layer.apply(ins)});
    }
    out.args = fullArgs;
    layer.setWeights(layer.weights.map((w, k) => tf.tensor(
        weightValues(prod(w.shape), k, w.originalName.endsWith('moving_variance')), w.shape)));
    out.weights = weightRecords(layer);
    const y = model.predict(xs.length === 1 ? xs[0] : xs);
    out.output = record(y);
    y.dispose();
    out.output_shape = model.outputs[0].shape;
    if (opts.training) {
      const yt = layer.apply(xs.length === 1 ? xs[0] : xs, {training: true});
      out.training = {output: record(yt), weights: weightRecords(layer)};
      yt.dispose();
    }
  }
  out.config = layerConfig(model, name);
  const lines = [];
  model.summary(undefined, undefined, (line) => lines.push(line));
  out.summary = lines;
  tf.dispose(xs);
  model.dispose();
  return out;
}

function runError([module, name, factory, args, shape, what]) {
  const out = {module, name, factory, args, input_shape: shape, what};
  let layer = null;
  try {
    layer = tf.layers[factory](Object.assign({name}, args));
  } catch (e) {
    out.error = e.message;
    out.thrown_by = 'construct';
    return out;
  }
  try {
    const shapes = Array.isArray(shape[0]) ? shape : [shape];
    const xs = shapes.map((s) => tf.tensor(inputValues(prod(s), 0).map(
        (v) => (factory === 'categoryEncoding' ? Math.round(Math.abs(v) * 3) : v)), s));
    const y = layer.apply(xs.length === 1 ? xs[0] : xs);
    tf.dispose([xs, y]);
    out.error = null;
  } catch (e) {
    out.error = e.message;
    out.thrown_by = 'apply';
  }
  return out;
}

function main() {
  tf.setBackend('cpu');
  const result = {
    tfjs_version: tf.version.tfjs,
    backend: tf.getBackend(),
    cases: CASES.map(runCase),
    errors: ERROR_CASES.map(runError),
  };
  for (const e of result.errors) {
    if (e.error == null) throw new Error(`error case ${e.name} did not throw in TF.js`);
  }
  const file = path.join(__dirname, 'results', 'layers_families.json');
  fs.writeFileSync(file, JSON.stringify(result, null, 1) + '\n');
  console.log(`wrote ${result.cases.length} cases and ${result.errors.length} error cases`);
}

main();
