//! The diagnostic views. Each is its own branch of the frame (which passes run, and which
//! fragment entry point the hair uses), never a switch inside the final shading.

use std::fmt;
use std::str::FromStr;

/// What a frame shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DebugMode {
    /// Everything: skin, face, hair, hand, shadows.
    #[default]
    Final,
    /// The host alone, hair hidden (its shadows on the skin stay, so shadow consistency can
    /// be checked): root coverage, overlaps, the face and body split.
    Skin,
    /// The strand field alone: density, length variation, taper, silhouette gaps.
    Strands,
    /// Translucent wireframes of the proxies rays are tested against, the last ray hit,
    /// and the points the hand touched this step in red on muted strands.
    Contact,
}

impl DebugMode {
    /// Every mode, in the order the CLI lists them.
    pub const ALL: [DebugMode; 4] = [
        DebugMode::Final,
        DebugMode::Skin,
        DebugMode::Strands,
        DebugMode::Contact,
    ];

    /// The mode's CLI name.
    pub fn name(self) -> &'static str {
        match self {
            DebugMode::Final => "final",
            DebugMode::Skin => "skin",
            DebugMode::Strands => "strands",
            DebugMode::Contact => "contact",
        }
    }

    /// Whether the opaque surfaces (skin, face, hand, floor) are drawn.
    pub fn draws_surfaces(self) -> bool {
        self != DebugMode::Strands
    }

    /// Whether the hair is drawn.
    pub fn draws_hair(self) -> bool {
        self != DebugMode::Skin
    }
}

impl fmt::Display for DebugMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DebugMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        DebugMode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown mode {s:?}; expected final, skin, strands or contact"))
    }
}
