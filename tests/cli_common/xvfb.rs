//! Running `pelt demo` under `xvfb-run`, one run at a time.

use std::process::{Command, Output};

/// xvfb-run's `-a` takes the first display number without a lock file, so two runs
/// starting it at once can take the same one, and one then fails to reach its display (or
/// loses it when the other's server stops): a test binary's runs take turns.
static DISPLAY_TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs an `xvfb-run` command, one at a time (`DISPLAY_TURN`), and again (up to three
/// tries) when the demo could not open the display: another program on the machine may
/// have raced it for the display number.
pub fn run_under_xvfb(command: &mut Command) -> Output {
    let _turn = DISPLAY_TURN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut tries = 0;
    loop {
        let output = command.output().expect(
            "xvfb-run (Debian package xvfb; scripts/setup.sh installs it) runs the demo headless",
        );
        tries += 1;
        let unreached = String::from_utf8_lossy(&output.stderr).contains("opening the display");
        if output.status.success() || !unreached || tries == 3 {
            return output;
        }
        eprintln!("the demo could not open xvfb-run's display; trying again");
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
}
