//! Native forms of `cdist` and `pdist` for the CPU device, whose buffers are host memory: the
//! prepared float64 points are read in place and the distances written into a host vector that
//! becomes the answer without a copy.
//!
//! # The loop
//! A register tile of [`TA`] rows of `XA` by [`TB`] rows of `XB` is measured at once: the `XB`
//! rows are packed feature-major in panels of `TB` (`panel[k · TB + j]`, zero rows padding the
//! last panel), so that for each feature `k` one load of `TB` consecutive values meets `TA`
//! broadcast `XA` values, and the `TA · TB` running sums stay in vector registers. Each pair's
//! sum still runs over its features in order, one term at a time — exactly the sequential
//! float64 loop SciPy runs (no `|a|² + |b|² − 2ab` product trick, no re-association), so the
//! tile changes where the work happens, not the answer's bits. The panels of `XB` are visited in
//! groups that stay in the first-level cache while every tile row of a thread's share of `XA`
//! passes over them.
//!
//! The work is cut into blocks of whole tile rows (of about equal pair counts for `pdist`'s
//! triangle), several per host thread, dealt out round-robin, each block writing its own rows
//! of the answer. The inner loop is compiled twice, for AVX2 and for the baseline instruction
//! set, the choice made at run time (the arithmetic is the same: no fused multiply–add, so the
//! two give equal bits).
//!
//! Metrics: `euclidean`, `sqeuclidean`, `cityblock`, `chebyshev`, `minkowski`, `seuclidean`,
//! `cosine`, `correlation`, `hamming` (of float points), `canberra` and `braycurtis`. The
//! others (`mahalanobis`, `jensenshannon`, the boolean metrics) keep the device kernels.

/// `XA` rows per register tile.
const TA: usize = 4;
/// `XB` rows per register tile (one panel).
const TB: usize = 8;

/// A metric's per-coordinate step and its final combination. The step adds one coordinate's
/// term into the running sums `s` (and `t` for the metrics with two sums).
pub(crate) trait PairOp: Sync {
    /// Whether the second sum `t` is used.
    const TWO: bool = false;
    /// The running sums' start.
    const INIT: f64 = 0.0;
    /// One coordinate: `a` of the `XA` row, `b` of the `XB` row, `w` the coordinate's weight.
    fn step(s: f64, t: f64, a: f64, b: f64, w: f64) -> (f64, f64);
    /// The distance from the sums and the two rows' per-row values.
    fn fin(&self, s: f64, t: f64, ea: f64, eb: f64) -> f64;
}

/// `sum (a − b)²`, with the square root when `self.0`.
pub(crate) struct SqDiff(pub bool);
impl PairOp for SqDiff {
    #[inline(always)]
    fn step(s: f64, _: f64, a: f64, b: f64, _: f64) -> (f64, f64) {
        let d = a - b;
        (s + d * d, 0.0)
    }
    #[inline(always)]
    fn fin(&self, s: f64, _: f64, _: f64, _: f64) -> f64 {
        if self.0 {
            s.sqrt()
        } else {
            s
        }
    }
}

/// `sqrt(sum (a − b)² / w)` (`seuclidean`, `w` the variances).
pub(crate) struct SqDiffWeighted;
impl PairOp for SqDiffWeighted {
    #[inline(always)]
    fn step(s: f64, _: f64, a: f64, b: f64, w: f64) -> (f64, f64) {
        let d = a - b;
        (s + d * d / w, 0.0)
    }
    #[inline(always)]
    fn fin(&self, s: f64, _: f64, _: f64, _: f64) -> f64 {
        s.sqrt()
    }
}

/// `sum |a − b|`.
pub(crate) struct AbsDiff;
impl PairOp for AbsDiff {
    #[inline(always)]
    fn step(s: f64, _: f64, a: f64, b: f64, _: f64) -> (f64, f64) {
        (s + (a - b).abs(), 0.0)
    }
    #[inline(always)]
    fn fin(&self, s: f64, _: f64, _: f64, _: f64) -> f64 {
        s
    }
}

/// `max |a − b|` (a NaN coordinate gives NaN, as the reduction's `max`).
pub(crate) struct MaxAbsDiff;
impl PairOp for MaxAbsDiff {
    const INIT: f64 = f64::NEG_INFINITY;
    #[inline(always)]
    fn step(s: f64, _: f64, a: f64, b: f64, _: f64) -> (f64, f64) {
        let d = (a - b).abs();
        // `s` stays NaN once NaN; a NaN `d` fails `s >= d` and is taken.
        (if s >= d || s.is_nan() { s } else { d }, 0.0)
    }
    #[inline(always)]
    fn fin(&self, s: f64, _: f64, _: f64, _: f64) -> f64 {
        s
    }
}

/// `(sum |a − b|^p)^(1/p)`.
pub(crate) struct PowDiff(pub f64);
impl PairOp for PowDiff {
    #[inline(always)]
    fn step(s: f64, _: f64, a: f64, b: f64, p: f64) -> (f64, f64) {
        (s + (a - b).abs().powf(p), 0.0)
    }
    #[inline(always)]
    fn fin(&self, s: f64, _: f64, _: f64, _: f64) -> f64 {
        s.powf(1.0 / self.0)
    }
}

/// `1 − clip(sum a b / (|a| |b|), −1, 1)` (`cosine`, and `correlation` of centred rows), the
/// norms the per-row values.
pub(crate) struct Cos;
impl PairOp for Cos {
    #[inline(always)]
    fn step(s: f64, _: f64, a: f64, b: f64, _: f64) -> (f64, f64) {
        (s + a * b, 0.0)
    }
    #[inline(always)]
    fn fin(&self, s: f64, _: f64, ea: f64, eb: f64) -> f64 {
        let c = s / (ea * eb);
        // NumPy's clip: NaN stays NaN.
        let c = c.clamp(-1.0, 1.0);
        1.0 - c
    }
}

/// The fraction of coordinates that differ (`w` is `1 / d`, applied at the end).
pub(crate) struct Hamming(pub f64);
impl PairOp for Hamming {
    #[inline(always)]
    fn step(s: f64, _: f64, a: f64, b: f64, _: f64) -> (f64, f64) {
        (s + if a != b { 1.0 } else { 0.0 }, 0.0)
    }
    #[inline(always)]
    fn fin(&self, s: f64, _: f64, _: f64, _: f64) -> f64 {
        s / self.0
    }
}

/// `sum |a − b| / (|a| + |b|)`, coordinates where both are 0 left out.
pub(crate) struct Canberra;
impl PairOp for Canberra {
    #[inline(always)]
    fn step(s: f64, _: f64, a: f64, b: f64, _: f64) -> (f64, f64) {
        let den = a.abs() + b.abs();
        let t = (a - b).abs() / den;
        (s + if den == 0.0 { 0.0 } else { t }, 0.0)
    }
    #[inline(always)]
    fn fin(&self, s: f64, _: f64, _: f64, _: f64) -> f64 {
        s
    }
}

/// `sum |a − b| / sum |a + b|`.
pub(crate) struct BrayCurtis;
impl PairOp for BrayCurtis {
    const TWO: bool = true;
    #[inline(always)]
    fn step(s: f64, t: f64, a: f64, b: f64, _: f64) -> (f64, f64) {
        (s + (a - b).abs(), t + (a + b).abs())
    }
    #[inline(always)]
    fn fin(&self, s: f64, t: f64, _: f64, _: f64) -> f64 {
        s / t
    }
}

/// The points of one side: `rows × d` float64, row-major, and a per-row value where the metric
/// has one.
#[derive(Clone, Copy)]
pub(crate) struct Points<'a> {
    pub x: &'a [f64],
    pub rows: usize,
    pub extra: Option<&'a [f64]>,
}

/// `XB`'s rows packed feature-major in panels of [`TB`], zero rows padding the last.
fn pack(b: &[f64], rows: usize, d: usize) -> Vec<f64> {
    let np = rows.div_ceil(TB);
    let mut out = vec![0.0; np * d * TB];
    for (r, row) in b.chunks_exact(d).enumerate().take(rows) {
        let (p, j) = (r / TB, r % TB);
        let panel = &mut out[p * d * TB..(p + 1) * d * TB];
        for (k, &v) in row.iter().enumerate() {
            panel[k * TB + j] = v;
        }
    }
    out
}

/// One register tile: the sums of `XA` rows `a[i]` (each `d` values; missing rows repeat the
/// first) against the panel `panel` (`d · TB` values), into `s` and `t`.
#[inline(always)]
fn tile<O: PairOp>(a: [&[f64]; TA], panel: &[f64], w: &[f64], d: usize) -> ([[f64; TB]; TA], [[f64; TB]; TA]) {
    let mut s = [[O::INIT; TB]; TA];
    let mut t = [[0.0; TB]; TA];
    let panel = &panel[..d * TB];
    let a = a.map(|r| &r[..d]);
    let w = &w[..d];
    for k in 0..d {
        let bv: &[f64; TB] = panel[k * TB..k * TB + TB].try_into().expect("a panel row");
        let wk = w[k];
        for i in 0..TA {
            let av = a[i][k];
            for j in 0..TB {
                let (ns, nt) = O::step(s[i][j], t[i][j], av, bv[j], wk);
                s[i][j] = ns;
                if O::TWO {
                    t[i][j] = nt;
                }
            }
        }
    }
    (s, t)
}

/// What one block of work measures: `XA` rows `r0..r1` against the `XB` panels from
/// `first_panel(i0)` on, where `i0` is the first row of a tile; `keep(i, j)` says which pairs
/// are answers and `at(i, j)` where they go in the block's output.
struct Job<'a> {
    a: Points<'a>,
    b: Points<'a>,
    packed: &'a [f64],
    w: &'a [f64],
    d: usize,
    /// `pdist`: only `j > i`, condensed.
    triangle: bool,
}

/// Panels visited together (a group stays in the first-level cache: `GROUP · TB · d · 8`
/// bytes, 16 KiB at `d = 64`).
fn panel_group(d: usize) -> usize {
    ((16 << 10) / (TB * d.max(1) * 8)).max(1)
}

/// The condensed index of the pair `i < j` of `m` points.
fn condensed(i: usize, j: usize, m: usize) -> usize {
    i * (2 * m - i - 1) / 2 + (j - i - 1)
}

#[inline(always)]
fn run_block<O: PairOp>(op: &O, job: &Job<'_>, r0: usize, r1: usize, out: &mut [f64], base: usize) {
    let d = job.d;
    let nb = job.b.rows;
    let np = nb.div_ceil(TB);
    let group = panel_group(d);
    let m = job.a.rows;
    let first = |i0: usize| if job.triangle { (i0 + 1) / TB } else { 0 };
    let mut g0 = first(r0);
    while g0 < np {
        let g1 = (g0 + group).min(np);
        let mut i0 = r0;
        while i0 < r1 {
            let i1 = (i0 + TA).min(r1);
            let rows: [&[f64]; TA] = std::array::from_fn(|q| {
                let i = if i0 + q < i1 { i0 + q } else { i0 };
                &job.a.x[i * d..(i + 1) * d]
            });
            for p in g0.max(first(i0))..g1 {
                let (s, t) = tile::<O>(rows, &job.packed[p * d * TB..(p + 1) * d * TB], job.w, d);
                for (q, i) in (i0..i1).enumerate() {
                    let ea = job.a.extra.map_or(0.0, |e| e[i]);
                    for jj in 0..TB {
                        let j = p * TB + jj;
                        if j >= nb || (job.triangle && j <= i) {
                            continue;
                        }
                        let eb = job.b.extra.map_or(0.0, |e| e[j]);
                        let v = op.fin(s[q][jj], t[q][jj], ea, eb);
                        let at = if job.triangle { condensed(i, j, m) } else { i * nb + j };
                        out[at - base] = v;
                    }
                }
            }
            i0 = i1;
        }
        g0 = g1;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn run_block_avx2<O: PairOp>(op: &O, job: &Job<'_>, r0: usize, r1: usize, out: &mut [f64], base: usize) {
    run_block(op, job, r0, r1, out, base)
}

fn run_block_any<O: PairOp>(op: &O, job: &Job<'_>, r0: usize, r1: usize, out: &mut [f64], base: usize) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (checked just above).
        unsafe { run_block_avx2(op, job, r0, r1, out, base) };
        return;
    }
    run_block(op, job, r0, r1, out, base)
}

/// Host threads for `pairs` pairs of `d` coordinates (one for small problems).
fn threads_for(pairs: usize, d: usize) -> usize {
    if pairs.saturating_mul(d.max(1)) < 1 << 18 {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |t| t.get()).clamp(1, 16)
}

/// A block of work: its rows, its output's start and its output.
type Piece<'a> = (usize, usize, usize, &'a mut [f64]);

/// Runs the blocks `bounds` (row ranges, tile-aligned, with their outputs' starts `starts`)
/// on `threads` host threads, round-robin.
fn run_all<O: PairOp>(
    op: &O,
    job: &Job<'_>,
    bounds: &[(usize, usize)],
    starts: &[usize],
    out: &mut [f64],
    threads: usize,
) {
    // Cut `out` into the blocks' pieces.
    let mut pieces: Vec<Piece<'_>> = Vec::with_capacity(bounds.len());
    let mut rest = out;
    for (q, &(r0, r1)) in bounds.iter().enumerate() {
        let end = starts.get(q + 1).copied().unwrap_or(starts[q] + rest.len());
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(end - starts[q]);
        pieces.push((r0, r1, starts[q], head));
        rest = tail;
    }
    if threads <= 1 {
        for (r0, r1, base, piece) in pieces {
            run_block_any(op, job, r0, r1, piece, base);
        }
        return;
    }
    let mut shares: Vec<Vec<Piece<'_>>> = (0..threads).map(|_| Vec::new()).collect();
    for (q, piece) in pieces.into_iter().enumerate() {
        shares[q % threads].push(piece);
    }
    std::thread::scope(|sc| {
        for share in shares {
            sc.spawn(move || {
                for (r0, r1, base, piece) in share {
                    run_block_any(op, job, r0, r1, piece, base);
                }
            });
        }
    });
}

/// The `(a.rows, b.rows)` distances, row-major. `w` holds a weight per coordinate (the
/// variances of `seuclidean`, `p` repeated for `minkowski`; ones otherwise).
pub(crate) fn cdist<O: PairOp>(op: &O, a: Points<'_>, b: Points<'_>, d: usize, w: &[f64]) -> Vec<f64> {
    let (ma, mb) = (a.rows, b.rows);
    let mut out = vec![0.0; ma * mb];
    if ma == 0 || mb == 0 {
        return out;
    }
    let packed = pack(b.x, mb, d);
    let job = Job { a, b, packed: &packed, w, d, triangle: false };
    let threads = threads_for(ma * mb, d);
    // About four blocks per thread, whole tiles each.
    let per = ma.div_ceil(4 * threads).div_ceil(TA) * TA;
    let bounds: Vec<(usize, usize)> = (0..ma).step_by(per).map(|r0| (r0, (r0 + per).min(ma))).collect();
    let starts: Vec<usize> = bounds.iter().map(|&(r0, _)| r0 * mb).collect();
    run_all(op, &job, &bounds, &starts, &mut out, threads);
    out
}

/// The condensed distances of the pairs `i < j` of `a`'s rows (see [`cdist`] for `w`).
pub(crate) fn pdist<O: PairOp>(op: &O, a: Points<'_>, d: usize, w: &[f64]) -> Vec<f64> {
    let m = a.rows;
    let total = m * m.saturating_sub(1) / 2;
    let mut out = vec![0.0; total];
    if total == 0 {
        return out;
    }
    let packed = pack(a.x, m, d);
    let job = Job { a, b: a, packed: &packed, w, d, triangle: true };
    let threads = threads_for(total, d);
    // Blocks of whole tiles holding about equal numbers of pairs, four per thread.
    let target = total.div_ceil(4 * threads).max(1);
    let mut bounds = Vec::new();
    let mut r0 = 0;
    while r0 < m - 1 {
        let mut r1 = r0;
        let mut pairs = 0;
        while r1 < m - 1 && pairs < target {
            let t1 = (r1 + TA).min(m - 1);
            pairs += (r1..t1).map(|i| m - 1 - i).sum::<usize>();
            r1 = t1;
        }
        bounds.push((r0, r1));
        r0 = r1;
    }
    let starts: Vec<usize> = bounds.iter().map(|&(r0, _)| condensed(r0, r0 + 1, m)).collect();
    run_all(op, &job, &bounds, &starts, &mut out, threads);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[f64], b: &[f64], ma: usize, mb: usize, d: usize) -> Vec<f64> {
        let mut out = Vec::new();
        for i in 0..ma {
            for j in 0..mb {
                let mut s = 0.0;
                for k in 0..d {
                    let t = a[i * d + k] - b[j * d + k];
                    s += t * t;
                }
                out.push(s.sqrt());
            }
        }
        out
    }

    #[test]
    fn tiles_equal_the_sequential_loop_bit_for_bit() {
        let (ma, mb, d) = (13, 19, 7);
        let a: Vec<f64> = (0..ma * d).map(|v| ((v * 37 % 101) as f64).sin()).collect();
        let b: Vec<f64> = (0..mb * d).map(|v| ((v * 53 % 97) as f64).cos()).collect();
        let w = vec![1.0; d];
        let pa = Points { x: &a, rows: ma, extra: None };
        let pb = Points { x: &b, rows: mb, extra: None };
        assert_eq!(cdist(&SqDiff(true), pa, pb, d, &w), naive(&a, &b, ma, mb, d));
        let full = naive(&a, &a, ma, ma, d);
        let want: Vec<f64> =
            (0..ma).flat_map(|i| ((i + 1)..ma).map(move |j| (i, j))).map(|(i, j)| full[i * ma + j]).collect();
        assert_eq!(pdist(&SqDiff(true), pa, d, &w), want);
    }

    #[test]
    fn condensed_index_is_row_major_over_the_upper_triangle() {
        let m = 6;
        let mut k = 0;
        for i in 0..m {
            for j in i + 1..m {
                assert_eq!(condensed(i, j, m), k);
                k += 1;
            }
        }
    }
}
