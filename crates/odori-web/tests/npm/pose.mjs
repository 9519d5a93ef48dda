// Drives the packed npm package in Node (no DOM) for tests/npm.rs: Gene_light × wavefile_v2
// through the package's public API, every frame's results written raw for the test to hold
// to the native build's bit for bit; then bad bytes, which must throw an OdoriError.
//
//   node pose.mjs GENE_DIR VMD OUT_DIR FRAMES PHYSICS_FRAMES
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { Instance, Model, Motion, OdoriError, framesPerSecond } from 'odori';

const [geneDir, vmdPath, out, frames, physicsFrames] = process.argv.slice(2);

async function folder(dir, root = dir, files = new Map()) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await folder(p, root, files);
    else if (!e.name.endsWith('.pmd')) files.set(relative(root, p), await readFile(p));
  }
  return files;
}

const files = await folder(geneDir);
const model = await Model.fromFiles(files, { path: 'Gene_light.pmx' });
const motion = await Motion.load(model, { 'wavefile_v2.vmd': await readFile(vmdPath) });
const result = {
  name: model.name,
  bones: model.boneNames.length,
  morphs: model.morphNames.length,
  endFrame: motion.endFrame,
  fps: framesPerSecond(),
  modelWarnings: model.warnings,
  motionWarnings: motion.warnings,
};

// Frames 0..FRAMES in order without physics: world matrices, as `odori pose` gives them.
{
  const dancer = new Instance(model, motion, { physics: false });
  const n = Number(frames);
  const world = new Float32Array(n * result.bones * 16);
  const t = performance.now();
  for (let f = 0; f < n; f++) {
    dancer.evaluate(f);
    world.set(dancer.worldMatrices, f * result.bones * 16);
  }
  result.poseMs = (performance.now() - t) / n;
  await writeFile(join(out, 'world.f32'), new Uint8Array(world.buffer));
  dancer.dispose();
}

// With physics, frames in order: skinning matrices, morph weights and visibility.
{
  const dancer = new Instance(model, motion, { physics: true });
  result.hasPhysics = dancer.hasPhysics;
  const n = Number(physicsFrames);
  const per = result.bones * 16 + result.morphs + 1;
  const data = new Float32Array(n * per);
  const t = performance.now();
  for (let f = 0; f < n; f++) {
    dancer.evaluate(f);
    const at = f * per;
    data.set(dancer.skinningMatrices, at);
    data.set(dancer.morphWeights, at + result.bones * 16);
    data[at + per - 1] = dancer.visible ? 1 : 0;
  }
  result.physicsMs = (performance.now() - t) / n;
  await writeFile(join(out, 'physics.f32'), new Uint8Array(data.buffer));
  dancer.dispose();
}

// The same model from its bytes and a resolver asked for each texture name (as a page that
// fetches them one by one), and the images odori decodes for each material.
const resolved = [];
const viaResolver = await Model.load(files.get('Gene_light.pmx'), {
  name: 'Gene_light.pmx',
  resolve: async (name) => {
    resolved.push(name);
    return files.get(name.replaceAll('\\', '/'));
  },
});
const decoded = (m) => m.materials.map((mat, i) => {
  const img = mat.texture ? m.image(i, 'texture') : null;
  return img ? [img.width, img.height, img.pixels.length] : null;
});
result.resolver = {
  asked: resolved,
  warnings: viaResolver.warnings,
  decoded: decoded(viaResolver),
  decodedFromFiles: decoded(model),
  textureNames: model.materials.map((m) => m.texture),
};

// Bad bytes: a PMX cut short, and a motion for another model.
const pmx = files.get('Gene_light.pmx');
try {
  await Model.load(pmx.subarray(0, 5000), { name: 'cut.pmx' });
  result.truncated = 'loaded';
} catch (e) {
  result.truncated = { odoriError: e instanceof OdoriError, message: e.message };
}
try {
  const other = await Model.fromFiles(files, { path: 'Gene_light.pmx' });
  new Instance(other, motion);
  result.otherModel = 'accepted';
} catch (e) {
  result.otherModel = { odoriError: e instanceof OdoriError, message: e.message };
}
console.log(JSON.stringify(result));
