// three-vrm on the same work as `cargo bench --bench springs`: 1, 100 and 10,000 chains
// of 8 joints, each meeting 4 colliders (2 spheres, a capsule, a plane), the scene moving
// every step; 10,000 chains as 100 avatars of 100. Not part of CI.
// Usage: node bench.mjs
import * as THREE from 'three';
import {
  VRMSpringBoneCollider,
  VRMSpringBoneColliderShapeCapsule,
  VRMSpringBoneColliderShapePlane,
  VRMSpringBoneColliderShapeSphere,
  VRMSpringBoneJoint,
  VRMSpringBoneManager,
} from '@pixiv/three-vrm-springbone';

const JOINTS = 8;
const PER_AVATAR = 100;

function avatar(chains) {
  const root = new THREE.Object3D();
  const manager = new VRMSpringBoneManager();
  for (let c = 0; c < chains; c++) {
    const angle = (c / chains) * Math.PI * 2;
    const anchor = new THREE.Object3D();
    anchor.position.set(Math.cos(angle) * 0.3, 1.5, Math.sin(angle) * 0.3);
    anchor.quaternion.setFromAxisAngle(new THREE.Vector3(0, 1, 0), -angle);
    root.add(anchor);
    const colliders = [
      new VRMSpringBoneColliderShapeSphere({ offset: new THREE.Vector3(0.1, -0.1, 0.05), radius: 0.08 }),
      new VRMSpringBoneColliderShapeSphere({ offset: new THREE.Vector3(-0.1, -0.2, 0.05), radius: 0.06 }),
      new VRMSpringBoneColliderShapeCapsule({ offset: new THREE.Vector3(0, -0.1, -0.1), tail: new THREE.Vector3(0, -0.4, -0.1), radius: 0.05 }),
      new VRMSpringBoneColliderShapePlane({ offset: new THREE.Vector3(0, -0.45, 0), normal: new THREE.Vector3(0, 1, 0) }),
    ].map((shape) => {
      const collider = new VRMSpringBoneCollider(shape);
      anchor.add(collider);
      return collider;
    });
    const group = { colliders };
    const bones = [];
    let parent = anchor;
    for (let j = 0; j <= JOINTS; j++) {
      const bone = new THREE.Object3D();
      if (j > 0) bone.position.set(0.02, -0.06, 0);
      parent.add(bone);
      bones.push(bone);
      parent = bone;
    }
    for (let j = 0; j < JOINTS; j++) {
      manager.addJoint(
        new VRMSpringBoneJoint(bones[j], bones[j + 1], {
          stiffness: 1.0,
          gravityPower: 0.4,
          gravityDir: new THREE.Vector3(0, -1, 0),
          dragForce: 0.3,
          hitRadius: 0.02,
        }, [group]),
      );
    }
  }
  root.updateMatrixWorld(true);
  manager.setInitState();
  return { root, manager };
}

const rows = [];
for (const chains of [1, 100, 10000]) {
  const crowd = [];
  for (let left = chains; left > 0; left -= PER_AVATAR) crowd.push(avatar(Math.min(left, PER_AVATAR)));
  let step = 0;
  const run = (n) => {
    for (let i = 0; i < n; i++) {
      step++;
      const t = step / 60;
      for (const { root, manager } of crowd) {
        root.position.set(Math.cos(t * 0.8), 0, Math.sin(t * 0.8));
        root.quaternion.setFromAxisAngle(new THREE.Vector3(0, 1, 0), t * 0.8);
        manager.update(1 / 60);
        root.updateMatrixWorld(true);
      }
    }
  };
  const iters = Math.max(3, Math.round(20000 / chains));
  run(iters); // warm up
  let best = Infinity;
  for (let k = 0; k < 5; k++) {
    const t0 = process.hrtime.bigint();
    run(iters);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9 / iters);
  }
  rows.push({ chains, msPerStep: +(best * 1e3).toFixed(4), stepsPerS: Math.round(1 / best), jointUpdatesPerS: +((chains * JOINTS) / best).toExponential(3) });
}
console.log('three-vrm', JSON.stringify(rows, null, 1));
