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

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
}

impl CompileOptions {
    /// Options from a list of flags.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(flags: I) -> Self {
        CompileOptions { flags: flags.into_iter().map(Into::into).collect(), fast_compile: false }
    }

    /// These options with [`CompileOptions::fast_compile`] set to `on`.
    pub fn with_fast_compile(mut self, on: bool) -> Self {
        self.fast_compile = on;
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
}

const TRAILER_MAGIC: &[u8; 8] = b"XPKCACH1";

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
    h.update(&[1, options.fast_compile as u8]);
    h.update(identity.as_bytes());
    h.digest128()
}

impl<M: Send + Sync> CompileCache<M> {
    /// A cache with the disk folder `disk` (`None`: memory only).
    pub fn new(disk: Option<PathBuf>) -> Self {
        CompileCache { memory: Mutex::new(HashMap::new()), disk, stats: Mutex::new(CacheStats::default()) }
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
                        self.stats.lock().disk_hits += 1;
                        self.memory.lock().insert(key, Arc::clone(&m));
                        return Ok(m);
                    }
                    self.stats.lock().corrupt += 1;
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
        Ok(m)
    }
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
