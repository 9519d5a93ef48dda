// Render frame F of a GLB with three.js's GLTFLoader in headless Chromium, through the file's
// own camera: node three_shot.js FILE.glb FRAME OUT.png
const http = require("http");
const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");

const [file, frame, out] = process.argv.slice(2);
const root = path.join(__dirname, "node_modules/three");
const page = `<!doctype html><html><body style="margin:0">
<script type="importmap">{"imports":{"three":"/three/build/three.module.js"}}</script>
<script type="module">
import * as THREE from "three";
import { GLTFLoader } from "/three/examples/jsm/loaders/GLTFLoader.js";
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setSize(640, 360);
renderer.setClearColor(0xffffff);
document.body.appendChild(renderer.domElement);
new GLTFLoader().load("/model.glb", (gltf) => {
  const scene = gltf.scene;
  scene.add(new THREE.AmbientLight(0xffffff, 1.5));
  const sun = new THREE.DirectionalLight(0xffffff, 1.5);
  sun.position.set(-0.5, 1, 1);
  scene.add(sun);
  const mixer = new THREE.AnimationMixer(scene);
  // Play once and hold the end: a looping clip wraps its last frame round to its first.
  const action = mixer.clipAction(gltf.animations[0]);
  action.setLoop(THREE.LoopOnce);
  action.clampWhenFinished = true;
  action.play();
  mixer.setTime(${Number(frame)} / 30);
  const camera = gltf.cameras[0];
  const fov = camera.userData.yfov;
  if (fov) camera.fov = THREE.MathUtils.radToDeg(fov[${Number(frame)}]);
  camera.aspect = 640 / 360;
  camera.updateProjectionMatrix();
  scene.updateMatrixWorld(true);
  renderer.render(scene, camera);
  window.done = true;
}, undefined, (e) => { window.failed = String(e); });
</script></body></html>`;

const server = http.createServer((req, res) => {
  if (req.url === "/") return res.end(page);
  if (req.url === "/model.glb") return res.end(fs.readFileSync(file));
  const p = path.join(root, req.url.replace(/^\/three\//, ""));
  res.setHeader("Content-Type", p.endsWith(".js") ? "text/javascript" : "application/octet-stream");
  fs.readFile(p, (err, data) => (err ? (res.statusCode = 404, res.end()) : res.end(data)));
});
server.listen(0, async () => {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist"],
  });
  const p = await browser.newPage({ viewport: { width: 640, height: 360 } });
  p.on("console", (m) => console.log("page:", m.text()));
  await p.goto(`http://127.0.0.1:${server.address().port}/`);
  await p.waitForFunction(() => window.done || window.failed, null, { timeout: 120000 });
  const failed = await p.evaluate(() => window.failed);
  if (failed) { console.error(failed); process.exit(1); }
  await p.screenshot({ path: out });
  await browser.close();
  server.close();
});
