//! The registry of backends and the choice of device.

use std::sync::Arc;

use parking_lot::RwLock;
use xp_backend_api::{DynBackend, DynDevice, Error, Result};

static BACKENDS: RwLock<Vec<Arc<dyn DynBackend>>> = RwLock::new(Vec::new());

/// Make a backend available to device selection (the `xp` facade does this for the backends
/// its features enable). Registering a backend twice has no effect.
pub fn register_backend(backend: Arc<dyn DynBackend>) {
    let mut b = BACKENDS.write();
    if !b.iter().any(|x| x.name() == backend.name()) {
        b.push(backend);
    }
}

/// The names of the registered backends, in registration order.
pub fn registered_backends() -> Vec<&'static str> {
    BACKENDS.read().iter().map(|b| b.name()).collect()
}

fn backend(name: &str) -> Option<Arc<dyn DynBackend>> {
    BACKENDS.read().iter().find(|b| b.name() == name).cloned()
}

/// Split `cuda:0` into (`cuda`, 0); `cpu` is (`cpu`, 0).
pub fn parse_device_label(label: &str) -> Result<(String, usize)> {
    let label = label.trim();
    let (name, ord) = match label.split_once(':') {
        Some((n, o)) => {
            let ord = o.parse::<usize>().map_err(|_| {
                Error::value("device", format!("`{label}`: the ordinal after `:` must be a number, as in cuda:0"))
            })?;
            (n, ord)
        }
        None => (label, 0),
    };
    if !matches!(name, "cpu" | "cuda" | "hip") {
        return Err(Error::value("device", format!("`{label}` is not a device; use cpu, cuda:N or hip:N")));
    }
    Ok((name.to_string(), ord))
}

/// The device named by `label` (`cpu`, `cuda:0`, `hip:1`).
pub fn device(label: &str) -> Result<Arc<dyn DynDevice>> {
    let (name, ord) = parse_device_label(label)?;
    let b = backend(&name).ok_or_else(|| Error::BackendUnavailable {
        backend: name.clone(),
        reason: format!("xp was built without the `{name}` feature (built with: {})", registered_backends().join(", ")),
    })?;
    b.probe()?;
    b.device(ord)
}

/// Every device of every registered backend that works here (GPUs first, then the CPU).
pub fn devices() -> Vec<Arc<dyn DynDevice>> {
    let mut out = Vec::new();
    let backends: Vec<_> = BACKENDS.read().clone();
    for name in ["cuda", "hip", "cpu"] {
        let Some(b) = backends.iter().find(|b| b.name() == name) else { continue };
        if b.probe().is_err() {
            continue;
        }
        for i in 0..b.device_count().unwrap_or(0) {
            if let Ok(d) = b.device(i) {
                out.push(d);
            }
        }
    }
    out
}

/// The default device: `XP_DEVICE` when set (an error if that device cannot be used), else
/// the first GPU, else the CPU.
///
/// A GPU that its backend finds but that cannot be opened — a bad `XP_GPU_MEMORY_LIMIT`, a
/// context that cannot be created — is that error, not a silent move to the next device: only
/// a backend that is not there at all (no driver, no device) is passed over.
pub fn default_device() -> Result<Arc<dyn DynDevice>> {
    if let Some(label) = xp_backend_api::env::text("XP_DEVICE")? {
        return device(&label).map_err(|e| match e {
            Error::Value { reason, .. } => {
                Error::value("environment", format!("XP_DEVICE={label:?} is not a device: {reason}"))
            }
            e => e,
        });
    }
    let backends: Vec<_> = BACKENDS.read().clone();
    for name in ["cuda", "hip", "cpu"] {
        let Some(b) = backends.iter().find(|b| b.name() == name) else { continue };
        match b.probe().and_then(|_| b.device_count()) {
            Ok(0) | Err(Error::BackendUnavailable { .. }) => continue,
            Err(e) => return Err(e),
            Ok(_) => return b.device(0),
        }
    }
    Err(Error::BackendUnavailable {
        backend: registered_backends().join(", "),
        reason: "no device of any registered backend works on this machine".into(),
    })
}

thread_local! {
    static CURRENT: std::cell::RefCell<Vec<Arc<dyn DynDevice>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Run `f` with `device` as this thread's current device: arrays created without a device
/// go there.
pub fn with_device<R>(device: &Arc<dyn DynDevice>, f: impl FnOnce() -> R) -> R {
    CURRENT.with(|c| c.borrow_mut().push(Arc::clone(device)));
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            CURRENT.with(|c| c.borrow_mut().pop());
        }
    }
    let _pop = Pop;
    f()
}

/// This thread's current device: the innermost [`with_device`], else [`default_device`]
/// (looked up once per process).
pub fn current_device() -> Result<Arc<dyn DynDevice>> {
    if let Some(d) = CURRENT.with(|c| c.borrow().last().cloned()) {
        return Ok(d);
    }
    static DEFAULT: parking_lot::Mutex<Option<Arc<dyn DynDevice>>> = parking_lot::Mutex::new(None);
    let mut g = DEFAULT.lock();
    if let Some(d) = g.as_ref() {
        return Ok(Arc::clone(d));
    }
    let d = default_device()?;
    *g = Some(Arc::clone(&d));
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(parse_device_label("cuda:1").unwrap(), ("cuda".to_string(), 1));
        assert_eq!(parse_device_label("cpu").unwrap(), ("cpu".to_string(), 0));
        assert!(matches!(parse_device_label("tpu:0"), Err(Error::Value { .. })));
        assert!(matches!(parse_device_label("cuda:x"), Err(Error::Value { .. })));
    }
}
