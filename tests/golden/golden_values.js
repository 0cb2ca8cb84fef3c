// Deterministic inputs and plain-array helpers shared by the Layers golden scripts.
'use strict';

function arr(t) {
  return Array.from(t.dataSync());
}

// Deterministic numbers in [-scale, scale].
function seq(n, seed, scale = 1) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(Number((Math.sin(i * 1.7 + seed * 3.1) * scale).toFixed(4)));
  return out;
}

function reshape(flat, shape) {
  if (shape.length === 1) return flat.slice(0, shape[0]);
  const size = shape.slice(1).reduce((a, b) => a * b, 1);
  const out = [];
  for (let i = 0; i < shape[0]; i++) out.push(reshape(flat.slice(i * size, (i + 1) * size), shape.slice(1)));
  return out;
}

module.exports = { arr, seq, reshape };
