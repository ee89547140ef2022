use std::sync::Weak;

use xp_backend_api::{MemoryPool, Result};

use super::defer;
use crate::result;
use crate::sys::{hipFunction_t, hipModule_t};

/// An owned, loaded code object.
#[derive(Debug)]
pub struct ModuleHandle {
    raw: hipModule_t,
    ordinal: usize,
    sink: Weak<MemoryPool>,
    /// The code object, kept for as long as the module is loaded.
    image: Vec<u8>,
}

// SAFETY: a hipModule_t is an opaque handle that the HIP runtime lets any host thread use
// concurrently; this type only passes it to runtime calls, and `image` is never mutated.
unsafe impl Send for ModuleHandle {}
// SAFETY: as above; no method mutates Rust-side state.
unsafe impl Sync for ModuleHandle {}

impl ModuleHandle {
    /// Load a code object on device `ordinal`; errors at drop go to `sink`.
    pub fn load(ordinal: usize, image: Vec<u8>, sink: Weak<MemoryPool>) -> Result<Self> {
        if !image.starts_with(b"\x7fELF") && !image.starts_with(b"__CLANG_OFFLOAD_BUNDLE__") {
            return Err(xp_backend_api::Error::value(
                "hipModuleLoadData",
                format!("a {}-byte image that is neither an ELF code object nor an offload bundle", image.len()),
            ));
        }
        result::set_device(ordinal)?;
        // SAFETY: `image` starts like a code object (checked above); the runtime reads its size
        // from the header, and the bytes stay alive (in `self.image`) while the module is loaded.
        let raw = unsafe { result::module_load_data(&image) }?;
        Ok(ModuleHandle { raw, ordinal, sink, image })
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The code object's size in bytes.
    pub fn image_len(&self) -> usize {
        self.image.len()
    }

    /// The kernel `name`; the handle is valid while `self` lives.
    pub fn function(&self, name: &str) -> Result<hipFunction_t> {
        // SAFETY: `self.raw` is live until `self` is dropped.
        unsafe { result::module_get_function(self.raw, name) }
    }
}

impl Drop for ModuleHandle {
    fn drop(&mut self) {
        // SAFETY: `self.raw` is live and this is its last use; kernels hold an `Arc` of their
        // module, so none of its functions outlives it.
        defer(&self.sink, unsafe { result::module_unload(self.raw) });
    }
}
