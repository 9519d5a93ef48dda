// Babylon.js's glTF loader, which reads KHR_animation_pointer, in Node without a browser
// (NullEngine): loads a GLB and prints the camera's vertical field of view (radians) at each
// frame asked for, as one JSON line {"frames": [...], "fov": [...]}. Run by
// tests/export_gltf.rs: node babylon_fov.mjs FILE.glb FRAME...
import { readFileSync } from "node:fs";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Scene } from "@babylonjs/core/scene.js";
import { LoadAssetContainerAsync } from "@babylonjs/core/Loading/sceneLoader.js";
import "@babylonjs/loaders/glTF/2.0/index.js";

const [file, ...args] = process.argv.slice(2);
const frames = args.map(Number);
const engine = new NullEngine();
const scene = new Scene(engine);
// 30 animation frames a second, MMD's: a glTF time t seconds is Babylon frame 30 t.
const container = await LoadAssetContainerAsync(new Uint8Array(readFileSync(file)), scene, {
  pluginExtension: ".glb",
  pluginOptions: { gltf: { targetFps: 30 } },
});
container.addAllToScene();
if (container.cameras.length !== 1) throw new Error(`${container.cameras.length} cameras`);
const camera = container.cameras[0];
const group = container.animationGroups[0];
const pointed = group.targetedAnimations.filter((t) => t.target === camera);
if (pointed.length === 0) throw new Error("no animation targets the camera itself");
group.start(false);
group.pause();
const fov = frames.map((f) => {
  group.goToFrame(f);
  return camera.fov;
});
console.log(JSON.stringify({ frames, fov, properties: pointed.map((t) => t.animation.targetProperty) }));
engine.dispose();
