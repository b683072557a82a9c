//! The size of `src/`: no source file grows past what one reader takes in, the renderer's
//! orchestrator stays an orchestrator, and its `render` stays a list of passes. When a
//! limit fails, split the file by idea (the renderer's pieces live in `render/hair/`,
//! `render/detail.rs`, `render/strand_binding.rs`, `render/hair_controls.rs`), not by
//! raising the limit.

use std::path::{Path, PathBuf};

/// Lines any `.rs` file under `src/` may have.
const MAX_FILE_LINES: usize = 800;
/// Lines `src/render/renderer.rs` may have.
const MAX_RENDERER_LINES: usize = 500;
/// Lines `FurRenderer::render` may span, from `fn render(` to its closing brace.
const MAX_RENDER_FN_LINES: usize = 120;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The lines spanned by the first function named `name` in `text`: from the line with
/// `fn name(` to the line of the brace that closes its body (braces in comments, strings
/// and character literals not counted), or `None` if there is no such function or its
/// body never closes.
fn function_lines(text: &str, name: &str) -> Option<usize> {
    let head = format!("fn {name}(");
    let start = text.find(&head)?;
    let first_line = text[..start].matches('\n').count();
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut opened = false;
    let mut at = start;
    while at < bytes.len() {
        match bytes[at] {
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                while at < bytes.len() && bytes[at] != b'\n' {
                    at += 1;
                }
                continue;
            }
            b'"' => {
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if bytes.get(at + 2) == Some(&b'\'') => at += 2,
            b'{' => {
                depth += 1;
                opened = true;
            }
            b'}' => {
                depth = depth.checked_sub(1)?;
                if opened && depth == 0 {
                    let last_line = text[..at].matches('\n').count();
                    return Some(last_line - first_line + 1);
                }
            }
            _ => {}
        }
        at += 1;
    }
    None
}

#[test]
fn no_source_file_is_longer_than_a_reader_takes_in() {
    let files = rust_files(&src());
    assert!(
        files.len() > 50,
        "found only {} files under src/",
        files.len()
    );
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(path).ok()?.lines().count();
            let name = path.strip_prefix(src()).ok()?.display().to_string();
            (lines > MAX_FILE_LINES).then(|| format!("src/{name}: {lines} lines"))
        })
        .collect();
    long.sort();
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines (split them by idea):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_renderer_only_orders_its_passes() {
    let text = std::fs::read_to_string(src().join("render/renderer.rs"))
        .expect("src/render/renderer.rs is readable");
    let lines = text.lines().count();
    assert!(
        lines <= MAX_RENDERER_LINES,
        "src/render/renderer.rs has {lines} lines, more than {MAX_RENDERER_LINES}: move what \
         is not the order of a frame's passes to a module of its own"
    );
    let render = function_lines(&text, "render").expect("FurRenderer::render in renderer.rs");
    assert!(
        render <= MAX_RENDER_FN_LINES,
        "FurRenderer::render spans {render} lines, more than {MAX_RENDER_FN_LINES}: give a \
         pass or a hair path the work"
    );
}

#[test]
fn the_span_of_a_function_is_measured_to_its_own_closing_brace() {
    // The measure's own check: braces in strings, characters and comments are not the
    // body's, and a nested block does not end it.
    let text = "impl X {\n    fn render(&self) {\n        let s = \"}\";\n        let c = '}';\n        // }\n        if true {\n            f();\n        }\n    }\n\n    fn other() {}\n}\n";
    assert_eq!(function_lines(text, "render"), Some(8));
    assert_eq!(function_lines(text, "other"), Some(1));
    assert_eq!(function_lines(text, "missing"), None);
    assert_eq!(function_lines("fn render() {\n  {\n", "render"), None);
}
