//! [`StageMesh`]: the surface the coat grows on, as the stage's `Mesh` prim: fixed triangles,
//! colours and texture coordinates, with points and normals either in one pose (the built-in
//! creature) or posed at each time code (a skinned body under its animation). One writer for
//! both, so the creature's skin and any body reach USD the same way.

use super::SkinMesh;
use super::text::{write_ints, write_time, write_vec2s, write_vec3, write_vec3s};
use glam::{Vec2, Vec3};
use std::io::{self, Write};

/// The mesh's points and normals at one time code, computed when that sample is written.
pub type PoseAt<'a> = Box<dyn Fn(f64) -> io::Result<(Vec<Vec3>, Vec<Vec3>)> + 'a>;

/// How the mesh's points and normals are given.
pub enum MeshMotion<'a> {
    /// One pose, written as the attributes' values.
    Still {
        /// Vertex positions, metres.
        points: Vec<Vec3>,
        /// Unit vertex normals.
        normals: Vec<Vec3>,
    },
    /// Posed at each time code by `pose_at`, written as time samples in an animated stage
    /// (a still stage takes exactly one time code and writes its pose as the values).
    /// `pose_at` is called once per sample per attribute (points, normals, extent), so a
    /// long animation is never held in memory.
    Sampled {
        /// The time codes, strictly increasing.
        times: Vec<f64>,
        /// The points and normals at a time code, one of each per vertex.
        pose_at: PoseAt<'a>,
    },
}

/// A triangle mesh for the stage: what stays fixed (triangles, colours, texture
/// coordinates) and how it moves ([`MeshMotion`]).
pub struct StageMesh<'a> {
    /// Three vertex indices per triangle, counter-clockwise seen from outside (USD's default
    /// right-handed orientation).
    pub indices: Vec<u32>,
    /// Linear colour per vertex (`primvars:displayColor`); its length is the vertex count.
    pub colors: Vec<Vec3>,
    /// Texture coordinates per vertex (`primvars:st`), USD's origin at the bottom left.
    pub st: Option<Vec<Vec2>>,
    /// Points and normals.
    pub motion: MeshMotion<'a>,
}

/// Bytes one vertex's `(x, y, z), ` takes in the text, about: three shortest-form numbers of
/// about ten characters, with a line break every eight.
const BYTES_PER_VEC3: u64 = 42;
/// Bytes one vertex's `(u, v), ` takes.
const BYTES_PER_VEC2: u64 = 28;

/// The size of a mesh prim of `vertices` vertices and `triangles` triangles written at
/// `samples` time codes (with texture coordinates when `st`), estimated: points and normals
/// per sample, colours, texture coordinates and triangles once. For the size check before an
/// export (docs/usd.md gives the figures).
pub fn mesh_usda_bytes(vertices: usize, triangles: usize, samples: u32, st: bool) -> u64 {
    let vertices = vertices as u64;
    // An index is at most as many digits as the vertex count, then ", ".
    let index_bytes = vertices.max(1).ilog10() as u64 + 1 + 2;
    let per_sample = vertices * 2 * BYTES_PER_VEC3;
    let fixed = vertices * (BYTES_PER_VEC3 + if st { BYTES_PER_VEC2 } else { 0 })
        + triangles as u64 * (3 + 3 * index_bytes)
        + 1024;
    fixed + per_sample * u64::from(samples.max(1))
}

impl From<&SkinMesh> for StageMesh<'static> {
    fn from(skin: &SkinMesh) -> Self {
        StageMesh {
            indices: skin.indices.clone(),
            colors: skin.colors.clone(),
            st: None,
            motion: MeshMotion::Still {
                points: skin.points.clone(),
                normals: skin.normals.clone(),
            },
        }
    }
}

/// The bounding box of `points`, as USD's `extent` (`[min, max]`).
pub(super) fn extent(points: impl IntoIterator<Item = Vec3>) -> [Vec3; 2] {
    points
        .into_iter()
        .fold([Vec3::INFINITY, Vec3::NEG_INFINITY], |[lo, hi], p| {
            [lo.min(p), hi.max(p)]
        })
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// Indent of the mesh's attribute lines, of their arrays' continuation lines, and of a time
/// sample's continuation lines.
const ATTR: &str = "        ";
const CONT: &str = "            ";
const SAMPLE_CONT: &str = "                ";

impl StageMesh<'_> {
    /// The vertex count: one colour a vertex.
    pub fn vertices(&self) -> usize {
        self.colors.len()
    }

    /// Whether the parts agree: whole triangles with indices in range, one texture
    /// coordinate a vertex, one point and normal a vertex in a still pose, time codes
    /// finite and strictly increasing (at least one).
    pub fn check(&self) -> io::Result<()> {
        let n = self.vertices();
        if !self.indices.len().is_multiple_of(3) {
            return Err(invalid(format!(
                "{} triangle indices: three a triangle",
                self.indices.len()
            )));
        }
        if let Some(bad) = self.indices.iter().find(|&&i| i as usize >= n) {
            return Err(invalid(format!(
                "a triangle names vertex {bad} of a mesh of {n} vertices"
            )));
        }
        if let Some(st) = &self.st
            && st.len() != n
        {
            return Err(invalid(format!(
                "{} texture coordinates for {n} vertices: one a vertex",
                st.len()
            )));
        }
        match &self.motion {
            MeshMotion::Still { points, normals } => check_pose(points, normals, n, None),
            MeshMotion::Sampled { times, .. } => {
                if times.is_empty() {
                    return Err(invalid("the mesh has no time code to be posed at".into()));
                }
                if let Some(t) = times.iter().find(|t| !t.is_finite()) {
                    return Err(invalid(format!("the mesh's time code {t} is not finite")));
                }
                if let Some(w) = times.windows(2).find(|w| w[0] >= w[1]) {
                    return Err(invalid(format!(
                        "the mesh's time codes {} then {} are not increasing",
                        w[0], w[1]
                    )));
                }
                Ok(())
            }
        }
    }

    /// The time codes the mesh is posed at, when it is written as time samples in a stage
    /// that is `animated`.
    pub fn sample_times(&self, animated: bool) -> Option<&[f64]> {
        match &self.motion {
            MeshMotion::Sampled { times, .. } if animated => Some(times),
            _ => None,
        }
    }

    /// Calls `each` with every pose to write, in time order: the time code (`None` for
    /// the attributes' values) and the points and normals.
    fn poses(
        &self,
        animated: bool,
        mut each: impl FnMut(Option<f64>, &[Vec3], &[Vec3]) -> io::Result<()>,
    ) -> io::Result<()> {
        let n = self.vertices();
        match &self.motion {
            MeshMotion::Still { points, normals } => each(None, points, normals),
            MeshMotion::Sampled { times, pose_at } => {
                if !animated && times.len() != 1 {
                    return Err(invalid(format!(
                        "a still stage takes the mesh in one pose, not {}",
                        times.len()
                    )));
                }
                for &t in times {
                    let (points, normals) = pose_at(t)?;
                    check_pose(&points, &normals, n, Some(t))?;
                    each(animated.then_some(t), &points, &normals)?;
                }
                Ok(())
            }
        }
    }

    /// Writes the mesh as the `Mesh` prim `name`, its points, normals and extent as time
    /// samples when the stage is `animated` and the mesh is [`MeshMotion::Sampled`].
    pub fn write(&self, out: &mut impl Write, name: &str, animated: bool) -> io::Result<()> {
        self.check()?;
        writeln!(out, "    def Mesh \"{name}\"\n    {{")?;
        // Extent: one box a pose.
        let mut extents = Vec::new();
        self.poses(animated, |t, points, _| {
            extents.push((t, extent(points.iter().copied())));
            Ok(())
        })?;
        match extents.as_slice() {
            [(None, [lo, hi])] => {
                write!(out, "{ATTR}float3[] extent = [")?;
                write_vec3(out, *lo)?;
                out.write_all(b", ")?;
                write_vec3(out, *hi)?;
                out.write_all(b"]\n")?;
            }
            _ => {
                writeln!(out, "{ATTR}float3[] extent.timeSamples = {{")?;
                for (t, [lo, hi]) in &extents {
                    write!(out, "{ATTR}    ")?;
                    write_time(out, t.unwrap_or_default())?;
                    out.write_all(b": [")?;
                    write_vec3(out, *lo)?;
                    out.write_all(b", ")?;
                    write_vec3(out, *hi)?;
                    out.write_all(b"],\n")?;
                }
                writeln!(out, "{ATTR}}}")?;
            }
        }
        write!(out, "{ATTR}int[] faceVertexCounts = ")?;
        write_ints(out, std::iter::repeat_n(3, self.indices.len() / 3), CONT)?;
        write!(out, "\n{ATTR}int[] faceVertexIndices = ")?;
        write_ints(out, self.indices.iter().copied(), CONT)?;
        out.write_all(b"\n")?;
        self.write_vec3_attribute(out, "normal3f[] normals", true, animated, |_, n| n)?;
        self.write_vec3_attribute(out, "point3f[] points", false, animated, |p, _| p)?;
        write!(out, "{ATTR}color3f[] primvars:displayColor = ")?;
        write_vec3s(out, self.colors.iter().copied(), CONT)?;
        writeln!(out, " (\n{CONT}interpolation = \"vertex\"\n{ATTR})")?;
        if let Some(st) = &self.st {
            write!(out, "{ATTR}texCoord2f[] primvars:st = ")?;
            write_vec2s(out, st.iter().copied(), CONT)?;
            writeln!(out, " (\n{CONT}interpolation = \"vertex\"\n{ATTR})")?;
        }
        writeln!(out, "{ATTR}uniform token subdivisionScheme = \"none\"")?;
        writeln!(out, "    }}\n")
    }

    /// Writes the per-vertex attribute `declaration` (`point3f[] points`), picked from each
    /// pose by `pick`, as a value or as time samples; `vertex` adds the vertex
    /// interpolation (a normal's, not a point's).
    fn write_vec3_attribute(
        &self,
        out: &mut impl Write,
        declaration: &str,
        vertex: bool,
        animated: bool,
        pick: impl for<'p> Fn(&'p [Vec3], &'p [Vec3]) -> &'p [Vec3],
    ) -> io::Result<()> {
        let interpolation = format!(" (\n{CONT}interpolation = \"vertex\"\n{ATTR})");
        let mut opened = false;
        self.poses(animated, |t, points, normals| {
            let values = pick(points, normals).iter().copied();
            let Some(t) = t else {
                write!(out, "{ATTR}{declaration} = ")?;
                write_vec3s(out, values, CONT)?;
                if vertex {
                    out.write_all(interpolation.as_bytes())?;
                }
                return out.write_all(b"\n");
            };
            if !opened {
                if vertex {
                    writeln!(out, "{ATTR}{declaration}{interpolation}")?;
                }
                writeln!(out, "{ATTR}{declaration}.timeSamples = {{")?;
                opened = true;
            }
            write!(out, "{ATTR}    ")?;
            write_time(out, t)?;
            out.write_all(b": ")?;
            write_vec3s(out, values, SAMPLE_CONT)?;
            out.write_all(b",\n")
        })?;
        if opened {
            writeln!(out, "{ATTR}}}")?;
        }
        Ok(())
    }
}

/// Whether a pose has one point and one normal a vertex.
fn check_pose(points: &[Vec3], normals: &[Vec3], n: usize, t: Option<f64>) -> io::Result<()> {
    if points.len() == n && normals.len() == n {
        return Ok(());
    }
    let when = t.map_or_else(String::new, |t| format!(" at time code {t}"));
    Err(invalid(format!(
        "the mesh{when} has {} points and {} normals for {n} vertices (one colour a vertex): one of each a vertex",
        points.len(),
        normals.len()
    )))
}
