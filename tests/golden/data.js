// Runs TF.js 4.22.0's tf.data pipelines (cpu backend) and writes results/data.json, which
// tests/data/test_data_golden.py replays with tidytensor.data.
// Run: cd tests/golden && node data.js
//
// Each case builds one pipeline (the Python test builds the same one, by case name) and
// records: the dataset's `size` (Infinity as "Infinity"), every element of toArray()
// (tensors as {tensor: {shape, dtype, values}}), and the change in numTensors made by
// toArray() (the tensors handed to the caller), measured after any source tensors exist.
// CSV cases read the fixtures in tests/data/fixtures/. Error cases record the message.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const FIXTURES = path.join(__dirname, '..', 'data', 'fixtures');
const fixture = (name) => 'file://' + path.join(FIXTURES, name);
const range = (a, b) => Array.from({length: b - a}, (_, i) => a + i);

const PEOPLE_CONFIG = {
  columnConfigs: {
    age: {dtype: 'int32', default: 30},
    member: {dtype: 'bool'},
    city: {default: 'unknown'},
    label: {isLabel: true},
  },
};

// name -> () => {dataset, sources?}  (sources: tensors made before counting starts)
const CASES = {
  array_numbers: () => tf.data.array([1, 2, 3]),
  batch_numbers: () => tf.data.array(range(1, 9)).batch(3),
  batch_numbers_drop_last: () => tf.data.array(range(1, 9)).batch(3, false),
  batch_exact: () => tf.data.array(range(1, 9)).batch(4),
  batch_arrays: () => tf.data.array(range(1, 9).map((i) => [i])).batch(4),
  batch_nested_arrays: () =>
    tf.data.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]).batch(2),
  batch_objects: () => tf.data.array(range(1, 9).map((i) => ({a: i, b: 10 + i}))).batch(4),
  batch_nested_objects: () =>
    tf.data
      .array([
        {x: {p: [1, 2], q: 3}, y: 1},
        {x: {p: [4, 5], q: 6}, y: 0},
        {x: {p: [7, 8], q: 9}, y: 1},
      ])
      .batch(2),
  batch_bools: () => tf.data.array([true, false, true]).batch(2),
  batch_strings: () => tf.data.array(['a', 'b', 'c']).batch(2),
  batch_tensors: () => tf.data.array([tf.tensor1d([1, 2]), tf.tensor1d([3, 4]), tf.tensor1d([5, 6])]).batch(2),
  batch_int_tensors: () =>
    tf.data.array([tf.tensor2d([[1, 2]], [1, 2], 'int32'), tf.tensor2d([[3, 4]], [1, 2], 'int32')]).batch(2),
  batch_tensor_objects: () =>
    tf.data.array([
      {xs: tf.tensor1d([1, 2]), ys: tf.scalar(0)},
      {xs: tf.tensor1d([3, 4]), ys: tf.scalar(1)},
      {xs: tf.tensor1d([5, 6]), ys: tf.scalar(0)},
    ]).batch(2),
  array_tensors: () => tf.data.array([tf.tensor1d([1, 2]), tf.tensor1d([3, 4])]),
  map_numbers: () => tf.data.array([1, 2, 3]).map((x) => x * x),
  map_to_tensors_batch: () => tf.data.array([1, 2, 3]).map((x) => tf.scalar(x).mul(2).add(1)).batch(2),
  map_tensors: () => tf.data.array([tf.tensor1d([1, 2]), tf.tensor1d([3, 4])]).map((t) => t.square().sum()),
  filter_even: () => tf.data.array(range(1, 11)).filter((x) => x % 2 === 0),
  filter_tensors: () =>
    tf.data.array([tf.scalar(1), tf.scalar(-2), tf.scalar(3)]).filter((t) => t.dataSync()[0] > 0),
  skip_take: () => tf.data.array(range(1, 7)).skip(2).take(3),
  take_more: () => tf.data.array([1, 2, 3]).take(10),
  take_zero: () => tf.data.array([1, 2, 3]).take(0),
  take_negative: () => tf.data.array([1, 2, 3]).take(-1),
  skip_more: () => tf.data.array([1, 2, 3]).skip(5),
  skip_negative: () => tf.data.array([1, 2, 3]).skip(-1),
  skip_tensors: () => tf.data.array([tf.scalar(1), tf.scalar(2), tf.scalar(3)]).skip(2),
  repeat_3: () => tf.data.array([1, 2]).repeat(3),
  repeat_0: () => tf.data.array([1, 2]).repeat(0),
  repeat_forever_take: () => tf.data.array([1, 2]).repeat().take(5),
  repeat_batch: () => tf.data.array([1, 2, 3]).repeat(2).batch(4),
  concatenate: () => tf.data.array([1, 2, 3]).concatenate(tf.data.array([4, 5])),
  concatenate_batch: () => tf.data.array([1, 2, 3]).concatenate(tf.data.array([4, 5])).batch(2),
  zip_list: () => tf.data.zip([tf.data.array([1, 2, 3]), tf.data.array([4, 5, 6])]),
  zip_dict_shortest: () => tf.data.zip({a: tf.data.array([1, 2, 3]), b: tf.data.array(['x', 'y'])}),
  zip_list_batch: () => tf.data.zip([tf.data.array([1, 2, 3]), tf.data.array([4, 5, 6])]).batch(2),
  zip_dict_batch: () => tf.data.zip({a: tf.data.array([1, 2, 3]), b: tf.data.array([[1, 2], [3, 4], [5, 6]])}).batch(3),
  shuffle_seeded: () => tf.data.array(range(1, 21)).shuffle(5, 'seed'),
  shuffle_full_batch: () => tf.data.array(range(1, 11)).shuffle(10, 'abc').batch(4),
  prefetch_batch: () => tf.data.array(range(1, 6)).prefetch(2).batch(2),
  generator_batch: () =>
    tf.data
      .generator(function* () {
        for (let i = 0; i < 5; i++) yield {x: i, y: [i, i * 2]};
      })
      .batch(2),
  generator_tensors_map_batch: () =>
    tf.data
      .generator(function* () {
        for (let i = 0; i < 5; i++) yield tf.tensor1d([i, i + 1]);
      })
      .map((t) => t.mul(10))
      .batch(3),
  csv_people: () => tf.data.csv(fixture('people.csv'), PEOPLE_CONFIG),
  csv_people_batch: () => tf.data.csv(fixture('people.csv'), PEOPLE_CONFIG).batch(4),
  csv_people_features: () =>
    tf.data
      .csv(fixture('people.csv'), PEOPLE_CONFIG)
      .map(({xs, ys}) => ({xs: [xs.age, xs.height, xs.member], ys: ys.label}))
      .batch(4),
  csv_configured_only: () =>
    tf.data.csv(fixture('people.csv'), {
      columnConfigs: {label: {isLabel: true}, age: {default: 30}},
      configuredColumnsOnly: true,
    }),
  csv_no_labels: () => tf.data.csv(fixture('semicolon.csv'), {hasHeader: false, columnNames: ['id', 'tag', 'v'], delimiter: ';'}),
  csv_whitespace: () => tf.data.csv(fixture('whitespace.csv'), {delimWhitespace: true}),
};

// Cases whose dataset we also ask for columnNames().
const COLUMN_NAMES = ['csv_people', 'csv_configured_only', 'csv_no_labels', 'csv_whitespace'];

const ERRORS = {
  csv_malformed_row: () => tf.data.csv(fixture('malformed.csv')).toArray(),
  csv_missing_label: () =>
    tf.data.csv(fixture('missing_label.csv'), {columnConfigs: {label: {isLabel: true}}}).toArray(),
  csv_bad_config_key: () =>
    tf.data.csv(fixture('people.csv'), {columnConfigs: {nope: {isLabel: true}}}).toArray(),
  csv_no_header_no_names: () => tf.data.csv(fixture('semicolon.csv'), {hasHeader: false}).toArray(),
  batch_zero: async () => tf.data.array([1, 2]).batch(0),
  shuffle_no_buffer: async () => tf.data.array([1, 2]).shuffle(),
  prefetch_no_buffer: async () => tf.data.array([1, 2]).prefetch(),
  zip_primitive: async () => tf.data.zip([tf.data.array([1]), 3]).toArray(),
  zip_not_container: async () => tf.data.zip(3),
  to_array_infinite: async () => tf.data.array([1]).repeat().toArray(),
};

function encode(v) {
  if (v instanceof tf.Tensor) {
    return {tensor: {shape: v.shape, dtype: v.dtype, values: v.arraySync()}};
  }
  if (Array.isArray(v)) return v.map(encode);
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v)) out[k] = encode(v[k]);
    return {object: out, keys: Object.keys(v)};
  }
  return v;
}

async function main() {
  await tf.setBackend('cpu');
  const cases = {};
  for (const [name, make] of Object.entries(CASES)) {
    const ds = make();
    const before = tf.memory().numTensors;
    const elements = await ds.toArray();
    const delta = tf.memory().numTensors - before;
    const entry = {
      size: ds.size === Infinity ? 'Infinity' : ds.size,
      elements: elements.map(encode),
      num_tensors_delta: delta,
    };
    if (COLUMN_NAMES.includes(name)) entry.column_names = await ds.columnNames();
    cases[name] = entry;
    tf.disposeVariables();
    tf.engine().reset();
    await tf.setBackend('cpu');
  }
  const sizes = {
    repeat_forever: tf.data.array([1, 2]).repeat().size,
    filter_size: tf.data.array([1, 2]).filter((x) => x).size,
    filter_infinite: tf.data.array([1, 2]).repeat().filter((x) => x).size,
    concat_infinite: tf.data.array([1]).repeat().concatenate(tf.data.array([1])).size,
    generator: tf.data.generator(function* () {}).size,
    take_generator: tf.data.generator(function* () {}).take(3).size,
    skip_infinite: tf.data.array([1]).repeat().skip(3).size,
    batch_infinite: tf.data.array([1]).repeat().batch(3).size,
    csv: tf.data.csv(fixture('people.csv')).size,
  };
  for (const k of Object.keys(sizes)) if (sizes[k] === Infinity) sizes[k] = 'Infinity';
  const errors = {};
  for (const [name, run] of Object.entries(ERRORS)) {
    try {
      await run();
      errors[name] = null;
    } catch (e) {
      errors[name] = e.message;
    }
  }
  const out = {tfjs_version: tf.version.tfjs, cases, sizes, errors};
  fs.mkdirSync(path.join(__dirname, 'results'), {recursive: true});
  fs.writeFileSync(path.join(__dirname, 'results', 'data.json'), JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote results/data.json: ${Object.keys(cases).length} cases, ${Object.keys(errors).length} errors`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
