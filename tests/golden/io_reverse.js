// Loads every model SAVED BY TIDYTENSOR under io/reverse/<name>/ (written by
// tests/io/make_reverse.py) with TF.js 4.22.0's tf.loadLayersModel, runs it on the inputs in
// inputs.json and writes TF.js's outputs to io/reverse/<name>/tfjs_predict.json, with the
// loaded weight names, user metadata and (for compiled models) the restored training config
// and optimizer weights. tests/io/test_reverse.py compares them with tidytensor.
//
// Run: python tests/io/make_reverse.py && (cd tests/golden && node io_reverse.js)
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const ROOT = path.join(__dirname, 'io', 'reverse');

// Reads a model directory the way tf.io.http / tfjs-node's file:// do: model.json, then every
// path of every weight group, resolved against the model.json's directory.
function dirHandler(dir) {
  return {
    load: async () => {
      const modelJSON = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
      const buffers = [];
      for (const group of modelJSON.weightsManifest) {
        for (const p of group.paths) buffers.push(fs.readFileSync(path.join(dir, p)));
      }
      const joined = Buffer.concat(buffers);
      const weightData = joined.buffer.slice(joined.byteOffset, joined.byteOffset + joined.byteLength);
      const weightSpecs = [].concat(...modelJSON.weightsManifest.map((g) => g.weights));
      return tf.io.getModelArtifactsForJSONSync(modelJSON, weightSpecs, weightData);
    },
  };
}

async function main() {
  await tf.setBackend('cpu');
  const names = fs.readdirSync(ROOT).filter((n) => fs.existsSync(path.join(ROOT, n, 'model.json'))).sort();
  for (const name of names) {
    const dir = path.join(ROOT, name);
    const record = JSON.parse(fs.readFileSync(path.join(dir, 'inputs.json'), 'utf8'));
    const model = await tf.loadLayersModel(dirHandler(dir), {strict: true});
    const xs = record.inputs.map((i) => tf.tensor(i.values, i.shape));
    let ys = model.predict(xs.length === 1 ? xs[0] : xs);
    if (!Array.isArray(ys)) ys = [ys];
    const out = {
      name,
      className: model.getClassName(),
      weights: model.weights.map((w) => ({name: w.originalName, shape: w.shape})),
      userDefinedMetadata: model.getUserDefinedMetadata() || null,
      outputs: ys.map((y) => ({shape: y.shape, values: Array.from(y.dataSync())})),
    };
    if (model.optimizer != null) {
      const ow = await model.optimizer.getWeights();
      out.optimizer = {
        className: model.optimizer.getClassName(),
        config: model.optimizer.getConfig(),
        loss: model.loss,
        weights: ow.map((w) => ({name: w.name, shape: w.tensor.shape, values: Array.from(w.tensor.dataSync())})),
      };
    }
    fs.writeFileSync(path.join(dir, 'tfjs_predict.json'), JSON.stringify(out, null, 1) + '\n');
    tf.dispose(xs);
    tf.dispose(ys);
    model.dispose();
    console.log('TF.js loaded', name);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
