//! The CPU backend's BLAS: the `gemm` crate, a pure-Rust GEMM with AVX2/AVX-512/NEON
//! microkernels for f16, f32, f64, complex64 and complex128 that reads any row and column
//! strides (so transposed operands need no copy) and splits one product over the rayon pool.
//! A batch of many small products is instead spread over the pool one product per task.
//! bfloat16 is not among its types: the array layer computes it in float32.

use std::any::TypeId;
use std::sync::Arc;

use gemm::{c32, c64, f16, Parallelism};
use rayon::prelude::*;
use xp_backend_api::{Blas, Buffer, DType, Error, GemmDesc, Result, Stream};

use crate::memory::check_span;
use crate::stream::CpuStream;

/// The library's name in errors and `xp::show_config()`.
const NAME: &str = "gemm 0.19";

/// The CPU backend's [`Blas`].
#[derive(Default)]
pub struct CpuBlas;

impl Blas for CpuBlas {
    fn name(&self) -> String {
        NAME.to_string()
    }

    fn supports(&self, dtype: DType) -> bool {
        matches!(dtype, DType::F16 | DType::F32 | DType::F64 | DType::C64 | DType::C128)
    }

    fn gemm(
        &self,
        stream: &Arc<dyn Stream>,
        desc: &GemmDesc,
        a: (&Buffer, usize),
        b: (&Buffer, usize),
        c: (&Buffer, usize),
    ) -> Result<()> {
        let op = format!("{NAME} matmul");
        if !self.supports(desc.dtype) {
            return Err(Error::UnsupportedDType {
                op,
                dtypes: vec![desc.dtype],
                detail: "the CPU BLAS takes float16, float32, float64, complex64 and complex128".into(),
            });
        }
        desc.check(&op)?;
        let cpu = stream
            .as_any()
            .downcast_ref::<CpuStream>()
            .ok_or_else(|| Error::Value { op: op.clone(), reason: "the stream is not a CPU stream".into() })?;
        let (sa, sb, sc) = desc.spans();
        let bytes = desc.dtype.size();
        check_span(&op, "A", a.0, a.1, sa, bytes)?;
        check_span(&op, "B", b.0, b.1, sb, bytes)?;
        check_span(&op, "C", c.0, c.1, sc, bytes)?;
        for buf in [a.0, b.0, c.0] {
            buf.note_use(stream);
        }
        if desc.m == 0 || desc.n == 0 || desc.batch == 0 {
            return Ok(());
        }
        let ptrs = (a.0.device_ptr() as usize + a.1, b.0.device_ptr() as usize + b.1, c.0.device_ptr() as usize + c.1);
        let d = *desc;
        cpu.enqueue("gemm", move || {
            // SAFETY: the spans were checked against the buffers, which the stream-ordered
            // pool keeps until this task has run; C does not alias A or B (the contract).
            unsafe {
                match d.dtype {
                    DType::F16 => run::<f16>(&d, ptrs, f16::from_f64(d.alpha), f16::from_f64(d.beta)),
                    DType::F32 => run::<f32>(&d, ptrs, d.alpha as f32, d.beta as f32),
                    DType::F64 => run::<f64>(&d, ptrs, d.alpha, d.beta),
                    DType::C64 => run::<c32>(&d, ptrs, c32::new(d.alpha as f32, 0.0), c32::new(d.beta as f32, 0.0)),
                    _ => run::<c64>(&d, ptrs, c64::new(d.alpha, 0.0), c64::new(d.beta, 0.0)),
                }
            }
        })
    }
}

/// The row and column strides of an operand stored with leading dimension `ld`, read
/// transposed or not.
fn strides(ld: usize, trans: bool) -> (isize, isize) {
    if trans {
        (1, ld as isize)
    } else {
        (ld as isize, 1)
    }
}

/// Run every product of `d` with operands at `(a, b, c)`.
///
/// # Safety
/// The operands hold `d.spans()` elements of `T` from their addresses, and C aliases neither.
unsafe fn run<T: Copy + Send + Sync + 'static>(d: &GemmDesc, (a, b, c): (usize, usize, usize), alpha: T, beta: T) {
    debug_assert!([
        TypeId::of::<f16>(),
        TypeId::of::<f32>(),
        TypeId::of::<f64>(),
        TypeId::of::<c32>(),
        TypeId::of::<c64>()
    ]
    .contains(&TypeId::of::<T>()));
    let (ars, acs) = strides(d.a.ld, d.trans_a);
    let (brs, bcs) = strides(d.b.ld, d.trans_b);
    let size = std::mem::size_of::<T>();
    let one = |i: usize, par: Parallelism| {
        let pa = (a + i * d.a.batch_stride * size) as *const T;
        let pb = (b + i * d.b.batch_stride * size) as *const T;
        let pc = (c + i * d.c.batch_stride * size) as *mut T;
        // SAFETY: product `i` lies inside the spans (caller); `gemm` computes
        // dst = alpha_g * dst + beta_g * lhs * rhs, so BLAS's beta is its alpha and BLAS's
        // alpha its beta, and C is read only when BLAS's beta is not zero.
        unsafe {
            gemm::gemm(
                d.m,
                d.n,
                d.k,
                pc,
                1,
                d.c.ld as isize,
                d.beta != 0.0,
                pa,
                acs,
                ars,
                pb,
                bcs,
                brs,
                beta,
                alpha,
                false,
                false,
                false,
                par,
            )
        };
    };
    let threads = rayon::current_num_threads().max(1);
    let work = d.m * d.n * d.k.max(1);
    if d.batch >= 2 * threads && work < 1 << 18 {
        // Many small products: one per task.
        (0..d.batch).into_par_iter().for_each(|i| one(i, Parallelism::None));
    } else {
        for i in 0..d.batch {
            one(i, Parallelism::Rayon(threads));
        }
    }
}
