// One small graph model per TF op for make_graph_models.js (filled in below).
'use strict';
const OP_CASES = [];
module.exports = {OP_CASES};
