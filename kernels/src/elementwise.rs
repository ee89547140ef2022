//! The elementwise kernel generator.
//!
//! One call of an elementwise op becomes one kernel: the inputs and outputs with their storage
//! dtypes (what the arrays hold) and compute dtypes (the type loop's), the body, the layout and
//! the index width. Operands are converted on load and on store with `xp::cast`, so mixed-dtype
//! calls need no temporary arrays.
//!
//! Layouts: [`Layout::Contiguous`] when every array operand is C-contiguous with the output's
//! shape (index `i` addresses element `i` of each; four elements per thread through vector
//! loads), [`Layout::Flat`] for the same below [`VECTOR_MIN`] elements (one element per thread:
//! as fast there, and quicker to compile), [`Layout::Strided`] otherwise, with the
//! broadcast shape and per-operand strides in elements (zero for broadcast dimensions). The
//! caller collapses contiguous dimensions first, so ranks stay small, and picks 32-bit indexing
//! when every offset fits. A strided kernel takes four elements at a time along a last extent
//! of a multiple of four when every array steps there by one element (aligned) or by none (a
//! broadcast operand, read once per group): `x - x.max(axis=1, keepdims=True)` runs at the
//! contiguous kernels' speed.
//!
//! The CPU's [`Layout::Rows`] kernels do two more things on rows whose outputs have unit stride.
//! A launch that writes at least [`STREAM_MIN_BYTES`] computes blocks of [`BLOCK`] elements into
//! a local buffer and copies them out with streaming (non-temporal) stores, which skip the read
//! of each output line that an ordinary store makes. An op whose loop has a [`FastBody`]
//! (float32 `sin`, `cos`) runs it over each block, then its exact body on the lanes the fast one
//! does not cover, before the block is stored: the inputs are still intact then, even when the
//! output is one of them. Such kernels are built for several x86-64 levels (`XP_CPU_CLONES` in
//! the prelude).

use std::fmt::Write;

use xp_backend_api::DType;

use crate::ops::FastBody;
use crate::render::sanitize;
pub use crate::render::{IndexWidth, Rendered};

/// How operands are addressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Element `i` of every operand is at offset `i`.
    Contiguous,
    /// As `Contiguous`, one element per thread, without the vector loads: for GPU launches
    /// below [`VECTOR_MIN`] elements.
    Flat,
    /// Offsets come from the shape and each operand's strides.
    Strided,
    /// Each thread takes one contiguous range of flat indices and walks it row by row (the last
    /// dimension), with straight loops for rows whose strides are all 0 or 1 — the form a
    /// host compiler vectorises. The layout of the CPU backend; GPUs use the other two.
    Rows,
}

impl Layout {
    /// Whether kernels of this layout take the (merged) shape and each array operand's
    /// strides after their pointers; the contiguous layouts take only the element count.
    pub fn takes_strides(self) -> bool {
        matches!(self, Layout::Strided | Layout::Rows)
    }
}

/// One operand of an elementwise kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The dtype in memory (or of the scalar argument).
    pub storage: DType,
    /// The dtype the body sees.
    pub compute: DType,
    /// Passed by value, the same for every element (a weak scalar or a 0-d operand).
    pub scalar: bool,
}

impl Operand {
    /// An array operand.
    pub fn array(storage: DType, compute: DType) -> Self {
        Operand { storage, compute, scalar: false }
    }
    /// A by-value operand.
    pub fn scalar(storage: DType, compute: DType) -> Self {
        Operand { storage, compute, scalar: true }
    }
}

/// Everything that decides an elementwise kernel's code.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElementwiseSpec {
    /// A stem for the kernel name (the op's name).
    pub op: String,
    /// Inputs, in order (`in0`, `in1`…).
    pub inputs: Vec<Operand>,
    /// Outputs (`out0`…); never scalars.
    pub outputs: Vec<Operand>,
    /// Statements computing the outputs from the inputs.
    pub body: String,
    /// Code before the kernel.
    pub preamble: String,
    /// Addressing.
    pub layout: Layout,
    /// Index width.
    pub index: IndexWidth,
    /// A vectorisable form of `body` for [`Layout::Rows`] (see [`FastBody`]); other layouts
    /// ignore it.
    pub fast: Option<FastBody>,
}

impl ElementwiseSpec {
    /// Write the kernel.
    ///
    /// Parameters, in order: each input (`const T* __restrict__ inK_p`, or `T inK_v` for a
    /// scalar), each output (`T* __restrict__ outK_p`); for the strided layout, `xp::Shape
    /// shape` then one `xp::Strides` per array operand (inputs then outputs); finally the
    /// element count `n` of the index type.
    pub fn render(&self) -> Rendered {
        let idx = self.index.c_name();
        let mut params = Vec::new();
        for (k, o) in self.inputs.iter().enumerate() {
            if o.scalar {
                params.push(format!("{} in{k}_v", o.storage.c_name()));
            } else {
                params.push(format!("const {}* __restrict__ in{k}_p", o.storage.c_name()));
            }
        }
        for (k, o) in self.outputs.iter().enumerate() {
            params.push(format!("{}* __restrict__ out{k}_p", o.storage.c_name()));
        }
        if self.layout == Layout::Rows {
            return self.render_rows(params);
        }
        let strided = self.layout == Layout::Strided;
        let arrays: Vec<String> = self
            .inputs
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.scalar)
            .map(|(k, _)| format!("in{k}"))
            .chain((0..self.outputs.len()).map(|k| format!("out{k}")))
            .collect();
        if strided {
            params.push("XP_GRID_CONST const xp::Shape shape".into());
            for a in &arrays {
                params.push(format!("XP_GRID_CONST const xp::Strides st_{a}"));
            }
        }
        params.push(format!("{idx} n"));

        let mut b = String::new();
        if strided {
            let _ = writeln!(b, "    {idx} rem_ = i;");
            for a in &arrays {
                let _ = writeln!(b, "    {idx} o_{a} = 0;");
            }
            let _ = writeln!(b, "    for (int d = (int)shape.ndim - 1; d >= 0; --d) {{");
            let _ = writeln!(b, "      {idx} c_ = rem_ % ({idx})shape.dims[d];");
            let _ = writeln!(b, "      rem_ /= ({idx})shape.dims[d];");
            for a in &arrays {
                let _ = writeln!(b, "      o_{a} += c_ * ({idx})st_{a}.s[d];");
            }
            let _ = writeln!(b, "    }}");
        }
        let at = |a: String| if strided { format!("o_{a}") } else { "i".to_string() };
        self.element(
            &mut b,
            "    ",
            &self.body,
            |k| format!("in{k}_p[{}]", at(format!("in{k}"))),
            |k| format!("out{k}_p[{}]", at(format!("out{k}"))),
        );

        let (mut code, name) = self.head();
        let vector = self.layout == Layout::Contiguous;
        if vector || strided {
            code.push_str(VEC4);
        }
        let _ = writeln!(code, "extern \"C\" __global__ void {name}({}) {{", params.join(", "));
        if strided {
            self.row_vector_loop(&mut code, idx);
        }
        if !vector {
            let _ = writeln!(code, "  XP_FOR_EACH({idx}, i, n) {{");
        } else {
            self.vector_loop(&mut code, idx);
            let _ = writeln!(
                code,
                "  for ({idx} i = first_ + ({idx})blockIdx.x * ({idx})blockDim.x + ({idx})threadIdx.x; i < n; i += ({idx})blockDim.x * ({idx})gridDim.x) {{"
            );
        }
        code.push_str(&b);
        let _ = writeln!(code, "  }}");
        let _ = writeln!(code, "}}");
        Rendered { name, code }
    }

    /// The contiguous layout's main loop: four elements per thread through one aligned vector
    /// load or store per operand, when every pointer is aligned for it. It handles the
    /// elements below `4·⌊n/4⌋` and then lets the scalar loop finish the rest.
    fn vector_loop(&self, c: &mut String, idx: &str) {
        let mut conds = Vec::new();
        for (k, o) in self.inputs.iter().enumerate() {
            if !o.scalar {
                conds.push(format!("((unsigned long long)in{k}_p % (4 * sizeof({}))) == 0", o.storage.c_name()));
            }
        }
        for (k, o) in self.outputs.iter().enumerate() {
            conds.push(format!("((unsigned long long)out{k}_p % (4 * sizeof({}))) == 0", o.storage.c_name()));
        }
        let _ = writeln!(c, "  {idx} first_ = 0;");
        let _ = writeln!(c, "  if ({}) {{", conds.join(" && "));
        let _ = writeln!(c, "    const {idx} nv_ = n / 4;");
        let _ = writeln!(c, "    XP_FOR_EACH({idx}, v_, nv_) {{");
        for (k, o) in self.inputs.iter().enumerate() {
            if !o.scalar {
                let t = o.storage.c_name();
                let _ =
                    writeln!(c, "      const xp_vec4<{t}> a{k}_ = reinterpret_cast<const xp_vec4<{t}>*>(in{k}_p)[v_];");
            }
        }
        self.group_of_four(c, "      ", idx);
        for (k, o) in self.outputs.iter().enumerate() {
            let _ = writeln!(c, "      reinterpret_cast<xp_vec4<{}>*>(out{k}_p)[v_] = r{k}_;", o.storage.c_name());
        }
        let _ = writeln!(c, "    }}");
        let _ = writeln!(c, "    first_ = nv_ * 4;");
        let _ = writeln!(c, "  }}");
    }
}

impl ElementwiseSpec {
    /// Four elements of group `v_` from the inputs `a{k}_` into the outputs `r{k}_` (declared
    /// here), the flat index `i` in scope for the body; `pad` indents it.
    fn group_of_four(&self, c: &mut String, pad: &str, idx: &str) {
        for (k, o) in self.outputs.iter().enumerate() {
            let _ = writeln!(c, "{pad}xp_vec4<{}> r{k}_;", o.storage.c_name());
        }
        let _ = writeln!(c, "{pad}#pragma unroll");
        let _ = writeln!(c, "{pad}for (int e_ = 0; e_ < 4; ++e_) {{");
        let _ = writeln!(c, "{pad}  const {idx} i = v_ * 4 + e_;");
        let _ = writeln!(c, "{pad}  (void)i;");
        self.element(c, &format!("{pad}  "), &self.body, |k| format!("a{k}_.v[e_]"), |k| format!("r{k}_.v[e_]"));
        let _ = writeln!(c, "{pad}}}");
    }

    /// The strided layout's loop over groups of four elements along the last dimension, taken
    /// when every array operand steps by one element there (loaded and stored four at a time,
    /// aligned) or by none (a broadcast operand: read once per group), and the last extent is
    /// a multiple of four: `x - x.max(axis=1, keepdims=True)`, `(x - mean0) / std0`. One
    /// division per group finds its row; the scalar loop after it serves every other launch.
    fn row_vector_loop(&self, c: &mut String, idx: &str) {
        let _ = writeln!(c, "  {{");
        let _ = writeln!(c, "    const int nd_ = (int)shape.ndim;");
        let _ = writeln!(c, "    const {idx} l_ = nd_ > 0 ? ({idx})shape.dims[nd_ - 1] : 0;");
        let _ = writeln!(c, "    bool vec_ = nd_ > 0 && l_ % 4 == 0;");
        let mut arrays: Vec<(String, &'static str, bool)> = Vec::new();
        for (k, o) in self.inputs.iter().enumerate() {
            if !o.scalar {
                arrays.push((format!("in{k}"), o.storage.c_name(), true));
            }
        }
        for (k, o) in self.outputs.iter().enumerate() {
            arrays.push((format!("out{k}"), o.storage.c_name(), false));
        }
        for (a, t, input) in &arrays {
            let unit = format!(
                "(st_{a}.s[nd_ - 1] == 1 && ((unsigned long long){a}_p % (4 * sizeof({t}))) == 0 && xp_outer4(st_{a}, nd_))"
            );
            if *input {
                let _ = writeln!(c, "    vec_ = vec_ && (st_{a}.s[nd_ - 1] == 0 || {unit});");
            } else {
                let _ = writeln!(c, "    vec_ = vec_ && {unit};");
            }
        }
        let _ = writeln!(c, "    if (vec_) {{");
        let _ = writeln!(c, "      const {idx} lv_ = l_ / 4;");
        let _ = writeln!(c, "      XP_FOR_EACH({idx}, v_, n / 4) {{");
        let _ = writeln!(c, "        {idx} rem_ = v_ / lv_;");
        let _ = writeln!(c, "        const {idx} c0_ = (v_ - rem_ * lv_) * 4;");
        for (a, _, _) in &arrays {
            let _ = writeln!(c, "        {idx} o_{a} = c0_ * ({idx})st_{a}.s[nd_ - 1];");
        }
        let _ = writeln!(c, "        for (int d = nd_ - 2; d >= 0; --d) {{");
        let _ = writeln!(c, "          const {idx} q_ = rem_ / ({idx})shape.dims[d];");
        let _ = writeln!(c, "          const {idx} c_ = rem_ - q_ * ({idx})shape.dims[d];");
        let _ = writeln!(c, "          rem_ = q_;");
        for (a, _, _) in &arrays {
            let _ = writeln!(c, "          o_{a} += c_ * ({idx})st_{a}.s[d];");
        }
        let _ = writeln!(c, "        }}");
        for (k, o) in self.inputs.iter().enumerate() {
            if o.scalar {
                continue;
            }
            let t = o.storage.c_name();
            let _ = writeln!(c, "        xp_vec4<{t}> a{k}_;");
            let _ = writeln!(c, "        if (st_in{k}.s[nd_ - 1] == 0) {{");
            let _ = writeln!(c, "          const {t} u_ = in{k}_p[o_in{k}];");
            let _ = writeln!(c, "          for (int e_ = 0; e_ < 4; ++e_) a{k}_.v[e_] = u_;");
            let _ = writeln!(c, "        }} else {{");
            let _ = writeln!(c, "          a{k}_ = *reinterpret_cast<const xp_vec4<{t}>*>(in{k}_p + o_in{k});");
            let _ = writeln!(c, "        }}");
        }
        self.group_of_four(c, "        ", idx);
        for (k, o) in self.outputs.iter().enumerate() {
            let _ = writeln!(
                c,
                "        *reinterpret_cast<xp_vec4<{}>*>(out{k}_p + o_out{k}) = r{k}_;",
                o.storage.c_name()
            );
        }
        let _ = writeln!(c, "      }}");
        let _ = writeln!(c, "      return;");
        let _ = writeln!(c, "    }}");
        let _ = writeln!(c, "  }}");
    }
}

/// Elements from which a contiguous GPU launch uses [`Layout::Contiguous`] (four elements per
/// thread through vector loads) rather than [`Layout::Flat`]. Below it a launch is bound by its
/// own overhead, not by bandwidth, so the vector loads gain nothing, while the kernel without
/// them compiles in about three quarters of the time (NVRTC, a one-line body: 27 against
/// 34 ms on a 2-core x86-64) — the wait of the first call of a new kernel, which is usually
/// tried on small arrays first.
pub const VECTOR_MIN: usize = 1 << 20;

/// The layout of a GPU launch over `n` elements whose operands are all C-contiguous with the
/// output's shape (`contiguous`), else strided.
pub fn gpu_layout(n: usize, contiguous: bool) -> Layout {
    match (contiguous, n >= VECTOR_MIN) {
        (false, _) => Layout::Strided,
        (true, true) => Layout::Contiguous,
        (true, false) => Layout::Flat,
    }
}

/// Inputs up to which a [`Layout::Rows`] kernel has a straight loop for every pattern of unit
/// and zero input strides (2^inputs loops); a kernel of more inputs has one for unit strides.
pub const MAX_PATTERN_INPUTS: usize = 3;

/// Elements per block of a row kernel's buffered loop (see `blocked_row`).
pub const BLOCK: usize = 256;

/// Output bytes from which a row kernel streams its stores past the cache: a launch that writes
/// this much will not be read back from the cache soon (the cache is a few MiB per core), and a
/// streaming store saves the read of each line that an ordinary store makes first, a third of
/// the traffic of a binary op (on a 2-core AMD EPYC, `add` of 2^24 float32 took 6.0 ms, now 4.7
/// ms). Below it, outputs stay in the cache for the next op.
pub const STREAM_MIN_BYTES: usize = 4 << 20;

/// Elements from which a row is streamed; shorter rows keep ordinary stores.
pub const STREAM_MIN_ROW: usize = 64;

/// Four elements in one aligned load or store.
const VEC4: &str = "#ifndef XP_VEC4_DEFINED\n#define XP_VEC4_DEFINED\ntemplate <class T> struct alignas(4 * sizeof(T)) xp_vec4 { T v[4]; };\n\
template <class S> XP_DEVICE bool xp_outer4(const S& st, int nd) {\n  for (int d = 0; d + 1 < nd; ++d)\n    if (st.s[d] % 4 != 0) return false;\n  return true;\n}\n#endif\n";

impl ElementwiseSpec {
    /// The preamble and the kernel's name. The name carries the op and a hash of everything
    /// else, so equal names mean equal code.
    fn head(&self) -> (String, String) {
        let mut code = String::new();
        if !self.preamble.is_empty() {
            code.push_str(&self.preamble);
            code.push('\n');
        }
        let mut tag = String::new();
        let _ = write!(tag, "{}|{}|{:?}|{:?}|", self.body, self.preamble, self.layout, self.index);
        if self.layout == Layout::Rows {
            let _ = write!(tag, "{:?}|", self.fast);
        }
        for o in self.inputs.iter().chain(&self.outputs) {
            let _ = write!(tag, "{}{}{}|", o.storage.short(), o.compute.short(), o.scalar);
        }
        let name = format!("xp_{}_{:016x}", sanitize(&self.op), xxhash_rust::xxh3::xxh3_64(tag.as_bytes()));
        (code, name)
    }

    /// The [`Layout::Rows`] kernel: parameters as the strided layout. Thread `t` of `g` takes
    /// flat indices `[t·⌈n/g⌉, (t+1)·⌈n/g⌉)`, finds their N-d position once, then walks the
    /// rows of the last dimension, advancing every operand's offset like an odometer.
    fn render_rows(&self, mut params: Vec<String>) -> Rendered {
        let idx = self.index.c_name();
        let arrays: Vec<(String, DType)> = self
            .inputs
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.scalar)
            .map(|(k, o)| (format!("in{k}"), o.storage))
            .chain(self.outputs.iter().enumerate().map(|(k, o)| (format!("out{k}"), o.storage)))
            .collect();
        params.push("xp::Shape shape".into());
        for (a, _) in &arrays {
            params.push(format!("xp::Strides st_{a}"));
        }
        params.push(format!("{idx} n"));
        let (mut code, name) = self.head();
        let w = &mut code;
        let clones = if self.fast.is_some() { "XP_CPU_CLONES " } else { "" };
        let _ = writeln!(w, "extern \"C\" {clones}__global__ void {name}({}) {{", params.join(", "));
        let _ = writeln!(w, "  const {idx} g_ = ({idx})gridDim.x * ({idx})blockDim.x;");
        let _ = writeln!(w, "  const {idx} t_ = ({idx})blockIdx.x * ({idx})blockDim.x + ({idx})threadIdx.x;");
        let _ = writeln!(w, "  const {idx} chunk_ = n / g_ + (n % g_ != 0);");
        let _ = writeln!(w, "  const {idx} lo_ = t_ * chunk_ < n ? t_ * chunk_ : n;");
        let _ = writeln!(w, "  const {idx} hi_ = lo_ + chunk_ < n ? lo_ + chunk_ : n;");
        let _ = writeln!(w, "  if (lo_ >= hi_) return;");
        let out_bytes: usize = self.outputs.iter().map(|o| o.storage.size()).sum();
        let _ = writeln!(w, "  const bool stream_ = (unsigned long long)n * {out_bytes}ull >= {STREAM_MIN_BYTES}ull;");
        let _ = writeln!(w, "  const int nd_ = (int)shape.ndim;");
        let _ = writeln!(w, "  {idx} ix_[XP_MAX_DIMS];");
        for (a, _) in &arrays {
            let _ = writeln!(w, "  {idx} o_{a} = 0;");
        }
        let _ = writeln!(w, "  {{");
        let _ = writeln!(w, "    {idx} r_ = lo_;");
        let _ = writeln!(w, "    for (int d = nd_ - 1; d >= 0; --d) {{");
        let _ = writeln!(w, "      ix_[d] = r_ % ({idx})shape.dims[d];");
        let _ = writeln!(w, "      r_ /= ({idx})shape.dims[d];");
        for (a, _) in &arrays {
            let _ = writeln!(w, "      o_{a} += ix_[d] * ({idx})st_{a}.s[d];");
        }
        let _ = writeln!(w, "    }}");
        let _ = writeln!(w, "  }}");
        let _ = writeln!(w, "  const {idx} len_last_ = ({idx})shape.dims[nd_ - 1];");
        for (a, _) in &arrays {
            let _ = writeln!(w, "  const {idx} s_{a} = ({idx})st_{a}.s[nd_ - 1];");
        }
        let _ = writeln!(w, "  for ({idx} done_ = lo_; done_ < hi_;) {{");
        let _ = writeln!(w, "    const {idx} room_ = len_last_ - ix_[nd_ - 1];");
        let _ = writeln!(w, "    const {idx} len_ = room_ < hi_ - done_ ? room_ : hi_ - done_;");
        for (a, d) in &arrays {
            let c = if a.starts_with("in") { "const " } else { "" };
            let _ = writeln!(w, "    {c}{t}* __restrict__ p_{a} = {a}_p + o_{a};", t = d.c_name());
        }
        // Straight loops for every pattern of input strides in {0, 1} with unit-stride outputs,
        // then the general loop.
        let ins: Vec<&String> = arrays.iter().filter(|(a, _)| a.starts_with("in")).map(|(a, _)| a).collect();
        let outs: Vec<&String> = arrays.iter().filter(|(a, _)| a.starts_with("out")).map(|(a, _)| a).collect();
        // Every pattern is 2^inputs loops: kernels of more inputs (fused chains) get the
        // all-unit-stride loop only, before the general one.
        let all_unit = (1u64 << ins.len()) - 1;
        let patterns: Vec<u64> =
            if ins.len() > MAX_PATTERN_INPUTS { vec![all_unit] } else { (0..=all_unit).rev().collect() };
        for (nth, &p) in patterns.iter().enumerate() {
            let mut conds = Vec::new();
            let mut stride_of = std::collections::HashMap::new();
            for (bit, a) in ins.iter().enumerate() {
                let unit = (p >> (ins.len() - 1 - bit)) & 1 == 1;
                conds.push(format!("s_{a} == {}", if unit { 1 } else { 0 }));
                stride_of.insert(a.to_string(), if unit { "j_".to_string() } else { "0".to_string() });
            }
            for a in &outs {
                conds.push(format!("s_{a} == 1"));
                stride_of.insert(a.to_string(), "j_".to_string());
            }
            let _ = writeln!(w, "    {}if ({}) {{", if nth == 0 { "" } else { "else " }, conds.join(" && "));
            self.blocked_row(w, &stride_of, idx);
            let _ = writeln!(w, "    }}");
        }
        let mut general = std::collections::HashMap::new();
        for (a, _) in &arrays {
            general.insert(a.clone(), format!("j_ * s_{a}"));
        }
        let _ = writeln!(w, "    else {{");
        self.row_loop(w, &general, idx, "0", "len_");
        let _ = writeln!(w, "    }}");
        let _ = writeln!(w, "    done_ += len_;");
        let _ = writeln!(w, "    ix_[nd_ - 1] += len_;");
        for (a, _) in &arrays {
            let _ = writeln!(w, "    o_{a} += len_ * s_{a};");
        }
        let _ = writeln!(w, "    for (int d = nd_ - 1; d > 0 && ix_[d] == ({idx})shape.dims[d]; --d) {{");
        let _ = writeln!(w, "      ix_[d] = 0;");
        let _ = writeln!(w, "      ix_[d - 1] += 1;");
        for (a, _) in &arrays {
            let _ = writeln!(w, "      o_{a} += ({idx})st_{a}.s[d - 1] - ({idx})shape.dims[d] * ({idx})st_{a}.s[d];");
        }
        let _ = writeln!(w, "    }}");
        let _ = writeln!(w, "  }}");
        let _ = writeln!(w, "  if (stream_) xp::cpu::stream_fence();");
        let _ = writeln!(w, "}}");
        Rendered { name, code }
    }

    /// A row whose outputs have unit stride. Elements `[0, b_)` take the plain loop, the rest
    /// go through blocks of [`BLOCK`] elements computed into local buffers, then copied out,
    /// with streaming stores when the launch writes at least [`STREAM_MIN_BYTES`] and the row
    /// is long enough. Without a fast body, a row that is not streamed is all plain loop;
    /// with one, it is all blocks but a streamed row's unaligned head.
    fn blocked_row(&self, w: &mut String, at: &std::collections::HashMap<String, String>, idx: &str) {
        let all_blocks = if self.fast.is_some() { "0" } else { "len_" };
        let _ = writeln!(w, "      {idx} b_ = {all_blocks};");
        let _ = writeln!(w, "      bool st_ = false;");
        let _ = writeln!(w, "      if (stream_ && len_ >= {STREAM_MIN_ROW}) {{");
        let _ = writeln!(w, "        const {idx} h_ = ({idx})xp::cpu::stream_head(p_out0, (long long)len_);");
        let mut aligned = vec!["h_ < len_".to_string()];
        for k in 1..self.outputs.len() {
            aligned.push(format!("(unsigned long long)(p_out{k} + h_) % 16 == 0"));
        }
        let _ = writeln!(w, "        if ({}) {{ b_ = h_; st_ = true; }}", aligned.join(" && "));
        let _ = writeln!(w, "      }}");
        self.row_loop(w, at, idx, "0", "b_");
        let _ = writeln!(w, "      for ({idx} b0_ = b_; b0_ < len_; b0_ += {BLOCK}) {{");
        let _ = writeln!(w, "        const {idx} bl_ = len_ - b0_ < {BLOCK} ? len_ - b0_ : {BLOCK};");
        for (k, o) in self.outputs.iter().enumerate() {
            let _ = writeln!(w, "        alignas(64) {} buf_out{k}[{BLOCK}];", o.storage.c_name());
        }
        if self.fast.is_some() {
            let _ = writeln!(w, "        unsigned char exact_[{BLOCK}];");
            let _ = writeln!(w, "        unsigned char any_exact_ = 0;");
        }
        let body = self.fast.map_or(self.body.as_str(), |f| f.body);
        self.block_pass(w, at, idx, body, "");
        if let Some(f) = self.fast {
            let _ = writeln!(w, "          const unsigned char e_ = ({}) ? 1 : 0;", f.exact_if);
            let _ = writeln!(w, "          exact_[k_] = e_;");
            let _ = writeln!(w, "          any_exact_ |= e_;");
            let _ = writeln!(w, "        }}");
            // The second pass reads the inputs again: the block is not stored yet, so an
            // output that is also an input still holds them.
            let _ = writeln!(w, "        if (any_exact_) {{");
            self.block_pass(w, at, idx, &self.body, "if (!exact_[k_]) continue;");
            let _ = writeln!(w, "          }}");
        }
        let _ = writeln!(w, "        }}");
        for (k, o) in self.outputs.iter().enumerate() {
            let _ = writeln!(
                w,
                "        xp::cpu::store_block(p_out{k} + b0_, buf_out{k}, (unsigned long long)bl_ * sizeof({}), st_);",
                o.storage.c_name()
            );
        }
        let _ = writeln!(w, "      }}");
    }

    /// The loop over one block computing `body` into the block's buffers; left open after
    /// the stores.
    fn block_pass(
        &self,
        w: &mut String,
        at: &std::collections::HashMap<String, String>,
        idx: &str,
        body: &str,
        skip: &str,
    ) {
        let _ = writeln!(w, "        for ({idx} k_ = 0; k_ < bl_; ++k_) {{");
        if !skip.is_empty() {
            let _ = writeln!(w, "          {skip}");
        }
        let _ = writeln!(w, "          const {idx} j_ = b0_ + k_;");
        self.element(
            w,
            "          ",
            body,
            |k| format!("p_in{k}[{}]", at[&format!("in{k}")]),
            |k| format!("buf_out{k}[k_]"),
        );
    }

    /// One loop over elements `[from, to)` of a row, operand `a` addressed at `p_a[at[a]]`.
    fn row_loop(
        &self,
        w: &mut String,
        at: &std::collections::HashMap<String, String>,
        idx: &str,
        from: &str,
        to: &str,
    ) {
        let _ = writeln!(w, "      for ({idx} j_ = {from}; j_ < {to}; ++j_) {{");
        self.element(
            w,
            "        ",
            &self.body,
            |k| format!("p_in{k}[{}]", at[&format!("in{k}")]),
            |k| format!("p_out{k}[{}]", at[&format!("out{k}")]),
        );
        let _ = writeln!(w, "      }}");
    }

    /// One element's statements, each line indented by `pad`: every input read (array input
    /// `k` from `src(k)`, a scalar from its argument) and cast to its compute dtype, the outputs
    /// declared, `body`, then every output cast to its storage dtype and written to `dst(k)`.
    /// Every layout's loops emit their elements through it.
    fn element(
        &self,
        w: &mut String,
        pad: &str,
        body: &str,
        src: impl Fn(usize) -> String,
        dst: impl Fn(usize) -> String,
    ) {
        for (k, o) in self.inputs.iter().enumerate() {
            let from = if o.scalar { format!("in{k}_v") } else { src(k) };
            let _ = writeln!(w, "{pad}const {c} in{k} = xp::cast<{c}>({from});", c = o.compute.c_name());
        }
        for (k, o) in self.outputs.iter().enumerate() {
            let _ = writeln!(w, "{pad}{} out{k};", o.compute.c_name());
        }
        let _ = writeln!(w, "{pad}{body}");
        for (k, o) in self.outputs.iter().enumerate() {
            let _ = writeln!(w, "{pad}{} = xp::cast<{}>(out{k});", dst(k), o.storage.c_name());
        }
    }
}

/// The C expression of the flat (C-order) index of the element a body computes, for layouts
/// whose loop does not name it `i` (`None`: `i` is in scope). User kernels that index `raw`
/// arguments by hand declare `i` from it.
pub fn flat_index_expr(layout: Layout) -> Option<&'static str> {
    match layout {
        Layout::Rows => Some("(done_ + j_)"),
        Layout::Contiguous | Layout::Flat | Layout::Strided => None,
    }
}

/// Merge adjacent dimensions that are contiguous in every operand, and drop dimensions of
/// extent 1, so a kernel sees the smallest rank that addresses the same elements.
/// `strides[k]` are operand `k`'s strides in elements (0 for broadcast dimensions). The result
/// has rank at least 1.
pub fn collapse(shape: &[usize], strides: &[Vec<isize>]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let mut out_shape: Vec<usize> = Vec::new();
    let mut out_strides: Vec<Vec<isize>> = vec![Vec::new(); strides.len()];
    for d in 0..shape.len() {
        if shape[d] == 1 {
            continue;
        }
        let merge = !out_shape.is_empty()
            && strides
                .iter()
                .zip(&out_strides)
                .all(|(st, os)| *os.last().expect("same rank") == st[d] * shape[d] as isize);
        if merge {
            *out_shape.last_mut().expect("non-empty") *= shape[d];
            for (st, os) in strides.iter().zip(out_strides.iter_mut()) {
                *os.last_mut().expect("non-empty") = st[d];
            }
        } else {
            out_shape.push(shape[d]);
            for (st, os) in strides.iter().zip(out_strides.iter_mut()) {
                os.push(st[d]);
            }
        }
    }
    if out_shape.is_empty() || shape.contains(&0) {
        let n = shape.iter().product();
        return (vec![n], vec![vec![1]; strides.len()]);
    }
    (out_shape, out_strides)
}

/// The index width for `n` elements whose offsets (in elements, relative to each operand's
/// start) reach at most `max_offset` in magnitude: 32-bit when both fit.
pub fn index_width_for(n: usize, max_offset: usize) -> IndexWidth {
    if n < i32::MAX as usize && max_offset < i32::MAX as usize {
        IndexWidth::I32
    } else {
        IndexWidth::I64
    }
}

/// The kernel the array layer renders for op `op`'s loop `lp` when every operand's storage
/// dtype is the loop's.
pub fn loop_spec(
    op: &crate::ops::ElementwiseOp,
    lp: &crate::ops::TypeLoop,
    layout: Layout,
    index: IndexWidth,
) -> ElementwiseSpec {
    let (ins, outs) = lp.dtypes();
    ElementwiseSpec {
        op: op.name.to_string(),
        inputs: ins.iter().map(|d| Operand::array(*d, *d)).collect(),
        outputs: outs.iter().map(|d| Operand::array(*d, *d)).collect(),
        body: lp.body.unwrap_or(op.body).to_string(),
        preamble: op.preamble.to_string(),
        layout,
        index,
        fast: lp.fast,
    }
}

/// The conversion kernel of `astype` from `from` to `to` (rules of `xp::cast`).
pub fn cast_spec(from: DType, to: DType, layout: Layout, index: IndexWidth) -> ElementwiseSpec {
    ElementwiseSpec {
        op: format!("astype_{}_{}", from.short(), to.short()),
        inputs: vec![Operand::array(from, to)],
        outputs: vec![Operand::array(to, to)],
        body: "out0 = in0;".into(),
        preamble: String::new(),
        layout,
        index,
        fast: None,
    }
}

/// Every kernel the ops of [`crate::ops::ALL`] emit on the CPU backend (the [`Layout::Rows`]
/// layout, 64-bit indices, operands of the loop's dtypes; the array layer casts other dtypes
/// first): the set the CPU backend compiles ahead of time.
pub fn builtin_kernels() -> Vec<Rendered> {
    let mut out = Vec::new();
    for op in crate::ops::ALL {
        for lp in op.loops {
            out.push(loop_spec(op, lp, Layout::Rows, IndexWidth::I64).render());
        }
    }
    for from in DType::ALL {
        for to in DType::ALL {
            if from != to {
                out.push(cast_spec(from, to, Layout::Rows, IndexWidth::I64).render());
            }
        }
    }
    out
}

/// The layouts and index widths GPU launches use ([`Layout::Flat`] only below [`VECTOR_MIN`]
/// elements, so with 32-bit indices).
const GPU_FORMS: [(Layout, IndexWidth); 5] = [
    (Layout::Contiguous, IndexWidth::I32),
    (Layout::Contiguous, IndexWidth::I64),
    (Layout::Flat, IndexWidth::I32),
    (Layout::Strided, IndexWidth::I32),
    (Layout::Strided, IndexWidth::I64),
];

/// A sample of [`gpu_kernels`] that still meets every op's every loop body and every GPU form:
/// each loop of an op in one form (the forms taken in turn along the op's loops, starting at
/// a different form for each op), the forms its loops did not reach in its first loop, and
/// each cast in one form (in turn). What the cross-vendor compile check compiles in CI as the
/// op table grows; [`gpu_kernels`] is the whole set.
pub fn gpu_kernels_sampled() -> Vec<Rendered> {
    let mut out = Vec::new();
    for (k, op) in crate::ops::ALL.iter().enumerate() {
        for (j, lp) in op.loops.iter().enumerate() {
            let (layout, index) = GPU_FORMS[(j + k) % GPU_FORMS.len()];
            out.push(loop_spec(op, lp, layout, index).render());
        }
        if let Some(first) = op.loops.first() {
            for f in op.loops.len()..GPU_FORMS.len() {
                let (layout, index) = GPU_FORMS[(f + k) % GPU_FORMS.len()];
                out.push(loop_spec(op, first, layout, index).render());
            }
        }
    }
    let mut k = 0usize;
    for from in DType::ALL {
        for to in DType::ALL {
            if from != to {
                let (layout, index) = GPU_FORMS[k % GPU_FORMS.len()];
                out.push(cast_spec(from, to, layout, index).render());
                k += 1;
            }
        }
    }
    out
}

/// Every kernel the ops of [`crate::ops::ALL`] emit on GPUs, in every layout and index width
/// they launch with: the set the cross-vendor check compiles.
pub fn gpu_kernels() -> Vec<Rendered> {
    let mut out = Vec::new();
    for op in crate::ops::ALL {
        for lp in op.loops {
            // GPU layouts ignore fast bodies (see `fast_bodies_shape_only_cpu_row_kernels`).
            for (layout, index) in GPU_FORMS {
                out.push(loop_spec(op, lp, layout, index).render());
            }
        }
    }
    for from in DType::ALL {
        for to in DType::ALL {
            if from != to {
                for (layout, index) in GPU_FORMS {
                    out.push(cast_spec(from, to, layout, index).render());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_strided_mixed_kernel() {
        let spec = ElementwiseSpec {
            op: "add".into(),
            inputs: vec![Operand::array(DType::F16, DType::F32), Operand::scalar(DType::F64, DType::F32)],
            outputs: vec![Operand::array(DType::F32, DType::F32)],
            body: "out0 = in0 + in1;".into(),
            preamble: String::new(),
            layout: Layout::Strided,
            index: IndexWidth::I64,
            fast: None,
        };
        let r = spec.render();
        assert!(r.name.starts_with("xp_add_"));
        assert!(r.code.contains("const xp::f16* __restrict__ in0_p, double in1_v, float* __restrict__ out0_p"));
        assert!(r.code.contains("const xp::Strides st_in0, XP_GRID_CONST const xp::Strides st_out0, xp::i64 n"));
        assert!(!r.code.contains("st_in1"));
        assert_eq!(crate::kernel_names(&r.code), vec![r.name.clone()]);
        // A different index width is a different kernel.
        let r2 = ElementwiseSpec { index: IndexWidth::I32, ..spec }.render();
        assert_ne!(r.name, r2.name);
    }

    #[test]
    fn collapse_merges_contiguous_dimensions() {
        // A C-contiguous (2,3,4) array and a broadcast row (strides 0,0,1 in a (2,3,4) view).
        let (sh, st) = collapse(&[2, 3, 4], &[vec![12, 4, 1], vec![0, 0, 1]]);
        assert_eq!(sh, vec![6, 4]);
        assert_eq!(st, vec![vec![4, 1], vec![0, 1]]);
        // Fully contiguous operands become 1-D.
        let (sh, st) = collapse(&[2, 1, 3], &[vec![3, 3, 1], vec![3, 3, 1]]);
        assert_eq!((sh, st), (vec![6], vec![vec![1], vec![1]]));
        // A transposed operand keeps the rank.
        let (sh, _) = collapse(&[3, 4], &[vec![4, 1], vec![1, 3]]);
        assert_eq!(sh, vec![3, 4]);
        assert_eq!(collapse(&[], &[vec![]]).0, vec![1]);
        assert_eq!(index_width_for(10, 10), IndexWidth::I32);
        assert_eq!(index_width_for(1 << 31, 0), IndexWidth::I64);
    }

    #[test]
    fn fast_bodies_shape_only_cpu_row_kernels() {
        let lp = crate::ops::SIN.loops.iter().find(|l| l.sig == "f->f").expect("sin has a float32 loop");
        let rows = loop_spec(&crate::ops::SIN, lp, Layout::Rows, IndexWidth::I64).render();
        assert!(rows.code.contains("XP_CPU_CLONES"));
        assert!(rows.code.contains("out0 = xp::cpu::sin_fast(in0);"));
        assert!(rows.code.contains("if (!exact_[k_]) continue;"));
        assert!(rows.code.contains("out0 = xp::sin(in0);"));
        for layout in [Layout::Contiguous, Layout::Flat, Layout::Strided] {
            let spec = loop_spec(&crate::ops::SIN, lp, layout, IndexWidth::I32);
            let gpu = spec.render();
            assert!(!gpu.code.contains("xp::cpu::"));
            assert_eq!(gpu, ElementwiseSpec { fast: None, ..spec }.render());
        }
    }

    #[test]
    fn builtin_names_are_unique() {
        let mut all = builtin_kernels();
        all.extend(gpu_kernels());
        let mut names: Vec<_> = all.iter().map(|r| r.name.clone()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
    }
}
