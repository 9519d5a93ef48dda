// Measurement harness, not product: two builds of odori's page A/B in one headless Chromium,
// App.bench calls alternated between them many times (each page loaded with Gene × wavefile_v2
// and warmed up first), so a loaded machine's noise falls on both alike. Prints min and median
// per build and work. For checking that a change to the wasm build is faster.
//   node ab.mjs WEB_DIR_A WEB_DIR_B ASSETS_DIR [ROUNDS]
import { chromium } from "playwright-core";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const [dirA, dirB, assetsDir, roundsArg] = process.argv.slice(2);
const ROUNDS = +(roundsArg || 15);
const FRAMES = 600;
const roots = { a: dirA, b: dirB, assets: assetsDir };
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css" };
const server = http.createServer((req, res) => {
  const [, top, ...rest] = decodeURIComponent(req.url.split("?")[0]).split("/");
  const file = roots[top] && path.join(roots[top], rest.join("/") || "index.html");
  if (!file || rest.includes("..") || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": TYPES[path.extname(file)] || "application/octet-stream" });
  fs.createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "odori-ab-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium", headless: true, viewport: { width: 1000, height: 700 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--enable-unsafe-swiftshader"],
});
const gene = path.join(assetsDir, "gene");
const files = [path.join(gene, "Gene_light.pmx"), path.join(assetsDir, "wavefile", "wavefile_v2.vmd"),
  ...fs.readdirSync(path.join(gene, "light")).map((f) => path.join(gene, "light", f))];
const pages = {};
for (const side of ["a", "b"]) {
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/${side}/?w=320&h=180&backend=webgl&msaa=1&paused`);
  await page.waitForFunction(() => window.odori && window.odori.ready, null, { timeout: 180000 });
  await page.setInputFiles("#files", files);
  await page.waitForFunction(() => window.odori.loads >= 1, null, { timeout: 180000 });
  pages[side] = page;
}
const works = [["pose", false, false], ["pose+physics", true, false], ["pose+physics+skinning", true, true]];
const times = {};
for (let r = -2; r < ROUNDS; r++) {
  for (const [work, p, d] of works) {
    for (const side of r % 2 ? ["a", "b"] : ["b", "a"]) {
      const us = await pages[side].evaluate(([n, p, d]) => window.odori.bench(n, p, d), [FRAMES, p, d]);
      if (r >= 0) ((times[work] ||= { a: [], b: [] })[side]).push(us);
    }
  }
}
await context.close();
server.close();
fs.rmSync(profile, { recursive: true, force: true });
const median = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
console.log(`${ROUNDS} alternated rounds, frames 1..${FRAMES}, µs a frame: min / median`);
for (const [work, t] of Object.entries(times)) {
  const f = (v) => `${Math.min(...v).toFixed(1)} / ${median(v).toFixed(1)}`;
  console.log(`${work.padEnd(24)} A ${f(t.a).padEnd(18)} B ${f(t.b).padEnd(18)} B/A min ${(Math.min(...t.b) / Math.min(...t.a)).toFixed(3)} median ${(median(t.b) / median(t.a)).toFixed(3)}`);
}
