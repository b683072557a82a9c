//! `pelt demo --script F --frames N --record clip.png`: the clip is an animated PNG that
//! decodes to one frame per replayed frame, changes most where the hand moves, and is the
//! same bytes when the same script is recorded again; recorded with a tolerance, every
//! frame it shows stays within that tolerance of the frame drawn. No window is opened (it
//! runs without a display).

use std::path::Path;

mod cli_common;
use cli_common::{pelt, s, stderr};

const FRAMES: usize = 30;
const SIZE: (usize, usize) = (160, 90);

/// Records the shipped script to `out` and returns what the run printed.
fn record(out: &Path, extra: &[&str]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/pet_scratch.json");
    let o = pelt()
        .args([
            "demo",
            "--strands",
            "2048",
            "--script",
            s(&script),
            "--frames",
            "30",
            "--record-size",
            "160x90",
            "--record",
            s(out),
        ])
        .args(extra)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    stderr(&o)
}

/// Every frame of an APNG, composed as a viewer shows it (each frame's rectangle blended
/// over the last frame: transparent pixels keep what was there).
fn decode(path: &Path, fps: u16) -> Vec<Vec<u8>> {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let info = reader.info();
    let (w, h) = (info.width as usize, info.height as usize);
    assert_eq!((w, h), SIZE);
    let frames = info.animation_control.expect("an animated PNG").num_frames as usize;
    let mut canvas = vec![0u8; w * h * 4];
    let mut out = Vec::new();
    let mut buf = vec![0u8; reader.output_buffer_size().unwrap()];
    for _ in 0..frames {
        let frame = reader.next_frame(&mut buf).unwrap();
        let fc = reader.info().frame_control.expect("a frame control chunk");
        assert_eq!(
            (fc.delay_num, fc.delay_den),
            (1, fps),
            "frames at 1/{fps} s"
        );
        let (fw, fh) = (fc.width as usize, fc.height as usize);
        assert_eq!((frame.width as usize, frame.height as usize), (fw, fh));
        for y in 0..fh {
            for x in 0..fw {
                let src = &buf[(y * fw + x) * 4..(y * fw + x) * 4 + 4];
                let at = ((y + fc.y_offset as usize) * w + x + fc.x_offset as usize) * 4;
                if fc.blend_op == png::BlendOp::Source || src[3] == 255 {
                    canvas[at..at + 4].copy_from_slice(src);
                }
            }
        }
        out.push(canvas.clone());
    }
    out
}

/// Where the pointer is at `t` seconds, in the script's pixels (a 1280 × 720 window).
fn pointer_at(t: f64) -> (f64, f64) {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/pet_scratch.json"),
    )
    .unwrap();
    let events: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let last = events
        .iter()
        .rev()
        .find(|e| e["t"].as_f64().unwrap() <= t && e.get("x").is_some())
        .unwrap();
    (last["x"].as_f64().unwrap(), last["y"].as_f64().unwrap())
}

#[test]
fn a_recorded_clip_has_every_frame_moves_with_the_hand_and_repeats_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("clip.png");
    let second = dir.path().join("again.png");
    record(&first, &[]);
    record(&second, &[]);
    assert!(
        std::fs::read(&first).unwrap() == std::fs::read(&second).unwrap(),
        "the same script gave different bytes"
    );

    let frames = decode(&first, 60);
    assert_eq!(frames.len(), FRAMES, "one frame per replayed frame");
    // From frame 10 to the last the hand strokes; the change is largest around the pointer.
    let (w, h) = SIZE;
    let scale = w as f64 / 1280.0;
    let (px, py) = pointer_at(FRAMES as f64 / 60.0);
    let (px, py) = (px * scale, py * scale);
    let (a, b) = (&frames[10], &frames[FRAMES - 1]);
    let (mut near, mut near_n, mut all) = (0.0, 0, 0.0);
    for y in 0..h {
        for x in 0..w {
            let i = (y * w + x) * 4;
            let d: f64 = (0..3)
                .map(|c| (f64::from(a[i + c]) - f64::from(b[i + c])).abs())
                .sum();
            all += d;
            if (x as f64 - px).hypot(y as f64 - py) < 12.0 {
                near += d;
                near_n += 1;
            }
        }
    }
    let near = near / near_n as f64;
    let all = all / (w * h) as f64;
    assert!(
        near > 3.0 * all && near > 5.0,
        "change near the hand {near}, everywhere {all}"
    );
    assert!(frames[0] != frames[FRAMES - 1], "the clip does not move");
}

/// `--record-tolerance T` lets a shown pixel stay while the drawn one moves by at most T
/// levels: decoded as a viewer shows it, every frame of such a clip is within T of the
/// exact clip's (tolerance 0: every frame as drawn; the same run draws the same frames),
/// however slowly a pixel drifts over the frames.
#[test]
fn a_clip_recorded_with_a_tolerance_shows_every_frame_within_it() {
    const TOLERANCE: u8 = 6;
    let dir = tempfile::tempdir().unwrap();
    let (exact_path, tolerant_path) = (dir.path().join("exact.png"), dir.path().join("t.png"));
    record(&exact_path, &["--record-tolerance", "0"]);
    record(
        &tolerant_path,
        &["--record-tolerance", &TOLERANCE.to_string()],
    );
    let (exact, tolerant) = (decode(&exact_path, 60), decode(&tolerant_path, 60));
    assert_eq!(exact.len(), FRAMES);
    assert_eq!(tolerant.len(), FRAMES);
    let mut kept = 0usize;
    for (k, (a, b)) in exact.iter().zip(&tolerant).enumerate() {
        let worst = a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).max().unwrap();
        kept += a.chunks(4).zip(b.chunks(4)).filter(|(p, q)| p != q).count();
        assert!(
            worst <= TOLERANCE,
            "frame {k} shows a pixel {worst} levels off the drawn one (tolerance {TOLERANCE})"
        );
    }
    let sizes = [&exact_path, &tolerant_path].map(|p| std::fs::metadata(p).unwrap().len());
    eprintln!(
        "tolerance {TOLERANCE}: {kept} pixels over {FRAMES} frames kept what was shown; \
         {} bytes exact, {} with the tolerance",
        sizes[0], sizes[1]
    );
    // The tolerance was used: some shown pixels stayed while the drawn ones moved.
    assert!(
        kept > 0,
        "no pixel kept what was shown: the tolerance was not used"
    );
    assert!(sizes[1] < sizes[0], "the tolerance did not shrink the clip");
}

/// `--record-fps 30`: frames at 1/30 s, each advancing the replay by 1/30 s, so frame k of
/// it shows the moment frame 2k + 1 of the 60 fps clip shows (the solver steps at 60 Hz in
/// both), and not the moment frame k does.
#[test]
fn a_clip_at_30_fps_advances_a_thirtieth_of_a_second_a_frame() {
    let dir = tempfile::tempdir().unwrap();
    let (slow, fast) = (dir.path().join("30.png"), dir.path().join("60.png"));
    record(&slow, &["--record-fps", "30"]);
    record(&fast, &[]);
    let (slow, fast) = (decode(&slow, 30), decode(&fast, 60));
    assert_eq!(slow.len(), FRAMES, "one frame per replayed frame");
    let diff = |a: &[u8], b: &[u8]| -> f64 {
        a.iter()
            .zip(b)
            .map(|(&x, &y)| (f64::from(x) - f64::from(y)).abs())
            .sum::<f64>()
            / a.len() as f64
    };
    let k = FRAMES / 2 - 1;
    let same_moment = diff(&slow[k], &fast[2 * k + 1]);
    let same_index = diff(&slow[k], &fast[k]);
    assert!(
        same_moment * 2.0 < same_index,
        "frame {k} at 30 fps differs by {same_moment} from the same moment at 60 fps and \
         by {same_index} from frame {k} there"
    );
}

/// The clip is drawn the way the demo's `--raster` says (the two paths differ by a few
/// levels here and there).
#[test]
fn a_recorded_clip_follows_the_raster_flag() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        record(&out, extra);
        std::fs::read(&out).unwrap()
    };
    let hardware = bytes("hardware.png", &["--raster", "hardware"]);
    let native = bytes("native.png", &["--raster", "native"]);
    assert!(
        hardware != native,
        "--raster made no difference to the clip"
    );
}

#[test]
fn a_clip_too_short_to_reach_the_volume_grid_says_so() {
    let dir = tempfile::tempdir().unwrap();
    // 30 frames at 60 a second: 30 steps, before the grid starts after step 60.
    let said = record(&dir.path().join("short.png"), &["--volume", "on"]);
    assert!(
        said.contains("volume grid on (splatted every 8 steps); it starts after step 60, and this clip ends at step 30, before it"),
        "{said}"
    );
}

#[test]
fn a_record_needs_a_script_and_a_png_name_and_a_matching_shape() {
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/pet_scratch.json");
    let err = cli_common::fails(&[
        "demo",
        "--frames",
        "2",
        "--record",
        s(&dir.path().join("a.png")),
    ]);
    assert!(err.contains("--script"), "{err}");
    // The shipped script, two frames, `extra`, recorded to `name`: what the refusal says.
    let refused = |extra: &[&str], name: &str| {
        let out = dir.path().join(name);
        let mut args = vec!["demo", "--script", s(&script), "--frames", "2"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--record", s(&out)]);
        cli_common::fails(&args)
    };
    let err = refused(&[], "a.gif");
    assert!(err.contains(".png"), "{err}");
    let err = refused(&["--record-size", "100x100"], "a.png");
    assert!(err.contains("shape"), "{err}");
    // A clip has no panel to switch the grid on, so an interval without it is refused.
    let err = refused(&["--volume-interval", "3"], "a.png");
    assert!(err.contains("needs --volume on"), "{err}");
    // Within a pixel of the window's shape, but not its shape at all.
    for tiny in ["1x1", "3x2"] {
        let err = refused(&["--record-size", tiny], "a.png");
        assert!(err.contains("shape"), "{tiny}: {err}");
    }
}
