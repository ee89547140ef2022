//! Native forms of the IIR recursions (`lfilter`'s direct form II transposed and `sosfilt`'s
//! cascaded sections) for the CPU device, whose buffers are host memory.
//!
//! The arithmetic is the device kernels', operation for operation and in the data's dtype
//! (`y = b0 x + z0`, `z_j = (z_{j+1} + b_{j+1} x) − a_{j+1} y`, `z_{K−1} = b_K x − a_K y`; per
//! section `y = b0 x + z0`, `z0 = (b1 x − a1 y) + z1`, `z1 = b2 x − a2 y`, SciPy's order); what
//! changes is how the work meets the processor:
//! - **Lanes.** Lines are taken [`LANES`] at a time: a block of samples of each is copied into
//!   a sample-major buffer (`buf[t][lane]`), so that one step of the recursion is the same
//!   arithmetic on every lane — the compiler turns it into vector instructions — and the lanes'
//!   independent chains hide each other's latency. Fewer than [`LANES`] lines run one lane.
//! - **Registers.** For real data and orders 1 to 16 the order is a compile-time constant, so
//!   the state of every lane lives in registers across the block, not in memory.
//! - **Sections in one pass.** `sosfilt` takes each sample through up to four sections before
//!   the next sample (their chains overlap in the processor), and a block through each group
//!   of four sections while it is in cache.
//! - **Threads.** Groups of lanes are dealt to host threads round-robin (one thread for small
//!   problems), each group writing its own lines.

use std::ops::{Add, Mul, Sub};

use num_complex::Complex;

use crate::Element;

/// Lines filtered together, one per vector lane.
pub(crate) const LANES: usize = 4;
/// Samples per block of the sample-major buffer.
const BLOCK: usize = 512;
/// The highest order with the state in registers.
const MAX_FIXED: usize = 16;

/// The element types the recursions run in.
pub(crate) trait Num: Element + Default + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> {
    /// Whether the type is real (the fixed-order, many-lane forms apply).
    const REAL: bool;
}
impl Num for f32 {
    const REAL: bool = true;
}
impl Num for f64 {
    const REAL: bool = true;
}
impl Num for Complex<f32> {
    const REAL: bool = false;
}
impl Num for Complex<f64> {
    const REAL: bool = false;
}

/// Host threads for `work` samples (one below 2^16).
fn threads_for(work: usize) -> usize {
    if work < 1 << 16 {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |t| t.get()).clamp(1, 16)
}

/// A group of lines: its number, its outputs and its states.
type Group<'a, T> = (usize, &'a mut [T], &'a mut [T]);

/// Runs `f(group, y, z)` over the groups of `lanes` lines: `y` the group's `lanes · n` outputs,
/// `z` its `lanes · zlen` states, on host threads.
fn for_groups<T: Num>(
    lines: usize,
    n: usize,
    zlen: usize,
    lanes: usize,
    y: &mut [T],
    z: &mut [T],
    f: impl Fn(usize, &mut [T], &mut [T]) + Sync,
) {
    let groups = lines.div_ceil(lanes);
    let threads = threads_for(lines * n).min(groups);
    let ys = y.chunks_mut((lanes * n).max(1));
    let zs = z.chunks_mut((lanes * zlen).max(1));
    let mut work: Vec<Group<'_, T>> = Vec::with_capacity(groups);
    let mut zs = zs.chain(std::iter::repeat_with(|| &mut [][..]));
    for (g, yg) in ys.enumerate().take(groups) {
        let zg = if zlen == 0 { &mut [][..] } else { zs.next().unwrap_or(&mut []) };
        work.push((g, yg, zg));
    }
    if threads <= 1 {
        for (g, yg, zg) in work {
            f(g, yg, zg);
        }
        return;
    }
    let mut shares: Vec<Vec<Group<'_, T>>> = (0..threads).map(|_| Vec::new()).collect();
    for (q, w) in work.into_iter().enumerate() {
        shares[q % threads].push(w);
    }
    let f = &f;
    std::thread::scope(|sc| {
        for share in shares {
            sc.spawn(move || {
                for (g, yg, zg) in share {
                    f(g, yg, zg);
                }
            });
        }
    });
}

/// The DF2T recursion of order `K` over a sample-major block `buf` (`[t][lane]`, in place:
/// input in, output out) with the lanes' states `z[j][lane]`.
// Not inlined: compiled alone, the block loop keeps the state in vector registers; inlined
// into the copying loops around it, it was vectorised across the state's rows instead.
#[inline(never)]
fn df2t_fixed<T: Num, const K: usize, const L: usize>(buf: &mut [[T; L]], b: &[T], a: &[T], z: &mut [[T; L]; K]) {
    let bb: [T; K] = std::array::from_fn(|j| b[j + 1]);
    let aa: [T; K] = std::array::from_fn(|j| a[j + 1]);
    let b0 = b[0];
    let mut st = *z;
    for v in buf.iter_mut() {
        let x = *v;
        let y: [T; L] = std::array::from_fn(|l| b0 * x[l] + st[0][l]);
        // The new state as a fresh value (not updated row by row), so that it stays in
        // registers: `(z_{j+1} + b_{j+1} x) − a_{j+1} y`, the last row without `z`.
        st = std::array::from_fn(|j| {
            std::array::from_fn(|l| {
                let t = bb[j] * x[l];
                let t = if j + 1 < K { st[j + 1][l] + t } else { t };
                t - aa[j] * y[l]
            })
        });
        *v = y;
    }
    *z = st;
}

/// The DF2T recursion of any order over one line (`z` of length `k`), in place.
fn df2t_any<T: Num>(line: &mut [T], b: &[T], a: &[T], z: &mut [T]) {
    let k = z.len();
    for v in line.iter_mut() {
        let x = *v;
        let mut y = b[0] * x;
        if k > 0 {
            y = y + z[0];
            for j in 0..k - 1 {
                z[j] = z[j + 1] + b[j + 1] * x - a[j + 1] * y;
            }
            z[k - 1] = b[k] * x - a[k] * y;
        }
        *v = y;
    }
}

/// One group of `L` lines (`lines` of them real, the rest padding) through the order-`K`
/// recursion, block by block.
#[allow(clippy::too_many_arguments)]
fn group_fixed<T: Num, const K: usize, const L: usize>(
    x: &[T],
    n: usize,
    first: usize,
    lines: usize,
    b: &[T],
    a: &[T],
    y: &mut [T],
    z: &mut [T],
) {
    let mut st = [[T::default(); L]; K];
    for l in 0..lines {
        for j in 0..K {
            st[j][l] = z[l * K + j];
        }
    }
    let mut buf = vec![[T::default(); L]; BLOCK.min(n)];
    let mut t0 = 0;
    while t0 < n {
        let len = BLOCK.min(n - t0);
        for l in 0..lines {
            let src = &x[(first + l) * n + t0..(first + l) * n + t0 + len];
            for (t, &v) in src.iter().enumerate() {
                buf[t][l] = v;
            }
        }
        df2t_fixed::<T, K, L>(&mut buf[..len], b, a, &mut st);
        for l in 0..lines {
            let dst = &mut y[l * n + t0..l * n + t0 + len];
            for (t, v) in dst.iter_mut().enumerate() {
                *v = buf[t][l];
            }
        }
        t0 += len;
    }
    for l in 0..lines {
        for j in 0..K {
            z[l * K + j] = st[j][l];
        }
    }
}

/// Lanes for `lines` lines of a real type.
fn lanes_for<T: Num>(lines: usize) -> usize {
    if T::REAL && lines >= 3 {
        LANES
    } else {
        1
    }
}

/// `lfilter`'s DF2T recursion over the row-major `(lines, n)` data `x` with the normalised
/// coefficients `b`, `a` (length `k + 1`) from the `(lines, k)` states `z`, updated in place
/// to the final states. Returns the `(lines, n)` output.
pub(crate) fn lfilter<T: Num>(x: &[T], lines: usize, n: usize, b: &[T], a: &[T], z: &mut [T]) -> Vec<T> {
    let k = b.len() - 1;
    let mut y = vec![T::default(); lines * n];
    if lines == 0 || n == 0 {
        return y;
    }
    if k == 0 || k > MAX_FIXED || !T::REAL {
        for_groups(lines, n, k, 1, &mut y, z, |g, yg, zg| {
            yg.copy_from_slice(&x[g * n..(g + 1) * n]);
            df2t_any(yg, b, a, zg);
        });
        return y;
    }
    let lanes = lanes_for::<T>(lines);
    macro_rules! fixed {
        ($($k:literal)*) => {
            match (k, lanes) {
                $(($k, LANES) => for_groups(lines, n, k, LANES, &mut y, z, |g, yg, zg| {
                    let first = g * LANES;
                    group_fixed::<T, $k, LANES>(x, n, first, (lines - first).min(LANES), b, a, yg, zg)
                }),
                ($k, _) => for_groups(lines, n, k, 1, &mut y, z, |g, yg, zg| {
                    group_fixed::<T, $k, 1>(x, n, g, 1, b, a, yg, zg)
                }),)*
                _ => unreachable!("orders 1 to {MAX_FIXED} are listed"),
            }
        };
    }
    fixed!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
    y
}

/// Up to `S` sections over a sample-major block, each sample through all of them in turn.
#[inline(always)]
fn sections_fixed<T: Num, const S: usize, const L: usize>(buf: &mut [[T; L]], s: &[[T; 6]], z: &mut [[[T; L]; 2]]) {
    let c: [[T; 6]; S] = std::array::from_fn(|q| s[q]);
    let mut st: [[[T; L]; 2]; S] = std::array::from_fn(|q| z[q]);
    for v in buf.iter_mut() {
        let mut x = *v;
        for q in 0..S {
            let [b0, b1, b2, _, a1, a2] = c[q];
            let y: [T; L] = std::array::from_fn(|l| b0 * x[l] + st[q][0][l]);
            for l in 0..L {
                st[q][0][l] = b1 * x[l] - a1 * y[l] + st[q][1][l];
                st[q][1][l] = b2 * x[l] - a2 * y[l];
            }
            x = y;
        }
        *v = x;
    }
    z[..S].copy_from_slice(&st);
}

/// A block through every section, four at a time.
fn sections<T: Num, const L: usize>(buf: &mut [[T; L]], s: &[[T; 6]], z: &mut [[[T; L]; 2]]) {
    let mut q = 0;
    while q < s.len() {
        let (sq, zq) = (&s[q..], &mut z[q..]);
        match s.len() - q {
            1 => sections_fixed::<T, 1, L>(buf, sq, zq),
            2 => sections_fixed::<T, 2, L>(buf, sq, zq),
            3 => sections_fixed::<T, 3, L>(buf, sq, zq),
            _ => sections_fixed::<T, 4, L>(buf, sq, zq),
        }
        q += 4;
    }
}

/// One group of `L` lines through the sections, block by block.
#[allow(clippy::too_many_arguments)]
fn sos_group<T: Num, const L: usize>(
    x: &[T],
    n: usize,
    first: usize,
    lines: usize,
    s: &[[T; 6]],
    y: &mut [T],
    z: &mut [T],
) {
    let ns = s.len();
    let mut st = vec![[[T::default(); L]; 2]; ns];
    for l in 0..lines {
        for q in 0..ns {
            for r in 0..2 {
                st[q][r][l] = z[(l * ns + q) * 2 + r];
            }
        }
    }
    let mut buf = vec![[T::default(); L]; BLOCK.min(n)];
    let mut t0 = 0;
    while t0 < n {
        let len = BLOCK.min(n - t0);
        for l in 0..lines {
            let src = &x[(first + l) * n + t0..(first + l) * n + t0 + len];
            for (t, &v) in src.iter().enumerate() {
                buf[t][l] = v;
            }
        }
        sections::<T, L>(&mut buf[..len], s, &mut st);
        for l in 0..lines {
            let dst = &mut y[l * n + t0..l * n + t0 + len];
            for (t, v) in dst.iter_mut().enumerate() {
                *v = buf[t][l];
            }
        }
        t0 += len;
    }
    for l in 0..lines {
        for q in 0..ns {
            for r in 0..2 {
                z[(l * ns + q) * 2 + r] = st[q][r][l];
            }
        }
    }
}

/// `sosfilt`'s cascade over the row-major `(lines, n)` data `x` with the `(ns, 6)` sections
/// `sos` (row-major) from the `(lines, ns, 2)` states `z`, updated in place to the final
/// states. Returns the `(lines, n)` output.
pub(crate) fn sosfilt<T: Num>(x: &[T], lines: usize, n: usize, sos: &[T], z: &mut [T]) -> Vec<T> {
    let s: Vec<[T; 6]> = sos.chunks_exact(6).map(|c| std::array::from_fn(|i| c[i])).collect();
    let ns = s.len();
    if ns == 0 {
        return x.to_vec();
    }
    let mut y = vec![T::default(); lines * n];
    if lines == 0 || n == 0 {
        return y;
    }
    let lanes = lanes_for::<T>(lines);
    if lanes == LANES {
        for_groups(lines, n, 2 * ns, LANES, &mut y, z, |g, yg, zg| {
            let first = g * LANES;
            sos_group::<T, LANES>(x, n, first, (lines - first).min(LANES), &s, yg, zg)
        });
    } else {
        for_groups(lines, n, 2 * ns, 1, &mut y, z, |g, yg, zg| sos_group::<T, 1>(x, n, g, 1, &s, yg, zg));
    }
    y
}
