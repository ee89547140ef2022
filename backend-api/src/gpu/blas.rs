//! What cuBLAS and rocBLAS share. Both are column-major BLAS with a strided batched `gemm_ex`
//! taking the same arguments in the same order; only their enum values and names differ. So the
//! row-major to column-major mapping, the scalars, the dtypes, the status error and the checks
//! before a call are written once, here.

use std::sync::Arc;

use crate::blas::GemmDesc;
use crate::gpu::{GpuTarget, LibraryOperand};
use crate::{Buffer, DType, Error, Result, Stream};

/// Whether a GPU BLAS (cuBLAS, rocBLAS) multiplies `dtype` with [`crate::Blas::gemm`]: f16 and bf16
/// (accumulated in f32), f32, f64, complex64 and complex128.
pub fn gpu_blas_supports(dtype: DType) -> bool {
    matches!(dtype, DType::F16 | DType::BF16 | DType::F32 | DType::F64 | DType::C64 | DType::C128)
}

/// The arguments of the column-major call (`cublasGemmStridedBatchedEx`,
/// `rocblas_gemm_strided_batched_ex`) that computes a row-major [`GemmDesc`], named as the
/// call names them.
///
/// A row-major `m × n` matrix with leading dimension `ld` is, read column-major, its transpose
/// (`n × m`, same `ld`). So `C = op(A) op(B)` is computed as `C^T = op(B)^T op(A)^T`: **the
/// call's `A` is the description's `B` and the call's `B` is the description's `A`**, `m` and
/// `n` swap, each operand keeps its own transposition flag and its own `ld` and batch stride.
/// Every leading dimension meets the libraries' minimum (`lda >= max(1, transa ? k : m)`, …)
/// once [`GemmDesc::check`] has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnMajorGemm {
    /// The call's `A` (the description's `B`) is transposed: the description's `trans_b`.
    pub transa: bool,
    /// The call's `B` (the description's `A`) is transposed: the description's `trans_a`.
    pub transb: bool,
    /// Rows of the call's `C`: the description's `n`.
    pub m: i64,
    /// Columns of the call's `C`: the description's `m`.
    pub n: i64,
    /// The contracted length.
    pub k: i64,
    /// The description's `B.ld`.
    pub lda: i64,
    /// The description's `B.batch_stride` (0 for a broadcast operand).
    pub stride_a: i64,
    /// The description's `A.ld`.
    pub ldb: i64,
    /// The description's `A.batch_stride` (0 for a broadcast operand).
    pub stride_b: i64,
    /// The description's `C.ld`.
    pub ldc: i64,
    /// The description's `C.batch_stride`.
    pub stride_c: i64,
    /// Products in the batch.
    pub batch: i64,
}

impl ColumnMajorGemm {
    /// The call for `desc`; a size past `i64` is a `Value` error naming `op`.
    pub fn new(op: &str, desc: &GemmDesc) -> Result<Self> {
        let wide = |what: &str, v: usize| {
            i64::try_from(v).map_err(|_| Error::value(op, format!("{what} = {v} does not fit a 64-bit integer")))
        };
        Ok(ColumnMajorGemm {
            transa: desc.trans_b,
            transb: desc.trans_a,
            m: wide("n", desc.n)?,
            n: wide("m", desc.m)?,
            k: wide("k", desc.k)?,
            lda: wide("B's leading dimension", desc.b.ld)?,
            stride_a: wide("B's batch stride", desc.b.batch_stride)?,
            ldb: wide("A's leading dimension", desc.a.ld)?,
            stride_b: wide("A's batch stride", desc.a.batch_stride)?,
            ldc: wide("C's leading dimension", desc.c.ld)?,
            stride_c: wide("C's batch stride", desc.c.batch_stride)?,
            batch: wide("batch", desc.batch)?,
        })
    }

    /// Whether the call writes nothing (`C` is empty), so that it need not be made.
    pub fn is_empty(&self) -> bool {
        self.m == 0 || self.n == 0 || self.batch == 0
    }

    /// `Ok` when the sizes and leading dimensions fit the 32-bit integers of an API without
    /// 64-bit sizes (rocBLAS's `rocblas_int`); the batch strides are 64-bit in both
    /// libraries. Else a `Value` error naming `op` and the size.
    pub fn check_i32(&self, op: &str) -> Result<()> {
        let sizes = [
            ("n", self.m),
            ("m", self.n),
            ("k", self.k),
            ("B's leading dimension", self.lda),
            ("A's leading dimension", self.ldb),
            ("C's leading dimension", self.ldc),
            ("batch", self.batch),
        ];
        for (what, v) in sizes {
            if v > i64::from(i32::MAX) {
                return Err(Error::value(
                    op,
                    format!("{what} = {v} exceeds the library's 32-bit limit of {}", i32::MAX),
                ));
            }
        }
        Ok(())
    }
}

/// `alpha` or `beta` as a GPU BLAS reads it from host memory: in the call's compute type
/// (f32 for f16, bf16, f32 and complex64 — the complex ones with a zero imaginary part —, f64
/// for f64 and complex128).
#[repr(C, align(16))]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GemmScalar([u8; 16]);

impl GemmScalar {
    /// `value` for a product of `dtype`.
    pub fn new(dtype: DType, value: f64) -> Self {
        let mut bytes = [0u8; 16];
        if matches!(dtype, DType::F64 | DType::C128) {
            bytes[..8].copy_from_slice(&value.to_ne_bytes());
        } else {
            bytes[..4].copy_from_slice(&(value as f32).to_ne_bytes());
        }
        GemmScalar(bytes)
    }

    /// The address to pass (valid, and aligned for any of the compute types, while `self`
    /// lives).
    pub fn as_ptr(&self) -> *const std::ffi::c_void {
        self.0.as_ptr().cast()
    }
}

/// `Ok` for status 0, else the [`Error::Driver`] of `api` with the library's name of the
/// code (`name`, e.g. `CUBLAS_STATUS_INVALID_VALUE`); `detail` says what xp was doing. The
/// library's out-of-memory status (`alloc_code`) says so in the detail.
pub fn blas_check(
    api: &str,
    code: i64,
    name: impl FnOnce(i64) -> String,
    alloc_code: i64,
    detail: impl FnOnce() -> String,
) -> Result<()> {
    if code == 0 {
        return Ok(());
    }
    let mut detail = detail();
    if code == alloc_code {
        if !detail.is_empty() {
            detail.push_str("; ");
        }
        detail.push_str("the BLAS library could not allocate device memory (for its workspace)");
    }
    Err(Error::Driver { api: api.to_string(), code, name: name(code), detail })
}

/// Device addresses of one product's operands, checked by [`open_gpu_gemm`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmPointers {
    /// `A`'s first element (the description's `A`).
    pub a: u64,
    /// `B`'s first element.
    pub b: u64,
    /// `C`'s first element.
    pub c: u64,
}

/// Check a product of `desc` on the GPU `target` by the library `lib` (`cuBLAS`), before
/// anything is queued, and return the stream as the backend's type `S`, the operands'
/// addresses and the column-major call's arguments:
/// - the description holds together ([`GemmDesc::check`], `Value`) and fits 64-bit sizes;
/// - the library takes its dtype ([`gpu_blas_supports`], `UnsupportedDType`);
/// - the checks of [`GpuTarget::open_library_call`]
///   on `A`, `B` (read; they may alias) and `C` (written; overlapping neither): the stream's
///   backend and device, the buffers' pool, offsets aligned to the element, each operand's
///   [`GemmDesc::spans`] inside its buffer.
///
/// When everything holds, the three buffers are noted as used by the stream.
#[allow(clippy::too_many_arguments)]
pub fn open_gpu_gemm<'s, S: std::any::Any>(
    target: &GpuTarget<'_>,
    lib: &str,
    desc: &GemmDesc,
    stream: &'s Arc<dyn Stream>,
    stream_ordinal: impl FnOnce(&S) -> usize,
    a: (&Buffer, usize),
    b: (&Buffer, usize),
    c: (&Buffer, usize),
) -> Result<(&'s S, GemmPointers, ColumnMajorGemm)> {
    let op = format!("{lib} gemm");
    desc.check("matmul")?;
    if !gpu_blas_supports(desc.dtype) {
        return Err(Error::UnsupportedDType {
            op,
            dtypes: vec![desc.dtype],
            detail: "a GPU BLAS multiplies float16, bfloat16, float32, float64, complex64 and complex128".into(),
        });
    }
    let call = ColumnMajorGemm::new(&op, desc)?;
    let elem = desc.dtype.size();
    let (sa, sb, sc) = desc.spans();
    let (s, [pa, pb, pc]) = target.open_library_call(
        &op,
        stream,
        stream_ordinal,
        [
            LibraryOperand::read("A", a, elem, sa),
            LibraryOperand::read("B", b, elem, sb),
            LibraryOperand::written("C", c, elem, sc),
        ],
    )?;
    Ok((s, GemmPointers { a: pa, b: pb, c: pc }, call))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blas::tests::desc;
    use crate::blas::MatrixLayout;

    /// `C[b] = alpha op(A[b]) op(B[b]) + beta C[b]` straight from the row-major description.
    fn row_major_reference(d: &GemmDesc, a: &[f64], b: &[f64], c: &mut [f64]) {
        for p in 0..d.batch {
            for i in 0..d.m {
                for j in 0..d.n {
                    let mut acc = 0.0;
                    for l in 0..d.k {
                        let ai = if d.trans_a { l * d.a.ld + i } else { i * d.a.ld + l };
                        let bi = if d.trans_b { j * d.b.ld + l } else { l * d.b.ld + j };
                        acc += a[p * d.a.batch_stride + ai] * b[p * d.b.batch_stride + bi];
                    }
                    let ci = p * d.c.batch_stride + i * d.c.ld + j;
                    c[ci] = d.alpha * acc + d.beta * c[ci];
                }
            }
        }
    }

    /// What a column-major BLAS computes with the call's arguments (reference BLAS semantics:
    /// element `(r, s)` of a column-major matrix at `r + s * ld`).
    #[allow(clippy::too_many_arguments)]
    fn column_major_blas(g: &ColumnMajorGemm, alpha: f64, a: &[f64], b: &[f64], beta: f64, c: &mut [f64]) {
        let (m, n, k) = (g.m as usize, g.n as usize, g.k as usize);
        for p in 0..g.batch as usize {
            let (a, b) = (&a[p * g.stride_a as usize..], &b[p * g.stride_b as usize..]);
            for r in 0..m {
                for s in 0..n {
                    let mut acc = 0.0;
                    for l in 0..k {
                        let av = if g.transa { a[l + r * g.lda as usize] } else { a[r + l * g.lda as usize] };
                        let bv = if g.transb { b[s + l * g.ldb as usize] } else { b[l + s * g.ldb as usize] };
                        acc += av * bv;
                    }
                    let ci = p * g.stride_c as usize + r + s * g.ldc as usize;
                    c[ci] = alpha * acc + beta * c[ci];
                }
            }
        }
    }

    fn layout(ld: usize, batch_stride: usize) -> MatrixLayout {
        MatrixLayout { ld, batch_stride }
    }

    /// Descriptions covering both transpositions, padded leading dimensions, broadcast
    /// operands (batch stride 0) and m, n, k all different.
    fn descs() -> Vec<GemmDesc> {
        let mut out = Vec::new();
        for (trans_a, trans_b) in [(false, false), (true, false), (false, true), (true, true)] {
            let (m, n, k, batch) = (3, 5, 4, 3);
            let (ac, (br, bc)) = (if trans_a { m } else { k }, if trans_b { (n, k) } else { (k, n) });
            let a = layout(ac + 2, 0); // broadcast A, padded rows
            let b = layout(bc, br * bc + 1);
            let c = layout(n + 1, m * (n + 1) + 3);
            let d = GemmDesc { dtype: DType::F64, m, n, k, batch, trans_a, trans_b, a, b, c, alpha: 1.5, beta: -0.5 };
            out.push(d);
            // Two products, B broadcast instead and A strided, β = 0.
            let mut one = d;
            one.batch = 2;
            one.a.batch_stride = (if trans_a { k } else { m }) * one.a.ld;
            one.b.batch_stride = 0;
            one.beta = 0.0;
            out.push(one);
        }
        out
    }

    #[test]
    fn the_column_major_call_computes_the_row_major_product() {
        for d in descs() {
            d.check("t").unwrap();
            let g = ColumnMajorGemm::new("t", &d).unwrap();
            assert_eq!((g.transa, g.transb, g.m, g.n, g.k), (d.trans_b, d.trans_a, d.n as i64, d.m as i64, d.k as i64));
            assert_eq!(
                (g.lda, g.stride_a, g.ldb, g.stride_b),
                (d.b.ld as i64, d.b.batch_stride as i64, d.a.ld as i64, d.a.batch_stride as i64)
            );
            assert_eq!((g.ldc, g.stride_c, g.batch), (d.c.ld as i64, d.c.batch_stride as i64, d.batch as i64));
            // The libraries' minimum leading dimensions.
            assert!(g.lda >= (if g.transa { g.k } else { g.m }).max(1), "{d:?}");
            assert!(g.ldb >= (if g.transb { g.n } else { g.k }).max(1), "{d:?}");
            assert!(g.ldc >= g.m.max(1), "{d:?}");
            let (sa, sb, sc) = d.spans();
            let a: Vec<f64> = (0..sa).map(|i| (i as f64 * 0.37).sin()).collect();
            let b: Vec<f64> = (0..sb).map(|i| (i as f64 * 0.61).cos()).collect();
            let c0: Vec<f64> = (0..sc).map(|i| i as f64 * 0.01).collect();
            let (mut want, mut got) = (c0.clone(), c0);
            row_major_reference(&d, &a, &b, &mut want);
            // The call's A is the description's B.
            column_major_blas(&g, d.alpha, &b, &a, d.beta, &mut got);
            assert_eq!(got, want, "{d:?}");
        }
    }

    #[test]
    fn the_call_is_empty_without_output_and_refuses_sizes_past_32_bits_where_asked() {
        let mut d = descs()[0];
        assert!(!ColumnMajorGemm::new("t", &d).unwrap().is_empty());
        d.batch = 0;
        assert!(ColumnMajorGemm::new("t", &d).unwrap().is_empty());
        d = descs()[0];
        d.k = 0;
        assert!(!ColumnMajorGemm::new("t", &d).unwrap().is_empty(), "k = 0 still scales C by beta");
        d = descs()[0];
        assert!(ColumnMajorGemm::new("t", &d).unwrap().check_i32("rocBLAS gemm").is_ok());
        d.c.ld = 1 << 31;
        let e = ColumnMajorGemm::new("t", &d).unwrap().check_i32("rocBLAS gemm").unwrap_err();
        assert!(matches!(&e, Error::Value { reason, .. } if reason.contains("C's leading dimension")), "{e}");
    }

    #[test]
    fn scalars_are_in_the_compute_type() {
        let f = |d, v| GemmScalar::new(d, v).0;
        assert_eq!(f(DType::F32, 1.5)[..4], 1.5f32.to_ne_bytes());
        assert_eq!(f(DType::F16, 2.0)[..4], 2.0f32.to_ne_bytes());
        assert_eq!(f(DType::BF16, -1.0)[..4], (-1.0f32).to_ne_bytes());
        assert_eq!(f(DType::C64, 0.5)[..8], [0.5f32.to_ne_bytes(), 0f32.to_ne_bytes()].concat()[..]);
        assert_eq!(f(DType::F64, 0.25)[..8], 0.25f64.to_ne_bytes());
        assert_eq!(f(DType::C128, 3.0)[..], [3.0f64.to_ne_bytes(), 0f64.to_ne_bytes()].concat()[..]);
        assert_eq!(GemmScalar::new(DType::F64, 1.0).as_ptr() as usize % 16, 0);
        assert!(DType::ALL.iter().filter(|d| gpu_blas_supports(**d)).count() == 6);
        assert!(!gpu_blas_supports(DType::I32));
    }

    #[test]
    fn statuses_are_driver_errors_and_running_out_of_memory_says_so() {
        let name = |c: i64| format!("STATUS_{c}");
        assert!(blas_check("gemm", 0, name, 3, String::new).is_ok());
        match blas_check("cublasGemmEx", 3, name, 3, || "f32 gemm".into()) {
            Err(Error::Driver { api, code, name, detail }) => {
                assert_eq!((api.as_str(), code, name.as_str()), ("cublasGemmEx", 3, "STATUS_3"));
                assert!(detail.starts_with("f32 gemm; ") && detail.contains("memory"), "{detail}");
            }
            other => panic!("expected Error::Driver, got {other:?}"),
        }
        let e = blas_check("x", 7, name, 3, String::new).unwrap_err();
        assert!(matches!(e, Error::Driver { detail, .. } if detail.is_empty()));
    }

    #[test]
    fn products_are_checked_before_anything_runs() {
        use crate::null::{NullDevice, NullStream};
        use crate::Device;
        let dev = NullDevice::new(1 << 20, None).unwrap();
        let pool = Device::memory_pool(&dev);
        let stream: Arc<dyn Stream> = NullStream::new();
        let target = dev.gpu_target();
        let d = desc(false); // f32; spans 40, 12 and 30 elements
        let (a, c) = (pool.alloc(40 * 4, &stream).unwrap(), pool.alloc(31 * 4, &stream).unwrap());
        let open = |d: &GemmDesc, a: (&Buffer, usize), b: (&Buffer, usize), c: (&Buffer, usize)| {
            open_gpu_gemm::<NullStream>(&target, "test", d, &stream, |_| 0, a, b, c).map(|(_, p, g)| (p, g))
        };
        // B aliases A (both read): allowed.
        let (p, g) = open(&d, (&a, 0), (&a, 0), (&c, 4)).unwrap();
        assert_eq!(p, GemmPointers { a: a.device_ptr(), b: a.device_ptr(), c: c.device_ptr() + 4 });
        assert_eq!(g, ColumnMajorGemm::new("t", &d).unwrap());
        // C too small, misaligned, overlapping A; a bad description; a dtype no GPU BLAS takes.
        assert!(matches!(open(&d, (&a, 0), (&a, 0), (&c, 8)), Err(Error::Index { .. })));
        assert!(matches!(open(&d, (&a, 0), (&a, 0), (&c, 2)), Err(Error::Value { .. })));
        assert!(matches!(open(&d, (&a, 0), (&a, 0), (&a, 40)), Err(Error::Value { .. })));
        let mut bad = d;
        bad.c.ld = 2;
        assert!(matches!(open(&bad, (&a, 0), (&a, 0), (&c, 0)), Err(Error::Value { .. })));
        let mut ints = d;
        ints.dtype = DType::I32;
        assert!(matches!(open(&ints, (&a, 0), (&a, 0), (&c, 0)), Err(Error::UnsupportedDType { .. })));
    }
}
