//! What this build of xp is and what it finds on this machine, as `cupy.show_config()`.

use std::fmt;
use std::sync::Arc;

use xp_backend_api::{BackendInfo, DynBackend, DynDevice};

/// The build and the machine, as [`show_config`](crate::show_config) prints them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigInfo {
    /// xp's version (`0.1.0`).
    pub version: &'static str,
    /// The cargo features this build was made with (`cpu`, `cuda`, `hip`).
    pub features: Vec<&'static str>,
    /// `rustc --version` of the compiler that built xp.
    pub rustc: &'static str,
    /// The target triple xp was built for.
    pub target: &'static str,
    /// `debug` or `release`.
    pub profile: &'static str,
    /// One report per backend xp knows, built or not, in device-choice order (cuda, hip, cpu).
    pub backends: Vec<BackendReport>,
    /// Where the NVTX library was found, or `None` (ranges are then no-ops).
    pub nvtx: Option<String>,
}

/// One backend, as found at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendReport {
    /// `cpu`, `cuda` or `hip`.
    pub name: &'static str,
    /// Whether this build has the backend (its cargo feature).
    pub built: bool,
    /// `Ok` when the backend probes fine; else why it cannot be used here.
    pub status: Result<(), String>,
    /// Versions and library locations the backend reports.
    pub info: BackendInfo,
    /// Its devices (empty when it is unavailable).
    pub devices: Vec<DeviceReport>,
}

/// One device of a backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceReport {
    /// `cpu`, `cuda:0`, `hip:1`.
    pub label: String,
    /// Why the device would not open (the other fields are then empty).
    pub error: Option<String>,
    /// The device's name.
    pub name: String,
    /// Architecture (`sm_90`, `gfx90a`, `x86_64`).
    pub arch: String,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// Bytes of memory.
    pub total_memory: usize,
    /// Multiprocessors / compute units / worker threads.
    pub multiprocessor_count: u32,
}

/// The cargo features of this build.
pub fn enabled_features() -> Vec<&'static str> {
    let mut f = Vec::new();
    if cfg!(feature = "cpu") {
        f.push("cpu");
    }
    if cfg!(feature = "cuda") {
        f.push("cuda");
    }
    if cfg!(feature = "hip") {
        f.push("hip");
    }
    f
}

/// Report one backend; never panics (a panic inside a backend's probe is reported as its reason).
pub(crate) fn backend_report(b: &Arc<dyn DynBackend>) -> BackendReport {
    let probe = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.probe()));
    let status = match probe {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("the backend's probe panicked".to_string()),
    };
    let info = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.info())).unwrap_or_else(|_| BackendInfo {
        versions: vec![("versions".into(), "none (the backend panicked while reporting them)".into())],
        libraries: Vec::new(),
    });
    let mut devices = Vec::new();
    if status.is_ok() {
        let count = b.device_count().unwrap_or(0);
        for i in 0..count {
            devices.push(match b.device(i) {
                Ok(d) => device_report(&*d),
                Err(e) => DeviceReport {
                    label: format!("{}:{i}", b.name()),
                    error: Some(e.to_string()),
                    name: String::new(),
                    arch: String::new(),
                    compute_capability: (0, 0),
                    total_memory: 0,
                    multiprocessor_count: 0,
                },
            });
        }
    }
    BackendReport { name: b.name(), built: true, status, info, devices }
}

fn device_report(d: &dyn DynDevice) -> DeviceReport {
    let p = d.properties();
    DeviceReport {
        label: d.label(),
        error: None,
        name: p.name.clone(),
        arch: p.arch.clone(),
        compute_capability: p.compute_capability,
        total_memory: p.total_memory,
        multiprocessor_count: p.multiprocessor_count,
    }
}

/// The report of a backend this build does not have.
pub(crate) fn not_built(name: &'static str) -> BackendReport {
    BackendReport {
        name,
        built: false,
        status: Err(format!("not built (enable the `{name}` feature of xp)")),
        info: BackendInfo::default(),
        devices: Vec::new(),
    }
}

/// Width of the key column, as CuPy's `show_config` pads it.
const KEY: usize = 30;

fn line(f: &mut fmt::Formatter<'_>, key: &str, value: &str) -> fmt::Result {
    writeln!(f, "{key:<KEY$}: {value}")
}

impl fmt::Display for ConfigInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        line(f, "xp Version", self.version)?;
        line(f, "xp Features", &self.features.join(", "))?;
        line(f, "Rust Compiler", self.rustc)?;
        line(f, "Target", self.target)?;
        line(f, "Build Profile", self.profile)?;
        line(f, "OS", &format!("{} {}", std::env::consts::OS, std::env::consts::ARCH))?;
        line(f, "NVTX Library", self.nvtx.as_deref().unwrap_or("none (profile ranges are no-ops)"))?;
        for b in &self.backends {
            f.write_str("\n")?;
            let status = match &b.status {
                Ok(()) => format!("available, {} device(s)", b.devices.len()),
                Err(reason) => format!("unavailable: {reason}"),
            };
            line(f, &format!("Backend {}", b.name), &status)?;
            for (what, v) in &b.info.versions {
                line(f, &format!("  {what} Version"), v)?;
            }
            for (lib, at) in &b.info.libraries {
                line(f, &format!("  {lib} Path"), at)?;
            }
            for d in &b.devices {
                if let Some(e) = &d.error {
                    line(f, &format!("  Device {}", d.label), &format!("cannot be opened: {e}"))?;
                    continue;
                }
                let (major, minor) = d.compute_capability;
                line(
                    f,
                    &format!("  Device {}", d.label),
                    &format!(
                        "{} ({}, compute capability {major}.{minor}, {} units, {:.2} GB)",
                        d.name,
                        d.arch,
                        d.multiprocessor_count,
                        d.total_memory as f64 / (1u64 << 30) as f64
                    ),
                )?;
            }
        }
        Ok(())
    }
}
