//! Hostile files: small inputs built to make a reader allocate or loop without end. Each
//! must be a clear error, and the memory the reader holds at its peak is measured with a
//! counting allocator and bounded.

mod alloc_common;

use std::io::Read;

use alloc_common::{alone, peak_of};
use pelt::vrm::{VrmError, glb, read_glb, read_glb_from};

#[global_allocator]
static ALLOC: alloc_common::Counting = alloc_common::Counting;

const MIB: usize = 1 << 20;

#[test]
fn json_bomb_of_empty_nodes() {
    let lock = alone();
    // 3 million empty nodes in 9 MB: parsed naively that is half a gigabyte of node structs.
    let n = 3_000_000;
    let mut json = String::with_capacity(3 * n + 64);
    json.push_str(r#"{"asset":{"version":"2.0"},"nodes":["#);
    for i in 0..n {
        json.push_str(if i == 0 { "{}" } else { ",{}" });
    }
    json.push_str("]}");
    let file = glb::pack(json.as_bytes(), &[]);
    let (r, peak) = peak_of(&lock, || read_glb(&file));
    let e = r.unwrap_err();
    println!(
        "JSON bomb of {} bytes: {e}; peak {:.1} MiB",
        file.len(),
        peak as f64 / MIB as f64
    );
    assert!(
        matches!(e, VrmError::TooLarge(_) | VrmError::TooMany(..)),
        "{e}"
    );
    assert!(peak < 24 * MIB, "the reader held {peak} bytes");
}

#[test]
fn json_bomb_of_children_and_names() {
    let lock = alone();
    // One node with 4 million children indices, and one with a 20 MB name: lists are
    // charged to the budget, strings cannot exceed the 32 MiB JSON cap.
    let mut json = String::from(r#"{"asset":{"version":"2.0"},"nodes":[{"children":["#);
    for i in 0..4_000_000 {
        json.push_str(if i == 0 { "1" } else { ",1" });
    }
    json.push_str("]}]}");
    let file = glb::pack(json.as_bytes(), &[]);
    let (r, peak) = peak_of(&lock, || read_glb(&file));
    let e = r.unwrap_err();
    println!(
        "children bomb: {e}; peak {:.1} MiB",
        peak as f64 / MIB as f64
    );
    assert!(matches!(e, VrmError::TooLarge(_)), "{e}");
    // The 16 MiB list budget, plus half of it while the last list grows.
    assert!(peak <= 24 * MIB + 4096, "the reader held {peak} bytes");
    let name = "x".repeat(20 * MIB);
    let json = format!(r#"{{"asset":{{"version":"2.0"}},"nodes":[{{"name":"{name}"}}]}}"#);
    let file = glb::pack(json.as_bytes(), &[]);
    let (r, peak) = peak_of(&lock, || read_glb(&file));
    assert!(r.is_ok(), "a long name is allowed");
    println!("20 MiB name: peak {:.1} MiB", peak as f64 / MIB as f64);
    assert!(peak < 2 * 21 * MIB, "the reader held {peak} bytes");
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"nodes":[{{"name":"{}"}}]}}"#,
        "x".repeat(33 * MIB)
    );
    let e = read_glb(&glb::pack(json.as_bytes(), &[])).unwrap_err();
    assert!(matches!(e, VrmError::TooMany(..)), "{e}");
}

#[test]
fn vrm0_bone_bomb() {
    let lock = alone();
    // 60,000 leaves under one root, the root listed in 2,000 bone groups ten times each:
    // VRM 0.x makes every descendant a joint and every branch a chain.
    let leaves = 60_000;
    let mut json =
        String::from(r#"{"asset":{"version":"2.0"},"nodes":[{"name":"root","children":["#);
    for i in 1..=leaves {
        json.push_str(&format!("{}{i}", if i == 1 { "" } else { "," }));
    }
    json.push_str("]}");
    for _ in 0..leaves {
        json.push_str(r#",{"translation":[0,-0.1,0]}"#);
    }
    json.push_str(
        r#"],"extensionsUsed":["VRM"],"extensions":{"VRM":{"secondaryAnimation":{"boneGroups":["#,
    );
    for g in 0..2000 {
        json.push_str(&format!(
            r#"{}{{"bones":[0,0,0,0,0,0,0,0,0,0]}}"#,
            if g == 0 { "" } else { "," }
        ));
    }
    json.push_str("]}}}}");
    let file = glb::pack(json.as_bytes(), &[]);
    let (r, peak) = peak_of(&lock, || read_glb(&file));
    let e = r.unwrap_err();
    println!(
        "bone bomb of {} bytes: {e}; peak {:.1} MiB",
        file.len(),
        peak as f64 / MIB as f64
    );
    assert!(matches!(e, VrmError::TooMany(..)), "{e}");
    assert!(e.to_string().contains("chain count"), "{e}");
    // 60,001 nodes: their parsed list, names and skeleton, and the 4,096 chains.
    assert!(peak < 28 * MIB, "the reader held {peak} bytes");
    // A deep line of 5,000 bones is refused too (a chain holds at most 1,024 joints).
    let mut json = String::from(r#"{"asset":{"version":"2.0"},"nodes":["#);
    for i in 0..5000 {
        let kids = if i + 1 < 5000 {
            format!(r#","children":[{}]"#, i + 1)
        } else {
            String::new()
        };
        json.push_str(&format!(
            r#"{}{{"translation":[0,-0.01,0]{kids}}}"#,
            if i == 0 { "" } else { "," }
        ));
    }
    json.push_str(r#"],"extensionsUsed":["VRM"],"extensions":{"VRM":{"secondaryAnimation":{"boneGroups":[{"bones":[0]}]}}}}"#);
    let e = read_glb(&glb::pack(json.as_bytes(), &[])).unwrap_err();
    assert!(
        matches!(e, VrmError::TooMany(..)) && e.to_string().contains("joint"),
        "{e}"
    );
}

/// Counts the bytes read through it.
struct Counted<R> {
    inner: R,
    read: usize,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n;
        Ok(n)
    }
}

#[test]
fn endless_input_is_an_error_not_a_hang() {
    let lock = alone();
    // Endless zeros: refused at the magic.
    let mut zeros = Counted {
        inner: std::io::repeat(0),
        read: 0,
    };
    let e = read_glb_from(&mut zeros).unwrap_err();
    assert!(matches!(e, VrmError::BadMagic(_)), "{e}");
    assert!(zeros.read <= 20, "read {} bytes", zeros.read);
    // A valid header whose JSON chunk claims 4 GiB: refused before reading it.
    let mut head = b"glTF\x02\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff".to_vec();
    head.extend_from_slice(&0x4E4F_534Au32.to_le_bytes());
    let mut input = Counted {
        inner: head.as_slice().chain(std::io::repeat(b' ')),
        read: 0,
    };
    let e = read_glb_from(&mut input).unwrap_err();
    assert!(matches!(e, VrmError::TooMany(..)), "{e}");
    assert!(input.read <= 20);
    // A header claiming a 4 MiB JSON chunk over an endless stream of spaces: exactly the
    // chunk is read, then it is an error (no JSON in it), within bounded memory.
    let len = 4 * MIB as u32;
    let mut head = b"glTF\x02\0\0\0".to_vec();
    head.extend_from_slice(&(len + 20).to_le_bytes());
    head.extend_from_slice(&len.to_le_bytes());
    head.extend_from_slice(&0x4E4F_534Au32.to_le_bytes());
    let mut input = Counted {
        inner: head.as_slice().chain(std::io::repeat(b' ')),
        read: 0,
    };
    let (r, peak) = peak_of(&lock, || read_glb_from(&mut input));
    let e = r.unwrap_err();
    println!(
        "endless stream: {e}; read {} bytes, peak {:.1} MiB",
        input.read,
        peak as f64 / MIB as f64
    );
    assert!(matches!(e, VrmError::Json(_)), "{e}");
    assert!(
        input.read <= 20 + len as usize + 8192,
        "read {} bytes",
        input.read
    );
    assert!(peak <= len as usize * 3 / 2 + 4096, "held {peak} bytes");
}
