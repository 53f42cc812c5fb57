#!/usr/bin/env node
// SPDX-License-Identifier: MIT
//
// aclnn-bench's reference: the same single operations under onnxruntime
// (CPU) on this host, one run per request between the card's runs (make
// bench pairs them; tools/bench_port.h has the protocol).  Each case is a
// small ONNX graph written here as protobuf bytes (no onnx package
// needed), over operands holding bench_fill()'s values
// (bench_operators.h), run with THREADS intra-op threads: as many as one
// card engine has.
//
//   matmul      MatMul f32 1024x1024 by 1024x1024
//   matmul_f16  the same in f16 (MatMul f16 if this onnxruntime has it
//               here, else Cast to f32, MatMul, Cast back: what runs it)
//   matvec      MatMul f32 4096x4096 by 4096x1
//   add         Add f32, 16 Mi elements
//   softmax     Softmax f32 over the last axis of 4096x4096
//   rmsnorm     SimplifiedLayerNormalization (onnxruntime's RMS
//               normalisation) f32, 4096x4096 by a scale of 4096
//
// The operands are the graph's constants and the output is y's shape
// (constModel() says why), so a run times the operation and not
// onnxruntime-node's copies.
//
//   node aclnn-bench-ort.js --serve SOCKET THREADS
//   node aclnn-bench-ort.js --list THREADS RUNS   (each case's medians, then exits)

'use strict';

const fs = require('fs');
const net = require('net');
const path = require('path');
const readline = require('readline');

// must match BENCH_RMSNORM_EPSILON
const RMSNORM_EPSILON = 1e-6;
const ELEM_FLOAT = 1;
const ELEM_FLOAT16 = 10;
const ELEM_INT64 = 7;
const OPSET = 17;

function loadOrt() {
  const here = path.resolve(__dirname, '..', 'build', 'ort', 'node_modules', 'onnxruntime-node');
  return require(fs.existsSync(here) ? here : 'onnxruntime-node');
}

// ---- protobuf, as much of it as an ONNX model needs ----------------------

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}

const fieldVarint = (field, n) => Buffer.concat([varint(field << 3), varint(n)]);
const fieldBytes = (field, bytes) =>
  Buffer.concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
const fieldString = (field, s) => fieldBytes(field, Buffer.from(s, 'utf8'));

function fieldFloat(field, f) {
  const b = Buffer.alloc(4);
  b.writeFloatLE(f);
  return Buffer.concat([varint((field << 3) | 5), b]);
}

// ValueInfoProto: a tensor input or output of a fixed shape
function valueInfo(name, elemType, dims) {
  const shape = Buffer.concat(dims.map((d) => fieldBytes(1, fieldVarint(1, d))));
  const tensorType = Buffer.concat([fieldVarint(1, elemType), fieldBytes(2, shape)]);
  return Buffer.concat([fieldString(1, name), fieldBytes(2, fieldBytes(1, tensorType))]);
}

// NodeProto; attrs: { name: { f: float } or { i: int } }
function node(opType, inputs, outputs, attrs = {}) {
  const parts = [
    ...inputs.map((n) => fieldString(1, n)),
    ...outputs.map((n) => fieldString(2, n)),
    fieldString(4, opType),
  ];
  for (const [name, v] of Object.entries(attrs)) {
    const value = 'f' in v ? fieldFloat(2, v.f) : fieldVarint(3, v.i);
    const type = fieldVarint(20, 'f' in v ? 1 : 2);
    parts.push(fieldBytes(5, Buffer.concat([fieldString(1, name), value, type])));
  }
  return Buffer.concat(parts);
}

// TensorProto of a constant: its elements' bytes as they lie in memory
function initializer(name, elemType, dims, data) {
  return Buffer.concat([
    ...dims.map((d) => fieldVarint(1, d)),
    fieldVarint(2, elemType),
    fieldString(8, name),
    fieldBytes(9, Buffer.from(data.buffer, data.byteOffset, data.byteLength)),
  ]);
}

// ModelProto of one graph: inputs and outputs are [name, elemType, dims]
function model(nodes, inputs, outputs, initializers = []) {
  const graph = Buffer.concat([
    ...nodes.map((n) => fieldBytes(1, n)),
    fieldString(2, 'aclnn_bench'),
    ...initializers.map((t) => fieldBytes(5, t)),
    ...inputs.map(([n, t, d]) => fieldBytes(11, valueInfo(n, t, d))),
    ...outputs.map(([n, t, d]) => fieldBytes(12, valueInfo(n, t, d))),
  ]);
  return Buffer.concat([
    fieldVarint(1, 8),
    fieldString(2, 'aclnn-bench-ort'),
    fieldBytes(7, graph),
    fieldBytes(8, fieldVarint(2, OPSET)),
  ]);
}

// ---- the cases -----------------------------------------------------------

// bench_fill(): small values, no denormals, the same as the card's inputs
function benchFill(count) {
  const data = new Float32Array(count);
  for (let i = 0; i < count; i++)
    data[i] = Math.fround(Math.fround(((Math.imul(i, 2654435761) >>> 0) % 1000) / 1000) - 0.5);
  return data;
}

// float32 to float16 bits, rounded to nearest even (normal range only:
// bench_fill()'s values are)
function halfBits(f) {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, f);
  const x = view.getUint32(0);
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (exp <= 0)
    return sign;
  let h = sign | (exp << 10) | (mant >>> 13);
  mant &= 0x1fff;
  if (mant > 0x1000 || (mant === 0x1000 && (h & 1)))
    h++;
  return h;
}

function halfFill(count) {
  const f = benchFill(count);
  const h = new Uint16Array(count);
  for (let i = 0; i < count; i++)
    h[i] = halfBits(f[i]);
  return h;
}

const F32 = ELEM_FLOAT;
const F16 = ELEM_FLOAT16;

// A graph of one operation over constants holding bench_fill()'s values,
// whose output is y's shape: computing it needs y, and handing back two
// integers costs nothing, where onnxruntime-node would copy a large y into
// JavaScript on every run (and fault in fresh pages for it), several times
// the operation's own time.  inputs: [name, elemType, dims]; y has rank
// yRank.
function constModel(ops, inputs, y, yRank) {
  const consts = inputs.map(([name, t, dims]) => {
    const count = dims.reduce((a, b) => a * b, 1);
    return initializer(name, t, dims, t === F16 ? halfFill(count) : benchFill(count));
  });
  return model([...ops, node('Shape', [y], ['y_shape'])], [],
    [['y_shape', ELEM_INT64, [yRank]]], consts);
}

function matmulGraph(m, k, n, t, widen) {
  const ops = widen ? [
    node('Cast', ['a'], ['a32'], { to: { i: F32 } }),
    node('Cast', ['b'], ['b32'], { to: { i: F32 } }),
    node('MatMul', ['a32', 'b32'], ['y32']),
    node('Cast', ['y32'], ['y'], { to: { i: F16 } }),
  ] : [node('MatMul', ['a', 'b'], ['y'])];
  return constModel(ops, [['a', t, [m, k]], ['b', t, [k, n]]], 'y', 2);
}

// Each case: graphs to try in order (the first onnxruntime accepts runs).
const CASES = {
  matmul: [['MatMul', () => matmulGraph(1024, 1024, 1024, F32, false)]],
  matmul_f16: [['MatMul f16', () => matmulGraph(1024, 1024, 1024, F16, false)],
    ['Cast, MatMul f32, Cast', () => matmulGraph(1024, 1024, 1024, F16, true)]],
  matvec: [['MatMul', () => matmulGraph(4096, 4096, 1, F32, false)]],
  add: [['Add', () => constModel([node('Add', ['a', 'b'], ['y'])],
    [['a', F32, [16 << 20]], ['b', F32, [16 << 20]]], 'y', 1)]],
  softmax: [['Softmax', () => constModel([node('Softmax', ['x'], ['y'], { axis: { i: 1 } })],
    [['x', F32, [4096, 4096]]], 'y', 2)]],
  rmsnorm: [['SimplifiedLayerNormalization', () => constModel([
    node('SimplifiedLayerNormalization', ['x', 'gamma'], ['y'],
      { axis: { i: 1 }, epsilon: { f: RMSNORM_EPSILON } })],
  [['x', F32, [4096, 4096]], ['gamma', F32, [4096]]], 'y', 2)]],
};

// Unoptimised, so that nothing is folded into a constant, and without
// prepacking, so that a MatMul packs its operand on every run as the card
// does, the operand being a constant only to keep it out of JavaScript.
function createSession(ort, bytes, threads) {
  return ort.InferenceSession.create(bytes, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled',
    executionMode: 'sequential',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    extra: { session: { disable_prepacking: '1' } },
  });
}

// A case ready to run: its session (the first graph that loads) and the
// graph's name; after one warm-up run.
async function prepare(ort, key, threads) {
  let lastError;
  for (const [graph, build] of CASES[key]) {
    try {
      const session = await createSession(ort, build(), threads);
      await session.run({});
      return { session, graph };
    } catch (err) {
      lastError = err;
    }
  }
  throw new Error(`${key}: no graph onnxruntime runs: ${lastError.message}`);
}

// One run: its wall time and the process's CPU time over the threads, ns.
async function timedRun(run, threads) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await run.session.run({});
  const t1 = process.hrtime.bigint();
  const c = process.cpuUsage(c0);
  return { wall: Number(t1 - t0), cpu: (c.user + c.system) * 1000 / threads };
}

async function answer(line, runs, threads) {
  if (line === 'info')
    return `info onnxruntime ${threads}\n`;
  const run = line.startsWith('run ') ? runs.get(line.slice(4)) : undefined;
  if (!run)
    return 'error unknown request\n';
  const t = await timedRun(run, threads);
  return `ran ${t.wall} ${Math.round(t.cpu)}\n`;
}

async function prepareAll(threads) {
  const ort = loadOrt();
  const runs = new Map();
  for (const key of Object.keys(CASES)) {
    const run = await prepare(ort, key, threads);
    process.stderr.write(`aclnn-bench-ort: ${key}: ${run.graph}, ${threads} threads\n`);
    runs.set(key, run);
  }
  return runs;
}

async function serve(socket, threads) {
  const runs = await prepareAll(threads);
  fs.rmSync(socket, { force: true });
  const server = net.createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, resolve);
  });
  const conn = await new Promise((resolve) => server.once('connection', resolve));
  server.close();
  fs.rmSync(socket, { force: true });
  for await (const line of readline.createInterface({ input: conn, crlfDelay: Infinity }))
    conn.write(await answer(line.trim(), runs, threads));
  return 0;
}

// Each case's median wall and CPU time over RUNS runs, for a look without the card.
async function list(threads, runs) {
  const prepared = await prepareAll(threads);
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  for (const [key, run] of prepared) {
    const wall = [], cpu = [];
    for (let i = 0; i < runs; i++) {
      const t = await timedRun(run, threads);
      wall.push(t.wall);
      cpu.push(t.cpu);
    }
    process.stdout.write(`${key} ${(median(wall) / 1e6).toFixed(3)} ms, cpu ` +
      `${(median(cpu) / 1e6).toFixed(3)} ms\n`);
  }
  return 0;
}

async function main(argv) {
  if (argv[0] === '--serve' && argv.length === 3)
    return serve(argv[1], Number(argv[2]));
  if (argv[0] === '--list' && argv.length === 3)
    return list(Number(argv[1]), Number(argv[2]));
  process.stderr.write('usage: aclnn-bench-ort.js --serve SOCKET THREADS | --list THREADS RUNS\n');
  return 2;
}

main(process.argv.slice(2)).then((rc) => process.exit(rc), (err) => {
  process.stderr.write(`aclnn-bench-ort: ${err.message}\n`);
  process.exit(1);
});
