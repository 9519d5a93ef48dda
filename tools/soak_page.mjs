// Soak of the web page: Gene_light × wavefile_v2 with physics, dropped on the page through its
// file input, playing (the page loops at the dance's end) for MINUTES in headless Chromium
// (WebGL2 on SwiftShader). Every 10 s: the resident memory, open file handles and threads of
// every Chromium process together (from /proc), and the page's JavaScript heap; into
// OUT/samples.csv. Frame 300 is captured from the canvas before and after (the page pauses and
// seeks, and its pre-roll plays frames 0 to 299 in order, as at the start), and compared byte
// for byte. Not run by CI. Run from the repository with the page built and served:
//   crates/odori-web/build.sh target/web-soak
//   python3 -m http.server -d target/web-soak --bind 127.0.0.1 8765 &
//   NODE_PATH=crates/odori-web/tests/browser/node_modules \
//     node tools/soak_page.mjs http://127.0.0.1:8765/ [MINUTES] [OUT]
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const require = createRequire(path.resolve("crates/odori-web/tests/browser/package.json"));
const { chromium } = require("playwright-core");
const [url, minutesArg, outArg] = process.argv.slice(2);
const minutes = +(minutesArg || 30);
const out = path.resolve(outArg || "target/soak-page");
fs.mkdirSync(out, { recursive: true });
const assets = path.resolve("../shared/assets");
const gene = path.join(assets, "gene");

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "odori-soak-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1000, height: 700 },
  args: ["--no-sandbox", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--enable-unsafe-swiftshader",
    "--headless", "--disable-gpu", "--enable-precise-memory-info"],
});
const page = context.pages()[0] || (await context.newPage());
const errors = [];
page.on("pageerror", (e) => errors.push(e.message));
const wait = (fn, arg, timeout = 300000) => page.waitForFunction(fn, arg, { timeout, polling: 100 });
const canvasShot = (file) => page.locator("#view").screenshot({ path: path.join(out, file) });

// Every process whose command line is Chromium's and whose user data dir is this profile.
function chromiumProcs() {
  const procs = [];
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes("chromium") || !cmd.includes(profile)) continue;
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      const rss = +(status.match(/VmRSS:\s+(\d+)/) || [0, 0])[1];
      const threads = +(status.match(/Threads:\s+(\d+)/) || [0, 0])[1];
      const handles = fs.readdirSync(`/proc/${pid}/fd`).length;
      procs.push({ rss, threads, handles });
    } catch { /* gone meanwhile */ }
  }
  return procs;
}

async function frame300(file) {
  await page.evaluate(() => window.odori.seek(300));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await canvasShot(file);
}

await page.goto(`${url}?w=640&h=360&backend=webgl`);
await wait(() => window.odori && (window.odori.firstFrameMs !== null || window.odori.lastError));
const files = [path.join(gene, "Gene_light.pmx"),
  ...fs.readdirSync(path.join(gene, "light")).map((f) => path.join(gene, "light", f)),
  path.join(assets, "wavefile", "wavefile_v2.vmd")];
await page.setInputFiles("#files", files);
await wait(() => window.odori.loads >= 1 || window.odori.lastError);
const loadError = await page.evaluate(() => window.odori.lastError);
if (loadError) throw new Error(loadError);
await frame300("start.png");
await page.evaluate(() => window.odori.play());
const csv = ["seconds,rss_kb,handles,threads,processes,js_heap_kb,position"];
const t0 = Date.now();
while (Date.now() - t0 < minutes * 60000) {
  const procs = chromiumProcs();
  const sum = (k) => procs.reduce((a, p) => a + p[k], 0);
  const [heap, position] = await page.evaluate(() =>
    [Math.round(performance.memory.usedJSHeapSize / 1024), window.odori.position()]);
  csv.push([Math.round((Date.now() - t0) / 1000), sum("rss"), sum("handles"), sum("threads"),
    procs.length, heap, position.toFixed(1)].join(","));
  fs.writeFileSync(path.join(out, "samples.csv"), csv.join("\n") + "\n");
  await page.waitForTimeout(10000);
}
const frames = await page.evaluate(() => window.odori.frames());
await frame300("end.png");
await context.close();
fs.rmSync(profile, { recursive: true, force: true });
const same = fs.readFileSync(path.join(out, "start.png")).equals(fs.readFileSync(path.join(out, "end.png")));
console.log(`${frames} animation frames drawn; page errors: ${errors.length ? errors.join("; ") : "none"}`);
console.log(same ? "frame 300 at the end is the picture at the start, byte for byte"
  : "frame 300 differs between start and end");
process.exit(same && errors.length === 0 ? 0 : 1);
