//! Native forms of `label` and the binary erosion pass for the CPU device, whose buffers are
//! host memory: the image is read in place and the answer is a host vector handed to an array
//! without a copy. They compute exactly what the device kernels compute (the same labels in
//! the same order, the same pixels), with the work split into runs of whole lines, one run per
//! host thread, so that no per-pixel thread start-up is paid.
//!
//! # `label`
//! A two-pass union-find over provisional labels (Wu, Otoo and Suzuki, "Optimizing two-pass
//! connected-component labeling algorithms", Pattern Analysis and Applications 12, 2009), run
//! on strips of the first axis in parallel:
//! 1. each strip scans its pixels in C order; a foreground pixel takes the label of its earlier
//!    `structure` neighbours inside the strip, uniting their labels (the smaller label becomes
//!    the root), or a new label. Labels are numbered from the strip's first flat index, so a
//!    label is smaller than every label made after it in C order;
//! 2. the pixels of each strip's first hyper-plane are united with their neighbours in the
//!    strip before it (a pass over `strips − 1` planes);
//! 3. every root is numbered by its rank among the roots (a count per strip and a prefix sum),
//!    and every pixel takes the number of its label's root.
//!
//! A component's root is its smallest label, the label made at its first pixel in C order, so
//! the numbers follow the order of first appearance, as SciPy's.
//!
//! In 2-d with the cross or the full `3 × 3` element (and in 1-d) the same passes run over runs
//! of foreground pixels instead of pixels (He, Chao and Suzuki, "A Run-Based Two-Scan Labeling
//! Algorithm", IEEE TIP 17(5), 2008): each line's runs are found 64 pixels at a time from a
//! bit mask, a run takes one provisional label and is united with the runs of the line above
//! that touch it (overlap, or overlap after widening by one pixel for the full element), and
//! the answer is written run by run. Labels are made in C order of the runs' first pixels,
//! and a label's parent is never larger than it, so one pass in label order numbers them.
//!
//! # Binary erosion
//! One pass per line of the last axis: the line's answer starts true and is and-ed with the
//! source line of each structure offset, shifted by the offset along the last axis (the
//! outside, and whole source lines outside the image, counting as `border`).

use std::ops::Range;

/// The host threads to use for `n` elements (one below 2^16 elements).
fn threads_for(n: usize) -> usize {
    if n < 1 << 16 {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |t| t.get()).clamp(1, 16)
}

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// The coordinates (all axes but the last) of line `line`.
fn line_coords(line: usize, shape: &[usize], c: &mut [i64]) {
    let mut r = line;
    for d in (0..c.len()).rev() {
        c[d] = (r % shape[d]) as i64;
        r /= shape[d];
    }
}

/// Whether the line at `c` moved by `o` (all axes but the last) is inside the image, with the
/// first axis at least `lo0`.
fn line_inside(c: &[i64], o: &[i64], shape: &[usize], lo0: i64) -> bool {
    c.iter().zip(o).zip(shape).enumerate().all(|(d, ((&c, &o), &s))| {
        let q = c + o;
        q >= 0 && q < s as i64 && (d != 0 || q >= lo0)
    })
}

/// A neighbour: its flat offset and its step along the last axis.
#[derive(Clone, Copy)]
struct Nb {
    fo: i64,
    dx: i64,
}

/// The root of `x` (labels are stored minus `base`), halving the path on the way.
#[inline]
fn find(p: &mut [u32], base: u32, mut x: u32) -> u32 {
    loop {
        let q = p[(x - base) as usize];
        if q == x {
            return x;
        }
        let g = p[(q - base) as usize];
        p[(x - base) as usize] = g;
        x = g;
    }
}

/// Unite the sets of `a` and `b` under the smaller root; answers the root.
#[inline]
fn union(p: &mut [u32], base: u32, a: u32, b: u32) -> u32 {
    let ra = find(p, base, a);
    let rb = find(p, base, b);
    if ra < rb {
        p[(rb - base) as usize] = ra;
        ra
    } else {
        p[(ra - base) as usize] = rb;
        rb
    }
}

/// The root of `x` without changing the forest.
#[inline]
fn find_ro(p: &[u32], mut x: u32) -> u32 {
    while p[x as usize] != x {
        x = p[x as usize];
    }
    x
}

/// First pass over one strip: provisional labels into `out` (the strip's pixels, starting at
/// flat index `start`), the forest into `parent` (labels `start + 1 ..`). Answers the number of
/// labels made.
fn scan_strip(
    fg: &[bool],
    shape: &[usize],
    nbs: &[(Vec<i64>, Nb)],
    start: usize,
    out: &mut [i32],
    parent: &mut [u32],
) -> usize {
    let nd = shape.len();
    let last = shape[nd - 1];
    let lo0 = if nd > 1 { (start / strides(shape)[0]) as i64 } else { 0 };
    let base = start as u32 + 1;
    let mut next = base;
    let mut c = vec![0i64; nd - 1];
    let mut live: Vec<Nb> = Vec::with_capacity(nbs.len());
    let mut united = (0u32, 0u32);
    for l0 in (0..out.len()).step_by(last) {
        let gl = start + l0;
        line_coords(gl / last, shape, &mut c);
        live.clear();
        live.extend(nbs.iter().filter(|(o, _)| line_inside(&c, &o[..nd - 1], shape, lo0)).map(|(_, nb)| *nb));
        // The default 2-d element (the cross): the left and upper neighbours, without a branch
        // on the pixel (random images mispredict it half the time).
        let left = live.iter().any(|nb| nb.dx == -1 && nb.fo == -1);
        let up = live.iter().any(|nb| nb.dx == 0 && nb.fo == -(last as i64));
        if nd == 2 && live.len() == left as usize + up as usize {
            let lo = l0;
            for x in 0..last {
                let li = lo + x;
                let f = fg[gl + x];
                let l = if left && x > 0 { out[li - 1] as u32 } else { 0 };
                let u = if up { out[li - last] as u32 } else { 0 };
                if f && l != 0 && u != 0 && l != u && (l, u) != united {
                    union(parent, base, l, u);
                    united = (l, u);
                }
                let cand = l.max(u);
                let new = f && cand == 0;
                // `next - base` is at most the pixels seen so far: inside the strip's slots.
                parent[(next - base) as usize] = next;
                let lab = if new { next } else { cand };
                next += new as u32;
                out[li] = if f { lab as i32 } else { 0 };
            }
            continue;
        }
        for x in 0..last {
            let i = gl + x;
            if !fg[i] {
                continue;
            }
            let mut cur = 0u32;
            for nb in &live {
                let xs = x as i64 + nb.dx;
                if xs < 0 || xs >= last as i64 {
                    continue;
                }
                let j = (i as i64 + nb.fo) as usize;
                let lj = out[j - start];
                if lj == 0 {
                    continue;
                }
                let lj = lj as u32;
                if cur == 0 {
                    cur = lj;
                } else if lj != cur && (lj, cur) != united {
                    // A run along the last axis meets the same labels pixel after pixel: the
                    // pair just united is not united again.
                    let r = union(parent, base, cur, lj);
                    united = (lj, r);
                    cur = r;
                }
            }
            if cur == 0 {
                cur = next;
                parent[(next - base) as usize] = next;
                next += 1;
            }
            out[i - start] = cur as i32;
        }
    }
    (next - base) as usize
}

/// A run of foreground pixels `[s, e)` of one line with its provisional label.
#[derive(Clone, Copy, Default)]
struct Run {
    s: u32,
    e: u32,
    lab: u32,
}

/// The runs of foreground pixels of `line`, appended to `runs` (labels 0).
fn line_runs(line: &[bool], runs: &mut Vec<Run>) {
    let w = line.len();
    let mut open: Option<u32> = None;
    for (ci, chunk) in line.chunks(64).enumerate() {
        // The chunk's pixels as bits (bit k: pixel `64·ci + k`), eight at a time.
        let mut m = 0u64;
        let mut bytes = chunk.chunks_exact(8);
        for (k, b) in bytes.by_ref().enumerate() {
            let mut x = 0u64;
            for (j, &v) in b.iter().enumerate() {
                x |= (v as u64) << (8 * j);
            }
            m |= (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
        }
        let done = chunk.len() / 8 * 8;
        for (j, &v) in bytes.remainder().iter().enumerate() {
            m |= (v as u64) << (done + j);
        }
        let base = (ci * 64) as u32;
        let bits = chunk.len() as u32;
        let mut pos = 0u32;
        loop {
            if let Some(s) = open {
                // Inside a run: it ends at the next zero bit.
                let z = if pos >= 64 { 64 } else { (!m >> pos).trailing_zeros() + pos };
                if z >= bits {
                    break;
                }
                runs.push(Run { s, e: base + z, lab: 0 });
                open = None;
                pos = z;
            }
            let rest = if pos >= 64 { 0 } else { m >> pos };
            if rest == 0 {
                break;
            }
            pos += rest.trailing_zeros();
            open = Some(base + pos);
        }
    }
    if let Some(s) = open {
        runs.push(Run { s, e: w as u32, lab: 0 });
    }
}

/// Unite the runs of `cur` with the touching runs of `prev` (the line above; `k` is 1 when the
/// diagonal neighbours connect); a run touching none takes a new label from `next`.
fn join_lines(prev: &mut [Run], cur: &mut [Run], k: u32, p: &mut [u32], base: u32, next: &mut u32) {
    let mut j = 0;
    for r in cur.iter_mut() {
        while j < prev.len() && prev[j].e + k <= r.s {
            j += 1;
        }
        let mut root = 0u32;
        let mut jj = j;
        while jj < prev.len() && prev[jj].s < r.e + k {
            let b = find(p, base, prev[jj].lab);
            // The run above keeps its root: the next run under it finds it in one step.
            prev[jj].lab = b;
            if root == 0 {
                root = b;
            } else if b != root {
                if b < root {
                    p[(root - base) as usize] = b;
                    root = b;
                } else {
                    p[(b - base) as usize] = root;
                }
            }
            jj += 1;
        }
        if root == 0 {
            root = *next;
            p[(root - base) as usize] = root;
            *next += 1;
        }
        r.lab = root;
    }
}

/// A strip's runs, line by line: `runs[rows[y]..rows[y + 1]]` are the runs of its line `y`;
/// its labels are `base .. base + count`.
#[derive(Default)]
struct Strip {
    runs: Vec<Run>,
    rows: Vec<usize>,
    base: u32,
    count: u32,
}

/// `label` of the 2-d boolean image `fg` (`h` lines of `w` pixels, C order) whose earlier
/// neighbours are the left and upper pixels (`diag`: and the two upper diagonals), run by run
/// on `t` strips of lines.
fn label_runs_2d(fg: &[bool], h: usize, w: usize, diag: bool, t: usize) -> (Vec<i32>, usize) {
    let n = h * w;
    let k = diag as u32;
    let t = t.min(h).max(1);
    let bounds: Vec<usize> = (0..=t).map(|s| h * s / t).collect();
    // Labels of strip `s` are `bounds[s]·w/2 + 1 ..` (at most ⌈w/2⌉ runs a line).
    let per_line = w.div_ceil(2);
    let mut parent = vec![0u32; h * per_line + 1];
    let strips: Vec<Strip> = {
        let mut pars: Vec<&mut [u32]> = Vec::with_capacity(t);
        let mut rp = &mut parent[1..];
        for s in 0..t {
            let (a, b) = rp.split_at_mut((bounds[s + 1] - bounds[s]) * per_line);
            pars.push(a);
            rp = b;
        }
        let bounds = &bounds;
        std::thread::scope(|sc| {
            let hs: Vec<_> = pars
                .into_iter()
                .enumerate()
                .map(|(s, p)| {
                    sc.spawn(move || {
                        let base = (bounds[s] * per_line) as u32 + 1;
                        let mut next = base;
                        let mut runs = Vec::with_capacity((bounds[s + 1] - bounds[s]) * w / 4 + 64);
                        let mut rows = vec![0usize];
                        for y in bounds[s]..bounds[s + 1] {
                            let start = runs.len();
                            line_runs(&fg[y * w..(y + 1) * w], &mut runs);
                            let (before, cur) = runs.split_at_mut(start);
                            let from = if y == bounds[s] { before.len() } else { rows[rows.len() - 2] };
                            let prev = &mut before[from..];
                            join_lines(prev, cur, k, p, base, &mut next);
                            rows.push(runs.len());
                        }
                        Strip { runs, rows, base, count: next - base }
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap_or_default()).collect()
        })
    };
    // The first line of each strip against the last line of the strip before it.
    for s in 1..t {
        let (a, b) = (&strips[s - 1], &strips[s]);
        let nl = a.rows.len() - 1;
        let prev = &a.runs[a.rows[nl - 1]..a.rows[nl]];
        let cur = &b.runs[b.rows[0]..b.rows[1]];
        let mut j = 0;
        for r in cur {
            while j < prev.len() && prev[j].e + k <= r.s {
                j += 1;
            }
            let mut jj = j;
            while jj < prev.len() && prev[jj].s < r.e + k {
                let x = find(&mut parent, 0, r.lab);
                let y = find(&mut parent, 0, prev[jj].lab);
                if x < y {
                    parent[y as usize] = x;
                } else if y < x {
                    parent[x as usize] = y;
                }
                jj += 1;
            }
        }
    }
    // Number the roots in each strip in label order. A label's parent is never larger than it,
    // so one pass in label order takes each label's number from its parent's: a local rank, or
    // (`EXT` set) a label of an earlier strip, looked up once every strip is numbered.
    const EXT: u32 = 1 << 31;
    let parent = &parent;
    let local: Vec<(Vec<u32>, u32)> = std::thread::scope(|sc| {
        let hs: Vec<_> = strips
            .iter()
            .map(|st| {
                sc.spawn(move || {
                    let mut k = 0u32;
                    let mut v = vec![0u32; st.count as usize];
                    for l in st.base..st.base + st.count {
                        let q = parent[l as usize];
                        v[(l - st.base) as usize] = if q == l {
                            k += 1;
                            k
                        } else if q >= st.base {
                            v[(q - st.base) as usize]
                        } else {
                            q | EXT
                        };
                    }
                    (v, k)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let mut first = vec![0u32; t + 1];
    for s in 0..t {
        first[s + 1] = first[s] + local[s].1;
    }
    let total = first[t] as usize;
    let mut out = vec![0i32; n];
    {
        let mut outs: Vec<&mut [i32]> = Vec::with_capacity(t);
        let mut ro = &mut out[..];
        for s in 0..t {
            let (a, b) = ro.split_at_mut((bounds[s + 1] - bounds[s]) * w);
            outs.push(a);
            ro = b;
        }
        let (local, first, strips) = (&local, &first, &strips);
        std::thread::scope(|sc| {
            for (s, o) in outs.into_iter().enumerate() {
                sc.spawn(move || {
                    let st = &strips[s];
                    let fin: Vec<i32> = local[s]
                        .0
                        .iter()
                        .map(|&v| {
                            if v & EXT == 0 {
                                return (first[s] + v) as i32;
                            }
                            let r = find_ro(parent, v & !EXT);
                            // The root's strip: the last whose labels start at or below it.
                            let rs = strips.partition_point(|g| g.base <= r) - 1;
                            (first[rs] + local[rs].0[(r - strips[rs].base) as usize]) as i32
                        })
                        .collect();
                    for (y, line) in o.chunks_mut(w).enumerate() {
                        for r in &st.runs[st.rows[y]..st.rows[y + 1]] {
                            let v = fin[(r.lab - st.base) as usize];
                            for x in &mut line[r.s as usize..r.e as usize] {
                                *x = v;
                            }
                        }
                    }
                });
            }
        });
    }
    (out, total)
}

/// SciPy's `label` of the boolean image `fg` (C order, `shape` of rank ≥ 1, fewer than 2^31 − 1
/// pixels) with the neighbour offsets `offs` (`shape.len()` values per neighbour, the centre
/// left out): the int32 labels and their count.
pub(super) fn label(fg: &[bool], shape: &[usize], offs: &[i64]) -> (Vec<i32>, usize) {
    let nd = shape.len();
    let n = fg.len();
    let st = strides(shape);
    let last = shape[nd - 1];
    // The earlier neighbours (a smaller flat index), as the device kernel takes them.
    let nbs: Vec<(Vec<i64>, Nb)> = offs
        .chunks(nd)
        .map(|o| {
            let fo = o.iter().zip(&st).map(|(&o, &s)| o * s as i64).sum::<i64>();
            (o.to_vec(), Nb { fo, dx: o[nd - 1] })
        })
        .filter(|(_, nb)| nb.fo < 0)
        .collect();
    if n == 0 || last == 0 {
        return (vec![0i32; n], 0);
    }
    // The cross and the full 3 × 3 element in 2-d (and the 1-d pair): run by run.
    let mut earlier: Vec<&[i64]> = nbs.iter().map(|(o, _)| &o[..]).collect();
    earlier.sort();
    let runs = match (nd, &earlier[..]) {
        (1, [[-1]]) => Some((1, false)),
        (2, [[-1, 0], [0, -1]]) => Some((shape[0], false)),
        (2, [[-1, -1], [-1, 0], [-1, 1], [0, -1]]) => Some((shape[0], true)),
        _ => None,
    };
    if let Some((h, diag)) = runs {
        return label_runs_2d(fg, h, last, diag, threads_for(n));
    }
    let mut out = vec![0i32; n];
    let plane = if nd > 1 { st[0] } else { n };
    let rows = if nd > 1 { shape[0] } else { 1 };
    let t = threads_for(n).min(rows).max(1);
    let bounds: Vec<usize> = (0..=t).map(|s| rows * s / t * plane).collect();
    let mut parent = vec![0u32; n + 1];
    // Pass 1, strip by strip.
    let counts: Vec<usize> = {
        let mut outs: Vec<&mut [i32]> = Vec::with_capacity(t);
        let mut pars: Vec<&mut [u32]> = Vec::with_capacity(t);
        let (mut ro, mut rp) = (&mut out[..], &mut parent[1..]);
        for s in 0..t {
            let len = bounds[s + 1] - bounds[s];
            let (a, b) = ro.split_at_mut(len);
            let (pa, pb) = rp.split_at_mut(len);
            outs.push(a);
            pars.push(pa);
            ro = b;
            rp = pb;
        }
        let (nbs, bounds) = (&nbs, &bounds);
        std::thread::scope(|sc| {
            let hs: Vec<_> = outs
                .into_iter()
                .zip(pars)
                .enumerate()
                .map(|(s, (o, p))| sc.spawn(move || scan_strip(fg, shape, nbs, bounds[s], o, p)))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap_or(0)).collect()
        })
    };
    // Pass 2: the first plane of each strip against the strip before it.
    let mut c = vec![0i64; nd - 1];
    for &b0 in &bounds[1..t] {
        for l0 in (b0..b0 + plane).step_by(last) {
            line_coords(l0 / last, shape, &mut c);
            for (o, nb) in nbs.iter().filter(|(o, _)| o[0] < 0) {
                if !line_inside(&c, &o[..nd - 1], shape, 0) {
                    continue;
                }
                for x in 0..last {
                    let i = l0 + x;
                    let xs = x as i64 + nb.dx;
                    if !fg[i] || xs < 0 || xs >= last as i64 {
                        continue;
                    }
                    let j = (i as i64 + nb.fo) as usize;
                    if out[j] != 0 {
                        union(&mut parent, 0, out[i] as u32, out[j] as u32);
                    }
                }
            }
        }
    }
    // Pass 3: number the roots (per strip, then a prefix sum), then every pixel.
    let ranges: Vec<Range<usize>> = (0..t).map(|s| bounds[s] + 1..bounds[s] + 1 + counts[s]).collect();
    let parent = &parent;
    let ranks: Vec<(Vec<u32>, usize)> = std::thread::scope(|sc| {
        let hs: Vec<_> = ranges
            .iter()
            .map(|r| {
                let r = r.clone();
                sc.spawn(move || {
                    let mut k = 0u32;
                    let v: Vec<u32> = r
                        .map(|l| {
                            if parent[l] as usize == l {
                                k += 1;
                                k
                            } else {
                                0
                            }
                        })
                        .collect();
                    (v, k as usize)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let mut first = vec![0usize; t + 1];
    for s in 0..t {
        first[s + 1] = first[s] + ranks[s].1;
    }
    let total = first[t];
    {
        let mut outs: Vec<&mut [i32]> = Vec::with_capacity(t);
        let mut ro = &mut out[..];
        for s in 0..t {
            let (a, b) = ro.split_at_mut(bounds[s + 1] - bounds[s]);
            outs.push(a);
            ro = b;
        }
        let (ranks, ranges, first) = (&ranks, &ranges, &first);
        std::thread::scope(|sc| {
            for (s, o) in outs.into_iter().enumerate() {
                sc.spawn(move || {
                    let lo = ranges[s].start;
                    let fin: Vec<i32> = ranges[s]
                        .clone()
                        .map(|l| {
                            let r = find_ro(parent, l as u32) as usize;
                            // The root's strip: the last whose labels start at or below it.
                            let rs = ranges.partition_point(|g| g.start <= r) - 1;
                            (first[rs] + ranks[rs].0[r - ranges[rs].start] as usize) as i32
                        })
                        .collect();
                    // `fin[0]` is the background's 0, so the pass does not branch on the pixel.
                    let fin: Vec<i32> = std::iter::once(0).chain(fin).collect();
                    for v in o.iter_mut() {
                        let k = if *v == 0 { 0 } else { *v as usize + 1 - lo };
                        *v = fin[k];
                    }
                });
            }
        });
    }
    (out, total)
}

/// One binary erosion pass (with `invert`, the dilation whose offsets `offs` already are) of
/// the boolean image `x` (C order, rank ≥ 1), as the device kernel computes it.
pub(super) fn erosion_pass(
    x: &[bool],
    mask: Option<&[bool]>,
    shape: &[usize],
    offs: &[i64],
    border: bool,
    invert: bool,
) -> Vec<bool> {
    let nd = shape.len();
    let n = x.len();
    let mut out = vec![false; n];
    let last = shape[nd - 1];
    if n == 0 || last == 0 {
        return out;
    }
    let st = strides(shape);
    let nbs: Vec<(&[i64], i64, i64)> =
        offs.chunks(nd).map(|o| (o, o.iter().zip(&st).map(|(&o, &s)| o * s as i64).sum::<i64>(), o[nd - 1])).collect();
    let lines = n / last;
    let t = threads_for(n).min(lines).max(1);
    let per = lines.div_ceil(t);
    let outside = border ^ invert;
    let nbs = &nbs;
    std::thread::scope(|sc| {
        for (ci, chunk) in out.chunks_mut(per * last).enumerate() {
            sc.spawn(move || {
                let mut c = vec![0i64; nd - 1];
                for (li, res) in chunk.chunks_mut(last).enumerate() {
                    let line = ci * per + li;
                    let l0 = line * last;
                    line_coords(line, shape, &mut c);
                    res.fill(true);
                    for &(o, fo, dx) in nbs {
                        if !line_inside(&c, &o[..nd - 1], shape, 0) {
                            if !outside {
                                res.fill(false);
                            }
                            continue;
                        }
                        let s0 = (l0 as i64 + fo - dx) as usize;
                        let src = &x[s0..s0 + last];
                        // Output positions whose source `x + dx` lies in the line.
                        let a = (-dx).clamp(0, last as i64) as usize;
                        let b = (last as i64 - dx).clamp(0, last as i64) as usize;
                        if !outside {
                            if a >= b {
                                res.fill(false);
                                continue;
                            }
                            res[..a].fill(false);
                            res[b..].fill(false);
                        }
                        if a < b {
                            let sh = &src[(a as i64 + dx) as usize..(b as i64 + dx) as usize];
                            for (r, &v) in res[a..b].iter_mut().zip(sh) {
                                *r &= v ^ invert;
                            }
                        }
                    }
                    if invert {
                        for r in res.iter_mut() {
                            *r = !*r;
                        }
                    }
                    if let Some(m) = mask {
                        for (k, r) in res.iter_mut().enumerate() {
                            if !m[l0 + k] {
                                *r = x[l0 + k];
                            }
                        }
                    }
                }
            });
        }
    });
    out
}

// ---- spline interpolation ----------------------------------------------------------------------

/// The centred B-spline of `order` at `x`, as the device kernel evaluates it (the same
/// operations in the same order, so the same bits).
#[inline]
fn bspline(order: usize, x: f64) -> f64 {
    let x = x.abs();
    match order {
        1 => {
            if x < 1.0 {
                1.0 - x
            } else {
                0.0
            }
        }
        2 => {
            if x < 0.5 {
                0.75 - x * x
            } else if x < 1.5 {
                let t = 1.5 - x;
                0.5 * t * t
            } else {
                0.0
            }
        }
        3 => {
            if x < 1.0 {
                (4.0 - 6.0 * x * x + 3.0 * x * x * x) / 6.0
            } else if x < 2.0 {
                let t = 2.0 - x;
                t * t * t / 6.0
            } else {
                0.0
            }
        }
        4 => {
            let (a, b, c) = (2.5 - x, 1.5 - x, 0.5 - x);
            if x < 0.5 {
                (a * a * a * a - 5.0 * b * b * b * b + 10.0 * c * c * c * c) / 24.0
            } else if x < 1.5 {
                (a * a * a * a - 5.0 * b * b * b * b) / 24.0
            } else if x < 2.5 {
                a * a * a * a / 24.0
            } else {
                0.0
            }
        }
        _ => {
            let (a, b, c) = (3.0 - x, 2.0 - x, 1.0 - x);
            let (a5, b5, c5) = (a * a * a * a * a, b * b * b * b * b, c * c * c * c * c);
            if x < 1.0 {
                (a5 - 6.0 * b5 + 15.0 * c5) / 120.0
            } else if x < 2.0 {
                (a5 - 6.0 * b5) / 120.0
            } else if x < 3.0 {
                a5 / 120.0
            } else {
                0.0
            }
        }
    }
}

/// A coordinate mapped into an axis of `n` samples by `mode` (the kernels' codes); false when
/// the point takes `cval`.
#[inline]
fn map_coord(pc: &mut f64, n: i64, mode: i64) -> bool {
    let mut cc = *pc;
    let last = (n - 1) as f64;
    if cc < 0.0 || cc > last {
        if mode == 1 {
            return false;
        }
        if mode != 5 && mode != 2 {
            if n <= 1 {
                cc = 0.0;
            } else if mode == 3 {
                let p = 2.0 * last;
                if cc < 0.0 {
                    cc = p * (-cc / p).trunc() + cc;
                    cc = if cc <= -last { cc + p } else { -cc };
                } else {
                    cc -= p * (cc / p).trunc();
                    if cc >= n as f64 {
                        cc = p - cc;
                    }
                }
            } else if mode == 0 {
                let p = 2.0 * n as f64;
                if cc < 0.0 {
                    if cc < -p {
                        cc = p * (-cc / p).trunc() + cc;
                    }
                    cc = if cc < -(n as f64) { cc + p } else { -cc - 1.0 };
                } else {
                    cc -= p * (cc / p).trunc();
                    if cc >= n as f64 {
                        cc = p - cc - 1.0;
                    }
                }
            } else if mode == 4 {
                let p = last;
                if cc < 0.0 {
                    cc += p * ((-cc / p).trunc() + 1.0);
                } else {
                    cc -= p * (cc / p).trunc();
                }
            } else {
                let p = n as f64;
                if cc < 0.0 {
                    cc += p * (((-1.0 - cc) / p).trunc() + 1.0);
                } else {
                    cc -= p * (cc / p).trunc();
                }
            }
        }
    }
    *pc = cc;
    cc > -1.0 || mode == 5 || mode == 2
}

/// A sample index mapped into an axis of `n` samples; -1 for `cval`.
#[inline]
fn tap(mut i: i64, n: i64, mode: i64) -> i64 {
    if i >= 0 && i < n {
        return i;
    }
    if mode == 5 {
        return -1;
    }
    if mode == 2 {
        return if i < 0 { 0 } else { n - 1 };
    }
    if n <= 1 {
        return 0;
    }
    if mode == 0 {
        let p = 2 * n;
        if i < 0 {
            if i < -p {
                i += p * ((-i) / p);
            }
            i = if i < -n { i + p } else { -i - 1 };
        } else {
            i -= p * (i / p);
            if i >= n {
                i = p - i - 1;
            }
        }
        return i;
    }
    if mode == 6 {
        if i < 0 {
            i += n * ((-1 - i) / n + 1);
        } else {
            i -= n * (i / n);
        }
        return i;
    }
    let p = 2 * n - 2;
    if i < 0 {
        i += p * ((-i) / p);
        i = if i <= 1 - n { i + p } else { -i };
    } else {
        i -= p * (i / p);
        if i >= n {
            i = p - i;
        }
    }
    i
}

/// One axis of one point: whether it is inside, and its samples (flat offsets along the axis,
/// -1 for `cval`) and weights.
#[derive(Clone, Copy)]
struct AxisTaps {
    inside: bool,
    taps: [i64; 6],
    w: [f64; 6],
}

#[inline]
fn axis_taps(mut cc: f64, len: i64, od: usize, mode: i64, stride: i64) -> AxisTaps {
    let mut a = AxisTaps { inside: true, taps: [0; 6], w: [0.0; 6] };
    if !map_coord(&mut cc, len, mode) {
        a.inside = false;
        return a;
    }
    let h = (od / 2) as i64;
    let s0 = if od & 1 == 1 { cc.floor() as i64 - h } else { (cc + 0.5).floor() as i64 - h };
    for l in 0..=od {
        let t = tap(s0 + l as i64, len, mode);
        a.taps[l] = if t < 0 { -1 } else { t * stride };
        a.w[l] = if od == 0 { 1.0 } else { bspline(od, cc - (s0 + l as i64) as f64) };
    }
    a
}

/// Where each output point's input coordinate comes from.
pub(super) enum HostCoords<'a> {
    /// Per axis `(o + shift) · zoom` (or SciPy's grid form): shift, zoom, whether each is
    /// given, grid mode.
    ZoomShift { shift: &'a [f64], zoom: &'a [f64], hs: bool, hz: bool, grid: bool },
}

/// Per axis, per output index, the taps and weights of zoom and shift (`coords` is
/// `HostCoords::ZoomShift`; empty otherwise).
fn zoom_tables(
    cshape: &[usize],
    oshape: &[usize],
    ords: &[usize],
    pd: &[f64],
    coords: &HostCoords<'_>,
    mode: i64,
) -> Vec<Vec<AxisTaps>> {
    let HostCoords::ZoomShift { shift, zoom, hs, hz, grid } = coords;
    let cst = strides(cshape);
    (0..cshape.len())
        .map(|d| {
            (0..oshape[d])
                .map(|o| {
                    let mut cc = o as f64;
                    if *hs {
                        cc += shift[d];
                    }
                    if *hz {
                        let z = zoom[d];
                        if *grid {
                            cc += 0.5;
                            cc *= z;
                            cc -= 0.5;
                        } else {
                            cc *= z;
                        }
                    }
                    cc += pd[d];
                    axis_taps(cc, cshape[d] as i64, ords[d], mode, cst[d] as i64)
                })
                .collect()
        })
        .collect()
}

/// The tables of zoom and shift for the device kernels, axis after axis: per output index a
/// row `[inside, taps…]` (`ords[d] + 2` values; taps are offsets times the axis' stride, -1
/// for `cval`) and a row of `ords[d] + 1` weights. The same values the native form uses.
pub(super) fn zoom_table_rows(
    cshape: &[usize],
    oshape: &[usize],
    ords: &[usize],
    pd: &[f64],
    coords: &HostCoords<'_>,
    mode: i64,
) -> (Vec<i64>, Vec<f64>) {
    let mut taps = Vec::new();
    let mut weights = Vec::new();
    for (d, axis) in zoom_tables(cshape, oshape, ords, pd, coords, mode).iter().enumerate() {
        for a in axis {
            taps.push(a.inside as i64);
            taps.extend_from_slice(&a.taps[..=ords[d]]);
            weights.extend_from_slice(&a.w[..=ords[d]]);
        }
    }
    (taps, weights)
}

/// The interpolation of the coefficients `cf` (C order, shape `cshape`) at the output points
/// of `oshape`, as the device kernel computes it: per axis the spline order `ords`, the
/// padding `pd` added to the coordinate, the mode code, `cval`, and the integer rounding and
/// range `rnd`. Each value is handed to `conv`.
#[allow(clippy::too_many_arguments)]
pub(super) fn interpolate<T: Copy + Default + Send>(
    cf: &[f64],
    cshape: &[usize],
    oshape: &[usize],
    ords: &[usize],
    pd: &[f64],
    coords: &HostCoords<'_>,
    mode: i64,
    cval: f64,
    rnd: Option<(f64, f64)>,
    conv: fn(f64) -> T,
) -> Vec<T> {
    let nd = cshape.len();
    let ndo = oshape.len();
    let m: usize = oshape.iter().product();
    let mut out = vec![T::default(); m];
    if m == 0 {
        return out;
    }
    // Zoom and shift: each axis' taps depend on that axis' output index only.
    let tables = zoom_tables(cshape, oshape, ords, pd, coords, mode);
    let value = |o: &[usize], ax: &mut [AxisTaps]| -> f64 {
        for d in 0..nd {
            ax[d] = tables[d][o[d]];
            if !ax[d].inside {
                return cval;
            }
        }
        let mut acc = 0.0f64;
        if nd == 2 {
            let (a, b) = (&ax[0], &ax[1]);
            for l0 in 0..=ords[0] {
                for l1 in 0..=ords[1] {
                    let wt = 1.0 * a.w[l0] * b.w[l1];
                    let (t0, t1) = (a.taps[l0], b.taps[l1]);
                    let v = if t0 < 0 || t1 < 0 { cval } else { cf[(t0 + t1) as usize] };
                    acc += wt * v;
                }
            }
        } else {
            let mut ctr = [0usize; 16];
            loop {
                let mut wt = 1.0f64;
                let mut flat = 0i64;
                let mut outside = false;
                for d in 0..nd {
                    let t = ax[d].taps[ctr[d]];
                    wt *= ax[d].w[ctr[d]];
                    if t < 0 {
                        outside = true;
                    } else {
                        flat += t;
                    }
                }
                acc += wt * if outside { cval } else { cf[flat as usize] };
                let mut d = nd;
                while d > 0 {
                    ctr[d - 1] += 1;
                    if ctr[d - 1] <= ords[d - 1] {
                        break;
                    }
                    ctr[d - 1] = 0;
                    d -= 1;
                }
                if d == 0 {
                    break;
                }
            }
        }
        acc
    };
    let point = |o: &[usize], ax: &mut [AxisTaps]| -> f64 {
        let mut acc = value(o, ax);
        if let Some((lo, hi)) = rnd {
            acc = if acc > 0.0 { (acc + 0.5).floor() } else { (acc - 0.5).ceil() };
            acc = if acc < lo {
                lo
            } else if acc > hi {
                hi
            } else {
                acc
            };
        }
        acc
    };
    let t = threads_for(m * (ords.iter().map(|o| o + 1).product::<usize>()));
    let per = m.div_ceil(t);
    let point = &point;
    std::thread::scope(|sc| {
        for (ci, chunk) in out.chunks_mut(per).enumerate() {
            sc.spawn(move || {
                let start = ci * per;
                let mut ax = vec![AxisTaps { inside: true, taps: [0; 6], w: [0.0; 6] }; nd];
                let mut o = vec![0usize; ndo];
                let mut r = start;
                for d in (0..ndo).rev() {
                    o[d] = r % oshape[d];
                    r /= oshape[d];
                }
                for y in chunk.iter_mut() {
                    *y = conv(point(&o, &mut ax));
                    let mut d = ndo;
                    while d > 0 {
                        o[d - 1] += 1;
                        if o[d - 1] < oshape[d - 1] {
                            break;
                        }
                        o[d - 1] = 0;
                        d -= 1;
                    }
                }
            });
        }
    });
    out
}
