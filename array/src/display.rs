//! Printing arrays as NumPy prints them.
//!
//! - `format!("{a}")` ([`fmt::Display`]) is NumPy's `str(a)`: `[1.  1.5]`, rows on their own
//!   lines, a 0-d array as its scalar (`5.0`).
//! - `format!("{a:#}")` and [`array_repr`] are NumPy's `repr(a)`:
//!   `array([1. , 1.5], dtype=float32)` (the dtype named unless it is `float64`, `int64`,
//!   `complex128` or `bool`, as NumPy names it).
//! - `{:.3}` prints with 3 fractional digits at most (NumPy's `precision`); [`set_printoptions`]
//!   sets the defaults for every array (`precision` 8, `threshold` 1000, `edgeitems` 3,
//!   `linewidth` 75, `suppress` off), as `numpy.set_printoptions` does.
//! - `{:?}` ([`fmt::Debug`]) stays short: shape, dtype and device, without reading the values.
//!
//! The values are read from the device once per print (of a summarised array, only the
//! elements shown, gathered on the device) (an error while reading is printed in
//! place of the values: formatting never panics). Floats follow NumPy's default `'maxprec'`
//! rules: each value in its shortest round-trip digits (for its own dtype, float16 and
//! bfloat16 included) cut to `precision` fractional digits; positional notation unless the
//! largest magnitude is ≥ 1e8 or, without `suppress`, the smallest non-zero one is < 1e-4 or
//! they differ by more than 1000×; every element padded to the same width. Arrays of more than
//! `threshold` elements show `edgeitems` items at each end of every axis around `...`.
//! bfloat16, which NumPy lacks, prints as a float type named `bfloat16`.

use std::fmt;
use std::sync::RwLock;

use xp_backend_api::{DType, Result};

use crate::Array;

/// NumPy's print options (`numpy.set_printoptions`), for every array printed afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrintOptions {
    /// Fractional digits at most (8).
    pub precision: usize,
    /// Arrays of more elements than this are summarised (1000).
    pub threshold: usize,
    /// Items shown at each end of an axis when summarised (3).
    pub edgeitems: usize,
    /// Characters per line (75).
    pub linewidth: usize,
    /// Print small floats in positional notation (as zeros) rather than switching to
    /// scientific notation (off).
    pub suppress: bool,
}

impl PrintOptions {
    /// NumPy's defaults.
    pub const NUMPY: PrintOptions =
        PrintOptions { precision: 8, threshold: 1000, edgeitems: 3, linewidth: 75, suppress: false };
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions::NUMPY
    }
}

static OPTIONS: RwLock<PrintOptions> = RwLock::new(PrintOptions::NUMPY);

/// Sets the print options of every array printed afterwards (NumPy's `set_printoptions`).
pub fn set_printoptions(options: PrintOptions) {
    *OPTIONS.write().unwrap_or_else(|e| e.into_inner()) = options;
}

/// The print options in force (NumPy's `get_printoptions`).
pub fn get_printoptions() -> PrintOptions {
    *OPTIONS.read().unwrap_or_else(|e| e.into_inner())
}

/// NumPy's `repr(a)`: `array([1, 2, 3], dtype=int32)`. Errors only where reading the values
/// fails.
pub fn array_repr(a: &Array) -> Result<String> {
    render(a, get_printoptions(), true)
}

/// NumPy's `str(a)`: `[1 2 3]`. Errors only where reading the values fails.
pub fn array_str(a: &Array) -> Result<String> {
    render(a, get_printoptions(), false)
}

/// NumPy's `array2string(a, …)` with explicit options and separator `' '` (the `str` form).
pub fn array2string(a: &Array, options: PrintOptions) -> Result<String> {
    render(a, options, false)
}

impl fmt::Display for Array {
    /// NumPy's `str(a)`; `{:#}` gives NumPy's `repr(a)`; a precision (`{:.3}`) overrides the
    /// print options' `precision`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut options = get_printoptions();
        if let Some(p) = f.precision() {
            options.precision = p;
        }
        match render(self, options, f.alternate()) {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<array of shape {:?}, {}: values unreadable: {e}>", self.shape(), self.dtype()),
        }
    }
}

// ---- values ---------------------------------------------------------------------------------

/// The float type a value's shortest digits are for.
#[derive(Clone, Copy, PartialEq)]
enum Float {
    F16,
    BF16,
    F32,
    F64,
}

enum Values {
    Bool(Vec<bool>),
    Int(Vec<i128>),
    Float(Vec<f64>, Float),
    Complex(Vec<(f64, f64)>, Float),
}

fn decode(dtype: DType, bytes: &[u8]) -> Values {
    fn words<const N: usize>(bytes: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
        bytes.chunks_exact(N).map(|c| c.try_into().expect("chunk of N bytes"))
    }
    match dtype {
        DType::Bool => Values::Bool(bytes.iter().map(|&b| b != 0).collect()),
        DType::I8 => Values::Int(bytes.iter().map(|&b| b as i8 as i128).collect()),
        DType::U8 => Values::Int(bytes.iter().map(|&b| b as i128).collect()),
        DType::I16 => Values::Int(words::<2>(bytes).map(|w| i16::from_le_bytes(w) as i128).collect()),
        DType::U16 => Values::Int(words::<2>(bytes).map(|w| u16::from_le_bytes(w) as i128).collect()),
        DType::I32 => Values::Int(words::<4>(bytes).map(|w| i32::from_le_bytes(w) as i128).collect()),
        DType::U32 => Values::Int(words::<4>(bytes).map(|w| u32::from_le_bytes(w) as i128).collect()),
        DType::I64 => Values::Int(words::<8>(bytes).map(|w| i64::from_le_bytes(w) as i128).collect()),
        DType::U64 => Values::Int(words::<8>(bytes).map(|w| u64::from_le_bytes(w) as i128).collect()),
        DType::F16 => {
            Values::Float(words::<2>(bytes).map(|w| half::f16::from_le_bytes(w).to_f64()).collect(), Float::F16)
        }
        DType::BF16 => {
            Values::Float(words::<2>(bytes).map(|w| half::bf16::from_le_bytes(w).to_f64()).collect(), Float::BF16)
        }
        DType::F32 => Values::Float(words::<4>(bytes).map(|w| f32::from_le_bytes(w) as f64).collect(), Float::F32),
        DType::F64 => Values::Float(words::<8>(bytes).map(f64::from_le_bytes).collect(), Float::F64),
        DType::C64 => Values::Complex(
            words::<8>(bytes)
                .map(|w| {
                    let (re, im) = w.split_at(4);
                    (
                        f32::from_le_bytes(re.try_into().expect("4 bytes")) as f64,
                        f32::from_le_bytes(im.try_into().expect("4 bytes")) as f64,
                    )
                })
                .collect(),
            Float::F32,
        ),
        DType::C128 => Values::Complex(
            words::<16>(bytes)
                .map(|w| {
                    let (re, im) = w.split_at(8);
                    (
                        f64::from_le_bytes(re.try_into().expect("8 bytes")),
                        f64::from_le_bytes(im.try_into().expect("8 bytes")),
                    )
                })
                .collect(),
            Float::F64,
        ),
    }
}

// ---- float digits ---------------------------------------------------------------------------

/// The shortest decimal digits that read back as `|v|` in `kind` (finite `v`): `(digits,
/// exponent)` with `|v| = d0.d1d2… × 10^exponent`; zero is `("0", 0)`.
fn shortest(v: f64, kind: Float) -> (Vec<u8>, i32) {
    let v = v.abs();
    if v == 0.0 {
        return (vec![b'0'], 0);
    }
    let s = match kind {
        Float::F64 => format!("{v:e}"),
        Float::F32 => format!("{:e}", v as f32),
        Float::F16 | Float::BF16 => {
            let same = |x: f64| match kind {
                Float::F16 => half::f16::from_f64(x).to_f64() == v,
                _ => half::bf16::from_f64(x).to_f64() == v,
            };
            (0..17usize)
                .map(|p| format!("{v:.p$e}"))
                .find(|s| s.parse::<f64>().is_ok_and(same))
                .unwrap_or_else(|| format!("{v:e}"))
        }
    };
    sci_parts(&s)
}

/// `d.ddde±x` (Rust's `{:e}`) as digits without trailing zeros and the exponent.
fn sci_parts(s: &str) -> (Vec<u8>, i32) {
    let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
    let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, exp.parse().unwrap_or(0))
}

/// `|v|` in positional notation with at most `precision` fractional digits (NumPy's
/// `dragon4_positional(unique=True, trim='.')`): (integer part, fractional part).
fn positional(v: f64, kind: Float, precision: usize) -> (String, String) {
    let (digits, exp) = shortest(v, kind);
    let frac_len = (digits.len() as i32 - 1 - exp).max(0) as usize;
    if frac_len > precision {
        let s = format!("{:.precision$}", v.abs());
        let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
        return (int.to_string(), frac.trim_end_matches('0').to_string());
    }
    let digits = String::from_utf8(digits).expect("ASCII digits");
    if exp >= 0 {
        let e = exp as usize;
        if digits.len() <= e + 1 {
            (format!("{digits}{}", "0".repeat(e + 1 - digits.len())), String::new())
        } else {
            (digits[..=e].to_string(), digits[e + 1..].to_string())
        }
    } else {
        ("0".to_string(), format!("{}{digits}", "0".repeat((-exp - 1) as usize)))
    }
}

/// `|v|` in scientific notation with at most `precision` fractional digits of the mantissa
/// (NumPy's `dragon4_scientific(unique=True, trim='.')`): (leading digit, fraction, exponent).
fn scientific(v: f64, kind: Float, precision: usize) -> (String, String, i32) {
    let (mut digits, mut exp) = shortest(v, kind);
    if digits.len() - 1 > precision {
        (digits, exp) = sci_parts(&format!("{:.precision$e}", v.abs()));
    }
    let digits = String::from_utf8(digits).expect("ASCII digits");
    (digits[..1].to_string(), digits[1..].to_string(), exp)
}

/// NumPy's `FloatingFormat`: one layout for every float of an array (or of one part of its
/// complex values).
struct FloatFormat {
    kind: Float,
    precision: usize,
    exp: bool,
    plus: bool,
    pad_left: usize,
    pad_right: usize,
    exp_size: usize,
}

impl FloatFormat {
    fn new(data: &[f64], kind: Float, options: &PrintOptions, plus: bool) -> FloatFormat {
        let finite: Vec<f64> = data.iter().copied().filter(|x| x.is_finite()).collect();
        let nonzero = finite.iter().filter(|x| **x != 0.0).map(|x| x.abs());
        let (lo, hi) = nonzero.fold((f64::INFINITY, 0.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
        let exp = hi > 0.0 && (hi >= 1e8 || (!options.suppress && (lo < 1e-4 || hi / lo > 1000.0)));
        let mut f =
            FloatFormat { kind, precision: options.precision, exp, plus, pad_left: 0, pad_right: 0, exp_size: 0 };
        let sign_len = |x: f64| usize::from(plus || x.is_sign_negative());
        if !finite.is_empty() {
            if exp {
                let parts: Vec<_> = finite.iter().map(|&x| (x, scientific(x, kind, f.precision))).collect();
                f.precision = parts.iter().map(|(_, (_, frac, _))| frac.len()).max().unwrap_or(0);
                f.exp_size =
                    parts.iter().map(|(_, (_, _, e))| e.unsigned_abs().to_string().len().max(2)).max().unwrap_or(2);
                f.pad_left = parts.iter().map(|(x, (int, _, _))| int.len() + sign_len(*x)).max().unwrap_or(0);
                f.pad_right = f.exp_size + 2 + f.precision;
            } else {
                let parts: Vec<_> = finite.iter().map(|&x| (x, positional(x, kind, f.precision))).collect();
                f.pad_left = parts.iter().map(|(x, (int, _))| int.len() + sign_len(*x)).max().unwrap_or(0);
                f.pad_right = parts.iter().map(|(_, (_, frac))| frac.len()).max().unwrap_or(0);
            }
        }
        if finite.len() != data.len() {
            let neg_inf = plus || data.iter().any(|x| x.is_infinite() && *x < 0.0);
            let offset = f.pad_right + 1;
            f.pad_left =
                f.pad_left.max(3usize.saturating_sub(offset)).max((3 + usize::from(neg_inf)).saturating_sub(offset));
        }
        f
    }

    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let s = if x.is_nan() {
                if self.plus {
                    "+nan"
                } else {
                    "nan"
                }
            } else if x < 0.0 {
                "-inf"
            } else if self.plus {
                "+inf"
            } else {
                "inf"
            };
            let width = self.pad_left + self.pad_right + 1;
            return format!("{s:>width$}");
        }
        let sign = if x.is_sign_negative() {
            "-"
        } else if self.plus {
            "+"
        } else {
            ""
        };
        if self.exp {
            let (int, frac, e) = scientific(x, self.kind, self.precision);
            let int = format!("{sign}{int}");
            let es = if e < 0 { '-' } else { '+' };
            format!(
                "{int:>pl$}.{frac:0<p$}e{es}{:0>w$}",
                e.unsigned_abs(),
                pl = self.pad_left,
                p = self.precision,
                w = self.exp_size
            )
        } else {
            let (int, frac) = positional(x, self.kind, self.precision);
            let int = format!("{sign}{int}");
            format!("{int:>pl$}.{frac:<pr$}", pl = self.pad_left, pr = self.pad_right)
        }
    }
}

/// The formatter of one element, fitted to the elements shown.
enum ElementFormat {
    Bool { zero_d: bool },
    Int { width: usize },
    Float(FloatFormat),
    Complex(FloatFormat, FloatFormat),
}

impl ElementFormat {
    fn new(values: &Values, shown: &[usize], options: &PrintOptions, zero_d: bool) -> ElementFormat {
        match values {
            Values::Bool(_) => ElementFormat::Bool { zero_d },
            Values::Int(v) => {
                ElementFormat::Int { width: shown.iter().map(|&i| v[i].to_string().len()).max().unwrap_or(0) }
            }
            Values::Float(v, kind) => {
                let data: Vec<f64> = shown.iter().map(|&i| v[i]).collect();
                ElementFormat::Float(FloatFormat::new(&data, *kind, options, false))
            }
            Values::Complex(v, kind) => {
                let re: Vec<f64> = shown.iter().map(|&i| v[i].0).collect();
                let im: Vec<f64> = shown.iter().map(|&i| v[i].1).collect();
                ElementFormat::Complex(
                    FloatFormat::new(&re, *kind, options, false),
                    FloatFormat::new(&im, *kind, options, true),
                )
            }
        }
    }

    fn format(&self, values: &Values, i: usize) -> String {
        match (self, values) {
            (ElementFormat::Bool { zero_d }, Values::Bool(v)) => match (v[i], zero_d) {
                (true, true) => "True".into(),
                (true, false) => " True".into(),
                (false, _) => "False".into(),
            },
            (ElementFormat::Int { width }, Values::Int(v)) => format!("{:>width$}", v[i]),
            (ElementFormat::Float(f), Values::Float(v, _)) => f.format(v[i]),
            (ElementFormat::Complex(re, im), Values::Complex(v, _)) => {
                let r = re.format(v[i].0);
                let imag = im.format(v[i].1);
                let trimmed = imag.trim_end();
                format!("{r}{trimmed}j{}", &imag[trimmed.len()..])
            }
            _ => unreachable!("formatter built for these values"),
        }
    }
}

// ---- layout ---------------------------------------------------------------------------------

/// The indices shown along an axis of `n` items: all, or `edge` at each end (`None`: the
/// `...` between them).
fn shown_indices(n: usize, summarize: bool, edge: usize) -> Vec<Option<usize>> {
    if summarize && 2 * edge < n {
        (0..edge).map(Some).chain([None]).chain((n - edge..n).map(Some)).collect()
    } else {
        (0..n).map(Some).collect()
    }
}

/// The flat (C-order) indices of every element shown.
fn shown_flat(shape: &[usize], summarize: bool, edge: usize) -> Vec<usize> {
    let mut out = vec![0usize];
    for &n in shape {
        let idx: Vec<usize> = shown_indices(n, summarize, edge).into_iter().flatten().collect();
        out = out.iter().flat_map(|base| idx.iter().map(move |i| base * n + i)).collect();
    }
    out
}

struct Layouter<'a> {
    values: &'a Values,
    fmt: &'a ElementFormat,
    shape: &'a [usize],
    summarize: bool,
    edge: usize,
    separator: &'a str,
}

/// NumPy's `_extendLine`: appends `word` to `line`, wrapping first when it would pass `width`
/// (and wrapping would help).
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let needs_wrap = line.len() + word.len() > width && line.len() > prefix.len();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = prefix.to_string();
    }
    line.push_str(word);
}

/// NumPy's `_extendLine_pretty`: a multi-line word (a nested array) goes on its own lines.
fn extend_line_pretty(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let mut lines = word.split('\n');
    let first = lines.next().unwrap_or("");
    let rest: Vec<&str> = lines.collect();
    if rest.is_empty() {
        return extend_line(s, line, word, width, prefix);
    }
    let max_len = rest.iter().map(|l| l.len()).chain([first.len()]).max().unwrap_or(0);
    if line.len() + max_len > width && line.len() > prefix.len() {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = format!("{prefix}{first}");
    } else {
        line.push_str(first);
    }
    let indent = " ".repeat(line.len() - first.len());
    for l in rest {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = format!("{indent}{l}");
    }
}

impl Layouter<'_> {
    /// NumPy's `_formatArray` recursion: the axis `index.len()`, lines after the first
    /// starting with `hanging`, `width` characters a line.
    fn recurse(&self, index: &mut Vec<usize>, hanging: &str, width: usize) -> String {
        let axis = index.len();
        let left = self.shape.len() - axis;
        if left == 0 {
            // The values hold only the elements shown, in the C order of the shown block: along
            // a summarised axis its last `edge` items follow its first `edge`.
            let flat = index.iter().zip(self.shape).fold(0usize, |acc, (&i, &n)| {
                if self.summarize && 2 * self.edge < n {
                    acc * 2 * self.edge + if i < self.edge { i } else { i - (n - 2 * self.edge) }
                } else {
                    acc * n + i
                }
            });
            return self.fmt.format(self.values, flat);
        }
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        let items = shown_indices(self.shape[axis], self.summarize, self.edge);
        let mut s = String::new();
        if left == 1 {
            let w = width.saturating_sub(self.separator.trim_end().len().max(1));
            let mut line = hanging.to_string();
            let last = items.len() - 1;
            for (k, item) in items.iter().enumerate() {
                let word = match item {
                    Some(i) => {
                        index.push(*i);
                        let word = self.recurse(index, &next_hanging, next_width);
                        index.pop();
                        word
                    }
                    None => "...".to_string(),
                };
                if item.is_some() {
                    extend_line_pretty(&mut s, &mut line, &word, w, hanging);
                } else {
                    extend_line(&mut s, &mut line, &word, w, hanging);
                }
                if k != last {
                    line.push_str(self.separator);
                }
            }
            s.push_str(&line);
        } else {
            let line_sep = format!("{}{}", self.separator.trim_end(), "\n".repeat(left - 1));
            let last = items.len() - 1;
            for (k, item) in items.iter().enumerate() {
                let nested = match item {
                    Some(i) => {
                        index.push(*i);
                        let nested = self.recurse(index, &next_hanging, next_width);
                        index.pop();
                        nested
                    }
                    None => "...".to_string(),
                };
                s.push_str(hanging);
                s.push_str(&nested);
                if k != last {
                    s.push_str(&line_sep);
                }
            }
        }
        format!("[{}]", &s[hanging.len()..])
    }
}

/// NumPy's `array2string` body: the bracketed values, lines after the first indented by
/// `prefix_len + 1` spaces, `width` characters a line.
fn layout(
    values: &Values,
    shape: &[usize],
    options: &PrintOptions,
    separator: &str,
    prefix_len: usize,
    width: usize,
) -> String {
    let size: usize = shape.iter().product();
    let summarize = size > options.threshold;
    let shown: Vec<usize> = (0..values_len(values)).collect();
    let fmt = ElementFormat::new(values, &shown, options, shape.is_empty());
    if shape.is_empty() {
        return fmt.format(values, 0);
    }
    let l = Layouter { values, fmt: &fmt, shape, summarize, edge: options.edgeitems, separator };
    let hanging = " ".repeat(prefix_len + 1);
    l.recurse(&mut Vec::new(), &hanging, width)
}

/// Python's `repr(float)` of a value of `kind`: shortest digits, positional for exponents
/// -4 … 15 (with `.0` for whole numbers), else `d.ddde±xx`.
fn python_float(x: f64, kind: Float) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf".into() } else { "inf".into() };
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let (digits, exp) = shortest(x, kind);
    let digits = String::from_utf8(digits).expect("ASCII digits");
    if (-4..16).contains(&exp) {
        let (int, frac) = positional(x, kind, 64);
        let frac = if frac.is_empty() { "0".to_string() } else { frac };
        format!("{sign}{int}.{frac}")
    } else {
        let mantissa = if digits.len() > 1 { format!("{}.{}", &digits[..1], &digits[1..]) } else { digits };
        let es = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{es}{:02}", exp.unsigned_abs())
    }
}

/// NumPy's `str` of a 0-d array: the scalar's `str`.
fn scalar_str(values: &Values) -> String {
    match values {
        Values::Bool(v) => if v[0] { "True" } else { "False" }.into(),
        Values::Int(v) => v[0].to_string(),
        Values::Float(v, kind) => python_float(v[0], *kind),
        Values::Complex(v, kind) => {
            let (re, im) = v[0];
            let imag = python_float(im, *kind);
            let imag = imag.strip_suffix(".0").unwrap_or(&imag).to_string();
            if re == 0.0 && !re.is_sign_negative() {
                return format!("{imag}j");
            }
            let real = python_float(re, *kind);
            let real = real.strip_suffix(".0").unwrap_or(&real);
            let sign = if im.is_sign_negative() || (im.is_nan() && imag.starts_with('-')) { "" } else { "+" };
            format!("({real}{sign}{imag}j)")
        }
    }
}

fn values_len(values: &Values) -> usize {
    match values {
        Values::Bool(v) => v.len(),
        Values::Int(v) => v.len(),
        Values::Float(v, _) => v.len(),
        Values::Complex(v, _) => v.len(),
    }
}

fn render(a: &Array, options: PrintOptions, repr: bool) -> Result<String> {
    // A summarised array reads only the elements shown (gathered on its device), in the C
    // order of the shown block.
    let bytes = if a.size() > options.threshold && a.ndim() > 0 {
        let idx: Vec<i64> = shown_flat(a.shape(), true, options.edgeitems).into_iter().map(|i| i as i64).collect();
        let idx = Array::from_slice_on(&a.device_arc(), &idx, &[idx.len()])?;
        a.ravel()?.take(&idx, None)?.to_bytes()?
    } else {
        a.to_bytes()?
    };
    let values = decode(a.dtype(), &bytes);
    let shape = a.shape();
    let size = a.size();
    if !repr {
        if shape.is_empty() {
            return Ok(scalar_str(&values));
        }
        if size == 0 {
            return Ok("[]".to_string());
        }
        return Ok(layout(&values, shape, &options, " ", 0, options.linewidth));
    }
    let body = if size > 0 || shape == [0] {
        if size == 0 {
            "[]".to_string()
        } else {
            layout(&values, shape, &options, ", ", "array(".len(), options.linewidth.saturating_sub(1))
        }
    } else {
        "[]".to_string()
    };
    // NumPy 2's extras: the shape of empty and of summarised arrays, the dtype unless it is
    // one a literal implies.
    let mut extras = Vec::new();
    if (size == 0 && shape != [0]) || size > options.threshold {
        let dims: Vec<String> = shape.iter().map(|n| n.to_string()).collect();
        let tuple = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
        extras.push(format!("shape={tuple}"));
    }
    if !matches!(a.dtype(), DType::F64 | DType::I64 | DType::C128 | DType::Bool) || size == 0 {
        extras.push(format!("dtype={}", a.dtype().name()));
    }
    if extras.is_empty() {
        return Ok(format!("array({body})"));
    }
    let text = format!("array({body},");
    let extra = format!("{})", extras.join(", "));
    let last_line = text.len() - text.rfind('\n').map_or(0, |p| p + 1);
    let spacer = if last_line + extra.len() + 1 > options.linewidth { "\n      " } else { " " };
    Ok(format!("{text}{spacer}{extra}"))
}
