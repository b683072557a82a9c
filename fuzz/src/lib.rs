//! What each fuzz target checks, as plain functions of the input bytes: the libFuzzer entry
//! points (`fuzz_targets/`, for `cargo fuzz` and long runs) and the replay runner CI uses
//! (`src/bin/replay.rs`, stable Rust, no libFuzzer) call the same code.

pub mod groom_json;
pub mod read_body;
pub mod read_capsule_script;
pub mod read_glb;
pub mod read_motion;
pub mod read_pointer_script;
pub mod usda_curves;

/// A fuzz target: its name (also its corpus folder, `corpus/NAME`) and its check, which
/// panics where the reader breaks a promise.
pub struct Target {
    /// The target's name.
    pub name: &'static str,
    /// The check.
    pub check: fn(&[u8]),
    /// Whether inputs are GLB files (the replay runner then mutates the JSON chunk and
    /// mends the lengths, so most inputs get past the header).
    pub glb: bool,
}

/// Every target.
pub const TARGETS: [Target; 7] = [
    Target {
        name: "read_glb",
        check: read_glb::check,
        glb: true,
    },
    Target {
        name: "read_capsule_script",
        check: read_capsule_script::check,
        glb: false,
    },
    Target {
        name: "read_pointer_script",
        check: read_pointer_script::check,
        glb: false,
    },
    Target {
        name: "read_motion",
        check: read_motion::check,
        glb: false,
    },
    Target {
        name: "groom_json",
        check: groom_json::check,
        glb: false,
    },
    Target {
        name: "usda_curves",
        check: usda_curves::check,
        glb: false,
    },
    Target {
        name: "read_body",
        check: read_body::check,
        glb: true,
    },
];
