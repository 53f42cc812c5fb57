#!/usr/bin/env node
// SPDX-License-Identifier: MIT
//
// mdl-bench's host half: onnxruntime (CPU) runs an ONNX model on this host
// with a given number of intra-op threads, as many as the card's engine
// gives one execution, so the two compute with the same CPUs.  Writes the
// input (seeded uniform values in [-1, 1), the same every time) for both,
// then one warm-up run and RUNS timed runs, then the output for mdl-bench
// to compare with, and one line of figures:
//
//   batch threads runs wall_median_ns wall_min_ns cpu_median_ns
//
// cpu is the process's CPU time per run over the threads: on a busy host a
// process that computes without a break loses the CPU to others, so its
// wall time says more about the load than about onnxruntime.
//
//   node mdl-bench-ort.js MODEL.onnx INPUT.bin DIMS THREADS RUNS OUT.bin FIGURES.txt
//
// With --serve it answers mdl-bench instead, one run per request between
// the card's executions (tools/bench_port.h has the protocol): it listens
// on the UNIX socket SOCKET, which vm-run --host-socket joins to the
// guest's port npu.ort, runs case NAME (its model on the input a first
// call wrote) and exits when the peer hangs up.
//
//   node mdl-bench-ort.js --serve SOCKET THREADS NAME:MODEL.onnx:INPUT.bin:DIMS...

'use strict';

const fs = require('fs');
const net = require('net');
const path = require('path');
const readline = require('readline');

function loadOrt() {
  const here = path.resolve(__dirname, '..', 'build', 'ort', 'node_modules', 'onnxruntime-node');
  return require(fs.existsSync(here) ? here : 'onnxruntime-node');
}

// xorshift32: the same input on every host, without a dependency
function seededInput(count) {
  const data = new Float32Array(count);
  let x = 2463534242;
  for (let i = 0; i < count; i++) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    data[i] = x / 2147483648 - 1;
  }
  return data;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function createSession(ort, model, threads) {
  return ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
  });
}

// One run: its wall time and the process's CPU time over the threads, ns.
async function timedRun(session, feeds, threads) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const results = await session.run(feeds);
  const t1 = process.hrtime.bigint();
  const c = process.cpuUsage(c0);
  return { results, wall: Number(t1 - t0), cpu: (c.user + c.system) * 1000 / threads };
}

async function answer(line, cases, threads) {
  if (line === 'info')
    return `info onnxruntime ${threads}\n`;
  const c = line.startsWith('run ') ? cases.get(line.slice(4)) : undefined;
  if (!c)
    return 'error unknown request\n';
  const run = await timedRun(c.session, c.feeds, threads);
  return `ran ${run.wall} ${Math.round(run.cpu)}\n`;
}

async function serve(argv) {
  if (argv.length < 3) {
    process.stderr.write('usage: mdl-bench-ort.js --serve SOCKET THREADS NAME:MODEL.onnx:INPUT.bin:DIMS...\n');
    return 2;
  }
  const [socket, threadArg, ...specs] = argv;
  const ort = loadOrt();
  const threads = Number(threadArg);
  const sessions = new Map();	// one per model, its cases share it
  const cases = new Map();
  for (const spec of specs) {
    const [name, model, file, dimList] = spec.split(':');
    if (!sessions.has(model))
      sessions.set(model, await createSession(ort, model, threads));
    const session = sessions.get(model);
    const dims = dimList.split(',').map(Number);
    const bytes = fs.readFileSync(file);
    const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims) };
    await session.run(feeds);	// the warm-up
    cases.set(name, { session, feeds });
  }
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
    conn.write(await answer(line.trim(), cases, threads));
  return 0;
}

async function main(argv) {
  if (argv[0] === '--serve')
    return serve(argv.slice(1));
  if (argv.length !== 7) {
    process.stderr.write('usage: mdl-bench-ort.js MODEL.onnx INPUT.bin DIMS THREADS RUNS OUT.bin FIGURES.txt\n');
    return 2;
  }
  const [model, inputFile, dimList, threadArg, runArg, outFile, figFile] = argv;
  const ort = loadOrt();
  const dims = dimList.split(',').map(Number);
  const threads = Number(threadArg);
  const runs = Number(runArg);
  const data = seededInput(dims.reduce((a, b) => a * b, 1));
  fs.writeFileSync(inputFile, Buffer.from(data.buffer));

  const session = await createSession(ort, model, threads);
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims) };
  let results = await session.run(feeds);
  const wall = [], cpu = [];
  for (let i = 0; i < runs; i++) {
    const run = await timedRun(session, feeds, threads);
    results = run.results;
    wall.push(run.wall);
    cpu.push(run.cpu);
  }
  const out = results[session.outputNames[0]].data;
  fs.writeFileSync(outFile, Buffer.from(out.buffer, out.byteOffset, out.byteLength));
  fs.writeFileSync(figFile, `${dims[0]} ${threads} ${runs} ${median(wall)} ${Math.min(...wall)} ${Math.round(median(cpu))}\n`);
  return 0;
}

main(process.argv.slice(2)).then((rc) => process.exit(rc), (err) => {
  process.stderr.write(`mdl-bench-ort: ${err.message}\n`);
  process.exit(1);
});
