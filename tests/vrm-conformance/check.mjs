// Conformance of Pelt's springs and files with the real clients:
//  1. Khronos gltf-validator: Pelt's creature GLB and VRM have no errors.
//  2. three-vrm's VRMLoaderPlugin loads the creature's VRM as a full VRM (meta, humanoid,
//     springs), and vrm.update() swings its tail.
//  3. The same motion of the scene root driven through `pelt tail-trace` and through
//     three-vrm at 60 fps: every joint within 0.05 mm at every frame, for the creature
//     standing, running sideways then stopping, and turning in place; for a chain with rest
//     rotations, scale, `center` and every collider kind it pushes against; and for a VRM
//     0.x file with a branch, 7 cm leaf tails and a per-group center. The trace's columns
//     must be exactly three-vrm's joints and their children (a VRM 0.x leaf's 7 cm tail
//     included). Both bone-length rules are checked: `--bone-length three-vrm` against
//     three-vrm's usual loop ("move the model, then update"), and `--bone-length rest`
//     against three-vrm with each joint's length taken from the rest pose, as the
//     specification's reference, UniVRM and Godot keep it (three-vrm's
//     `_calcWorldSpaceBoneLength` replaced; everything else is three-vrm's own).
//     Calling `scene.updateMatrixWorld()` between the move and `update` does NOT give the
//     rest rule: a joint's child then has its world matrix from before the joint's parent
//     turned this frame, while the joint's head has it after, so every joint below
//     another spring joint is still measured against a stale child. That loop is traced
//     too and how far it lies from each rule is reported (not checked).
// Usage: node check.mjs PATH/TO/pelt WORKDIR   (exit status 0 = pass; prints a JSON summary)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import validator from 'gltf-validator';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { VRMLoaderPlugin } from '@pixiv/three-vrm';
import { VRMSpringBoneLoaderPlugin } from '@pixiv/three-vrm-springbone';

const [pelt, work] = process.argv.slice(2);
if (!pelt || !work) {
  console.error('usage: node check.mjs PATH/TO/pelt WORKDIR');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const FRAMES = 600;
// The measured gap is a few micrometres (f32 against three.js's f64 arithmetic); a real
// difference in the rule is millimetres within a second.
const TOLERANCE_M = 5e-5;
const failures = [];
const fail = (msg) => failures.push(msg);
const summary = {};

// ---- files ------------------------------------------------------------------------------
const run = (args) => execFileSync(pelt, args, { encoding: 'utf8' });
const creatureGlb = join(work, 'creature.glb');
const creatureVrm = join(work, 'creature.vrm');
run(['export', '--out', creatureGlb]);
run(['export', '--vrm', '--out', creatureVrm]);

/** GLB bytes from a glTF JSON document with no binary chunk. */
function glb(doc) {
  let json = Buffer.from(JSON.stringify(doc));
  json = Buffer.concat([json, Buffer.alloc((4 - (json.length % 4)) % 4, 0x20)]);
  const head = Buffer.alloc(20);
  head.write('glTF', 0);
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(20 + json.length, 8);
  head.writeUInt32LE(json.length, 12);
  head.writeUInt32LE(0x4e4f534a, 16);
  return Buffer.concat([head, json]);
}

const rad = (deg) => (deg * Math.PI) / 180;
const axisAngle = (axis, deg) =>
  new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(...axis).normalize(), rad(deg)).toArray();

// A chain meeting every collider kind: rest rotations and a scaled parent, per-joint
// parameters, a second chain with a tilted, unnormalised gravity and a `center`.
const colliderDoc = {
  asset: { version: '2.0', generator: 'pelt conformance' },
  scene: 0,
  scenes: [{ nodes: [0] }],
  nodes: [
    { name: 'rig', children: [1, 11] },
    { name: 'body', translation: [0, 1, 0], rotation: axisAngle([0, 0, 1], 25), scale: [1.1, 1.1, 1.1], children: [2, 7] },
    { name: 'h0', translation: [0.15, -0.05, 0], rotation: axisAngle([1, 0, 0], 20), children: [3] },
    { name: 'h1', translation: [0, -0.12, 0.02], rotation: axisAngle([0, 1, 1], 15), children: [4] },
    { name: 'h2', translation: [0, -0.12, 0], children: [5] },
    { name: 'h3', translation: [0.01, -0.11, 0], children: [6] },
    { name: 'h_end', translation: [0, -0.1, 0] },
    { name: 'r0', translation: [-0.15, -0.05, 0], children: [8] },
    { name: 'r1', translation: [0, -0.15, 0], children: [9] },
    { name: 'r2', translation: [0, -0.15, 0], rotation: axisAngle([0, 0, 1], -10), children: [10] },
    { name: 'r_end', translation: [0, -0.1, 0] },
    { name: 'ground', translation: [0, 0.45, 0] },
  ],
  extensionsUsed: ['VRMC_springBone', 'VRMC_springBone_extended_collider'],
  extensions: {
    VRMC_springBone: {
      specVersion: '1.0',
      colliders: [
        { node: 1, shape: { sphere: { offset: [0.12, -0.38, 0.06], radius: 0.08 } } },
        { node: 1, shape: { capsule: { offset: [0.22, -0.2, -0.1], tail: [0.1, -0.42, -0.1], radius: 0.05 } } },
        {
          node: 11,
          shape: { sphere: { offset: [0, -1000, 0], radius: 1000 } },
          extensions: { VRMC_springBone_extended_collider: { specVersion: '1.0', shape: { plane: { offset: [0, 0, 0], normal: [0, 1, 0] } } } },
        },
        {
          node: 1,
          shape: { sphere: { offset: [0, -10000, 0], radius: 0 } },
          extensions: { VRMC_springBone_extended_collider: { specVersion: '1.0', shape: { sphere: { offset: [0, -0.2, 0], radius: 0.5, inside: true } } } },
        },
        {
          node: 1,
          shape: { sphere: { offset: [0, -10000, 0], radius: 0 } },
          extensions: {
            VRMC_springBone_extended_collider: {
              specVersion: '1.0',
              shape: { capsule: { offset: [-0.15, -0.1, 0], tail: [-0.15, -0.5, 0], radius: 0.08, inside: true } },
            },
          },
        },
      ],
      colliderGroups: [
        { name: 'front', colliders: [0, 1] },
        { name: 'bounds', colliders: [2, 3] },
        { name: 'tube', colliders: [4, 2] },
      ],
      springs: [
        {
          name: 'hair',
          colliderGroups: [0, 1],
          joints: [
            { node: 2, stiffness: 1.0, gravityPower: 0.6, gravityDir: [0, -1, 0], dragForce: 0.3, hitRadius: 0.03 },
            { node: 3, stiffness: 0.8, gravityPower: 0.6, gravityDir: [0, -1, 0], dragForce: 0.3, hitRadius: 0.03 },
            { node: 4, stiffness: 0.6, gravityPower: 0.5, gravityDir: [0, -1, 0], dragForce: 0.25, hitRadius: 0.025 },
            { node: 5, stiffness: 0.5, gravityPower: 0.5, gravityDir: [0, -1, 0], dragForce: 0.2, hitRadius: 0.02 },
            { node: 6 },
          ],
        },
        {
          name: 'ribbon',
          colliderGroups: [2],
          center: 1,
          joints: [
            { node: 7, stiffness: 0.5, gravityPower: 0.4, gravityDir: [0.3, -1, 0], dragForce: 0.2, hitRadius: 0.02 },
            { node: 8, stiffness: 0.4, gravityPower: 0.4, gravityDir: [0.3, -1, 0], dragForce: 0.2, hitRadius: 0.02 },
            { node: 9, stiffness: 0.3, gravityPower: 0.4, gravityDir: [0.3, -1, 0], dragForce: 0.2, hitRadius: 0.02 },
            { node: 10 },
          ],
        },
      ],
    },
  },
};

// VRM 0.x: a root bone with a branch (each leaf ends in a 7 cm tail), a second group with a
// per-group center, a sphere collider whose z is mirrored as 0.x stores it.
const vrm0Doc = {
  asset: { version: '2.0', generator: 'pelt conformance' },
  scene: 0,
  scenes: [{ nodes: [0] }],
  nodes: [
    { name: 'root', children: [1] },
    { name: 'head', translation: [0, 1.5, 0], children: [2, 7] },
    { name: 'a0', translation: [0.05, 0.05, -0.05], children: [3, 5] },
    { name: 'a1', translation: [0, -0.1, -0.02], children: [4] },
    { name: 'a2', translation: [0, -0.1, 0] },
    { name: 'b1', translation: [0.05, -0.08, 0], rotation: axisAngle([0, 0, 1], 30), children: [6] },
    { name: 'b2', translation: [0, -0.08, 0] },
    { name: 'c0', translation: [-0.05, 0.05, -0.05], children: [8] },
    { name: 'c1', translation: [0, -0.12, 0] },
  ],
  extensionsUsed: ['VRM'],
  extensions: {
    VRM: {
      secondaryAnimation: {
        boneGroups: [
          { comment: 'hair', stiffiness: 0.8, gravityPower: 0.3, gravityDir: { x: 0, y: -1, z: 0 }, dragForce: 0.4, center: -1, hitRadius: 0.02, bones: [2], colliderGroups: [0] },
          { comment: 'side', stiffiness: 1.2, gravityPower: 0.2, gravityDir: { x: 0, y: -1, z: 0 }, dragForce: 0.5, center: 1, hitRadius: 0.01, bones: [7], colliderGroups: [0] },
        ],
        colliderGroups: [{ node: 1, colliders: [{ offset: { x: 0, y: -0.05, z: 0.12 }, radius: 0.08 }] }],
      },
    },
  },
};
const colliderGlb = join(work, 'colliders.glb');
const vrm0Glb = join(work, 'vrm0.glb');
writeFileSync(colliderGlb, glb(colliderDoc));
writeFileSync(vrm0Glb, glb(vrm0Doc));

// A motion that throws the chains about: sideways swings and yaw, then a rest.
const shake = [];
for (let i = 0; i <= 16; i++) {
  const s = i % 2 ? 1 : -1;
  shake.push({
    t: 0.25 * i,
    position: i === 16 ? [0, 0, 0] : [0.35 * s * Math.min(1, i / 3), 0.05 * (i % 3), 0.1 * s],
    rotation: i === 16 ? [0, 0, 0, 1] : axisAngle([0.2, 1, 0], 35 * s),
  });
}
const shakeFile = join(work, 'shake.json');
writeFileSync(shakeFile, JSON.stringify(shake));

// ---- 1. validator -----------------------------------------------------------------------
summary.validator = {};
for (const file of [creatureGlb, creatureVrm]) {
  const report = await validator.validateBytes(new Uint8Array(readFileSync(file)), { maxIssues: 100 });
  const c = report.issues;
  const codes = {};
  for (const m of c.messages) codes[m.code] = (codes[m.code] ?? 0) + 1;
  summary.validator[file.split('/').at(-1)] = { errors: c.numErrors, warnings: c.numWarnings, infos: c.numInfos, codes };
  if (c.numErrors !== 0) {
    fail(`gltf-validator: ${file}: ${c.numErrors} errors`);
    for (const m of c.messages.filter((m) => m.severity === 0)) console.error(`  ${m.code}: ${m.message} at ${m.pointer}`);
  }
}

// ---- loading ----------------------------------------------------------------------------
async function load(file, asVrm) {
  const bytes = new Uint8Array(readFileSync(file));
  const loader = new GLTFLoader();
  loader.register((p) => (asVrm ? new VRMLoaderPlugin(p) : new VRMSpringBoneLoaderPlugin(p)));
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const gltf = await new Promise((resolve, reject) => loader.parse(buffer, '', resolve, reject));
  if (asVrm) {
    const vrm = gltf.userData.vrm;
    if (!vrm) throw new Error(`${file} did not load as a VRM`);
    return { gltf, scene: vrm.scene, manager: vrm.springBoneManager, update: (dt) => vrm.update(dt), vrm };
  }
  const manager = gltf.userData.vrmSpringBoneManager;
  if (!manager) throw new Error(`${file}: three-vrm found no spring bones`);
  return { gltf, scene: gltf.scene, manager, update: (dt) => manager.update(dt) };
}

// ---- 2. the creature as a full VRM -------------------------------------------------------
{
  const { vrm, manager } = await load(creatureVrm, true);
  summary.vrm = {
    name: vrm.meta?.name,
    metaVersion: vrm.meta?.metaVersion,
    humanBones: Object.keys(vrm.humanoid?.humanBones ?? {}).length,
    hips: vrm.humanoid?.getRawBoneNode('hips')?.name,
    joints: manager?.joints.size,
    colliders: manager?.colliders.length,
  };
  if (vrm.meta?.metaVersion !== '1') fail(`VRM meta version ${vrm.meta?.metaVersion}, expected 1`);
  if (summary.vrm.hips !== 'hips') fail('the VRM humanoid has no hips');
  if (summary.vrm.joints !== 5) fail(`three-vrm found ${summary.vrm.joints} tail joints, expected 5`);
}

// ---- 3. traces ----------------------------------------------------------------------------
function sampler(keys) {
  const pose = (k) => ({ p: new THREE.Vector3(...k.position), q: new THREE.Quaternion(...k.rotation).normalize() });
  const poses = keys.map(pose);
  return (t) => {
    if (t <= keys[0].t) return poses[0];
    if (t >= keys.at(-1).t) return poses.at(-1);
    let i = 0;
    while (keys[i + 1].t <= t) i++;
    const span = keys[i + 1].t - keys[i].t;
    const f = span > 0 ? (t - keys[i].t) / span : 1;
    return {
      p: poses[i].p.clone().lerp(poses[i + 1].p, f),
      q: new THREE.Quaternion().slerpQuaternions(poses[i].q, poses[i + 1].q, f),
    };
  };
}

function readCsv(file) {
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  const header = lines[0].split(',').slice(1);
  const rows = lines.slice(1).map((l) => l.split(',').slice(1).map(Number));
  return { header, rows };
}

/** Makes three-vrm's `joint` keep its rest length: the child's rest offset in the bone's
 * current frame, instead of the child's last world position. */
function keepRestLength(joint) {
  joint._calcWorldSpaceBoneLength = function () {
    const head = new THREE.Vector3().setFromMatrixPosition(this.bone.matrixWorld);
    const child = this._initialLocalChildPosition.clone().applyMatrix4(this.bone.matrixWorld);
    this._worldSpaceBoneLength = head.distanceTo(child);
  };
}

// `rule`: Pelt's bone-length rule, `three-vrm` or `rest`; three-vrm is run by the same
// rule (see the top of this file), or with `loop: 'refreshed'` by its usual rule with
// `scene.updateMatrixWorld()` between the move and `update`, only reported.
async function compare(label, file, asVrm, motionFile, rule = 'three-vrm', loop = 'same') {
  const out = join(work, `${label}.csv`);
  const args = ['tail-trace', '--motion', motionFile, '--frames', String(FRAMES), '--out', out, '--bone-length', rule];
  if (file) args.push('--file', file);
  run(args);
  const ours = readCsv(out);
  const { gltf, scene, manager, update } = await load(file ?? creatureVrm, asVrm);
  const json = gltf.parser.json;
  const byName = new Map();
  for (let i = 0; i < json.nodes.length; i++) byName.set(json.nodes[i].name, await gltf.parser.getDependency('node', i));
  const jointOf = new Map([...manager.joints].map((j) => [j.bone, j]));
  if (rule === 'rest' && loop === 'same') manager.joints.forEach(keepRestLength);
  // Count the frames each collider pushes a joint, so a test that never touches one fails.
  const contacts = manager.colliders.map(() => 0);
  manager.colliders.forEach((c, k) => {
    const inner = c.shape.calculateCollision.bind(c.shape);
    c.shape.calculateCollision = (...a) => {
      const d = inner(...a);
      if (d < 0) contacts[k]++;
      return d;
    };
  });
  // The columns must be exactly three-vrm's points: every joint's bone and its child, or
  // `<bone>+tail` for a joint with no child (a VRM 0.x leaf's virtual tail).
  const expected = new Set();
  for (const j of manager.joints) {
    expected.add(j.bone.name);
    expected.add(j.child ? j.child.name : `${j.bone.name}+tail`);
  }
  const written = new Set();
  for (let c = 0; c < ours.header.length; c += 3) {
    const col = ours.header[c];
    const name = col.slice(col.indexOf('/') + 1, col.lastIndexOf('.'));
    written.add(name);
    ['x', 'y', 'z'].forEach((axis, k) => {
      const want = `${col.slice(0, col.lastIndexOf('.'))}.${axis}`;
      if (ours.header[c + k] !== want) fail(`${label}: column ${c + k + 1} is ${ours.header[c + k]}, expected ${want}`);
    });
  }
  const missing = [...expected].filter((n) => !written.has(n));
  const extra = [...written].filter((n) => !expected.has(n));
  if (missing.length) fail(`${label}: the trace lacks three-vrm's points ${missing.join(', ')}`);
  if (extra.length) fail(`${label}: the trace has points three-vrm does not move: ${extra.join(', ')}`);
  // Each CSV point: a node by name, or `<node>+tail`, a VRM 0.x leaf's virtual tail.
  const points = [];
  for (let c = 0; c < ours.header.length; c += 3) {
    const col = ours.header[c];
    const name = col.slice(col.indexOf('/') + 1, col.lastIndexOf('.'));
    const virtual = name.endsWith('+tail');
    const obj = byName.get(virtual ? name.slice(0, -5) : name);
    if (!obj) throw new Error(`${label}: no node for column ${col}`);
    points.push({ label: name, at: (v) => (virtual ? obj.localToWorld(v.copy(jointOf.get(obj).initialLocalChildPosition)) : obj.getWorldPosition(v)) });
  }
  const motion = sampler(JSON.parse(readFileSync(motionFile, 'utf8')));
  const place = (t) => {
    const m = motion(t);
    scene.position.copy(m.p);
    scene.quaternion.copy(m.q);
  };
  place(0);
  scene.updateMatrixWorld(true);
  manager.setInitState();
  const worst = points.map(() => 0);
  const v = new THREE.Vector3();
  const theirs = [];
  for (let f = 0; f < FRAMES; f++) {
    place(f / 60);
    if (loop === 'refreshed') scene.updateMatrixWorld(true);
    update(1 / 60);
    scene.updateMatrixWorld(true);
    const row = ours.rows[f];
    const pts = [];
    points.forEach((p, k) => {
      p.at(v);
      pts.push(v.clone());
      const d = Math.hypot(v.x - row[3 * k], v.y - row[3 * k + 1], v.z - row[3 * k + 2]);
      if (!(d <= worst[k])) worst[k] = Number.isFinite(d) ? Math.max(worst[k], d) : Infinity;
    });
    theirs.push(pts);
  }
  const max = Math.max(...worst);
  summary.traces ??= {};
  summary.traces[label] = {
    boneLength: rule,
    threeVrm: loop === 'same' ? `${rule} rule` : 'usual rule, matrices refreshed before update',
    points: points.length,
    maxDiffMm: +(max * 1000).toFixed(4),
    perJointMm: Object.fromEntries(points.map((p, k) => [p.label, +(worst[k] * 1000).toFixed(4)])),
    colliderContacts: contacts,
  };
  if (loop === 'same' && !(max <= TOLERANCE_M)) {
    fail(`${label}: a joint differs by ${(max * 1000).toFixed(4)} mm from three-vrm (limit ${TOLERANCE_M * 1000} mm)`);
  }
  return { theirs, points, ours };
}

const motions = join(here, 'motions');
await compare('creature_standing', null, true, join(motions, 'standing.json'));
const runStop = await compare('creature_run_stop', null, true, join(motions, 'run_stop.json'));
const turnThree = await compare('creature_turn', null, true, join(motions, 'turn.json'));
await compare('colliders_shake', colliderGlb, false, shakeFile);
await compare('vrm0_shake', vrm0Glb, false, shakeFile);
// The rest rule, against three-vrm with the scene's matrices refreshed before `update`.
await compare('creature_run_stop_rest', null, true, join(motions, 'run_stop.json'), 'rest');
const turnRest = await compare('creature_turn_rest', null, true, join(motions, 'turn.json'), 'rest');
await compare('colliders_shake_rest', colliderGlb, false, shakeFile, 'rest');
await compare('vrm0_shake_rest', vrm0Glb, false, shakeFile, 'rest');
// three-vrm with `scene.updateMatrixWorld()` before `update`: neither rule (reported).
for (const rule of ['three-vrm', 'rest']) {
  const { ours } = await compare(`creature_turn_refreshed_vs_${rule}`, null, true, join(motions, 'turn.json'), rule, 'refreshed');
  summary.refreshedLoopFromRuleMm ??= {};
  summary.refreshedLoopFromRuleMm[rule] = summary.traces[`creature_turn_refreshed_vs_${rule}`].maxDiffMm;
  delete summary.traces[`creature_turn_refreshed_vs_${rule}`];
  void ours;
}
// The two rules differ on a quick turn (else checking both would prove nothing).
{
  let apart = 0;
  turnThree.ours.rows.forEach((row, f) => {
    const r = turnRest.ours.rows[f];
    for (let i = 0; i < row.length; i += 3) {
      apart = Math.max(apart, Math.hypot(row[i] - r[i], row[i + 1] - r[i + 1], row[i + 2] - r[i + 2]));
    }
  });
  summary.rulesApartOnTurnMm = +(apart * 1000).toFixed(3);
  if (!(apart > 0.01)) fail(`the two bone-length rules differ by only ${apart} m on the turn`);
}
for (const label of ['colliders_shake', 'vrm0_shake', 'colliders_shake_rest', 'vrm0_shake_rest']) {
  const idle = summary.traces[label].colliderContacts.findIndex((n) => n === 0);
  if (idle >= 0) fail(`${label}: collider ${idle} never touched a joint, so it was not tested`);
}

// vrm.update() swings the tail: after the sideways run stops, the tip swings past the body.
{
  const tip = runStop.points.length - 1;
  let swing = 0;
  runStop.theirs.forEach((pts, f) => {
    if (f > 30) swing = Math.max(swing, Math.abs(pts[tip].x - 1.5));
  });
  summary.vrm.tipSwingAfterRunM = +swing.toFixed(4);
  if (!(swing > 0.05)) fail(`three-vrm's vrm.update() swung the tail tip only ${swing} m`);
}

console.log(JSON.stringify(summary, null, 1));
if (failures.length) {
  for (const f of failures) console.error(`FAIL: ${f}`);
  process.exit(1);
}
console.log('conformance: PASS');
