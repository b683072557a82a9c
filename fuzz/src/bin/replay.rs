//! The fuzz targets on stable Rust, without libFuzzer: each target's corpus (`corpus/TARGET/`,
//! kept in the repository) is run file by file, then inputs mutated from it by a seeded
//! generator, until a count or a time runs out. The same seed gives the same inputs in the
//! same order (a time limit only cuts the list short), so a failure seen in CI is
//! reproduced by the seed it prints. An input that panics, or runs past the per-input time,
//! is written to `artifacts/TARGET/` and the run fails naming it; `--input FILE` runs one
//! such file again.
//!
//! Usage: `replay [--seconds S] [--runs N] [--seed X] [--input-seconds T] [--input FILE]
//! [TARGET ...]`; by default every target, 10 s and at most 1,000,000 mutated inputs each,
//! seed 0, 10 s an input.

use pelt_fuzz::{TARGETS, Target};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest input made, bytes (libFuzzer's `-max_len` in run.sh's long runs).
const MAX_LEN: usize = 65_536;

/// Numbers that have broken readers before, or sit at an edge: zero's two signs, the
/// smallest and largest f64 and f32, integers past 2⁵³ and 2³², huge exponents, and the
/// words JSON does not have.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "0.5",
    "1e-300",
    "5e-324",
    "1e-46",
    "1e39",
    "3.5e38",
    "1e308",
    "-1e308",
    "1e309",
    "2251799813685248.25",
    "9007199254740993",
    "4294967296",
    "65536",
    "1025",
    "-2147483649",
    "1e999999",
    "NaN",
    "Infinity",
    "-inf",
];

/// JSON's punctuation and words, inserted whole.
const TOKENS: &[&str] = &[
    "[", "]", "{", "}", ",", ":", "\"", "null", "true", "false", "\\u0000", "\u{feff}", " ", "\n",
];

/// Bytes set in place of one byte.
const BYTES: &[u8] = b"\0\xff\x7f\x80[]{}\",:-.e09 \\";

/// Every quoted string in `corpus` (keys and names the readers look for), up to 256 of them.
fn strings_of(corpus: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut found: Vec<Vec<u8>> = Vec::new();
    for file in corpus {
        let mut start = None;
        for (i, &b) in file.iter().enumerate() {
            if b != b'"' {
                continue;
            }
            match start.take() {
                None => start = Some(i),
                Some(s) if i - s <= 64 => {
                    let word = file[s..=i].to_vec();
                    if !found.contains(&word) && found.len() < 256 {
                        found.push(word);
                    }
                }
                Some(_) => {}
            }
        }
    }
    found
}

/// Makes inputs from the corpus: a few byte edits, number swaps, token insertions and
/// splices at a time, each choice from one seeded generator.
struct Mutator {
    rng: Pcg64Mcg,
    words: Vec<Vec<u8>>,
}

impl Mutator {
    fn new(seed: u64, corpus: &[Vec<u8>]) -> Self {
        let mut words: Vec<Vec<u8>> = NUMBERS
            .iter()
            .chain(TOKENS)
            .map(|w| w.as_bytes().to_vec())
            .collect();
        words.extend(strings_of(corpus));
        Mutator {
            rng: Pcg64Mcg::seed_from_u64(seed),
            words,
        }
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.rng.random_range(0..n)
        }
    }

    /// A number's span in `text` at or after a random place, if any: digits with their
    /// sign, point and exponent.
    fn number_span(&mut self, text: &[u8]) -> Option<(usize, usize)> {
        let from = self.below(text.len());
        let start = (from..text.len()).find(|&i| text[i].is_ascii_digit())?;
        let mut s = start;
        if s > 0 && text[s - 1] == b'-' {
            s -= 1;
        }
        let end = (start..text.len())
            .find(|&i| !matches!(text[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
            .unwrap_or(text.len());
        Some((s, end))
    }

    /// `base` changed by one to four edits (`other` is another corpus file, for splices).
    fn mutate(&mut self, base: &[u8], other: &[u8]) -> Vec<u8> {
        let mut out = base.to_vec();
        for _ in 0..1 + self.below(4) {
            let at = self.below(out.len() + 1);
            match self.below(9) {
                0 if !out.is_empty() => {
                    let i = self.below(out.len());
                    out[i] ^= 1 << self.below(8);
                }
                1 if !out.is_empty() => {
                    let i = self.below(out.len());
                    out[i] = BYTES[self.below(BYTES.len())];
                }
                2 => {
                    let n = self.below(17).min(out.len() - at);
                    out.drain(at..at + n);
                }
                3 => {
                    let s = self.below(out.len() + 1);
                    let n = self.below(65).min(out.len() - s);
                    let copy = out[s..s + n].to_vec();
                    out.splice(at..at, copy);
                }
                4 => {
                    let pick = self.below(self.words.len());
                    let word = self.words[pick].clone();
                    out.splice(at..at, word);
                }
                5 => {
                    if let Some((s, e)) = self.number_span(&out) {
                        let n = NUMBERS[self.below(NUMBERS.len())].as_bytes().to_vec();
                        out.splice(s..e, n);
                    }
                }
                6 => {
                    // A token many times over: deep nesting, long lists.
                    let token = TOKENS[self.below(4)].as_bytes();
                    let times = 1 << self.below(17);
                    let run: Vec<u8> = token.iter().copied().cycle().take(times).collect();
                    out.splice(at..at, run);
                }
                7 => {
                    let s = self.below(other.len() + 1);
                    out.truncate(at);
                    out.extend_from_slice(&other[s..]);
                }
                _ => {
                    let n = self.below(out.len() - at + 1);
                    out.truncate(at + n);
                }
            }
        }
        out.truncate(MAX_LEN);
        out
    }
}

/// A GLB's JSON chunk and what follows it, when `bytes` is a GLB of at least one chunk.
fn glb_parts(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let word = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    if bytes.get(..4)? != b"glTF" {
        return None;
    }
    let json_len = word(12)? as usize;
    let json = bytes.get(20..20usize.checked_add(json_len)?)?;
    Some((json, &bytes[20 + json_len..]))
}

/// A GLB of `json` (padded with spaces) and the chunks `rest`, its lengths mended.
fn glb_of(json: &[u8], rest: &[u8]) -> Vec<u8> {
    let mut body = json.to_vec();
    body.resize(json.len().div_ceil(4) * 4, b' ');
    let total = 20 + body.len() + rest.len();
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend(body);
    out.extend_from_slice(rest);
    out
}

/// Writes `input` to `artifacts/TARGET/KIND-HASH` and returns the path.
fn save(dir: &Path, target: &str, kind: &str, input: &[u8]) -> PathBuf {
    // FNV-1a: a stable name, so the same input found twice is one file.
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let folder = dir.join("artifacts").join(target);
    let path = folder.join(format!("{kind}-{hash:016x}"));
    if let Err(e) = std::fs::create_dir_all(&folder).and_then(|()| std::fs::write(&path, input)) {
        eprintln!("could not save the input to {}: {e}", path.display());
    }
    path
}

/// The input being checked and when its check began (milliseconds since `epoch`, or
/// `u64::MAX` between inputs), for the watchdog.
struct Current {
    epoch: Instant,
    started_ms: AtomicU64,
    input: Mutex<(String, Vec<u8>)>,
}

/// Fails the run when one input's check runs past `limit`, saving the input.
fn watch(current: Arc<Current>, limit: Duration, dir: PathBuf) {
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_millis(200));
            let started = current.started_ms.load(Ordering::SeqCst);
            let now = current.epoch.elapsed().as_millis() as u64;
            if started != u64::MAX && now.saturating_sub(started) > limit.as_millis() as u64 {
                let (target, input) = current.input.lock().map(|g| g.clone()).unwrap_or_default();
                let path = save(&dir, &target, "slow", &input);
                eprintln!(
                    "{target}: one input has run for more than {} s; saved as {}",
                    limit.as_secs_f64(),
                    path.display()
                );
                std::process::exit(1);
            }
        }
    });
}

/// Runs `target`'s check on `input`; on a panic, saves the input and says where.
fn run_one(target: &Target, input: &[u8], current: &Current, dir: &Path) -> Result<(), String> {
    if let Ok(mut slot) = current.input.lock() {
        slot.0 = target.name.to_string();
        slot.1.clear();
        slot.1.extend_from_slice(input);
    }
    let now = current.epoch.elapsed().as_millis() as u64;
    current.started_ms.store(now, Ordering::SeqCst);
    let outcome = std::panic::catch_unwind(|| (target.check)(input));
    current.started_ms.store(u64::MAX, Ordering::SeqCst);
    outcome.map_err(|_| {
        let path = save(dir, target.name, "crash", input);
        format!(
            "{}: an input panicked (above); saved as {}",
            target.name,
            path.display()
        )
    })
}

/// The corpus files of `target`, sorted by name (the order decides which inputs a seed
/// makes).
fn corpus_of(dir: &Path, target: &str) -> Result<Vec<(PathBuf, Vec<u8>)>, String> {
    let folder = dir.join("corpus").join(target);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&folder)
        .map_err(|e| format!("{}: {e}", folder.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            std::fs::read(&p)
                .map(|bytes| (p.clone(), bytes))
                .map_err(|e| format!("{}: {e}", p.display()))
        })
        .collect()
}

struct Options {
    seconds: f64,
    runs: u64,
    seed: u64,
    input_seconds: f64,
    input: Option<PathBuf>,
    targets: Vec<&'static Target>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        seconds: 10.0,
        runs: 1_000_000,
        seed: 0,
        input_seconds: 10.0,
        input: None,
        targets: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let number = |name: &str, v: String| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or(format!("{name} {v}: give a number, 0 or more"))
        };
        match a.as_str() {
            "--seconds" => o.seconds = number("--seconds", value("--seconds")?)?,
            "--input-seconds" => {
                o.input_seconds = number("--input-seconds", value("--input-seconds")?)?
            }
            "--runs" => {
                let v = value("--runs")?;
                o.runs = v
                    .parse()
                    .map_err(|_| format!("--runs {v}: give a whole number"))?;
            }
            "--seed" => {
                let v = value("--seed")?;
                o.seed = v
                    .parse()
                    .map_err(|_| format!("--seed {v}: give a whole number"))?;
            }
            "--input" => o.input = Some(PathBuf::from(value("--input")?)),
            name => {
                let t = TARGETS.iter().find(|t| t.name == name).ok_or_else(|| {
                    let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
                    format!("unknown target {name}; the targets: {}", names.join(", "))
                })?;
                o.targets.push(t);
            }
        }
    }
    if o.targets.is_empty() {
        o.targets = TARGETS.iter().collect();
    }
    Ok(o)
}

fn run() -> Result<(), String> {
    let o = options()?;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let current = Arc::new(Current {
        epoch: Instant::now(),
        started_ms: AtomicU64::new(u64::MAX),
        input: Mutex::new((String::new(), Vec::new())),
    });
    watch(
        current.clone(),
        Duration::from_secs_f64(o.input_seconds),
        dir.clone(),
    );
    if let Some(path) = &o.input {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        for t in &o.targets {
            run_one(t, &bytes, &current, &dir)?;
        }
        println!("{}: no failure", path.display());
        return Ok(());
    }
    for t in &o.targets {
        let start = Instant::now();
        let corpus = corpus_of(&dir, t.name)?;
        if corpus.is_empty() {
            return Err(format!("{}: the corpus folder is empty", t.name));
        }
        for (path, bytes) in &corpus {
            run_one(t, bytes, &current, &dir)
                .map_err(|e| format!("{e} (corpus file {})", path.display()))?;
        }
        let files: Vec<Vec<u8>> = corpus.into_iter().map(|(_, b)| b).collect();
        let mut m = Mutator::new(o.seed, &files);
        let mut runs = 0u64;
        while runs < o.runs && start.elapsed().as_secs_f64() < o.seconds {
            let base = &files[m.below(files.len())];
            let other = &files[m.below(files.len())];
            // GLB inputs: most edits go to the JSON, with the lengths mended after.
            let input = match glb_parts(base) {
                Some((json, rest)) if t.glb && m.below(10) > 0 => {
                    let other_json = glb_parts(other).map_or(other.as_slice(), |p| p.0);
                    glb_of(&m.mutate(json, other_json), rest)
                }
                _ => m.mutate(base, other),
            };
            run_one(t, &input, &current, &dir)
                .map_err(|e| format!("{e} (seed {}, mutated input {runs})", o.seed))?;
            runs += 1;
        }
        println!(
            "{}: {} corpus files and {runs} mutated inputs in {:.1} s (seed {}), no failure",
            t.name,
            files.len(),
            start.elapsed().as_secs_f64(),
            o.seed
        );
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
