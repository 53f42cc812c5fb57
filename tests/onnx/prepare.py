#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Prepares ONNX models for execution on the card: compiles each with atc,
writes its inputs and the expected outputs as raw files, and lists them in
a manifest that the guest program om_conformance runs with aclmdlExecute.

  prepare.py conformance OUTDIR [--results TAP] [--suites node,...]
      walks libonnx-testdata (data/node, data/pytorch-converted,
      data/pytorch-operator); inputs and expected outputs come from each
      test's test_data_set_0; tolerances are onnx's backend runner's
      (rtol 1e-3, atol 1e-7).  Every test ends up pass, fail or
      unsupported; until om_conformance's TAP output is given with
      --results, a compiled test is "compiled" (not yet run).  Prints the
      counts, and the rejections grouped by reason.

  prepare.py tap OUTDIR TAP
      after a run: every test of OUTDIR/report.txt as one TAP line, pass
      (ok), fail (not ok) or unsupported (ok # SKIP unsupported: reason),
      then the counts, the unsupported ones by reason.  Exits 1 on a fail.

  prepare.py models MODELDIR OUTDIR
      the networks of make_models.py: seeded random inputs, expected
      outputs from onnxruntime (ort_run.js, build/ort).

A manifest line is: NAME OM RTOL ATOL NIN IN... NOUT OUT...
"""
import collections
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

import struct

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ATC = os.path.join(ROOT, "build", "atc")
TESTDATA = "/usr/share/libonnx-testdata/data"
SUITES = ("node", "pytorch-converted", "pytorch-operator")

# atc's error categories (npucc_error_name) that mean "the card cannot run
# this", as opposed to a compiler that is wrong about a valid model.
UNSUPPORTED = ("unsupported operator", "unsupported attribute", "unsupported data type",
               "data-dependent shape", "limit",
               "input shape")  # the test's data disagree with its model's inputs


def graph_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def shape_option(names, arrays):
    return ";".join(f"{n}:{','.join(str(d) for d in a.shape)}" for n, a in zip(names, arrays))


def atc(model, output, input_shape):
    cmd = [ATC, f"--model={model}", "--framework=5", f"--output={output}"]
    if input_shape:
        cmd.append(f"--input_shape={input_shape}")
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def reason_of(message):
    """'atc: PATH: CATEGORY: node 'n' (Op): text' -> (category, 'Op: text')."""
    m = re.search(r"^atc: [^:]*: ([^:]+): (.*)$", message, re.M)
    if not m:
        return "atc", message.strip().splitlines()[-1] if message.strip() else "no message"
    category, text = m.group(1), m.group(2)
    text = re.sub(r"node '[^']*' \((\w+)\): ", r"\1: ", text)
    text = re.sub(r"'[^']*'", "'...'", text)
    text = re.sub(r"\d+", "N", text)
    return category, text


def bfloat16_nearest_even(array):
    """float32 to bfloat16 bits, rounded to nearest even, NaN kept a NaN:
    onnx.helper.float32_to_bfloat16's rule, over an array."""
    bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(array), np.uint16(0x7FC0), rounded)


# Tests whose shipped expected output is not what ONNX specifies, so that
# the card's right answer would fail: test -> (why, the expected outputs
# re-derived from the inputs).  A fixed test says so in its TAP comment.
ERRATA = {
    # ONNX 1.12's generator truncated (it took the high half of each float,
    # and even typed the expected tensor UINT16).  ONNX's own conversion
    # (onnx.helper.float32_to_bfloat16), onnxruntime and the later ONNX
    # releases' regenerated data round to nearest even, as the card does.
    "node/test_cast_FLOAT_to_BFLOAT16": (
        "shipped output truncates; re-derived rounding to nearest even",
        lambda ins: [bfloat16_nearest_even(ins[0])]),
}


def write_raw(path, array):
    np.ascontiguousarray(array).tofile(path)


def manifest_line(name, om, rtol, atol, ins, outs):
    return " ".join([name, om, repr(rtol), repr(atol), str(len(ins))] + ins +
                    [str(len(outs))] + outs) + "\n"


def prepare_test(suite, test_dir, outdir):
    """Returns (status, reason, manifest line or None)."""
    name = f"{suite}/{os.path.basename(test_dir)}"
    data = os.path.join(test_dir, "test_data_set_0")
    model_path = os.path.join(test_dir, "model.onnx")
    try:
        model = onnx.load(model_path)
        names = graph_inputs(model)
        ins = [read_pb(p) for p in sorted(glob.glob(os.path.join(data, "input_*.pb")),
                                          key=lambda p: int(re.findall(r"\d+", p)[-1]))]
        outs = [read_pb(p) for p in sorted(glob.glob(os.path.join(data, "output_*.pb")),
                                           key=lambda p: int(re.findall(r"\d+", p)[-1]))]
    except Exception as e:  # a test the onnx package cannot read
        return "unsupported", ("test data", f"unreadable: {type(e).__name__}"), None
    if len(ins) != len(names):
        return "unsupported", ("test data", "inputs do not match the graph's"), None
    if any(a.dtype == object for a in ins + outs):
        return "unsupported", ("test data", "string or sequence tensors"), None
    note = None
    if name in ERRATA:
        note, rederive = ERRATA[name]
        outs = rederive(ins)
    work = os.path.join(outdir, name)
    os.makedirs(work, exist_ok=True)
    om = os.path.join(work, "model")
    rc, message = atc(model_path, om, shape_option(names, ins))
    if rc:
        category, text = reason_of(message)
        status = "unsupported" if category in UNSUPPORTED else "fail"
        return status, (category, text), None
    in_files, out_files = [], []
    for i, a in enumerate(ins):
        in_files.append(os.path.join(work, f"input_{i}.bin"))
        write_raw(in_files[-1], a)
    for i, a in enumerate(outs):
        out_files.append(os.path.join(work, f"output_{i}.bin"))
        write_raw(out_files[-1], a)
    reason = ("expected output", note) if note else None
    return "compiled", reason, manifest_line(name, om + ".om", 1e-3, 1e-7, in_files, out_files)


def read_results(path):
    """TAP from om_conformance: test name -> 'pass' or 'fail'."""
    results = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^(ok|not ok) \d+ (\S+)", line)
            if m:
                results[m.group(2)] = "pass" if m.group(1) == "ok" else "fail"
    return results


def tap(args):
    outdir, results_path = args[:2]
    results = {}
    with open(results_path) as f:
        for line in f:
            m = re.match(r"^(ok|not ok) \d+ (\S+)(?: # (.*))?", line)
            if m:
                results[m.group(2)] = (m.group(1) == "ok", m.group(3) or "")
    with open(os.path.join(outdir, "report.txt")) as f:
        report = [line.rstrip("\n") for line in f]
    counts = collections.Counter()
    skip_reasons = collections.Counter()
    print("TAP version 13")
    print(f"1..{len(report)}")
    for n, line in enumerate(report, 1):
        m = re.match(r"^(\S+) (\S+)(?: \((.*)\))?$", line)
        status, name, reason = m.group(1), m.group(2), m.group(3)
        if status == "unsupported":
            counts["unsupported"] += 1
            skip_reasons[reason] += 1
            print(f"ok {n} {name} # SKIP unsupported: {reason}")
        elif status == "compiled" and name in results and results[name][0]:
            counts["pass"] += 1
            if reason:
                print(f"# {name}: {reason}")
            print(f"ok {n} {name}")
        else:
            why = reason if status != "compiled" else results.get(name, (False, "not run"))[1]
            counts["fail"] += 1
            print(f"not ok {n} {name} # {why}")
    print(f"# conformance: {counts['pass']} pass, {counts['fail']} fail, "
          f"{counts['unsupported']} unsupported")
    print("# unsupported by reason:")
    for reason, count in sorted(skip_reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"#   {count:4d}  {reason}")
    return 1 if counts["fail"] else 0


def conformance(args):
    outdir = os.path.abspath(args[0])
    results = None
    suites = SUITES
    rest = args[1:]
    while rest:
        if rest[0] == "--results":
            results = read_results(rest[1])
        elif rest[0] == "--suites":
            suites = rest[1].split(",")
        else:
            print(__doc__, file=sys.stderr)
            return 2
        rest = rest[2:]
    os.makedirs(outdir, exist_ok=True)
    status_count = collections.Counter()
    reasons = collections.Counter()
    lines = []
    tests = [(suite, test_dir.rstrip("/")) for suite in suites
             for test_dir in sorted(glob.glob(os.path.join(TESTDATA, suite, "*/")))]
    # atc runs in a process of its own: one test per core at a time.
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
        prepared = list(pool.map(lambda t: prepare_test(t[0], t[1], outdir), tests))
    with open(os.path.join(outdir, "report.txt"), "w") as report:
        for (suite, test_dir), (status, reason, line) in zip(tests, prepared):
            name = f"{suite}/{os.path.basename(test_dir)}"
            if line:
                lines.append(line)
                if results is not None:
                    status = results.get(name, "fail")
            elif reason:
                reasons[(status,) + reason] += 1
            status_count[status] += 1
            report.write(f"{status} {name}" + (f" ({reason[0]}: {reason[1]})" if reason else "") + "\n")
    with open(os.path.join(outdir, "manifest.txt"), "w") as f:
        f.writelines(lines)
    total = sum(status_count.values())
    print(f"{total} tests: " + ", ".join(f"{status_count[s]} {s}" for s in
                                          ("pass", "fail", "compiled", "unsupported") if status_count[s]))
    print(f"atc compiled {len(lines)} and rejected {total - len(lines)}; rejections by reason:")
    for (status, category, text), count in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {count:4d}  {status:11s} {category}: {text}")
    print(f"manifest: {os.path.join(outdir, 'manifest.txt')}; report: {os.path.join(outdir, 'report.txt')}")
    return 0 if not status_count["fail"] else 1


ORT_TYPES = {np.float32: "float32", np.int64: "int64", np.int32: "int32", np.uint8: "uint8"}


def om_output_sizes(path):
    """The byte size of each output, from the .om's header and io table."""
    with open(path, "rb") as f:
        head = f.read(128)
        num_in, num_out, io_offset = struct.unpack_from("<IIQ", head, 24)
        f.seek(io_offset + 88 * num_in)
        table = f.read(88 * num_out)
    return [struct.unpack_from("<Q", table, 88 * j + 80)[0] for j in range(num_out)]


def models(args):
    modeldir, outdir = (os.path.abspath(a) for a in args[:2])
    ort_run = os.path.join(ROOT, "tests", "onnx", "ort_run.js")
    env = dict(os.environ, NODE_PATH=os.path.join(ROOT, "build", "ort", "node_modules"))
    lines = []
    for model_path in sorted(glob.glob(os.path.join(modeldir, "*.onnx"))):
        name = os.path.basename(model_path)[:-5]
        with open(os.path.join(modeldir, name + ".shape")) as f:
            shape_opt = f.read().strip()
        work = os.path.join(outdir, name)
        os.makedirs(work, exist_ok=True)
        rc, message = atc(model_path, os.path.join(work, "model"), shape_opt)
        if rc:
            print(f"{name}: atc failed: {message.strip()}")
            return 1
        rng = np.random.RandomState(1234)
        in_files, feeds = [], []
        for i, item in enumerate(shape_opt.split(";")):
            in_name, dims = item.rsplit(":", 1)
            shape = [int(d) for d in dims.split(",")]
            path = os.path.join(work, f"input_{i}.bin")
            write_raw(path, rng.uniform(0, 1, shape).astype(np.float32))
            in_files.append(path)
            feeds.append(f"{in_name}={path}:float32:{dims}")
        p = subprocess.run(["node", ort_run, model_path, work] + feeds, capture_output=True,
                           text=True, env=env)
        if p.returncode:
            print(f"{name}: onnxruntime failed: {p.stderr.strip()}")
            return 1
        outs = [os.path.join(work, f"output_{i}.bin") for i in range(len(p.stdout.splitlines()))]
        sizes = om_output_sizes(os.path.join(work, "model.om"))
        if sizes != [os.path.getsize(o) for o in outs]:
            print(f"{name}: the .om's outputs take {sizes} bytes, onnxruntime's "
                  f"{[os.path.getsize(o) for o in outs]}")
            return 1
        lines.append(manifest_line(name, os.path.join(work, "model.om"), 1e-3, 1e-4, in_files, outs))
        print(f"{name}: {len(in_files)} inputs, outputs {'; '.join(p.stdout.splitlines())}")
    with open(os.path.join(outdir, "manifest.txt"), "w") as f:
        f.writelines(lines)
    return 0


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("conformance", "models", "tap"):
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "conformance":
        return conformance(sys.argv[2:])
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "tap":
        return tap(sys.argv[2:])
    return models(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
