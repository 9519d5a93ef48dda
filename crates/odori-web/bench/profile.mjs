// Measurement harness, not product: where odori's page spends App.bench's time, from
// Chromium's sampling profiler (DevTools protocol), by wasm function (self time).
//   node profile.mjs WEB_DIR ASSETS_DIR [physics=0|1] [deform=0|1] [FRAMES]
// Serves WEB_DIR and ASSETS_DIR as run.mjs does, loads Gene × wavefile_v2 through the file
// input, profiles one bench call (frames 1..FRAMES) and prints the 30 heaviest functions.
import { chromium } from "playwright-core";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

const [webDir, assetsDir, physics = "0", deform = "0", framesArg = "3000"] = process.argv.slice(2);
const roots = { web: webDir, assets: assetsDir };
const server = http.createServer((req, res) => {
  const [, top, ...rest] = decodeURIComponent(req.url.split("?")[0]).split("/");
  const file = roots[top] && path.join(roots[top], rest.join("/") || "index.html");
  if (!file || rest.includes("..") || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404).end();
    return;
  }
  const type = { ".wasm": "application/wasm", ".js": "text/javascript", ".html": "text/html" }[path.extname(file)];
  res.writeHead(200, { "content-type": type || "application/octet-stream" });
  fs.createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader"] });
const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
await page.goto(`http://127.0.0.1:${server.address().port}/web/?w=320&h=180&backend=webgl&msaa=1&paused`);
await page.waitForFunction(() => window.odori && window.odori.ready, null, { timeout: 120000 });
const gene = path.join(assetsDir, "gene");
await page.setInputFiles("#files", [path.join(gene, "Gene_light.pmx"),
  path.join(assetsDir, "wavefile", "wavefile_v2.vmd"),
  ...fs.readdirSync(path.join(gene, "light")).map((f) => path.join(gene, "light", f))]);
await page.waitForFunction(() => window.odori.loads >= 1, null, { timeout: 120000 });
const args = [+framesArg, physics === "1", deform === "1"];
await page.evaluate((a) => window.odori.bench(...a), args); // warm up
const cdp = await page.context().newCDPSession(page);
await cdp.send("Profiler.enable");
await cdp.send("Profiler.setSamplingInterval", { interval: +(process.env.PROFILE_INTERVAL_US || 200) });
await cdp.send("Profiler.start");
const us = await page.evaluate((a) => window.odori.bench(...a), args);
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
for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  console.log(`${((100 * t) / total).toFixed(1).padStart(5)} %  ${name.slice(0, 140)}`);
}
