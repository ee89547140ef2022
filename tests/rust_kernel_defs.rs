//! The kernels written in Rust that the tests run (`tests/rust_kernels.rs`) and that the
//! cross-vendor compile check builds (`tests/compile_rust.rs`): one file, mounted by both.

use xp::DType;

/// Threads per block of the block-wide kernels.
pub const BLOCK: usize = 128;
/// The side of a matmul tile.
pub const TILE: usize = 16;

/// The seed's `saxpy_jit`.
#[xp::rawkernel]
pub fn saxpy(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        out[i] = a * x[i] + y[i];
    }
}

/// `out = a * x` for any float type, over a grid-stride loop.
#[xp::rawkernel]
pub fn scale<T: xp::Float>(a: T, x: &[T], out: &mut [T]) {
    let start = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let stride = (grid_dim().x * block_dim().x) as usize;
    for i in (start..x.len()).step_by(stride) {
        out[i] = a * x[i];
    }
}

#[xp::device]
pub fn square<T: xp::Float>(v: T) -> T {
    v * v
}

#[xp::device]
pub fn clamp_unit(v: f32) -> f32 {
    if v < 0.0 {
        0.0
    } else if v > 1.0 {
        1.0
    } else {
        v
    }
}

/// Each block's sum of squares (shared memory and barriers), and the total by an atomic.
#[xp::rawkernel]
pub fn block_sum_squares(x: &[f32], partial: &mut [f32], total: &mut [f32]) {
    let buf = shared_array::<f32, BLOCK>();
    let t = thread_idx().x as usize;
    let i = block_idx().x as usize * BLOCK + t;
    buf[t] = if i < x.len() { square(x[i]) } else { 0.0 };
    sync_threads();
    let mut s = BLOCK / 2;
    while s > 0 {
        if t < s {
            buf[t] += buf[t + s];
        }
        sync_threads();
        s /= 2;
    }
    if t == 0 {
        partial[block_idx().x as usize] = buf[0];
        atomic_add(&mut total[0], buf[0]);
    }
}

/// The seed's exercise: C = A·B with 16×16 tiles in shared memory (row-major, A is m×k, B k×n).
#[xp::rawkernel]
pub fn matmul_tiled(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, k: u32) {
    let ta = shared_array::<[f32; TILE], TILE>();
    let tb = shared_array::<[f32; TILE], TILE>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let row = block_idx().y as usize * TILE + ty;
    let col = block_idx().x as usize * TILE + tx;
    let m = m as usize;
    let n = n as usize;
    let k = k as usize;
    let mut acc = 0.0f32;
    let mut t0 = 0;
    while t0 < k {
        ta[ty][tx] = if row < m && t0 + tx < k { a[row * k + t0 + tx] } else { 0.0 };
        tb[ty][tx] = if col < n && t0 + ty < k { b[(t0 + ty) * n + col] } else { 0.0 };
        sync_threads();
        for j in 0..TILE {
            acc = ta[ty][j].mul_add(tb[j][tx], acc);
        }
        sync_threads();
        t0 += TILE;
    }
    if row < m && col < n {
        c[row * n + col] = acc;
    }
}

/// The elementwise `leaky_relu` of CuPy's tutorial.
#[xp::kernel]
pub fn leaky_relu<T: xp::Float>(x: T, alpha: T, y: &mut T) {
    *y = if x > T::from_f64(0.0) { x } else { alpha * x };
}

/// An elementwise kernel with two outputs and a device function.
#[xp::kernel]
pub fn clamp_and_square(x: f32, lo: &mut f32, sq: &mut f32) {
    *lo = clamp_unit(x);
    *sq = square(x);
}

/// Integer `+`, `*` and `-x` that overflow: they wrap.
#[xp::rawkernel]
pub fn wrapping_ops(x: &[i32], out: &mut [i32]) {
    let i = thread_idx().x as usize;
    if i < x.len() {
        out[3 * i] = x[i] + 2147483647;
        out[3 * i + 1] = x[i] * 65536 * 65536;
        out[3 * i + 2] = -x[i];
    }
}

/// Float → integer `as` saturates; integer → integer wraps.
#[xp::rawkernel]
pub fn saturating_casts(x: &[f32], to_u8: &mut [u8], to_i32: &mut [i32], wide: &[i64], narrow: &mut [i16]) {
    let i = thread_idx().x as usize;
    if i < x.len() {
        to_u8[i] = x[i] as u8;
        to_i32[i] = x[i] as i32;
        narrow[i] = wide[i] as i16;
    }
}

/// Shift amounts are taken modulo the width.
#[xp::rawkernel]
pub fn masked_shifts(x: &[u32], s: &[u32], left: &mut [u32], right: &mut [i32]) {
    let i = thread_idx().x as usize;
    if i < x.len() {
        left[i] = x[i] << s[i];
        right[i] = (x[i] as i32) >> s[i];
    }
}

/// Integer division and remainder by zero give 0; MIN / -1 is MIN.
#[xp::rawkernel]
pub fn defined_division(a: &[i32], b: &[i32], q: &mut [i32], r: &mut [i32]) {
    let i = thread_idx().x as usize;
    if i < a.len() {
        q[i] = a[i] / b[i];
        r[i] = a[i] % b[i];
    }
}

/// An untyped float literal next to an `f32` is an `f32`: the arithmetic is float, not double.
#[xp::rawkernel]
pub fn f32_literals(x: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        let third = x[i] / 3.0;
        out[i] = third * 0.1 + 1.0e-3;
    }
}

/// Dynamic shared memory sized at launch: each block reverses its chunk.
#[xp::rawkernel]
pub fn reverse_blocks(x: &[f32], out: &mut [f32]) {
    let buf = shared_dyn::<f32>();
    let t = thread_idx().x as usize;
    let nb = block_dim().x as usize;
    let i = block_idx().x as usize * nb + t;
    buf[t] = x[i];
    sync_threads();
    out[i] = buf[nb - 1 - t];
}

/// Each warp's sum by shuffles (a warp of one lane on the CPU), added into `total`.
#[xp::rawkernel]
pub fn warp_sum(x: &[i64], total: &mut [i64]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let mut v = if i < x.len() { x[i] } else { 0 };
    let mut d = warp_size() / 2;
    while d > 0 {
        v += shfl_down(v, d);
        d /= 2;
    }
    if lane_id() == 0 {
        atomic_add(&mut total[0], v);
    }
}

/// Atomics of every kind the builtins offer, over all threads: the maximum and minimum of
/// `x` (f32, and i64 of its bits), the or of `1 << (i % 32)`, a count by compare-and-swap.
#[xp::rawkernel]
pub fn atomics(x: &[f32], fmax: &mut [f32], imin: &mut [i64], bits: &mut [u32], count: &mut [u64], sum: &mut [f64]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        atomic_max(&mut fmax[0], x[i]);
        atomic_min(&mut imin[0], (x[i] * 1000.0) as i64);
        atomic_or(&mut bits[0], 1u32 << (i % 32) as u32);
        let mut old = count[0];
        loop {
            let seen = atomic_cas(&mut count[0], old, old + 1);
            if seen == old {
                break;
            }
            old = seen;
        }
        atomic_add(&mut sum[0], x[i] as f64);
        atomic_sub(&mut sum[0], 0.5f64);
    }
}

/// C++ keywords as Rust names: a kernel `double`, a parameter `new`, a local `int`.
#[xp::rawkernel]
pub fn double(new: &mut [f32]) {
    let int = thread_idx().x as usize;
    if int < new.len() {
        new[int] *= 2.0;
    }
}

/// Range loops that end at their type's maximum (which a C++ `i <= b; ++i` would overflow),
/// stepped past the end, and with a step of 0 (no iteration; Rust panics).
#[xp::rawkernel]
pub fn range_ends(counts: &mut [u32]) {
    let mut n = 0u32;
    for _ in 250u8..=255 {
        n += 1;
    }
    counts[0] = n;
    let mut m = 0u32;
    let mut last = 0u32;
    for i in (4294967290u32..4294967295).step_by(2) {
        m += 1;
        last = i;
    }
    counts[1] = m;
    counts[2] = last;
    let mut z = 0u32;
    for _ in (0u32..10).step_by(0) {
        z += 1;
    }
    counts[3] = z;
}

/// Every kernel above as (name, source) for every instantiation the tests use.
pub fn sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut raw = |k: &xp::RustKernel, dts: &[DType]| {
        out.push((k.instance_name(dts), k.source_for(dts).expect("a source")));
    };
    raw(&saxpy, &[]);
    raw(&scale, &[DType::F32]);
    raw(&scale, &[DType::F64]);
    raw(&block_sum_squares, &[]);
    raw(&matmul_tiled, &[]);
    raw(&wrapping_ops, &[]);
    raw(&saturating_casts, &[]);
    raw(&masked_shifts, &[]);
    raw(&defined_division, &[]);
    raw(&f32_literals, &[]);
    raw(&reverse_blocks, &[]);
    raw(&warp_sum, &[]);
    raw(&atomics, &[]);
    raw(&double, &[]);
    raw(&range_ends, &[]);
    use xp::kernels::elementwise::{IndexWidth, Layout};
    for (k, dts) in [(&leaky_relu, vec![DType::F32, DType::F32]), (&clamp_and_square, vec![DType::F32])] {
        let e = k.elementwise().expect("an elementwise kernel");
        for layout in [Layout::Contiguous, Layout::Strided] {
            let r = e.render(&dts, layout, IndexWidth::I32).expect("a rendering");
            out.push((r.name, r.code));
        }
    }
    out
}
