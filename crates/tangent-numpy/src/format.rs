//! `repr`/`str` of arrays, following NumPy's print options (by default precision 8,
//! `floatmode='maxprec'`, line width 75, summarization above 1000 elements with 3 edge
//! items; `set_printoptions` changes them for the thread, as NumPy's context does).
//! Mirrors numpy/core/arrayprint.py (`FloatingFormat`, `_formatArray`).

use super::core::{shape_tuple, DType};
use ndarray::{ArrayViewD, Axis};

/// An element that can be printed: floats and bools through f64, int64 exactly,
/// complex numbers by their parts.
pub trait Printable: Copy {
    fn as_f64(self) -> f64;
    /// The real and imaginary parts.
    fn parts(self) -> (f64, f64) {
        (self.as_f64(), 0.0)
    }
    /// The decimal text of an integer element.
    fn int_text(self) -> String {
        format!("{}", self.as_f64() as i64)
    }
}

impl Printable for f64 {
    fn as_f64(self) -> f64 {
        self
    }
}

impl Printable for i64 {
    fn as_f64(self) -> f64 {
        self as f64
    }
    fn int_text(self) -> String {
        self.to_string()
    }
}

/// NumPy's print options that change the text of arrays (`floatmode` is 'maxprec' and
/// `sign` is '-' here: the Python layer refuses the others).
#[derive(Clone, Debug, PartialEq)]
pub struct PrintOptions {
    pub precision: usize,
    pub threshold: usize,
    pub edgeitems: usize,
    pub linewidth: usize,
    /// Small numbers in positional notation rather than switching to scientific.
    pub suppress: bool,
    pub nanstr: String,
    pub infstr: String,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions {
            precision: 8,
            threshold: 1000,
            edgeitems: 3,
            linewidth: 75,
            suppress: false,
            nanstr: "nan".into(),
            infstr: "inf".into(),
        }
    }
}

thread_local! {
    static OPTIONS: std::cell::RefCell<PrintOptions> = std::cell::RefCell::new(PrintOptions::default());
}

/// The thread's print options.
pub fn options() -> PrintOptions {
    OPTIONS.with(|o| o.borrow().clone())
}

/// Sets the thread's print options; returns the old ones.
pub fn set_options(new: PrintOptions) -> PrintOptions {
    OPTIONS.with(|o| std::mem::replace(&mut *o.borrow_mut(), new))
}

enum Fmt {
    Bool {
        zero_d: bool,
    },
    Int {
        width: usize,
    },
    Pos {
        pad_left: usize,
        pad_right: usize,
        single: bool,
        plus: bool,
    },
    Exp {
        pad_left: usize,
        precision: usize,
        exp_size: usize,
        single: bool,
        plus: bool,
    },
    /// A complex number: its real part's format and its imaginary part's (always
    /// signed), as NumPy's `ComplexFloatingFormat`.
    Complex(Box<Fmt>, Box<Fmt>),
}

fn trim_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').to_owned()
    } else {
        s.to_owned()
    }
}

/// The sign written before a number (`plus`: '+' before the non-negative ones too).
fn sign_text(x: f64, plus: bool) -> &'static str {
    if x.is_sign_negative() {
        "-"
    } else if plus {
        "+"
    } else {
        ""
    }
}

/// Positional digits of |x|: shortest round-trip, at most `precision` fractional digits.
fn pos_digits(x: f64, single: bool, precision: usize, plus: bool) -> (String, String) {
    let mut s = if single {
        format!("{}", x.abs() as f32)
    } else {
        format!("{}", x.abs())
    };
    let frac_len = s.split_once('.').map_or(0, |(_, f)| f.len());
    if frac_len > precision {
        s = trim_zeros(&format!("{:.*}", precision, x.abs()));
    }
    let (i, f) = match s.split_once('.') {
        Some((i, f)) => (i.to_owned(), f.to_owned()),
        None => (s, String::new()),
    };
    (format!("{}{i}", sign_text(x, plus)), f)
}

/// Scientific digits of |x|: (int part with sign, frac part, exponent).
fn exp_digits(x: f64, single: bool, precision: usize, plus: bool) -> (String, String, i32) {
    let mut s = if single {
        format!("{:e}", x.abs() as f32)
    } else {
        format!("{:e}", x.abs())
    };
    let (m, _) = s.split_once('e').unwrap();
    let frac_len = m.split_once('.').map_or(0, |(_, f)| f.len());
    if frac_len > precision {
        s = format!("{:.*e}", precision, x.abs());
        let (m, e) = s.split_once('e').unwrap();
        s = format!("{}e{}", trim_zeros(m).trim_end_matches('.'), e);
    }
    let (m, e) = s.split_once('e').unwrap();
    let exp: i32 = e.parse().unwrap();
    let (i, f) = match m.split_once('.') {
        Some((i, f)) => (i.to_owned(), f.to_owned()),
        None => (m.to_owned(), String::new()),
    };
    (format!("{}{i}", sign_text(x, plus)), f, exp)
}

fn build_fmt<T: Printable>(data: &[T], dtype: DType, zero_d: bool, o: &PrintOptions) -> Fmt {
    float_fmt(data, dtype, zero_d, o, false)
}

/// The format of the values `data` (`plus`: floats always signed).
fn float_fmt<T: Printable>(
    data: &[T],
    dtype: DType,
    zero_d: bool,
    o: &PrintOptions,
    plus: bool,
) -> Fmt {
    match dtype {
        DType::Bool => Fmt::Bool { zero_d },
        DType::Int64 => {
            let width = data.iter().map(|&x| x.int_text().len()).max().unwrap_or(1);
            Fmt::Int { width }
        }
        DType::Float64 | DType::Float32 => {
            let data: Vec<f64> = data.iter().map(|x| x.as_f64()).collect();
            let single = dtype == DType::Float32;
            let finite: Vec<f64> = data.iter().copied().filter(|x| x.is_finite()).collect();
            let nonzero: Vec<f64> = finite
                .iter()
                .map(|x| x.abs())
                .filter(|&x| x != 0.0)
                .collect();
            let mut exp = false;
            if !nonzero.is_empty() {
                let max = nonzero.iter().cloned().fold(f64::MIN, f64::max);
                let min = nonzero.iter().cloned().fold(f64::MAX, f64::min);
                if max >= 1e8 || (!o.suppress && (min < 0.0001 || max / min > 1000.0)) {
                    exp = true;
                }
            }
            let has_nonfinite = finite.len() != data.len();
            // Room for the texts of NaN and of infinities (with `-` when one is negative),
            // as NumPy keeps.
            let neginf = (plus || data.contains(&f64::NEG_INFINITY)) as usize;
            let nonfinite_width = o.nanstr.len().max(o.infstr.len() + neginf);
            if exp {
                let parts: Vec<_> = finite
                    .iter()
                    .map(|&x| exp_digits(x, single, o.precision, plus))
                    .collect();
                let pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(0);
                let precision = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
                let exp_size = parts
                    .iter()
                    .map(|p| format!("{:02}", p.2.abs()).len())
                    .max()
                    .unwrap_or(2);
                let mut pad_left = pad_left;
                if has_nonfinite {
                    let pad_right = exp_size + 2 + precision;
                    let offset = pad_right + 1;
                    pad_left = pad_left.max(nonfinite_width.saturating_sub(offset));
                }
                Fmt::Exp {
                    pad_left,
                    precision,
                    exp_size,
                    single,
                    plus,
                }
            } else {
                let parts: Vec<_> = finite
                    .iter()
                    .map(|&x| pos_digits(x, single, o.precision, plus))
                    .collect();
                let mut pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(0);
                let pad_right = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
                if has_nonfinite {
                    let offset = pad_right + 1;
                    pad_left = pad_left.max(nonfinite_width.saturating_sub(offset));
                }
                Fmt::Pos {
                    pad_left,
                    pad_right,
                    single,
                    plus,
                }
            }
        }
    }
}

fn nonfinite(x: f64, width: usize, o: &PrintOptions, plus: bool) -> String {
    let s = if x.is_nan() {
        format!("{}{}", if plus { "+" } else { "" }, o.nanstr)
    } else if x > 0.0 {
        format!("{}{}", if plus { "+" } else { "" }, o.infstr)
    } else {
        format!("-{}", o.infstr)
    };
    format!("{s:>width$}")
}

fn fmt_elem<T: Printable>(x: T, f: &Fmt, o: &PrintOptions) -> String {
    if let Fmt::Int { width } = f {
        return format!("{:>width$}", x.int_text(), width = *width);
    }
    if let Fmt::Complex(re, im) = f {
        let (r, i) = x.parts();
        let mut i = fmt_elem(i, im, o);
        // The `j` goes before the padding of the imaginary part.
        let end = i.trim_end().len();
        i.insert(end, 'j');
        return fmt_elem(r, re, o) + &i;
    }
    let x = x.as_f64();
    match f {
        Fmt::Bool { zero_d } => {
            if x != 0.0 {
                if *zero_d {
                    "True".into()
                } else {
                    " True".into()
                }
            } else {
                "False".into()
            }
        }
        Fmt::Int { .. } | Fmt::Complex(..) => unreachable!("printed above"),
        Fmt::Pos {
            pad_left,
            pad_right,
            single,
            plus,
        } => {
            if !x.is_finite() {
                return nonfinite(x, pad_left + pad_right + 1, o, *plus);
            }
            let (i, fr) = pos_digits(x, *single, o.precision, *plus);
            format!("{:>pl$}.{:<pr$}", i, fr, pl = *pad_left, pr = *pad_right)
        }
        Fmt::Exp {
            pad_left,
            precision,
            exp_size,
            single,
            plus,
        } => {
            if !x.is_finite() {
                return nonfinite(x, pad_left + 1 + precision + exp_size + 2, o, *plus);
            }
            let (i, fr, e) = exp_digits(x, *single, o.precision, *plus);
            let sign = if e < 0 { '-' } else { '+' };
            format!(
                "{:>pl$}.{:0<pr$}e{}{:0>es$}",
                i,
                fr,
                sign,
                e.abs(),
                pl = *pad_left,
                pr = *precision,
                es = *exp_size
            )
        }
    }
}

/// Elements shown when summarizing (the edge items along every long axis).
fn leading_trailing<T: Printable>(
    a: &ArrayViewD<'_, T>,
    summarize: bool,
    edge: usize,
    out: &mut Vec<T>,
) {
    if !summarize {
        out.extend(a.iter().copied());
        return;
    }
    if a.ndim() == 0 {
        out.push(*a.iter().next().unwrap());
        return;
    }
    let n = a.shape()[0];
    let idx: Vec<usize> = if n > 2 * edge {
        (0..edge).chain(n - edge..n).collect()
    } else {
        (0..n).collect()
    };
    for i in idx {
        leading_trailing(&a.index_axis(Axis(0), i), summarize, edge, out);
    }
}

fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let mut needs_wrap = line.len() + word.len() > width;
    if line.len() <= prefix.len() {
        needs_wrap = false;
    }
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = prefix.to_owned();
    }
    line.push_str(word);
}

fn recurse<T: Printable>(
    a: &ArrayViewD<'_, T>,
    f: &Fmt,
    hanging: &str,
    width: usize,
    sep: &str,
    summarize: bool,
    o: &PrintOptions,
) -> String {
    if a.ndim() == 0 {
        return fmt_elem(*a.iter().next().unwrap(), f, o);
    }
    let next_hanging = format!("{hanging} ");
    let next_width = width - 1;
    let n = a.shape()[0];
    let show_summary = summarize && 2 * o.edgeitems < n;
    let (leading, trailing) = if show_summary {
        (o.edgeitems, o.edgeitems)
    } else {
        (0, n)
    };
    let mut s = String::new();
    let sub = |i: usize| a.index_axis(Axis(0), i);
    if a.ndim() == 1 {
        let elem_width = width - sep.trim_end().len().max(1);
        let mut line = hanging.to_owned();
        for i in 0..leading {
            let w = recurse(&sub(i), f, &next_hanging, next_width, sep, summarize, o);
            extend_line(&mut s, &mut line, &w, elem_width, hanging);
            line.push_str(sep);
        }
        if show_summary {
            extend_line(&mut s, &mut line, "...", elem_width, hanging);
            line.push_str(sep);
        }
        for i in (2..=trailing).rev() {
            let w = recurse(&sub(n - i), f, &next_hanging, next_width, sep, summarize, o);
            extend_line(&mut s, &mut line, &w, elem_width, hanging);
            line.push_str(sep);
        }
        if n > 0 {
            let w = recurse(&sub(n - 1), f, &next_hanging, next_width, sep, summarize, o);
            extend_line(&mut s, &mut line, &w, elem_width, hanging);
        }
        s.push_str(&line);
    } else {
        let line_sep = format!("{}{}", sep.trim_end(), "\n".repeat(a.ndim() - 1));
        for i in 0..leading {
            let nested = recurse(&sub(i), f, &next_hanging, next_width, sep, summarize, o);
            s.push_str(hanging);
            s.push_str(&nested);
            s.push_str(&line_sep);
        }
        if show_summary {
            s.push_str(hanging);
            s.push_str("...");
            s.push_str(&line_sep);
        }
        for i in (2..=trailing).rev() {
            let nested = recurse(&sub(n - i), f, &next_hanging, next_width, sep, summarize, o);
            s.push_str(hanging);
            s.push_str(&nested);
            s.push_str(&line_sep);
        }
        if n > 0 {
            let nested = recurse(&sub(n - 1), f, &next_hanging, next_width, sep, summarize, o);
            s.push_str(hanging);
            s.push_str(&nested);
        }
    }
    format!("[{}]", &s[hanging.len().min(s.len())..])
}

pub fn array2string<T: Printable>(
    a: &ArrayViewD<'_, T>,
    dtype: DType,
    sep: &str,
    prefix: &str,
    suffix: &str,
) -> String {
    formatted(a, sep, prefix, suffix, |data, zero_d, o| {
        build_fmt(data, dtype, zero_d, o)
    })
}

/// A complex number as the printing code reads it: real and imaginary parts.
#[derive(Clone, Copy, Debug)]
pub struct ComplexElem(pub f64, pub f64);

impl Printable for ComplexElem {
    fn as_f64(self) -> f64 {
        self.0
    }
    fn parts(self) -> (f64, f64) {
        (self.0, self.1)
    }
}

/// `array2string` of a complex array (`single`: complex64, whose parts are float32).
pub fn complex_array2string(
    a: &ArrayViewD<'_, ComplexElem>,
    single: bool,
    sep: &str,
    prefix: &str,
    suffix: &str,
) -> String {
    formatted(a, sep, prefix, suffix, |data, zero_d, o| {
        complex_fmt(data, single, zero_d, o)
    })
}

/// NumPy's `ComplexFloatingFormat`: the real parts formatted together, and the
/// imaginary parts together with a sign always written.
fn complex_fmt(data: &[ComplexElem], single: bool, zero_d: bool, o: &PrintOptions) -> Fmt {
    let dtype = if single {
        DType::Float32
    } else {
        DType::Float64
    };
    let re: Vec<f64> = data.iter().map(|c| c.0).collect();
    let im: Vec<f64> = data.iter().map(|c| c.1).collect();
    Fmt::Complex(
        Box::new(float_fmt(&re, dtype, zero_d, o, false)),
        Box::new(float_fmt(&im, dtype, zero_d, o, true)),
    )
}

/// `repr` of a complex array (NumPy's: `dtype=` for complex64 and empty arrays).
pub fn complex_repr(a: &ArrayViewD<'_, ComplexElem>, single: bool) -> String {
    let name = if single { "complex64" } else { "complex128" };
    let o = options();
    let mut extras: Vec<String> = Vec::new();
    if (a.is_empty() && a.shape() != [0]) || a.len() > o.threshold {
        extras.push(format!("shape={}", shape_tuple(a.shape())));
    }
    if single || a.is_empty() {
        extras.push(format!("dtype={name}"));
    }
    let text = |suffix: &str| complex_array2string(a, single, ", ", "array(", suffix);
    with_extras(a, extras, text, &o)
}

/// `str` of a complex array (0-d arrays print their scalar).
pub fn complex_str(a: &ArrayViewD<'_, ComplexElem>, single: bool) -> String {
    if a.is_empty() && a.ndim() > 0 {
        return "[".repeat(a.ndim()) + &"]".repeat(a.ndim());
    }
    complex_array2string(a, single, " ", "", "")
}

/// The text of `a` with `fmt` made from the shown elements.
fn formatted<T: Printable>(
    a: &ArrayViewD<'_, T>,
    sep: &str,
    prefix: &str,
    suffix: &str,
    fmt: impl Fn(&[T], bool, &PrintOptions) -> Fmt,
) -> String {
    let o = options();
    let summarize = a.len() > o.threshold;
    let mut data = Vec::new();
    leading_trailing(a, summarize, o.edgeitems, &mut data);
    let f = fmt(&data, a.ndim() == 0, &o);
    if a.ndim() == 0 {
        return fmt_elem(data[0], &f, &o);
    }
    let hanging = " ".repeat(prefix.len() + 1);
    let width = o.linewidth.saturating_sub(suffix.len());
    recurse(a, &f, &hanging, width, sep, summarize, &o)
}

/// `repr(a)` as NumPy 2.2+ prints it: `shape=` for empty (non-`(0,)`) and summarized
/// arrays, `dtype=` for dtypes not implied by the values (float32, empty arrays).
pub fn repr<T: Printable>(a: &ArrayViewD<'_, T>, dtype: DType) -> String {
    let mut extras: Vec<String> = Vec::new();
    let o = options();
    if (a.is_empty() && a.shape() != [0]) || a.len() > o.threshold {
        extras.push(format!("shape={}", shape_tuple(a.shape())));
    }
    if dtype == DType::Float32 || a.is_empty() {
        extras.push(format!("dtype={}", dtype.name()));
    }
    let text = |suffix: &str| array2string(a, dtype, ", ", "array(", suffix);
    with_extras(a, extras, text, &o)
}

/// `array(...)` around the text of `a` (`text(suffix)`), with `extras` (`shape=`,
/// `dtype=`) after it, on the next line when the last one is too long.
fn with_extras<T>(
    a: &ArrayViewD<'_, T>,
    extras: Vec<String>,
    text: impl Fn(&str) -> String,
    o: &PrintOptions,
) -> String {
    if extras.is_empty() {
        return format!("array({})", text(")"));
    }
    let body = if a.is_empty() {
        "[]".to_owned()
    } else {
        text(",")
    };
    let arr = format!("array({body},");
    let extra = format!("{})", extras.join(", "));
    let last = arr.len() - arr.rfind('\n').map_or(0, |i| i + 1);
    let spacer = if last + extra.len() + 1 > o.linewidth {
        "\n      "
    } else {
        " "
    };
    format!("{arr}{spacer}{extra}")
}

/// `str(a)`; for 0-d arrays the caller prints the scalar instead.
pub fn str<T: Printable>(a: &ArrayViewD<'_, T>, dtype: DType) -> String {
    if a.is_empty() && a.ndim() > 0 {
        let mut s = String::new();
        for _ in 0..a.ndim() {
            s.push('[');
        }
        for _ in 0..a.ndim() {
            s.push(']');
        }
        return s;
    }
    array2string(a, dtype, " ", "", "")
}

/// NumPy's text of a float32 scalar (`str`, and `repr` inside `np.float32(...)`): the
/// shortest digits that read back as the same float32, positional for 0 and from 1e-4
/// up to 1e6 (compared in double precision, as NumPy does), scientific with a signed
/// exponent of at least two digits otherwise.
pub fn float32_scalar(x: f32) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let a = x.abs() as f64;
    if a == 0.0 || (1e-4..1e6).contains(&a) {
        let s = format!("{x}");
        return if s.contains('.') { s } else { s + ".0" };
    }
    let s = format!("{x:e}");
    let (m, e) = s.split_once('e').expect("an exponent");
    let exp: i32 = e.parse().expect("a decimal exponent");
    format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}
