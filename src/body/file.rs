//! Reading a body from a file: the entry point the command line and the library call. The
//! parts live beside it: the document and buffers (`gltf_read`), accessors, the node tree,
//! the joints (`skin`), the meshes (`primitives`), the texture, the animations, the springs
//! and the fit.

use std::path::Path;
use std::sync::Arc;

use glam::{Mat4, Vec3};
use thiserror::Error;

use super::animation::read_clips;
use super::fit::BodyFit;
use super::gltf_read::{quoted, read_source};
use super::limits::{MAX_BODY_BYTES, MAX_JSON_BYTES};
use super::nodes::NodeTree;
use super::rig::Rig;
use super::skin::Joints;
use super::springs::{BodySprings, SpringMotion, SpringsRead, read_springs};
use super::{BodyMesh, BodyMotion, SkinPose, primitives, texture};

/// What to do with a body while reading it.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyOptions {
    /// The height the body is fitted to, metres (its rest pose's vertical extent).
    pub height: f32,
}

/// The height a body is fitted to when none is asked for, metres.
pub const DEFAULT_BODY_HEIGHT: f32 = 1.0;

/// The smallest and largest heights a body may be fitted to, metres.
pub const BODY_HEIGHT_RANGE: (f32, f32) = (0.01, 100.0);

impl Default for BodyOptions {
    fn default() -> Self {
        BodyOptions {
            height: DEFAULT_BODY_HEIGHT,
        }
    }
}

/// Why a body could not be read.
#[derive(Debug, Error)]
pub enum BodyError {
    /// The file cannot be used; the message names the file and the part.
    #[error("{0}")]
    Invalid(String),
}

/// A body read from a file, fitted to its height.
#[derive(Clone, Debug)]
pub struct LoadedBody {
    /// Its surface, skin and texture in the bind pose.
    pub mesh: BodyMesh,
    /// The names of its animations, in the file's order ("" for unnamed ones).
    pub animation_names: Vec<String>,
    /// One line for a summary: the file, what was read and the fit.
    pub summary: String,
    /// Each animation's length, seconds, in the order of `animation_names`.
    pub animation_durations: Vec<f64>,
    /// The pose the file shows with no animation (its nodes' own transforms); the bind
    /// pose of `mesh` is often the same, but need not be.
    pub rest_pose: SkinPose,
    /// How the file's units and axes were fitted to `height` metres.
    pub fit: BodyFit,
    /// The files read besides the body's own (a `.gltf`'s buffers and images beside it),
    /// so a command can refuse to write over one of them.
    pub files: Vec<std::path::PathBuf>,
    /// How many joints of the body's own springs (`VRMC_springBone`, or VRM 0.x
    /// `secondaryAnimation`) swing on VRM's rule in its motion (0 for none).
    pub spring_joints: usize,
    /// Why the file's springs are not used, when it has springs that cannot run (the body
    /// is read all the same and holds them at rest). Also in `summary`.
    pub springs_ignored: Option<String>,
    /// The node tree, joints and animations that pose the body.
    rig: Option<Arc<Rig>>,
    /// The body's springs at rest.
    springs: Option<Arc<BodySprings>>,
}

impl LoadedBody {
    /// Reads `path` (`.glb`, `.gltf` with its buffers, `.vrm` 0.x or 1.0).
    pub fn read(path: &Path, options: &BodyOptions) -> Result<LoadedBody, BodyError> {
        let name = path.display().to_string();
        let fail = |why: String| BodyError::Invalid(format!("{name}: {why}"));
        let bytes = read_body_file(path, &name)?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        };
        Self::parse(&bytes, Some(&dir), options).map_err(fail)
    }

    /// Reads a body from the bytes of a GLB, a VRM or a `.gltf` whose buffers are embedded
    /// (data URIs): external files are refused. `name` labels errors and the summary.
    pub fn from_bytes(
        bytes: &[u8],
        name: &str,
        options: &BodyOptions,
    ) -> Result<LoadedBody, BodyError> {
        Self::parse(bytes, None, options)
            .map_err(|why| BodyError::Invalid(format!("{name}: {why}")))
    }

    /// A body built in code: `mesh` as given, its rest pose the bind pose, no animations.
    pub fn from_mesh(mesh: BodyMesh) -> LoadedBody {
        let joints = mesh.joint_count;
        LoadedBody {
            summary: format!(
                "a body of {} vertices, {} triangles and {} joints",
                mesh.positions.len(),
                mesh.triangles.len(),
                joints.max(1)
            ),
            mesh,
            animation_names: Vec::new(),
            animation_durations: Vec::new(),
            rest_pose: SkinPose::rest(joints),
            fit: BodyFit {
                scale: 1.0,
                turned: false,
                translation: Vec3::ZERO,
                file_height: 0.0,
            },
            files: Vec::new(),
            spring_joints: 0,
            springs_ignored: None,
            rig: None,
            springs: None,
        }
    }

    fn parse(
        bytes: &[u8],
        dir: Option<&Path>,
        options: &BodyOptions,
    ) -> Result<LoadedBody, String> {
        let (lo, hi) = BODY_HEIGHT_RANGE;
        if !(options.height.is_finite() && options.height >= lo && options.height <= hi) {
            return Err(format!(
                "the body height {} m is outside {lo}..{hi} m; give a height in metres",
                options.height
            ));
        }
        let mut source = read_source(bytes, dir, bytes.len() as u64)?;
        let tree = NodeTree::read(&source.document)?;
        let mut joints = Joints::read(&source)?;
        let mut gathered = primitives::gather(&source, &tree, &mut joints)?;
        let (texture, left_out) = texture::pack(&mut source, &mut gathered)?;
        let clips = read_clips(&source, tree.parents.len())?;
        let springs = read_springs(
            json_of(bytes),
            has_springs(&source.document),
            tree.parents.len(),
        );

        // The fit, from the pose the file shows.
        let raw_rest = SkinPose {
            joints: joints.pose(&tree.rest_world()),
        };
        let mesh = &gathered.mesh;
        let rest_points = (0..mesh.positions.len()).map(|v| raw_rest.skin_vertex(mesh, v).0);
        let turned = is_vrm0(&source.document);
        let fit = BodyFit::new(rest_points, options.height, turned)?;
        let (fit_m, fit_inv) = (fit.matrix(), fit.inverse());
        let turn = glam::Mat3::from_mat4(fit_m) / fit.scale;

        let mut mesh = gathered.mesh;
        for p in &mut mesh.positions {
            *p = fit_m.transform_point3(*p);
        }
        for n in &mut mesh.normals {
            *n = (turn * *n).normalize_or(Vec3::Y);
        }
        mesh.base_color_texture = texture;
        mesh.joint_count = joints.list.len();
        mesh.joint_positions = joints
            .list
            .iter()
            .map(|j| fit_m.transform_point3(j.inverse_bind.inverse().transform_point3(Vec3::ZERO)))
            .collect();
        mesh.joint_parents = joints.parents(&tree);

        let rig = Rig {
            joints: joints.list,
            clips,
            fit: fit_m,
            fit_inverse: fit_inv,
            tree,
        };
        let rest_pose = rig.pose(&rig.tree.rest);
        let finite = |m: &Mat4| m.is_finite();
        if !rest_pose.joints.iter().all(finite) || !mesh.positions.iter().all(|p| p.is_finite()) {
            return Err(
                "its rest pose or bind pose overflows once fitted (transforms or positions too large)"
                    .into(),
            );
        }
        // The groom places roots by area: a body of collapsed triangles has nowhere to grow.
        let area = |t: &[u32; 3]| {
            let [a, b, c] = t.map(|i| mesh.positions.get(i as usize).copied().unwrap_or_default());
            (b - a).cross(c - a).length()
        };
        if !mesh.triangles.iter().any(|t| area(t) > 0.0) {
            return Err(format!(
                "its {} triangles have no area (each is collapsed to a line or a point); a body needs a surface to grow fur on",
                mesh.triangles.len()
            ));
        }
        let animation_names: Vec<String> = rig.clips.iter().map(|c| c.name.clone()).collect();
        let animation_durations = rig.clips.iter().map(|c| f64::from(c.duration)).collect();
        let mut summary = summary(
            &mesh,
            &animation_names,
            &fit,
            options.height,
            gathered.skipped,
            left_out,
        );
        let (springs, springs_ignored) = match springs {
            SpringsRead::None => (None, None),
            SpringsRead::Springs(s) => (Some(s), None),
            SpringsRead::Ignored(why) => (None, Some(why)),
        };
        let spring_joints = springs.as_ref().map_or(0, |s| s.joint_count());
        match (&springs, &springs_ignored) {
            (Some(s), _) => summary.push_str(&format!(
                "; {spring_joints} spring joints ({}) swing on VRM's spring rule at 60 Hz",
                s.source_name()
            )),
            (None, Some(why)) => summary.push_str(&format!(
                "; its springs are ignored and hold their rest pose ({why})"
            )),
            (None, None) => summary.push_str(", no springs"),
        }
        Ok(LoadedBody {
            mesh,
            animation_names,
            summary,
            animation_durations,
            rest_pose,
            fit,
            files: std::mem::take(&mut source.files),
            spring_joints,
            springs_ignored,
            rig: Some(Arc::new(rig)),
            springs,
        })
    }

    /// The length of animation `name`, seconds (`None` if the body has no such animation).
    pub fn animation_duration(&self, name: &str) -> Option<f64> {
        let i = self.animation_names.iter().position(|n| n == name)?;
        self.animation_durations.get(i).copied()
    }

    /// The body's motion: animation `name` looped, or its rest pose (`None`), with the
    /// body's springs swinging on top when it has any (stepped at 60 Hz from rest at time 0;
    /// see `body/springs.rs`).
    pub fn motion(&self, name: Option<&str>) -> Result<Box<dyn BodyMotion>, BodyError> {
        let index = name.map(|name| self.animation_names.iter().position(|n| n == name));
        if let (Some(rig), Some(springs)) = (&self.rig, &self.springs)
            && index != Some(None)
        {
            return Ok(Box::new(SpringMotion::new(
                Arc::clone(rig),
                index.flatten(),
                Arc::clone(springs),
                self.rest_pose.clone(),
            )));
        }
        let Some(name) = name else {
            return Ok(Box::new(StillPose(self.rest_pose.clone())));
        };
        match (index.flatten(), &self.rig) {
            (Some(clip), Some(rig)) => Ok(Box::new(FileMotion {
                rig: Arc::clone(rig),
                clip,
                rest: self.rest_pose.clone(),
            })),
            _ => {
                let listed = if self.animation_names.is_empty() {
                    "the body has no animations".to_string()
                } else {
                    format!(
                        "the body has {}",
                        listed_names(&self.animation_names, |_, n| quoted(n))
                    )
                };
                Err(BodyError::Invalid(format!(
                    "no animation named {}: {listed}",
                    quoted(name)
                )))
            }
        }
    }
}

/// The bytes of a body file, read only as far as its kind allows: a GLB up to the length its
/// header states (at most [`MAX_BODY_BYTES`]), glTF JSON up to [`MAX_JSON_BYTES`], and
/// anything else refused after its first bytes (so `/dev/zero` costs 20 bytes).
fn read_body_file(path: &Path, name: &str) -> Result<Vec<u8>, BodyError> {
    use std::io::Read;
    let file =
        crate::files::open_input(path, "body").map_err(|e| BodyError::Invalid(e.to_string()))?;
    let io = |e: std::io::Error| BodyError::Invalid(format!("cannot read body {name}: {e}"));
    let mut bytes = Vec::new();
    (&file).take(20).read_to_end(&mut bytes).map_err(io)?;
    let cap = if bytes.starts_with(b"glTF") && bytes.len() >= 12 {
        let total = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        if u64::from(total) > MAX_BODY_BYTES {
            return Err(BodyError::Invalid(format!(
                "{name}: its GLB header says {total} bytes, more than Pelt reads for a body ({} MiB)",
                MAX_BODY_BYTES >> 20
            )));
        }
        u64::from(total)
    } else {
        let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
        match text.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') | None => MAX_JSON_BYTES as u64 + 3,
            // Not glTF: `read_source` names what it is not from these bytes.
            Some(_) => return Ok(bytes),
        }
    };
    let rest = cap.saturating_sub(bytes.len() as u64);
    // One byte past the cap, so a JSON file that is too long is seen to be.
    (&file).take(rest + 1).read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

/// Animations named in a summary or an error, each as `show` gives it: the first few, then
/// how many more, so a file of thousands of animations gives one short line.
fn listed_names(names: &[String], show: impl Fn(usize, &str) -> String) -> String {
    const SHOWN: usize = 12;
    let mut listed: Vec<String> = names
        .iter()
        .take(SHOWN)
        .enumerate()
        .map(|(i, n)| show(i, n))
        .collect();
    if names.len() > SHOWN {
        listed.push(format!("and {} more", names.len() - SHOWN));
    }
    listed.join(", ")
}

/// The summary line: what was read and how it was fitted.
fn summary(
    mesh: &BodyMesh,
    animations: &[String],
    fit: &BodyFit,
    height: f32,
    skipped: usize,
    left_out: usize,
) -> String {
    let mut s = format!(
        "{} vertices, {} triangles, {} joints",
        mesh.positions.len(),
        mesh.triangles.len(),
        mesh.joint_count
    );
    if animations.is_empty() {
        s.push_str(", no animations");
    } else {
        let show = |i: usize, n: &str| {
            if n.is_empty() {
                format!("#{i}")
            } else {
                quoted(n)
            }
        };
        s.push_str(&format!(", animations {}", listed_names(animations, show)));
    }
    if let Some(t) = &mesh.base_color_texture {
        s.push_str(&format!(
            ", base colour textures packed into {}×{} texels",
            t.width, t.height
        ));
    }
    s.push_str(&format!(
        "; fitted to {} m tall (scale {}{})",
        height,
        fit.scale,
        if fit.turned {
            ", turned to face +Z"
        } else {
            ""
        }
    ));
    if skipped > 0 {
        s.push_str(&format!(
            "; {skipped} primitives skipped (points, lines or hidden)"
        ));
    }
    if left_out > 0 {
        s.push_str(&format!("; {left_out} textures left out (too many texels)"));
    }
    s
}

/// Whether the document is a VRM 0.x avatar (its root has the `VRM` extension), which
/// faces −Z.
fn is_vrm0(document: &gltf::Document) -> bool {
    let json = document.as_json();
    let used = |name: &str| json.extensions_used.iter().any(|e| e == name);
    let present = json
        .extensions
        .as_ref()
        .is_some_and(|e| e.others.contains_key("VRM"));
    (used("VRM") || present) && !used("VRMC_vrm")
}

/// The glTF JSON of a body file's bytes: a GLB's JSON chunk, or the `.gltf` text itself.
fn json_of(bytes: &[u8]) -> &[u8] {
    if bytes.starts_with(b"glTF") {
        crate::vrm::glb::unpack(bytes).map_or(&[], |(json, _)| json)
    } else {
        bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
    }
}

/// Whether the document's root carries VRM springs (`VRMC_springBone` 1.0, or the `VRM`
/// 0.x extension, whose `secondaryAnimation` holds them).
fn has_springs(document: &gltf::Document) -> bool {
    document.as_json().extensions.as_ref().is_some_and(|e| {
        e.others.contains_key(crate::vrm::ext::VRMC_EXT)
            || e.others.contains_key(crate::vrm::ext::VRM0_EXT)
    })
}

/// A body that holds one pose.
struct StillPose(SkinPose);

impl BodyMotion for StillPose {
    fn pose_at(&self, _seconds: f64) -> SkinPose {
        self.0.clone()
    }
}

/// A body moved by one of its file's animations, looped.
struct FileMotion {
    rig: Arc<Rig>,
    clip: usize,
    rest: SkinPose,
}

impl BodyMotion for FileMotion {
    fn pose_at(&self, seconds: f64) -> SkinPose {
        let locals = self.rig.locals_at(Some(self.clip), seconds);
        self.rig.finite_pose(&locals, &self.rest)
    }
}
