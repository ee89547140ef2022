//! The CPU backend's FFT library: `rustfft` for complex transforms and `realfft` for the real
//! ones (its half-spectrum transforms are about twice as fast as a complex transform of the
//! same length), chosen because they are the Rust ecosystem's tuned FFTs (AVX/SSE/NEON
//! kernels, mixed radix, Bluestein and Rader for any length) and plan like FFTW.
//!
//! A plan of rank r runs as r passes of 1-d transforms over a contiguous work array of the
//! batch (the output itself when its layout is compact): the last dimension's rows in
//! parallel over the rayon pool, every other dimension in blocks of columns gathered into a
//! small contiguous buffer, the blocks in parallel. So the batches of a 1-d transform and the
//! other axes of an N-d transform use every core; one long 1-d transform runs on one core,
//! as NumPy's pocketfft does. Execution is queued on the stream like a kernel launch.

use std::sync::Arc;

use num_complex::Complex;
use rayon::prelude::*;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftNum, FftPlanner};
use xp_backend_api::fft::check_desc;
use xp_backend_api::{Buffer, Error, FftDesc, FftKind, FftLib, FftPlan, Result, Stream};

use crate::memory::check_span;
use crate::stream::CpuStream;

/// The library's name as `xp::show_config()` and errors show it.
const NAME: &str = "rustfft 6 + realfft 3";

/// The CPU backend's [`FftLib`].
#[derive(Default)]
pub struct CpuFft;

impl FftLib for CpuFft {
    fn name(&self) -> String {
        NAME.to_string()
    }

    fn plan(&self, desc: &FftDesc) -> Result<Arc<dyn FftPlan>> {
        check_desc(NAME, desc)?;
        let plans = if desc.double { Plans::F64(Dims::new(desc)) } else { Plans::F32(Dims::new(desc)) };
        Ok(Arc::new(CpuFftPlan { desc: desc.clone(), plans: Arc::new(plans) }))
    }
}

/// A complex 1-d plan of one length.
type Plan1<T> = Arc<dyn Fft<T>>;

/// The 1-d plans of every dimension, in one precision.
struct Dims<T: FftNum> {
    /// Complex plans (forward, inverse) of each dimension; for real transforms the last
    /// dimension's entry is unused.
    c2c: Vec<(Plan1<T>, Plan1<T>)>,
    r2c: Option<Arc<dyn RealToComplex<T>>>,
    c2r: Option<Arc<dyn ComplexToReal<T>>>,
}

impl<T: FftNum> Dims<T> {
    fn new(desc: &FftDesc) -> Self {
        let mut planner = FftPlanner::<T>::new();
        let mut real = RealFftPlanner::<T>::new();
        let last = desc.n.len() - 1;
        let c2c = desc
            .n
            .iter()
            .enumerate()
            .map(|(d, &n)| {
                // Real transforms use a complex plan only for the other dimensions.
                let n = if d == last && desc.kind != FftKind::C2C { 1 } else { n };
                (planner.plan_fft_forward(n), planner.plan_fft_inverse(n))
            })
            .collect();
        let r2c = (desc.kind == FftKind::R2C).then(|| real.plan_fft_forward(desc.n[last]));
        let c2r = (desc.kind == FftKind::C2R).then(|| real.plan_fft_inverse(desc.n[last]));
        Dims { c2c, r2c, c2r }
    }
}

enum Plans {
    F32(Dims<f32>),
    F64(Dims<f64>),
}

struct CpuFftPlan {
    desc: FftDesc,
    plans: Arc<Plans>,
}

impl FftPlan for CpuFftPlan {
    fn desc(&self) -> &FftDesc {
        &self.desc
    }

    fn work_size(&self) -> usize {
        0
    }

    fn execute(
        &self,
        stream: &Arc<dyn Stream>,
        input: (&Buffer, usize),
        output: (&Buffer, usize),
        _work: Option<&Buffer>,
        forward: bool,
    ) -> Result<()> {
        let cpu = stream.as_any().downcast_ref::<CpuStream>().ok_or_else(|| Error::Value {
            op: format!("{NAME} execute"),
            reason: "the stream is not a CPU stream".into(),
        })?;
        let (ispan, ospan) = self.desc.spans();
        let (ib, ob) = self.desc.element_bytes();
        check_span(&format!("{NAME} execute"), "input", input.0, input.1, ispan, ib)?;
        check_span(&format!("{NAME} execute"), "output", output.0, output.1, ospan, ob)?;
        input.0.note_use(stream);
        output.0.note_use(stream);
        let src = input.0.device_ptr() as usize + input.1;
        let dst = output.0.device_ptr() as usize + output.1;
        let (desc, plans) = (self.desc.clone(), Arc::clone(&self.plans));
        cpu.enqueue("fft", move || {
            // SAFETY: both spans were checked against their buffers, which the stream-ordered
            // pool keeps alive until this task has run; the array layer never passes
            // overlapping input and output.
            unsafe {
                match &*plans {
                    Plans::F32(p) => run(&desc, p, src, dst, forward),
                    Plans::F64(p) => run(&desc, p, src, dst, forward),
                }
            }
        })
    }
}

/// A pointer that crosses into rayon tasks, each touching a disjoint part.
#[derive(Clone, Copy)]
struct Shared<E>(*mut E);
// SAFETY: every task that receives a `Shared` reads or writes a part of the memory no other
// task of the same pass touches.
unsafe impl<E> Send for Shared<E> {}
// SAFETY: as above.
unsafe impl<E> Sync for Shared<E> {}

impl<E> Shared<E> {
    fn at(self, i: usize) -> *mut E {
        // SAFETY: callers index inside the allocation the pointer came from.
        unsafe { self.0.add(i) }
    }
}

/// Where the rows of one side of a plan are: element `(b, i0, .., i_{r-1})` sits at
/// `b * dist + sum(i_d * step_d)`.
struct Side {
    ext: Vec<usize>,
    steps: Vec<usize>,
    dist: usize,
    batch: usize,
}

impl Side {
    fn new(ext: Vec<usize>, embed: &[usize], stride: usize, dist: usize, batch: usize) -> Side {
        let mut steps = vec![stride; ext.len()];
        for d in (0..ext.len().saturating_sub(1)).rev() {
            steps[d] = steps[d + 1] * embed[d + 1];
        }
        Side { ext, steps, dist, batch }
    }

    fn row_len(&self) -> usize {
        *self.ext.last().expect("rank >= 1")
    }

    fn rows_per_batch(&self) -> usize {
        self.ext[..self.ext.len() - 1].iter().product()
    }

    /// The offset of the first element of row `r` (counting rows over the whole batch).
    fn row_start(&self, r: usize) -> usize {
        let per = self.rows_per_batch();
        let (b, mut rem) = (r / per, r % per);
        let mut off = b * self.dist;
        for d in (0..self.ext.len() - 1).rev() {
            off += (rem % self.ext[d]) * self.steps[d];
            rem /= self.ext[d];
        }
        off
    }

    fn stride(&self) -> usize {
        *self.steps.last().expect("rank >= 1")
    }

    /// Whether the side is the compact C-order array `[batch, ext..]`.
    fn compact(&self) -> bool {
        let n: usize = self.ext.iter().product();
        let mut step = 1;
        for d in (0..self.ext.len()).rev() {
            if self.ext[d] > 1 && self.steps[d] != step {
                return false;
            }
            step *= self.ext[d];
        }
        self.dist == n || n == 0
    }
}

/// Copy the rows of `side` at `src` into the contiguous `dst` (`[batch, ext..]`).
///
/// # Safety
/// `src` holds every element of `side` over `dst.len() / prod(ext)` batches.
unsafe fn gather<E: Copy + Send + Sync>(side: &Side, src: usize, dst: &mut [E]) {
    let (len, stride) = (side.row_len(), side.stride());
    let src = Shared(src as *mut E);
    dst.par_chunks_mut(len).enumerate().for_each(|(r, row)| {
        let start = side.row_start(r);
        for (k, x) in row.iter_mut().enumerate() {
            // SAFETY: the caller guarantees the element is inside the source.
            *x = unsafe { *src.at(start + k * stride) };
        }
    });
}

/// Copy the contiguous `src` (`[batch, ext..]`) into the rows of `side` at `dst`.
///
/// # Safety
/// `dst` holds every element of `side` over `src.len() / prod(ext)` batches, and no two
/// elements of the side share an address.
unsafe fn scatter<E: Copy + Send + Sync>(side: &Side, src: &[E], dst: usize) {
    let (len, stride) = (side.row_len(), side.stride());
    let dst = Shared(dst as *mut E);
    src.par_chunks(len).enumerate().for_each(|(r, row)| {
        let start = side.row_start(r);
        for (k, x) in row.iter().enumerate() {
            // SAFETY: inside the destination (caller), rows disjoint (caller).
            unsafe { *dst.at(start + k * stride) = *x };
        }
    });
}

/// Rows per parallel task: enough work per task, enough tasks per worker.
fn rows_per_task(rows: usize, len: usize) -> usize {
    let tasks = rayon::current_num_threads().max(1) * 4;
    rows.div_ceil(tasks).max((4096 / len.max(1)).max(1)).min(rows.max(1))
}

/// Transform the contiguous complex array `w` (`[outer, n, inner]`, `n` the length of `fft`)
/// along its middle axis.
fn along_axis<T: FftNum>(w: &mut [Complex<T>], fft: &Plan1<T>, inner: usize) {
    let n = fft.len();
    if n <= 1 {
        return;
    }
    if inner == 1 {
        let rows = w.len() / n;
        let chunk = rows_per_task(rows, n) * n;
        w.par_chunks_mut(chunk).for_each_init(
            || vec![czero(); fft.get_inplace_scratch_len()],
            |scratch, rows| fft.process_with_scratch(rows, scratch),
        );
        return;
    }
    // Columns in blocks: gather BLOCK columns into contiguous rows, transform, put back.
    const BLOCK: usize = 16;
    let outer = w.len() / (n * inner);
    let blocks = inner.div_ceil(BLOCK);
    let base = Shared(w.as_mut_ptr());
    (0..outer * blocks).into_par_iter().for_each_init(
        || (vec![czero(); BLOCK * n], vec![czero(); fft.get_inplace_scratch_len()]),
        |(tmp, scratch), t| {
            let (o, j0) = (t / blocks, (t % blocks) * BLOCK);
            let cols = BLOCK.min(inner - j0);
            let at = |k: usize, c: usize| (o * n + k) * inner + j0 + c;
            for k in 0..n {
                for c in 0..cols {
                    // SAFETY: inside `w`; this task alone touches columns j0..j0+cols of slab o.
                    tmp[c * n + k] = unsafe { *base.at(at(k, c)) };
                }
            }
            fft.process_with_scratch(&mut tmp[..cols * n], scratch);
            for k in 0..n {
                for c in 0..cols {
                    // SAFETY: as above.
                    unsafe { *base.at(at(k, c)) = tmp[c * n + k] };
                }
            }
        },
    );
}

/// Complex passes over dimensions `dims` of the contiguous `w` of extents `ext` (per batch).
fn complex_passes<T: FftNum>(w: &mut [Complex<T>], ext: &[usize], plans: &Dims<T>, dims: usize, forward: bool) {
    for d in 0..dims {
        let inner: usize = ext[d + 1..].iter().product();
        let (f, i) = &plans.c2c[d];
        along_axis(w, if forward { f } else { i }, inner);
    }
}

fn czero<T: FftNum>() -> Complex<T> {
    Complex::new(T::zero(), T::zero())
}

/// `len` complex zeros (the work array when the output is not compact).
fn zeroed<T: FftNum>(len: usize) -> Vec<Complex<T>> {
    vec![czero(); len]
}

/// Let `f` fill the complex output of `side` at `dst` as one contiguous `[batch, ext..]`
/// array: the output itself when its layout is that, else a work array scattered after.
///
/// # Safety
/// `dst` holds every element of `side` over `batch` transforms, no two at one address.
unsafe fn into_output<T: FftNum>(side: &Side, dst: usize, f: impl FnOnce(&mut [Complex<T>])) {
    let len = side.batch * side.ext.iter().product::<usize>();
    if side.compact() {
        // SAFETY: a compact side is `len` consecutive elements at `dst` (caller).
        f(unsafe { std::slice::from_raw_parts_mut(dst as *mut Complex<T>, len) });
    } else {
        let mut own = zeroed(len);
        f(&mut own);
        // SAFETY: the caller's guarantee.
        unsafe { scatter(side, &own, dst) };
    }
}

/// Run one plan.
///
/// # Safety
/// `src` and `dst` hold the plan's input and output spans (checked by `execute`) and do not
/// overlap.
unsafe fn run<T: FftNum>(desc: &FftDesc, plans: &Dims<T>, src: usize, dst: usize, forward: bool) {
    let (ie, oe) = desc.logical_extents();
    let rank = desc.n.len();
    let input = Side::new(ie.clone(), &desc.inembed, desc.istride, desc.idist, desc.batch);
    let output = Side::new(oe.clone(), &desc.onembed, desc.ostride, desc.odist, desc.batch);
    let batch = desc.batch;
    match desc.kind {
        FftKind::C2C => {
            let fill = |w: &mut [Complex<T>]| {
                // SAFETY: the input span holds every element of `input` (caller).
                unsafe { gather(&input, src, w) };
                complex_passes(w, &oe, plans, rank, forward);
            };
            // SAFETY: the output span holds every element of `output` (caller).
            unsafe { into_output(&output, dst, fill) };
        }
        FftKind::R2C => {
            let r2c = plans.r2c.as_ref().expect("an R2C plan has its real transform");
            let (n, h) = (input.row_len(), output.row_len());
            let (src_p, stride) = (Shared(src as *mut T), input.stride());
            let fill = |w: &mut [Complex<T>]| {
                let rows = w.len() / h;
                let per = rows_per_task(rows, n);
                w.par_chunks_mut(per * h).enumerate().for_each_init(
                    || (vec![T::zero(); n], r2c.make_scratch_vec()),
                    |(real, scratch), (t, out_rows)| {
                        for (i, out) in out_rows.chunks_mut(h).enumerate() {
                            let start = input.row_start(t * per + i);
                            for (k, x) in real.iter_mut().enumerate() {
                                // SAFETY: inside the input span (caller).
                                *x = unsafe { *src_p.at(start + k * stride) };
                            }
                            // Lengths match the plan, so this cannot fail.
                            let _ = r2c.process_with_scratch(real, out, scratch);
                        }
                    },
                );
                complex_passes(w, &oe, plans, rank - 1, true);
            };
            // SAFETY: as for C2C.
            unsafe { into_output(&output, dst, fill) };
        }
        FftKind::C2R => {
            let c2r = plans.c2r.as_ref().expect("a C2R plan has its real transform");
            let (h, n) = (input.row_len(), output.row_len());
            let mut w: Vec<Complex<T>> = zeroed(batch * ie.iter().product::<usize>());
            // SAFETY: the input span holds every element of `input` (caller).
            unsafe { gather(&input, src, &mut w) };
            complex_passes(&mut w, &ie, plans, rank - 1, false);
            let (dst_p, stride) = (Shared(dst as *mut T), output.stride());
            let rows = w.len() / h;
            let per = rows_per_task(rows, n);
            w.par_chunks_mut(per * h).enumerate().for_each_init(
                || (vec![T::zero(); n], c2r.make_scratch_vec()),
                |(real, scratch), (t, in_rows)| {
                    for (i, spec) in in_rows.chunks_mut(h).enumerate() {
                        // The imaginary parts of the first (and, for even n, the last) bin
                        // do not enter a real signal; NumPy ignores them, and so does this
                        // (realfft computes the transform and only reports them).
                        let _ = c2r.process_with_scratch(spec, real, scratch);
                        let start = output.row_start(t * per + i);
                        for (k, x) in real.iter().enumerate() {
                            // SAFETY: inside the output span (caller); rows disjoint.
                            unsafe { *dst_p.at(start + k * stride) = *x };
                        }
                    }
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_sides_are_recognised() {
        assert!(Side::new(vec![4, 6], &[4, 6], 1, 24, 2).compact());
        assert!(!Side::new(vec![4, 6], &[4, 8], 1, 32, 2).compact());
        assert!(!Side::new(vec![6], &[6], 2, 1, 2).compact());
        assert!(Side::new(vec![1, 6], &[1, 6], 1, 6, 2).compact());
    }

    #[test]
    fn row_starts_follow_the_layout() {
        // Two batches 100 apart of a 3x4 transform in rows of 5 (inembed [_, 5]), stride 1.
        let s = Side::new(vec![3, 4], &[3, 5], 1, 100, 2);
        assert_eq!(s.row_start(0), 0);
        assert_eq!(s.row_start(2), 10);
        assert_eq!(s.row_start(3), 100);
        assert_eq!(s.row_start(5), 110);
    }
}
