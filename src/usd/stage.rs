//! [`CoatStageWriter`]: writes the coat's USD stage as text, streaming: the header, the
//! skin mesh (the creature's, or a body's posed at every time code) and the curves' fixed
//! attributes first, then the strand points one sample at a
//! time (a full coat is tens of megabytes a sample, so no sample is held longer than it is
//! written), then the extents.

use super::mesh_prim::extent;
use super::text::{write_floats, write_ints, write_time, write_vec3, write_vec3s};
use super::{CoatCurves, SkinMesh, StageMesh};
use crate::sim::POINTS_PER_STRAND;
use glam::{Vec3, Vec4};
use std::io::{self, Write};

/// The stage's timing: the time codes are the solver's step counts at 60 per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StageTiming {
    /// The first sample's time code.
    pub start: f64,
    /// The last sample's time code.
    pub end: f64,
    /// Time codes per second (the solver's 60 Hz).
    pub per_second: f64,
}

/// Writes one stage: [`CoatStageWriter::begin`], then [`CoatStageWriter::points`] once per
/// sample, then [`CoatStageWriter::finish`].
pub struct CoatStageWriter<W: Write> {
    out: W,
    strands: usize,
    animated: bool,
    samples: usize,
    extents: Vec<(f64, [Vec3; 2])>,
    /// The skin's time codes when it is time-sampled: the curves' must be the same.
    skin_times: Option<Vec<f64>>,
}

/// Indent of the curves' attribute lines and of their arrays' continuation lines.
const ATTR: &str = "        ";
const CONT: &str = "            ";

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

impl<W: Write> CoatStageWriter<W> {
    /// Writes the header, the creature's skin (one pose) and the curves' fixed attributes.
    /// `animated` writes the points as time samples (then every [`CoatStageWriter::points`]
    /// call names its time code); otherwise exactly one sample, as the points' default
    /// value.
    pub fn begin(
        out: W,
        timing: StageTiming,
        skin: &SkinMesh,
        curves: &CoatCurves,
        animated: bool,
        doc: &str,
    ) -> io::Result<Self> {
        skin.check()?;
        Self::begin_with_mesh(out, timing, &StageMesh::from(skin), curves, animated, doc)
    }

    /// As [`CoatStageWriter::begin`], with any triangle mesh as the skin: a body posed at
    /// each time code ([`body_skin()`](super::body_skin())) is written with time-sampled
    /// points, normals and extent in an animated stage, and the curves' time codes must then
    /// be the mesh's ([`CoatStageWriter::finish`] refuses others).
    pub fn begin_with_mesh(
        mut out: W,
        timing: StageTiming,
        skin: &StageMesh,
        curves: &CoatCurves,
        animated: bool,
        doc: &str,
    ) -> io::Result<Self> {
        curves.check()?;
        skin.check()?;
        let doc = doc.replace('\\', "\\\\").replace('"', "\\\"");
        writeln!(out, "#usda 1.0\n(")?;
        writeln!(out, "    defaultPrim = \"Pelt\"")?;
        writeln!(out, "    doc = \"{doc}\"")?;
        writeln!(out, "    metersPerUnit = 1")?;
        writeln!(out, "    upAxis = \"Y\"")?;
        if animated {
            out.write_all(b"    startTimeCode = ")?;
            write_time(&mut out, timing.start)?;
            out.write_all(b"\n    endTimeCode = ")?;
            write_time(&mut out, timing.end)?;
            out.write_all(b"\n    timeCodesPerSecond = ")?;
            write_time(&mut out, timing.per_second)?;
            out.write_all(b"\n")?;
        }
        writeln!(out, ")\n")?;
        writeln!(out, "def Xform \"Pelt\" (\n    kind = \"component\"\n)\n{{")?;
        skin.write(&mut out, "Skin", animated)?;
        let strands = curves.root_normals.len();
        writeln!(out, "    def BasisCurves \"Coat\"\n    {{")?;
        writeln!(out, "{ATTR}uniform token type = \"linear\"")?;
        writeln!(out, "{ATTR}uniform token wrap = \"nonperiodic\"")?;
        write!(out, "{ATTR}int[] curveVertexCounts = ")?;
        write_ints(
            &mut out,
            std::iter::repeat_n(POINTS_PER_STRAND as u32, strands),
            CONT,
        )?;
        write!(out, "\n{ATTR}float[] widths = ")?;
        let widths = &curves.widths;
        write_floats(
            &mut out,
            (0..strands).flat_map(|_| widths.iter().copied()),
            CONT,
        )?;
        writeln!(out, " (\n{CONT}interpolation = \"vertex\"\n{ATTR})")?;
        write!(out, "{ATTR}color3f[] primvars:displayColor = ")?;
        write_vec3s(&mut out, curves.colors.iter().copied(), CONT)?;
        writeln!(out, " (\n{CONT}interpolation = \"uniform\"\n{ATTR})")?;
        write!(out, "{ATTR}normal3f[] primvars:rootNormal = ")?;
        write_vec3s(&mut out, curves.root_normals.iter().copied(), CONT)?;
        writeln!(out, " (\n{CONT}interpolation = \"uniform\"\n{ATTR})")?;
        write!(out, "{ATTR}float[] primvars:random = ")?;
        write_floats(&mut out, curves.random.iter().copied(), CONT)?;
        writeln!(out, " (\n{CONT}interpolation = \"uniform\"\n{ATTR})")?;
        if animated {
            writeln!(out, "{ATTR}point3f[] points.timeSamples = {{")?;
        }
        Ok(CoatStageWriter {
            out,
            strands,
            animated,
            samples: 0,
            extents: Vec::new(),
            skin_times: skin.sample_times(animated).map(<[f64]>::to_vec),
        })
    }

    /// Writes one sample of the strand points (six a strand, world metres; `w` ignored) at
    /// time code `time` (ignored for a still stage, which takes exactly one).
    pub fn points(&mut self, time: f64, positions: &[Vec4]) -> io::Result<()> {
        if positions.len() != self.strands * POINTS_PER_STRAND {
            return Err(invalid(format!(
                "{} points for {} strands of {POINTS_PER_STRAND}",
                positions.len(),
                self.strands
            )));
        }
        if !self.animated && self.samples > 0 {
            return Err(invalid(
                "a still stage takes one sample of the points".into(),
            ));
        }
        let out = &mut self.out;
        let indent = if self.animated {
            write!(out, "{ATTR}    ")?;
            write_time(out, time)?;
            out.write_all(b": ")?;
            "                "
        } else {
            write!(out, "{ATTR}point3f[] points = ")?;
            CONT
        };
        write_vec3s(out, positions.iter().map(|p| p.truncate()), indent)?;
        writeln!(out, "{}", if self.animated { "," } else { "" })?;
        self.extents
            .push((time, extent(positions.iter().map(|p| p.truncate()))));
        self.samples += 1;
        Ok(())
    }

    /// Closes the curves (with their extent, per sample when animated), the root prim and
    /// the stage, and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        if self.samples == 0 {
            return Err(invalid("the stage has no sample of the points".into()));
        }
        if let Some(skin) = &self.skin_times {
            let curves = self.extents.iter().map(|(t, _)| *t);
            if !curves.clone().eq(skin.iter().copied()) {
                return Err(invalid(format!(
                    "the coat has {} samples from time code {} and the skin {} from {}: write the coat at the skin's time codes",
                    self.extents.len(),
                    self.extents[0].0,
                    skin.len(),
                    skin.first().copied().unwrap_or_default()
                )));
            }
        }
        let out = &mut self.out;
        if self.animated {
            writeln!(out, "{ATTR}}}")?;
            writeln!(out, "{ATTR}float3[] extent.timeSamples = {{")?;
            for (time, [lo, hi]) in &self.extents {
                write!(out, "{ATTR}    ")?;
                write_time(out, *time)?;
                out.write_all(b": [")?;
                write_vec3(out, *lo)?;
                out.write_all(b", ")?;
                write_vec3(out, *hi)?;
                out.write_all(b"],\n")?;
            }
            writeln!(out, "{ATTR}}}")?;
        } else {
            let [lo, hi] = self.extents[0].1;
            write!(out, "{ATTR}float3[] extent = [")?;
            write_vec3(out, lo)?;
            out.write_all(b", ")?;
            write_vec3(out, hi)?;
            out.write_all(b"]\n")?;
        }
        writeln!(out, "    }}\n}}")?;
        Ok(self.out)
    }
}
