//! Kernel sources, compile options, and the compile cache every backend shares: in memory,
//! then on disk.
//!
//! # The disk cache
//! Entries live under `XP_CACHE_DIR` (default `~/.cache/xp/kernels`; `XP_CACHE_DIR=off`
//! disables it), in folders sharded by the first two hex digits of the key. The key is a
//! 128-bit hash of the source, the options, the compiler's identity (name, version, target
//! arch) and the prelude's hash. An entry is the compiled image followed by a 16-byte trailer
//! (its 64-bit checksum and a magic tag); it is written to a temporary file in the same folder
//! and renamed into place, so readers never see half an entry. It is not flushed to the disk
//! first (that would cost a first compile tens of milliseconds): an entry that a crash leaves
//! torn fails its checksum, and a corrupt entry is compiled again and overwritten. A failed
//! compile is never cached.
//!
//! # Its size bound
//! CuPy's kernel cache grows without bound (cupy#4926); this one is bounded by
//! `XP_CACHE_MAX_BYTES` (bytes, or with a suffix: `512MB`, `1GiB`; default 1 GiB; `0` for no
//! bound) and evicts the least recently *used* entries, where several processes may share the
//! folder and no lock is taken:
//! - the time of last use is the entry's modification time: a disk hit sets it to now, a write
//!   makes it now;
//! - each cache keeps an estimate of the folder's size: one scan at its first write, plus the
//!   bytes it writes. When the estimate passes the bound, or after every 64 writes (to see
//!   what other processes wrote), it scans the folder again, and if the folder is over the
//!   bound it deletes the oldest entries until it is under 90% of it (so eviction is not run
//!   at every write). The scan also removes temporary files older than an hour, left by a
//!   writer that crashed;
//! - races are harmless: a file deleted by someone else during a scan is skipped; a process
//!   that still reads or maps a deleted file keeps its open handle (Unix semantics); a cache
//!   that finds its entry gone compiles the kernel again and writes it back; an entry is
//!   evicted only after its writer has loaded it.
//!
//! Eviction and touching are best effort: their I/O errors never fail a compile.
//! [`CompileCache::clear`] (and [`clear_cache_dir`], which the facade's
//! `xp::clear_kernel_cache()` calls) removes every entry.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use parking_lot::Mutex;

use crate::{Error, Result};

/// The source of one module in the kernel dialect (CUDA C++ plus `xp_prelude.h`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelSource {
    /// A name for messages: the kernel, or the module's first kernel.
    pub name: String,
    /// The code, without the prelude (backends prepend it).
    pub code: String,
}

impl KernelSource {
    /// A source named `name`.
    pub fn new(name: impl Into<String>, code: impl Into<String>) -> Self {
        KernelSource { name: name.into(), code: code.into() }
    }
}

/// Options for the compiler: extra flags in the compiler's own syntax (`-DTILE=16`,
/// `--std=c++17`). Each backend translates the portable ones (`-D`, `-I`, `-std`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    /// Flags passed through.
    pub flags: Vec<String>,
    /// Ask for the compiler's quicker optimisation level, where it has one that keeps the code
    /// as fast for short loops (NVRTC: `-Ofc=min`, about a third off a small kernel's compile).
    /// xp's elementwise kernels set it (built-in ops, `ElementwiseKernel`, `fuse`); reductions,
    /// scans, other built-in kernels and raw user sources keep the compiler's default.
    pub fast_compile: bool,
    /// Never contract `a * b + c` into a fused multiply-add (NVRTC `-fmad=false`, hiprtc and
    /// the CPU's compiler `-ffp-contract=off`), so every operation rounds as written. xp's own
    /// kernels set it: a chain of ops fused into one kernel then gives the bits of the same
    /// ops run one kernel each (the lazy fusion of `xp-array`). Raw user sources keep the
    /// compiler's default unless they ask.
    pub no_contraction: bool,
}

impl CompileOptions {
    /// Options from a list of flags.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(flags: I) -> Self {
        CompileOptions {
            flags: flags.into_iter().map(Into::into).collect(),
            fast_compile: false,
            no_contraction: false,
        }
    }

    /// These options with [`CompileOptions::fast_compile`] set to `on`.
    pub fn with_fast_compile(mut self, on: bool) -> Self {
        self.fast_compile = on;
        self
    }

    /// These options with [`CompileOptions::no_contraction`] set to `on`.
    pub fn with_no_contraction(mut self, on: bool) -> Self {
        self.no_contraction = on;
        self
    }

    /// The flags as one line, for messages.
    pub fn display(&self) -> String {
        self.flags.join(" ")
    }
}

/// A backend's compiler: source to image, image to loaded module.
pub trait KernelCompiler: Send + Sync {
    /// What the compiler loads into.
    type Module: Send + Sync;
    /// Compiler name, version and target arch: part of the cache key.
    fn identity(&self) -> String;
    /// Compile to an image (cubin, code object, shared library).
    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Vec<u8>>;
    /// Load an image; `path` is where the image already lies on disk, when it does.
    fn load(&self, image: &[u8], path: Option<&Path>) -> Result<Arc<Self::Module>>;
}

/// Counters of a [`CompileCache`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Found in memory.
    pub memory_hits: u64,
    /// Found on disk.
    pub disk_hits: u64,
    /// Compiled.
    pub compiles: u64,
    /// Corrupt entries found on disk (and replaced).
    pub corrupt: u64,
}

/// The compile cache: memory, then disk, then the compiler.
pub struct CompileCache<M> {
    memory: Mutex<HashMap<u128, Arc<M>>>,
    disk: Option<PathBuf>,
    stats: Mutex<CacheStats>,
    /// Bound of the disk folder in bytes (`u64::MAX`: none).
    max_bytes: u64,
    /// `XP_CACHE_MAX_BYTES` could not be read; returned by every compile.
    config_error: Option<Error>,
    usage: Mutex<DiskUsage>,
}

/// What a cache knows of its folder's size.
#[derive(Debug, Default)]
struct DiskUsage {
    /// Bytes of entries at the last scan plus those written since (`None` before the first scan).
    estimate: Option<u64>,
    writes_since_scan: u32,
}

const TRAILER_MAGIC: &[u8; 8] = b"XPKCACH1";

/// The disk cache's bound when `XP_CACHE_MAX_BYTES` is not set: 1 GiB.
pub const DEFAULT_CACHE_MAX_BYTES: u64 = 1 << 30;
/// A cache scans its folder after this many writes, to see other processes' entries.
const SCAN_EVERY_WRITES: u32 = 64;
/// Temporary files older than this are a crashed writer's and are removed by scans.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// The disk cache's bound from `XP_CACHE_MAX_BYTES` (bytes or `512MB`, `1GiB`, …; `0` for
/// none, given as `u64::MAX`), else [`DEFAULT_CACHE_MAX_BYTES`].
pub fn default_cache_max_bytes() -> Result<u64> {
    Ok(match crate::env::bytes("XP_CACHE_MAX_BYTES")? {
        None => DEFAULT_CACHE_MAX_BYTES,
        Some(0) => u64::MAX,
        Some(n) => n,
    })
}

/// The default disk folder: `XP_CACHE_DIR`, else `$HOME/.cache/xp/kernels`; `None` when
/// `XP_CACHE_DIR=off` or no home is known.
pub fn default_cache_dir() -> Option<PathBuf> {
    match std::env::var_os("XP_CACHE_DIR") {
        Some(v) if v == "off" => None,
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/xp/kernels")),
    }
}

/// A compiler identity for the cache key: `compiler` (name, version, target) followed by the
/// hash of the prelude the backend prepends to every source, so a new prelude never meets
/// images compiled with the old one.
pub fn compiler_identity(compiler: &str, prelude: &str) -> String {
    format!("{compiler} prelude {:016x}", xxhash_rust::xxh3::xxh3_64(prelude.as_bytes()))
}

/// The cache key of a source compiled with `options` by `identity`.
pub fn cache_key(source: &KernelSource, options: &CompileOptions, identity: &str) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(source.code.as_bytes());
    h.update(&[0]);
    for f in &options.flags {
        h.update(f.as_bytes());
        h.update(&[0]);
    }
    h.update(&[1, options.fast_compile as u8, options.no_contraction as u8]);
    h.update(identity.as_bytes());
    h.digest128()
}

impl<M: Send + Sync> CompileCache<M> {
    /// A cache with the disk folder `disk` (`None`: memory only), bounded by
    /// `XP_CACHE_MAX_BYTES` (see the module docs). An unreadable `XP_CACHE_MAX_BYTES` is
    /// returned by every compile.
    pub fn new(disk: Option<PathBuf>) -> Self {
        let (max_bytes, config_error) = match default_cache_max_bytes() {
            Ok(m) => (m, None),
            Err(e) => (DEFAULT_CACHE_MAX_BYTES, Some(e)),
        };
        CompileCache {
            memory: Mutex::new(HashMap::new()),
            disk,
            stats: Mutex::new(CacheStats::default()),
            max_bytes,
            config_error,
            usage: Mutex::new(DiskUsage::default()),
        }
    }

    /// This cache with its disk folder bounded by `bytes` (`0` or `u64::MAX`: no bound).
    pub fn with_max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = if bytes == 0 { u64::MAX } else { bytes };
        self
    }

    /// The disk folder's bound in bytes (`u64::MAX` when unbounded).
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The disk folder, when there is one.
    pub fn disk_dir(&self) -> Option<&Path> {
        self.disk.as_deref()
    }

    /// Forget every module held in memory and remove every entry of the disk folder; returns
    /// the entries removed. Entries other processes remove at the same time are skipped, and
    /// modules already handed out stay usable.
    pub fn clear(&self) -> Result<usize> {
        self.memory.lock().clear();
        *self.usage.lock() = DiskUsage::default();
        match &self.disk {
            Some(d) => clear_cache_dir(d),
            None => Ok(0),
        }
    }

    /// Scan the disk folder and, when it is over the bound, delete the least recently used
    /// entries until it is under 90% of it. Returns the entries deleted. Compiles call this
    /// when the cache's size estimate asks for it (see the module docs).
    pub fn evict(&self) -> Result<usize> {
        let Some(dir) = &self.disk else { return Ok(0) };
        let (removed, remaining) = evict_lru(dir, self.max_bytes)?;
        *self.usage.lock() = DiskUsage { estimate: Some(remaining), writes_since_scan: 0 };
        Ok(removed)
    }

    /// Count a written entry of `bytes`, and evict when the estimate asks for it.
    fn note_write(&self, bytes: u64) {
        let scan = {
            let mut u = self.usage.lock();
            u.writes_since_scan += 1;
            match &mut u.estimate {
                Some(e) => {
                    *e += bytes;
                    *e > self.max_bytes || u.writes_since_scan >= SCAN_EVERY_WRITES
                }
                None => true,
            }
        };
        if scan {
            // Best effort: a failed scan leaves the folder as it is and is tried again later.
            let _ = self.evict();
        }
    }

    /// A cache in [`default_cache_dir`].
    pub fn with_default_dir() -> Self {
        Self::new(default_cache_dir())
    }

    /// Counters.
    pub fn stats(&self) -> CacheStats {
        *self.stats.lock()
    }

    /// Where the entry of `key` lies on disk.
    pub fn entry_path(&self, key: u128) -> Option<PathBuf> {
        let hex = format!("{key:032x}");
        self.disk.as_ref().map(|d| d.join(&hex[..2]).join(format!("{hex}.bin")))
    }

    /// The module for `source`: from memory, from disk, or compiled (and stored in both).
    pub fn get_or_compile<C: KernelCompiler<Module = M> + ?Sized>(
        &self,
        compiler: &C,
        source: &KernelSource,
        options: &CompileOptions,
    ) -> Result<Arc<M>> {
        if let Some(e) = &self.config_error {
            return Err(e.clone());
        }
        let key = cache_key(source, options, &compiler.identity());
        if let Some(m) = self.memory.lock().get(&key) {
            self.stats.lock().memory_hits += 1;
            return Ok(Arc::clone(m));
        }
        let path = self.entry_path(key);
        if let Some(p) = &path {
            match read_entry(p) {
                Ok(Some(image)) => {
                    if let Ok(m) = compiler.load(&image, Some(p)) {
                        touch(p);
                        self.stats.lock().disk_hits += 1;
                        self.memory.lock().insert(key, Arc::clone(&m));
                        return Ok(m);
                    }
                    // An entry another process evicted between the read and the load is missing,
                    // not corrupt.
                    if p.exists() {
                        self.stats.lock().corrupt += 1;
                    }
                }
                Ok(None) => {}
                Err(_) => self.stats.lock().corrupt += 1,
            }
        }
        let image = compiler.compile(source, options)?;
        self.stats.lock().compiles += 1;
        let stored = path.as_ref().and_then(|p| write_entry(p, &image).ok().map(|_| p.clone()));
        let m = compiler.load(&image, stored.as_deref())?;
        self.memory.lock().insert(key, Arc::clone(&m));
        if stored.is_some() {
            // After the load: the new entry may be evicted once it is in use.
            self.note_write((image.len() + 16) as u64);
        }
        Ok(m)
    }
}

/// Mark an entry as used now (its modification time), for least-recently-used eviction.
/// Best effort: a read-only or vanished entry stays as it is.
fn touch(path: &Path) {
    if let Ok(f) = std::fs::File::options().write(true).open(path) {
        let _ = f.set_modified(SystemTime::now());
    }
}

/// Whether a folder of the cache is a shard (two hex digits).
fn is_shard(name: &std::ffi::OsStr) -> bool {
    name.len() == 2 && name.to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Whether a file of a shard is a writer's temporary file (`write_entry`).
fn is_temp_file(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// One file of a cache folder, as a scan saw it.
struct ScannedFile {
    path: PathBuf,
    bytes: u64,
    used: SystemTime,
}

/// The entries of the cache folder `dir` (its two-hex-digit shards' `.bin` files); removes
/// temporary files older than [`STALE_TEMP`] on the way. Files that vanish meanwhile are
/// skipped.
fn scan_entries(dir: &Path) -> Result<Vec<ScannedFile>> {
    let shards = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(format!("reading {}", dir.display()), e)),
    };
    let now = SystemTime::now();
    let mut out = Vec::new();
    for shard in shards.flatten() {
        if !is_shard(&shard.file_name()) {
            continue;
        }
        let Ok(files) = std::fs::read_dir(shard.path()) else { continue };
        for f in files.flatten() {
            let path = f.path();
            let Ok(meta) = f.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            let name = f.file_name();
            let name = name.to_string_lossy();
            if is_temp_file(&name) {
                if now.duration_since(used).is_ok_and(|age| age > STALE_TEMP) {
                    let _ = std::fs::remove_file(&path);
                }
            } else if name.ends_with(".bin") {
                out.push(ScannedFile { path, bytes: meta.len(), used });
            }
        }
    }
    Ok(out)
}

/// When the entries of `dir` pass `max_bytes`, delete the least recently used until they are
/// under 90% of it. Returns (entries deleted, bytes remaining).
fn evict_lru(dir: &Path, max_bytes: u64) -> Result<(usize, u64)> {
    let mut entries = scan_entries(dir)?;
    let mut total: u64 = entries.iter().map(|e| e.bytes).sum();
    if total <= max_bytes {
        return Ok((0, total));
    }
    let target = max_bytes / 10 * 9;
    entries.sort_by_key(|e| e.used);
    let mut removed = 0;
    for e in entries {
        if total <= target {
            break;
        }
        match std::fs::remove_file(&e.path) {
            Ok(()) => removed += 1,
            // Another process evicted it first: its bytes are gone all the same.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            // Not ours to delete (permissions): it stays, and counts.
            Err(_) => continue,
        }
        total -= e.bytes;
    }
    Ok((removed, total))
}

/// Remove every entry (and temporary file) of the cache folder `dir`, leaving the folders;
/// returns the entries removed. Files removed by another process meanwhile are skipped; a
/// missing folder is an empty cache.
pub fn clear_cache_dir(dir: &Path) -> Result<usize> {
    let shards = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(Error::io(format!("reading {}", dir.display()), e)),
    };
    let mut removed = 0;
    let mut first_err = None;
    for shard in shards.flatten() {
        if !is_shard(&shard.file_name()) {
            continue;
        }
        let Ok(files) = std::fs::read_dir(shard.path()) else { continue };
        for f in files.flatten() {
            let name = f.file_name();
            let name = name.to_string_lossy();
            let is_entry = name.ends_with(".bin");
            if !is_entry && !is_temp_file(&name) {
                continue;
            }
            match std::fs::remove_file(f.path()) {
                Ok(()) => removed += usize::from(is_entry),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    first_err.get_or_insert_with(|| Error::io(format!("removing {}", f.path().display()), e));
                }
            }
        }
    }
    first_err.map_or(Ok(removed), Err)
}

/// Read an entry: `Ok(None)` when absent, `Err` when present but corrupt.
fn read_entry(path: &Path) -> Result<Option<Vec<u8>>> {
    let mut data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
    };
    let corrupt = || Error::Io { context: format!("kernel cache entry {}", path.display()), message: "corrupt".into() };
    if data.len() < 16 || &data[data.len() - 8..] != TRAILER_MAGIC {
        return Err(corrupt());
    }
    let n = data.len() - 16;
    let sum = u64::from_le_bytes(data[n..n + 8].try_into().expect("8 bytes"));
    if xxhash_rust::xxh3::xxh3_64(&data[..n]) != sum {
        return Err(corrupt());
    }
    data.truncate(n);
    Ok(Some(data))
}

fn write_entry(path: &Path, image: &[u8]) -> Result<()> {
    let dir = path.parent().expect("entry paths have a folder");
    std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    let tmp = dir.join(format!(
        ".{}.{}.{:?}.tmp",
        path.file_name().and_then(|s| s.to_str()).unwrap_or("entry"),
        std::process::id(),
        std::thread::current().id()
    ));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(image)?;
        f.write_all(&xxhash_rust::xxh3::xxh3_64(image).to_le_bytes())?;
        f.write_all(TRAILER_MAGIC)?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(format!("writing {}", path.display()), e)
    })
}
