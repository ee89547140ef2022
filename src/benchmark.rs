//! Host and device timing of a function, as `cupyx.profiler.benchmark`.

use std::fmt;
use std::time::Instant;

use xp_backend_api::{Error, Result};

/// The times of one [`benchmark`]: per repeat, the host's wall time and the device's time
/// between two events on the current stream. Printed as CuPy prints its `_PerfCaseResult`.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkResult {
    /// The name printed first.
    pub name: String,
    /// Label of the timed device, as CuPy prints it: `GPU-0` for a GPU (`cuda:0`, `hip:0`),
    /// `cpu-device` for the CPU backend's device (its own stream and events).
    pub device: String,
    /// Host wall time of each repeat, in seconds.
    pub cpu_times: Vec<f64>,
    /// Device time of each repeat (event before to event after, on the current stream), in
    /// seconds.
    pub gpu_times: Vec<f64>,
}

/// Mean, population standard deviation (NumPy's default), minimum and maximum.
fn stats(t: &[f64]) -> (f64, f64, f64, f64) {
    let n = t.len() as f64;
    let mean = t.iter().sum::<f64>() / n;
    let var = t.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let min = t.iter().cloned().fold(f64::INFINITY, f64::min);
    let max = t.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    (mean, var.sqrt(), min, max)
}

/// One device's column, CuPy's `_to_str_per_item`: times in microseconds; the spread only
/// when there is more than one repeat.
fn item(f: &mut fmt::Formatter<'_>, label: &str, t: &[f64]) -> fmt::Result {
    let us: Vec<f64> = t.iter().map(|s| s * 1e6).collect();
    let (mean, std, min, max) = stats(&us);
    write!(f, "    {label}:{mean:9.3} us")?;
    if us.len() > 1 {
        write!(f, "   +/-{std:6.3} (min:{min:9.3} / max:{max:9.3}) us")?;
    }
    Ok(())
}

impl BenchmarkResult {
    /// Mean host time per repeat, in seconds.
    pub fn cpu_mean(&self) -> f64 {
        stats(&self.cpu_times).0
    }
    /// Mean device time per repeat, in seconds.
    pub fn gpu_mean(&self) -> f64 {
        stats(&self.gpu_times).0
    }
}

/// CuPy's format (`cupyx/profiler/_time.py`): the name left-aligned in 20 columns, `:`, then
/// per device `    LABEL:{mean:9.3} us   +/-{std:6.3} (min:{min:9.3} / max:{max:9.3}) us`,
/// the columns joined by one space. For example
/// `add                 :    CPU:   12.345 us   +/- 1.234 (min:   10.000 / max:   15.000) us     GPU-0:   20.000 us   +/- 0.500 (min:   19.000 / max:   21.000) us`.
impl fmt::Display for BenchmarkResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<20}:", self.name)?;
        item(f, "CPU", &self.cpu_times)?;
        f.write_str(" ")?;
        item(f, &self.device, &self.gpu_times)
    }
}

/// The name CuPy would print for a function: its own name for a `fn` item, `<closure>` for
/// a closure (Python prints `<lambda>`).
fn function_name<F>() -> String {
    let full = std::any::type_name::<F>();
    if full.contains("{{closure}}") {
        return "<closure>".into();
    }
    let base = full.split('<').next().unwrap_or(full);
    base.rsplit("::").next().unwrap_or(base).to_string()
}

/// Time `f` as `cupyx.profiler.benchmark(f, n_repeat=…, n_warmup=…)` does: `n_warmup`
/// untimed calls, then `n_repeat` calls each timed on the host (wall clock around the call)
/// and on the current device (events recorded before and after on its current stream, the
/// end event waited for). Named after `f` (`<closure>` for a closure); see
/// [`benchmark_named`]. An error of `f` stops the run and is returned.
///
/// ```
/// let x = xp::arange(0, 1000, 1, Some(xp::DType::F32)).unwrap();
/// let r = xp::benchmark(|| x.mul_scalar(2), 5, 1).unwrap();
/// assert_eq!(r.cpu_times.len(), 5);
/// println!("{r}");
/// ```
pub fn benchmark<T, F: FnMut() -> Result<T>>(f: F, n_repeat: usize, n_warmup: usize) -> Result<BenchmarkResult> {
    benchmark_named(&function_name::<F>(), f, n_repeat, n_warmup)
}

/// [`benchmark`] under the name `name` (CuPy's `name=` argument).
pub fn benchmark_named<T>(
    name: &str,
    mut f: impl FnMut() -> Result<T>,
    n_repeat: usize,
    n_warmup: usize,
) -> Result<BenchmarkResult> {
    if n_repeat == 0 {
        return Err(Error::value("benchmark", "n_repeat must be at least 1"));
    }
    crate::init();
    let device = xp_array::current_device()?;
    let label =
        if device.properties().is_host { "cpu-device".to_string() } else { format!("GPU-{}", device.ordinal()) };
    for _ in 0..n_warmup {
        f()?;
    }
    let stream = xp_array::current_stream(&device);
    stream.synchronize()?;
    let mut cpu_times = Vec::with_capacity(n_repeat);
    let mut gpu_times = Vec::with_capacity(n_repeat);
    for _ in 0..n_repeat {
        // The stream in use may change inside `f` only through `with_stream`, which restores
        // it: the same stream is current before and after.
        let start = stream.record_event()?;
        let t0 = Instant::now();
        f()?;
        cpu_times.push(t0.elapsed().as_secs_f64());
        let end = stream.record_event()?;
        end.synchronize()?;
        gpu_times.push(start.elapsed_ms(&*end)? as f64 * 1e-3);
    }
    Ok(BenchmarkResult { name: name.to_string(), device: label, cpu_times, gpu_times })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(cpu_us: &[f64], gpu_us: &[f64]) -> BenchmarkResult {
        BenchmarkResult {
            name: "my_func".into(),
            device: "GPU-0".into(),
            cpu_times: cpu_us.iter().map(|v| v * 1e-6).collect(),
            gpu_times: gpu_us.iter().map(|v| v * 1e-6).collect(),
        }
    }

    #[test]
    fn prints_as_cupy_prints_its_perf_case_result() {
        // Python: '{:<20s}:{}'.format('my_func', ' '.join(items)), each item
        // '    {}:{:9.03f} us' + '   +/-{:6.03f} (min:{:9.03f} / max:{:9.03f}) us'.
        let r = result(&[10.0, 20.0], &[100.0, 300.0]);
        assert_eq!(
            r.to_string(),
            "my_func             :    CPU:   15.000 us   +/- 5.000 (min:   10.000 / max:   20.000) us     \
             GPU-0:  200.000 us   +/-100.000 (min:  100.000 / max:  300.000) us"
        );
    }

    #[test]
    fn one_repeat_prints_no_spread() {
        let r = result(&[12.5], &[7.25]);
        assert_eq!(r.to_string(), "my_func             :    CPU:   12.500 us     GPU-0:    7.250 us");
    }

    #[test]
    fn a_fn_item_is_named_after_itself_and_a_closure_as_one() {
        fn saxpy_step() -> Result<()> {
            Ok(())
        }
        fn name_of<F: FnMut() -> Result<()>>(_: &F) -> String {
            function_name::<F>()
        }
        assert_eq!(name_of(&saxpy_step), "saxpy_step");
        assert_eq!(name_of(&|| Ok(())), "<closure>");
    }
}
