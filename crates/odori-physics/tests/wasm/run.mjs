// Runs odori's physics from a wasm32-unknown-unknown build under Node (tests/wasm.rs):
//   node run.mjs MODULE.wasm MODEL.pmx MOTION.vmd FRAMES OUT.bin [REPEAT]
// writes the world matrices (examples/wasm_physics/run.rs) to OUT.bin and prints the time
// per frame (pose + physics) of the last of REPEAT runs (default 1).
import { readFileSync, writeFileSync } from "node:fs";

const [wasmPath, pmxPath, vmdPath, framesArg, outPath, repeatArg] = process.argv.slice(2);
const frames = Number(framesArg);
const repeat = Number(repeatArg ?? 1);
// The module imports nothing: no WASI, no JavaScript glue.
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
const x = instance.exports;

function copyIn(bytes) {
  const ptr = x.odori_alloc(bytes.length);
  new Uint8Array(x.memory.buffer, ptr, bytes.length).set(bytes);
  return ptr;
}

const pmx = readFileSync(pmxPath);
const vmd = readFileSync(vmdPath);
let ms = 0;
for (let i = 0; i < repeat; i++) {
  const t0 = performance.now();
  const code = x.odori_run(copyIn(pmx), pmx.length, copyIn(vmd), vmd.length, frames);
  ms = performance.now() - t0;
  const out = new Uint8Array(x.memory.buffer, x.odori_result(), x.odori_result_len());
  if (code !== 0) {
    console.error(`odori_run failed: ${new TextDecoder().decode(out)}`);
    process.exit(1);
  }
  if (i === repeat - 1) writeFileSync(outPath, out);
}
console.log(`wasm: ${frames} frames in ${ms.toFixed(1)} ms (${(ms / frames).toFixed(3)} ms per frame, including loading)`);
