//! Compiles every built-in kernel for the CPU ahead of time, so that built-in ops run on a
//! machine without a C++ compiler, and writes the table that finds them by source hash.
//!
//! # Compiling only what changed
//! The kernels (well over a thousand) go into translation units of a few dozen each, and each
//! unit's object is kept in a cache keyed by a hash of everything that makes it: the unit's
//! source, the compiler's identity (`--version`), its arguments and the target. So a rerun
//! (any change to `xp-kernels` reruns this script) compiles only the units whose source
//! changed, and the debug and release builds of one target directory share the objects (the
//! flags are the same: `-O3` either way).
//!
//! - **Where units are cut.** A unit ends after a kernel whose name hashes to 0 modulo
//!   [`CUT_EVERY`] (content-defined chunking), once it holds [`MIN_UNIT`] kernels, or when it
//!   reaches [`MAX_UNIT`]. So adding, removing or changing a kernel changes the one unit
//!   around it, not every unit after it, as cutting every N kernels would. Kernels stay in the
//!   order the generators give (one family after another), so a unit parses few engines.
//! - **Where objects live.** `xp-cpu-objects/` in the target directory (the folder holding
//!   Cargo's `CACHEDIR.TAG`), else `OUT_DIR`. An object is written to a temporary name and
//!   renamed, so a build killed midway leaves no half object; objects unused by the build that
//!   just ran are removed once the folder holds more than [`KEEP_OBJECTS`].
//! - **Spread over every core.** Missing units are compiled by `NUM_JOBS` threads (Cargo's job
//!   count for build scripts), each running the compiler `cc` chose with the flags `cc` chose.

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A unit ends after a kernel whose name hash is 0 modulo this (about this many kernels a unit).
const CUT_EVERY: u128 = 24;
/// Kernels a unit holds at least before a cut by name (the last unit may hold fewer).
const MIN_UNIT: usize = 8;
/// Kernels a unit holds at most.
const MAX_UNIT: usize = 64;
/// Objects the cache keeps before it drops those this build did not use.
const KEEP_OBJECTS: usize = 400;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let target = std::env::var("TARGET").expect("cargo sets TARGET");
    let host = std::env::var("HOST").expect("cargo sets HOST");
    println!("cargo:rustc-env=XP_CPU_TARGET={target}");
    println!("cargo:rustc-env=XP_CPU_HOST={host}");
    println!("cargo:rerun-if-changed=build.rs");

    let kernels = xp_kernels::cpu::cpu_builtin_kernels();
    let mut build = cc::Build::new();
    // The same flags in every profile (no `-g` in debug builds), so that profiles share objects.
    build
        .cpp(true)
        .std("c++17")
        .opt_level(3)
        .debug(false)
        .force_frame_pointer(false)
        .flag("-fno-exceptions")
        // No fused multiply-add where the source has a multiply and an add: the run-time
        // compiler's flags say why (`src/compile.rs`).
        .flag("-ffp-contract=off")
        .warnings(false);
    let tool = build.get_compiler();
    let identity = compiler_identity(&tool, &target);

    let mut units = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut body = String::new();
    for (i, k) in kernels.iter().enumerate() {
        body.push('\n');
        // Dynamic shared memory becomes the launch's per-block scratch, as at run time.
        body.push_str(&xp_kernels::cpu::cpu_dynamic_shared(&k.code));
        names.push(k.name.clone());
        let last = i + 1 == kernels.len();
        let cut = names.len() >= MAX_UNIT
            || (names.len() >= MIN_UNIT && xp_kernels::source_key(&k.name).is_multiple_of(CUT_EVERY));
        if cut || last {
            let mut tu = String::from(xp_kernels::PRELUDE);
            tu.push_str(&body);
            tu.push_str(&xp_kernels::cpu::cpu_entry_points(&names));
            units.push(tu);
            names.clear();
            body.clear();
        }
    }

    let cache = object_cache(&out);
    std::fs::create_dir_all(&cache).expect("create the object cache");
    let objects: Vec<(PathBuf, String)> = units
        .into_iter()
        .map(|tu| {
            let key = xp_kernels::source_key(&format!("{identity}\n{tu}"));
            (cache.join(format!("xp-builtins-{key:032x}.o")), tu)
        })
        .collect();
    let missing: Vec<&(PathBuf, String)> = objects.iter().filter(|(o, _)| !o.exists()).collect();
    // What this run compiled, for whoever measures the build.
    let report = format!(
        "{} of {} kernel units compiled; objects in {}\ncompiler: {identity}\n",
        missing.len(),
        objects.len(),
        cache.display()
    );
    std::fs::write(out.join("kernel-units.txt"), report).expect("write the unit report");
    compile_units(&tool, &out, &missing);

    let used: Vec<PathBuf> = objects.iter().map(|(o, _)| o.clone()).collect();
    for o in &used {
        // Mark the object as used now, for the pruning below (failure only weakens pruning).
        let _ =
            std::fs::File::options().append(true).open(o).and_then(|f| f.set_modified(std::time::SystemTime::now()));
    }
    build.objects(&used).compile("xp_cpu_builtins");
    prune(&cache, &used);

    let mut table = String::new();
    let mut decls = String::new();
    for k in &kernels {
        let key = xp_kernels::source_key(&k.code);
        let n = &k.name;
        let _ = writeln!(
            decls,
            "    fn xp_cpu_blocks_{n}(a: *mut *mut c_void, c: *mut Ctx, b0: u64, b1: u64);\n    \
             fn xp_cpu_thread_{n}(a: *mut *mut c_void, c: *mut Ctx);\n    fn xp_cpu_nparams_{n}() -> i32;"
        );
        let _ = writeln!(
            table,
            "    BuiltinKernel {{ key: {key:#x}, name: \"{n}\", blocks: xp_cpu_blocks_{n}, thread: xp_cpu_thread_{n}, nparams: xp_cpu_nparams_{n} }},"
        );
    }
    let rs = format!(
        "// Generated by build.rs.\nunsafe extern \"C\" {{\n{decls}}}\n\n/// Every built-in kernel compiled into this crate.\npub(crate) static BUILTINS: &[BuiltinKernel] = &[\n{table}];\n"
    );
    std::fs::write(out.join("builtins.rs"), rs).expect("write builtin table");
}

/// What an object depends on besides its source: the compiler's path, arguments and version
/// text, and the target.
fn compiler_identity(tool: &cc::Tool, target: &str) -> String {
    let version = tool
        .to_command()
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let args: Vec<String> = tool.args().iter().map(|a| a.to_string_lossy().into_owned()).collect();
    format!("{}\n{}\n{version}\n{target}", tool.path().display(), args.join(" "))
}

/// The cache folder: `xp-cpu-objects/` in the target directory, found as the nearest folder
/// above `OUT_DIR` that holds Cargo's `CACHEDIR.TAG`; `OUT_DIR/objects` when there is none.
fn object_cache(out: &Path) -> PathBuf {
    out.ancestors()
        .find(|d| d.join("CACHEDIR.TAG").is_file())
        .map(|d| d.join("xp-cpu-objects"))
        .unwrap_or_else(|| out.join("objects"))
}

/// Compile each unit to its object, `NUM_JOBS` at a time.
fn compile_units(tool: &cc::Tool, out: &Path, units: &[&(PathBuf, String)]) {
    let jobs = std::env::var("NUM_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, units.len().max(1));
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((obj, tu)) = units.get(i) else { break };
                if let Err(e) = compile_one(tool, out, obj, tu) {
                    failures.lock().unwrap_or_else(|p| p.into_inner()).push(e);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
    if !failures.is_empty() {
        panic!("compiling the CPU built-in kernels failed:\n{}", failures.join("\n\n"));
    }
}

/// Compile `tu` to `obj` through a temporary object renamed into place.
fn compile_one(tool: &cc::Tool, out: &Path, obj: &Path, tu: &str) -> Result<(), String> {
    let stem = obj.file_stem().and_then(|s| s.to_str()).unwrap_or("unit");
    let src = out.join(format!("{stem}.cpp"));
    std::fs::write(&src, tu).map_err(|e| format!("writing {}: {e}", src.display()))?;
    let tmp = obj.with_extension(format!("o.tmp{}", std::process::id()));
    let output = tool
        .to_command()
        .arg("-c")
        .arg(&src)
        .arg("-o")
        .arg(&tmp)
        .output()
        .map_err(|e| format!("running {}: {e}", tool.path().display()))?;
    if !output.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!(
            "{} failed on {}:\n{}",
            tool.path().display(),
            src.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    std::fs::rename(&tmp, obj).map_err(|e| format!("renaming {} to {}: {e}", tmp.display(), obj.display()))
}

/// Once the cache holds more than [`KEEP_OBJECTS`] objects, remove the oldest of those this
/// build did not use until it holds that many.
fn prune(cache: &Path, used: &[PathBuf]) {
    let Ok(entries) = std::fs::read_dir(cache) else { return };
    let mut stale: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "o") && !used.contains(p))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    let excess = (stale.len() + used.len()).saturating_sub(KEEP_OBJECTS);
    stale.sort();
    for (_, p) in stale.into_iter().take(excess) {
        let _ = std::fs::remove_file(p);
    }
}
