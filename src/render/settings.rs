//! [`RenderSettings`]: the renderer's choices fixed when it is built, checked against
//! their ranges.

use super::RenderError;

/// How the camera's hair is drawn: both ways give the same picture (within a few levels;
/// the hardware ribbons are the reference).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Raster {
    /// Ribbons through the hardware rasteriser (`render::hair::ribbons`).
    #[default]
    Hardware,
    /// The strand rasteriser on the host's cores (`render::hair::native`, drawing with
    /// [`crate::raster`]): one sample a pixel with analytic coverage, composited over the
    /// surfaces.
    Native,
    /// The strand rasteriser: one sample a pixel, analytic coverage, the nearest layers
    /// in depth order (`render::hair::strands_gpu`, over `render::strand_raster`).
    Strands,
    /// Whichever is faster on the adapter ([`Raster::for_adapter`], in
    /// `render/hair/choice.rs` with every other choice between the paths).
    Auto,
}

impl Raster {
    /// Every choice, in the order the command line and the demo's panel list them.
    pub const CHOICES: [Raster; 4] = [
        Raster::Hardware,
        Raster::Native,
        Raster::Strands,
        Raster::Auto,
    ];

    /// The name the command line uses.
    pub fn name(self) -> &'static str {
        match self {
            Raster::Hardware => "ribbons",
            Raster::Native => "native",
            Raster::Strands => "strands",
            Raster::Auto => "auto",
        }
    }
}

impl std::fmt::Display for Raster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Raster {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        // "hardware" is the ribbons' earlier name, kept so older scripts still run.
        if s == "hardware" {
            return Ok(Raster::Hardware);
        }
        let names = Raster::CHOICES.map(Raster::name).join(", ");
        // The exact MSAA emulation by compute is gone: its name gets an error of its own
        // rather than a silent stand-in, so a comparison asked for is never of another path.
        if s == "compute" {
            return Err(format!(
                "the compute rasteriser (an exact emulation of the ribbons' 4× MSAA) was retired: use one of {names} (native and strands are the strand rasteriser, on the CPU's cores and in WGSL)"
            ));
        }
        Raster::CHOICES
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("{s:?} is not a raster path; use one of {names}"))
    }
}

/// The smallest shadow maps a target is given ([`RenderSettings::shadow_extent`]).
pub const MIN_SHADOW_EXTENT: u32 = 256;

/// Choices fixed when the renderer is built or rarely changed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderSettings {
    /// Texels along each side of the shadow maps (the most, with `shadow_follows_target`).
    pub shadow_map_size: u32,
    /// Whether a small target draws its shadows into maps no finer than it needs
    /// ([`RenderSettings::shadow_extent`]), made again at that size when it changes: the
    /// maps' cost follows the picture's size (a 320×180 frame of the demo's budget spent
    /// 29 of its 65 ms on 1024² maps). On by default; pictures whose larger side is over
    /// 512 pixels are not affected.
    pub shadow_follows_target: bool,
    /// Whether following the target takes the power of two at or below its larger side
    /// rather than at or above it ([`RenderSettings::shadow_extent`]): light texels up to
    /// twice as coarse as the camera's pixels and about a quarter of the texels to draw.
    /// Off by default (`pelt render`'s pictures keep their maps); the demo turns it on
    /// where its budget is tight, since a soft shadow hides the coarser texels better
    /// than a blurred frame hides a lower render scale.
    pub shadow_rounds_down: bool,
    /// Whether following the target halves the maps' side again (to at least
    /// 256 texels): a quarter of the texels again, the light's texels up to
    /// twice as coarse as the camera's pixels (up to four times with
    /// `shadow_rounds_down`). Off by default; on in real time for the
    /// native path ([`RenderSettings::real_time`]), whose light maps are drawn on the
    /// host's cores while the soft shadows of a frame at the budget's render scale hide
    /// the coarser texels.
    pub shadow_halved: bool,
    /// Whether the hair casts shadows (on the skin and on itself).
    pub hair_casts_shadows: bool,
    /// Which of the ribbons' dithers the camera draws: 0 (the default) or any other
    /// number picks, for every strand, other MSAA samples and another per-pixel dither
    /// for its opacity. Each is the same coat with other sampling noise; averaged over
    /// several, the ribbons' expected picture, which the other hair paths are compared
    /// with (one draw's noise alone lies several levels from it where strands are a
    /// few pixels wide).
    pub ribbon_dither: u32,
    /// Ribbon width at the root, metres (the seed's 0.0034).
    pub root_width: f32,
    /// Width at the tip as a share of the root's (the seed's 15%).
    pub tip_width: f32,
    /// Share of the length, at the tip, over which a strand fades out (the seed's 20%).
    pub tip_fade: f32,
    /// Narrowest drawn ribbon in pixels; narrower strands are drawn this wide and that
    /// much fainter.
    pub min_pixels: f32,
    /// How much light one fully covering strand stops, in the deep opacity map.
    pub hair_density: f32,
    /// Distance over which the hand's occlusion fades, metres.
    pub hand_occlusion_falloff: f32,
    /// Height of the floor drawn under the creature, metres: the solver's floor
    /// ([`crate::sim::FurParams::floor`]), so strands rest on what is drawn.
    pub floor: f32,
    /// How the camera's hair is drawn.
    pub raster: Raster,
    /// Strands the native path's light maps draw per texel of the coat's disc in them, at
    /// most: where the camera draws more, the maps draw a shorter, widened prefix of the
    /// same order ([`super::strand_lod::StrandLod::for_light`]), the same density for a
    /// fraction of the work, but the strand shadows' grain moves: a close-up shows it (its
    /// pictures drift from the ribbons' by about 2 levels more). `None` (the default, for
    /// pictures) draws the camera's strands; the demo asks for an eighth of a strand a
    /// texel ([`REAL_TIME_LIGHT_STRANDS_PER_TEXEL`]: its soft shadows at a low render
    /// scale hide the coarser grain), and
    /// [`super::strand_lod::LIGHT_STRANDS_PER_TEXEL`] is a setting for stills that may
    /// trade that for speed.
    pub light_strands_per_texel: Option<f32>,
    /// Whether frames refresh the key light's hair maps and the points' shading in turns
    /// rather than both every frame ([`super::refresh`]): each keeps what the frame before
    /// made while the other is made again: the colours lag the positions by a frame, the
    /// strand shadows by up to [`super::refresh::MAX_LIGHT_AGE`] − 1 frames while the
    /// camera moves (by one while it is still). Only the native path takes turns (the
    /// others read the cull's flags in their own passes). Off by default (pictures); on for the native path in real
    /// time ([`RenderSettings::real_time`]), where each costs about a sixth of a frame.
    pub refresh_in_turns: bool,
}

/// Strands the light's maps draw per texel of the coat in them in frames drawn in real time
/// by the native path ([`RenderSettings::real_time`]): the maps are then at the picture's
/// size and its shadows soft, so the coarser grain does not show, while the maps' cost
/// falls with the strands they draw (measured in docs/architecture.md, "The light's own
/// level of detail").
pub const REAL_TIME_LIGHT_STRANDS_PER_TEXEL: f32 = 0.125;

impl RenderSettings {
    /// These settings for frames drawn in real time (the demo's window, the frame bench's
    /// demo frames) by `path`, which must be resolved first ([`Raster::for_adapter`]:
    /// `Auto` keeps them as they are; `self.raster` is not read or changed): where the
    /// native path draws the hair, the shadow maps at half the picture's size rounded down and
    /// the light's level of detail at [`REAL_TIME_LIGHT_STRANDS_PER_TEXEL`], and the light's
    /// hair maps and the shading refreshed in turns ([`RenderSettings::refresh_in_turns`]);
    /// as they are for the other paths.
    pub fn real_time(self, path: Raster) -> RenderSettings {
        match path {
            Raster::Native => RenderSettings {
                shadow_rounds_down: true,
                shadow_halved: true,
                light_strands_per_texel: Some(REAL_TIME_LIGHT_STRANDS_PER_TEXEL),
                refresh_in_turns: true,
                ..self
            },
            _ => self,
        }
    }
}

impl RenderSettings {
    /// These settings with [`RenderSettings::refresh_in_turns`] set to `on`.
    pub fn with_refresh_in_turns(self, on: bool) -> RenderSettings {
        RenderSettings {
            refresh_in_turns: on,
            ..self
        }
    }
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            shadow_map_size: 1024,
            shadow_follows_target: true,
            shadow_rounds_down: false,
            shadow_halved: false,
            hair_casts_shadows: true,
            ribbon_dither: 0,
            root_width: 0.0034,
            tip_width: 0.15,
            tip_fade: 0.2,
            min_pixels: 1.0,
            hair_density: 0.35,
            hand_occlusion_falloff: 0.06,
            floor: crate::sim::FurParams::default().floor,
            raster: Raster::Hardware,
            light_strands_per_texel: None,
            refresh_in_turns: false,
        }
    }
}

impl RenderSettings {
    /// Texels along each side of the shadow maps a target of `size` pixels is drawn with:
    /// the power of two at or above its larger side (so the light's texels are no coarser
    /// than the camera's pixels), or at or below it with `shadow_rounds_down`, then halved
    /// with `shadow_halved`; at least 256, at most `shadow_map_size`; or
    /// `shadow_map_size` when `shadow_follows_target` is off. In powers of two so a target
    /// resized a little keeps its maps.
    pub fn shadow_extent(&self, size: (u32, u32)) -> u32 {
        if !self.shadow_follows_target {
            return self.shadow_map_size;
        }
        let side = size.0.max(size.1).max(MIN_SHADOW_EXTENT);
        let above = side.checked_next_power_of_two().unwrap_or(1 << 31);
        let extent = if self.shadow_rounds_down && above != side {
            above / 2
        } else {
            above
        };
        let extent = if self.shadow_halved {
            (extent / 2).max(MIN_SHADOW_EXTENT)
        } else {
            extent
        };
        extent.min(self.shadow_map_size)
    }

    /// Checks every field against its range (`max_texture` bounds the shadow maps); the
    /// error names the first that is out of it.
    pub(super) fn validate(&self, max_texture: u32) -> Result<(), RenderError> {
        let bad = |field: &str, value: String, range: &str| {
            Err(RenderError::Settings(format!(
                "{field} is {value}; it must be {range}"
            )))
        };
        let positive = |v: f32| v.is_finite() && v > 0.0;
        let share = |v: f32| v.is_finite() && (0.0..=1.0).contains(&v);
        if !positive(self.root_width) {
            return bad(
                "root_width",
                self.root_width.to_string(),
                "a positive number of metres",
            );
        }
        if !share(self.tip_width) {
            return bad("tip_width", self.tip_width.to_string(), "between 0 and 1");
        }
        if !share(self.tip_fade) {
            return bad("tip_fade", self.tip_fade.to_string(), "between 0 and 1");
        }
        if !(self.min_pixels.is_finite() && self.min_pixels >= 0.0) {
            return bad(
                "min_pixels",
                self.min_pixels.to_string(),
                "a finite number ≥ 0",
            );
        }
        if !(self.hair_density.is_finite() && self.hair_density >= 0.0) {
            return bad(
                "hair_density",
                self.hair_density.to_string(),
                "a finite number ≥ 0",
            );
        }
        if !positive(self.hand_occlusion_falloff) {
            return bad(
                "hand_occlusion_falloff",
                self.hand_occlusion_falloff.to_string(),
                "a positive number of metres",
            );
        }
        if !self.floor.is_finite() {
            return bad("floor", self.floor.to_string(), "a finite height");
        }
        let max = max_texture.min(8192);
        if !(16..=max).contains(&self.shadow_map_size) {
            return bad(
                "shadow_map_size",
                self.shadow_map_size.to_string(),
                &format!("16 to {max} texels (this device's largest texture)"),
            );
        }
        Ok(())
    }
}
