// Measurement harness, not product: three.js r171's MMD support (MMDLoader, MMDAnimationHelper
// with MMDPhysics on ammo.js: the last release that has them) playing Gene_light.pmx ×
// wavefile_v2.vmd, so run.mjs can time it beside odori's package in the same Chromium, as a
// three.js user had it. Query: ?physics=0|1.
//
// window.t171.bench(n): a fresh helper with the model and its animation (physics as asked),
// then frames 1..n by helper.update(1/30), nothing drawn; mean µs a frame.
import * as THREE from "three171";
import { MMDLoader } from "three171/examples/jsm/loaders/MMDLoader.js";
import { MMDAnimationHelper } from "three171/examples/jsm/animation/MMDAnimationHelper.js";

const params = new URLSearchParams(location.search);
const physics = params.get("physics") !== "0";
const status = { ready: false, error: null };
window.t171 = status;

async function main() {
  if (physics) {
    // MMDPhysics reads the global Ammo (ammo.js, the build three's examples ship).
    window.Ammo = await window.Ammo();
  }
  const loader = new MMDLoader();
  const { mesh, animation } = await new Promise((ok, fail) => loader.loadWithAnimation(
    "/assets/gene/Gene_light.pmx", "/assets/wavefile/wavefile_v2.vmd", ok, undefined, fail));
  const scene = new THREE.Scene();
  scene.add(mesh);
  let helper = null;
  status.bench = (n) => {
    if (helper) helper.remove(mesh);
    helper = new MMDAnimationHelper();
    helper.add(mesh, { animation, physics });
    helper.update(0);
    const t = performance.now();
    for (let f = 1; f <= n; f++) helper.update(1 / 30);
    return ((performance.now() - t) * 1e3) / n;
  };
  status.ready = true;
}

main().catch((e) => {
  status.error = String((e && e.stack) || e);
  console.error(status.error);
});
