//! SciPy's `KDTree`: a k-d tree over points for k-nearest-neighbour queries.

use std::sync::Arc;

use xp_backend_api::{DynDevice, Error, Result};

use crate::Array;

/// SciPy's `scipy.spatial.KDTree(data, leafsize)`: a k-d tree over the rows of `data` `(n, m)`
/// for nearest-neighbour queries ([`KDTree::query`]).
///
/// # The tree
/// Built with the sliding-midpoint rule (S. Maneewongvatana and D. M. Mount, "Analysis of
/// approximate nearest neighbor searching with clustered point sets", 1999; as SciPy's
/// `balanced_tree=False`): a node holding more than `leafsize` points is split across the
/// longest side of its points' bounding box at that side's midpoint; if every point falls on
/// one side (possible only when the box's sides are a few ulps long), the split slides to the
/// nearest point, so no node is empty and the depth stays bounded by the point count. Each node
/// keeps its cell (the box it was cut from), which bounds the distance from a query to any of
/// its points. The nodes are arrays (split dimension, split value, children, the range of
/// their points in the tree's order, the cells), built from the points read to the host once.
///
/// # Queries
/// Queries run on the host in float64, spread over its threads, each a depth-first search
/// visiting the nearer child first and pruning a cell farther than the current k-th neighbour
/// (scaled by `1 + eps`) or not nearer than `distance_upper_bound` (S. Arya and D. M. Mount,
/// "Algorithms for fast vector quantization", 1993). The queries are read to the host and the
/// answers made arrays on the data's device; a device search (one thread per query over the
/// node arrays, which are kept flat for that) is not written yet. Neighbours are ordered by
/// distance, then by
/// index (SciPy's order of equal distances depends on its traversal; here it is always the
/// smaller index first).
///
/// Not taken: SciPy's `compact_nodes`, `copy_data`, `balanced_tree` (the tree is always
/// sliding-midpoint; answers do not depend on it), `boxsize` (periodic spaces), `workers`, and
/// `k` as a list of neighbour ranks.
///
/// ```
/// # use std::sync::Arc;
/// # xp_array::register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = xp_array::device("cpu").unwrap();
/// # xp_array::with_device(&d, || {
/// use xp_array::spatial::KDTree;
/// use xp_array::Array;
/// let data = Array::from_slice(&[0.0f64, 0.0, 1.0, 0.0, 0.0, 2.0], &[3, 2]).unwrap();
/// let tree = KDTree::new(&data, 10).unwrap();
/// let x = Array::from_slice(&[0.9f64, 0.1], &[1, 2]).unwrap();
/// let (d, i) = tree.query(&x, 2, 0.0, 2.0, f64::INFINITY).unwrap();
/// assert_eq!(i.to_vec::<i64>().unwrap(), [1, 0]);
/// assert!((d.to_vec::<f64>().unwrap()[0] - 0.02f64.sqrt()).abs() < 1e-15);
/// # });
/// ```
#[derive(Clone)]
pub struct KDTree {
    device: Arc<dyn DynDevice>,
    /// The points as given, float64 (SciPy's `data`).
    data: Array,
    n: usize,
    m: usize,
    leafsize: usize,
    /// The points in the tree's order, row-major `(n, m)`.
    points: Vec<f64>,
    /// `index[k]`: the row of `data` of the tree's k-th point.
    index: Vec<i64>,
    /// Per node: the split dimension, or `usize::MAX` for a leaf.
    split_dim: Vec<usize>,
    /// Per node: the split value (left: `<= split`, right: `>= split`).
    split: Vec<f64>,
    /// Per node: its children (inner nodes).
    children: Vec<[u32; 2]>,
    /// Per node: its points, `start..end` in the tree's order.
    range: Vec<[u32; 2]>,
    /// Per node: its cell's lower corner, `m` values each.
    cell_lo: Vec<f64>,
    /// Per node: its cell's upper corner.
    cell_hi: Vec<f64>,
}

impl std::fmt::Debug for KDTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KDTree")
            .field("n", &self.n)
            .field("m", &self.m)
            .field("leafsize", &self.leafsize)
            .field("nodes", &self.nodes())
            .finish()
    }
}

/// The p-norm of a query, as powers: distances are compared as `sum |dx|^p` (`max |dx|` for
/// `p = inf`) and rooted at the end.
#[derive(Clone, Copy)]
enum Norm {
    One,
    Two,
    Inf,
    P(f64),
}

impl Norm {
    #[inline]
    fn term(self, t: f64) -> f64 {
        match self {
            Norm::One | Norm::Inf => t.abs(),
            Norm::Two => t * t,
            Norm::P(p) => t.abs().powf(p),
        }
    }
    #[inline]
    fn combine(self, acc: f64, term: f64) -> f64 {
        match self {
            Norm::Inf => acc.max(term),
            _ => acc + term,
        }
    }
    /// A distance raised to the power the norm compares in.
    fn to_power(self, d: f64) -> f64 {
        match self {
            Norm::One | Norm::Inf => d,
            Norm::Two => d * d,
            Norm::P(p) => d.powf(p),
        }
    }
    fn root(self, s: f64) -> f64 {
        match self {
            Norm::One | Norm::Inf => s,
            Norm::Two => s.sqrt(),
            Norm::P(p) => s.powf(1.0 / p),
        }
    }
}

impl KDTree {
    /// Builds the tree over the rows of `data` `(n, m)` (any real dtype, read as float64), with
    /// at most `leafsize` points per leaf (SciPy's default is 10). `data` that is not 2-d or
    /// `leafsize` 0 and complex data are `Value` errors.
    pub fn new(data: &Array, leafsize: usize) -> Result<KDTree> {
        let op = "KDTree";
        if data.ndim() != 2 {
            return Err(Error::value(op, "data must be of shape (n, m), where there are n points of dimension m"));
        }
        if leafsize < 1 {
            return Err(Error::value(op, "leafsize must be at least 1"));
        }
        let (n, m) = (data.shape()[0], data.shape()[1]);
        if n >= u32::MAX as usize {
            return Err(Error::value(op, format!("{n} points are more than the tree indexes")));
        }
        let data = super::distance::to_f64(op, data)?;
        let host = data.to_vec::<f64>()?;
        let mut tree = KDTree {
            device: data.device_arc(),
            data,
            n,
            m,
            leafsize,
            points: Vec::new(),
            index: (0..n as i64).collect(),
            split_dim: Vec::new(),
            split: Vec::new(),
            children: Vec::new(),
            range: Vec::new(),
            cell_lo: Vec::new(),
            cell_hi: Vec::new(),
        };
        if n > 0 {
            tree.build(&host);
        }
        tree.points =
            tree.index.iter().flat_map(|&r| host[r as usize * m..(r as usize + 1) * m].iter().copied()).collect();
        Ok(tree)
    }

    /// The points, float64 `(n, m)` on their device (SciPy's `KDTree.data`).
    pub fn data(&self) -> &Array {
        &self.data
    }

    /// The number of points.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The dimension of the points.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The largest number of points of a leaf.
    pub fn leafsize(&self) -> usize {
        self.leafsize
    }

    /// The number of nodes of the tree (inner nodes and leaves).
    pub fn nodes(&self) -> usize {
        self.split_dim.len()
    }

    fn push_node(&mut self, start: usize, end: usize, lo: &[f64], hi: &[f64]) -> usize {
        self.split_dim.push(usize::MAX);
        self.split.push(0.0);
        self.children.push([0, 0]);
        self.range.push([start as u32, end as u32]);
        self.cell_lo.extend_from_slice(lo);
        self.cell_hi.extend_from_slice(hi);
        self.split_dim.len() - 1
    }

    /// The sliding-midpoint tree over `host` `(n, m)`, permuting `self.index`.
    fn build(&mut self, host: &[f64]) {
        let m = self.m;
        let at = |r: i64, d: usize| host[r as usize * m + d];
        let (mut lo, mut hi) = (vec![f64::INFINITY; m], vec![f64::NEG_INFINITY; m]);
        for r in 0..self.n as i64 {
            for d in 0..m {
                lo[d] = lo[d].min(at(r, d));
                hi[d] = hi[d].max(at(r, d));
            }
        }
        let root = self.push_node(0, self.n, &lo, &hi);
        let mut stack = vec![root];
        let (mut blo, mut bhi) = (vec![0.0; m], vec![0.0; m]);
        while let Some(node) = stack.pop() {
            let [start, end] = self.range[node].map(|v| v as usize);
            if end - start <= self.leafsize {
                continue;
            }
            // The points' bounding box and its longest side.
            blo.fill(f64::INFINITY);
            bhi.fill(f64::NEG_INFINITY);
            for &r in &self.index[start..end] {
                for d in 0..m {
                    blo[d] = blo[d].min(at(r, d));
                    bhi[d] = bhi[d].max(at(r, d));
                }
            }
            let (mut dim, mut spread) = (0, 0.0);
            for d in 0..m {
                // A NaN spread compares false and is never chosen.
                if bhi[d] - blo[d] > spread {
                    (dim, spread) = (d, bhi[d] - blo[d]);
                }
            }
            if spread <= 0.0 {
                continue; // every point the same: a leaf
            }
            let mut split = blo[dim] + (bhi[dim] - blo[dim]) / 2.0;
            // Partition: values below the split first.
            let idx = &mut self.index[start..end];
            let mut nl = 0;
            for k in 0..idx.len() {
                if at(idx[k], dim) < split {
                    idx.swap(k, nl);
                    nl += 1;
                }
            }
            // Slide the split to the nearest point when one side is empty.
            if nl == 0 {
                let k = (0..idx.len()).min_by(|&a, &b| at(idx[a], dim).total_cmp(&at(idx[b], dim))).unwrap_or(0);
                idx.swap(0, k);
                split = at(idx[0], dim);
                nl = 1;
            } else if nl == idx.len() {
                let k = (0..idx.len()).max_by(|&a, &b| at(idx[a], dim).total_cmp(&at(idx[b], dim))).unwrap_or(0);
                idx.swap(idx.len() - 1, k);
                split = at(idx[idx.len() - 1], dim);
                nl = idx.len() - 1;
            }
            let (plo, phi) =
                (self.cell_lo[node * m..(node + 1) * m].to_vec(), self.cell_hi[node * m..(node + 1) * m].to_vec());
            let mut lhi = phi.clone();
            lhi[dim] = split;
            let mut rlo = plo.clone();
            rlo[dim] = split;
            let left = self.push_node(start, start + nl, &plo, &lhi);
            let right = self.push_node(start + nl, end, &rlo, &phi);
            self.split_dim[node] = dim;
            self.split[node] = split;
            self.children[node] = [left as u32, right as u32];
            stack.push(left);
            stack.push(right);
        }
    }

    /// The distance (as a power) from `q` to the cell of `node`.
    fn cell_distance(&self, q: &[f64], node: usize, norm: Norm) -> f64 {
        let m = self.m;
        let (lo, hi) = (&self.cell_lo[node * m..(node + 1) * m], &self.cell_hi[node * m..(node + 1) * m]);
        let mut acc = 0.0;
        for d in 0..m {
            let t = (lo[d] - q[d]).max(q[d] - hi[d]).max(0.0);
            acc = norm.combine(acc, norm.term(t));
        }
        acc
    }

    /// The `k` nearest points to `q` as (distance power, tree position), sorted by distance,
    /// then by index.
    fn search(&self, q: &[f64], k: usize, eps_factor: f64, norm: Norm, bound: f64, best: &mut Vec<(f64, i64)>) {
        best.clear();
        if self.n == 0 {
            return;
        }
        let m = self.m;
        let worse = |a: (f64, i64), b: (f64, i64)| a.0 > b.0 || (a.0 == b.0 && a.1 > b.1);
        let mut stack: Vec<(usize, f64)> = vec![(0, self.cell_distance(q, 0, norm))];
        while let Some((node, rd)) = stack.pop() {
            if rd >= bound || (best.len() == k && rd * eps_factor > best[k - 1].0) {
                continue;
            }
            let dim = self.split_dim[node];
            if dim == usize::MAX {
                let [start, end] = self.range[node].map(|v| v as usize);
                for pos in start..end {
                    let p = &self.points[pos * m..(pos + 1) * m];
                    let mut acc = 0.0;
                    for d in 0..m {
                        acc = norm.combine(acc, norm.term(p[d] - q[d]));
                    }
                    let cand = (acc, self.index[pos]);
                    if acc >= bound || acc.is_nan() || (best.len() == k && !worse(best[k - 1], cand)) {
                        continue;
                    }
                    if best.len() == k {
                        best.pop();
                    }
                    let at = best.partition_point(|&b| !worse(b, cand));
                    best.insert(at, cand);
                }
                continue;
            }
            let [l, r] = self.children[node].map(|c| c as usize);
            let (near, far) = if q[dim] < self.split[node] { (l, r) } else { (r, l) };
            // The far child first on the stack, so that the near one is searched first.
            stack.push((far, self.cell_distance(q, far, norm)));
            stack.push((near, self.cell_distance(q, near, norm)));
        }
    }

    /// SciPy's `query(x, k, eps, p, distance_upper_bound)`: the `k` nearest points to each
    /// query point, the rows of `x` `(..., m)`. Answers the distances (float64) and the indices
    /// into `data` (int64), each of shape `(..., k)`, or `x.shape[:-1]` for `k = 1` (as SciPy
    /// with an int `k`); nearest first, equal distances by index. A neighbour that does not
    /// exist (fewer than `k` points within `distance_upper_bound`, or fewer than `k` points)
    /// is distance inf and index `n`.
    ///
    /// `p` is the Minkowski norm, `1 <= p <= inf`; `eps >= 0` allows approximate neighbours: the
    /// k-th answer is at most `1 + eps` times the true k-th distance (a negative `eps` counts as
    /// 0, as in SciPy); only points strictly nearer than `distance_upper_bound` are answered.
    ///
    /// Errors (`Value`): `k = 0`, `p < 1` or NaN, a NaN `eps` or bound, `x` whose last axis is
    /// not `m` long.
    pub fn query(&self, x: &Array, k: usize, eps: f64, p: f64, distance_upper_bound: f64) -> Result<(Array, Array)> {
        let op = "KDTree.query";
        if k < 1 {
            return Err(Error::value(op, format!("k must be at least 1, not {k}")));
        }
        if p.is_nan() || p < 1.0 {
            return Err(Error::value(op, "Only p-norms with 1<=p<=infinity permitted"));
        }
        if eps.is_nan() || distance_upper_bound.is_nan() {
            return Err(Error::value(op, "eps and distance_upper_bound must not be NaN"));
        }
        if x.ndim() == 0 || x.shape()[x.ndim() - 1] != self.m {
            return Err(Error::value(
                op,
                format!("x must consist of vectors of length {} but has shape {:?}", self.m, x.shape()),
            ));
        }
        let norm = match p {
            1.0 => Norm::One,
            2.0 => Norm::Two,
            p if p.is_infinite() => Norm::Inf,
            p => Norm::P(p),
        };
        let eps = eps.max(0.0);
        let eps_factor = match norm {
            Norm::One | Norm::Inf => 1.0 + eps,
            _ => norm.to_power(1.0 + eps),
        };
        let bound = norm.to_power(distance_upper_bound);
        let q = super::distance::to_f64(op, x)?.to_vec::<f64>()?;
        let count: usize = x.shape()[..x.ndim() - 1].iter().product();
        let mut dist = vec![f64::INFINITY; count * k];
        let mut idx = vec![self.n as i64; count * k];
        // The queries are independent: split them over the host's threads when there are many.
        let answer = |q: &[f64], dist: &mut [f64], idx: &mut [i64]| {
            let mut best = Vec::with_capacity(k + 1);
            for (c, qp) in q.chunks(self.m).enumerate() {
                self.search(qp, k, eps_factor, norm, bound, &mut best);
                for (j, &(s, i)) in best.iter().enumerate() {
                    dist[c * k + j] = norm.root(s);
                    idx[c * k + j] = i;
                }
            }
        };
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(count / 256).max(1);
        if self.m == 0 {
            // Every point is at distance 0 from every query.
            for c in 0..count {
                for j in 0..k.min(self.n) {
                    dist[c * k + j] = 0.0;
                    idx[c * k + j] = j as i64;
                }
            }
        } else if threads == 1 {
            answer(&q, &mut dist, &mut idx);
        } else {
            let per = count.div_ceil(threads);
            std::thread::scope(|s| {
                let parts = q.chunks(per * self.m).zip(dist.chunks_mut(per * k)).zip(idx.chunks_mut(per * k));
                for ((q, dist), idx) in parts {
                    s.spawn(|| answer(q, dist, idx));
                }
            });
        }
        let mut shape = x.shape()[..x.ndim() - 1].to_vec();
        if k > 1 {
            shape.push(k);
        }
        Ok((Array::from_slice_on(&self.device, &dist, &shape)?, Array::from_slice_on(&self.device, &idx, &shape)?))
    }
}
