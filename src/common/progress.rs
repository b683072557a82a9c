//! Progress of a long run, on stderr: a bar where stderr is a terminal (drawn by
//! `indicatif`), and otherwise a plain line every [`PLAIN_LINE_EVERY`], so a run whose stderr
//! goes to a file or a pipe still says it is alive without filling the log. A run shorter
//! than that prints nothing off a terminal.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How often a run whose stderr is not a terminal prints a line of progress.
pub const PLAIN_LINE_EVERY: Duration = Duration::from_secs(10);

/// The progress of one phase of work, counted in `unit`s ("steps", "frames").
pub struct Progress {
    bar: ProgressBar,
    len: u64,
    done: u64,
    unit: &'static str,
    terminal: bool,
    started: Instant,
    last_line: Instant,
}

impl Progress {
    /// Starts counting `len` `unit`s.
    pub fn new(len: u64, unit: &'static str) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = if terminal {
            let bar = ProgressBar::new(len);
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{bar:40}} {{pos}}/{{len}} {unit}, {{per_sec}}, {{eta}} left"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        } else {
            ProgressBar::hidden()
        };
        let now = Instant::now();
        Progress {
            bar,
            len,
            done: 0,
            unit,
            terminal,
            started: now,
            last_line: now,
        }
    }

    /// Counts `n` more done.
    pub fn inc(&mut self, n: u64) {
        self.done = self.done.saturating_add(n);
        self.bar.inc(n);
        if !self.terminal
            && let Some(line) = self.plain_line(Instant::now())
        {
            eprintln!("{line}");
        }
    }

    /// The line to print at `now` off a terminal: one when [`PLAIN_LINE_EVERY`] has passed
    /// since the last (or the start), else none.
    fn plain_line(&mut self, now: Instant) -> Option<String> {
        if now.saturating_duration_since(self.last_line) < PLAIN_LINE_EVERY {
            return None;
        }
        self.last_line = now;
        let elapsed = now.saturating_duration_since(self.started).as_secs_f64();
        let share = self.done as f64 / self.len.max(1) as f64;
        let left = if share > 0.0 {
            elapsed * (1.0 - share) / share
        } else {
            0.0
        };
        Some(format!(
            "{}/{} {} ({:.0}%) after {elapsed:.0} s, about {left:.0} s left",
            self.done,
            self.len,
            self.unit,
            share * 100.0
        ))
    }

    /// Ends the phase: the bar is cleared from the terminal.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

/// Runs `work` (a phase that cannot count its progress, such as growing the coat) with a
/// spinner saying `what` on a terminal; off a terminal, nothing is printed.
pub fn while_doing<T>(what: &str, work: impl FnOnce() -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let spinner = ProgressBar::new_spinner();
    spinner.set_message(what.to_string());
    spinner.enable_steady_tick(Duration::from_millis(120));
    let result = work();
    spinner.finish_and_clear();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_a_terminal_a_line_comes_every_interval_with_the_share_done() {
        let mut progress = Progress::new(40, "steps");
        let start = progress.started;
        progress.done = 10;
        assert_eq!(progress.plain_line(start + PLAIN_LINE_EVERY / 2), None);
        let line = progress.plain_line(start + PLAIN_LINE_EVERY).unwrap();
        assert_eq!(line, "10/40 steps (25%) after 10 s, about 30 s left");
        // The next only a whole interval later.
        assert_eq!(progress.plain_line(start + PLAIN_LINE_EVERY * 3 / 2), None);
        assert!(progress.plain_line(start + PLAIN_LINE_EVERY * 2).is_some());
    }
}
