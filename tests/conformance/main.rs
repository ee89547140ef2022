//! The NumPy conformance runner (a `harness = false` test target).
//!
//! The cases are made by NumPy (`../shared/conformance/generate.py`, format in `CONFORMANCE.md`
//! beside it): one folder per case with `case.json`, the inputs `in0.npy`, `in1.npy`… and the
//! expected answer. The runner builds the inputs on one device, applies the case's views, runs
//! the op through xp's public API and writes what came back:
//!
//! ```text
//! cargo test --release --test conformance -- --cases CASES --device cpu|cuda:0|hip:0 --out RESULTS
//! ```
//!
//! writes `RESULTS/<id>.npy` (the answer, C order, with the dtype and shape the op returned) or
//! `RESULTS/<id>.error`, whose first line is the error kind ([`xp::Error::kind`]) and whose next
//! lines are the message. An op xp does not have is `Unsupported: <op>`; a panic inside a case
//! is caught and written as `Panic`. `check.py CASES RESULTS` then scores the run.
//!
//! Without `--cases` (plain `cargo test`) it runs the cases kept in `tests/conformance-cases/`
//! on the CPU, compares every answer with the expected one here (the tolerances of `check.py`:
//! `exact`, `ulp:N`, `rel:T`, `reduction`) and exits non-zero, naming the cases, when an
//! answer or an error disagrees. A case whose op xp does not have yet is counted and listed as
//! unsupported but does not fail the run unless `--strict` is given.
//!
//! Other flags: `--check` compares a `--cases` run as well; `--strict` counts unsupported cases
//! as failures; any other argument that is not a flag selects the cases whose id contains it.
//! The translation from a case to xp is literal: the runner passes the case's operands and
//! keyword arguments to the matching xp call and never adjusts what comes back.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use xp::array::io::npy::{load_npy, save_npy, HostData};
use xp::array::{Array, Operand, Scalar, SliceArg};
use xp::backend::DTypeKind;
use xp::{DType, DynDevice, Error};

// NumPy's later callables of the `routines` group, and the SciPy groups, one file each under
// `tests/conformance/`: each SciPy file has `run(case, f, arrays)` for the ops of its module (`f`
// is the name after the module's prefix).
mod numpy_extras;
mod scipy_fft;
mod scipy_interpolate;
mod scipy_linalg;
mod scipy_ndimage_filters;
mod scipy_ndimage_interp;
mod scipy_ndimage_morph;
mod scipy_signal_design;
mod scipy_signal_filter;
mod scipy_sparse_linalg;
mod scipy_spatial;
mod scipy_special;
mod scipy_stats;

fn main() -> ExitCode {
    match Options::parse(std::env::args().skip(1)) {
        Ok(Some(opts)) => match run(&opts) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("conformance: {e}");
                ExitCode::from(2)
            }
        },
        Ok(None) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance: {e}");
            eprintln!("usage: conformance [--cases DIR] [--device LABEL] [--out DIR] [--check] [--strict] [FILTER…]");
            ExitCode::from(2)
        }
    }
}

// ---- options ---------------------------------------------------------------------------------

struct Options {
    cases: PathBuf,
    device: String,
    out: PathBuf,
    /// Compare the answers with the expected ones (always without `--cases`).
    check: bool,
    /// Unsupported cases fail the comparison.
    strict: bool,
    /// Case-id substrings; empty selects every case.
    filters: Vec<String>,
}

impl Options {
    /// The options, or `None` when there is nothing to run (`--list`).
    fn parse(args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
        let (mut cases, mut device, mut out) = (None, None, None);
        let (mut check, mut strict, mut filters) = (false, false, Vec::new());
        let mut args = args;
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
            match arg.as_str() {
                "--cases" => cases = Some(PathBuf::from(value("--cases")?)),
                "--device" => device = Some(value("--device")?),
                "--out" => out = Some(PathBuf::from(value("--out")?)),
                "--check" => check = true,
                "--strict" => strict = true,
                // `cargo test -- --list` asks every test target for its tests: this one is one.
                "--list" => {
                    println!("conformance: test");
                    return Ok(None);
                }
                // Flags that `cargo test -- …` passes to every test target, meaningless here.
                "--nocapture" | "--show-output" | "--quiet" | "-q" | "--exact" | "--include-ignored" | "--ignored" => {}
                a if a.starts_with("--test-threads") || a.starts_with("--color") || a.starts_with("--format") => {}
                a if a.starts_with('-') => return Err(format!("unknown argument {a}")),
                _ => filters.push(arg),
            }
        }
        let kept = cases.is_none();
        let cases = cases.unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance-cases"));
        let out = match out {
            Some(o) => o,
            None if kept => Path::new(env!("CARGO_TARGET_TMPDIR")).join("conformance-results"),
            None => return Err("--out is needed with --cases".into()),
        };
        let device = device.unwrap_or_else(|| "cpu".into());
        Ok(Some(Options { cases, device, out, check: check || kept, strict, filters }))
    }
}

// ---- the run ---------------------------------------------------------------------------------

fn run(opts: &Options) -> Result<ExitCode, String> {
    let t0 = Instant::now();
    let dev = xp::device(&opts.device).map_err(|e| format!("device {}: {e}", opts.device))?;
    let ids = case_ids(&opts.cases)?;
    let ids: Vec<String> = ids
        .into_iter()
        .filter(|id| opts.filters.is_empty() || opts.filters.iter().any(|f| id.contains(f.as_str())))
        .collect();
    std::fs::create_dir_all(&opts.out).map_err(|e| format!("creating {}: {e}", opts.out.display()))?;
    println!("conformance: {} cases from {} on {}", ids.len(), opts.cases.display(), dev.label());

    install_quiet_panic_hook();
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut unsupported = Vec::new();
    for id in &ids {
        let dir = opts.cases.join(id);
        let case = Case::load(&dir);
        let outcome = match &case {
            Ok(c) => run_case(c, &dev),
            Err(e) => Outcome::Failed(Failure::Case(e.clone())),
        };
        write_outcome(&opts.out, id, &outcome, case.as_ref().map(|c| c.op.as_str()).unwrap_or("?"))?;
        let t = tally.entry(group_of(id).to_string()).or_default();
        match &outcome {
            Outcome::Answer(_) => t.answers += 1,
            Outcome::Failed(Failure::Lib(Error::Unsupported(_))) => t.unsupported += 1,
            Outcome::Failed(Failure::Panic(_)) => t.panics += 1,
            Outcome::Failed(_) => t.errors += 1,
        }
        if opts.check {
            let verdict = match &case {
                Ok(c) => judge(c, &outcome),
                Err(e) => Verdict::Fail(format!("case: {e}")),
            };
            match verdict {
                Verdict::Pass => t.pass += 1,
                Verdict::Unsupported(why) => unsupported.push(format!("{id}: {why}")),
                Verdict::Fail(why) => {
                    t.fail += 1;
                    failures.push(format!("{id}: {why}"));
                }
            }
        }
    }
    restore_panic_hook();

    print_summary(&tally, opts.check);
    let secs = t0.elapsed().as_secs_f64();
    println!("results in {}; {} cases in {secs:.2} s", opts.out.display(), ids.len());
    if !opts.check {
        return Ok(ExitCode::SUCCESS);
    }
    if !unsupported.is_empty() {
        println!("{} unsupported{}:", unsupported.len(), if opts.strict { " (failing: --strict)" } else { "" });
        for u in &unsupported {
            println!("  UNSUPPORTED {u}");
        }
    }
    for f in &failures {
        println!("  FAIL {f}");
    }
    let npass: usize = tally.values().map(|t| t.pass).sum();
    let nfail = failures.len() + if opts.strict { unsupported.len() } else { 0 };
    println!("conformance: {npass} passed, {} failed, {} unsupported", failures.len(), unsupported.len());
    Ok(if nfail == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The case folders under `dir` (those holding a `case.json`), sorted.
fn case_ids(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
    let mut ids = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("reading {}: {e}", dir.display()))?;
        if entry.path().join("case.json").is_file() {
            ids.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    ids.sort();
    Ok(ids)
}

/// `00012-binary-add` → `binary`.
fn group_of(id: &str) -> &str {
    id.split('-').nth(1).unwrap_or("?")
}

#[derive(Default)]
struct Tally {
    answers: usize,
    errors: usize,
    unsupported: usize,
    panics: usize,
    pass: usize,
    fail: usize,
}

fn print_summary(tally: &BTreeMap<String, Tally>, check: bool) {
    let mut total = Tally::default();
    let head = if check { format!("{:>6} {:>6}", "pass", "fail") } else { String::new() };
    println!("{:10} {:>7} {:>6} {:>6} {:>6} {head}", "group", "answers", "errors", "unsupp", "panics");
    let row = |name: &str, t: &Tally| {
        let checked = if check { format!("{:6} {:6}", t.pass, t.fail) } else { String::new() };
        println!("{name:10} {:7} {:6} {:6} {:6} {checked}", t.answers, t.errors, t.unsupported, t.panics);
    };
    for (group, t) in tally {
        row(group, t);
        total.answers += t.answers;
        total.errors += t.errors;
        total.unsupported += t.unsupported;
        total.panics += t.panics;
        total.pass += t.pass;
        total.fail += t.fail;
    }
    row("total", &total);
}

// ---- a case ----------------------------------------------------------------------------------

struct Case {
    dir: PathBuf,
    op: String,
    inputs: Vec<String>,
    views: Vec<Value>,
    scalars: Vec<Value>,
    kwargs: serde_json::Map<String, Value>,
    expected: Option<String>,
    expected_dtype: Option<String>,
    expected_shape: Option<Vec<usize>>,
    expect_error: Option<String>,
    tol: String,
}

impl Case {
    fn load(dir: &Path) -> Result<Case, String> {
        let path = dir.join("case.json");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        let spec: Value = serde_json::from_str(&text).map_err(|e| format!("parsing {}: {e}", path.display()))?;
        let str_of = |key: &str| spec.get(key).and_then(Value::as_str).map(str::to_string);
        let list_of = |key: &str| spec.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
        let inputs = list_of("inputs")
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(|| format!("input name {v} is not a string")))
            .collect::<Result<_, _>>()?;
        let expected_shape = match spec.get("expected_shape") {
            Some(v) => Some(usizes(v).ok_or_else(|| format!("expected_shape {v} is not a shape"))?),
            None => None,
        };
        Ok(Case {
            dir: dir.to_path_buf(),
            op: str_of("op").ok_or("case.json has no op")?,
            inputs,
            views: list_of("views"),
            scalars: list_of("scalars"),
            kwargs: spec.get("kwargs").and_then(Value::as_object).cloned().unwrap_or_default(),
            expected: str_of("expected"),
            expected_dtype: str_of("expected_dtype"),
            expected_shape,
            expect_error: str_of("expect_error"),
            tol: str_of("tol").unwrap_or_else(|| "exact".into()),
        })
    }

    fn kwarg(&self, key: &str) -> Option<&Value> {
        self.kwargs.get(key).filter(|v| !v.is_null())
    }
}

fn usizes(v: &Value) -> Option<Vec<usize>> {
    v.as_array()?.iter().map(|x| x.as_u64().map(|u| u as usize)).collect()
}

fn isizes(v: &Value) -> Option<Vec<isize>> {
    v.as_array()?.iter().map(|x| x.as_i64().map(|i| i as isize)).collect()
}

/// A JSON number as a weak scalar: integers stay integers (Python's `int`), others are floats.
fn number_scalar(v: &Value) -> Option<Scalar> {
    if let Some(i) = v.as_i64() {
        Some(Scalar::Int(i as i128))
    } else if let Some(u) = v.as_u64() {
        Some(Scalar::Int(u as i128))
    } else if let Some(b) = v.as_bool() {
        Some(Scalar::Bool(b))
    } else {
        v.as_f64().map(Scalar::Float)
    }
}

// ---- running one case ------------------------------------------------------------------------

/// Why a case has no answer.
enum Failure {
    /// xp returned an error.
    Lib(Error),
    /// xp panicked: the message and where.
    Panic(String),
    /// The case itself could not be read or names arguments the runner cannot pass.
    Case(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Lib(e)
    }
}

enum Outcome {
    Answer(HostData),
    Failed(Failure),
}

fn run_case(case: &Case, dev: &Arc<dyn DynDevice>) -> Outcome {
    IN_CASE.with(|c| c.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(|| xp::array::with_device(dev, || compute(case, dev))));
    IN_CASE.with(|c| c.set(false));
    match result {
        Ok(Ok(answer)) => Outcome::Answer(answer),
        Ok(Err(f)) => Outcome::Failed(f),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic with a non-string payload".into());
            let at = PANIC_AT.with(|p| p.borrow_mut().take()).unwrap_or_default();
            Outcome::Failed(Failure::Panic(if at.is_empty() { msg } else { format!("{msg} (at {at})") }))
        }
    }
}

/// `scipy.fft`'s functions that `numpy.fft` does not have (the `fft2` group).
const SCIPY_FFT: &[&str] = &[
    "dct",
    "idct",
    "dst",
    "idst",
    "dctn",
    "idctn",
    "dstn",
    "idstn",
    "fht",
    "ifht",
    "hfft2",
    "ihfft2",
    "hfftn",
    "ihfftn",
    "next_fast_len",
];

/// Loads the inputs on `dev`, applies the views, runs the op and reads the answer back.
fn compute(case: &Case, dev: &Arc<dyn DynDevice>) -> Result<HostData, Failure> {
    let mut arrays = Vec::with_capacity(case.inputs.len());
    for (k, name) in case.inputs.iter().enumerate() {
        let host = load_npy(case.dir.join(name))?;
        let a = Array::from_bytes_on(dev, &host.shape, host.dtype, &host.bytes)?;
        arrays.push(match case.views.get(k) {
            Some(view) if !view.is_null() => apply_view(&a, view)?,
            _ => a,
        });
    }
    let out =
        if let Some(answer) = numpy_extras::run(case, &arrays) {
            answer?
        } else if let Some(f) = case.op.strip_prefix("fft.") {
            if SCIPY_FFT.contains(&f) {
                scipy_fft::run(case, f, &arrays)?
            } else {
                run_fft(case, f, &arrays)?
            }
        } else if let Some(f) = case.op.strip_prefix("spatial.") {
            scipy_spatial::run(case, f, &arrays)?
        } else if let Some(f) = case.op.strip_prefix("interpolate.") {
            scipy_interpolate::run(case, f, &arrays)?
        } else if let Some(f) = case.op.strip_prefix("stats.") {
            scipy_stats::run(case, f, &arrays)?
        } else if let Some(f) = case.op.strip_prefix("linalg.") {
            match scipy_linalg::run(case, f, &arrays) {
                Some(answer) => answer?,
                None => run_linalg(case, f, &arrays)?,
            }
        } else if let Some(f) = case.op.strip_prefix("ndimage.") {
            scipy_ndimage_filters::run(case, f, &arrays)
                .or_else(|| scipy_ndimage_interp::run(case, f, &arrays))
                .or_else(|| scipy_ndimage_morph::run(case, f, &arrays))
                .unwrap_or_else(|| Err(unsupported(&case.op)))?
        } else if let Some(answer) = case.op.strip_prefix("signal.").and_then(|f| {
            scipy_signal_filter::run(case, f, &arrays).or_else(|| scipy_signal_design::run(case, f, &arrays))
        }) {
            answer?
        } else if let Some(f) = case.op.strip_prefix("sparse.") {
            match scipy_sparse_linalg::run(case, f, &arrays) {
                Some(answer) => answer?,
                None => run_sparse(case, f, &arrays)?,
            }
        } else if let Some(f) = case.op.strip_prefix("special.") {
            run_special(case, f, &arrays)?
        } else {
            run_op(case, &arrays)?
        };
    let bytes = out.to_bytes()?;
    Ok(HostData { dtype: out.dtype(), shape: out.shape().to_vec(), bytes })
}

fn apply_view(a: &Array, view: &Value) -> Result<Array, Failure> {
    let bad = || Failure::Case(format!("view {view} is not understood"));
    if let Some(axes) = view.get("transpose") {
        return Ok(a.permute(&isizes(axes).ok_or_else(bad)?)?);
    }
    if let Some(slices) = view.get("slice") {
        let args =
            slices.as_array().ok_or_else(bad)?.iter().map(slice_arg).collect::<Option<Vec<_>>>().ok_or_else(bad)?;
        return Ok(a.slice(&args)?);
    }
    if let Some(shape) = view.get("broadcast_to") {
        return Ok(a.broadcast_to(&usizes(shape).ok_or_else(bad)?)?);
    }
    Err(bad())
}

/// `[start, stop, step]` with nulls, read as Python's `slice(*s)`.
fn slice_arg(s: &Value) -> Option<SliceArg> {
    let parts = s.as_array()?;
    let part = |v: &Value| if v.is_null() { Some(None) } else { v.as_i64().map(|i| Some(i as isize)) };
    let (start, stop, step) = match parts.as_slice() {
        [stop] => (None, part(stop)?, None),
        [start, stop] => (part(start)?, part(stop)?, None),
        [start, stop, step] => (part(start)?, part(stop)?, part(step)?),
        _ => return None,
    };
    Some(SliceArg::Range { start, stop, step })
}

fn unsupported(op: &str) -> Failure {
    Failure::Lib(Error::Unsupported(op.to_string()))
}

/// `axis`: an int, a list, or null/absent (every axis).
fn axes_kwarg(case: &Case) -> Result<Option<Vec<isize>>, Failure> {
    match case.kwarg("axis") {
        None => Ok(None),
        Some(v) => match v.as_i64() {
            Some(i) => Ok(Some(vec![i as isize])),
            None => isizes(v).map(Some).ok_or_else(|| Failure::Case(format!("axis {v} is not an int or a list"))),
        },
    }
}

/// `scipy.special`: the reductions by name (kwargs `axis`, `keepdims`, `return_sign`; inputs
/// a[, b]), the elementwise functions through the op table (inputs in SciPy's argument order).
fn run_special(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::special;
    let axes = || axes_kwarg(case);
    Ok(match f {
        "softmax" => special::softmax(&first(case, arrays)?, axes()?.as_deref())?,
        "log_softmax" => special::log_softmax(&first(case, arrays)?, axes()?.as_deref())?,
        "logsumexp" | "logsumexp_sign" => {
            let a = first(case, arrays)?;
            let b = arrays.get(1);
            let keepdims = bool_kwarg(case, "keepdims", false)?;
            if f == "logsumexp_sign" {
                special::logsumexp_with_sign(&a, axes()?.as_deref(), b, keepdims)?.1
            } else if bool_kwarg(case, "return_sign", false)? {
                special::logsumexp_with_sign(&a, axes()?.as_deref(), b, keepdims)?.0
            } else {
                special::logsumexp(&a, axes()?.as_deref(), b, keepdims)?
            }
        }
        name if xp::array::ufunc::find_op(name).is_some() => {
            let operands: Vec<Operand<'_>> = arrays.iter().map(Operand::Array).collect();
            xp::array::call(name, &operands, None)?
        }
        _ => return scipy_special::run(case, f, arrays),
    })
}

/// `axis` of an op that takes one axis or none.
fn axis_kwarg(case: &Case) -> Result<Option<isize>, Failure> {
    match case.kwarg("axis") {
        None => Ok(None),
        Some(v) => v
            .as_i64()
            .map(|i| Some(i as isize))
            .ok_or_else(|| Failure::Case(format!("{}: axis {v} is not an int", case.op))),
    }
}

fn int_kwarg(case: &Case, key: &str) -> Result<Option<i64>, Failure> {
    match case.kwarg(key) {
        None => Ok(None),
        Some(v) => v.as_i64().map(Some).ok_or_else(|| Failure::Case(format!("{}: {key} {v} is not an int", case.op))),
    }
}

fn bool_kwarg(case: &Case, key: &str, default: bool) -> Result<bool, Failure> {
    match case.kwarg(key) {
        None => Ok(default),
        Some(v) => v.as_bool().ok_or_else(|| Failure::Case(format!("{}: {key} {v} is not a bool", case.op))),
    }
}

fn scalar_kwarg(case: &Case, key: &str) -> Result<Scalar, Failure> {
    let v = case.kwarg(key).ok_or_else(|| Failure::Case(format!("{}: no {key}", case.op)))?;
    number_scalar(v).ok_or_else(|| Failure::Case(format!("{}: {key} {v} is not a number", case.op)))
}

/// `scipy.sparse`: a COO matrix to dense (inputs rows, cols, values), or a CSR matrix (inputs
/// data, indices, indptr) times a dense operand; `shape` is the matrix's.
fn run_sparse(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::sparse;
    let shape = case
        .kwarg("shape")
        .and_then(usizes)
        .filter(|s| s.len() == 2)
        .map(|s| (s[0], s[1]))
        .ok_or_else(|| Failure::Case(format!("sparse.{f}: no shape")))?;
    if f == "coo_todense" {
        let m = sparse::coo_matrix(nth(case, arrays, 2)?, nth(case, arrays, 0)?, nth(case, arrays, 1)?, Some(shape))?;
        return Ok(m.toarray()?);
    }
    let a = sparse::csr_matrix(nth(case, arrays, 0)?, nth(case, arrays, 1)?, nth(case, arrays, 2)?, Some(shape))?;
    let x = nth(case, arrays, 3)?;
    match f {
        "csr_matvec" | "csr_matmat" => Ok(a.dot(x)?),
        "csr_rmatvec" => Ok(a.T().dot(x)?),
        _ => Err(unsupported(&case.op)),
    }
}

/// `numpy.linalg.<f>` with NumPy's keyword arguments (the others go to [`run_op`]).
fn run_linalg(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::linalg::{self, NormOrd};
    let x = first(case, arrays)?;
    match f {
        "norm" => {
            let ord = match case.kwarg("ord") {
                None => None,
                Some(v) => Some(match v.as_str() {
                    Some("fro") => NormOrd::Fro,
                    Some("nuc") => NormOrd::Nuc,
                    Some("inf") => NormOrd::P(f64::INFINITY),
                    Some("-inf") => NormOrd::P(f64::NEG_INFINITY),
                    _ => NormOrd::P(v.as_f64().ok_or_else(|| Failure::Case(format!("norm: ord {v}")))?),
                }),
            };
            let axes = axes_kwarg(case)?;
            let keepdims = bool_kwarg(case, "keepdims", false)?;
            Ok(linalg::norm(&x, ord, axes.as_deref(), keepdims)?)
        }
        "matrix_power" => {
            let n = int_kwarg(case, "n")?.ok_or_else(|| Failure::Case("matrix_power: no n".into()))?;
            Ok(linalg::matrix_power(&x, n)?)
        }
        "solve" => Ok(linalg::solve(&x, nth(case, arrays, 1)?)?),
        "inv" => Ok(linalg::inv(&x)?),
        "det" => Ok(linalg::det(&x)?),
        "slogdet" => {
            // The case stacks (sign, logabsdet) in the sign's dtype.
            let (sign, logdet) = linalg::slogdet(&x)?;
            Ok(xp::stack(&[&sign, &logdet.astype(sign.dtype())?], 0)?)
        }
        "cholesky" => Ok(linalg::cholesky(&x, bool_kwarg(case, "upper", false)?)?),
        "eigvalsh" => Ok(linalg::eigvalsh(&x, "L")?),
        "svdvals" => Ok(linalg::svdvals(&x)?),
        "lstsq" => Ok(linalg::lstsq(&x, nth(case, arrays, 1)?, None)?.0),
        "pinv" => Ok(linalg::pinv(&x, None)?),
        "matrix_rank" => Ok(linalg::matrix_rank(&x, None)?),
        _ => run_op(case, arrays),
    }
}

/// The `fft` group: `numpy.fft.<f>` with NumPy's keyword arguments.
fn run_fft(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::fft;
    let usize_kw = |key: &str| -> Result<Option<usize>, Failure> {
        int_kwarg(case, key)?
            .map(|v| {
                usize::try_from(v)
                    .map_err(|_| Failure::Lib(Error::value(case.op.as_str(), format!("{key} {v} is negative"))))
            })
            .transpose()
    };
    let list_kw = |key: &str| -> Result<Option<Vec<isize>>, Failure> {
        match case.kwarg(key) {
            None => Ok(None),
            Some(v) => {
                isizes(v).map(Some).ok_or_else(|| Failure::Case(format!("{}: {key} {v} is not a list", case.op)))
            }
        }
    };
    let norm = match case.kwarg("norm") {
        None => None,
        Some(v) => Some(v.as_str().ok_or_else(|| Failure::Case(format!("{}: norm {v} is not a string", case.op)))?),
    };
    if f == "fftfreq" || f == "rfftfreq" {
        let n = usize_kw("n")?.ok_or_else(|| Failure::Case(format!("{}: no n", case.op)))?;
        let d = if case.kwarg("d").is_some() { f64_kwarg(case, "d")? } else { 1.0 };
        return Ok(if f == "fftfreq" { fft::fftfreq(n, d)? } else { fft::rfftfreq(n, d)? });
    }
    let x = first(case, arrays)?;
    let axes = list_kw("axes")?;
    let s: Option<Vec<usize>> = list_kw("s")?
        .map(|v| {
            v.into_iter()
                .map(|i| usize::try_from(i).map_err(|_| Failure::Case(format!("{}: s {i}", case.op))))
                .collect()
        })
        .transpose()?;
    let (s, axes) = (s.as_deref(), axes.as_deref());
    let n = usize_kw("n")?;
    let axis = axis_kwarg(case)?.unwrap_or(-1);
    let out = match f {
        "fft" => fft::fft(&x, n, axis, norm)?,
        "ifft" => fft::ifft(&x, n, axis, norm)?,
        "rfft" => fft::rfft(&x, n, axis, norm)?,
        "irfft" => fft::irfft(&x, n, axis, norm)?,
        "hfft" => fft::hfft(&x, n, axis, norm)?,
        "ihfft" => fft::ihfft(&x, n, axis, norm)?,
        "fft2" => fft::fft2(&x, s, axes, norm)?,
        "ifft2" => fft::ifft2(&x, s, axes, norm)?,
        "rfft2" => fft::rfft2(&x, s, axes, norm)?,
        "irfft2" => fft::irfft2(&x, s, axes, norm)?,
        "fftn" => fft::fftn(&x, s, axes, norm)?,
        "ifftn" => fft::ifftn(&x, s, axes, norm)?,
        "rfftn" => fft::rfftn(&x, s, axes, norm)?,
        "irfftn" => fft::irfftn(&x, s, axes, norm)?,
        "fftshift" => fft::fftshift(&x, axes)?,
        "ifftshift" => fft::ifftshift(&x, axes)?,
        _ => return Err(Failure::Case(format!("no fft function {f}"))),
    };
    Ok(out.ascontiguous()?)
}

fn f64_kwarg(case: &Case, key: &str) -> Result<f64, Failure> {
    let v = case.kwarg(key).ok_or_else(|| Failure::Case(format!("{}: no {key}", case.op)))?;
    v.as_f64().ok_or_else(|| Failure::Case(format!("{}: {key} {v} is not a number", case.op)))
}

/// `dtype` by NumPy's name; a name xp has no dtype for is unsupported.
fn dtype_kwarg(case: &Case) -> Result<Option<DType>, Failure> {
    match case.kwarg("dtype") {
        None => Ok(None),
        Some(v) => {
            let name = v.as_str().ok_or_else(|| Failure::Case(format!("{}: dtype {v} is not a string", case.op)))?;
            DType::from_name(name).map(Some).ok_or_else(|| unsupported(&format!("{} to dtype {name}", case.op)))
        }
    }
}

/// The weak scalar operands, in order.
fn scalars(case: &Case) -> Result<Vec<Scalar>, Failure> {
    let mut out = Vec::with_capacity(case.scalars.len());
    for s in &case.scalars {
        let bad = || Failure::Case(format!("scalar {s} is not understood"));
        let value = s.get("value").ok_or_else(bad)?;
        out.push(match s.get("kind").and_then(Value::as_str) {
            Some("complex") => match value.as_array().map(Vec::as_slice) {
                Some([re, im]) => Scalar::Complex(re.as_f64().ok_or_else(bad)?, im.as_f64().ok_or_else(bad)?),
                _ => return Err(bad()),
            },
            Some("float") => Scalar::Float(value.as_f64().ok_or_else(bad)?),
            Some("int") | Some("bool") => number_scalar(value).ok_or_else(bad)?,
            _ => return Err(bad()),
        });
    }
    Ok(out)
}

fn first(case: &Case, arrays: &[Array]) -> Result<Array, Failure> {
    arrays.first().cloned().ok_or_else(|| Failure::Case(format!("{}: no input", case.op)))
}

fn nth<'a>(case: &Case, arrays: &'a [Array], k: usize) -> Result<&'a Array, Failure> {
    arrays.get(k).ok_or_else(|| Failure::Case(format!("{}: needs {} inputs, has {}", case.op, k + 1, arrays.len())))
}

type Reduction = fn(&Array, Option<&[isize]>, bool) -> xp::Result<Array>;
type Scan = fn(&Array, Option<isize>) -> xp::Result<Array>;

/// The op of `case` on its (viewed) inputs, translated to xp's API.
fn run_op(case: &Case, arrays: &[Array]) -> Result<Array, Failure> {
    let op = case.op.as_str();
    let reduction: Option<Reduction> = match op {
        "sum" => Some(Array::sum),
        "prod" => Some(Array::prod),
        "mean" => Some(Array::mean),
        "min" => Some(Array::min),
        "max" => Some(Array::max),
        "any" => Some(Array::any),
        "all" => Some(Array::all),
        _ => None,
    };
    if let Some(f) = reduction {
        let axes = axes_kwarg(case)?;
        return Ok(f(&first(case, arrays)?, axes.as_deref(), bool_kwarg(case, "keepdims", false)?)?);
    }
    let scan: Option<Scan> = match op {
        "argmin" => Some(Array::argmin),
        "argmax" => Some(Array::argmax),
        "cumsum" => Some(Array::cumsum),
        "cumprod" => Some(Array::cumprod),
        _ => None,
    };
    if let Some(f) = scan {
        return Ok(f(&first(case, arrays)?, axis_kwarg(case)?)?);
    }
    if matches!(op, "convolve" | "correlate" | "convolve2d" | "correlate2d" | "fftconvolve") {
        return run_signal(case, arrays);
    }
    let x = first(case, arrays);
    Ok(match op {
        "astype" => {
            let dtype = dtype_kwarg(case)?.ok_or_else(|| Failure::Case("astype: no dtype".into()))?;
            x?.astype(dtype)?
        }
        "var" | "std" => {
            let axes = axes_kwarg(case)?;
            let ddof = int_kwarg(case, "ddof")?.unwrap_or(0);
            let ddof = usize::try_from(ddof).map_err(|_| Failure::Case(format!("{op}: ddof {ddof} is negative")))?;
            let keepdims = bool_kwarg(case, "keepdims", false)?;
            let f = if op == "var" { Array::var } else { Array::std };
            f(&x?, axes.as_deref(), ddof, keepdims)?
        }
        "matmul" | "dot" | "vdot" | "inner" | "outer" | "kron" => {
            use xp::array::linalg;
            let f = match op {
                "matmul" => linalg::matmul,
                "dot" => linalg::dot,
                "vdot" => linalg::vdot,
                "inner" => linalg::inner,
                "outer" => linalg::outer,
                _ => linalg::kron,
            };
            f(&x?, nth(case, arrays, 1)?)?
        }
        "tensordot" => {
            use xp::array::linalg::TensorAxes;
            let axes = match case.kwarg("axes") {
                None => TensorAxes::Count(2),
                Some(v) if v.is_u64() => TensorAxes::Count(v.as_u64().unwrap_or(2) as usize),
                Some(v) => {
                    let lists =
                        v.as_array().filter(|l| l.len() == 2).and_then(|l| Some((isizes(&l[0])?, isizes(&l[1])?)));
                    let (a, b) = lists.ok_or_else(|| Failure::Case(format!("tensordot: axes {v}")))?;
                    TensorAxes::Lists(a, b)
                }
            };
            xp::array::linalg::tensordot(&x?, nth(case, arrays, 1)?, axes)?
        }
        "trace" => x?.trace(int_kwarg(case, "offset")?.unwrap_or(0) as isize)?,
        "diagonal" => x?.diagonal(int_kwarg(case, "offset")?.unwrap_or(0) as isize, 0, 1)?.copy()?,
        "einsum" => {
            let sub = case
                .kwarg("subscripts")
                .and_then(|v| v.as_str())
                .ok_or_else(|| Failure::Case("einsum: no subscripts".into()))?;
            let refs: Vec<&Array> = arrays.iter().collect();
            xp::array::linalg::einsum(sub, &refs)?.copy()?
        }
        "take" => x?.take(nth(case, arrays, 1)?, axis_kwarg(case)?)?,
        "compress_mask" => x?.compress_mask(nth(case, arrays, 1)?)?,
        "sort" => x?.sort(Some(axis_kwarg(case)?.unwrap_or(-1)))?,
        "argsort_stable" => x?.argsort(Some(axis_kwarg(case)?.unwrap_or(-1)))?,
        "unique" => xp::array::unique(&x?)?,
        "searchsorted" => {
            let side = match case.kwarg("side").and_then(|v| v.as_str()) {
                None | Some("left") => xp::array::Side::Left,
                Some("right") => xp::array::Side::Right,
                Some(s) => return Err(Failure::Case(format!("searchsorted: side {s}"))),
            };
            xp::array::searchsorted(&x?, nth(case, arrays, 1)?, side, None)?
        }
        "nonzero" => {
            x?.nonzero()?.into_iter().next().ok_or_else(|| Failure::Case("nonzero returned no index arrays".into()))?
        }
        "where" => {
            xp::array::where_(&x?, Operand::Array(nth(case, arrays, 1)?), Operand::Array(nth(case, arrays, 2)?))?
        }
        "clip" => x?.clip(scalar_kwarg(case, "min")?, scalar_kwarg(case, "max")?)?,
        "reshape" => {
            let shape =
                case.kwarg("shape").and_then(isizes).ok_or_else(|| Failure::Case("reshape: no shape".into()))?;
            x?.reshape(&shape)?.copy()?
        }
        "transpose" => match case.kwarg("axes") {
            Some(v) => x?.permute(&isizes(v).ok_or_else(|| Failure::Case(format!("transpose: axes {v}")))?)?.copy()?,
            None => x?.t().copy()?,
        },
        "concatenate" | "stack" => {
            let refs: Vec<&Array> = arrays.iter().collect();
            let axis = axis_kwarg(case)?.unwrap_or(0);
            if op == "stack" {
                xp::array::stack(&refs, axis)?
            } else {
                xp::array::concatenate(&refs, axis)?
            }
        }
        "arange" => {
            let start = if case.kwarg("start").is_some() { scalar_kwarg(case, "start")? } else { Scalar::Int(0) };
            let step = if case.kwarg("step").is_some() { scalar_kwarg(case, "step")? } else { Scalar::Int(1) };
            xp::array::arange(start, scalar_kwarg(case, "stop")?, step, dtype_kwarg(case)?)?
        }
        "linspace" => {
            let num = int_kwarg(case, "num")?.unwrap_or(50);
            let num = usize::try_from(num).map_err(|_| Error::value("linspace", format!("num {num} is negative")))?;
            let endpoint = bool_kwarg(case, "endpoint", true)?;
            xp::array::linspace(f64_kwarg(case, "start")?, f64_kwarg(case, "stop")?, num, endpoint, dtype_kwarg(case)?)?
        }
        "eye" => {
            let count = |key: &str| -> Result<Option<usize>, Failure> {
                int_kwarg(case, key)?
                    .map(|v| {
                        usize::try_from(v)
                            .map_err(|_| Failure::Lib(Error::value("eye", format!("{key} {v} is negative"))))
                    })
                    .transpose()
            };
            let n = count("n")?.ok_or_else(|| Failure::Case("eye: no n".into()))?;
            let k = int_kwarg(case, "k")?.unwrap_or(0) as isize;
            xp::array::eye(n, count("m")?, k, dtype_kwarg(case)?.unwrap_or(DType::F64))?
        }
        // NumPy's `i0` is its own routine (`xp::i0`, NumPy's algorithm), not the op of the
        // same name that is SciPy's `special.i0`.
        name if name != "i0" && xp::array::ufunc::find_op(name).is_some() => {
            let scalars = scalars(case)?;
            let operands: Vec<Operand<'_>> =
                arrays.iter().map(Operand::Array).chain(scalars.iter().map(|s| Operand::Scalar(*s))).collect();
            xp::array::call(name, &operands, None)?
        }
        _ => run_routine(case, arrays)?,
    })
}

/// A string kwarg parsed as `T` (`default` when absent).
fn parsed_kwarg<T: std::str::FromStr<Err = Error>>(case: &Case, key: &str, default: &str) -> Result<T, Failure> {
    let s = match case.kwarg(key) {
        None => default,
        Some(v) => v.as_str().ok_or_else(|| Failure::Case(format!("{}: {key} {v} is not a string", case.op)))?,
    };
    Ok(s.parse::<T>()?)
}

/// NumPy's 1-d `convolve`/`correlate` (kwarg `mode`) and SciPy's `convolve2d`/`correlate2d`
/// (kwargs `mode`, `boundary`, `fillvalue`) and `fftconvolve` (kwargs `mode`, `axes`).
fn run_signal(case: &Case, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::signal::{self, Boundary, Mode};
    let (x, y) = (first(case, arrays)?, nth(case, arrays, 1)?);
    let fill = if case.kwarg("fillvalue").is_some() { f64_kwarg(case, "fillvalue")? } else { 0.0 };
    Ok(match case.op.as_str() {
        "convolve" => xp::convolve(&x, y, parsed_kwarg(case, "mode", "full")?)?,
        "correlate" => xp::correlate(&x, y, parsed_kwarg(case, "mode", "valid")?)?,
        "convolve2d" | "correlate2d" => {
            let (mode, boundary) =
                (parsed_kwarg::<Mode>(case, "mode", "full")?, parsed_kwarg::<Boundary>(case, "boundary", "fill")?);
            if case.op == "convolve2d" {
                signal::convolve2d(&x, y, mode, boundary, fill)?
            } else {
                signal::correlate2d(&x, y, mode, boundary, fill)?
            }
        }
        "fftconvolve" => signal::fftconvolve(&x, y, parsed_kwarg(case, "mode", "full")?, axes_kwarg(case)?.as_deref())?,
        other => return Err(unsupported(other)),
    })
}

/// A kwarg that is an int or a list of ints, as a list.
fn int_list_kwarg(case: &Case, key: &str) -> Result<Option<Vec<isize>>, Failure> {
    match case.kwarg(key) {
        None => Ok(None),
        Some(v) => match v.as_i64() {
            Some(i) => Ok(Some(vec![i as isize])),
            None => isizes(v).map(Some).ok_or_else(|| Failure::Case(format!("{}: {key} {v}", case.op))),
        },
    }
}

/// A kwarg that must be a count (a negative one is NumPy's `ValueError`).
fn count_kwarg(case: &Case, key: &str) -> Result<Option<usize>, Failure> {
    int_kwarg(case, key)?
        .map(|v| {
            usize::try_from(v)
                .map_err(|_| Failure::Lib(Error::value(case.op.as_str(), format!("{key} {v} is negative"))))
        })
        .transpose()
}

fn bool_array(b: bool) -> Result<Array, Failure> {
    Ok(Array::from_slice(&[b], &[])?)
}

/// The `routines` group: NumPy's function of the case's name with its keyword arguments.
/// The `index` kwarg of `getitem`/`setitem`: its items, arrays and masks naming inputs.
fn index_kwarg<'a>(case: &Case, arrays: &'a [Array]) -> Result<Vec<xp::array::IndexItem<'a>>, Failure> {
    use xp::array::IndexItem;
    let bad = |what: String| Failure::Case(format!("{}: index {what}", case.op));
    let list = case.kwarg("index").and_then(|v| v.as_array()).ok_or_else(|| bad("is not a list".into()))?;
    let opt = |v: &serde_json::Value| v.as_i64().map(|k| k as isize);
    let input = |v: &serde_json::Value| -> Result<&'a Array, Failure> {
        let k = v.as_u64().ok_or_else(|| bad(format!("input {v}")))? as usize;
        arrays.get(k).ok_or_else(|| bad(format!("input {k} is missing")))
    };
    list.iter()
        .map(|it| {
            Ok(if let Some(sl) = it.get("slice").and_then(|v| v.as_array()) {
                let at = |k: usize| sl.get(k).and_then(opt);
                IndexItem::Slice(at(0), at(1), at(2))
            } else if let Some(k) = it.get("int").and_then(opt) {
                IndexItem::Int(k)
            } else if let Some(v) = it.get("array") {
                IndexItem::Array(input(v)?)
            } else if let Some(v) = it.get("mask") {
                IndexItem::Mask(input(v)?)
            } else if it.get("newaxis").is_some() {
                IndexItem::NewAxis
            } else if it.get("ellipsis").is_some() {
                IndexItem::Ellipsis
            } else {
                return Err(bad(format!("item {it}")));
            })
        })
        .collect()
}

/// Several results as one: their stack (one shape and dtype).
fn stacked(parts: &[Array]) -> Result<Array, Failure> {
    Ok(xp::stack(&parts.iter().collect::<Vec<_>>(), 0)?)
}

/// Several results as one: the concatenation of their ravels.
fn ravels(parts: &[Array]) -> Result<Array, Failure> {
    let flat = parts.iter().map(|p| p.ravel()).collect::<xp::Result<Vec<_>>>()?;
    Ok(xp::concatenate(&flat.iter().collect::<Vec<_>>(), 0)?)
}

fn run_routine(case: &Case, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::array::routines as r;
    let op = case.op.as_str();
    let refs: Vec<&Array> = arrays.iter().collect();
    let x = || first(case, arrays);
    let y = || nth(case, arrays, 1);
    let need = |key: &str| Failure::Case(format!("{op}: no {key}"));
    let axis = axis_kwarg(case)?;
    let count = |key: &str| count_kwarg(case, key)?.ok_or_else(|| need(key));
    let window_m = || -> Result<usize, Failure> { Ok(int_kwarg(case, "M")?.ok_or_else(|| need("M"))?.max(0) as usize) };
    Ok(match op {
        "flip" => r::flip(&x()?, axes_kwarg(case)?.as_deref())?,
        "roll" => r::roll(&x()?, int_kwarg(case, "shift")?.ok_or_else(|| need("shift"))? as isize, axis)?,
        "repeat" => r::repeat(&x()?, count("repeats")?, axis)?,
        "tile" => {
            let reps = case.kwarg("reps").and_then(usizes).ok_or_else(|| need("reps"))?;
            r::tile(&x()?, &reps)?
        }
        "moveaxis" => {
            let src = int_list_kwarg(case, "source")?.ok_or_else(|| need("source"))?;
            let dst = int_list_kwarg(case, "destination")?.ok_or_else(|| need("destination"))?;
            r::moveaxis(&x()?, &src, &dst)?
        }
        "swapaxes" => {
            let a1 = int_kwarg(case, "axis1")?.ok_or_else(|| need("axis1"))?;
            let a2 = int_kwarg(case, "axis2")?.ok_or_else(|| need("axis2"))?;
            r::swapaxes(&x()?, a1 as isize, a2 as isize)?
        }
        "rot90" => {
            let axes = match case.kwarg("axes") {
                None => [0, 1],
                Some(v) => match isizes(v).as_deref() {
                    Some(&[a, b]) => [a, b],
                    _ => return Err(Failure::Lib(Error::value("rot90", format!("len(axes) must be 2, got {v}")))),
                },
            };
            r::rot90(&x()?, int_kwarg(case, "k")?.unwrap_or(1) as isize, axes)?
        }
        "atleast_1d" => r::atleast_1d(&x()?)?,
        "atleast_2d" => r::atleast_2d(&x()?)?,
        "atleast_3d" => r::atleast_3d(&x()?)?,
        "append" => r::append(&x()?, y()?, axis)?,
        "diff" => r::diff(&x()?, count_kwarg(case, "n")?.unwrap_or(1), axis.unwrap_or(-1))?,
        "tril" => r::tril(&x()?, int_kwarg(case, "k")?.unwrap_or(0) as isize)?,
        "triu" => r::triu(&x()?, int_kwarg(case, "k")?.unwrap_or(0) as isize)?,
        "hstack" => r::hstack(&refs)?,
        "vstack" => r::vstack(&refs)?,
        "dstack" => r::dstack(&refs)?,
        "column_stack" => r::column_stack(&refs)?,
        "fmod" => r::fmod(&x()?, y()?)?,
        "logaddexp" => r::logaddexp(&x()?, y()?)?,
        "logaddexp2" => r::logaddexp2(&x()?, y()?)?,
        "heaviside" => r::heaviside(&x()?, y()?)?,
        "float_power" => r::float_power(&x()?, y()?)?,
        "sinc" => r::sinc(&x()?)?,
        "deg2rad" => r::deg2rad(&x()?)?,
        "rad2deg" => r::rad2deg(&x()?)?,
        "fix" => r::fix(&x()?)?,
        "nan_to_num" => {
            let opt = |key: &str| case.kwarg(key).map(|_| f64_kwarg(case, key)).transpose();
            r::nan_to_num(&x()?, opt("nan")?.unwrap_or(0.0), opt("posinf")?, opt("neginf")?)?
        }
        "around" => r::around(&x()?, int_kwarg(case, "decimals")?.unwrap_or(0) as i32)?,
        "cross" => r::cross(&x()?, y()?, axis.unwrap_or(-1))?,
        "trapezoid" => {
            let spacing = match arrays.get(1) {
                Some(xs) => r::Spacing::X(xs),
                None => r::Spacing::Dx(if case.kwarg("dx").is_some() { f64_kwarg(case, "dx")? } else { 1.0 }),
            };
            r::trapezoid(&x()?, spacing, axis.unwrap_or(-1))?
        }
        "polyval" => r::polyval(&x()?, y()?)?,
        "getitem" => {
            let items = index_kwarg(case, arrays)?;
            x()?.getitem(&items)?
        }
        "setitem" => {
            // The value is the last input; the answer is the whole array afterwards.
            let (value, rest) = arrays.split_last().ok_or_else(|| need("value"))?;
            let items = index_kwarg(case, rest)?;
            let y = x()?.copy()?;
            y.setitem(&items, value)?;
            y
        }
        "real" => x()?.real().copy()?,
        "imag" => x()?.imag()?.copy()?,
        "angle" => r::angle(&x()?, bool_kwarg(case, "deg", false)?)?,
        "ptp" => r::ptp(&x()?, axes_kwarg(case)?.as_deref(), bool_kwarg(case, "keepdims", false)?)?,
        "count_nonzero" => r::count_nonzero(&x()?, axes_kwarg(case)?.as_deref())?,
        "isclose" | "allclose" => {
            let rtol = if case.kwarg("rtol").is_some() { f64_kwarg(case, "rtol")? } else { 1e-5 };
            let atol = if case.kwarg("atol").is_some() { f64_kwarg(case, "atol")? } else { 1e-8 };
            let equal_nan = bool_kwarg(case, "equal_nan", false)?;
            if op == "isclose" {
                r::isclose(&x()?, y()?, rtol, atol, equal_nan)?
            } else {
                bool_array(r::allclose(&x()?, y()?, rtol, atol, equal_nan)?)?
            }
        }
        "array_equal" => bool_array(r::array_equal(&x()?, y()?, bool_kwarg(case, "equal_nan", false)?)?)?,
        "logspace" | "geomspace" => {
            let num = count_kwarg(case, "num")?.unwrap_or(50);
            let endpoint = bool_kwarg(case, "endpoint", true)?;
            let (start, stop) = (f64_kwarg(case, "start")?, f64_kwarg(case, "stop")?);
            if op == "logspace" {
                let base = if case.kwarg("base").is_some() { f64_kwarg(case, "base")? } else { 10.0 };
                r::logspace(start, stop, num, endpoint, base, dtype_kwarg(case)?)?
            } else {
                r::geomspace(start, stop, num, endpoint, dtype_kwarg(case)?)?
            }
        }
        "tri" => {
            let k = int_kwarg(case, "k")?.unwrap_or(0) as isize;
            r::tri(count("N")?, count_kwarg(case, "M")?, k, dtype_kwarg(case)?.unwrap_or(DType::F64))?
        }
        "hanning" => r::hanning(window_m()?)?,
        "hamming" => r::hamming(window_m()?)?,
        "blackman" => r::blackman(window_m()?)?,
        "bartlett" => r::bartlett(window_m()?)?,
        "indices" => {
            let dims = case.kwarg("dimensions").and_then(usizes).ok_or_else(|| need("dimensions"))?;
            r::indices(&dims, dtype_kwarg(case)?.unwrap_or(DType::I64))?
        }
        "nansum" | "nanprod" | "nanmean" | "nanmax" | "nanmin" => {
            let f = match op {
                "nansum" => r::nansum,
                "nanprod" => r::nanprod,
                "nanmean" => r::nanmean,
                "nanmax" => r::nanmax,
                _ => r::nanmin,
            };
            f(&x()?, axes_kwarg(case)?.as_deref(), bool_kwarg(case, "keepdims", false)?)?
        }
        "nanvar" | "nanstd" => {
            let ddof = count_kwarg(case, "ddof")?.unwrap_or(0);
            let f = if op == "nanvar" { r::nanvar } else { r::nanstd };
            f(&x()?, axes_kwarg(case)?.as_deref(), ddof, bool_kwarg(case, "keepdims", false)?)?
        }
        "nancumsum" => r::nancumsum(&x()?, axis)?,
        "nancumprod" => r::nancumprod(&x()?, axis)?,
        "nanargmax" => r::nanargmax(&x()?, axis)?,
        "nanargmin" => r::nanargmin(&x()?, axis)?,
        "median" => r::median(&x()?, axis, false)?,
        "nanmedian" => r::nanmedian(&x()?, axis, false)?,
        "percentile" | "quantile" | "nanpercentile" | "nanquantile" => {
            let q = match case.kwarg("q") {
                Some(v) if v.as_f64().is_some() => r::Quantiles::One(v.as_f64().unwrap_or(0.0)),
                Some(v) => {
                    let list: Vec<f64> = v
                        .as_array()
                        .and_then(|l| l.iter().map(|e| e.as_f64()).collect())
                        .ok_or_else(|| Failure::Case(format!("{op}: q {v}")))?;
                    let n = list.len();
                    r::Quantiles::Many(list, vec![n])
                }
                None => return Err(need("q")),
            };
            let method = match case.kwarg("method").and_then(|v| v.as_str()) {
                None => r::QuantileMethod::Linear,
                Some(m) => r::QuantileMethod::from_name(m).ok_or_else(|| unsupported(&format!("{op} method {m}")))?,
            };
            let f = match op {
                "percentile" => r::percentile,
                "quantile" => r::quantile,
                "nanpercentile" => r::nanpercentile,
                _ => r::nanquantile,
            };
            f(&x()?, q, axis, method, false)?
        }
        "isin" => r::isin(&x()?, y()?, false)?,
        "intersect1d" => r::intersect1d(&x()?, y()?)?,
        "union1d" => r::union1d(&x()?, y()?)?,
        "setdiff1d" => r::setdiff1d(&x()?, y()?)?,
        "setxor1d" => r::setxor1d(&x()?, y()?)?,
        "average" => r::average(&x()?, axis, arrays.get(1))?,
        "cov" => r::cov(&x()?)?,
        "corrcoef" => r::corrcoef(&x()?)?,
        "gradient" => r::gradient(&x()?, axis.unwrap_or(0))?,
        "unwrap" => r::unwrap(&x()?, axis.unwrap_or(-1))?,
        "ldexp" => r::ldexp(&x()?, y()?)?,
        "take_along_axis" => r::take_along_axis(&x()?, y()?, axis.ok_or_else(|| need("axis"))?)?,
        "choose" => r::choose(&x()?, &refs[1..])?,
        "select" => {
            let half = refs.len() / 2;
            let default = if case.kwarg("default").is_some() { scalar_kwarg(case, "default")? } else { Scalar::Int(0) };
            r::select(&refs[..half], &refs[half..], default)?
        }
        "compress" => r::compress(&x()?, y()?, axis)?,
        "putmask" => r::putmask(&x()?, y()?, nth(case, arrays, 2)?)?,
        "copyto" => r::copyto(&x()?, y()?, nth(case, arrays, 2)?)?,
        "delete" => {
            let obj = int_list_kwarg(case, "obj")?.ok_or_else(|| need("obj"))?;
            r::delete(&x()?, &obj, axis)?
        }
        "insert" => {
            let obj = int_kwarg(case, "obj")?.ok_or_else(|| need("obj"))? as isize;
            r::insert(&x()?, obj, scalar_kwarg(case, "values")?, axis)?
        }
        "resize" => {
            let shape = case.kwarg("new_shape").and_then(usizes).ok_or_else(|| need("new_shape"))?;
            r::resize(&x()?, &shape)?
        }
        "vander" => r::vander(&x()?, count_kwarg(case, "N")?)?,
        "pad" => {
            let pairs = case.kwarg("pad_width").and_then(|v| v.as_array().cloned()).ok_or_else(|| need("pad_width"))?;
            let widths = pairs
                .iter()
                .map(|p| match usizes(p).as_deref() {
                    Some(&[b, a]) => Ok((b, a)),
                    _ => Err(Failure::Case(format!("pad: pad_width entry {p}"))),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let name = case.kwarg("mode").and_then(Value::as_str).unwrap_or("constant");
            let mode = match r::PadMode::from_name(name)? {
                r::PadMode::Constant(_) if case.kwarg("constant_values").is_some() => {
                    r::PadMode::Constant(scalar_kwarg(case, "constant_values")?)
                }
                r::PadMode::LinearRamp(_) if case.kwarg("end_values").is_some() => {
                    r::PadMode::LinearRamp(scalar_kwarg(case, "end_values")?)
                }
                m @ (r::PadMode::Maximum(_) | r::PadMode::Minimum(_) | r::PadMode::Mean(_) | r::PadMode::Median(_)) => {
                    let k = int_kwarg(case, "stat_length")?.map(|k| k.max(0) as usize);
                    match m {
                        r::PadMode::Maximum(_) => r::PadMode::Maximum(k),
                        r::PadMode::Minimum(_) => r::PadMode::Minimum(k),
                        r::PadMode::Mean(_) => r::PadMode::Mean(k),
                        _ => r::PadMode::Median(k),
                    }
                }
                m => m,
            };
            r::pad(&x()?, &widths, mode)?
        }
        "gcd" => r::gcd(&x()?, y()?)?,
        "lcm" => r::lcm(&x()?, y()?)?,
        "diag" => xp::diag(&x()?, int_kwarg(case, "k")?.unwrap_or(0) as isize)?,
        "put_along_axis" => {
            // The answer is the whole array afterwards.
            let out = x()?.copy()?;
            r::put_along_axis(&out, y()?, nth(case, arrays, 2)?, axis)?;
            out
        }
        "nextafter" => r::nextafter(&x()?, y()?)?,
        "spacing" => r::spacing(&x()?)?,
        "i0" => r::i0(&x()?)?,
        "kaiser" => r::kaiser(window_m()?, f64_kwarg(case, "beta")?)?,
        "interp" if case.kwarg("period").is_some() => {
            r::interp_periodic(&x()?, y()?, nth(case, arrays, 2)?, f64_kwarg(case, "period")?)?
        }
        "interp" => {
            let opt = |key: &str| case.kwarg(key).map(|_| f64_kwarg(case, key)).transpose();
            r::interp(&x()?, y()?, nth(case, arrays, 2)?, opt("left")?, opt("right")?)?
        }
        // Routines with several results answer one array (scripts/conformance/routines_extra.py):
        // their stack, or the concatenation of their ravels.
        "place" => {
            let a = x()?.copy()?;
            r::place(&a, y()?, nth(case, arrays, 2)?)?;
            a
        }
        "extract" => r::extract(&x()?, y()?)?,
        "fill_diagonal" => {
            let a = x()?.copy()?;
            r::fill_diagonal(&a, scalar_kwarg(case, "val")?)?;
            a
        }
        "fliplr" => r::fliplr(&x()?)?,
        "flipud" => r::flipud(&x()?)?,
        "split" | "array_split" | "hsplit" | "vsplit" | "dsplit" => {
            let s = r::Sections::Count(count("sections")?);
            let a = x()?;
            let parts = match op {
                "split" => r::split(&a, &s, axis.unwrap_or(0))?,
                "array_split" => r::array_split(&a, &s, axis.unwrap_or(0))?,
                "hsplit" => r::hsplit(&a, &s)?,
                "vsplit" => r::vsplit(&a, &s)?,
                _ => r::dsplit(&a, &s)?,
            };
            if op == "array_split" {
                ravels(&parts)?
            } else {
                stacked(&parts)?
            }
        }
        "block" => {
            let (a, b) = (x()?, y()?);
            r::block(&[vec![&a, b], vec![nth(case, arrays, 2)?]])?
        }
        "broadcast_arrays" => stacked(&r::broadcast_arrays(&refs)?)?,
        "unstack" => stacked(&r::unstack(&x()?, axis.unwrap_or(0))?)?,
        "diagflat" => r::diagflat(&x()?, int_kwarg(case, "k")?.unwrap_or(0) as isize)?,
        "trim_zeros" => r::trim_zeros(&x()?, case.kwarg("trim").and_then(Value::as_str).unwrap_or("fb"))?,
        "ediff1d" => r::ediff1d(&x()?, None, None)?,
        "modf" => {
            let (f, i) = r::modf(&x()?)?;
            stacked(&[f, i])?
        }
        "divmod" => {
            let (q, m) = r::divmod(&x()?, y()?)?;
            stacked(&[q, m])?
        }
        "frexp_mantissa" => r::frexp(&x()?)?.0,
        "frexp_exponent" => r::frexp(&x()?)?.1,
        "isneginf" => r::isneginf(&x()?)?,
        "isposinf" => r::isposinf(&x()?)?,
        "iscomplex" => r::iscomplex(&x()?)?,
        "isreal" => r::isreal(&x()?)?,
        "polyfit" => r::polyfit(&x()?, y()?, count("deg")?)?,
        "roots" => xp::array::sort_complex(&r::roots(&x()?)?.astype(DType::C128)?)?,
        "array_equiv" => {
            let a = x()?;
            Array::scalar_on(&a.device_arc(), r::array_equiv(&a, y()?)?, DType::Bool)?
        }
        "histogram2d" => {
            let b = case.kwarg("bins").and_then(usizes).ok_or_else(|| need("bins"))?;
            let [bx, by] = b[..] else { return Err(need("two bins")) };
            r::histogram2d(&x()?, y()?, [r::Bins::Count(bx), r::Bins::Count(by)], None, false, None)?.0
        }
        "histogramdd" => {
            let b = case.kwarg("bins").and_then(usizes).ok_or_else(|| need("bins"))?;
            let bins: Vec<r::Bins<'_>> = b.iter().map(|&k| r::Bins::Count(k)).collect();
            r::histogramdd(&x()?, &bins, None, false, None)?.0
        }
        "tril_indices" | "triu_indices" => {
            let n = count("n")?;
            let k = int_kwarg(case, "k")?.unwrap_or(0) as isize;
            let m = count_kwarg(case, "m")?;
            let (i, j) = if op == "tril_indices" { r::tril_indices(n, k, m)? } else { r::triu_indices(n, k, m)? };
            stacked(&[i, j])?
        }
        "diag_indices" => stacked(&r::diag_indices(count("n")?, count("ndim")?)?)?,
        "ravel_multi_index" => {
            let dims = case.kwarg("dims").and_then(usizes).ok_or_else(|| need("dims"))?;
            r::ravel_multi_index(&refs, &dims)?
        }
        "unravel_index" => {
            let shape = case.kwarg("shape").and_then(usizes).ok_or_else(|| need("shape"))?;
            stacked(&r::unravel_index(&x()?, &shape)?)?
        }
        "ix_" => ravels(&r::ix_(&refs)?)?,
        "histogram" | "histogram_bin_edges" => {
            let bins = match arrays.get(1) {
                Some(edges) => r::Bins::Edges(edges),
                None => r::Bins::Count(count_kwarg(case, "bins")?.unwrap_or(10)),
            };
            let range = match case.kwarg("range").and_then(Value::as_array) {
                Some(v) => match v.iter().map(Value::as_f64).collect::<Option<Vec<_>>>().as_deref() {
                    Some(&[lo, hi]) => Some((lo, hi)),
                    _ => return Err(Failure::Case(format!("{op}: range {v:?}"))),
                },
                None => None,
            };
            if op == "histogram" {
                r::histogram(&x()?, bins, range, bool_kwarg(case, "density", false)?, None)?.0
            } else {
                r::histogram_bin_edges(&x()?, bins, range, None)?
            }
        }
        "digitize" => r::digitize(&x()?, y()?, bool_kwarg(case, "right", false)?)?,
        "bincount" => r::bincount(&x()?, arrays.get(1), count_kwarg(case, "minlength")?.unwrap_or(0))?,
        _ => return Err(unsupported(op)),
    }
    .ascontiguous()?)
}

// ---- results ---------------------------------------------------------------------------------

/// Writes `<id>.npy` or `<id>.error`, removing what an earlier run left for `id`.
fn write_outcome(out: &Path, id: &str, outcome: &Outcome, op: &str) -> Result<(), String> {
    let npy = out.join(format!("{id}.npy"));
    let err = out.join(format!("{id}.error"));
    for stale in [&npy, &err] {
        match std::fs::remove_file(stale) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!("removing {}: {e}", stale.display()))
            }
            _ => {}
        }
    }
    let text = match outcome {
        Outcome::Answer(h) => return save_npy(&npy, &h.view()).map_err(|e| e.to_string()),
        Outcome::Failed(Failure::Lib(e @ Error::Unsupported(_))) => format!("Unsupported: {op}\n{e}\n"),
        Outcome::Failed(Failure::Lib(e)) => format!("{}\n{e}\n", e.kind()),
        Outcome::Failed(Failure::Panic(msg)) => format!("Panic\n{msg}\n"),
        Outcome::Failed(Failure::Case(msg)) => format!("Case\n{msg}\n"),
    };
    std::fs::write(&err, text).map_err(|e| format!("writing {}: {e}", err.display()))
}

// ---- panics ----------------------------------------------------------------------------------

thread_local! {
    static IN_CASE: Cell<bool> = const { Cell::new(false) };
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Panics inside a case are recorded (where they happened) instead of printed: the case's
/// `.error` file reports them. Panics elsewhere go to the default hook.
fn install_quiet_panic_hook() {
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if IN_CASE.with(Cell::get) {
            let at = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
            PANIC_AT.with(|p| *p.borrow_mut() = at);
        } else {
            default(info);
        }
    }));
}

fn restore_panic_hook() {
    let _ = panic::take_hook();
}

// ---- checking --------------------------------------------------------------------------------

enum Verdict {
    Pass,
    Unsupported(String),
    Fail(String),
}

/// Compares an outcome with the case's expectation, as `check.py` does.
fn judge(case: &Case, outcome: &Outcome) -> Verdict {
    match (&case.expect_error, outcome) {
        (_, Outcome::Failed(Failure::Lib(e @ Error::Unsupported(_)))) => Verdict::Unsupported(e.to_string()),
        (Some(want), Outcome::Failed(Failure::Lib(e))) if e.kind() == want => Verdict::Pass,
        (Some(want), Outcome::Failed(f)) => Verdict::Fail(format!("expected a {want} error, got {}", describe(f))),
        (Some(want), Outcome::Answer(_)) => Verdict::Fail(format!("returned an answer, expected a {want} error")),
        (None, Outcome::Failed(f)) => Verdict::Fail(describe(f)),
        (None, Outcome::Answer(got)) => match compare(case, got) {
            Ok(()) => Verdict::Pass,
            Err(why) => Verdict::Fail(why),
        },
    }
}

fn describe(f: &Failure) -> String {
    match f {
        Failure::Lib(e) => format!("{} error: {e}", e.kind()),
        Failure::Panic(msg) => format!("panic: {msg}"),
        Failure::Case(msg) => format!("case: {msg}"),
    }
}

fn compare(case: &Case, got: &HostData) -> Result<(), String> {
    let (Some(file), Some(dtype), Some(shape)) = (&case.expected, &case.expected_dtype, &case.expected_shape) else {
        return Err("the case names no expected answer".into());
    };
    if got.dtype.name() != dtype {
        return Err(format!("dtype {}, expected {dtype}", got.dtype.name()));
    }
    if &got.shape != shape {
        return Err(format!("shape {:?}, expected {shape:?}", got.shape));
    }
    let exp = load_npy(case.dir.join(file)).map_err(|e| format!("reading the expected answer: {e}"))?;
    if exp.dtype != got.dtype || exp.shape != got.shape {
        return Err(format!("expected.npy is {} {:?}, unlike case.json", exp.dtype, exp.shape));
    }
    let tol = case.tol.as_str();
    if tol == "exact" {
        exact(got, &exp)
    } else if let Some(n) = tol.strip_prefix("ulp:") {
        close_ulp(got, &exp, n.parse().map_err(|_| format!("tolerance {tol}"))?)
    } else if let Some(t) = tol.strip_prefix("rel:") {
        rel_norm(got, &exp, t.parse().map_err(|_| format!("tolerance {tol}"))?)
    } else if tol == "reduction" {
        reduction_bound(case, got, &exp)
    } else {
        Err(format!("unknown tolerance {tol}"))
    }
}

/// A value as a complex float64: (real, imaginary).
type Complex = (f64, f64);

fn is_inexact(d: DType) -> bool {
    matches!(d.kind(), DTypeKind::Float | DTypeKind::Complex)
}

/// Every element as a complex float64 (integers converted, exactly up to 2^53).
fn values(h: &HostData) -> Vec<Complex> {
    let n = h.dtype.size();
    h.bytes
        .chunks_exact(n)
        .map(|b| match h.dtype {
            DType::Bool => (b[0] as f64, 0.0),
            DType::I8 => (b[0] as i8 as f64, 0.0),
            DType::U8 => (b[0] as f64, 0.0),
            DType::I16 => (i16::from_le_bytes([b[0], b[1]]) as f64, 0.0),
            DType::U16 => (u16::from_le_bytes([b[0], b[1]]) as f64, 0.0),
            DType::I32 => (i32::from_le_bytes(b.try_into().unwrap()) as f64, 0.0),
            DType::U32 => (u32::from_le_bytes(b.try_into().unwrap()) as f64, 0.0),
            DType::I64 => (i64::from_le_bytes(b.try_into().unwrap()) as f64, 0.0),
            DType::U64 => (u64::from_le_bytes(b.try_into().unwrap()) as f64, 0.0),
            DType::F16 => (f16_to_f64(u16::from_le_bytes([b[0], b[1]])), 0.0),
            DType::BF16 => (f32::from_bits((u16::from_le_bytes([b[0], b[1]]) as u32) << 16) as f64, 0.0),
            DType::F32 => (f32::from_le_bytes(b.try_into().unwrap()) as f64, 0.0),
            DType::F64 => (f64::from_le_bytes(b.try_into().unwrap()), 0.0),
            DType::C64 => (
                f32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
                f32::from_le_bytes(b[4..].try_into().unwrap()) as f64,
            ),
            DType::C128 => {
                (f64::from_le_bytes(b[..8].try_into().unwrap()), f64::from_le_bytes(b[8..].try_into().unwrap()))
            }
        })
        .collect()
}

fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f64;
    sign * match exp {
        0 => man * 2f64.powi(-24),
        31 if man == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + man / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Mantissa bits, smallest normal exponent: NumPy's `finfo` of the real part.
fn float_format(d: DType) -> Option<(i32, i32)> {
    match d {
        DType::F16 => Some((10, -14)),
        DType::BF16 => Some((7, -126)),
        DType::F32 | DType::C64 => Some((23, -126)),
        DType::F64 | DType::C128 => Some((52, -1022)),
        _ => None,
    }
}

fn eps(d: DType) -> f64 {
    float_format(d).map_or(0.0, |(p, _)| 2f64.powi(-p))
}

fn tiny(d: DType) -> f64 {
    float_format(d).map_or(0.0, |(_, emin)| 2f64.powi(emin))
}

/// NumPy's `spacing(|v|)` in the float format of `d`.
fn spacing(v: f64, d: DType) -> f64 {
    let Some((p, emin)) = float_format(d) else { return 0.0 };
    let e = if v == 0.0 { emin } else { (v.abs().log2().floor() as i32).max(emin) };
    2f64.powi(e - p)
}

fn cabs(z: Complex) -> f64 {
    z.0.hypot(z.1)
}

/// NaN in the same places and the same infinities (per part); the mask of finite expected
/// elements, which the tolerances compare.
fn same_specials(got: &[Complex], exp: &[Complex]) -> Result<Vec<bool>, String> {
    let mut finite = vec![true; exp.len()];
    for (i, (g, e)) in got.iter().zip(exp).enumerate() {
        for (gp, ep) in [(g.0, e.0), (g.1, e.1)] {
            if gp.is_nan() != ep.is_nan() || (ep.is_infinite() || gp.is_infinite()) && gp != ep {
                return Err(format!("NaN/inf positions differ (first at flat index {i}: got {g:?}, expected {e:?})"));
            }
            finite[i] &= ep.is_finite();
        }
    }
    Ok(finite)
}

fn exact(got: &HostData, exp: &HostData) -> Result<(), String> {
    let (g, e) = (values(got), values(exp));
    let differs: Vec<usize> = if is_inexact(got.dtype) {
        let finite = same_specials(&g, &e)?;
        // -0.0 == 0.0 here, as in NumPy's comparison.
        (0..g.len()).filter(|&i| finite[i] && g[i] != e[i]).collect()
    } else {
        // Integers compare as stored: beyond 2^53 the float64 values above would round.
        let size = got.dtype.size();
        (0..g.len()).filter(|&i| got.bytes[i * size..(i + 1) * size] != exp.bytes[i * size..(i + 1) * size]).collect()
    };
    match differs.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{} elements differ; first at flat index {i}: got {:?} expected {:?}",
            differs.len(),
            g[i],
            e[i]
        )),
    }
}

fn close_ulp(got: &HostData, exp: &HostData, n_ulp: u32) -> Result<(), String> {
    let (g, e) = (values(got), values(exp));
    let finite = same_specials(&g, &e)?;
    if !is_inexact(got.dtype) {
        return exact(got, exp);
    }
    let (n, d) = (n_ulp as f64, got.dtype);
    let mut bad = 0;
    let mut worst: Option<(f64, usize)> = None;
    for i in (0..g.len()).filter(|&i| finite[i]) {
        let tol = if d.kind() == DTypeKind::Complex {
            n * eps(d) * cabs(e[i]) + tiny(d) * n
        } else {
            n * spacing(e[i].0, d) + tiny(d) * n
        };
        let err = cabs((g[i].0 - e[i].0, g[i].1 - e[i].1));
        if err > tol {
            bad += 1;
            if worst.is_none_or(|(w, _)| err - tol > w) {
                worst = Some((err - tol, i));
            }
        }
    }
    match worst {
        None => Ok(()),
        Some((_, i)) => Err(format!("{bad} elements beyond {n_ulp} ulp; worst got {:?} expected {:?}", g[i], e[i])),
    }
}

fn rel_norm(got: &HostData, exp: &HostData, tol: f64) -> Result<(), String> {
    let (g, e) = (values(got), values(exp));
    let finite = same_specials(&g, &e)?;
    let (mut ne, mut err) = (0.0f64, 0.0f64);
    for i in (0..g.len()).filter(|&i| finite[i]) {
        ne += cabs(e[i]).powi(2);
        err += cabs((g[i].0 - e[i].0, g[i].1 - e[i].1)).powi(2);
    }
    let (ne, err) = (ne.sqrt(), err.sqrt());
    let limit = if ne > 0.0 { tol * ne } else { tol };
    if err <= limit {
        Ok(())
    } else {
        Err(format!("relative error {:.3e} > {tol}", if ne > 0.0 { err / ne } else { err }))
    }
}

/// `|got - ref64| <= k * eps * scale`, with the reference and the scale (from the inputs'
/// magnitudes) computed here in float64, as `check.py` does.
fn reduction_bound(case: &Case, got: &HostData, exp: &HostData) -> Result<(), String> {
    if !is_inexact(got.dtype) {
        return exact(got, exp);
    }
    let (g, e) = (values(got), values(exp));
    let finite = same_specials(&g, &e)?;
    let input = case.inputs.first().ok_or("a reduction case with no input")?;
    let x = load_npy(case.dir.join(input)).map_err(|e| format!("reading the input: {e}"))?;
    let (reference, scale) = reference_reduction(case, &x)?;
    if reference.len() != g.len() {
        return Err(format!("{} outputs, the float64 reference has {}", g.len(), reference.len()));
    }
    let n = x.shape.iter().product::<usize>().max(2);
    let k = match case.op.as_str() {
        "prod" | "cumprod" => 2.0 * n as f64,
        _ => 4.0 * ((n as f64).log2().ceil() + 2.0),
    };
    let eps = eps(got.dtype).max(if is_inexact(x.dtype) { eps(x.dtype) } else { 0.0 });
    let mut bad = 0;
    let mut first = None;
    for i in (0..g.len()).filter(|&i| finite[i]) {
        let tol = k * eps * scale[i] + 1e-300;
        let err = cabs((g[i].0 - reference[i].0, g[i].1 - reference[i].1));
        if err > tol {
            bad += 1;
            first.get_or_insert((i, tol));
        }
    }
    match first {
        None => Ok(()),
        Some((i, tol)) => Err(format!(
            "{bad} outputs beyond the reduction bound; got {:?} ref64 {:?} tol {tol:.3e}",
            g[i], reference[i]
        )),
    }
}

fn cmul(a: Complex, b: Complex) -> Complex {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// The float64 answer of a floating reduction of `x` and the magnitude each output's error is
/// measured against, both in the output's C order.
fn reference_reduction(case: &Case, x: &HostData) -> Result<(Vec<Complex>, Vec<f64>), String> {
    let xs = values(x);
    let shape = &x.shape;
    let ndim = shape.len() as isize;
    let norm = |a: i64| -> Result<usize, String> {
        let a = a as isize;
        if a < -ndim || a >= ndim.max(1) {
            return Err(format!("axis {a} out of range"));
        }
        Ok(if a < 0 { (a + ndim) as usize } else { a as usize })
    };
    let op = case.op.as_str();
    if op == "cumsum" || op == "cumprod" {
        // Along one axis, or along the flattened array.
        let (outer, len, inner) = match case.kwarg("axis").and_then(Value::as_i64) {
            None => (1, xs.len(), 1),
            Some(a) => {
                let a = norm(a)?;
                (shape[..a].iter().product::<usize>(), shape[a], shape[a + 1..].iter().product::<usize>())
            }
        };
        let (mut r, mut s) = (vec![(0.0, 0.0); xs.len()], vec![0.0; xs.len()]);
        for o in 0..outer {
            for j in 0..inner {
                let (mut acc, mut mag) = (if op == "cumsum" { (0.0, 0.0) } else { (1.0, 0.0) }, 0.0);
                for t in 0..len {
                    let i = (o * len + t) * inner + j;
                    if op == "cumsum" {
                        acc = (acc.0 + xs[i].0, acc.1 + xs[i].1);
                        mag += cabs(xs[i]);
                        s[i] = mag;
                    } else {
                        acc = cmul(acc, xs[i]);
                        s[i] = cabs(acc);
                    }
                    r[i] = acc;
                }
            }
        }
        return Ok((r, s));
    }
    let reduced: Vec<bool> = match case.kwarg("axis") {
        None => vec![true; shape.len()],
        Some(v) => {
            let list = match v.as_i64() {
                Some(a) => vec![a],
                None => {
                    v.as_array().and_then(|l| l.iter().map(Value::as_i64).collect()).ok_or("axis is not understood")?
                }
            };
            let mut r = vec![false; shape.len()];
            for a in list {
                r[norm(a)?] = true;
            }
            r
        }
    };
    let out_size: usize = shape.iter().zip(&reduced).filter(|(_, &r)| !r).map(|(&n, _)| n).product();
    let count: usize = shape.iter().zip(&reduced).filter(|(_, &r)| r).map(|(&n, _)| n).product();
    // The output index of every input element, in C order.
    let out_index = |mut flat: usize| {
        let (mut o, mut step) = (0, 1);
        for d in (0..shape.len()).rev() {
            let c = flat % shape[d].max(1);
            flat /= shape[d].max(1);
            if !reduced[d] {
                o += c * step;
                step *= shape[d];
            }
        }
        o
    };
    let idx: Vec<usize> = (0..xs.len()).map(out_index).collect();
    let mut sum = vec![(0.0, 0.0); out_size];
    let mut prod = vec![(1.0, 0.0); out_size];
    let mut abs_sum = vec![0.0; out_size];
    let mut sq_sum = vec![0.0; out_size];
    for (i, &o) in idx.iter().enumerate() {
        sum[o] = (sum[o].0 + xs[i].0, sum[o].1 + xs[i].1);
        prod[o] = cmul(prod[o], xs[i]);
        abs_sum[o] += cabs(xs[i]);
        sq_sum[o] += cabs(xs[i]).powi(2);
    }
    let n = count as f64;
    Ok(match op {
        "sum" => (sum, abs_sum),
        "mean" => (sum.iter().map(|s| (s.0 / n, s.1 / n)).collect(), abs_sum.iter().map(|a| a / n).collect()),
        "prod" => {
            let scale = prod.iter().map(|&p| cabs(p)).collect();
            (prod, scale)
        }
        "var" | "std" => {
            let ddof = case.kwarg("ddof").and_then(Value::as_i64).unwrap_or(0) as f64;
            let mut dev = vec![0.0; out_size];
            for (i, &o) in idx.iter().enumerate() {
                dev[o] += cabs((xs[i].0 - sum[o].0 / n, xs[i].1 - sum[o].1 / n)).powi(2);
            }
            let var = dev.iter().map(|d| d / (n - ddof).max(0.0));
            let scale = sq_sum.iter().map(|s| s / n * 4.0);
            if op == "var" {
                (var.map(|v| (v, 0.0)).collect(), scale.collect())
            } else {
                (var.map(|v| (v.sqrt(), 0.0)).collect(), scale.map(f64::sqrt).collect())
            }
        }
        _ => return Err(format!("no reduction bound for {op}")),
    })
}
