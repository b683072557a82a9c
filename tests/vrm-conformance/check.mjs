// Conformance of Pelt's exported GLB with the real clients:
//  1. Khronos gltf-validator: zero errors.
//  2. three's GLTFLoader + @pixiv/three-vrm-springbone: every spring and joint is found,
//     and stepping at 60 fps makes the tail droop and settle with no NaN.
// Usage: node check.mjs FILE.glb   (exit status 0 = pass; prints a JSON summary)
import { readFileSync } from 'node:fs';
import validator from 'gltf-validator';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import {
  VRMSpringBoneJoint,
  VRMSpringBoneLoaderPlugin,
  VRMSpringBoneManager,
} from '@pixiv/three-vrm-springbone';

const file = process.argv[2];
if (!file) {
  console.error('usage: node check.mjs FILE.glb');
  process.exit(2);
}
const bytes = new Uint8Array(readFileSync(file));
const failures = [];
const fail = (msg) => failures.push(msg);

// 1. gltf-validator.
const report = await validator.validateBytes(bytes, { maxIssues: 100 });
const counts = report.issues;
if (counts.numErrors !== 0) {
  fail(`gltf-validator: ${counts.numErrors} errors`);
  for (const m of counts.messages.filter((m) => m.severity === 0)) {
    console.error(`  ${m.code}: ${m.message} at ${m.pointer}`);
  }
}

// 2. three + three-vrm-springbone.
const json = JSON.parse(
  new TextDecoder().decode(bytes.subarray(20, 20 + new DataView(bytes.buffer).getUint32(12, true))),
);
const ext = json.extensions?.VRMC_springBone;
if (!ext) fail('no VRMC_springBone in the file');
const expectedJoints = (ext?.springs ?? []).reduce((n, s) => n + Math.max(s.joints.length - 1, 0), 0);

const loader = new GLTFLoader();
loader.register((parser) => new VRMSpringBoneLoaderPlugin(parser));
const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
const gltf = await new Promise((resolve, reject) => loader.parse(buffer, '', resolve, reject));
const manager = gltf.userData.vrmSpringBoneManager;
const summary = {
  validator: { errors: counts.numErrors, warnings: counts.numWarnings, infos: counts.numInfos },
  springs: ext?.springs?.length ?? 0,
  expectedJoints,
};
if (!manager) {
  fail('three-vrm-springbone found no spring bone manager');
} else {
  const joints = [...manager.joints];
  summary.joints = joints.length;
  summary.colliderGroups = manager.colliderGroups.length;
  summary.colliders = manager.colliders.length;
  if (joints.length !== expectedJoints) fail(`found ${joints.length} joints, expected ${expectedJoints}`);
  if (manager.colliderGroups.length !== (ext.colliderGroups?.length ?? 0)) fail('collider groups missing');
  if (manager.colliders.length !== (ext.colliders?.length ?? 0)) fail('colliders missing');
  for (const s of ext.springs) {
    for (const j of s.joints) {
      if (!Number.isFinite(j.stiffness) || !Number.isFinite(j.dragForce)) fail('non-finite joint parameter');
    }
  }
  // The tip: the end node of the first spring.
  const tipIndex = ext.springs[0].joints.at(-1).node;
  const tip = await gltf.parser.getDependency('node', tipIndex);
  const scene = gltf.scene;
  scene.updateMatrixWorld(true);
  manager.setInitState();
  const pos = new THREE.Vector3();
  const y0 = tip.getWorldPosition(pos).y;
  const start = pos.clone();
  const dt = 1 / 60;
  const trace = [];
  let nan = false;
  for (let frame = 1; frame <= 600; frame++) {
    manager.update(dt);
    scene.updateMatrixWorld(true);
    tip.getWorldPosition(pos);
    if (!Number.isFinite(pos.x + pos.y + pos.z)) nan = true;
    for (const j of joints) {
      const q = j.bone.quaternion;
      if (!Number.isFinite(q.x + q.y + q.z + q.w)) nan = true;
    }
    trace.push(pos.clone());
  }
  const drop = y0 - trace.at(-1).y;
  let lastSecondMotion = 0;
  for (let i = trace.length - 60; i < trace.length; i++) {
    lastSecondMotion = Math.max(lastSecondMotion, trace[i].distanceTo(trace.at(-1)));
  }
  summary.tip = {
    start: start.toArray().map((v) => +v.toFixed(4)),
    after10s: trace.at(-1).toArray().map((v) => +v.toFixed(4)),
    dropM: +drop.toFixed(4),
    lastSecondMotionM: +lastSecondMotion.toFixed(6),
    at1s: +(y0 - trace[59].y).toFixed(4),
  };
  // Run sideways at 3 m/s for half a second, stop, and watch the tip swing (reported, as
  // the seed's comparison of the two models; not a pass/fail criterion).
  const rootNode = await gltf.parser.getDependency('node', 0);
  const x0 = tip.getWorldPosition(pos).x;
  let maxSwing = 0;
  let swingAt2s = 0;
  for (let frame = 1; frame <= 30 + 180; frame++) {
    if (frame <= 30) rootNode.position.x += 3 / 60;
    scene.updateMatrixWorld(true);
    manager.update(dt);
    scene.updateMatrixWorld(true);
    tip.getWorldPosition(pos);
    if (!Number.isFinite(pos.x + pos.y + pos.z)) nan = true;
    const rel = pos.x - (x0 + rootNode.position.x);
    if (frame > 30) maxSwing = Math.max(maxSwing, Math.abs(rel));
    if (frame > 30 + 120 - 30 && frame <= 30 + 120 + 30) swingAt2s = Math.max(swingAt2s, Math.abs(rel));
  }
  summary.sidewaysRun = { maxSwingAfterStopM: +maxSwing.toFixed(4), swingAround2sAfterStopM: +swingAt2s.toFixed(4) };
  if (nan) fail('NaN in the spring simulation');
  if (!(drop > 0.05)) fail(`the tail tip dropped ${drop} m, expected it to droop more than 5 cm`);
  if (!(lastSecondMotion < 0.002)) fail(`the tail still moves ${lastSecondMotion} m in the last second`);
}
// 3. The level-segment droop: a level bone as long as the tail's first bone, with the
// file's VRM parameters, stepped by three-vrm at 60 fps, must settle at the angle our model
// settles at (the fixed point of our 120 Hz step, from PELT_spring_chains' exact values).
const pelt = json.extensions?.PELT_spring_chains?.chains?.[0];
const vj = ext?.springs?.[0]?.joints?.[0];
if (pelt && vj) {
  const L = Math.hypot(...pelt.joints[1].offset);
  const h = 1 / 120;
  const k = 1 - Math.exp(-pelt.stiffness * h);
  const g = Math.hypot(...pelt.gravity);
  const ours = Math.atan2((1 - k) * g * h * h, k * L);
  const root = new THREE.Object3D();
  const head = new THREE.Object3D();
  const tail = new THREE.Object3D();
  tail.position.set(L, 0, 0);
  root.add(head);
  head.add(tail);
  root.updateMatrixWorld(true);
  const m = new VRMSpringBoneManager();
  m.addJoint(
    new VRMSpringBoneJoint(head, tail, {
      hitRadius: 0,
      stiffness: vj.stiffness,
      gravityPower: vj.gravityPower,
      gravityDir: new THREE.Vector3(...vj.gravityDir),
      dragForce: vj.dragForce,
    }),
  );
  m.setInitState();
  for (let i = 0; i < 60 * 30; i++) {
    m.update(1 / 60);
    root.updateMatrixWorld(true);
  }
  const p = tail.getWorldPosition(new THREE.Vector3());
  const theirs = Math.atan2(-p.y, p.x);
  summary.levelSegment = {
    lengthM: +L.toFixed(4),
    oursDeg: +((ours * 180) / Math.PI).toFixed(3),
    threeVrmDeg: +((theirs * 180) / Math.PI).toFixed(3),
  };
  if (!(Math.abs(theirs - ours) < (0.2 * Math.PI) / 180)) {
    fail(`level-segment droop: three-vrm ${theirs} rad, ours ${ours} rad`);
  }
} else {
  fail('no PELT_spring_chains or VRMC joint to compare the level-segment droop with');
}

console.log(JSON.stringify(summary, null, 1));
if (failures.length) {
  for (const f of failures) console.error(`FAIL: ${f}`);
  process.exit(1);
}
console.log('conformance: PASS');
