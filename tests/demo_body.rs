//! `pelt demo --body` as a user runs it, in a real window under Xvfb: the view starts framed
//! on the body's coat, and a `--script` press in the middle of the window puts the petting
//! hand on the body (image statistics, compared with the idle body after the same frames).

use std::path::Path;

mod cli_common;
use cli_common::{demo_under_xvfb, hand_pixels, read_rgb_png, rgb_distance, run_under_xvfb};

/// Frames to run: the hand is down and scratching by then.
const FRAMES: &str = "40";
const WIDTH: usize = 640;
const HEIGHT: usize = 360;

/// The screenshot at `path`, which has the view's size.
fn read_png(path: &Path) -> Vec<[u8; 3]> {
    let (width, height, pixels) = read_rgb_png(path);
    assert_eq!((width, height), (WIDTH as u32, HEIGHT as u32));
    pixels
}

/// Runs the demo on the fox (the panel folded away), with `script` if given; the screenshot.
fn run_demo(dir: &Path, name: &str, script: Option<&Path>) -> Vec<[u8; 3]> {
    let out = dir.join(name);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut command = demo_under_xvfb();
    command
        .arg("--body")
        .arg(root.join("tests/bodies/Fox.glb"))
        .args(["--strands", "4096", "--frames", FRAMES, "--budget", "off"])
        .args([
            "--width",
            "640",
            "--height",
            "360",
            "--hide-panel",
            "--screenshot",
        ])
        .arg(&out);
    if let Some(script) = script {
        command.arg("--script").arg(script);
    }
    let output = run_under_xvfb(&mut command);
    assert!(
        output.status.success(),
        "pelt demo failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    read_png(&out)
}

#[test]
fn the_demo_frames_a_body_and_a_scripted_press_pets_it() {
    let dir = tempfile::tempdir().unwrap();
    // Hover on the middle of the window, press, stroke 30 px right, hold still (a scratch).
    let script = dir.path().join("press.json");
    std::fs::write(
        &script,
        r#"[
  {"t": 0.0, "kind": "move", "x": 320, "y": 180},
  {"t": 0.1, "kind": "down", "x": 320, "y": 180, "button": "primary"},
  {"t": 0.2, "kind": "move", "x": 330, "y": 180},
  {"t": 0.3, "kind": "move", "x": 340, "y": 180},
  {"t": 0.4, "kind": "move", "x": 350, "y": 180}
]"#,
    )
    .unwrap();
    let petted = run_demo(dir.path(), "petted.png", Some(&script));
    let idle = run_demo(dir.path(), "idle.png", None);

    // Framed: the furred fox covers a good part of the view, around its middle (the top
    // corners are background; the panel is folded into the top left one).
    let background = idle[WIDTH - 1];
    let (mut count, mut sum) = (0usize, (0.0f64, 0.0f64));
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let p = idle[y * WIDTH + x];
            // Fur is orange, brown or white; the floor and the sky are greys.
            let spread = p.iter().max().unwrap() - p.iter().min().unwrap();
            if rgb_distance(p, background) > 60 && spread > 40 {
                count += 1;
                sum.0 += x as f64;
                sum.1 += y as f64;
            }
        }
    }
    let centre = (sum.0 / count.max(1) as f64, sum.1 / count.max(1) as f64);
    eprintln!(
        "the fox covers {count} px ({:.1}%), centred at ({:.0}, {:.0})",
        100.0 * count as f64 / (WIDTH * HEIGHT) as f64,
        centre.0,
        centre.1
    );
    // Fitted as the creature is to its view, the fox's coloured fur covers a tenth of it
    // (white fur and the floor's greys left out); framed by its bounding sphere, a twentieth.
    assert!(
        count > WIDTH * HEIGHT * 2 / 25,
        "the fox covers only {count} pixels"
    );
    assert!(
        (centre.0 - WIDTH as f64 / 2.0).abs() < 0.15 * WIDTH as f64
            && (centre.1 - HEIGHT as f64 / 2.0).abs() < 0.15 * HEIGHT as f64,
        "the fox is centred at {centre:?}, not in the middle of the view"
    );

    // The hand: pixels the press changed, and among them the sleeve's blue.
    let hand = hand_pixels(&petted, &idle);
    let sleeve = hand.sleeve;
    eprintln!(
        "changed by the hand {} px, sleeve blue {sleeve} px",
        hand.changed
    );
    assert!(
        hand.changed > 300,
        "the hand changed only {} pixels",
        hand.changed
    );
    assert!(
        sleeve > 50,
        "no sleeve in the picture ({sleeve} blue pixels)"
    );
}
