// Measurement harness, not product: two builds of odori's page A/B in one headless Chromium,
// App.bench calls alternated between them many times (each page loaded with Gene × wavefile_v2
// and warmed up first), so a loaded machine's noise falls on both alike. Prints min and median
// per build and work. For checking that a change to the wasm build is faster.
//   node ab.mjs WEB_DIR_A WEB_DIR_B ASSETS_DIR [ROUNDS]   (AB_WORKS=pose: that work alone)
import { geneFiles, launch, serve } from "./harness.mjs";

const [dirA, dirB, assetsDir, roundsArg] = process.argv.slice(2);
const ROUNDS = +(roundsArg || 15);
const FRAMES = +(process.env.AB_FRAMES || 600); // AB_FRAMES: frames 1..N a call
const roots = { a: dirA, b: dirB, assets: assetsDir };
const server = await serve(roots);
const browser = await launch();
const files = geneFiles(assetsDir);
const pages = {};
for (const side of ["a", "b"]) {
  const page = await browser.context.newPage();
  await page.goto(`${server.base}/${side}/?w=320&h=180&backend=webgl&msaa=1&paused`);
  await page.waitForFunction(() => window.odori && window.odori.ready, null, { timeout: 180000 });
  await page.setInputFiles("#files", files);
  await page.waitForFunction(() => window.odori.loads >= 1, null, { timeout: 180000 });
  pages[side] = page;
}
// AB_WORKS=pose (comma-separated) measures only the works named.
const only = process.env.AB_WORKS ? process.env.AB_WORKS.split(",") : null;
const works = [["pose", false, false], ["pose+physics", true, false], ["pose+physics+skinning", true, true]].filter(
  ([w]) => !only || only.includes(w),
);
const times = {};
for (let r = -2; r < ROUNDS; r++) {
  for (const [work, p, d] of works) {
    for (const side of r % 2 ? ["a", "b"] : ["b", "a"]) {
      // The page measured is the front one: Chromium runs a background tab's renderer at a
      // lower priority (an A/A run without this gave B/A 0.97 / 0.90 for one and the same
      // build, the first page opened being the one behind).
      await pages[side].bringToFront();
      const us = await pages[side].evaluate(([n, p, d]) => window.odori.bench(n, p, d), [FRAMES, p, d]);
      if (r >= 0) ((times[work] ||= { a: [], b: [] })[side]).push(us);
    }
  }
}
await browser.close();
server.close();
const median = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
console.log(`${ROUNDS} alternated rounds, frames 1..${FRAMES}, µs a frame: min / median`);
for (const [work, t] of Object.entries(times)) {
  const f = (v) => `${Math.min(...v).toFixed(1)} / ${median(v).toFixed(1)}`;
  console.log(`${work.padEnd(24)} A ${f(t.a).padEnd(18)} B ${f(t.b).padEnd(18)} B/A min ${(Math.min(...t.b) / Math.min(...t.a)).toFixed(3)} median ${(median(t.b) / median(t.a)).toFixed(3)}`);
}
