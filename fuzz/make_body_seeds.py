#!/usr/bin/env python3
"""Writes the read_body seeds: a small skinned cylinder (two joints, LINEAR, STEP and
CUBICSPLINE animations, a 1x1 PNG base colour) as a GLB, as VRM 0.x, and as glTF JSON with
its buffer in a data URI. Usage: python3 make_body_seeds.py corpus/read_body"""
import base64, json, math, struct, sys, zlib

out = sys.argv[1]
bin_ = bytearray()

def put(fmt, values):
    while len(bin_) % 4:
        bin_.append(0)
    at = len(bin_)
    bin_.extend(struct.pack("<%d%s" % (len(values), fmt), *values))
    return {"buffer": 0, "byteOffset": at, "byteLength": len(bin_) - at}

rings, segs = [0.0, 1.0, 2.0], 4
pos, joints, weights = [], [], []
for y in rings:
    for s in range(segs):
        a = s / segs * 2 * math.pi
        pos += [0.5 * math.cos(a), y, 0.5 * math.sin(a)]
        joints += [0, 1, 0, 0] if y == 1.0 else [0 if y < 1 else 1, 0, 0, 0]
        weights += [0.5, 0.5, 0, 0] if y == 1.0 else [1, 0, 0, 0]
idx = []
for r in range(len(rings) - 1):
    for s in range(segs):
        a, b = r * segs + s, r * segs + (s + 1) % segs
        idx += [a, a + segs, b, b, a + segs, b + segs]
n = len(pos) // 3
q = [0, 0, math.sin(math.pi / 4), math.cos(math.pi / 4)]
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(b"\0\xc8\x52\x1a\xff")) + chunk(b"IEND", b"")
views = [put("f", pos), put("B", joints), put("f", weights), put("H", idx),
         put("f", [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1, 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,-1,0,1]),
         put("f", [0, 1]), put("f", [0, 0, 0, 1] + q), put("f", [0, 0, 0, 1, 0, 0]),
         put("f", [0,0,0, 0,0,0, 1,0,0, 0,0,0, 0,1,0, 0,0,0]), put("B", list(png))]
acc = lambda v, c, t, k, **kw: dict(bufferView=v, componentType=c, count=k, type=t, **kw)
doc = {
    "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 2]}],
    "nodes": [{"children": [1]}, {"translation": [0, 1, 0]}, {"mesh": 0, "skin": 0}],
    "skins": [{"joints": [0, 1], "inverseBindMatrices": 4}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2},
                                 "indices": 3, "material": 0}]}],
    "materials": [{"name": "fur", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
    "textures": [{"source": 0}], "images": [{"bufferView": 9, "mimeType": "image/png"}],
    "accessors": [acc(0, 5126, "VEC3", n, min=[-0.5, 0, -0.5], max=[0.5, 2, 0.5]),
                  acc(1, 5121, "VEC4", n), acc(2, 5126, "VEC4", n), acc(3, 5123, "SCALAR", len(idx)),
                  acc(4, 5126, "MAT4", 2), acc(5, 5126, "SCALAR", 2, min=[0], max=[1]),
                  acc(6, 5126, "VEC4", 2), acc(7, 5126, "VEC3", 2), acc(8, 5126, "VEC3", 6)],
    "bufferViews": views, "buffers": [{"byteLength": len(bin_)}],
    "animations": [{"name": kind, "samplers": [{"input": 5, "output": o, "interpolation": kind}],
                    "channels": [{"sampler": 0, "target": {"node": node, "path": path}}]}
                   for kind, o, node, path in [("LINEAR", 6, 1, "rotation"),
                                               ("STEP", 7, 0, "translation"),
                                               ("CUBICSPLINE", 8, 0, "translation")]],
}

def glb(name, d):
    body = json.dumps(d, separators=(",", ":")).encode()
    body += b" " * (-len(body) % 4)
    b = bytes(bin_) + b"\0" * (-len(bin_) % 4)
    total = 12 + 8 + len(body) + 8 + len(b)
    data = b"glTF" + struct.pack("<II", 2, total) + struct.pack("<II", len(body), 0x4E4F534A) \
        + body + struct.pack("<II", len(b), 0x004E4942) + b
    open(f"{out}/{name}", "wb").write(data)

glb("cylinder.glb", doc)
vrm0 = json.loads(json.dumps(doc))
vrm0["extensionsUsed"] = ["VRM"]
vrm0["extensions"] = {"VRM": {"exporterVersion": "seed"}}
glb("vrm0_cylinder.glb", vrm0)
doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(bytes(bin_)).decode()
open(f"{out}/data_uri_cylinder.gltf", "w").write(json.dumps(doc, separators=(",", ":")))
