//! Convolution through FFTs (`fftconvolve`, `oaconvolve`) and the choice between it and the
//! direct method (`choose_conv_method`).

use xp_backend_api::{DType, Error, Result};

use super::{valid_swap, Method, Mode};
use crate::promote::Scalar;
use crate::{Array, SliceArg};

/// The smallest `m >= n` whose only prime factors are 2, 3 and 5 (SciPy's `next_fast_len` for
/// real transforms; every FFT library here is fast on such sizes).
pub(crate) fn next_fast_len(n: usize) -> usize {
    if n <= 6 {
        return n.max(1);
    }
    let mut best = n.next_power_of_two();
    let mut p5 = 1usize;
    while p5 < best {
        let mut p35 = p5;
        while p35 < best {
            // The smallest power of two times p35 that reaches n.
            let mut q = p35;
            while q < n {
                q *= 2;
            }
            best = best.min(q);
            p35 *= 3;
        }
        p5 *= 5;
    }
    best
}

/// The dtype an FFT convolution of `a` and `b` computes and returns in: float64 for integers
/// and booleans, float32 for float16/bfloat16, else NumPy's promotion.
fn fft_dtype(a: DType, b: DType) -> DType {
    match crate::promote::promote_types(a, b) {
        DType::F16 | DType::BF16 => DType::F32,
        d if d.is_float() || d.is_complex() => d,
        _ => DType::F64,
    }
}

/// `a[start_0:start_0+new_0, …]` with each start `(cur - new) / 2` (SciPy's `_centered`).
fn centered(a: &Array, new: &[usize]) -> Result<Array> {
    let sl: Vec<SliceArg> = a
        .shape()
        .iter()
        .zip(new)
        .map(|(&cur, &n)| {
            let s = (cur - n.min(cur)) / 2;
            SliceArg::range(s as isize, (s + n) as isize, 1)
        })
        .collect();
    a.slice(&sl)
}

/// Inputs checked and prepared for an FFT convolution: cast to the FFT dtype, swapped for
/// `'valid'` where SciPy swaps, and the axes that convolve (broadcast axes removed).
enum Prepared {
    /// The result needs no transform (0-d or empty inputs, or no axis left to convolve).
    Done(Array),
    /// Convolve `x1` with `x2` over `axes`; `s1`, `s2` their shapes.
    Conv { x1: Array, x2: Array, axes: Vec<usize> },
}

/// SciPy's checks of `fftconvolve` and `_init_freq_conv_axes`.
fn prepare(op: &str, in1: &Array, in2: &Array, mode: Mode, axes: Option<&[isize]>) -> Result<Prepared> {
    let dev = crate::ufunc::common_device(op, &[in1, in2])?;
    if in1.ndim() == 0 && in2.ndim() == 0 {
        return Ok(Prepared::Done(in1.mul(in2)?));
    }
    if in1.ndim() != in2.ndim() {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: in1.shape().to_vec(),
            rhs: in2.shape().to_vec(),
            reason: "in1 and in2 should have the same dimensionality".into(),
        });
    }
    if in1.size() == 0 || in2.size() == 0 {
        return Ok(Prepared::Done(Array::empty_on(&dev, &[0], DType::F64)?));
    }
    let nd = in1.ndim();
    let mut ax: Vec<usize> = match axes {
        None => (0..nd).collect(),
        Some(list) => {
            let mut v = Vec::with_capacity(list.len());
            for &a in list {
                let k = if a < 0 { a + nd as isize } else { a };
                if k < 0 || k >= nd as isize {
                    return Err(Error::Axis {
                        op: op.into(),
                        reason: format!("axis {a} is out of bounds for array of dimension {nd}"),
                    });
                }
                if v.contains(&(k as usize)) {
                    return Err(Error::value(op, "all axes must be unique"));
                }
                v.push(k as usize);
            }
            v
        }
    };
    let (s1, s2) = (in1.shape(), in2.shape());
    for d in 0..nd {
        if !ax.contains(&d) && s1[d] != s2[d] && s1[d] != 1 && s2[d] != 1 {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: s1.to_vec(),
                rhs: s2.to_vec(),
                reason: format!("incompatible shapes for in1 and in2: {s1:?} and {s2:?}"),
            });
        }
    }
    // Axes where either input has extent 1 are a broadcast product, not a convolution.
    ax.retain(|&a| s1[a] != 1 && s2[a] != 1);
    let sub = |s: &[usize]| ax.iter().map(|&a| s[a]).collect::<Vec<_>>();
    let (in1, in2) = if valid_swap(op, mode, &sub(s1), &sub(s2))? { (in2, in1) } else { (in1, in2) };
    let dt = fft_dtype(in1.dtype(), in2.dtype());
    let (x1, x2) = (in1.astype(dt)?, in2.astype(dt)?);
    if ax.is_empty() {
        return Ok(Prepared::Done(x1.mul(&x2)?));
    }
    Ok(Prepared::Conv { x1, x2, axes: ax })
}

/// The full convolution of `x1` and `x2` over `ax` through FFTs of lengths `fshape` (one per
/// axis of `ax`, each at least the full length), cropped to the full shape.
fn full_by_fft(x1: &Array, x2: &Array, ax: &[usize], fshape: &[usize]) -> Result<Array> {
    let (s1, s2) = (x1.shape(), x2.shape());
    let shape: Vec<usize> =
        (0..x1.ndim()).map(|d| if ax.contains(&d) { s1[d] + s2[d] - 1 } else { s1[d].max(s2[d]) }).collect();
    let axes_i: Vec<isize> = ax.iter().map(|&a| a as isize).collect();
    let ret = if x1.dtype().is_complex() {
        let sp = crate::fft::fftn(x1, Some(fshape), Some(&axes_i), None)?.mul(&crate::fft::fftn(
            x2,
            Some(fshape),
            Some(&axes_i),
            None,
        )?)?;
        crate::fft::ifftn(&sp, Some(fshape), Some(&axes_i), None)?
    } else {
        let sp = crate::fft::rfftn(x1, Some(fshape), Some(&axes_i), None)?.mul(&crate::fft::rfftn(
            x2,
            Some(fshape),
            Some(&axes_i),
            None,
        )?)?;
        crate::fft::irfftn(&sp, Some(fshape), Some(&axes_i), None)?
    };
    ret.slice(&shape.iter().map(|&n| SliceArg::range(0, n as isize, 1)).collect::<Vec<_>>())
}

/// SciPy's `_apply_conv_mode`: the part of the full result `ret` that `mode` keeps, contiguous
/// and of dtype `dt`.
fn apply_mode(ret: Array, s1: &[usize], s2: &[usize], ax: &[usize], mode: Mode, dt: DType) -> Result<Array> {
    let ret = match mode {
        Mode::Full => ret,
        Mode::Same => centered(&ret, s1)?,
        Mode::Valid => {
            let v: Vec<usize> =
                (0..ret.ndim()).map(|d| if ax.contains(&d) { s1[d] - s2[d] + 1 } else { ret.shape()[d] }).collect();
            centered(&ret, &v)?
        }
    };
    let ret = ret.ascontiguous()?;
    if ret.dtype() != dt {
        ret.astype(dt)
    } else {
        Ok(ret)
    }
}

/// SciPy's `fftconvolve(in1, in2, mode, axes)`: the convolution over `axes` (default every
/// axis) through FFTs of 5-smooth lengths, `rfftn`/`irfftn` for real inputs and
/// `fftn`/`ifftn` for complex ones. Along the other axes the inputs must have equal extents or
/// extent 1 (broadcast). An empty input gives an empty float64 array, as SciPy.
pub fn fftconvolve(in1: &Array, in2: &Array, mode: Mode, axes: Option<&[isize]>) -> Result<Array> {
    let (x1, x2, ax) = match prepare("fftconvolve", in1, in2, mode, axes)? {
        Prepared::Done(a) => return Ok(a),
        Prepared::Conv { x1, x2, axes } => (x1, x2, axes),
    };
    let (s1, s2) = (x1.shape().to_vec(), x2.shape().to_vec());
    let fshape: Vec<usize> = ax.iter().map(|&a| next_fast_len(s1[a] + s2[a] - 1)).collect();
    let ret = full_by_fft(&x1, &x2, &ax, &fshape)?;
    apply_mode(ret, &s1, &s2, &ax, mode, x1.dtype())
}

/// The FFT length of overlap-add blocks for a kernel of length `m` over a signal of length
/// `n`: the 5-smooth length `N >= 2m` that minimises the cost per output, `N ln N / (N - m +
/// 1)`; `None` when one transform over the whole length costs no more.
fn oa_block(n: usize, m: usize) -> Option<usize> {
    let whole = next_fast_len(n + m - 1);
    let cost = |len: usize| len as f64 * (len as f64).ln() / (len - m + 1) as f64;
    let mut best: Option<(usize, f64)> = None;
    let mut len = next_fast_len((2 * m).max(16));
    while len < whole {
        let c = cost(len);
        if best.is_none_or(|(_, b)| c < b) {
            best = Some((len, c));
        }
        len = next_fast_len(len + 1);
    }
    // Blocks pay off only when they cost clearly less than one transform of everything:
    // about n / (N - m + 1) transforms of N points against one of `whole`.
    let one = whole as f64 * (whole as f64).ln();
    best.filter(|&(_, c)| 1.2 * c * (n as f64) < one).map(|(l, _)| l)
}

/// SciPy's `oaconvolve(in1, in2, mode, axes)`: [`fftconvolve`]'s result by overlap-add.
///
/// Along the convolved axis where `in1` is longest relative to `in2`, when blocks pay, `in1`
/// is cut into `B` blocks of `L` samples, which become a new batch axis; one batched FFT
/// convolution of all blocks with `in2` gives `B` pieces of `N = L + m − 1` samples, whose
/// tails are added to the next block's head. `N` is the 5-smooth length `>= 2m` that minimises
/// `N ln N / (N − m + 1)` (the transform cost per output sample); blocks pay when `n` such
/// costs come to less than 1/1.2 of one transform of the whole length. The other axes
/// convolve whole. Without an axis where blocks pay, this is [`fftconvolve`].
pub fn oaconvolve(in1: &Array, in2: &Array, mode: Mode, axes: Option<&[isize]>) -> Result<Array> {
    let (x1, x2, ax) = match prepare("oaconvolve", in1, in2, mode, axes)? {
        Prepared::Done(a) => return Ok(a),
        Prepared::Conv { x1, x2, axes } => (x1, x2, axes),
    };
    let (s1, s2) = (x1.shape().to_vec(), x2.shape().to_vec());
    let dt = x1.dtype();
    // The axis where blocks save the most, and its block length.
    let pick = ax
        .iter()
        .filter_map(|&a| oa_block(s1[a], s2[a]).map(|len| (a, len)))
        .max_by(|p, q| (s1[p.0] as f64 / s2[p.0] as f64).total_cmp(&(s1[q.0] as f64 / s2[q.0] as f64)));
    let Some((a, nfft)) = pick else {
        let fshape: Vec<usize> = ax.iter().map(|&d| next_fast_len(s1[d] + s2[d] - 1)).collect();
        return apply_mode(full_by_fft(&x1, &x2, &ax, &fshape)?, &s1, &s2, &ax, mode, dt);
    };
    let (n, m) = (s1[a], s2[a]);
    let step = nfft - (m - 1);
    let blocks = n.div_ceil(step);
    let nd = x1.ndim();
    // in1 zero-padded to blocks·step along `a`, split into (blocks, step).
    let mut pad = vec![(0usize, 0usize); nd];
    pad[a] = (0, blocks * step - n);
    let xb = crate::routines::pad(&x1, &pad, crate::routines::PadMode::Constant(Scalar::Int(0)))?.ascontiguous()?;
    let mut bshape: Vec<isize> = s1.iter().map(|&v| v as isize).collect();
    bshape.splice(a..=a, [blocks as isize, step as isize]);
    let xb = xb.reshape(&bshape)?;
    let mut kshape: Vec<isize> = s2.iter().map(|&v| v as isize).collect();
    kshape.insert(a, 1);
    let kb = x2.ascontiguous()?.reshape(&kshape)?;
    // Each block's full convolution: the block axis is a broadcast axis, `a + 1` convolves in
    // N points, the other axes as fftconvolve's.
    let bax: Vec<usize> = ax.iter().map(|&d| if d < a { d } else { d + 1 }).collect();
    let fshape: Vec<usize> =
        bax.iter().map(|&d| if d == a + 1 { nfft } else { next_fast_len(xb.shape()[d] + kb.shape()[d] - 1) }).collect();
    let pieces = full_by_fft(&xb, &kb, &bax, &fshape)?;
    // Overlap-add: piece b's first `step` samples start block b, its last m − 1 samples add to
    // the head of block b + 1.
    let along = |start: usize, stop: usize| -> Vec<SliceArg> {
        (0..nd + 1)
            .map(|d| if d == a + 1 { SliceArg::range(start as isize, stop as isize, 1) } else { SliceArg::ALL })
            .collect()
    };
    let head = pieces.slice(&along(0, step))?;
    let mut pw = vec![(0usize, 0usize); nd + 1];
    pw[a] = (0, 1);
    let sum = crate::routines::pad(&head, &pw, crate::routines::PadMode::Constant(Scalar::Int(0)))?;
    let sum = if m > 1 {
        let tail = pieces.slice(&along(step, step + m - 1))?;
        let mut tw = vec![(0usize, 0usize); nd + 1];
        tw[a] = (1, 0);
        tw[a + 1] = (0, step - (m - 1));
        sum.add(&crate::routines::pad(&tail, &tw, crate::routines::PadMode::Constant(Scalar::Int(0)))?)?
    } else {
        sum
    };
    let mut merged: Vec<isize> = sum.shape().iter().map(|&v| v as isize).collect();
    merged.splice(a..=a + 1, [((blocks + 1) * step) as isize]);
    let full = sum.ascontiguous()?.reshape(&merged)?;
    let keep: Vec<SliceArg> =
        (0..nd).map(|d| SliceArg::range(0, if d == a { n + m - 1 } else { full.shape()[d] } as isize, 1)).collect();
    let full = full.slice(&keep)?;
    apply_mode(full, &s1, &s2, &ax, mode, dt)
}

/// SciPy's `choose_conv_method(in1, in2, mode)`: [`Method::Direct`] for integer or boolean
/// inputs (exact), otherwise SciPy's operation-count model: the FFT when
/// `c_fft · 3 N ln N < c_direct · direct_ops + offset`, `N` the full output's size,
/// `direct_ops` the multiply-adds of the direct sum, and SciPy's measured constants per mode
/// and rank.
pub fn choose_conv_method(in1: &Array, in2: &Array, mode: Mode) -> Result<Method> {
    let dt = crate::promote::promote_types(in1.dtype(), in2.dtype());
    if !(dt.is_float() || dt.is_complex()) {
        return Ok(Method::Direct);
    }
    if in1.ndim() != in2.ndim() || in1.ndim() == 0 || in1.size() == 0 || in2.size() == 0 {
        return Ok(Method::Direct);
    }
    let (x, h) = (in1.shape(), in2.shape());
    let prod = |s: &[usize]| s.iter().map(|&v| v as f64).product::<f64>();
    let out: Vec<usize> = match mode {
        Mode::Full => x.iter().zip(h).map(|(n, k)| n + k - 1).collect(),
        Mode::Valid => x.iter().zip(h).map(|(n, k)| n.abs_diff(*k) + 1).collect(),
        Mode::Same => x.to_vec(),
    };
    let direct_ops = if x.len() == 1 {
        let (s1, s2) = (x[0] as f64, h[0] as f64);
        match mode {
            Mode::Full => s1 * s2,
            Mode::Valid if s2 >= s1 => (s2 - s1 + 1.0) * s1,
            Mode::Valid => (s1 - s2 + 1.0) * s2,
            Mode::Same if s1 < s2 => s1 * s2,
            Mode::Same => s1 * s2 - (h[0] / 2) as f64 * h[0].div_ceil(2) as f64,
        }
    } else {
        match mode {
            Mode::Full | Mode::Valid => prod(x).min(prod(h)) * prod(&out),
            Mode::Same => prod(x) * prod(h),
        }
    };
    let n = x.iter().zip(h).map(|(a, b)| (a + b - 1) as f64).product::<f64>();
    let fft_ops = 3.0 * n * n.ln();
    let one_d = x.len() == 1;
    let offset = if one_d { -1e-3 } else { -1e-4 };
    let (c_fft, c_direct, c_off) = match (one_d, mode) {
        (true, Mode::Valid) => (1.89095737e-9, 2.1364985e-10, offset),
        (true, Mode::Full) => (1.7649070e-9, 2.1414831e-10, offset),
        (true, Mode::Same) if prod(h) <= prod(x) => (3.2646654e-9, 2.8478277e-10, offset),
        (true, Mode::Same) => (3.21635404e-9, 1.1773253e-8, -1e-5),
        (false, Mode::Valid) => (1.85927e-9, 2.11242e-8, offset),
        (false, Mode::Full) => (1.99817e-9, 1.66174e-8, offset),
        (false, Mode::Same) => (2.04735e-9, 1.55367e-8, offset),
    };
    Ok(if c_fft * fft_ops < c_direct * direct_ops + c_off { Method::Fft } else { Method::Direct })
}

#[cfg(test)]
mod tests {
    use super::{next_fast_len, oa_block};

    #[test]
    fn overlap_add_blocks_only_where_they_pay() {
        let n = oa_block(100_000, 20).expect("a short kernel over a long signal is blocked");
        assert!((40..4096).contains(&n), "{n}");
        assert_eq!(oa_block(100, 60), None);
        assert_eq!(oa_block(1000, 900), None);
    }

    #[test]
    fn fast_lengths_are_the_next_5_smooth_numbers() {
        let smooth = |mut n: usize| {
            for p in [2, 3, 5] {
                while n.is_multiple_of(p) {
                    n /= p;
                }
            }
            n == 1
        };
        for n in 1..2000 {
            let m = next_fast_len(n);
            assert!(m >= n && smooth(m), "{n} -> {m}");
            assert!((n..m).all(|k| !smooth(k)), "{n} -> {m} skips a smaller one");
        }
    }
}
