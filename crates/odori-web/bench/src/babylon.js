// Measurement harness, not product: babylon-mmd 1.3's WASM runtime (MmdWasmRuntime) playing
// Gene_light.pmx × wavefile_v2.vmd, so run.mjs can time it beside odori's page in the same
// Chromium. Query: ?mode=pose (single-threaded release build without physics, "SR") or
// ?mode=physics (single-threaded release build with its integrated Bullet, "SPR");
// &w=&h= the canvas; &msaa=1 for no antialiasing. Single-threaded builds because odori's page
// is single-threaded too (the multi-threaded ones need cross-origin isolation and workers).
//
// window.bmmd.bench(n): frames 1..n in order at 30 fps steps (physics 1/60 s fixed steps, two a
// frame, as odori), nothing drawn; mean µs a frame. window.bmmd.play(): the engine's render
// loop with the runtime registered (real time, outlines and a shadow map), counting frames.
// The whole of Babylon.js with its side effects (shader stores, scene components), as an
// application that imports "@babylonjs/core" gets it.
import { Engine, Scene, Vector3, Color3, Color4, ArcRotateCamera, DirectionalLight, HemisphericLight, ShadowGenerator, LoadAssetContainerAsync } from "@babylonjs/core";
import "babylon-mmd/esm/Loader/pmxLoader";
import { MmdStandardMaterialBuilder } from "babylon-mmd/esm/Loader/mmdStandardMaterialBuilder";
import "babylon-mmd/esm/Loader/mmdOutlineRenderer";
import { SdefInjector } from "babylon-mmd/esm/Loader/sdefInjector";
import { VmdLoader } from "babylon-mmd/esm/Loader/vmdLoader";
import { MmdStandardMaterialProxy } from "babylon-mmd/esm/Runtime/mmdStandardMaterialProxy";
import { GetMmdWasmInstance } from "babylon-mmd/esm/Runtime/Optimized/mmdWasmInstance";
import { MmdWasmRuntime } from "babylon-mmd/esm/Runtime/Optimized/mmdWasmRuntime";
import { MmdWasmPhysics } from "babylon-mmd/esm/Runtime/Optimized/Physics/mmdWasmPhysics";
import { MmdWasmAnimation } from "babylon-mmd/esm/Runtime/Optimized/Animation/mmdWasmAnimation";
import "babylon-mmd/esm/Runtime/Optimized/Animation/mmdWasmRuntimeModelAnimation";
import * as sr from "babylon-mmd/esm/Runtime/Optimized/wasm/sr";
import * as spr from "babylon-mmd/esm/Runtime/Optimized/wasm/spr";

const params = new URLSearchParams(location.search);
const mode = params.get("mode") || "physics";
const W = +(params.get("w") || 1280);
const H = +(params.get("h") || 720);
const msaa = +(params.get("msaa") || 4);
const MODEL = "/assets/gene/";
const MOTION = "/assets/wavefile/wavefile_v2.vmd";
// The bundle has no wasm beside it: each build's wasm is served from node_modules.
const WASM = "/bench/node_modules/babylon-mmd/esm/Runtime/Optimized/wasm/";

const status = { ready: false, error: null, frames: 0, mode };
window.bmmd = status;

// An instance type whose wasm-bindgen init fetches the wasm from WASM (GetMmdWasmInstance
// calls `default()` with no argument, which would resolve it beside the bundle).
function instanceType(glue, name) {
  const inner = { ...glue, default: () => glue.default({ module_or_path: `${WASM}${name}/index_bg.wasm` }) };
  return { getWasmInstanceInner: () => inner };
}

async function main() {
  const canvas = document.getElementById("view");
  canvas.width = W;
  canvas.height = H;
  canvas.style.width = `${W}px`;
  canvas.style.height = `${H}px`;
  const engine = new Engine(canvas, msaa > 1, { antialias: msaa > 1, stencil: true }, false);
  SdefInjector.OverrideEngineCreateEffect(engine);
  const scene = new Scene(engine);
  scene.clearColor = new Color4(1, 1, 1, 1);
  scene.ambientColor = new Color3(0.5, 0.5, 0.5);
  // Framed as odori's page frames her (about the same pixels drawn).
  const camera = new ArcRotateCamera("camera", -Math.PI / 2, Math.PI / 2.2, 26, new Vector3(0, 10.3, 0), scene);
  camera.minZ = 0.5;
  camera.maxZ = 1000;
  const hemi = new HemisphericLight("hemi", new Vector3(0, 1, 0), scene);
  hemi.intensity = 0.4;
  const sun = new DirectionalLight("sun", new Vector3(0.5, -1, 1), scene);
  sun.intensity = 0.8;
  sun.position = new Vector3(-10, 30, -20);
  // Self-shadow as odori draws it (a shadow map of the model onto itself).
  const shadows = new ShadowGenerator(2048, sun, true);
  shadows.transparencyShadow = true;
  shadows.bias = 0.01;

  const physics = mode === "physics";
  const wasm = await GetMmdWasmInstance(physics ? instanceType(spr, "spr") : instanceType(sr, "sr"), 1);
  const runtime = new MmdWasmRuntime(wasm, scene, physics ? new MmdWasmPhysics(scene) : null);

  const container = await LoadAssetContainerAsync(`${MODEL}Gene_light.pmx`, scene, {
    pluginOptions: { mmdmodel: { materialBuilder: new MmdStandardMaterialBuilder(), loggingEnabled: true } },
  });
  container.addAllToScene();
  const mesh = container.meshes[0];
  for (const m of mesh.metadata.meshes) {
    m.receiveShadows = true;
    shadows.addShadowCaster(m, false);
  }
  const model = runtime.createMmdModel(mesh, { materialProxyConstructor: MmdStandardMaterialProxy, buildPhysics: physics });
  const vmd = await new VmdLoader(scene).loadAsync("wavefile_v2", MOTION);
  const animation = new MmdWasmAnimation(vmd, wasm, scene);
  model.setRuntimeAnimation(model.createRuntimeAnimation(animation));
  status.endFrame = runtime.animationFrameTimeDuration;
  status.ready = true;

  // Frames 1..n as playing steps through them, timed together; frame 0 (and, with physics,
  // the world's start there) before the clock starts.
  status.bench = (n) => {
    const clock = runtime._physicsClock;
    runtime._physicsClock = { getDeltaTime: () => 1 / 30 };
    runtime.pauseAnimation();
    runtime._currentFrameTime = 0;
    runtime.playAnimation();
    runtime.beforePhysics(0);
    runtime.afterPhysics();
    const dt = 1000 / 30;
    const t = performance.now();
    for (let f = 1; f <= n; f++) {
      runtime.beforePhysics(dt);
      runtime.afterPhysics();
    }
    const us = ((performance.now() - t) * 1e3) / n;
    status.benchFrame = runtime.currentFrameTime;
    runtime._physicsClock = clock;
    runtime.pauseAnimation();
    return us;
  };
  // Play in real time from frame 0 and draw every animation frame.
  status.play = () => {
    runtime.pauseAnimation();
    runtime._currentFrameTime = 0;
    runtime.register(scene);
    runtime.playAnimation();
    engine.runRenderLoop(() => {
      scene.render();
      status.frames++;
    });
  };
  status.position = () => runtime.currentFrameTime;
}

main().catch((e) => {
  status.error = String((e && e.stack) || e);
  console.error(status.error);
});
