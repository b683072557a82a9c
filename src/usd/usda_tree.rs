//! A `.usda` layer read into the little that curves need: the layer's `metersPerUnit` and
//! `upAxis`, and every prim (its path, type, parent and transform ops) with, for
//! `BasisCurves` prims, the curve attributes. Every other attribute is walked over and
//! dropped, so a large mesh in the same file costs time but no memory.
//!
//! An attribute with time samples gives its default value where one is authored, else its
//! earliest sample. Nesting (prims in prims, brackets in values) is bounded by
//! [`MAX_NESTING`], and the values kept by [`MAX_KEPT_VALUES`].

use super::tokens::{Token, TokenError, Tokens, quoted};
use super::xform::OpValue;
use glam::{DMat4, DQuat, DVec3, Vec3};

/// The deepest nesting of prims, or of brackets in one value.
pub const MAX_NESTING: usize = 64;
/// The most array elements kept over the whole file (points, widths, colours, counts).
pub const MAX_KEPT_VALUES: usize = 1 << 24;
/// The most prims read.
pub const MAX_PRIMS: usize = 1 << 20;

/// A value as authored: by default, or at a time sample's time.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Slot<T> {
    value: Option<T>,
    time: Option<f64>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot {
            value: None,
            time: None,
        }
    }
}

impl<T> Slot<T> {
    /// Offers a value (`time` `None` for the default): a default replaces anything, a sample
    /// replaces only a later sample.
    fn offer(&mut self, value: T, time: Option<f64>) {
        let keep_old = match (self.value.is_some(), self.time, time) {
            (false, _, _) => false,
            (true, _, None) => false,
            (true, None, Some(_)) => true,
            (true, Some(old), Some(new)) => old <= new,
        };
        if !keep_old {
            self.value = Some(value);
            self.time = time;
        }
    }

    /// The chosen value.
    pub(crate) fn get(&self) -> Option<&T> {
        self.value.as_ref()
    }
}

/// The attributes of a `BasisCurves` prim that make its strands.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CurveAttrs {
    pub kind: Slot<String>,
    pub basis: Slot<String>,
    pub wrap: Slot<String>,
    pub counts: Slot<Vec<i64>>,
    pub points: Slot<Vec<Vec3>>,
    pub widths: Slot<Vec<f32>>,
    pub widths_interpolation: Option<String>,
    pub colors: Slot<Vec<Vec3>>,
    pub color_interpolation: Option<String>,
    pub color_indices: Slot<Vec<i64>>,
}

/// One prim.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PrimSpec {
    /// `/Root/Hair`.
    pub path: String,
    /// `BasisCurves`, `Xform`, … ("" for a typeless prim).
    pub type_name: String,
    /// The enclosing prim's index.
    pub parent: Option<usize>,
    /// A `class` prim or one inside one: not on the stage.
    pub is_abstract: bool,
    /// The line of its `def`.
    pub line: usize,
    /// Transform ops as authored (name, value).
    pub ops: Vec<(String, Slot<OpValue>)>,
    /// `xformOpOrder`.
    pub op_order: Slot<Vec<String>>,
    /// The curve attributes, for a `BasisCurves` prim.
    pub curves: Option<CurveAttrs>,
}

/// What a layer holds for the curves reader.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LayerTree {
    pub meters_per_unit: Option<f64>,
    pub up_axis: Option<String>,
    /// Prims in file order; a parent comes before its children.
    pub prims: Vec<PrimSpec>,
}

/// The metadata in `( … )` the reader uses.
#[derive(Default)]
struct Meta {
    interpolation: Option<String>,
    meters_per_unit: Option<f64>,
    up_axis: Option<String>,
}

/// Words that qualify a property before its type.
const QUALIFIERS: &[&str] = &[
    "custom", "uniform", "varying", "config", "prepend", "append", "add", "delete", "reorder",
];

/// `tok` in words, for an error.
fn describe(tok: Token<'_>) -> String {
    let shown = quoted;
    match tok {
        Token::Punct(c) => format!("`{}`", c as char),
        Token::Ident(w) => format!("`{}`", shown(w)),
        Token::Number(n) => format!("the number {}", shown(n)),
        Token::Str(s) => format!("the string \"{}\"", shown(s)),
        Token::Path => "a path".into(),
        Token::End => "the end of the file".into(),
    }
}

struct Parser<'a> {
    toks: Tokens<'a>,
    kept: usize,
    tree: LayerTree,
}

type Result<T> = std::result::Result<T, TokenError>;

/// Reads the layer `text` (which starts with its `#usda` line).
pub(crate) fn read_tree(text: &str) -> Result<LayerTree> {
    let mut p = Parser {
        toks: Tokens::new(text),
        kept: 0,
        tree: LayerTree::default(),
    };
    if p.peek()?.0 == Token::Punct(b'(') {
        let meta = p.metadata()?;
        p.tree.meters_per_unit = meta.meters_per_unit;
        p.tree.up_axis = meta.up_axis;
    }
    loop {
        match p.peek()?.0 {
            Token::End => return Ok(p.tree),
            Token::Ident("def" | "over" | "class") => p.prim(None, 1, false)?,
            other => {
                return Err(p.fail(format!(
                    "expected a prim (`def`, `over` or `class`), found {}",
                    describe(other)
                )));
            }
        }
    }
}

impl<'a> Parser<'a> {
    fn peek(&mut self) -> Result<(Token<'a>, usize)> {
        self.toks.peek()
    }

    fn next(&mut self) -> Result<Token<'a>> {
        self.toks.next_token()
    }

    fn fail(&self, message: String) -> TokenError {
        TokenError {
            line: self.toks.line(),
            message,
        }
    }

    fn expect(&mut self, c: u8, what: &str) -> Result<()> {
        match self.next()? {
            Token::Punct(got) if got == c => Ok(()),
            other => Err(self.fail(format!(
                "expected `{}` {what}, found {}",
                c as char,
                describe(other)
            ))),
        }
    }

    /// Counts `n` more kept values against [`MAX_KEPT_VALUES`].
    fn keep(&mut self, n: usize) -> Result<()> {
        self.kept = self.kept.saturating_add(n);
        if self.kept > MAX_KEPT_VALUES {
            return Err(self.fail(format!(
                "the curves hold more than {MAX_KEPT_VALUES} values (points, widths, colours \
                 and counts together), the most Pelt reads from one file; split the groom into \
                 several files or thin it"
            )));
        }
        Ok(())
    }

    /// A prim: `def Type "name" ( metadata ) { body }`.
    fn prim(&mut self, parent: Option<usize>, depth: usize, inside_class: bool) -> Result<()> {
        if depth > MAX_NESTING {
            return Err(self.fail(format!(
                "prims nested more than {MAX_NESTING} deep; Pelt reads at most {MAX_NESTING} levels"
            )));
        }
        if self.tree.prims.len() >= MAX_PRIMS {
            return Err(self.fail(format!("more than {MAX_PRIMS} prims")));
        }
        let line = self.peek()?.1;
        let specifier = self.next()?;
        let is_abstract = inside_class || specifier == Token::Ident("class");
        let mut type_name = String::new();
        if let Token::Ident(t) = self.peek()?.0 {
            self.next()?;
            type_name = t.to_string();
        }
        let name = match self.next()? {
            Token::Str(n) => n,
            other => {
                return Err(self.fail(format!(
                    "expected the prim's name in quotes, found {}",
                    describe(other)
                )));
            }
        };
        if self.peek()?.0 == Token::Punct(b'(') {
            self.metadata()?;
        }
        self.expect(b'{', "to open the prim's body")?;
        let parent_path = parent.map_or("", |i| self.tree.prims[i].path.as_str());
        let path = format!("{parent_path}/{name}");
        let index = self.tree.prims.len();
        self.tree.prims.push(PrimSpec {
            path,
            curves: (type_name == "BasisCurves").then(CurveAttrs::default),
            type_name,
            parent,
            is_abstract,
            line,
            ops: Vec::new(),
            op_order: Slot::default(),
        });
        loop {
            match self.peek()?.0 {
                Token::Punct(b'}') => {
                    self.next()?;
                    return Ok(());
                }
                Token::Ident("def" | "over" | "class") => {
                    self.prim(Some(index), depth + 1, is_abstract)?
                }
                Token::Ident("variantSet") => {
                    // Variants are not composed: their prims are not read.
                    self.next()?;
                    self.next()?;
                    self.expect(b'=', "after the variant set's name")?;
                    self.skip_value()?;
                }
                Token::End => {
                    return Err(TokenError {
                        line,
                        message: format!(
                            "the prim {} opened here is never closed (a `}}` is missing)",
                            quoted(&self.tree.prims[index].path)
                        ),
                    });
                }
                _ => self.property(index)?,
            }
        }
    }

    /// A property line: `[qualifiers] type[] name[.timeSamples] [= value] [( metadata )]`.
    fn property(&mut self, prim: usize) -> Result<()> {
        let (first, line) = self.peek()?;
        let mut words: Vec<&'a str> = Vec::new();
        loop {
            let (tok, at) = self.peek()?;
            if at != line {
                break;
            }
            match tok {
                Token::Ident(w) => words.push(w),
                Token::Punct(b'[' | b']') if !words.is_empty() => {}
                _ => break,
            }
            self.next()?;
        }
        let Some(&name) = words.last() else {
            return Err(self.fail(format!(
                "expected a property or a prim, found {}",
                describe(first)
            )));
        };
        let is_rel = words.contains(&"rel");
        let (base, sampled) = match name.strip_suffix(".timeSamples") {
            Some(b) => (b, true),
            None => (name, false),
        };
        let is_curves = self.tree.prims[prim].curves.is_some();
        if self.peek()?.0 == Token::Punct(b'=') {
            self.next()?;
            if is_rel || base.contains(".connect") || base.contains(".spline") {
                self.skip_value()?;
            } else if base.starts_with("xformOp:") {
                let op = self.sampled(sampled, |p| p.op_value())?;
                let ops = &mut self.tree.prims[prim].ops;
                let at = match ops.iter().position(|(n, _)| n == base) {
                    Some(at) => at,
                    None => {
                        ops.push((base.to_string(), Slot::default()));
                        ops.len() - 1
                    }
                };
                for (v, t) in op {
                    ops[at].1.offer(v, t);
                }
            } else if base == "xformOpOrder" {
                let order = self.sampled(sampled, |p| p.array(|p| p.string()))?;
                for (v, t) in order {
                    self.tree.prims[prim].op_order.offer(v, t);
                }
            } else if is_curves {
                self.curve_attribute(prim, base, sampled)?;
            } else {
                self.skip_value()?;
            }
        }
        if self.peek()?.0 == Token::Punct(b'(') {
            let meta = self.metadata()?;
            if let (Some(interp), Some(c)) = (meta.interpolation, &mut self.tree.prims[prim].curves)
            {
                match base {
                    "widths" | "primvars:widths" => c.widths_interpolation = Some(interp),
                    "primvars:displayColor" => c.color_interpolation = Some(interp),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// The value of attribute `base` of a `BasisCurves` prim, kept where the curves use it.
    fn curve_attribute(&mut self, prim: usize, base: &str, sampled: bool) -> Result<()> {
        macro_rules! keep_into {
            ($field:ident, $read:expr) => {{
                let got = self.sampled(sampled, $read)?;
                if let Some(c) = &mut self.tree.prims[prim].curves {
                    for (v, t) in got {
                        c.$field.offer(v, t);
                    }
                }
            }};
        }
        match base {
            "type" => keep_into!(kind, |p: &mut Self| p.string()),
            "basis" => keep_into!(basis, |p: &mut Self| p.string()),
            "wrap" => keep_into!(wrap, |p: &mut Self| p.string()),
            "curveVertexCounts" => keep_into!(counts, |p: &mut Self| p.array(|p| p.integer())),
            "points" => keep_into!(points, |p: &mut Self| p.array(|p| p.vec3f())),
            "widths" | "primvars:widths" => {
                keep_into!(widths, |p: &mut Self| p.array(|p| p.float()))
            }
            "primvars:displayColor" => keep_into!(colors, |p: &mut Self| p.array(|p| p.vec3f())),
            "primvars:displayColor:indices" => {
                keep_into!(color_indices, |p: &mut Self| p.array(|p| p.integer()))
            }
            _ => self.skip_value()?,
        }
        Ok(())
    }

    /// A value read by `read`, or (`sampled`) a `{ time: value, … }` block of them: every
    /// value read, with its time.
    fn sampled<T>(
        &mut self,
        sampled: bool,
        mut read: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<(T, Option<f64>)>> {
        if !sampled {
            return Ok(vec![(read(self)?, None)]);
        }
        self.expect(b'{', "to open the time samples")?;
        let mut best: Option<(T, f64)> = None;
        loop {
            if self.peek()?.0 == Token::Punct(b'}') {
                self.next()?;
                return Ok(best.map(|(v, t)| (v, Some(t))).into_iter().collect());
            }
            let time = self.number()?;
            self.expect(b':', "after a time sample's time")?;
            if self.peek()?.0 == Token::Ident("None") {
                self.next()?;
            } else {
                let v = read(self)?;
                if best.as_ref().is_none_or(|(_, t)| time < *t) {
                    best = Some((v, time));
                }
            }
            if self.peek()?.0 == Token::Punct(b',') {
                self.next()?;
            }
        }
    }

    /// `( key = value … )`: the keys the reader uses, the rest skipped.
    fn metadata(&mut self) -> Result<Meta> {
        self.expect(b'(', "to open metadata")?;
        let mut meta = Meta::default();
        loop {
            match self.next()? {
                Token::Punct(b')') => return Ok(meta),
                Token::Punct(b';') | Token::Str(_) => {}
                Token::Ident(word) => {
                    let key = if QUALIFIERS.contains(&word) {
                        match self.next()? {
                            Token::Ident(k) => k,
                            other => {
                                return Err(self.fail(format!(
                                    "expected a metadata name after `{word}`, found {}",
                                    describe(other)
                                )));
                            }
                        }
                    } else {
                        word
                    };
                    if self.peek()?.0 != Token::Punct(b'=') {
                        continue;
                    }
                    self.next()?;
                    match key {
                        "interpolation" => meta.interpolation = Some(self.string()?.to_string()),
                        "upAxis" => meta.up_axis = Some(self.string()?.to_string()),
                        "metersPerUnit" => meta.meters_per_unit = Some(self.number()?),
                        _ => self.skip_value()?,
                    }
                }
                other => {
                    return Err(self.fail(format!(
                        "expected metadata (`name = value`) or `)`, found {}",
                        describe(other)
                    )));
                }
            }
        }
    }

    /// Walks over one value of any shape, brackets balanced and nested at most
    /// [`MAX_NESTING`] deep.
    fn skip_value(&mut self) -> Result<()> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            let tok = self.next()?;
            match tok {
                Token::Punct(c @ (b'[' | b'(' | b'{')) => {
                    if open.len() >= MAX_NESTING {
                        return Err(self.fail(format!(
                            "brackets nested more than {MAX_NESTING} deep; Pelt reads at most \
                             {MAX_NESTING} levels"
                        )));
                    }
                    open.push(match c {
                        b'[' => b']',
                        b'(' => b')',
                        _ => b'}',
                    });
                }
                Token::Punct(c @ (b']' | b')' | b'}')) => {
                    let opened = open.pop();
                    if opened != Some(c) {
                        return Err(self.fail(format!(
                            "`{}` closes nothing here (a value is missing or a bracket is \
                             unbalanced)",
                            c as char
                        )));
                    }
                }
                Token::End => {
                    return Err(self
                        .fail("the file ends inside a value (a bracket is never closed)".into()));
                }
                _ => {}
            }
            if open.is_empty() {
                return Ok(());
            }
        }
    }

    /// A finite number.
    fn number(&mut self) -> Result<f64> {
        match self.next()? {
            Token::Number(text) => match text.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                Ok(_) => Err(self.fail(format!(
                    "the number {} is too large to hold; every number must be finite",
                    quoted(text)
                ))),
                Err(_) => Err(self.fail(format!("{} is not a number", quoted(text)))),
            },
            Token::Ident(w)
                if matches!(
                    w.trim_start_matches(['-', '+'])
                        .to_ascii_lowercase()
                        .as_str(),
                    "nan" | "inf" | "infinity"
                ) =>
            {
                Err(self.fail(format!(
                    "`{w}` is not a finite number; points, widths, colours and transforms \
                     must be finite"
                )))
            }
            other => Err(self.fail(format!("expected a number, found {}", describe(other)))),
        }
    }

    /// A finite number that fits an `f32`.
    fn float(&mut self) -> Result<f32> {
        let v = self.number()?;
        let narrow = v as f32;
        if narrow.is_finite() {
            Ok(narrow)
        } else {
            Err(self.fail(format!(
                "the number {v:e} is too large for a 32-bit float (point3f, float, color3f)"
            )))
        }
    }

    /// A whole number.
    fn integer(&mut self) -> Result<i64> {
        let v = self.number()?;
        if v.fract() == 0.0 && v.abs() < 9.0e15 {
            Ok(v as i64)
        } else {
            Err(self.fail(format!("expected a whole number, found {v}")))
        }
    }

    /// A quoted string or token.
    fn string(&mut self) -> Result<String> {
        match self.next()? {
            Token::Str(s) => Ok(s.to_string()),
            other => Err(self.fail(format!(
                "expected a quoted token, found {}",
                describe(other)
            ))),
        }
    }

    /// `(n, n, …)`: a tuple of numbers.
    fn tuple(&mut self) -> Result<Vec<f64>> {
        self.expect(b'(', "to open a tuple")?;
        let mut out = Vec::new();
        loop {
            if self.peek()?.0 == Token::Punct(b')') {
                self.next()?;
                return Ok(out);
            }
            if out.len() >= 4 {
                return Err(self.fail("a tuple of more than 4 numbers".into()));
            }
            out.push(self.number()?);
            match self.peek()?.0 {
                Token::Punct(b',') => {
                    self.next()?;
                }
                Token::Punct(b')') => {}
                other => {
                    return Err(self.fail(format!(
                        "expected `,` or `)` in a tuple, found {}",
                        describe(other)
                    )));
                }
            }
        }
    }

    /// `(x, y, z)` as `f32`s.
    fn vec3f(&mut self) -> Result<Vec3> {
        let t = self.tuple()?;
        let [x, y, z] = t[..] else {
            return Err(self.fail(format!("expected 3 numbers in a tuple, found {}", t.len())));
        };
        let v = Vec3::new(x as f32, y as f32, z as f32);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(self.fail("a number too large for a 32-bit float (point3f, color3f)".into()))
        }
    }

    /// A transform op's value, by its shape: a number, a 3-tuple, a quaternion
    /// `(w, x, y, z)` or a matrix of four 4-tuples (row-vector, so transposed).
    fn op_value(&mut self) -> Result<OpValue> {
        match self.peek()?.0 {
            Token::Number(_) | Token::Ident(_) => return Ok(OpValue::Scalar(self.number()?)),
            Token::Punct(b'(') => {}
            other => {
                return Err(self.fail(format!(
                    "expected a transform value, found {}",
                    describe(other)
                )));
            }
        }
        self.next()?;
        if self.peek()?.0 != Token::Punct(b'(') {
            // A tuple of numbers: read its rest by putting the `(` back in words.
            let mut nums = Vec::new();
            loop {
                if self.peek()?.0 == Token::Punct(b')') {
                    self.next()?;
                    break;
                }
                if nums.len() >= 4 {
                    return Err(self.fail("a tuple of more than 4 numbers".into()));
                }
                nums.push(self.number()?);
                if self.peek()?.0 == Token::Punct(b',') {
                    self.next()?;
                }
            }
            return match nums[..] {
                [x, y, z] => Ok(OpValue::Vec3(DVec3::new(x, y, z))),
                [w, x, y, z] => Ok(OpValue::Quat(DQuat::from_xyzw(x, y, z, w))),
                _ => Err(self.fail(format!(
                    "a transform op of {} numbers (3 or 4 wanted)",
                    nums.len()
                ))),
            };
        }
        let mut rows = [[0.0f64; 4]; 4];
        for (i, row) in rows.iter_mut().enumerate() {
            let t = self.tuple()?;
            *row = t[..].try_into().map_err(|_| {
                self.fail(format!(
                    "row {i} of a matrix has {} numbers, wants 4",
                    t.len()
                ))
            })?;
            if i < 3 {
                self.expect(b',', "between a matrix's rows")?;
            }
        }
        if self.peek()?.0 == Token::Punct(b',') {
            self.next()?;
        }
        self.expect(b')', "to close the matrix")?;
        // USD's rows are glam's columns (row-vector convention).
        Ok(OpValue::Matrix(DMat4::from_cols_array_2d(&rows)))
    }

    /// `[a, b, …]`, each element by `read`, counted against [`MAX_KEPT_VALUES`].
    fn array<T>(&mut self, mut read: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        self.expect(b'[', "to open an array")?;
        let mut out = Vec::new();
        loop {
            if self.peek()?.0 == Token::Punct(b']') {
                self.next()?;
                return Ok(out);
            }
            self.keep(1)?;
            out.push(read(self)?);
            match self.peek()?.0 {
                Token::Punct(b',') => {
                    self.next()?;
                }
                Token::Punct(b']') => {}
                other => {
                    return Err(self.fail(format!(
                        "expected `,` or `]` in an array, found {}",
                        describe(other)
                    )));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_wins_over_samples_and_the_earliest_sample_over_later_ones() {
        let text = r#"#usda 1.0
(
    metersPerUnit = 0.01
    upAxis = "Z"
    doc = """a
    doc"""
)
def Xform "Root" ( kind = "component" )
{
    double3 xformOp:translate = (1, 2, 3)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def BasisCurves "Hair"
    {
        point3f[] points.timeSamples = {
            5: [(5, 5, 5), (6, 6, 6)],
            2: [(2, 2, 2), (3, 3, 3)],
        }
        int[] curveVertexCounts.timeSamples = { 0: [7] }
        int[] curveVertexCounts = [2]
        uniform token type = "linear"
        uniform token type.timeSamples = { 0: "cubic" }
        float[] widths.timeSamples = { 4: [0.4] }
        float[] widths.timeSamples = { 3: [0.3] }
        float[] widths.timeSamples = { 6: [0.6] } (interpolation = "constant")
        custom float unrelated
        rel material:binding = </Mat>
    }
    def Mesh "Skin" { point3f[] points = [(9, 9, 9)] }
}
"#;
        let tree = read_tree(text).unwrap();
        assert_eq!(tree.meters_per_unit, Some(0.01));
        assert_eq!(tree.up_axis.as_deref(), Some("Z"));
        assert_eq!(tree.prims.len(), 3);
        let hair = &tree.prims[1];
        assert_eq!(hair.path, "/Root/Hair");
        assert_eq!(hair.parent, Some(0));
        let c = hair.curves.as_ref().unwrap();
        assert_eq!(c.points.get().unwrap()[0], Vec3::splat(2.0));
        // The default, whether a sample comes before or after it; of samples authored
        // apart, the earliest.
        assert_eq!(c.counts.get(), Some(&vec![2]));
        assert_eq!(c.kind.get().map(String::as_str), Some("linear"));
        assert_eq!(c.widths.get(), Some(&vec![0.3]));
        assert_eq!(c.widths_interpolation.as_deref(), Some("constant"));
        assert_eq!(tree.prims[0].ops.len(), 1);
        assert!(tree.prims[2].curves.is_none());
    }

    #[test]
    fn nesting_past_the_cap_is_an_error_naming_the_cap() {
        let deep_prims = format!("#usda 1.0\n{}", "def \"a\" {\n".repeat(10_000));
        let deep_value = format!(
            "#usda 1.0\ndef \"a\" {{\n custom int x = {}",
            "[".repeat(10_000)
        );
        for text in [deep_prims, deep_value] {
            let e = read_tree(&text).unwrap_err();
            assert!(e.message.contains("at most 64 levels"), "{}", e.message);
        }
    }
}
