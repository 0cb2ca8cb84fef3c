// Runs tf.profile over gradient computations in TF.js 4.22.0 (cpu backend) and writes
// results/profile_grads.json, which tests/test_profile_grads.py replays with tidytensor.
// Run: cd tests/golden && node profile_grads.js
//
// Each case records every kernel entry of the profile: name, tensorsAdded, bytesAdded and
// totalTensorsSnapshot. With the tape on, TF.js clones each tensor a gradient saves through
// the Identity kernel, so those entries come before the kernel that saved them.
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const CASES = {
  grad_square_sum: () => {
    const a = tf.tensor1d([1, 2, 3]);
    return () => tf.grad((x) => x.square().sum())(a);
  },
  grads_matmul_relu_mean: () => {
    const b = tf.tensor2d([[1, 2], [3, 4]]);
    return () => tf.grads((x, y) => x.matMul(y).relu().mean())([b, b]);
  },
  grad_exp_saves_its_output: () => {
    const a = tf.tensor1d([0.5, -1]);
    return () => tf.grad((x) => x.exp().mul(x).sum())(a);
  },
  value_and_grad_sigmoid: () => {
    const a = tf.tensor2d([[0.5, -1], [2, 0]]);
    return () => tf.valueAndGrad((x) => x.sigmoid().sum())(a).grad;
  },
};

async function main() {
  await tf.setBackend('cpu');
  const out = {};
  for (const [name, make] of Object.entries(CASES)) {
    tf.engine().reset();
    await tf.setBackend('cpu');
    const fn = make();
    const info = await tf.profile(fn);
    out[name] = info.kernels.map((k) => ({
      name: k.name,
      tensorsAdded: k.tensorsAdded,
      bytesAdded: k.bytesAdded,
      totalTensorsSnapshot: k.totalTensorsSnapshot,
    }));
  }
  fs.writeFileSync(
    path.join(__dirname, 'results', 'profile_grads.json'),
    JSON.stringify({ tfjs: tf.version.tfjs, cases: out }, null, 1) + '\n',
  );
}

main();
