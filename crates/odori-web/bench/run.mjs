// Measurement harness, not product, and not a test (nothing here passes or fails): times
// babylon-mmd 1.3's WASM runtime (babylon.html), odori's page (target/web), odori's npm
// package (package.html) and three.js r171's MMDAnimationHelper (three171.html) on the same
// work, Gene_light.pmx × wavefile_v2.vmd, in one headless Chromium with the flags of
// tests/browser/run.mjs (WebGL2 on SwiftShader), alternating the runtimes round by round.
//   node run.mjs WEB_DIR ASSETS_DIR OUT_DIR [ROUNDS] [PACKAGE_DIR]
// WEB_DIR: odori's built page (build.sh); ASSETS_DIR: ../shared/assets (read where it is,
// never copied); PACKAGE_DIR: the npm package's folder (build.sh --package: target/npm/odori).
// Serves WEB_DIR at /web/, this folder at /bench/, ASSETS_DIR at /assets/ and PACKAGE_DIR at
// /odori/ from a local port. Prints two tables; writes OUT_DIR/result.json (every figure) and
// a screenshot of each runtime's canvas while playing.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { geneFiles, launch, serve } from "./harness.mjs";

const [webDir, assetsDir, out, roundsArg, packageDir] = process.argv.slice(2);
const benchDir = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = +(roundsArg || 3);
const FRAMES = 600; // frames 1..600, as App::bench
const REPEATS = 3; // bench calls per page
// Untimed bench calls first, for this long: V8 compiles wasm with its baseline compiler and
// optimises hot functions later, in the background (slowly on a loaded machine); playback
// runs for minutes, so the optimised code is the one to time, on both sides.
const WARMUP_MS = 2000;
const W = 1280;
const H = 720;
const FPS_WARMUP_MS = 2000;
const FPS_MS = 5000;
// `node run.mjs --table OUT_DIR/result.json`: print a saved run's table again.
if (webDir === "--table") {
  printTable(JSON.parse(fs.readFileSync(assetsDir)));
  process.exit(0);
}
fs.mkdirSync(out, { recursive: true });

const server = await serve({ web: webDir, bench: benchDir, assets: assetsDir, odori: packageDir || webDir });
const base = server.base;
const browser = await launch({ width: 1400, height: 1000 });
const context = browser.context;
const result = { browser: context.browser()?.version() ?? null, rounds: ROUNDS, log: [] };
const figures = {}; // name → [values]
const add = (name, v) => (figures[name] ||= []).push(v);

async function open(url) {
  const page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && result.log.push(`${url}: ${m.text()}`));
  page.on("pageerror", (e) => result.log.push(`${url}: pageerror ${e.message}`));
  await page.goto(url);
  return page;
}
const wait = (page, fn, arg) => page.waitForFunction(fn, arg, { timeout: 180000, polling: 100 });

// Frames drawn per second while playing: after a warm-up, animation frames counted over FPS_MS.
async function fps(page, frames) {
  await page.waitForTimeout(FPS_WARMUP_MS);
  const f0 = await page.evaluate(frames);
  const t0 = Date.now();
  await page.waitForTimeout(FPS_MS);
  return ((await page.evaluate(frames)) - f0) / ((Date.now() - t0) / 1000);
}

async function babylon(round, mode, msaa, work) {
  const page = await open(`${base}/bench/babylon.html?mode=${mode}&w=${W}&h=${H}&msaa=${msaa}`);
  await wait(page, () => window.bmmd && (window.bmmd.ready || window.bmmd.error));
  const error = await page.evaluate(() => window.bmmd.error);
  if (error) throw new Error(`babylon-mmd harness: ${error}`);
  if (work) {
    await page.evaluate(([n, ms]) => { const t = performance.now(); while (performance.now() - t < ms) window.bmmd.bench(n); }, [FRAMES, WARMUP_MS]);
    for (let i = 0; i < REPEATS; i++) add(`babylon ${work}`, await page.evaluate((n) => window.bmmd.bench(n), FRAMES));
    result.babylonBenchFrame = await page.evaluate(() => window.bmmd.benchFrame);
  }
  if (mode === "physics") {
    await page.evaluate(() => window.bmmd.play());
    add(`babylon render msaa${msaa}`, await fps(page, () => window.bmmd.frames));
    if (round === 0) await page.locator("#view").screenshot({ path: path.join(out, `babylon_msaa${msaa}.png`) });
  }
  await page.close();
}

async function odori(round, msaa, bench) {
  // Opened paused, as babylon-mmd's page draws nothing until its fps run: a playing page would
  // keep SwiftShader drawing on the machine's cores between and during the bench calls.
  const page = await open(`${base}/web/?w=${W}&h=${H}&backend=webgl&msaa=${msaa}&paused`);
  await wait(page, () => window.odori && (window.odori.ready || window.odori.lastError));
  const start = await page.evaluate(() => window.odori.lastError);
  if (start) throw new Error(`odori page: ${start}`);
  await page.setInputFiles("#files", geneFiles(assetsDir));
  await wait(page, () => window.odori.loads >= 1 || window.odori.lastError);
  const load = await page.evaluate(() => window.odori.lastError);
  if (load) throw new Error(`odori page, loading Gene: ${load}`);
  if (bench) {
    for (const [work, physics, deform] of [["pose", false, false], ["pose+physics", true, false],
      ["pose+physics+skinning", true, true]]) {
      await page.evaluate(([n, p, d, ms]) => {
        const t = performance.now();
        while (performance.now() - t < ms) window.odori.bench(n, p, d);
      }, [FRAMES, physics, deform, WARMUP_MS]);
      for (let i = 0; i < REPEATS; i++) {
        add(`odori ${work}`, await page.evaluate(([n, p, d]) => window.odori.bench(n, p, d), [FRAMES, physics, deform]));
      }
    }
  }
  await page.evaluate(() => { window.odori.seek(0); window.odori.play(); });
  add(`odori render msaa${msaa}`, await fps(page, () => window.odori.frames()));
  result.odoriStageTimes = await page.evaluate(() => window.odori.times());
  if (round === 0) await page.locator("#view").screenshot({ path: path.join(out, `odori_msaa${msaa}.png`) });
  await page.close();
}

// Warm-up calls, then REPEATS timed ones, of `call(arg)` on `page`, each added to `name`.
async function timed(page, name, call, arg) {
  await page.evaluate(([c, a, ms]) => {
    const t = performance.now();
    while (performance.now() - t < ms) window.eval(c)(a);
  }, [call, arg, WARMUP_MS]);
  for (let i = 0; i < REPEATS; i++) add(name, await page.evaluate(([c, a]) => window.eval(c)(a), [call, arg]));
}

async function odoriPackage() {
  const page = await open(`${base}/bench/package.html`);
  await wait(page, () => window.pkg);
  const gene = path.join(assetsDir, "gene");
  const files = ["Gene_light.pmx", ...fs.readdirSync(path.join(gene, "light")).map((f) => `light/${f}`)];
  await page.evaluate((f) => window.pkg.load(f), files);
  await wait(page, () => window.pkg.ready || window.pkg.error);
  const error = await page.evaluate(() => window.pkg.error);
  if (error) throw new Error(`odori package: ${error}`);
  await timed(page, "package pose", `(n) => window.pkg.bench(n, false)`, FRAMES);
  await timed(page, "package pose+physics", `(n) => window.pkg.bench(n, true)`, FRAMES);
  await timed(page, "package adapter", `(n) => window.pkg.applyBench(n)`, FRAMES);
  await page.close();
}

async function three171(physics) {
  const page = await open(`${base}/bench/three171.html?physics=${physics ? 1 : 0}`);
  await wait(page, () => window.t171 && (window.t171.ready || window.t171.error));
  const error = await page.evaluate(() => window.t171.error);
  if (error) throw new Error(`three r171: ${error}`);
  await timed(page, `three171 ${physics ? "pose+physics" : "pose"}`, `(n) => window.t171.bench(n)`, FRAMES);
  await page.close();
}

try {
  for (let round = 0; round < ROUNDS; round++) {
    // A then B, then B then A: neither runtime always runs on the warmer machine.
    const steps = [
      () => babylon(round, "pose", 4, "pose"),
      () => babylon(round, "physics", 4, "pose+physics"),
      () => babylon(round, "physics", 1, null),
      () => odori(round, 4, true),
      () => odori(round, 1, false),
    ];
    // The package and three r171 when the package is built (PACKAGE_DIR).
    const libraries = packageDir ? [() => three171(false), () => three171(true), () => odoriPackage()] : [];
    let order = round % 2 === 0 ? [...steps, ...libraries]
      : [...libraries.slice().reverse(), ...steps.slice(3), ...steps.slice(0, 3)];
    // ODORI_BENCH_ONLY=babylon, =odori or =libraries: one side alone (to try the harness).
    const only = process.env.ODORI_BENCH_ONLY;
    if (only) order = only === "babylon" ? steps.slice(0, 3) : only === "odori" ? steps.slice(3) : libraries;
    for (const step of order) await step();
    process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
  }
} catch (e) {
  result.failure = String((e && e.stack) || e);
}
await browser.close();
server.close();
result.figures = figures;
fs.writeFileSync(path.join(out, "result.json"), JSON.stringify(result, null, 1));

printTable(result);
if (result.failure) console.log(`FAILED: ${result.failure}`);
if (result.log.length) console.log(`page errors:\n${result.log.slice(0, 20).join("\n")}`);
process.exitCode = result.failure ? 1 : 0;

function printTable({ browser, rounds, figures }) {
  // Best (min) and median per figure: on a loaded machine other processes only ever add time,
  // so the best of several is the code's own speed and the median what a user might see.
  const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
  const best = (v, unit) => (unit === "fps" ? Math.max(...v) : Math.min(...v));
  const show = (name, unit) => {
    const v = figures[name];
    if (!v) return "—";
    const f = unit === "fps" ? (x) => x.toFixed(1) : (x) => (x >= 1000 ? `${(x / 1000).toFixed(2)} ms` : `${x.toFixed(1)} µs`);
    return `${f(best(v, unit))} / ${f(median(v))}${unit === "fps" ? " fps" : ""}`;
  };
  const rows = [
    ["pose", "babylon pose", "odori pose", "µs", 1 / 5],
    ["pose + physics", "babylon pose+physics", "odori pose+physics", "µs", 1 / 1.5],
    ["pose + physics + CPU skinning", null, "odori pose+physics+skinning", "µs"],
    [`playing and drawing ${W}×${H} MSAA 4`, "babylon render msaa4", "odori render msaa4", "fps", 1],
    [`playing and drawing ${W}×${H} MSAA 1`, "babylon render msaa1", "odori render msaa1", "fps", 1],
  ];
  console.log(`Chromium ${browser}, ${rounds} rounds, frames 1..${FRAMES}; best / median of ${rounds * REPEATS} bench calls (${rounds} fps runs)`);
  console.log(`| work | babylon-mmd 1.3 WASM | odori | odori ÷ babylon, best / median (target) |`);
  console.log(`| --- | --- | --- | --- |`);
  for (const [work, b, o, unit, target] of rows) {
    const vb = b && figures[b];
    const vo = figures[o];
    const ratio = vb && vo
      ? `${(best(vo, unit) / best(vb, unit)).toFixed(2)} / ${(median(vo) / median(vb)).toFixed(2)} (${unit === "fps" ? "≥" : "≤"} ${target.toFixed(2)})`
      : "—";
    console.log(`| ${work} | ${b ? show(b, unit) : "—"} | ${show(o, unit)} | ${ratio} |`);
  }
  if (!figures["package pose"] && !figures["three171 pose"]) return;
  // The libraries a web developer picks between: odori's package (as its adapter runs it),
  // three r171's MMDAnimationHelper and babylon-mmd's WASM runtime.
  const speedup = (slow, fast) => (figures[slow] && figures[fast]
    ? `${(best(figures[slow], "µs") / best(figures[fast], "µs")).toFixed(1)}× / ${(median(figures[slow]) / median(figures[fast])).toFixed(1)}×`
    : "—");
  console.log("");
  console.log(`| work | three r171 MMDAnimationHelper | babylon-mmd 1.3 WASM | odori package | odori faster than three r171 / than babylon-mmd, best / median |`);
  console.log(`| --- | --- | --- | --- | --- |`);
  for (const work of ["pose", "pose+physics"]) {
    console.log(`| ${work} | ${show(`three171 ${work}`, "µs")} | ${show(`babylon ${work}`, "µs")} | ${show(`package ${work}`, "µs")} | ${speedup(`three171 ${work}`, `package ${work}`)} / ${speedup(`babylon ${work}`, `package ${work}`)} |`);
  }
  console.log(`| adapter: one evaluation copied into three.js | — | — | ${show("package adapter", "µs")} | share of pose: ${figures["package adapter"] && figures["package pose"] ? (best(figures["package adapter"], "µs") / best(figures["package pose"], "µs")).toFixed(2) : "—"} |`);
}
