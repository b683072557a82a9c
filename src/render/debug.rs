//! The diagnostic views, listed once. A mode is a variant of [`DebugMode`], an entry of
//! [`DebugMode::ALL`] and an arm of `DebugMode::spec` (its name, what it shows, which parts
//! of the frame it draws); the CLI's parsing, help and errors, the demo's panel and the
//! renderer all read those. Each mode is its own branch of the frame (which passes run,
//! and which fragment entry point the hair uses), never a switch inside the final shading.

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

/// How a mode draws the hair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HairView {
    /// Not drawn.
    Hidden,
    /// Shaded by the hair pass and drawn by whichever rasteriser is chosen.
    Shaded,
    /// The `contact` colouring: muted strands, touched points red. The ribbons' own
    /// fragment entry point, so always drawn by the ribbons.
    Contact,
}

/// Everything the program reads about one mode.
struct Spec {
    /// The name the CLI takes and the panel shows.
    name: &'static str,
    /// One line for the CLI's help.
    summary: &'static str,
    /// Whether the opaque surfaces (skin, face, hand, floor) are drawn.
    surfaces: bool,
    /// How the hair is drawn.
    hair: HairView,
    /// Whether the ray proxies' wireframes and the last ray hit are drawn over the frame.
    proxies: bool,
}

impl DebugMode {
    /// Every mode, in the order the CLI and the panel list them.
    pub const ALL: [DebugMode; 4] = [
        DebugMode::Final,
        DebugMode::Skin,
        DebugMode::Strands,
        DebugMode::Contact,
    ];

    /// Every mode's name, in the order of [`DebugMode::ALL`].
    pub const NAMES: [&'static str; DebugMode::ALL.len()] = {
        let mut names = [""; DebugMode::ALL.len()];
        let mut i = 0;
        while i < names.len() {
            names[i] = DebugMode::ALL[i].name();
            i += 1;
        }
        names
    };

    /// The one description of each mode.
    const fn spec(self) -> Spec {
        match self {
            DebugMode::Final => Spec {
                name: "final",
                summary: "everything: skin, face, hair, hand, shadows",
                surfaces: true,
                hair: HairView::Shaded,
                proxies: false,
            },
            DebugMode::Skin => Spec {
                name: "skin",
                summary: "the host alone, hair hidden, its shadows kept",
                surfaces: true,
                hair: HairView::Hidden,
                proxies: false,
            },
            DebugMode::Strands => Spec {
                name: "strands",
                summary: "the strand field alone",
                surfaces: false,
                hair: HairView::Shaded,
                proxies: false,
            },
            DebugMode::Contact => Spec {
                name: "contact",
                summary: "the ray proxies, the last ray hit and the points the hand touches",
                surfaces: true,
                hair: HairView::Contact,
                proxies: true,
            },
        }
    }

    /// The mode's CLI name.
    pub const fn name(self) -> &'static str {
        self.spec().name
    }

    /// What the mode shows, in a few words (the CLI's help for its value).
    pub const fn summary(self) -> &'static str {
        self.spec().summary
    }

    /// Whether the opaque surfaces (skin, face, hand, floor) are drawn.
    pub const fn draws_surfaces(self) -> bool {
        self.spec().surfaces
    }

    /// How the hair is drawn.
    pub const fn hair(self) -> HairView {
        self.spec().hair
    }

    /// Whether the hair is drawn at all.
    pub fn draws_hair(self) -> bool {
        self.hair() != HairView::Hidden
    }

    /// Whether the ray proxies' wireframes and the last ray hit are drawn over the frame.
    pub const fn draws_proxies(self) -> bool {
        self.spec().proxies
    }

    /// The names as a sentence lists them: "final, skin, strands or contact".
    pub fn list() -> String {
        match DebugMode::NAMES.split_last() {
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
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
            .ok_or_else(|| format!("unknown mode {s:?}; expected {}", DebugMode::list()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_is_listed_once_and_parses_from_its_name() {
        for (i, mode) in DebugMode::ALL.into_iter().enumerate() {
            assert_eq!(DebugMode::NAMES[i], mode.name());
            assert_eq!(mode.name().parse::<DebugMode>(), Ok(mode));
            assert!(!mode.summary().is_empty(), "{mode} has no summary");
            let same = DebugMode::ALL.iter().filter(|m| m.name() == mode.name());
            assert_eq!(same.count(), 1, "{mode} is named twice");
        }
    }

    #[test]
    fn an_unknown_mode_is_refused_with_every_name() {
        assert_eq!(DebugMode::list(), "final, skin, strands or contact");
        let err = "normals".parse::<DebugMode>().unwrap_err();
        for name in DebugMode::NAMES {
            assert!(err.contains(name), "{err}");
        }
    }
}
