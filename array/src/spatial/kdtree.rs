//! SciPy's `KDTree`: a k-d tree over points for k-nearest-neighbour queries.

use std::sync::Arc;

use xp_backend_api::{DType, DynDevice, Error, Result};

use super::kdtree_kernels::{self as kk, KernelNorm, SearchParams};
use crate::exec::{run_launches, target_of, Bindings};
use crate::Array;

/// Which search answers [`KDTree::query_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KDTreeSearch {
    /// The device search where the tree has one and `k` is at most 64 on a GPU, the host
    /// search otherwise (what [`KDTree::query`] does).
    #[default]
    Auto,
    /// The search kernel, on any device (the CPU backend's included); an error where the tree
    /// has no device search or `k` is above 64.
    Device,
    /// The search on the host: the queries are read to the host.
    Host,
}

/// The tree's arrays on its device, for the search kernel (see `kdtree_kernels.rs`).
#[derive(Clone)]
struct DeviceTree {
    /// int32 `(nodes, 4)`: split dimension (-1 for a leaf), left child, points start, end.
    nodes: Array,
    /// float64 `(nodes,)`.
    splits: Array,
    /// float64 `(nodes, 2m)`: each cell's lower corner, then its upper one.
    cells: Array,
    /// float64 `(n, m)`, the points in the tree's order.
    points: Array,
    /// int32 `(n,)`, the row of `data` of each point.
    index: Array,
    /// Every split lies inside its node's cell, so that a near child's cell distance is its
    /// parent's (the kernel then skips computing it; the values are the same bits).
    near_same: bool,
}

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
/// A query is a depth-first search visiting the nearer child first and pruning a cell farther
/// than the current k-th neighbour (scaled by `1 + eps`) or not nearer than
/// `distance_upper_bound` (S. Arya and D. M. Mount, "Algorithms for fast vector quantization",
/// 1993), in float64, distances compared as powers (`sum |dx|^p`, `max |dx|` for `p = inf`)
/// and rooted at the end. Neighbours are ordered by distance, then by index (SciPy's order of
/// equal distances depends on its traversal; here it is always the smaller index first).
///
/// - **On the device.** The tree is built on the host once; its node arrays (split dimension,
///   split value, children, point ranges, cells, the points in the tree's order and their rows)
///   go to the data's device at construction. A generated kernel runs one thread per query
///   point: an iterative search with an explicit stack of at most 64 entries (the tree's depth
///   bounds it), the far child pushed and the near one searched at once, and a sorted list of
///   the k best (distance, index) pairs in registers (a kernel for each list size 1, 2, 4, …,
///   64, each norm, and points of dimension 2, 3 or any other). Its steps and roundings are the
///   host search's, so both give the same neighbours and, for `p` = 1, 2 and inf, the same
///   distances bit for bit (another `p` takes the device's `pow`, within an ulp or two of the
///   C library's). 4096 queries or more are first sorted by the leaf they fall in (one short
///   kernel and an argsort), so that the threads of a warp walk the same nodes.
/// - **On the host.** `k` above 64, a tree deeper than 64 levels, without points or with 2^31
///   or more, points of dimension 0 and the CPU backend take the host search: the queries are
///   read to the host, spread over its threads, and the answers made arrays on the data's
///   device. The CPU backend keeps the host search: it is compiled ahead, where the kernel's
///   first use would wait for the C++ compiler, and both walk the same tree on the same cores.
///   The kernel runs there too with [`KDTree::query_with`] and [`KDTreeSearch::Device`], as
///   its tests do.
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
    /// The depth of the deepest leaf (the root's is 0).
    depth: usize,
    /// The tree's arrays on its device; `None` where only the host searches it (see
    /// [`KDTree::query`]).
    dev: Option<DeviceTree>,
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
            depth: 0,
            dev: None,
        };
        if n > 0 {
            tree.build(&host);
        }
        tree.points =
            tree.index.iter().flat_map(|&r| host[r as usize * m..(r as usize + 1) * m].iter().copied()).collect();
        tree.dev = tree.upload()?;
        Ok(tree)
    }

    /// The node arrays on the tree's device, where the kernel can search them: a tree with
    /// points of dimension at least 1, at most `kdtree_kernels::STACK` deep, with fewer than
    /// 2^31 points and nodes (int32 positions).
    fn upload(&self) -> Result<Option<DeviceTree>> {
        let (n, m, nodes) = (self.n, self.m, self.nodes());
        if n == 0 || m == 0 || self.depth > kk::STACK || nodes >= i32::MAX as usize || n >= i32::MAX as usize {
            return Ok(None);
        }
        let dev = &self.device;
        let mut node_i = Vec::with_capacity(nodes * 4);
        let mut cells = Vec::with_capacity(nodes * 2 * m);
        let mut near_same = true;
        for k in 0..nodes {
            let [start, end] = self.range[k];
            let dim = self.split_dim[k];
            let (lo, hi) = (&self.cell_lo[k * m..(k + 1) * m], &self.cell_hi[k * m..(k + 1) * m]);
            if dim == usize::MAX {
                node_i.extend([-1, 0, start as i32, end as i32]);
            } else {
                // The right child is pushed right after the left one.
                debug_assert_eq!(self.children[k][1], self.children[k][0] + 1);
                node_i.extend([dim as i32, self.children[k][0] as i32, start as i32, end as i32]);
                let s = self.split[k];
                near_same &= lo[dim] <= s && s <= hi[dim];
            }
            cells.extend_from_slice(lo);
            cells.extend_from_slice(hi);
        }
        let index: Vec<i32> = self.index.iter().map(|&i| i as i32).collect();
        Ok(Some(DeviceTree {
            nodes: Array::from_slice_on(dev, &node_i, &[nodes, 4])?,
            splits: Array::from_slice_on(dev, &self.split, &[nodes])?,
            cells: Array::from_slice_on(dev, &cells, &[nodes, 2 * m])?,
            points: Array::from_slice_on(dev, &self.points, &[n, m])?,
            index: Array::from_slice_on(dev, &index, &[n])?,
            near_same,
        }))
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
        let mut stack = vec![(root, 0)];
        let (mut blo, mut bhi) = (vec![0.0; m], vec![0.0; m]);
        while let Some((node, depth)) = stack.pop() {
            self.depth = self.depth.max(depth);
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
            stack.push((left, depth + 1));
            stack.push((right, depth + 1));
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
    /// On a GPU the search runs on the device for `k <= 64` (one thread per query point), on
    /// the host otherwise; see the type's docs. `x` on another device is copied to the tree's.
    ///
    /// Errors (`Value`): `k = 0`, `p < 1` or NaN, a NaN `eps` or bound, `x` whose last axis is
    /// not `m` long.
    pub fn query(&self, x: &Array, k: usize, eps: f64, p: f64, distance_upper_bound: f64) -> Result<(Array, Array)> {
        self.query_with(x, k, eps, p, distance_upper_bound, KDTreeSearch::Auto)
    }

    /// [`KDTree::query`] by the search `search` picks. The device and host searches give the
    /// same neighbours and the same distances, bit for bit for `p` = 1, 2 and inf and on the
    /// CPU backend (for another `p` on a GPU, `|t|^p` and the root are the vendor's `pow`,
    /// within an ulp or two of the C library's).
    ///
    /// Errors: those of [`KDTree::query`]; `KDTreeSearch::Device` with `k` above 64 or a tree
    /// without a device search (no points, points of dimension 0, deeper than 64 levels, 2^31
    /// points or more) is a `Value` error.
    pub fn query_with(
        &self,
        x: &Array,
        k: usize,
        eps: f64,
        p: f64,
        distance_upper_bound: f64,
        search: KDTreeSearch,
    ) -> Result<(Array, Array)> {
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
        let mut shape = x.shape()[..x.ndim() - 1].to_vec();
        if k > 1 {
            shape.push(k);
        }
        let kernel = self.dev.as_ref().filter(|_| k <= kk::KMAX[kk::KMAX.len() - 1]);
        let use_kernel = match search {
            KDTreeSearch::Auto => kernel.is_some() && !self.device.properties().is_host,
            KDTreeSearch::Host => false,
            KDTreeSearch::Device => match kernel {
                Some(_) => true,
                None => {
                    return Err(Error::value(
                        op,
                        format!(
                            "the device search takes k up to {} on a tree with points, of dimension at least 1, \
                             at most {} levels deep (k = {k}, {} points of dimension {}, {} levels)",
                            kk::KMAX[kk::KMAX.len() - 1],
                            kk::STACK,
                            self.n,
                            self.m,
                            self.depth
                        ),
                    ))
                }
            },
        };
        if let (true, Some(dt)) = (use_kernel, kernel) {
            let (dist, idx) = self.query_device(dt, x, k, norm, p, eps_factor, bound)?;
            let shape: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
            return Ok((dist.reshape(&shape)?, idx.reshape(&shape)?));
        }
        let (dist, idx) = self.query_host(x, k, norm, eps_factor, bound)?;
        Ok((Array::from_slice_on(&self.device, &dist, &shape)?, Array::from_slice_on(&self.device, &idx, &shape)?))
    }

    /// The search kernel over `x`: the distances and indices `(count, k)` on the tree's device.
    #[allow(clippy::too_many_arguments)]
    fn query_device(
        &self,
        dt: &DeviceTree,
        x: &Array,
        k: usize,
        norm: Norm,
        p: f64,
        eps_factor: f64,
        bound: f64,
    ) -> Result<(Array, Array)> {
        let op = "KDTree.query";
        let dev = &self.device;
        let count: usize = x.shape()[..x.ndim() - 1].iter().product();
        let dist = Array::empty_on(dev, &[count, k], DType::F64)?;
        let idx = Array::empty_on(dev, &[count, k], DType::I64)?;
        if count == 0 {
            return Ok((dist, idx));
        }
        let q = super::distance::to_f64(op, &x.to_device(dev)?)?
            .reshape(&[count as isize, self.m as isize])?
            .ascontiguous()?;
        let target = target_of(dev);
        // Many queries are searched in the order of the leaves they fall in, so that the threads
        // of a warp (on the CPU, one worker's run of queries) walk the same nodes and read the
        // same points.
        let order = if count >= SORT_FROM {
            let keys = Array::empty_on(dev, &[count], DType::I32)?;
            let operands = [&q, &dt.nodes, &dt.splits, &keys];
            run_launches(
                dev,
                &[kk::plan_leaf_key(count, self.m, target)],
                Bindings { operands: &operands, ..Default::default() },
            )?;
            Some(keys.argsort(Some(-1))?)
        } else {
            None
        };
        let params = SearchParams {
            norm: match norm {
                Norm::One => KernelNorm::One,
                Norm::Two => KernelNorm::Two,
                Norm::Inf => KernelNorm::Inf,
                Norm::P(_) => KernelNorm::P,
            },
            count,
            m: self.m,
            k,
            n: self.n,
            near_same: dt.near_same,
            p,
            eps_factor,
            bound,
            ordered: order.is_some(),
        };
        let operands =
            [&q, order.as_ref().unwrap_or(&q), &dt.nodes, &dt.splits, &dt.cells, &dt.points, &dt.index, &dist, &idx];
        run_launches(dev, &[kk::plan_search(&params, target)], Bindings { operands: &operands, ..Default::default() })?;
        Ok((dist, idx))
    }

    /// The host search over `x`: the distances and indices, `k` a query.
    fn query_host(&self, x: &Array, k: usize, norm: Norm, eps_factor: f64, bound: f64) -> Result<(Vec<f64>, Vec<i64>)> {
        let op = "KDTree.query";
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
        Ok((dist, idx))
    }
}

/// The number of queries from which the device search sorts them by leaf first.
const SORT_FROM: usize = 4096;
