// odori's three.js adapter: an MMD model as a THREE.SkinnedMesh drawn with MMD's look, driven
// by odori (IK, append, physics) every frame; a THREE.PerspectiveCamera driven by a camera
// VMD; a clock that can follow the song. What MMDLoader and MMDAnimationHelper gave three.js
// before r172, with odori doing the dancing.
//
// odori hands results mirrored into three.js's right-handed frame (`mirror`: Z negated,
// winding reversed), so nothing is converted here. The skinning matrices odori computes go
// to the skeleton's bone texture as they are: three.js never recomputes them.

import * as THREE from 'three';
import { Instance, framesPerSecond } from './index.js';

/** MMD's default light: grey 154/255 from (-0.5, -1, 0.5), mirrored into three's frame. */
const LIGHT_COLOR = new THREE.Color(154 / 255, 154 / 255, 154 / 255);
const LIGHT_DIRECTION = new THREE.Vector3(-0.5, -1.0, -0.5);

// The skinned, morphed vertex in three's chunks, then what MMD's shading needs.
const VERTEX_HEAD = /* glsl */ `
#include <common>
#include <morphtarget_pars_vertex>
#include <skinning_pars_vertex>
`;
const VERTEX_DEFORM = /* glsl */ `
  #include <beginnormal_vertex>
  #include <morphinstance_vertex>
  #include <morphnormal_vertex>
  #include <skinbase_vertex>
  #include <skinnormal_vertex>
  #include <begin_vertex>
  #include <morphtarget_vertex>
  #include <skinning_vertex>
`;

// MMD's look, as odori's renderer draws it (odori-render's mmd.wgsl, after MikuMikuDance's
// full.fx), in MMD's gamma space: no colour-space conversion on input or output.
const MODEL_VERTEX = /* glsl */ `${VERTEX_HEAD}
varying vec3 vWorld;
varying vec3 vNormal;
varying vec2 vUv;
varying vec2 vSphereUv;
void main() {
${VERTEX_DEFORM}
  vec4 world = modelMatrix * vec4(transformed, 1.0);
  vWorld = world.xyz;
  vNormal = normalize(mat3(modelMatrix) * objectNormal);
  vUv = uv;
  vec3 nv = (viewMatrix * vec4(vNormal, 0.0)).xyz;
  vSphereUv = vec2(nv.x * 0.5 + 0.5, nv.y * -0.5 + 0.5);
  gl_Position = projectionMatrix * viewMatrix * world;
}`;

const MODEL_FRAGMENT = /* glsl */ `
uniform vec4 diffuse;
uniform vec3 ambient;
uniform vec4 specular;
uniform vec3 lightColor;
uniform vec3 lightDirection;
uniform bool hasMap;
uniform sampler2D map;
uniform int sphereMode;
uniform sampler2D sphereMap;
uniform sampler2D toonMap;
varying vec3 vWorld;
varying vec3 vNormal;
varying vec2 vUv;
varying vec2 vSphereUv;
void main() {
  vec3 n = normalize(vNormal);
  vec3 toLight = -normalize(lightDirection);
  vec4 color = vec4(clamp(diffuse.rgb * lightColor + ambient, 0.0, 1.0), diffuse.a);
  if (hasMap) color *= texture2D(map, vUv);
  vec4 sphere = texture2D(sphereMap, vSphereUv);
  if (sphereMode == 1) color.rgb *= sphere.rgb;
  else if (sphereMode == 2) color.rgb += sphere.rgb;
  if (color.a < 0.5 / 255.0) discard;
  float nl = dot(n, toLight);
  vec3 halfV = normalize(normalize(cameraPosition - vWorld) + toLight);
  vec3 spec = vec3(0.0);
  if (specular.w > 0.0) spec = pow(max(dot(halfV, n), 0.0), specular.w) * specular.rgb * lightColor;
  vec4 toon = texture2D(toonMap, vec2(0.5, 0.5 - nl * 0.5));
  gl_FragColor = clamp(vec4(color.rgb * toon.rgb + spec, color.a), 0.0, 1.0);
}`;

// MMD's edge: an inverted hull pushed out along the screen-space normal by a number of
// pixels (edge size × the vertex's edge scale, one pixel a unit up to 720 lines).
const EDGE_VERTEX = /* glsl */ `${VERTEX_HEAD}
attribute float edgeScale;
uniform float edgeSize;
uniform vec2 resolution;
void main() {
${VERTEX_DEFORM}
  mat4 vp = projectionMatrix * viewMatrix;
  vec4 clip = vp * modelMatrix * vec4(transformed, 1.0);
  vec2 nc = (vp * vec4(mat3(modelMatrix) * objectNormal, 0.0)).xy;
  float len = length(nc);
  if (len > 1e-6) {
    float px = edgeSize * edgeScale * max(resolution.y / 720.0, 1.0);
    clip.xy += nc / len * px * 2.0 / resolution * clip.w;
  }
  gl_Position = clip;
}`;

const EDGE_FRAGMENT = /* glsl */ `
uniform vec4 edgeColor;
uniform float alpha;
void main() {
  gl_FragColor = vec4(edgeColor.rgb, edgeColor.a * min(alpha, 1.0));
}`;

/** An image odori decoded as a texture three.js samples as MMD does (top row at v = 0). */
function texture(image, wrap) {
  const t = new THREE.DataTexture(image.pixels, image.width, image.height, THREE.RGBAFormat);
  t.colorSpace = THREE.NoColorSpace;
  t.flipY = false;
  t.wrapS = t.wrapT = wrap;
  t.magFilter = THREE.LinearFilter;
  t.minFilter = THREE.LinearMipmapLinearFilter;
  t.generateMipmaps = true;
  t.needsUpdate = true;
  return t;
}

const WHITE = new THREE.DataTexture(new Uint8Array([255, 255, 255, 255]), 1, 1);
WHITE.needsUpdate = true;

/**
 * An MMD model dancing in a three.js scene: `mesh` (a THREE.SkinnedMesh with MMD's look and,
 * as a child, its edges) and `instance` (odori's, mirrored into three's frame). Call
 * `update(frame)` once per frame (or let a `Player` do it).
 */
export class Dancer {
  /**
   * `model` and `motion` from odori (`Model.load`, `Motion.load`); options: `physics`
   * (default true), `edges` (MMD's outlines, default true).
   */
  constructor(model, motion = null, { physics = true, edges = true } = {}) {
    this.model = model;
    this.instance = new Instance(model, motion, { physics, mirror: true });
    const geo = model.geometry({ mirror: true });
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.Float32BufferAttribute(geo.positions, 3));
    geometry.setAttribute('normal', new THREE.Float32BufferAttribute(geo.normals, 3));
    geometry.setAttribute('uv', new THREE.Float32BufferAttribute(geo.uvs, 2));
    geometry.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(geo.skinIndices, 4));
    geometry.setAttribute('skinWeight', new THREE.Float32BufferAttribute(geo.skinWeights, 4));
    geometry.setAttribute('edgeScale', new THREE.Float32BufferAttribute(geo.edgeScales, 1));
    geometry.setIndex(new THREE.Uint32BufferAttribute(geo.indices, 1));
    /** Morph target k is odori's morph `morphIndices[k]`. */
    this.morphIndices = Array.from(model.vertexMorphs());
    if (this.morphIndices.length > 0) {
      geometry.morphAttributes.position = this.morphIndices.map((m) =>
        new THREE.Float32BufferAttribute(model.vertexMorphOffsets(m, { mirror: true }), 3));
      geometry.morphTargetsRelative = true;
    }
    model.materials.forEach((m, i) => geometry.addGroup(m.start, m.count, i));

    const materials = model.materials.map((m, i) => this.#material(m, i));
    const mesh = new THREE.SkinnedMesh(geometry, materials);
    mesh.name = model.name;
    mesh.frustumCulled = false;
    mesh.bindMode = THREE.DetachedBindMode;

    // The bones, flat under the mesh, each placed at odori's model-space world pose (its
    // matrix a view of odori's, see `apply`): attach a prop to one with
    // `dancer.bone(name).add(prop)`.
    const names = model.boneNames;
    const rest = geo.restBonePositions;
    this.bones = names.map((name) => {
      const b = new THREE.Bone();
      b.name = name;
      b.matrixAutoUpdate = false;
      mesh.add(b);
      return b;
    });
    const inverses = names.map((_, i) =>
      new THREE.Matrix4().makeTranslation(-rest[i * 3], -rest[i * 3 + 1], -rest[i * 3 + 2]));
    const skeleton = new THREE.Skeleton(this.bones, inverses);
    const instance = this.instance;
    // odori's skinning matrices as they are: three.js would recompute them from the bones.
    skeleton.update = function update() {
      this.boneMatrices.set(instance.skinningMatrices);
      if (this.boneTexture !== null) this.boneTexture.needsUpdate = true;
    };
    mesh.bind(skeleton, new THREE.Matrix4());
    this.mesh = mesh;
    this.skeleton = skeleton;
    this.materials = materials;

    this.edgeMaterials = [];
    if (edges) {
      this.edgeMaterials = model.materials.map((m) => new THREE.ShaderMaterial({
        name: `${m.name} (edge)`,
        vertexShader: EDGE_VERTEX,
        fragmentShader: EDGE_FRAGMENT,
        uniforms: {
          edgeColor: { value: new THREE.Vector4(...m.edgeColor) },
          edgeSize: { value: m.edgeSize },
          alpha: { value: m.diffuse[3] },
          resolution: { value: new THREE.Vector2(1, 1) },
        },
        side: THREE.BackSide,
        transparent: true,
        visible: m.edge && m.edgeSize > 0,
      }));
      const edge = new THREE.SkinnedMesh(geometry, this.edgeMaterials);
      edge.name = `${model.name} (edges)`;
      edge.frustumCulled = false;
      edge.bindMode = THREE.DetachedBindMode;
      edge.bind(skeleton, new THREE.Matrix4());
      edge.renderOrder = 1;
      const size = new THREE.Vector2();
      edge.onBeforeRender = (renderer) => {
        renderer.getDrawingBufferSize(size);
        for (const e of this.edgeMaterials) e.uniforms.resolution.value.copy(size);
      };
      mesh.add(edge);
      this.edges = edge;
    }
  }

  /** The world-matrix view the bones' matrices are made of. */
  #world = null;

  #material(m, i) {
    const image = (slot) => this.model.image(i, slot);
    const main = m.texture ? image('texture') : null;
    const sphere = m.sphereMode === 'multiply' || m.sphereMode === 'add' ? image('sphere') : null;
    const toon = image('toon');
    return new THREE.ShaderMaterial({
      name: m.name,
      vertexShader: MODEL_VERTEX,
      fragmentShader: MODEL_FRAGMENT,
      uniforms: {
        diffuse: { value: new THREE.Vector4(...m.diffuse) },
        ambient: { value: new THREE.Color(...m.ambient) },
        specular: { value: new THREE.Vector4(...m.specular, m.specularPower) },
        lightColor: { value: LIGHT_COLOR.clone() },
        lightDirection: { value: LIGHT_DIRECTION.clone() },
        hasMap: { value: main !== null },
        map: { value: main ? texture(main, THREE.RepeatWrapping) : WHITE },
        sphereMode: { value: sphere ? (m.sphereMode === 'multiply' ? 1 : 2) : 0 },
        sphereMap: { value: sphere ? texture(sphere, THREE.ClampToEdgeWrapping) : WHITE },
        toonMap: { value: toon ? texture(toon, THREE.ClampToEdgeWrapping) : WHITE },
      },
      side: m.doubleSided ? THREE.DoubleSide : THREE.FrontSide,
      // MMD blends every material, in the model's order, writing depth.
      transparent: true,
      depthWrite: true,
    });
  }

  /** The bone named `name` (as the model names it), or undefined. */
  bone(name) {
    return this.bones.find((b) => b.name === name);
  }

  /**
   * Pose the model at MMD frame `frame` (30 a second): played on from the last frame when it
   * follows within three seconds (physics steps on), else a seek.
   */
  update(frame) {
    this.instance.playTo(frame);
    this.instance.evaluate();
    this.apply();
  }

  /** Hand the instance's last evaluation to three.js: bones, morphs, material colours. */
  apply() {
    const inst = this.instance;
    this.mesh.visible = inst.visible;
    // Each bone's matrix is a view of odori's world matrix in wasm memory: nothing is
    // copied; the views are re-made when wasm memory grew (the old buffer is then gone).
    const world = inst.worldMatrices;
    const bones = this.bones;
    if (world !== this.#world) {
      this.#world = world;
      for (let i = 0; i < bones.length; i++) bones[i].matrix.elements = world.subarray(i * 16, i * 16 + 16);
    }
    for (let i = 0; i < bones.length; i++) bones[i].matrixWorldNeedsUpdate = true;
    const weights = inst.morphWeights;
    const influences = this.mesh.morphTargetInfluences;
    if (influences) {
      const idx = this.morphIndices;
      for (let k = 0; k < idx.length; k++) influences[k] = weights[idx[k]];
    }
    const diffuse = inst.materialDiffuse;
    for (let i = 0; i < this.materials.length; i++) {
      this.materials[i].uniforms.diffuse.value.fromArray(diffuse, i * 4);
      if (this.edgeMaterials[i]) this.edgeMaterials[i].uniforms.alpha.value = diffuse[i * 4 + 3];
    }
  }

  /** Set MMD's light (a colour and a direction, in MMD's frame as a VMD keys them). */
  setLight(color, direction) {
    for (const m of this.materials) {
      m.uniforms.lightColor.value.copy(color);
      m.uniforms.lightDirection.value.set(direction.x, direction.y, -direction.z);
    }
  }

  dispose() {
    this.mesh.geometry.dispose();
    for (const m of [...this.materials, ...this.edgeMaterials]) {
      for (const u of Object.values(m.uniforms)) if (u.value?.isTexture && u.value !== WHITE) u.value.dispose();
      m.dispose();
    }
    this.skeleton.dispose();
    this.instance.dispose();
  }
}

/** Put `camera` (a THREE.PerspectiveCamera) where odori's camera motion has it at `frame`. */
export function applyCamera(camera, cameraMotion, frame) {
  const state = cameraMotion.at(frame, { mirror: true });
  new THREE.Matrix4().fromArray(state.matrixWorld)
    .decompose(camera.position, camera.quaternion, camera.scale);
  const fov = THREE.MathUtils.radToDeg(state.fov);
  if (camera.fov !== fov || camera.near !== 0.5) {
    camera.fov = fov;
    camera.near = 0.5;
    camera.far = 4000;
    camera.updateProjectionMatrix();
  }
}

/**
 * The clock of a scene: dancers and a camera moved together. While a song plays (an
 * HTMLMediaElement, or anything with `currentTime` in seconds and `paused`), the clock follows
 * it; otherwise it runs on its own, by the `delta` given to `update` or, without one, by the
 * real time since the last `update`. A song that cannot play (missing, or waiting for a
 * click) leaves the dance running on its own clock.
 */
export class Player {
  constructor({ dancers = [], camera = null, cameraMotion = null, audio = null } = {}) {
    this.dancers = dancers;
    this.camera = camera;
    this.cameraMotion = cameraMotion;
    this.audio = audio;
    /** Seconds since frame 0. */
    this.time = 0;
    this.fps = framesPerSecond();
    this.#last = null;
  }

  #last;

  /** Move on (by `delta` seconds, or the real time since the last call) and pose everything. */
  update(delta) {
    const now = performance.now();
    const step = delta ?? (this.#last === null ? 0 : (now - this.#last) / 1000);
    this.#last = now;
    const a = this.audio;
    this.time = a && a.paused === false && !a.error ? a.currentTime : this.time + step;
    this.#pose();
  }

  /** Jump to `seconds` (the song too). */
  seek(seconds) {
    this.time = seconds;
    if (this.audio) this.audio.currentTime = seconds;
    this.#pose();
  }

  /** The current MMD frame. */
  get frame() {
    return this.time * this.fps;
  }

  #pose() {
    const frame = this.frame;
    for (const d of this.dancers) d.update(frame);
    if (this.camera && this.cameraMotion) applyCamera(this.camera, this.cameraMotion, frame);
  }
}
