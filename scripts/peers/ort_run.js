// Times one ONNX model in ONNX Runtime's CPU provider (onnxruntime-node):
// all graph optimizations, the given intra-op threads, its own profiler's
// run time per Run (the "model_run" events, microseconds).
//
//   node ort_run.js MODEL.onnx INPUTS.json THREADS RUNS
//
// INPUTS.json: [{"name", "type": "float32"|"int64", "shape": [...], "lo", "hi"}].
// Prints one JSON line: {"runs": [us, ...], "nodes": [[op_name, count], ...]}.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');

async function main() {
    const [model, inputsFile, threads, runs] = process.argv.slice(2);
    const specs = JSON.parse(fs.readFileSync(inputsFile, 'utf8'));
    const prefix = path.join(os.tmpdir(), `fusebox_ort_${process.pid}`);
    const session = await ort.InferenceSession.create(model, {
        executionProviders: ['cpu'],
        graphOptimizationLevel: 'all',
        intraOpNumThreads: Number(threads),
        interOpNumThreads: 1,
        executionMode: 'sequential',
        enableProfiling: true,
        profileFilePrefix: prefix,
    });
    const feeds = {};
    let seed = 12345;
    const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
    for (const s of specs) {
        const n = s.shape.reduce((a, b) => a * b, 1);
        if (s.type === 'int64') {
            const data = new BigInt64Array(n);
            for (let i = 0; i < n; ++i) data[i] = BigInt(Math.floor(s.lo + next() * (s.hi - s.lo + 1)));
            feeds[s.name] = new ort.Tensor('int64', data, s.shape);
        } else {
            const data = new Float32Array(n);
            for (let i = 0; i < n; ++i) data[i] = s.lo + next() * (s.hi - s.lo);
            feeds[s.name] = new ort.Tensor('float32', data, s.shape);
        }
    }
    await session.run(feeds); // warm-up: first-run allocations
    for (let i = 0; i < Number(runs); ++i) await session.run(feeds);
    session.endProfiling(); // (writes PREFIX_<date>.json; the binding returns no name)
    const dir = path.dirname(prefix);
    const written = fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(prefix)) && f.endsWith('.json'));
    if (written.length !== 1) throw new Error(`expected one profile ${prefix}*.json, found ${written.length}`);
    const profile = path.join(dir, written[0]);
    const events = JSON.parse(fs.readFileSync(profile, 'utf8'));
    fs.unlinkSync(profile);
    const modelRuns = events.filter((e) => e.cat === 'Session' && e.name === 'model_run').map((e) => e.dur);
    // The kernels it ran in the last Run: which fusions it found.
    const kernels = new Map();
    const lastStart = events.filter((e) => e.cat === 'Session' && e.name === 'model_run').pop().ts;
    for (const e of events)
        if (e.cat === 'Node' && e.ts >= lastStart && e.name.endsWith('_kernel_time'))
            kernels.set(e.args.op_name, (kernels.get(e.args.op_name) || 0) + 1);
    console.log(JSON.stringify({runs: modelRuns.slice(1), nodes: [...kernels]}));
}

main().catch((e) => {
    console.error(e);
    process.exit(1);
});
