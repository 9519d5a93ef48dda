// Measurement harness, not product: where odori's page spends App.bench's time, from
// Chromium's sampling profiler (DevTools protocol), by wasm function (self time).
//   node profile.mjs WEB_DIR ASSETS_DIR [physics=0|1] [deform=0|1] [FRAMES]
// (PROFILE_REPEAT=N profiles N bench calls; PROFILE_TOP=N lists N functions)
// Serves WEB_DIR and ASSETS_DIR as run.mjs does, loads Gene × wavefile_v2 through the file
// input, profiles one bench call (frames 1..FRAMES) and prints the 30 heaviest functions.
import { geneFiles, launch, serve } from "./harness.mjs";

const [webDir, assetsDir, physics = "0", deform = "0", framesArg = "3000"] = process.argv.slice(2);
const roots = { web: webDir, assets: assetsDir };
const server = await serve(roots);
const browser = await launch();
const page = await browser.context.newPage();
await page.goto(`${server.base}/web/?w=320&h=180&backend=webgl&msaa=1&paused`);
await page.waitForFunction(() => window.odori && window.odori.ready, null, { timeout: 120000 });
await page.setInputFiles("#files", geneFiles(assetsDir));
await page.waitForFunction(() => window.odori.loads >= 1, null, { timeout: 120000 });
const args = [+framesArg, physics === "1", deform === "1"];
await page.evaluate((a) => window.odori.bench(...a), args); // warm up
const cdp = await page.context().newCDPSession(page);
await cdp.send("Profiler.enable");
await cdp.send("Profiler.setSamplingInterval", { interval: +(process.env.PROFILE_INTERVAL_US || 200) });
await cdp.send("Profiler.start");
// PROFILE_REPEAT: bench calls in the profile (more samples for the short pose-only runs).
const repeat = +(process.env.PROFILE_REPEAT || 1);
const us = await page.evaluate(
  ([a, n]) => {
    let t = 0;
    for (let i = 0; i < n; i++) t += window.odori.bench(...a);
    return t / n;
  },
  [args, repeat],
);
const { profile } = await cdp.send("Profiler.stop");
await browser.close();
server.close();
const self = new Map();
const dt = new Map(profile.samples.map((s, i) => [i, profile.timeDeltas[i] || 0]));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
let total = 0;
profile.samples.forEach((id, i) => {
  const n = byId.get(id);
  const name = n.callFrame.functionName || `(${n.callFrame.url.split("/").pop() || "?"})`;
  const t = dt.get(i);
  self.set(name, (self.get(name) || 0) + t);
  total += t;
});
console.log(`bench(${args.join(", ")}): ${us.toFixed(1)} µs a frame; ${profile.samples.length} samples`);
for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, +(process.env.PROFILE_TOP || 30))) {
  console.log(`${((100 * t) / total).toFixed(1).padStart(5)} %  ${name.slice(0, 140)}`);
}
