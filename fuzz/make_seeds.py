#!/usr/bin/env python3
"""Writes small fuzz seeds from an exported GLB: its JSON alone (no BIN chunk), once as
exported, once with every extended collider kind and a center, once as VRM 0.x with a
branch, so the fuzzer spends its time on the parts read_glb actually parses."""
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
ext = json.loads(json.dumps(doc))
spring = ext["extensions"]["VRMC_springBone"]
far = {"sphere": {"offset": [0, -10000, 0], "radius": 0}}
for shape in [{"plane": {"offset": [0, -0.5, 0], "normal": [0, 1, 0]}},
              {"sphere": {"offset": [0, 0, 0], "radius": 2, "inside": True}},
              {"capsule": {"offset": [0, 0, 0], "tail": [0, 0, -1], "radius": 1, "inside": True}}]:
    spring["colliders"].append({"node": 1, "shape": far, "extensions": {
        "VRMC_springBone_extended_collider": {"specVersion": "1.0", "shape": shape}}})
n = len(spring["colliders"])
spring["colliderGroups"].append({"name": "extended", "colliders": [n - 3, n - 2, n - 1]})
spring["springs"][0]["colliderGroups"].append(len(spring["colliderGroups"]) - 1)
spring["springs"][0]["center"] = 1
ext["extensionsUsed"].append("VRMC_springBone_extended_collider")
write("extended", ext)
v0 = json.loads(json.dumps(doc))
v0["extensions"] = {"VRM": {"secondaryAnimation": {
    "boneGroups": [{"comment": "tail", "stiffiness": 1.0, "gravityPower": 0.2,
                    "gravityDir": {"x": 0, "y": -1, "z": 0}, "dragForce": 0.4,
                    "hitRadius": 0.02, "bones": [1], "colliderGroups": [0], "center": 0}],
    "colliderGroups": [{"node": 1, "colliders": [{"offset": {"x": 0, "y": 0, "z": 0.1}, "radius": 0.3}]}]}}}
write("vrm0", v0)
