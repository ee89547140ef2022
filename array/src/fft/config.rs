//! The FFT plan cache, as CuPy's `cupy.fft.config`: one per device, least recently used,
//! bounded by a plan count ([`PlanCache::set_size`], 16 by default as CuPy's) and by a memory
//! total ([`PlanCache::set_memsize`], none by default).
//!
//! A plan's memory is the work area it asks for. xp borrows that area from the device's
//! memory pool for each execution and gives it back right after (stream-ordered), so the
//! cache itself holds no work memory between calls: `free_all_cached` and the pool's limit
//! see every byte, and the count and memory limits bound what one burst of calls can ask
//! for. (CuPy's plans each keep their work area for as long as they are cached, which is
//! where the memory its users saw held came from.) [`PlanCache::stats`] and
//! [`PlanCache::show_info`] say what is held.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use xp_backend_api::{DynDevice, FftDesc, FftPlan, Result};

use crate::exec::device_id;

/// What a [`PlanCache`] holds and has done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PlanCacheStats {
    /// Plans held.
    pub plans: usize,
    /// Work-area bytes the held plans ask for, together.
    pub memsize: usize,
    /// Lookups that found their plan.
    pub hits: u64,
    /// Lookups that made a plan.
    pub misses: u64,
    /// Plans dropped to stay within the limits.
    pub evictions: u64,
}

struct Entry {
    desc: FftDesc,
    plan: Arc<dyn FftPlan>,
    work: usize,
}

struct Inner {
    /// Most recently used last.
    entries: Vec<Entry>,
    size: usize,
    memsize: Option<usize>,
    stats: PlanCacheStats,
}

impl Inner {
    fn curr_memsize(&self) -> usize {
        self.entries.iter().map(|e| e.work).sum()
    }

    /// Drop the least recently used plans until both limits hold.
    fn trim(&mut self) {
        while !self.entries.is_empty()
            && (self.entries.len() > self.size || self.memsize.is_some_and(|m| self.curr_memsize() > m))
        {
            self.entries.remove(0);
            self.stats.evictions += 1;
        }
    }
}

/// The FFT plan cache of one device (CuPy's `PlanCache`).
pub struct PlanCache {
    label: String,
    inner: Mutex<Inner>,
}

impl PlanCache {
    fn new(label: String) -> PlanCache {
        PlanCache {
            label,
            inner: Mutex::new(Inner { entries: Vec::new(), size: 16, memsize: None, stats: PlanCacheStats::default() }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves a consistent cache (every step is one call).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The plan for `desc`: the cached one, else `make`'s, cached when it fits the limits
    /// (a plan larger than the memory limit is used once and not kept).
    pub(crate) fn get_or_make(
        &self,
        desc: &FftDesc,
        make: impl FnOnce() -> Result<Arc<dyn FftPlan>>,
    ) -> Result<Arc<dyn FftPlan>> {
        {
            let mut g = self.lock();
            if let Some(i) = g.entries.iter().position(|e| &e.desc == desc) {
                let e = g.entries.remove(i);
                let plan = Arc::clone(&e.plan);
                g.entries.push(e);
                g.stats.hits += 1;
                return Ok(plan);
            }
            g.stats.misses += 1;
        }
        // Planning can take milliseconds: not under the lock.
        let plan = make()?;
        let work = plan.work_size();
        let mut g = self.lock();
        let fits = g.size > 0 && g.memsize.is_none_or(|m| work <= m);
        if fits && !g.entries.iter().any(|e| &e.desc == desc) {
            g.entries.push(Entry { desc: desc.clone(), plan: Arc::clone(&plan), work });
            g.trim();
        }
        Ok(plan)
    }

    /// The most plans kept (CuPy's `get_size`).
    pub fn get_size(&self) -> usize {
        self.lock().size
    }

    /// Keep at most `size` plans; 0 turns caching off. Evicts at once.
    pub fn set_size(&self, size: usize) {
        let mut g = self.lock();
        g.size = size;
        g.trim();
    }

    /// The memory limit in bytes (`None`: no limit).
    pub fn get_memsize(&self) -> Option<usize> {
        self.lock().memsize
    }

    /// Keep plans whose work areas total at most `bytes` (`None`: no limit). Evicts at once.
    pub fn set_memsize(&self, bytes: Option<usize>) {
        let mut g = self.lock();
        g.memsize = bytes;
        g.trim();
    }

    /// Plans held now.
    pub fn get_curr_size(&self) -> usize {
        self.lock().entries.len()
    }

    /// Work-area bytes the held plans ask for now.
    pub fn get_curr_memsize(&self) -> usize {
        self.lock().curr_memsize()
    }

    /// Counts of what is held and what happened.
    pub fn stats(&self) -> PlanCacheStats {
        let g = self.lock();
        PlanCacheStats { plans: g.entries.len(), memsize: g.curr_memsize(), ..g.stats }
    }

    /// Drop every plan (the counters stay).
    pub fn clear(&self) {
        self.lock().entries.clear();
    }

    /// A description of the cache and each plan, most recently used last (CuPy's
    /// `show_info`, returned rather than printed).
    pub fn show_info(&self) -> String {
        let g = self.lock();
        let limit = g.memsize.map_or("none".to_string(), |m| format!("{m} bytes"));
        let mut s = format!(
            "FFT plan cache of {}: {} of at most {} plans, {} bytes of work areas (limit {limit}); \
             {} hits, {} misses, {} evictions\n",
            self.label,
            g.entries.len(),
            g.size,
            g.curr_memsize(),
            g.stats.hits,
            g.stats.misses,
            g.stats.evictions
        );
        for e in &g.entries {
            let d = &e.desc;
            s.push_str(&format!(
                "  {:?} {} n={:?} batch={} in(stride {}, dist {}) out(stride {}, dist {}), work {} bytes\n",
                d.kind,
                if d.double { "double" } else { "single" },
                d.n,
                d.batch,
                d.istride,
                d.idist,
                d.ostride,
                d.odist,
                e.work
            ));
        }
        s
    }
}

/// The plan cache of `device`.
pub fn plan_cache_of(device: &Arc<dyn DynDevice>) -> Arc<PlanCache> {
    static CACHES: OnceLock<Mutex<HashMap<usize, Arc<PlanCache>>>> = OnceLock::new();
    let mut m = CACHES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    Arc::clone(m.entry(device_id(device)).or_insert_with(|| Arc::new(PlanCache::new(device.label()))))
}

/// The plan cache of the current device (CuPy's `cupy.fft.config.get_plan_cache()`).
pub fn get_plan_cache() -> Result<Arc<PlanCache>> {
    Ok(plan_cache_of(&crate::current_device()?))
}

/// CuPy's `show_plan_cache_info()`, for the current device's cache.
pub fn show_plan_cache_info() -> Result<String> {
    Ok(get_plan_cache()?.show_info())
}

#[cfg(test)]
mod tests {
    use super::*;
    use xp_backend_api::{Buffer, FftKind, Stream};

    /// A plan that only says how much work area it wants.
    struct Fake(FftDesc, usize);

    impl FftPlan for Fake {
        fn desc(&self) -> &FftDesc {
            &self.0
        }
        fn work_size(&self) -> usize {
            self.1
        }
        fn execute(
            &self,
            _: &Arc<dyn Stream>,
            _: (&Buffer, usize),
            _: (&Buffer, usize),
            _: Option<&Buffer>,
            _: bool,
        ) -> Result<()> {
            Ok(())
        }
    }

    fn desc(n: usize) -> FftDesc {
        FftDesc {
            kind: FftKind::C2C,
            double: false,
            n: vec![n],
            batch: 1,
            inembed: vec![n],
            istride: 1,
            idist: n,
            onembed: vec![n],
            ostride: 1,
            odist: n,
        }
    }

    fn get(c: &PlanCache, n: usize, work: usize) {
        c.get_or_make(&desc(n), || Ok(Arc::new(Fake(desc(n), work)))).unwrap();
    }

    #[test]
    fn the_memory_limit_evicts_the_least_recently_used() {
        let c = PlanCache::new("test".into());
        c.set_memsize(Some(100));
        get(&c, 1, 40);
        get(&c, 2, 40);
        get(&c, 1, 40); // 1 is now the most recent
        get(&c, 3, 40); // 120 > 100: plan 2 goes
        assert_eq!(c.get_curr_memsize(), 80);
        let info = c.show_info();
        assert!(info.contains("n=[1]") && info.contains("n=[3]") && !info.contains("n=[2]"), "{info}");
        // A plan larger than the limit is used but not kept.
        get(&c, 4, 500);
        assert_eq!(c.stats(), PlanCacheStats { plans: 2, memsize: 80, hits: 1, misses: 4, evictions: 1 });
        // Lowering the limit evicts at once.
        c.set_memsize(Some(40));
        assert_eq!((c.get_curr_size(), c.get_curr_memsize()), (1, 40));
        c.set_memsize(None);
        assert_eq!(c.get_memsize(), None);
    }
}
