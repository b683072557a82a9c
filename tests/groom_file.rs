//! `--groom groom.json`: a full groom file parses to what it says, a file of only the
//! version is the creature's groom, and every bad key or value is refused by a message that
//! names the file and the key; a file that is something else says what it is.

use glam::Vec3;
use pelt::groom::{BODY_LENGTH, Channel, Colour, Density, Direction, GroomFile, Mask, Threshold};
use pelt::usd::{GroomInput, read_groom};

/// Parses `text`, which must fail; the message.
fn refused(text: &str) -> String {
    GroomFile::from_json(text)
        .expect_err("the file must be refused")
        .to_string()
}

#[test]
fn a_full_file_parses_to_what_it_says() {
    let g = GroomFile::from_json(
        r##"{
        "pelt_groom": 1,
        "density": 40000,
        "length": 0.08, "length_variation": 0.2,
        "direction": [0, -2, 0],
        "flow_jitter": 0.25,
        "clumping": {"strength": 0.5, "frequency": 12},
        "lift": {"root": 0.4, "tip": 1.5},
        "colour": "#ff8000", "tint": [1, 0.5, 0.25],
        "no_fur": [{"material": "Eyes"}, {"material_containing": "ClaW"},
                   {"vertex_colour": "g", "above": 0.75},
                   {"texture": "a", "below": 0.5}]
    }"##,
    )
    .unwrap();
    assert_eq!(g.density, Density::PerSquareMetre(40000.0));
    assert_eq!((g.length, g.length_variation), (0.08, 0.2));
    assert_eq!(g.direction, Direction::Fixed(Vec3::NEG_Y));
    assert_eq!(g.flow_jitter, 0.25);
    assert_eq!((g.clumping.strength, g.clumping.frequency), (0.5, 12.0));
    assert_eq!((g.lift.root, g.lift.tip), (0.4, 1.5));
    // #ff8000 in sRGB: red 1, green 0x80 → 0.2158 linear, blue 0.
    let Colour::Constant(c) = g.colour else {
        panic!("{:?}", g.colour)
    };
    assert!((c - Vec3::new(1.0, 0.215_861, 0.0)).length() < 1e-5, "{c}");
    assert_eq!(g.tint, Vec3::new(1.0, 0.5, 0.25));
    assert_eq!(
        g.no_fur,
        vec![
            Mask::Material("Eyes".into()),
            Mask::MaterialContaining("claw".into()),
            Mask::VertexColour(Channel::G, Threshold::Above(0.75)),
            Mask::Texture(Channel::A, Threshold::Below(0.5)),
        ]
    );
    let g = GroomFile::from_json(
        r#"{"pelt_groom": 1, "count": 5000, "direction": "down", "colour": [0.5, 0.25, 0]}"#,
    )
    .unwrap();
    assert_eq!(g.density, Density::Count(5000));
    assert_eq!(g.direction, Direction::Down);
    assert_eq!(g.colour, Colour::Constant(Vec3::new(0.5, 0.25, 0.0)));
    // A byte-order mark and nothing else: the creature's groom.
    let g = GroomFile::from_json("\u{feff}{\"pelt_groom\": 1}").unwrap();
    assert_eq!(g, GroomFile::default());
    assert_eq!(g.length, BODY_LENGTH);
    assert_eq!(g.density, Density::Tier);
}

#[test]
fn every_bad_key_and_value_is_named() {
    let v = |rest: &str| format!(r#"{{"pelt_groom": 1, {rest}}}"#);
    let cases: Vec<(String, &str)> = vec![
        (
            v(r#""lenght": 0.1"#),
            "unknown key `lenght`; the keys are `pelt_groom`",
        ),
        (
            v(r#""length": -0.1"#),
            "`length` is -0.1; it must be between 0.001 and 1 (metres)",
        ),
        (
            v(r#""length": "long""#),
            "`length` must be a number (metres), not a string",
        ),
        (
            v(r#""length": NaN"#),
            "`NaN` at line 1 column 29 is not a number JSON can hold",
        ),
        (v(r#""length_variation": 2"#), "`length_variation` is 2"),
        (
            v(r#""density": 0"#),
            "`density` is 0; it must be between 1 and",
        ),
        (
            v(r#""count": 2.5"#),
            "`count` must be a whole number of strands from 1 to 16777216, not 2.5",
        ),
        (v(r#""count": 0"#), "`count` must be a whole number"),
        (
            v(r#""density": 10, "count": 10"#),
            "`density` and `count` both say",
        ),
        (
            v(r#""direction": "up""#),
            "`direction` is \"up\"; it is \"along_bones\", \"down\" or a vector",
        ),
        (
            v(r#""direction": [0, 0, 0]"#),
            "`direction` is the zero vector",
        ),
        (
            v(r#""direction": [0, 1]"#),
            "`direction` must be a list of 3 numbers",
        ),
        (
            v(r#""direction": [0, 1, 1e300]"#),
            "`direction[2]` is 1e300",
        ),
        (v(r#""flow_jitter": 4"#), "`flow_jitter` is 4"),
        (
            v(r#""clumping": {"strenght": 0.1}"#),
            "unknown key `strenght` in `clumping`",
        ),
        (
            v(r#""clumping": {"strength": 1}"#),
            "`clumping.strength` is 1",
        ),
        (
            v(r#""clumping": {"frequency": 0}"#),
            "`clumping.frequency` is 0",
        ),
        (
            v(r#""clumping": 0.3"#),
            "`clumping` must be an object with `strength` and `frequency`, not a number",
        ),
        (
            v(r#""lift": {"root": 2}"#),
            "`lift.root` is 2; it must be between 0 and π/2 (1.5708) (radians",
        ),
        (v(r#""lift": {"tip": -1}"#), "`lift.tip` is -1"),
        (
            v(r#""colour": "red""#),
            "`colour` must be \"texture\", \"#rrggbb\" or [r, g, b] (linear), not \"red\"",
        ),
        (
            v(r##""colour": "#12345""##),
            "a colour in hex is \"#rrggbb\"",
        ),
        (v(r#""colour": [1, 2, 0]"#), "`colour[1]` is 2"),
        (v(r#""tint": [1, 1, -1]"#), "`tint[2]` is -1"),
        (
            v(r#""no_fur": {"material": "Eyes"}"#),
            "`no_fur` must be a list of masks, not an object",
        ),
        (v(r#""no_fur": ["Eyes"]"#), "`no_fur[0]` must be an object"),
        (
            v(r#""no_fur": [{"material": 3}]"#),
            "`no_fur[0].material` must be a material's name",
        ),
        (
            v(r#""no_fur": [{"material_containing": ""}]"#),
            "`no_fur[0].material_containing` is empty",
        ),
        (
            v(r#""no_fur": [{"material_containing": "eye", "below": 0.5}]"#),
            "unknown key `below`",
        ),
        (
            v(r#""no_fur": [{"material": "Eyes", "below": 1}]"#),
            "unknown key `below` in `no_fur[0]`",
        ),
        (
            v(r#""no_fur": [{}, {"colour": "r"}]"#),
            "`no_fur[0]` needs `material`, `material_containing`, `vertex_colour` or `texture`",
        ),
        (
            v(r#""no_fur": [{"texture": "x", "below": 0.5}]"#),
            "`no_fur[0].texture` is the channel read",
        ),
        (
            v(r#""no_fur": [{"vertex_colour": "r"}]"#),
            "`no_fur[0]` needs one of `below` or `above`",
        ),
        (
            v(r#""no_fur": [{"vertex_colour": "r", "below": 0.2, "above": 0.8}]"#),
            "`no_fur[0]` needs one of `below` or `above`",
        ),
        (
            v(r#""no_fur": [{"texture": "r", "above": 1.5}]"#),
            "`no_fur[0].above` is 1.5",
        ),
        (
            v(r#""no_fur": [{"texture": "r", "vertex_colour": "g", "above": 0.5}]"#),
            "names both",
        ),
        (
            r#"{"pelt_groom": 2}"#.into(),
            "`pelt_groom` is 2: this Pelt reads version 1",
        ),
        (
            r#"{"pelt_groom": "1"}"#.into(),
            "`pelt_groom` must be the version number 1",
        ),
        (r#"{"length": 0.1}"#.into(), "it has no `pelt_groom` key"),
        (r#"[1, 2]"#.into(), "a groom file is a JSON object"),
        (r#"{"pelt_groom": 1,"#.into(), "not valid JSON"),
        (
            r#"{"mode": "pet", "capsules": []}"#.into(),
            "this is a capsule script",
        ),
        (
            format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000)),
            "nested too deeply",
        ),
    ];
    for (text, wanted) in &cases {
        let m = refused(text);
        assert!(m.starts_with("groom file: "), "{m}");
        assert!(m.contains(wanted), "wanted {wanted:?} in: {m}");
        assert!(m.len() < 400, "a short message: {m}");
    }
}

#[test]
fn a_file_on_disk_is_named_in_its_errors_and_told_from_curves() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("fox.groom.json");
    std::fs::write(&good, r#"{"pelt_groom": 1, "length": 0.05}"#).unwrap();
    match read_groom(&good).unwrap() {
        GroomInput::File(g) => assert_eq!(g.length, 0.05),
        GroomInput::Curves(_) => panic!("a groom file read as curves"),
    }
    let bad = dir.path().join("typo.json");
    std::fs::write(&bad, r#"{"pelt_groom": 1, "density": -3}"#).unwrap();
    let m = read_groom(&bad).unwrap_err().to_string();
    assert!(
        m.starts_with(&format!("groom file {}: `density` is -3", bad.display())),
        "{m}"
    );
    let png = dir.path().join("groom.json");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\xff\xfe").unwrap();
    let m = read_groom(&png).unwrap_err().to_string();
    assert!(m.contains("this is a PNG picture, not a groom file"), "{m}");
    let big = dir.path().join("big.json");
    std::fs::write(
        &big,
        vec![b' '; (pelt::groom::MAX_GROOM_FILE_BYTES + 1) as usize],
    )
    .unwrap();
    let m = read_groom(&big).unwrap_err().to_string();
    assert!(m.contains("larger than 1048576 bytes"), "{m}");
}
