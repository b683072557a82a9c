//! A groom file read on a body: whether fur grows at a point of a triangle (its `no_fur`
//! masks by material, vertex colour or texture channel), and the strand's colour there.
//! A point is given as (triangle, barycentrics), as the root sampler places roots; a
//! triangle or vertex index out of range reads as no material, white and UV 0, so a bad
//! index cannot panic.

use super::file::{Colour, GroomFile, Mask, material_words};
use crate::body::BodyMesh;
use glam::{Vec2, Vec3, Vec4};

/// The triangle's three vertex indices, where it has them.
fn corners(mesh: &BodyMesh, triangle: usize) -> Option<[usize; 3]> {
    mesh.triangles.get(triangle).map(|t| t.map(|i| i as usize))
}

/// The vertex colour at the point (linear RGBA, white where the mesh has none).
pub fn colour_at_point(mesh: &BodyMesh, triangle: usize, barycentrics: Vec3) -> Vec4 {
    let Some(c) = corners(mesh, triangle) else {
        return Vec4::ONE;
    };
    let at = |i: usize| mesh.colors.get(i).copied().unwrap_or(Vec4::ONE);
    at(c[0]) * barycentrics.x + at(c[1]) * barycentrics.y + at(c[2]) * barycentrics.z
}

/// The texture coordinate at the point (0 where the mesh has none).
pub fn uv_at_point(mesh: &BodyMesh, triangle: usize, barycentrics: Vec3) -> Vec2 {
    let Some(c) = corners(mesh, triangle) else {
        return Vec2::ZERO;
    };
    let at = |i: usize| mesh.uvs.get(i).copied().unwrap_or(Vec2::ZERO);
    at(c[0]) * barycentrics.x + at(c[1]) * barycentrics.y + at(c[2]) * barycentrics.z
}

/// The base colour texture's texel nearest `uv` as stored (each channel 0 to 1, sRGB as
/// painted), wrapped as glTF's default sampler wraps; `None` without a texture.
pub fn stored_texel(mesh: &BodyMesh, uv: Vec2) -> Option<Vec4> {
    let t = mesh.base_color_texture.as_ref()?;
    if t.width == 0 || t.height == 0 {
        return None;
    }
    let wrap = |v: f32, n: u32| -> usize {
        let f = if v.is_finite() { v - v.floor() } else { 0.0 };
        ((f * n as f32) as usize).min(n as usize - 1)
    };
    let texel = t
        .texels
        .get(wrap(uv.y, t.height) * t.width as usize + wrap(uv.x, t.width))?;
    Some(Vec4::from(texel.map(|c| f32::from(c) / 255.0)))
}

/// The name of the triangle's material, where it has one.
fn material_of(mesh: &BodyMesh, triangle: usize) -> Option<&str> {
    mesh.triangle_materials
        .get(triangle)
        .and_then(|&m| mesh.material_names.get(usize::from(m)))
        .map(String::as_str)
}

impl Mask {
    /// Whether this mask keeps fur off every triangle of the material named `name`; `None`
    /// for a mask that reads the point rather than the material.
    pub fn bares_material(&self, name: &str) -> Option<bool> {
        match self {
            Mask::Material(m) => Some(m == name),
            Mask::MaterialContaining(word) => Some(name.to_lowercase().contains(word.as_str())),
            Mask::MaterialWord(word) => Some(material_words(name).iter().any(|w| {
                w.strip_prefix(word.as_str())
                    .is_some_and(|rest| matches!(rest, "" | "s" | "es"))
            })),
            Mask::VertexColour(..) | Mask::Texture(..) => None,
        }
    }

    /// Whether this mask keeps fur off the point.
    pub fn bare_at(&self, mesh: &BodyMesh, triangle: usize, barycentrics: Vec3) -> bool {
        match self {
            Mask::Material(_) | Mask::MaterialContaining(_) | Mask::MaterialWord(_) => {
                material_of(mesh, triangle).is_some_and(|n| self.bares_material(n) == Some(true))
            }
            Mask::VertexColour(channel, threshold) => {
                let c = colour_at_point(mesh, triangle, barycentrics);
                threshold.bare(c[channel.index()])
            }
            Mask::Texture(channel, threshold) => {
                let uv = uv_at_point(mesh, triangle, barycentrics);
                stored_texel(mesh, uv).is_some_and(|t| threshold.bare(t[channel.index()]))
            }
        }
    }
}

/// A groom's masks made ready for one body: which materials are bare is decided once for
/// each material, so the root sampler tests a name per material, not per candidate root.
pub struct BodyMasks<'a> {
    /// Per material of the body: whether a material mask keeps it bare.
    bare_materials: Vec<bool>,
    /// The masks that read the point (vertex colour, texture).
    at_points: Vec<&'a Mask>,
}

impl<'a> BodyMasks<'a> {
    /// `masks` on `mesh`.
    pub fn new(masks: &'a [Mask], mesh: &BodyMesh) -> Self {
        let bare_materials = mesh
            .material_names
            .iter()
            .map(|n| masks.iter().any(|m| m.bares_material(n) == Some(true)))
            .collect();
        let at_points = masks
            .iter()
            .filter(|m| m.bares_material("").is_none())
            .collect();
        BodyMasks {
            bare_materials,
            at_points,
        }
    }

    /// Whether the material with index `material` is bare.
    pub fn material_is_bare(&self, material: u16) -> bool {
        self.bare_materials
            .get(usize::from(material))
            .copied()
            .unwrap_or(false)
    }

    /// Whether fur grows at the point, as [`GroomFile::grows_at`] decides it.
    pub fn grows_at(&self, mesh: &BodyMesh, triangle: usize, barycentrics: Vec3) -> bool {
        let bare_material = mesh
            .triangle_materials
            .get(triangle)
            .is_some_and(|&m| self.material_is_bare(m));
        !bare_material
            && !self
                .at_points
                .iter()
                .any(|m| m.bare_at(mesh, triangle, barycentrics))
    }
}

impl GroomFile {
    /// Whether fur grows at the point: no `no_fur` mask keeps it bare.
    pub fn grows_at(&self, mesh: &BodyMesh, triangle: usize, barycentrics: Vec3) -> bool {
        !self
            .no_fur
            .iter()
            .any(|m| m.bare_at(mesh, triangle, barycentrics))
    }

    /// The strand's linear colour at the point: the body's base colour there (texture ×
    /// vertex colour, which holds the material's factor) or the file's constant, times the
    /// tint.
    pub fn colour_at(&self, mesh: &BodyMesh, triangle: usize, barycentrics: Vec3) -> Vec3 {
        let base = match self.colour {
            Colour::Constant(c) => c,
            Colour::Texture => {
                let vertex = colour_at_point(mesh, triangle, barycentrics).truncate();
                let texture = mesh.base_color_texture.as_ref().map_or(Vec3::ONE, |t| {
                    t.sample(uv_at_point(mesh, triangle, barycentrics))
                        .truncate()
                });
                vertex * texture
            }
        };
        base * self.tint
    }

    /// Whether the masks fit `mesh`: every material named exists, and a texture mask has a
    /// texture to read. The message names the mask and what the body has.
    pub fn check_against(&self, mesh: &BodyMesh) -> Result<(), String> {
        for (i, m) in self.no_fur.iter().enumerate() {
            match m {
                Mask::Material(name) if !mesh.material_names.contains(name) => {
                    // The first few names: a body may have hundreds of materials.
                    let mut names: Vec<String> = mesh
                        .material_names
                        .iter()
                        .take(20)
                        .map(|n| format!("\"{n}\""))
                        .collect();
                    if mesh.material_names.len() > 20 {
                        names.push(format!("… ({} in all)", mesh.material_names.len()));
                    }
                    return Err(format!(
                        "`no_fur[{i}]` names the material \"{}\", which the body does not have; \
                         its materials are {}",
                        name,
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ));
                }
                Mask::Texture(..) if mesh.base_color_texture.is_none() => {
                    return Err(format!(
                        "`no_fur[{i}]` reads the base colour texture, but the body has none"
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_material_word_matches_whole_words_and_their_plurals() {
        let word = |w: &str| Mask::MaterialWord(w.into());
        for (name, w, bare) in [
            ("EyeIris", "iris", true),
            ("EyeIris", "eye", true),
            ("F00_FaceMouth", "mouth", true),
            ("Claws_L", "claw", true),
            ("EYES", "eye", true),
            ("Nails.001", "nail", true),
            ("Irises", "iris", true),
            ("Sabertooth_Body", "tooth", false),
            ("Bighorn_Sheep", "horn", false),
            ("Horned", "horn", false),
            ("Eyebrow", "eye", false),
        ] {
            assert_eq!(
                word(w).bares_material(name),
                Some(bare),
                "{name} by {w}: {:?}",
                material_words(name)
            );
        }
        assert_eq!(material_words("F00_FaceMouth"), ["f", "face", "mouth"]);
    }
    use super::*;
    use crate::body::BodyTexture;
    use crate::groom::file::{Channel, Threshold};

    /// Two triangles: material "Skin" with white vertices, material "Eyes" with a red
    /// vertex colour that fades to black; a 2×1 texture, alpha 0 on the left.
    fn mesh() -> BodyMesh {
        BodyMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
            normals: vec![Vec3::Y; 4],
            uvs: vec![
                Vec2::new(0.25, 0.5),
                Vec2::new(0.25, 0.5),
                Vec2::new(0.75, 0.5),
                Vec2::new(0.75, 0.5),
            ],
            colors: vec![
                Vec4::ONE,
                Vec4::ONE,
                Vec4::new(1.0, 0.0, 0.0, 1.0),
                Vec4::new(0.0, 0.0, 0.0, 1.0),
            ],
            triangles: vec![[0, 1, 2], [1, 2, 3]],
            triangle_materials: vec![0, 1],
            material_names: vec!["Skin".into(), "Eyes".into()],
            base_color_texture: Some(BodyTexture {
                width: 2,
                height: 1,
                texels: vec![[255, 255, 255, 0], [255, 255, 255, 255]],
            }),
            ..BodyMesh::default()
        }
    }

    #[test]
    fn each_mask_keeps_fur_off_only_its_own_places() {
        let m = mesh();
        let centre = Vec3::splat(1.0 / 3.0);
        let file = |mask: Mask| GroomFile {
            no_fur: vec![mask],
            ..GroomFile::default()
        };
        let eyes = file(Mask::Material("Eyes".into()));
        assert!(eyes.grows_at(&m, 0, centre) && !eyes.grows_at(&m, 1, centre));
        // Green is 1 at vertices 0 and 1, 0 at 2 and 3.
        let green = file(Mask::VertexColour(Channel::G, Threshold::Below(0.5)));
        assert!(green.grows_at(&m, 0, Vec3::new(0.5, 0.4, 0.1)));
        assert!(!green.grows_at(&m, 0, Vec3::new(0.1, 0.1, 0.8)));
        // Alpha 0 on the texture's left half (u < 0.5).
        let alpha = file(Mask::Texture(Channel::A, Threshold::Below(0.5)));
        assert!(!alpha.grows_at(&m, 0, Vec3::new(0.5, 0.5, 0.0)));
        assert!(alpha.grows_at(&m, 1, Vec3::new(0.0, 0.2, 0.8)));
        assert!(GroomFile::default().grows_at(&m, 9, centre));
        assert!(eyes.check_against(&m).is_ok());
        let e = file(Mask::Material("Eye".into()))
            .check_against(&m)
            .unwrap_err();
        assert!(
            e.contains("\"Eye\"") && e.contains("\"Skin\", \"Eyes\""),
            "{e}"
        );
    }
}
