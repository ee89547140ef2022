//! Graph algorithms on sparse adjacency matrices, as `scipy.sparse.csgraph`:
//! [`connected_components`].
//!
//! A stored entry `A[i, j]` is an edge `i → j` (whatever its value). The work runs on the
//! graph's device as user elementwise kernels, a thread per node, iterated until nothing
//! changes (one scalar read per round):
//! - weak components (and every undirected graph) by minimum-label propagation over the
//!   symmetrised graph with pointer jumping (Shiloach & Vishkin, 1982, in its label-propagation
//!   form), so a component's label converges to its smallest node;
//! - strong components by the coloring algorithm (Orzan, 2004): the smallest node reaching
//!   each node forward is its color; the nodes of a color that reach its root backwards form
//!   that root's component; those leave the graph and the rest is colored again.
//!
//! Labels are numbered by the first appearance of their component in node order (component 0
//! holds node 0; the next new component met walking the nodes is 1, ...), a deterministic
//! choice where SciPy leaves the numbering open; they are int32 as SciPy's.

use std::str::FromStr;
use std::sync::OnceLock;

use xp_backend_api::{DType, Error, Result};

use super::{from_coords, CsrMatrix};
use crate::user::ElementwiseKernel;
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

const PULL_MIN: &str = r#"
long long best = lab[v];
const long long s = (long long)ptr[v], e = (long long)ptr[v + 1];
for (long long q = s; q < e; ++q) { const long long l = lab[(long long)ind[q]]; if (l < best) best = l; }
const long long j = lab[best];
if (j < best) best = j;
nl = best;
"#;

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

/// Minimum-label propagation over the (symmetric) graph `g`: each node's smallest reachable
/// node.
fn weak_labels(g: &CsrMatrix, nodes: &Array) -> Result<Array> {
    static K: OnceLock<ElementwiseKernel> = OnceLock::new();
    let k = kernel(&K, "int64 v, raw int64 lab, raw I ind, raw I ptr", "int64 nl", PULL_MIN, "xp_csgraph_pull_min")?;
    let mut lab = nodes.clone();
    loop {
        let next = k.call(&[
            Operand::Array(nodes),
            Operand::Array(&lab),
            Operand::Array(&g.indices),
            Operand::Array(&g.indptr),
        ])?;
        if !changed(&next, &lab)? {
            return Ok(next);
        }
        lab = next;
    }
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
    let lab = if directed && connection == Connection::Strong {
        strong_labels(g, &nodes)?
    } else {
        let coo = g.tocoo()?;
        let rows = crate::concatenate(&[&coo.row, &coo.col], 0)?;
        let cols = crate::concatenate(&[&coo.col, &coo.row], 0)?;
        let ones = Array::full_on(&dev, &[rows.size()], 1.0, DType::F32)?;
        let sym = from_coords(&rows, &cols, &ones, (n, n), false)?;
        weak_labels(&sym, &nodes)?
    };
    let roots = lab.eq(&nodes)?;
    let count = crate::count_nonzero(&roots, None)?.astype(DType::I64)?.item::<i64>()? as usize;
    let rank = roots.astype(DType::I64)?.cumsum(Some(0))?.sub(1i64)?;
    Ok((count, rank.take(&lab, None)?.astype(DType::I32)?))
}
