#!/usr/bin/env python3
"""Writes assets/studio.hdr, the small environment map Pelt ships: a 256 x 128
equirectangular Radiance .hdr (uncompressed RGBE scanlines) made from formulas only.

A pale sky graded from a blue zenith to a warm horizon, a dim warm floor, and two soft
boxes where Pelt's own lights are: a warm key up and to the right of the camera (the key
light's direction, 0.55, 0.75, 0.45) and a cool, weaker fill on the left (-0.6, 0.25, 0.5),
so the eyes' and nose's reflections agree with the shading. Directions follow Pelt's
mapping (src/render/environment.rs): u goes round the vertical axis from -Z, v from
straight up (top row) to straight down.

Run: python3 scripts/make_environment.py [out.hdr]
"""
import math
import sys

W, H = 256, 128


def normalize(v):
    n = math.sqrt(sum(c * c for c in v))
    return tuple(c / n for c in v)


KEY = normalize((0.55, 0.75, 0.45))
FILL = normalize((-0.6, 0.25, 0.5))


def soft_box(d, centre, radius_deg, radiance):
    """A disc of light with a smooth edge, `radius_deg` across its half-width."""
    cos_angle = sum(a * b for a, b in zip(d, centre))
    angle = math.degrees(math.acos(max(-1.0, min(1.0, cos_angle))))
    t = max(0.0, min(1.0, (radius_deg * 1.4 - angle) / (radius_deg * 0.8)))
    w = t * t * (3 - 2 * t)
    return tuple(c * w for c in radiance)


def radiance(d):
    y = d[1]
    if y >= 0:
        t = y ** 0.6
        horizon, zenith = (0.95, 0.88, 0.80), (0.45, 0.56, 0.78)
        sky = tuple(h + (z - h) * t for h, z in zip(horizon, zenith))
    else:
        t = min(1.0, -y * 4)
        horizon, floor = (0.60, 0.52, 0.44), (0.16, 0.13, 0.10)
        sky = tuple(h + (f - h) * t for h, f in zip(horizon, floor))
    key = soft_box(d, KEY, 14, (9.0, 8.2, 7.0))
    fill = soft_box(d, FILL, 20, (1.6, 1.8, 2.2))
    return tuple(a + b + c for a, b, c in zip(sky, key, fill))


def rgbe(c):
    m = max(c)
    if m < 1e-32:
        return bytes((0, 0, 0, 0))
    mantissa, exponent = math.frexp(m)
    scale = mantissa * 256.0 / m
    return bytes([int(v * scale) for v in c] + [exponent + 128])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "assets/studio.hdr"
    rows = []
    for y in range(H):
        theta = (y + 0.5) / H * math.pi
        row = bytearray()
        for x in range(W):
            phi = ((x + 0.5) / W - 0.5) * 2 * math.pi
            d = (math.sin(theta) * math.sin(phi), math.cos(theta), -math.sin(theta) * math.cos(phi))
            row += rgbe(radiance(d))
        rows.append(bytes(row))
    header = (
        "#?RADIANCE\n# Pelt's studio environment: scripts/make_environment.py\n"
        f"FORMAT=32-bit_rle_rgbe\n\n-Y {H} +X {W}\n"
    ).encode()
    with open(out, "wb") as f:
        f.write(header + b"".join(rows))


if __name__ == "__main__":
    main()
