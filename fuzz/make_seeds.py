#!/usr/bin/env python3
"""Writes small fuzz seeds from an exported GLB: its JSON alone (no BIN chunk), once with
both spring extensions, once with only VRMC_springBone, once as VRM 0.x, so the fuzzer
spends its time on the parts read_glb actually parses."""
import json, struct, sys

src, out = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
n = struct.unpack_from("<I", data, 12)[0]
doc = json.loads(data[20:20 + n])
for k in ["buffers", "bufferViews", "accessors", "meshes", "skins", "materials"]:
    doc.pop(k, None)
for node in doc["nodes"]:
    node.pop("mesh", None)
    node.pop("skin", None)

def write(name, d):
    body = json.dumps(d, separators=(",", ":")).encode()
    body += b" " * (-len(body) % 4)
    glb = b"glTF" + struct.pack("<II", 2, 20 + len(body)) + struct.pack("<II", len(body), 0x4E4F534A) + body
    open(f"{out}/{name}.glb", "wb").write(glb)

write("json_only", doc)
vrmc = json.loads(json.dumps(doc))
vrmc["extensions"].pop("PELT_spring_chains")
write("vrmc_only", vrmc)
v0 = json.loads(json.dumps(doc))
v0["extensions"] = {"VRM": {"secondaryAnimation": {
    "boneGroups": [{"comment": "tail", "stiffiness": 1.0, "gravityPower": 0.2,
                    "gravityDir": {"x": 0, "y": -1, "z": 0}, "dragForce": 0.4,
                    "hitRadius": 0.02, "bones": [2], "colliderGroups": [0]}],
    "colliderGroups": [{"node": 1, "colliders": [{"offset": {"x": 0, "y": 0, "z": 0.1}, "radius": 0.3}]}]}}}
write("vrm0", v0)
