//! The devices of a GPU backend opened so far in this process, by ordinal.

use std::sync::Arc;

use parking_lot::Mutex;

use crate::Result;

/// The devices of a backend opened so far, by ordinal: opening twice returns the same device.
pub struct DeviceRegistry<D> {
    devices: Mutex<Vec<(usize, Arc<D>)>>,
}

impl<D> Default for DeviceRegistry<D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<D> DeviceRegistry<D> {
    /// No device opened yet (usable in a `static`).
    pub const fn new() -> Self {
        DeviceRegistry { devices: Mutex::new(Vec::new()) }
    }

    /// The device `ordinal`, opened with `open` the first time. The registry is locked while
    /// `open` runs, so a device is opened once even when threads race.
    pub fn get_or_open(&self, ordinal: usize, open: impl FnOnce() -> Result<Arc<D>>) -> Result<Arc<D>> {
        let mut devices = self.devices.lock();
        if let Some((_, d)) = devices.iter().find(|(o, _)| *o == ordinal) {
            return Ok(Arc::clone(d));
        }
        let d = open()?;
        devices.push((ordinal, Arc::clone(&d)));
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::Error;

    #[test]
    fn a_device_is_opened_once() {
        let r: DeviceRegistry<usize> = DeviceRegistry::new();
        let opened = Cell::new(0);
        let open = || {
            opened.set(opened.get() + 1);
            Ok(Arc::new(opened.get()))
        };
        let a = r.get_or_open(3, open).unwrap();
        let b = r.get_or_open(3, || panic!("already open")).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(r.get_or_open(4, || Err(Error::value("open", "no such device"))).is_err());
        assert!(r.get_or_open(4, open).is_ok());
        assert_eq!(opened.get(), 2);
    }
}
