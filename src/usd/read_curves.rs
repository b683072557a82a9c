//! `--groom coat.usda`: USD `BasisCurves` in text form read as strands. Every curve of
//! every `BasisCurves` prim on the stage (not under a `class`, not in a variant) becomes one
//! strand of [`POINTS_PER_STRAND`] points, evenly spaced by arc length after its basis is
//! evaluated ([`super::resample`]), in Pelt's frame: metres (the layer's `metersPerUnit`),
//! +Y up (a `upAxis = "Z"` layer is turned), through its prims' transforms. Each strand
//! keeps its root's colour (`primvars:displayColor`) and width (`widths`) where the file
//! has them.
//!
//! Binary USD (`.usdc`, and the `.usdz` archive) and Alembic are refused by their first
//! bytes with the command that converts them to text. Reads are bounded: the file's bytes
//! ([`MAX_USDA_BYTES`]), the values kept ([`super::usda_tree::MAX_KEPT_VALUES`]), the
//! strands ([`MAX_CURVES`]) and nesting ([`super::usda_tree::MAX_NESTING`]).

use super::resample::{CurveBasis, even_by_arc_length, polyline};
use super::tokens::quoted;
use super::usda_tree::{CurveAttrs, LayerTree, read_tree};
use super::xform::local_matrix;
use crate::files::FileError;
use crate::sim::POINTS_PER_STRAND;
use glam::{DMat3, DMat4, DVec3, Vec3};
use std::path::Path;
use thiserror::Error;

/// The farthest a curve point may lie from the origin once placed, metres: past it the
/// file's units or transforms are wrong (a strand a hundred kilometres away is no groom).
pub const MAX_CURVE_REACH: f32 = 1e5;

/// The largest `.usda` file read, bytes.
pub const MAX_USDA_BYTES: u64 = 1 << 30;
/// The most strands read from one file (five times the full coat).
pub const MAX_CURVES: usize = 1 << 21;

/// One strand read from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedCurve {
    /// Root to tip, evenly spaced by arc length, metres in Pelt's frame.
    pub points: [Vec3; POINTS_PER_STRAND],
    /// The colour at the root (`primvars:displayColor`, linear), where the prim has one.
    pub color: Option<Vec3>,
    /// The width at the root, metres, where the prim has widths.
    pub root_width: Option<f32>,
}

/// The strands of a `.usda` file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportedCurves {
    /// Every strand, in file order (prim by prim, curve by curve).
    pub curves: Vec<ImportedCurve>,
    /// How many `BasisCurves` prims they came from.
    pub prims: usize,
    /// Curves dropped because they have no length (every point in one place).
    pub skipped: usize,
}

impl ImportedCurves {
    /// Each strand's root, in order.
    pub fn roots(&self) -> Vec<Vec3> {
        self.curves.iter().map(|c| c.points[0]).collect()
    }

    /// Each strand's root bound to the nearest point of `mesh` (a uniform grid over its
    /// triangles: see [`crate::groom::bind_roots`]).
    pub fn bind_to_mesh(
        &self,
        mesh: &crate::body::BodyMesh,
    ) -> Result<Vec<crate::groom::RootBinding>, crate::groom::BindError> {
        crate::groom::bind_roots(&self.roots(), mesh)
    }

    /// One line for a run's summary.
    pub fn summary(&self) -> String {
        let skipped = if self.skipped > 0 {
            format!(" ({} curves of no length left out)", self.skipped)
        } else {
            String::new()
        };
        format!(
            "{} strands from {} BasisCurves prim{}{skipped}",
            self.curves.len(),
            self.prims,
            if self.prims == 1 { "" } else { "s" }
        )
    }
}

/// Why curves could not be read. Every message names the file.
#[derive(Debug, Error)]
pub enum CurvesError {
    /// The file could not be read, or is larger than [`MAX_USDA_BYTES`].
    #[error(transparent)]
    File(#[from] FileError),
    /// A binary USD or Alembic file: what it is and the command that makes text of it.
    #[error("{0}")]
    Binary(String),
    /// Text that is not USD curves Pelt can read: where (line) and what.
    #[error("{0}")]
    Invalid(String),
}

/// What binary file `bytes` starts as, if one of those curves come in, with the command that
/// converts it to `.usda` text.
pub fn binary_groom_kind(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"PXR-USDC") {
        Some(
            "a binary USD (.usdc) file; Pelt reads USD curves as text: convert it with \
             `usdcat in.usdc -o out.usda` (an OpenUSD build), or with the usd-core wheel: \
             `python3 -c \"from pxr import Usd; Usd.Stage.Open('in.usdc').Export('out.usda')\"`",
        )
    } else if bytes.starts_with(b"PK\x03\x04") {
        Some(
            "a zip archive (a .usdz is one); Pelt reads USD curves as text: convert it with \
             `usdcat in.usdz -o out.usda` (an OpenUSD build), or with the usd-core wheel: \
             `python3 -c \"from pxr import Usd; Usd.Stage.Open('in.usdz').Export('out.usda')\"`",
        )
    } else if bytes.starts_with(b"Ogawa") || bytes.starts_with(b"\x89HDF") {
        Some(
            "an Alembic (.abc) file; Pelt reads curves as USD text: export the groom from \
             your tool as .usda (Blender: File > Export > Universal Scene Description), or \
             convert it with `usdcat in.abc -o out.usda` (an OpenUSD build with its Alembic \
             plugin)",
        )
    } else {
        None
    }
}

/// Reads `path` (at most [`MAX_USDA_BYTES`]) as USD text curves. A file that does not start
/// as USD text is refused after its first bytes, so a device or a large file of something
/// else (a `.usda` link to `/dev/zero`) is not read to the cap first.
pub fn read_curves(path: &Path) -> Result<ImportedCurves, CurvesError> {
    use std::io::Read;
    let name = path.display().to_string();
    let mut head = Vec::new();
    crate::files::open_input(path, "groom curves")?
        .take(16)
        .read_to_end(&mut head)
        .map_err(|source| crate::files::FileError::Read {
            what: "groom curves".into(),
            path: path.into(),
            source,
        })?;
    let text = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&head);
    if let Some(kind) = binary_groom_kind(&head) {
        return Err(CurvesError::Binary(format!("{name} is {kind}")));
    }
    if !text.starts_with(b"#usda ") {
        return Err(CurvesError::Invalid(format!(
            "{name} is not USD text: it does not start with `#usda 1.0`"
        )));
    }
    let bytes = crate::files::read_capped(path, MAX_USDA_BYTES, "groom curves")?;
    parse_curves(&bytes, &name)
}

/// Reads curves from `bytes`, naming the file `name` in errors.
pub fn parse_curves(bytes: &[u8], name: &str) -> Result<ImportedCurves, CurvesError> {
    if let Some(kind) = binary_groom_kind(bytes) {
        return Err(CurvesError::Binary(format!("{name} is {kind}")));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        CurvesError::Invalid(format!(
            "{name} is not USD text (not UTF-8 at byte {}); Pelt reads `.usda` files, which \
             start `#usda 1.0`",
            e.valid_up_to()
        ))
    })?;
    let text = crate::files::strip_bom(text);
    if !text.starts_with("#usda ") {
        return Err(CurvesError::Invalid(format!(
            "{name} is not USD text: it does not start with `#usda 1.0`"
        )));
    }
    let tree = read_tree(text)
        .map_err(|e| CurvesError::Invalid(format!("{name}: line {}: {}", e.line, e.message)))?;
    assemble(&tree).map_err(|e| CurvesError::Invalid(format!("{name}: {e}")))
}

/// The stage's frame: `metersPerUnit` as a scale, a Z-up layer turned to Y up.
fn stage_matrix(tree: &LayerTree) -> Result<DMat4, String> {
    let metres = tree.meters_per_unit.unwrap_or(1.0);
    if !(metres > 0.0 && metres.is_finite()) {
        return Err(format!(
            "metersPerUnit is {metres}; it must be a positive number (1 for metres, 0.01 for \
             centimetres)"
        ));
    }
    let turn = match tree.up_axis.as_deref() {
        None | Some("Y") => DMat4::IDENTITY,
        // (x, y, z) → (x, z, −y): Z up becomes Y up, right-handed.
        Some("Z") => DMat4::from_rotation_x(-std::f64::consts::FRAC_PI_2),
        Some(other) => {
            return Err(format!(
                "upAxis is \"{}\"; USD allows \"Y\" or \"Z\"",
                quoted(other)
            ));
        }
    };
    Ok(DMat4::from_scale(DVec3::splat(metres)) * turn)
}

/// Each prim's world matrix (its ancestors' and its own ops), in the stage's frame.
fn world_matrices(tree: &LayerTree, stage: DMat4) -> Result<Vec<DMat4>, String> {
    let mut world: Vec<DMat4> = Vec::with_capacity(tree.prims.len());
    for prim in &tree.prims {
        let order = prim.op_order.get().cloned().unwrap_or_default();
        let ops: Vec<_> = prim
            .ops
            .iter()
            .filter_map(|(n, slot)| slot.get().map(|v| (n.clone(), *v)))
            .collect();
        let (local, reset) =
            local_matrix(&ops, &order).map_err(|e| format!("{}: {e}", shown(&prim.path)))?;
        let parent = match (reset, prim.parent) {
            (false, Some(p)) => world[p],
            _ => stage,
        };
        world.push(parent * local);
    }
    Ok(world)
}

/// A prim path as a message shows it.
fn shown(path: &str) -> String {
    format!("the prim {}", quoted(path))
}

/// Every curve of every `BasisCurves` prim on the stage.
fn assemble(tree: &LayerTree) -> Result<ImportedCurves, String> {
    let stage = stage_matrix(tree)?;
    let world = world_matrices(tree, stage)?;
    let mut out = ImportedCurves::default();
    let mut scratch = Vec::new();
    for (i, prim) in tree.prims.iter().enumerate() {
        let Some(attrs) = &prim.curves else { continue };
        if prim.is_abstract {
            continue;
        }
        out.prims += 1;
        read_prim(attrs, world[i], &mut out, &mut scratch)
            .map_err(|e| format!("{} (line {}): {e}", shown(&prim.path), prim.line))?;
    }
    if out.prims == 0 {
        return Err(
            "there is no BasisCurves prim on the stage; Pelt reads strands from BasisCurves \
             (export hair as curves)"
                .into(),
        );
    }
    if out.curves.is_empty() {
        return Err("the BasisCurves prims hold no curve with a length".into());
    }
    Ok(out)
}

/// The basis of a prim's curves from `type`, `basis` and `wrap`.
fn basis_of(attrs: &CurveAttrs) -> Result<CurveBasis, String> {
    let kind = attrs.kind.get().map_or("cubic", String::as_str);
    let basis = attrs.basis.get().map_or("bezier", String::as_str);
    let wrap = attrs.wrap.get().map_or("nonperiodic", String::as_str);
    let pinned = match wrap {
        "nonperiodic" => false,
        "pinned" => true,
        "periodic" => {
            return Err(
                "its curves are closed loops (wrap = \"periodic\"); strands have a \
                        root and a tip: export them nonperiodic"
                    .into(),
            );
        }
        other => {
            return Err(format!(
                "wrap is \"{}\"; USD has nonperiodic, pinned and periodic",
                quoted(other)
            ));
        }
    };
    match (kind, basis) {
        ("linear", _) => Ok(CurveBasis::Linear),
        ("cubic", "bspline") => Ok(CurveBasis::Bspline { pinned }),
        ("cubic", "catmullRom") => Ok(CurveBasis::CatmullRom { pinned }),
        ("cubic", "bezier") if !pinned => Ok(CurveBasis::Bezier),
        ("cubic", "bezier") => Err("bezier curves cannot be pinned".into()),
        ("cubic", other) => Err(format!(
            "basis is \"{}\"; Pelt reads bspline, catmullRom and bezier (hermite and power \
             are not supported: resample them to one of those)",
            quoted(other)
        )),
        (other, _) => Err(format!(
            "type is \"{}\"; USD has linear and cubic",
            quoted(other)
        )),
    }
}

/// Where each curve's root value sits in a primvar of `len` values with `interpolation`
/// (or, where none is given, the one its length fits): a function from curve index and
/// first vertex to a value index.
fn root_index(
    what: &str,
    interpolation: Option<&str>,
    len: usize,
    counts: &[usize],
    basis: CurveBasis,
) -> Result<Vec<usize>, String> {
    let vertices: usize = counts.iter().sum();
    let varying: usize = counts.iter().map(|&n| basis.varying_count(n)).sum();
    let interpolation = match interpolation {
        Some(i) => i,
        None if len == 1 => "constant",
        None if len == counts.len() => "uniform",
        None if len == vertices => "vertex",
        None if len == varying => "varying",
        None => {
            return Err(format!(
                "{what} has {len} values: 1, one per curve ({}), one per point ({vertices}) or \
                 one per segment end ({varying}) wanted",
                counts.len()
            ));
        }
    };
    let (wanted, per_curve): (usize, Box<dyn Fn(usize) -> usize>) = match interpolation {
        "constant" => (1, Box::new(|_| 1)),
        "uniform" => (counts.len(), Box::new(|_| 1)),
        "vertex" | "faceVarying" => (vertices, Box::new(|n| n)),
        "varying" => (varying, Box::new(move |n| basis.varying_count(n))),
        other => {
            return Err(format!(
                "{what} has interpolation \"{}\"; USD has constant, uniform, varying and vertex",
                quoted(other)
            ));
        }
    };
    if len != wanted {
        return Err(format!(
            "{what} has {len} values; {interpolation} interpolation wants {wanted}"
        ));
    }
    let mut at = 0usize;
    Ok(counts
        .iter()
        .map(|&n| {
            let here = if interpolation == "constant" { 0 } else { at };
            at += per_curve(n);
            here
        })
        .collect())
}

/// The curves of one prim, appended to `out`.
fn read_prim(
    attrs: &CurveAttrs,
    world: DMat4,
    out: &mut ImportedCurves,
    scratch: &mut Vec<Vec3>,
) -> Result<(), String> {
    let basis = basis_of(attrs)?;
    let points = attrs.points.get().map(Vec::as_slice).unwrap_or_default();
    let raw_counts = attrs.counts.get().ok_or("it has no curveVertexCounts")?;
    let mut counts = Vec::with_capacity(raw_counts.len());
    for (c, &n) in raw_counts.iter().enumerate() {
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| basis.takes(n))
            .ok_or_else(|| {
                format!(
                    "curve {c} has {n} points; a {} curve has {}",
                    basis_name(basis),
                    basis.counts_in_words()
                )
            })?;
        counts.push(n);
    }
    let total = counts.iter().try_fold(0usize, |s, &n| s.checked_add(n));
    if total != Some(points.len()) {
        return Err(format!(
            "curveVertexCounts adds up to {}, but there are {} points",
            total.map_or("more than can be counted".into(), |t| t.to_string()),
            points.len()
        ));
    }
    if out.curves.len() + counts.len() > MAX_CURVES {
        return Err(format!(
            "the file holds more than {MAX_CURVES} curves, the most Pelt reads"
        ));
    }
    let widths = attrs.widths.get();
    let width_at = match widths {
        Some(w) => Some(root_index(
            "widths",
            attrs.widths_interpolation.as_deref(),
            w.len(),
            &counts,
            basis,
        )?),
        None => None,
    };
    // An indexed primvar: the values the indices pick, in order.
    let colors: Option<Vec<Vec3>> = match (attrs.colors.get(), attrs.color_indices.get()) {
        (Some(c), Some(ix)) => Some(
            ix.iter()
                .map(|&i| {
                    usize::try_from(i)
                        .ok()
                        .and_then(|i| c.get(i).copied())
                        .ok_or_else(|| {
                            format!(
                                "primvars:displayColor:indices holds {i}, past its {} colours",
                                c.len()
                            )
                        })
                })
                .collect::<Result<_, _>>()?,
        ),
        (c, _) => c.cloned(),
    };
    let color_at = match &colors {
        Some(c) => Some(root_index(
            "primvars:displayColor",
            attrs.color_interpolation.as_deref(),
            c.len(),
            &counts,
            basis,
        )?),
        None => None,
    };
    let linear = DMat3::from_mat4(world);
    let det = linear.determinant();
    if !(det.is_finite() && det.abs() > 1e-300) {
        return Err("its transform is singular (a scale of zero?)".into());
    }
    let width_scale = det.abs().cbrt();
    let mut first = 0usize;
    let mut placed = Vec::new();
    for (c, &n) in counts.iter().enumerate() {
        placed.clear();
        placed.extend(
            points[first..first + n]
                .iter()
                .map(|p| world.transform_point3(p.as_dvec3()).as_vec3()),
        );
        first += n;
        if placed
            .iter()
            .any(|p| !(p.is_finite() && p.abs().max_element() <= MAX_CURVE_REACH))
        {
            return Err(format!(
                "curve {c} lies more than {MAX_CURVE_REACH:e} m from the origin once placed; \
                 are metersPerUnit and the transforms right?"
            ));
        }
        polyline(basis, &placed, scratch);
        let Some(strand) = even_by_arc_length(scratch) else {
            out.skipped += 1;
            continue;
        };
        let root_width = match (widths, &width_at) {
            (Some(w), Some(at)) => {
                let v = (f64::from(w[at[c]]) * width_scale) as f32;
                if !(v.is_finite() && v >= 0.0) {
                    return Err(format!("curve {c}'s width is negative or too large"));
                }
                Some(v)
            }
            _ => None,
        };
        let color = match (&colors, &color_at) {
            (Some(col), Some(at)) => Some(col[at[c]]),
            _ => None,
        };
        out.curves.push(ImportedCurve {
            points: strand,
            color,
            root_width,
        });
    }
    Ok(())
}

/// A basis as the file names it.
fn basis_name(basis: CurveBasis) -> &'static str {
    match basis {
        CurveBasis::Linear => "linear",
        CurveBasis::Bspline { .. } => "cubic bspline",
        CurveBasis::CatmullRom { .. } => "cubic catmullRom",
        CurveBasis::Bezier => "cubic bezier",
    }
}
