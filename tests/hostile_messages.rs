//! What Pelt says about bad input, round three: every message names what is wrong in words
//! (the keyframe out of order and both times, the list of the wrong length and its count,
//! nesting too deep, the backend name that is no backend and the valid ones, a damaged
//! picture without Rust's debug text, a chain's real length), and a file given to the wrong
//! flag is recognised and sent to the flag that reads it.

use pelt::hand::{CapsuleScript, PointerScript};
use pelt::spring::RootMotion;
use serde_json::json;
use std::path::{Path, PathBuf};

mod cli_common;
use cli_common::{fails, pelt, s, stderr};

#[test]
fn a_misspelt_wgpu_backend_is_named_with_the_valid_ones() {
    for (value, named) in [
        ("bogus", "`bogus` is not a backend"),
        ("vulkan, bogus", "`bogus` is not a backend"),
        ("", "an empty name is no backend"),
    ] {
        let o = pelt()
            .arg("info")
            .env("WGPU_BACKEND", value)
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(!o.status.success(), "{value}: {err}");
        assert!(
            err.contains(&format!("WGPU_BACKEND={value}: {named}")),
            "{err}"
        );
        for valid in [
            "vulkan (or vk)",
            "metal",
            "dx12",
            "gl (or gles, opengl)",
            "webgpu",
        ] {
            assert!(err.contains(valid), "{valid}: {err}");
        }
        // wgpu's own warnings and its debug text of the empty set are not shown.
        assert!(!err.contains("WARN") && !err.contains("Backends("), "{err}");
    }
    // Names in any case, with spaces, are read as wgpu reads them.
    let both = pelt::gpu::parse_backends(" VK ,gles").unwrap();
    assert_eq!(both, wgpu::Backends::VULKAN | wgpu::Backends::GL);
}
