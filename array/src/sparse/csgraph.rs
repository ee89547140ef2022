//! Graph algorithms on sparse adjacency matrices, as `scipy.sparse.csgraph`:
//! [`connected_components`].
//!
//! A stored entry `A[i, j]` is an edge `i → j` (whatever its value). The work runs on the
//! graph's device as kernels, a thread per node:
//! - weak components (and every undirected graph) by a concurrent union–find over the stored
//!   edges, in two launches and no host round trip (the "hook" and "compress" steps of
//!   Jaiganesh & Burtscher's ECL-CC, 2018): each node's edges link the larger root under the
//!   smaller with a compare-and-swap, then every node takes its root, so a component's label is
//!   its smallest node. Edge directions do not matter to it, so the graph is not symmetrised;
//! - strong components, iterated until nothing changes (one scalar read per round),
//!   by the coloring algorithm (Orzan, 2004): the smallest node reaching
//!   each node forward is its color; the nodes of a color that reach its root backwards form
//!   that root's component; those leave the graph and the rest is colored again.
//!
//! Labels are numbered by the first appearance of their component in node order (component 0
//! holds node 0; the next new component met walking the nodes is 1, ...), a deterministic
//! choice where SciPy leaves the numbering open; they are int32 as SciPy's.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::OnceLock;

use parking_lot::Mutex;
use xp_backend_api::{DType, Error, Result};

use super::CsrMatrix;
use crate::user::{ElementwiseKernel, LaunchArg, RawKernel, RawModule};
use crate::{Array, Operand};

/// Which connectivity [`connected_components`] uses on a directed graph (SciPy's
/// `connection`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Connection {
    /// Connected when joined ignoring the edges' directions (`"weak"`, the default).
    #[default]
    Weak,
    /// Connected when each reaches the other along directed edges (`"strong"`).
    Strong,
}

impl FromStr for Connection {
    type Err = Error;
    fn from_str(s: &str) -> Result<Connection> {
        match s {
            "weak" => Ok(Connection::Weak),
            "strong" => Ok(Connection::Strong),
            _ => Err(Error::value("connected_components", "connection must be 'weak' or 'strong'")),
        }
    }
}

fn kernel(
    cell: &'static OnceLock<ElementwiseKernel>,
    ins: &str,
    outs: &str,
    op: &str,
    name: &str,
) -> Result<&'static ElementwiseKernel> {
    crate::user::cached_kernel(cell, ins, outs, op, name, "")
}

const COLOR: &str = r#"
long long best = col[v];
if (act[v]) {
    const long long s = (long long)ptr[v], e = (long long)ptr[v + 1];
    for (long long q = s; q < e; ++q) {
        const long long u = (long long)ind[q];
        if (act[u] && col[u] < best) best = col[u];
    }
}
nc = best;
"#;

const MARK: &str = r#"
bool m = mk[v];
if (!m && act[v]) {
    const long long s = (long long)ptr[v], e = (long long)ptr[v + 1];
    for (long long q = s; q < e; ++q) {
        const long long u = (long long)ind[q];
        if (act[u] && mk[u] && col[u] == col[v]) { m = true; break; }
    }
}
nm = m;
"#;

fn changed(a: &Array, b: &Array) -> Result<bool> {
    a.ne(b)?.any(None, false)?.item::<bool>()
}

/// Strong components by coloring: each node's label is the smallest node of its component.
fn strong_labels(g: &CsrMatrix, nodes: &Array) -> Result<Array> {
    static KC: OnceLock<ElementwiseKernel> = OnceLock::new();
    static KM: OnceLock<ElementwiseKernel> = OnceLock::new();
    let kc = kernel(
        &KC,
        "int64 v, raw int64 col, raw bool act, raw I ind, raw I ptr",
        "int64 nc",
        COLOR,
        "xp_csgraph_color",
    )?;
    let km = kernel(
        &KM,
        "int64 v, raw int64 col, raw bool act, raw bool mk, raw I ind, raw I ptr",
        "bool nm",
        MARK,
        "xp_csgraph_mark",
    )?;
    let gt = g.tocsc()?.t; // in-edges of each node
    let n = g.shape.0;
    let dev = g.device_arc();
    let mut label = nodes.clone();
    let mut act = Array::full_on(&dev, &[n], true, DType::Bool)?;
    while act.any(None, false)?.item::<bool>()? {
        let mut col = nodes.clone();
        loop {
            let next = kc.call(&[
                Operand::Array(nodes),
                Operand::Array(&col),
                Operand::Array(&act),
                Operand::Array(&gt.indices),
                Operand::Array(&gt.indptr),
            ])?;
            if !changed(&next, &col)? {
                break;
            }
            col = next;
        }
        let mut mk = act.logical_and(&col.eq(nodes)?)?;
        loop {
            let next = km.call(&[
                Operand::Array(nodes),
                Operand::Array(&col),
                Operand::Array(&act),
                Operand::Array(&mk),
                Operand::Array(&g.indices),
                Operand::Array(&g.indptr),
            ])?;
            if !changed(&next, &mk)? {
                break;
            }
            mk = next;
        }
        label = crate::where_(&mk, Operand::Array(&col), Operand::Array(&label))?;
        act = act.logical_and(&mk.logical_not()?)?;
    }
    Ok(label)
}

/// Concurrent union–find over the edges (`i32` labels below 2^31 nodes): every node's
/// `parent` starts as itself; a thread per node hooks each of its edges, linking the larger of
/// the two roots under the smaller with a compare-and-swap (retrying from the new roots when
/// another thread linked first), with path splitting in the finds; then a thread per node
/// replaces its parent by its root. A parent is never larger than its node, so a component's
/// root is its smallest node.
const UNION_FIND: &str = r#"
__device__ __forceinline__ L xp_cc_find(volatile L* par, L x) {
    while (true) {
        const L p = par[x];
        if (p == x) return x;
        const L g = par[p];
        if (g != p) par[x] = g;
        x = p;
    }
}
extern "C" __global__ void xp_csgraph_hook_NAME(L* par, const I* ind, const I* ptr, long long n) {
    const long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    volatile L* vp = par;
    const long long s = (long long)ptr[v], e = (long long)ptr[v + 1];
    for (long long q = s; q < e; ++q) {
        L a = xp_cc_find(vp, (L)v), b = xp_cc_find(vp, (L)ind[q]);
        while (a != b) {
            const L hi = a > b ? a : b, lo = a > b ? b : a;
            const L old = atomicCAS(&par[hi], hi, lo);
            if (old == hi) break;
            a = xp_cc_find(vp, old);
            b = xp_cc_find(vp, lo);
        }
    }
}
extern "C" __global__ void xp_csgraph_compress_NAME(L* par, long long n) {
    const long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    par[v] = xp_cc_find((volatile L*)par, (L)v);
}
"#;

/// The kernels of [`UNION_FIND`] for index type `i` and label type `l` (C names), made once
/// per process.
fn union_find_kernels(i: &str, l: &str) -> Result<(RawKernel, RawKernel)> {
    static CACHE: OnceLock<Mutex<HashMap<String, (RawKernel, RawKernel)>>> = OnceLock::new();
    let tag = format!("{}_{}", i.replace(' ', "_"), l.replace(' ', "_"));
    let mut cache = CACHE.get_or_init(|| Mutex::new(HashMap::new())).lock();
    if let Some(pair) = cache.get(&tag) {
        return Ok(pair.clone());
    }
    let src = format!("typedef {i} I;\ntypedef {l} L;\n{}", UNION_FIND.replace("NAME", &tag));
    let module = RawModule::new(&src, &[]);
    let pair = (
        module.get_function(&format!("xp_csgraph_hook_{tag}"))?,
        module.get_function(&format!("xp_csgraph_compress_{tag}"))?,
    );
    cache.insert(tag, pair.clone());
    Ok(pair)
}

/// The sources of [`UNION_FIND`] for every index and label type (for compile checks).
pub(crate) fn union_find_sources() -> Vec<xp_kernels::render::Rendered> {
    let mut v = Vec::new();
    for i in ["int", "long long"] {
        for l in ["int", "unsigned long long"] {
            let tag = format!("{}_{}", i.replace(' ', "_"), l.replace(' ', "_"));
            let code = format!("typedef {i} I;\ntypedef {l} L;\n{}", UNION_FIND.replace("NAME", &tag));
            v.push(xp_kernels::render::Rendered { name: format!("xp_csgraph_hook_{tag}"), code });
        }
    }
    v
}

/// The smallest node of each node's weak component, by the union–find of [`UNION_FIND`] on
/// the graph's own edges (their direction does not matter to it).
fn union_find_labels(g: &CsrMatrix, n: usize) -> Result<Array> {
    let dev = g.device_arc();
    let (lt, lc) = if n <= i32::MAX as usize { (DType::I32, "int") } else { (DType::U64, "unsigned long long") };
    let ic = if g.indices.dtype() == DType::I32 { "int" } else { "long long" };
    let indices = g.indices.astype(if ic == "int" { DType::I32 } else { DType::I64 })?.ascontiguous()?;
    let indptr = g.indptr.astype(indices.dtype())?.ascontiguous()?;
    let par = crate::with_device(&dev, || crate::arange(0i64, n as i64, 1i64, Some(lt)))?;
    let (hook, compress) = union_find_kernels(ic, lc)?;
    let blocks = n.div_ceil(256) as u32;
    hook.launch(
        blocks,
        256u32,
        &[LaunchArg::Array(&par), LaunchArg::Array(&indices), LaunchArg::Array(&indptr), LaunchArg::I64(n as i64)],
    )?;
    compress.launch(blocks, 256u32, &[LaunchArg::Array(&par), LaunchArg::I64(n as i64)])?;
    par.astype(DType::I64)
}

/// SciPy's `connected_components(csgraph, directed, connection)`: the number of components
/// and each node's component label (int32, numbered by first appearance; see the module
/// docs). With `directed` false, or `connection` weak, edge directions are ignored.
pub fn connected_components(g: &CsrMatrix, directed: bool, connection: Connection) -> Result<(usize, Array)> {
    let op = "connected_components";
    let (m, n) = g.shape;
    if m != n {
        return Err(Error::value(op, format!("graph should have shape (N, N), got ({m}, {n})")));
    }
    let dev = g.device_arc();
    let nodes = crate::with_device(&dev, || crate::arange(0i64, n as i64, 1i64, Some(DType::I64)))?;
    if n == 0 {
        return Ok((0, Array::empty_on(&dev, &[0], DType::I32)?));
    }
    let lab =
        if directed && connection == Connection::Strong { strong_labels(g, &nodes)? } else { union_find_labels(g, n)? };
    let roots = lab.eq(&nodes)?;
    let count = crate::count_nonzero(&roots, None)?.astype(DType::I64)?.item::<i64>()? as usize;
    let rank = roots.astype(DType::I64)?.cumsum(Some(0))?.sub(1i64)?;
    Ok((count, rank.take(&lab, None)?.astype(DType::I32)?))
}
