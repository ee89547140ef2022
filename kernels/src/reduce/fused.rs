//! Reductions of a fused elementwise map: the reduced values are computed from several arrays
//! (and scalars) as they are read, never stored (the prologue of lazy fusion, see
//! `xp::lazy`).
//!
//! The plan is the plan of the array the map would be written to (C-contiguous, fresh, so
//! 512-byte aligned): its kernels combine the values in the order the plain kernels combine that
//! array's elements, so the result has the bits of the map written out and reduced. Each array
//! the map reads addresses its elements through its own strides over one collapsed form of the
//! problem ([`collapse_joint`]): the kept and the reduced extents, merged where every array's
//! strides allow, in axis order.
//!
//! # The kernel
//! Parameters, in order: for each array `k`, `const Tk* pk, xp::Strides kk, xp::Strides rk`
//! (its pointer, its strides over the kept and the reduced extents); each scalar `sk` by
//! value; `xp::Shape jks, xp::Shape jrs` (the joint kept and reduced extents); then the
//! parameters of the plain reduction kernel ([`super::render_reduce`]), whose `in` is unused.

use std::fmt::Write;

use xp_backend_api::DType;

use super::{op_struct, op_tag, ReduceOp, ENGINE};
use crate::render::{sanitize, IndexWidth, Rendered};

/// The map a fused reduction computes per element.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FusedSource {
    /// The dtype of each array read, in parameter order.
    pub arrays: Vec<DType>,
    /// The dtype of each scalar, in parameter order.
    pub scalars: Vec<DType>,
    /// Statements computing the value from `l0, l1, …` (the arrays' elements, read before
    /// them) and `s0, s1, …` (the scalars).
    pub body: String,
    /// The expression of the value (of the reduction's input dtype) after `body`.
    pub result: String,
    /// Code put before the kernel (the ops' helpers, behind their own guards).
    pub preamble: String,
}

/// The collapsed form of a reduction over several arrays of one shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JointCollapse {
    /// Kept extents, in axis order (`[1]` when none).
    pub kshape: Vec<usize>,
    /// Reduced extents, in axis order (`[1]` when none).
    pub rshape: Vec<usize>,
    /// Per array, its strides over `kshape`.
    pub kstrides: Vec<Vec<isize>>,
    /// Per array, its strides over `rshape`.
    pub rstrides: Vec<Vec<isize>>,
}

fn merge_joint(dims: &[usize], strides: &[Vec<isize>]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let mut shape: Vec<usize> = Vec::new();
    let mut out: Vec<Vec<isize>> = vec![Vec::new(); strides.len()];
    for (i, &n) in dims.iter().enumerate() {
        if n == 1 {
            continue;
        }
        if let Some(last) = shape.last_mut() {
            if strides.iter().zip(&out).all(|(s, o)| *o.last().expect("one per dimension") == s[i] * n as isize) {
                *last *= n;
                for (s, o) in strides.iter().zip(out.iter_mut()) {
                    *o.last_mut().expect("one per dimension") = s[i];
                }
                continue;
            }
        }
        shape.push(n);
        for (s, o) in strides.iter().zip(out.iter_mut()) {
            o.push(s[i]);
        }
    }
    if shape.is_empty() {
        return (vec![1], vec![vec![0]; strides.len()]);
    }
    (shape, out)
}

/// Split arrays of `shape` (each with its strides, in elements) into kept and reduced
/// dimensions (`axes`), dropping extents of 1 and merging neighbours every array addresses as
/// one dimension. Dimensions keep their order, so flat indices are C order over the kept and
/// over the reduced axes, for every array.
pub fn collapse_joint(shape: &[usize], strides: &[&[isize]], axes: &[usize]) -> JointCollapse {
    let pick = |keep: bool| {
        let dims: Vec<usize> = (0..shape.len()).filter(|d| axes.contains(d) != keep).collect();
        let ext: Vec<usize> = dims.iter().map(|&d| shape[d]).collect();
        let st: Vec<Vec<isize>> = strides.iter().map(|s| dims.iter().map(|&d| s[d]).collect()).collect();
        merge_joint(&ext, &st)
    };
    let (kshape, kstrides) = pick(true);
    let (rshape, rstrides) = pick(false);
    JointCollapse { kshape, rshape, kstrides, rstrides }
}

/// Write the kernel reducing `src`'s values with `op` (whose `in_type` is the values' dtype)
/// for index width `index`; see the module docs for its parameters.
pub fn render_reduce_fused(op: &ReduceOp, src: &FusedSource, index: IndexWidth) -> Rendered {
    let idx = index.c_name();
    let tag = format!(
        "{}|{:?}|{:?}|{}|{}|{}",
        op_tag(op, index),
        src.arrays,
        src.scalars,
        src.body,
        src.result,
        src.preamble
    );
    let hash = xxhash_rust::xxh3::xxh3_64(tag.as_bytes()) ^ xxhash_rust::xxh3::xxh3_64(ENGINE.as_bytes());
    let name = format!(
        "xp_lazyred_{}_{}_{}_{:012x}",
        sanitize(&op.name),
        op.in_type.short(),
        index.short(),
        hash & 0xffff_ffff_ffff
    );
    let (inc, acc, outc) = (op.in_type.c_name(), &op.acc_type, op.out_type.c_name());
    let mut code = String::new();
    code.push_str(ENGINE);
    for p in [&op.preamble, &src.preamble] {
        if !p.is_empty() {
            code.push_str(p);
            code.push('\n');
        }
    }
    let mut members = String::new();
    let mut params = String::new();
    let mut init = String::new();
    let mut pos = String::new();
    let mut loads = String::new();
    let mut vec_ok = String::new();
    let mut vec_loads = String::new();
    let mut vec_lanes = String::new();
    for (k, d) in src.arrays.iter().enumerate() {
        let c = d.c_name();
        let _ = writeln!(
            members,
            "  const {c}* __restrict__ p{k};\n  const xp::Strides* k{k};\n  const xp::Strides* r{k};"
        );
        let _ = write!(params, "const {c}* __restrict__ p{k}, XP_GRID_CONST const xp::Strides k{k}, XP_GRID_CONST const xp::Strides r{k}, ");
        let _ = writeln!(init, "  src.p{k} = p{k};\n  src.k{k} = &k{k};\n  src.r{k} = &r{k};");
        let _ = writeln!(pos, "    p.b{k} = xp::offset_of<I>(o, *ks, *k{k});");
        let _ = writeln!(
            loads,
            "    const {c} l{k} = p{k}[p.b{k} + (flat_r ? j * (I)r{k}->s[0] : xp::offset_of<I>(j, *rs, *r{k}))];"
        );
        let _ =
            write!(vec_ok, " && (r{k}->s[0] == 0 || (r{k}->s[0] == 1 && xp::red::vec_aligned<VE>(p{k} + p.b{k} + j)))");
        let _ = writeln!(
            vec_loads,
            "    {c} vl{k}[VE];\n    if (r{k}->s[0] == 0) {{\n      const {c} u = p{k}[p.b{k}];\n      \
             for (int e = 0; e < VE; ++e) vl{k}[e] = u;\n    }} else {{\n      \
             xp::red::vload<VE>(p{k} + p.b{k} + j, vl{k});\n    }}"
        );
        let _ = writeln!(vec_lanes, "      const {c} l{k} = vl{k}[e];");
    }
    for (k, d) in src.scalars.iter().enumerate() {
        let c = d.c_name();
        let _ = writeln!(members, "  {c} s{k};");
        let _ = write!(params, "const {c} s{k}, ");
        let _ = writeln!(init, "  src.s{k} = s{k};");
    }
    let pos_fields: String = (0..src.arrays.len()).map(|k| format!(" I b{k};")).collect();
    let _ = write!(
        code,
        "namespace {name}_ns {{\n\
         {op_struct}\
         template <class I> struct Src {{\n\
         \x20 typedef {inc} T;\n\
         \x20 struct Pos {{{pos_fields} }};\n\
         {members}\
         \x20 const xp::Shape* ks;\n\
         \x20 const xp::Shape* rs;\n\
         \x20 XP_DEVICE Pos pos(I o) const {{\n\
         \x20   Pos p;\n\
         {pos}\
         \x20   return p;\n\
         \x20 }}\n\
         \x20 XP_DEVICE T get(const Pos& p, I j) const {{\n\
         \x20   const bool flat_r = rs->ndim == 1;\n\
         {loads}\
         {body}\
         \x20   return {result};\n\
         \x20 }}\n\
         \x20 template <int VE> XP_DEVICE bool vec_ok(const Pos& p, I j) const {{\n\
         \x20   (void)p;\n\
         \x20   (void)j;\n\
         \x20   return rs->ndim == 1{vec_ok};\n\
         \x20 }}\n\
         \x20 template <int VE> XP_DEVICE void get_vec(const Pos& p, I j, T (&x)[VE]) const {{\n\
         {vec_loads}\
         \x20   for (int e = 0; e < VE; ++e) {{\n\
         {vec_lanes}\
         {vec_body}\
         \x20     x[e] = {result};\n\
         \x20   }}\n\
         \x20 }}\n\
         }};\n\
         }}  // namespace {name}_ns\n\
         extern \"C\" __global__ void {name}({params}XP_GRID_CONST const xp::Shape jks, XP_GRID_CONST const xp::Shape jrs, \
         const {inc}* __restrict__ in, const {acc}* __restrict__ pin, \
         {outc}* __restrict__ out, {acc}* __restrict__ pout, XP_GRID_CONST const xp::Shape kshape, \
         XP_GRID_CONST const xp::Strides kstrides, XP_GRID_CONST const xp::Shape rshape, \
         XP_GRID_CONST const xp::Strides rstrides, {idx} n_out, {idx} n_red, {idx} seg, xp::i64 tile, \
         xp::i64 n_post, xp::i64 ddof) {{\n\
         \x20 (void)in;\n\
         \x20 {name}_ns::Src<{idx}> src;\n\
         {init}\
         \x20 src.ks = &jks;\n\
         \x20 src.rs = &jrs;\n\
         \x20 xp::red::run_src<{name}_ns::Op, {idx}>(src, pin, out, pout, kshape, kstrides, rshape, rstrides, n_out, \
         n_red, seg, tile, n_post, ddof);\n\
         }}\n",
        op_struct = op_struct(op),
        body = indent(&src.body, "    "),
        vec_body = indent(&src.body, "      "),
        result = src.result,
    );
    Rendered { name, code }
}

/// Fused reductions for the cross-vendor compile check: each strategy of the engine's fused
/// path, over a map of two arrays and a scalar (with a helper-using op and a cast), for a few
/// ops and dtypes, in both index widths.
pub fn sample_kernels() -> Vec<Rendered> {
    let mut out = Vec::new();
    for (name, d) in
        [("sum", DType::F32), ("argmax", DType::F64), ("var", DType::F16), ("prod", DType::C64), ("any", DType::Bool)]
    {
        let Ok(op) = super::builtin_reduce(name, d, 0) else { continue };
        let c = d.c_name();
        let src = FusedSource {
            arrays: vec![d, DType::F32],
            scalars: vec![d],
            body: format!(
                "{c} v0;\n{{\n  const {c} in0 = xp::cast<{c}>(l0);\n  const {c} in1 = xp::cast<{c}>(l1);\n  {c} out0;\n  out0 = in0 * in1;\n  v0 = out0;\n}}\nconst {c} v1 = xp::cast<{c}>(v0 + s0);"
            ),
            result: "v1".into(),
            preamble: String::new(),
        };
        for w in [IndexWidth::I32, IndexWidth::I64] {
            out.push(render_reduce_fused(&op, &src, w));
        }
    }
    out
}

fn indent(body: &str, by: &str) -> String {
    body.lines().map(|l| format!("{by}{l}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::builtin_reduce;

    #[test]
    fn joint_collapse_merges_only_what_every_array_allows() {
        // (4, 5, 6) contiguous beside a (4, 1, 6) broadcast, reducing axis 1.
        let a: Vec<isize> = vec![30, 6, 1];
        let m: Vec<isize> = vec![6, 0, 1];
        let c = collapse_joint(&[4, 5, 6], &[&a, &m], &[1]);
        assert_eq!(c.kshape, vec![4, 6]);
        assert_eq!(c.kstrides, vec![vec![30, 1], vec![6, 1]]);
        assert_eq!((c.rshape.clone(), c.rstrides.clone()), (vec![5], vec![vec![6], vec![0]]));
        // A full reduction of two contiguous arrays is one range.
        let c = collapse_joint(&[4, 5], &[&[5, 1], &[5, 1]], &[0, 1]);
        assert_eq!(
            (c.kshape.clone(), c.rshape.clone(), c.rstrides.clone()),
            (vec![1], vec![20], vec![vec![1], vec![1]])
        );
        // A row vector broadcast down a matrix keeps two reduced dimensions.
        let c = collapse_joint(&[4, 5], &[&[5, 1], &[0, 1]], &[0, 1]);
        assert_eq!((c.rshape.clone(), c.rstrides.clone()), (vec![4, 5], vec![vec![5, 1], vec![0, 1]]));
    }

    #[test]
    fn fused_kernels_name_their_parameters_once() {
        let op = builtin_reduce("sum", DType::F32, 0).unwrap();
        let src = FusedSource {
            arrays: vec![DType::F32, DType::F32],
            scalars: vec![DType::F32],
            body: "const float v0 = l0 * l1 + s0;".into(),
            result: "v0".into(),
            preamble: String::new(),
        };
        let r = render_reduce_fused(&op, &src, IndexWidth::I32);
        assert_eq!(crate::kernel_names(&r.code), vec![r.name.clone()]);
        assert!(r.code.contains("const float s0,"));
        assert!(!crate::cpu::uses_barrier(&r.code));
        let other = FusedSource { body: "const float v0 = l0 * l1 - s0;".into(), ..src };
        assert_ne!(render_reduce_fused(&op, &other, IndexWidth::I32).name, r.name);
    }
}
