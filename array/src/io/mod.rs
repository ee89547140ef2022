//! Arrays in and out of files, as NumPy's input and output routines: `.npy` and `.npz`
//! ([`load_npy`], [`load_npz`], [`save_npz`], [`Array::save_npy`], here, on top of [`npy`], the
//! file format on host bytes) and text ([`savetxt`], [`loadtxt`], in `text.rs`).

pub mod npy;
mod text;

use std::path::Path;

use xp_backend_api::Result;

use crate::{current_device, Array};
use npy::HostDataRef;

pub use text::{loadtxt, savetxt};

impl Array {
    /// Save as a `.npy` file (bfloat16 has no `.npy` form and is refused).
    pub fn save_npy(&self, path: impl AsRef<Path>) -> Result<()> {
        let bytes = self.to_bytes()?;
        npy::save_npy(path, &HostDataRef { dtype: self.dtype(), shape: self.shape(), bytes: &bytes })
    }
}

/// Load a `.npy` file onto the current device.
pub fn load_npy(path: impl AsRef<Path>) -> Result<Array> {
    let d = npy::load_npy(path)?;
    Array::from_bytes_on(&current_device()?, &d.shape, d.dtype, &d.bytes)
}

/// Load every array of a `.npz` file onto the current device, with their names.
pub fn load_npz(path: impl AsRef<Path>) -> Result<Vec<(String, Array)>> {
    let dev = current_device()?;
    npy::load_npz(path)?
        .into_iter()
        .map(|(name, d)| Ok((name, Array::from_bytes_on(&dev, &d.shape, d.dtype, &d.bytes)?)))
        .collect()
}

/// Save named arrays as a `.npz` file (deflated when `compressed`).
pub fn save_npz(path: impl AsRef<Path>, arrays: &[(&str, &Array)], compressed: bool) -> Result<()> {
    let bytes: Vec<Vec<u8>> = arrays.iter().map(|(_, a)| a.to_bytes()).collect::<Result<_>>()?;
    let refs: Vec<(&str, HostDataRef<'_>)> = arrays
        .iter()
        .zip(&bytes)
        .map(|((n, a), b)| (*n, HostDataRef { dtype: a.dtype(), shape: a.shape(), bytes: b }))
        .collect();
    npy::save_npz(path, &refs, compressed)
}
