//! Outputs never destroy what is there: every command that writes refuses a symlink, a pipe
//! or a name without the right extension, refuses to write over one of its own inputs, and
//! leaves an existing file exactly as it was when the run fails (before or after the output
//! was opened, or when the disk fills), with no temporary file left behind.

use std::path::{Path, PathBuf};
use std::process::Command;

mod cli_common;
use cli_common::{fails, s, stderr, still_motion};

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_symlink_or_a_pipe_given_as_an_output_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("precious.txt");
    std::fs::write(&target, "keep me").unwrap();
    let link = dir.path().join("link.png");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let fifo = dir.path().join("pipe.png");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let csv_link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&target, &csv_link).unwrap();
    let motion = still_motion(&dir.path().join("m.json"));
    let npy_link = dir.path().join("link.npy");
    std::os::unix::fs::symlink(&target, &npy_link).unwrap();
    let glb_link = dir.path().join("link.glb");
    std::os::unix::fs::symlink(&target, &glb_link).unwrap();
    let before = listing(dir.path());
    for (args, out) in [
        (vec!["render", "--steps", "1", "--out"], &link),
        (vec!["render", "--steps", "1", "--out"], &fifo),
        (vec!["demo", "--frames", "1", "--screenshot"], &link),
        (
            vec!["simulate", "--solver", "cpu", "--strands", "64", "--out"],
            &npy_link,
        ),
        (vec!["export", "--out"], &glb_link),
        (
            vec![
                "tail-trace",
                "--motion",
                s(&motion),
                "--frames",
                "2",
                "--out",
            ],
            &csv_link,
        ),
    ] {
        let mut args = args.clone();
        args.push(s(out));
        let err = fails(&args);
        assert!(
            err.contains("symbolic link") || err.contains("not a regular file"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(listing(dir.path()), before, "a file was added or removed");
}

#[test]
fn a_failed_run_leaves_the_existing_output_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("existing.npy");
    std::fs::write(&out, "the user's data").unwrap();
    // Refused before the output is opened (CPU), and after (GPU: the adapter's limit is
    // only known once it is open).
    for solver in ["cpu", "gpu"] {
        let err = fails(&[
            "simulate",
            "--solver",
            solver,
            "--strands",
            "0",
            "--steps",
            "1",
            "--out",
            s(&out),
        ]);
        assert!(err.contains("strand count 0"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "the user's data");
    assert_eq!(
        listing(dir.path()),
        ["existing.npy"],
        "a temporary was left"
    );
}

#[test]
fn a_full_disk_is_a_clean_error_and_the_old_file_survives() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("state.npz");
    std::fs::write(&out, "old").unwrap();
    // A file size limit of 64 KiB stands in for a full disk: writes past it fail (EFBIG),
    // and the signal that would otherwise kill the process is ignored.
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 64; exec '{}' simulate --solver cpu --strands 2048 --steps 2 --out '{}'",
            env!("CARGO_BIN_EXE_pelt"),
            s(&out)
        ))
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(!err.contains("ZipWriter"), "the zip writer spoke: {err}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("pelt:")).count(),
        1,
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
    assert_eq!(listing(dir.path()), ["state.npz"], "a temporary was left");
}

/// An adapter name no adapter has: a run that asks for the GPU fails on it.
const NO_SUCH_ADAPTER: &str = "no adapter has this name";

/// Runs `pelt args` where any work would fail another way: no display (a window cannot
/// open), `WGPU_ADAPTER_NAME` naming no adapter (the GPU cannot be had), and inputs that
/// hold no valid content (reading them fails). A refusal made before any work is the only
/// error it can print; returns it.
fn refused_before_any_work(args: &[&str]) -> String {
    let o = cli_common::pelt()
        .args(args)
        .env("WGPU_ADAPTER_NAME", NO_SUCH_ADAPTER)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "{args:?} succeeded: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(
        err.contains("input") && !err.contains(NO_SUCH_ADAPTER) && !err.contains("DISPLAY"),
        "{args:?}: not refused before any work: {err}"
    );
    err
}

#[test]
fn an_output_that_is_an_input_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    // Inputs that are no script: a run that read them before refusing would fail on that.
    let text = "not a script";
    let script = dir.path().join("stroke.png");
    std::fs::write(&script, text).unwrap();
    // The same name, and another name for the same file (a hard link).
    let linked = dir.path().join("linked.png");
    std::fs::hard_link(&script, &linked).unwrap();
    for out in [&script, &linked] {
        refused_before_any_work(&[
            "render",
            "--strands",
            "420032",
            "--capsule-script",
            s(&script),
            "--out",
            s(out),
        ]);
    }
    let motion = dir.path().join("m.csv");
    std::fs::write(&motion, text).unwrap();
    refused_before_any_work(&[
        "tail-trace",
        "--motion",
        s(&motion),
        "--frames",
        "2",
        "--out",
        s(&motion),
    ]);
    let pointer = dir.path().join("p.png");
    std::fs::write(&pointer, text).unwrap();
    refused_before_any_work(&[
        "demo",
        "--script",
        s(&pointer),
        "--frames",
        "1",
        "--screenshot",
        s(&pointer),
    ]);
    for input in [&script, &motion, &pointer] {
        assert_eq!(std::fs::read_to_string(input).unwrap(), text);
    }
    assert_eq!(
        listing(dir.path()),
        ["linked.png", "m.csv", "p.png", "stroke.png"],
        "a file was added or removed"
    );
}

#[test]
fn an_output_in_a_folder_that_takes_no_files_is_refused_before_any_work() {
    // /proc and /sys exist and refuse new files even to root: the temporary file the
    // output is written through cannot be made there. That was found only after the run
    // (all its steps or frames), with the temporary file's name as the message.
    for (args, folder) in [
        (vec!["render", "--strands", "420032", "--out"], "/proc"),
        (vec!["render", "--strands", "420032", "--out"], "/sys"),
        (
            vec!["simulate", "--solver", "cpu", "--steps", "100000", "--out"],
            "/proc",
        ),
        (vec!["demo", "--frames", "100", "--screenshot"], "/proc"),
    ] {
        let out = format!(
            "{folder}/pelt-test.{}",
            if args[0] == "simulate" { "npz" } else { "png" }
        );
        let mut args = args.clone();
        args.push(&out);
        let err = fails(&args);
        assert!(
            err.contains("its folder cannot be written to") && !err.contains(".part"),
            "{args:?}: {err}"
        );
        assert!(
            !err.contains("rendered in") && !err.contains("frames timed"),
            "{err}"
        );
    }
}

#[test]
fn an_output_name_must_end_in_what_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| -> PathBuf { dir.path().join(name) };
    for (args, name, wanted) in [
        (vec!["render"], "x.jpg", ".png"),
        (vec!["render"], "x.txt", ".png"),
        (vec!["render"], "noextension", ".png"),
        (vec!["export"], "x.png", ".glb or .vrm"),
        (
            vec!["simulate", "--solver", "cpu"],
            "x.json",
            ".npy or .npz",
        ),
        (
            vec!["demo", "--frames", "1", "--screenshot"],
            "x.jpg",
            ".png",
        ),
    ] {
        let mut args = args.clone();
        let path = out(name);
        if args[0] != "demo" {
            args.push("--out");
        }
        args.push(s(&path));
        let err = fails(&args);
        assert!(err.contains(wanted), "{args:?}: {err}");
        assert!(!path.exists());
    }
}

#[test]
fn a_bare_extension_asks_for_a_name_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let motion = still_motion(&dir.path().join("m.json"));
    for (args, name) in [
        (vec!["render"], ".png"),
        (vec!["render"], ".PNG"),
        (vec!["export"], ".glb"),
        (vec!["simulate", "--solver", "cpu"], ".npy"),
        (
            vec!["tail-trace", "--motion", s(&motion), "--frames", "2"],
            ".csv",
        ),
    ] {
        let mut args = args.clone();
        let path = dir.path().join(name);
        args.push("--out");
        args.push(s(&path));
        let err = fails(&args);
        assert!(err.contains("give a name before it"), "{args:?}: {err}");
        assert!(!err.contains("must end in"), "{args:?}: {err}");
        assert!(!path.exists());
    }
}

/// Starts an endless `tail-trace` into `out`, waits until its temporary file exists, sends
/// `signal`, and returns how the run ended.
fn trace_then_signal(dir: &Path, motion: &Path, out: &Path, signal: &str) -> String {
    let mut child = cli_common::pelt()
        .args(["tail-trace", "--motion", s(motion), "--frames", "10000000"])
        .arg("--out")
        .arg(out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Polls for the temporary (no time limit asserted: the machine may be slow).
    while !listing(dir).iter().any(|n| n.ends_with(".part")) {
        assert!(child.try_wait().unwrap().is_none(), "ended before writing");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    format!("{:?}", child.wait().unwrap())
}

#[test]
fn a_run_ended_by_a_signal_removes_its_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let motion = still_motion(&dir.path().join("m.json"));
    let out = dir.path().join("k.csv");
    std::fs::write(&out, "old").unwrap();
    for signal in ["INT", "TERM", "HUP", "PIPE", "USR1"] {
        let status = trace_then_signal(dir.path(), &motion, &out, signal);
        assert!(!status.contains("exit status: 0"), "{signal}: {status}");
        assert_eq!(listing(dir.path()), ["k.csv", "m.json"], "SIG{signal}");
        // The trace is written whole at the end, so on a quick machine the signal can land
        // after the rename: then the output is the complete trace, never a part of one.
        if std::fs::read(&out).unwrap() != b"old" {
            assert_whole_trace(&out, signal);
            std::fs::write(&out, "old").unwrap();
        }
    }
}

/// `out` holds a whole 10,000,000-frame trace: the header first, the last frame last.
fn assert_whole_trace(out: &Path, signal: &str) {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(out).unwrap();
    let mut head = [0u8; 6];
    file.read_exact(&mut head).unwrap();
    assert_eq!(
        &head, b"frame,",
        "SIG{signal}: a replaced output must be a whole trace"
    );
    let len = file.metadata().unwrap().len();
    file.seek(SeekFrom::Start(len.saturating_sub(400))).unwrap();
    let mut tail = String::new();
    file.read_to_string(&mut tail).unwrap();
    assert!(
        tail.contains("\n9999999,") && tail.ends_with('\n'),
        "SIG{signal}: a replaced output must end with the last frame"
    );
}

#[test]
fn a_replaced_output_keeps_its_permission_bits() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let motion = still_motion(&dir.path().join("m.json"));
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let (private, fresh) = (dir.path().join("private.csv"), dir.path().join("new.csv"));
    std::fs::write(&private, "secret").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    for out in [&private, &fresh] {
        let o = cli_common::pelt()
            .args(["tail-trace", "--motion", s(&motion), "--frames", "2"])
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_ne!(std::fs::read_to_string(&private).unwrap(), "secret");
    assert_eq!(mode(&private), 0o600, "a private file was made readable");
    assert_eq!(mode(&fresh), 0o644);
}

/// Whether this test runs as root (who may write any file, so only another user sees a
/// write-protected one as such): the effective user id in `/proc/self/status`.
fn is_root() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let uid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .expect("a Uid line in /proc/self/status");
    uid.split_whitespace().nth(1) == Some("0")
}

/// Whether `setpriv` (util-linux; `scripts/setup.sh` installs it) runs here.
fn has_setpriv() -> bool {
    Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_write_protected_output_is_refused_and_left_alone() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let motion = still_motion(&dir.path().join("m.json"));
    let out = dir.path().join("ro.csv");
    std::fs::write(&out, "keep").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap();
    // Another user sees the file as write-protected: this one, unless it is root; then
    // pelt runs as nobody through setpriv.
    let mut command = if is_root() {
        if !has_setpriv() {
            // CI runs as root on a machine scripts/setup.sh prepared: there the test must
            // run. Elsewhere it says plainly that it did not.
            assert!(
                std::env::var_os("CI").is_none(),
                "root without setpriv: run scripts/setup.sh (util-linux has setpriv) so this \
                 test can run pelt as nobody"
            );
            eprintln!(
                "NOT RUN: root without setpriv cannot run pelt as another user (install \
                 util-linux; in CI this fails)"
            );
            return;
        }
        // nobody may write the folder (so only the file's own bits protect it).
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let mut c = Command::new("setpriv");
        c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_pelt"));
        c
    } else {
        cli_common::pelt()
    };
    let o = command
        .args(["tail-trace", "--motion", s(&motion), "--frames", "2"])
        .arg("--out")
        .arg(&out)
        .env("XDG_RUNTIME_DIR", dir.path())
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "a write-protected file was replaced");
    assert!(err.contains("write-protected"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep");
    assert_eq!(listing(dir.path()), ["m.json", "ro.csv"]);
}

#[test]
fn a_hostile_usd_or_clip_output_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("precious.txt");
    std::fs::write(&target, "keep me").unwrap();
    let usda_link = dir.path().join("link.usda");
    std::os::unix::fs::symlink(&target, &usda_link).unwrap();
    let png_link = dir.path().join("link.png");
    std::os::unix::fs::symlink(&target, &png_link).unwrap();
    let folder = dir.path().join("folder.usda");
    std::fs::create_dir(&folder).unwrap();
    let missing = dir.path().join("no/such/coat.usda");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/pet_scratch.json");
    let before = listing(dir.path());
    // A strand count no adapter holds: were the output checked after the GPU work began,
    // that would be the error instead.
    let export = |out: &Path| fails(&["export", "--strands", "999999999999", "--out", s(out)]);
    let err = export(&usda_link);
    assert!(err.contains("symbolic link"), "{err}");
    let err = export(&folder);
    assert!(err.contains("folder"), "{err}");
    let err = export(&missing);
    assert!(err.contains("no such folder"), "{err}");
    let err = fails(&["export", "--out", "/dev/null"]);
    assert!(err.contains(".usda"), "{err}");
    let err = fails(&[
        "demo",
        "--strands",
        "999999999999",
        "--script",
        s(&script),
        "--frames",
        "2",
        "--record",
        s(&png_link),
    ]);
    assert!(err.contains("symbolic link"), "{err}");
    let err = fails(&[
        "demo",
        "--script",
        s(&script),
        "--frames",
        "2",
        "--record",
        s(&script),
    ]);
    assert!(err.contains(".png"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    assert_eq!(
        listing(dir.path()),
        before,
        "a temporary file was left behind"
    );
}

/// A new output gets the mode a new file gets under the caller's umask (the temporary file
/// it is written through is private); an existing one keeps its own.
#[cfg(unix)]
#[test]
fn a_new_output_follows_the_callers_umask() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let motion = still_motion(&dir.path().join("m.json"));
    for (umask, mode) in [("077", 0o600), ("027", 0o640), ("002", 0o664)] {
        let out = dir.path().join(format!("u{umask}.csv"));
        let script = format!(
            "umask {umask} && exec \"$0\" tail-trace --motion \"$1\" --frames 3 --out \"$2\""
        );
        let status = Command::new("sh")
            .args([
                "-c",
                &script,
                env!("CARGO_BIN_EXE_pelt"),
                s(&motion),
                s(&out),
            ])
            .status()
            .unwrap();
        assert!(status.success(), "umask {umask}: {status:?}");
        let got = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(got, mode, "umask {umask}: mode {got:o}");
    }
}
