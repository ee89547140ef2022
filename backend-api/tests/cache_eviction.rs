//! The disk cache's size bound: least-recently-used eviction, `clear`, and several caches
//! (as several processes) sharing one folder.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use xp_backend_api::compile::clear_cache_dir;
use xp_backend_api::{CompileCache, CompileOptions, KernelCompiler, KernelSource, Result};

/// Entries of exactly 1000 bytes on disk (984 of image, 16 of trailer).
const ENTRY: u64 = 1000;

#[derive(Default)]
struct FixedSizeCompiler {
    compiles: AtomicUsize,
}

impl KernelCompiler for FixedSizeCompiler {
    type Module = Vec<u8>;
    fn identity(&self) -> String {
        "fixed-size test compiler".into()
    }
    fn compile(&self, source: &KernelSource, _options: &CompileOptions) -> Result<Vec<u8>> {
        self.compiles.fetch_add(1, Ordering::SeqCst);
        let mut image = source.code.clone().into_bytes();
        image.resize(ENTRY as usize - 16, b' ');
        Ok(image)
    }
    fn load(&self, image: &[u8], _path: Option<&Path>) -> Result<Arc<Vec<u8>>> {
        Ok(Arc::new(image.to_vec()))
    }
}

fn src(i: usize) -> KernelSource {
    KernelSource::new(format!("k{i}"), format!("__global__ void k{i}() {{}}"))
}

fn cache(dir: &Path, max: u64) -> CompileCache<Vec<u8>> {
    CompileCache::new(Some(dir.to_path_buf())).with_max_bytes(max)
}

fn entry(c: &CompileCache<Vec<u8>>, i: usize) -> PathBuf {
    let comp = FixedSizeCompiler::default();
    let key = xp_backend_api::compile::cache_key(&src(i), &CompileOptions::default(), &comp.identity());
    c.entry_path(key).unwrap()
}

fn age(path: &Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(secs)).unwrap();
}

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .flat_map(|s| std::fs::read_dir(s.path()).unwrap().flatten())
        .filter(|f| f.path().extension().is_some_and(|e| e == "bin"))
        .count()
}

#[test]
fn eviction_removes_the_least_recently_used_not_the_oldest_written() {
    let dir = tempfile::tempdir().unwrap();
    let comp = FixedSizeCompiler::default();
    // Room for 5 entries; eviction goes down to 90% (4 entries).
    let writer = cache(dir.path(), 5 * ENTRY);
    for i in 0..4 {
        writer.get_or_compile(&comp, &src(i), &Default::default()).unwrap();
    }
    // Entry 0 was written first and entry 1 second; entry 0 is then used (a disk hit of a
    // new cache, as another process would).
    for (i, secs) in [(0, 400), (1, 300), (2, 200), (3, 100)] {
        age(&entry(&writer, i), secs);
    }
    let reader = cache(dir.path(), 5 * ENTRY);
    reader.get_or_compile(&comp, &src(0), &Default::default()).unwrap();
    assert_eq!(reader.stats().disk_hits, 1);
    // Two more entries pass the bound: the least recently used (1, then 2) go.
    for i in 4..6 {
        writer.get_or_compile(&comp, &src(i), &Default::default()).unwrap();
    }
    let exists = |i| entry(&writer, i).exists();
    assert!(exists(0), "the entry used by a hit survives");
    assert!(!exists(1), "the least recently used entry is evicted");
    assert!(exists(4) && exists(5), "new entries stay");
    assert!(entries(dir.path()) as u64 * ENTRY <= 5 * ENTRY);
    assert_eq!(entries(dir.path()), 4, "eviction goes under 90% of the bound");
}

#[test]
fn clear_empties_memory_and_disk() {
    let dir = tempfile::tempdir().unwrap();
    let comp = FixedSizeCompiler::default();
    let c = cache(dir.path(), 0);
    assert_eq!(c.max_bytes(), u64::MAX, "0 means no bound");
    for i in 0..3 {
        c.get_or_compile(&comp, &src(i), &Default::default()).unwrap();
    }
    assert_eq!(entries(dir.path()), 3);
    assert_eq!(c.clear().unwrap(), 3);
    assert_eq!(entries(dir.path()), 0);
    // Nothing is left in memory either: the next request compiles.
    c.get_or_compile(&comp, &src(0), &Default::default()).unwrap();
    assert_eq!(comp.compiles.load(Ordering::SeqCst), 4);
    assert_eq!(clear_cache_dir(dir.path()).unwrap(), 1);
    assert_eq!(clear_cache_dir(&dir.path().join("missing")).unwrap(), 0);
}

#[test]
fn two_caches_on_one_folder_survive_each_others_evictions() {
    let dir = tempfile::tempdir().unwrap();
    // Room for 3 entries: the two caches evict each other's entries all the time.
    let run = |offset: usize| {
        let dir = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let comp = FixedSizeCompiler::default();
            for round in 0..20 {
                // A fresh cache each round reads from disk, as a new process would.
                let c = cache(&dir, 3 * ENTRY);
                for i in 0..6 {
                    let k = (i + offset + round) % 8;
                    let m = c.get_or_compile(&comp, &src(k), &Default::default()).unwrap();
                    assert!(m.starts_with(src(k).code.as_bytes()), "entry {k} has its own image");
                }
            }
        })
    };
    let (a, b) = (run(0), run(3));
    a.join().unwrap();
    b.join().unwrap();
    // Each writer's last eviction left at most the bound plus what was written since.
    let c = cache(dir.path(), 3 * ENTRY);
    c.evict().unwrap();
    assert!(entries(dir.path()) <= 3, "{} entries", entries(dir.path()));
}

#[test]
fn a_reader_whose_entry_was_evicted_compiles_again() {
    let dir = tempfile::tempdir().unwrap();
    let comp = FixedSizeCompiler::default();
    let a = cache(dir.path(), 2 * ENTRY);
    let b = cache(dir.path(), 2 * ENTRY);
    a.get_or_compile(&comp, &src(0), &Default::default()).unwrap();
    age(&entry(&a, 0), 100);
    // b fills the folder past the bound: a's entry goes.
    b.get_or_compile(&comp, &src(1), &Default::default()).unwrap();
    b.get_or_compile(&comp, &src(2), &Default::default()).unwrap();
    assert!(!entry(&a, 0).exists());
    // A third cache (a new process) asks for entry 0: compiled again, and written back.
    let c = cache(dir.path(), 2 * ENTRY);
    let before = comp.compiles.load(Ordering::SeqCst);
    c.get_or_compile(&comp, &src(0), &Default::default()).unwrap();
    assert_eq!(comp.compiles.load(Ordering::SeqCst), before + 1);
    assert_eq!(c.stats().corrupt, 0, "a missing entry is not a corrupt one");
    assert!(entry(&c, 0).exists());
}

#[test]
fn stale_temporary_files_are_removed_by_scans() {
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().join("ab");
    std::fs::create_dir_all(&shard).unwrap();
    let (old, fresh) = (shard.join(".x.bin.1.tmp"), shard.join(".y.bin.2.tmp"));
    std::fs::write(&old, b"half").unwrap();
    std::fs::write(&fresh, b"half").unwrap();
    age(&old, 2 * 3600);
    cache(dir.path(), ENTRY).evict().unwrap();
    assert!(!old.exists(), "a crashed writer's leftovers go");
    assert!(fresh.exists(), "a write in progress stays");
}
