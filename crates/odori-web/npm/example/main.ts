// The npm package's README example as a TypeScript module (type-checked by tests/npm.rs with
// `tsc --noEmit`): an MMD model with its textures, a dance, a camera and a song in a three.js
// page. Paths are your site's.
import * as THREE from 'three';
import { Camera, Model, Motion, OdoriError } from 'odori';
import { Dancer, Player } from 'odori/three';

/** A file of the site as bytes, or undefined when it is not there. */
async function bytes(url: string): Promise<Uint8Array | undefined> {
  const response = await fetch(url);
  return response.ok ? new Uint8Array(await response.arrayBuffer()) : undefined;
}

const renderer = new THREE.WebGLRenderer({ antialias: true });
renderer.setSize(innerWidth, innerHeight);
renderer.setClearColor(0xffffff);
document.body.appendChild(renderer.domElement);
const scene = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(30, innerWidth / innerHeight, 0.5, 4000);

try {
  // The model; each texture it names is fetched from beside it.
  const pmx = await bytes('models/miku/miku.pmx');
  if (!pmx) throw new Error('models/miku/miku.pmx is missing');
  const model = await Model.load(pmx, {
    name: 'miku.pmx',
    resolve: (name) => bytes(`models/miku/${name.replaceAll('\\', '/')}`),
  });
  for (const w of model.warnings) console.warn(w);
  const motion = await Motion.load(model, { 'dance.vmd': (await bytes('motions/dance.vmd'))! });
  const cameraMotion = await Camera.load((await bytes('motions/camera.vmd'))!);

  const dancer = new Dancer(model, motion, { physics: true });
  scene.add(dancer.mesh);
  // A prop in her right hand: it follows the bone.
  dancer.bone('右手首')?.add(new THREE.Mesh(new THREE.BoxGeometry(0.5, 0.5, 4)));

  const audio = new Audio('music/song.mp3');
  const player = new Player({ dancers: [dancer], camera, cameraMotion, audio });
  addEventListener('click', () => audio.play().catch(console.warn), { once: true });
  renderer.setAnimationLoop(() => {
    player.update();
    renderer.render(scene, camera);
  });
} catch (e) {
  // An OdoriError names the file, the section and the byte offset.
  if (e instanceof OdoriError) document.body.textContent = e.message;
  else throw e;
}
