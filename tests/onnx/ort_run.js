#!/usr/bin/env node
// SPDX-License-Identifier: MIT
//
// Runs an ONNX model on the host with onnxruntime (CPU) and writes its raw
// outputs: the reference the card's results are compared with.
//
//   node ort_run.js MODEL.onnx OUTDIR NAME=FILE.bin:DTYPE:D0,D1,... ...
//
// Each input is a raw little-endian file of DTYPE (float32, float16,
// int32, int64, int8, uint8, bool) with the given dims.  Writes
// OUTDIR/output_<i>.bin for each model output, in the model's order, and
// prints one line per output: its name, type and dims.

'use strict';

const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const TYPES = {
  float32: Float32Array,
  int32: Int32Array,
  int64: BigInt64Array,
  int8: Int8Array,
  uint8: Uint8Array,
  bool: Uint8Array,
  float16: Uint16Array,
};

function parseInput(arg) {
  const eq = arg.indexOf('=');
  if (eq < 1)
    throw new Error(`input '${arg}' is not NAME=FILE:DTYPE:DIMS`);
  const name = arg.slice(0, eq);
  const [file, dtype, dimList] = arg.slice(eq + 1).split(':');
  const Type = TYPES[dtype];
  if (!Type)
    throw new Error(`input '${name}': unknown data type '${dtype}'`);
  const dims = dimList ? dimList.split(',').map(Number) : [];
  const bytes = fs.readFileSync(file);
  const count = dims.reduce((a, b) => a * b, 1);
  if (bytes.length !== count * Type.BYTES_PER_ELEMENT)
    throw new Error(`input '${name}': ${file} has ${bytes.length} bytes, dims ${dims} need ${count * Type.BYTES_PER_ELEMENT}`);
  const data = new Type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return [name, new ort.Tensor(dtype, dtype === 'bool' ? Uint8Array.from(data) : data, dims)];
}

async function main(argv) {
  if (argv.length < 2) {
    process.stderr.write('usage: node ort_run.js MODEL.onnx OUTDIR NAME=FILE.bin:DTYPE:D0,D1,... ...\n');
    return 2;
  }
  const [model, outdir, ...inputArgs] = argv;
  const feeds = Object.fromEntries(inputArgs.map(parseInput));
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled',
  });
  const results = await session.run(feeds);
  fs.mkdirSync(outdir, { recursive: true });
  session.outputNames.forEach((name, i) => {
    const t = results[name];
    const d = t.data;
    fs.writeFileSync(path.join(outdir, `output_${i}.bin`),
                     Buffer.from(d.buffer, d.byteOffset, d.byteLength));
    process.stdout.write(`${name} ${t.type} ${t.dims.join(',')}\n`);
  });
  return 0;
}

main(process.argv.slice(2)).then((rc) => process.exit(rc), (err) => {
  process.stderr.write(`ort_run: ${err.message}\n`);
  process.exit(1);
});
