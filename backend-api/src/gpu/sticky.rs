//! Sticky errors: the first vendor error that leaves a GPU context unusable, kept so that every
//! later call on that context is refused with it.

use std::sync::OnceLock;

use crate::{Error, Result};

/// The vendor error that first left a GPU context unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Poison {
    /// The call that reported it.
    pub api: String,
    /// The vendor's numeric code.
    pub code: i64,
    /// The vendor's symbolic name.
    pub name: String,
}

/// Whether a sticky error (an illegal address in a kernel, a failed launch, …) has corrupted a
/// GPU context. The first one is kept; from then on every call on that context is refused with
/// an [`Error::Driver`] carrying its code and name, without calling the vendor again.
#[derive(Debug, Default)]
pub struct StickyError {
    first: OnceLock<Poison>,
}

impl StickyError {
    /// No error yet.
    pub const fn new() -> Self {
        StickyError { first: OnceLock::new() }
    }

    /// Keep `api` failing with `code`/`name` as the error, unless one is kept already.
    pub fn record(&self, api: &str, code: i64, name: &str) {
        let _ = self.first.set(Poison { api: api.to_string(), code, name: name.to_string() });
    }

    /// The error kept, if any.
    pub fn get(&self) -> Option<&Poison> {
        self.first.get()
    }

    /// Whether an error is kept.
    pub fn is_set(&self) -> bool {
        self.first.get().is_some()
    }

    /// `Ok` while no error is kept; else the [`Error::Driver`] that a call of `api` returns,
    /// with the kept code and name and the detail `describe` writes.
    pub fn refuse(&self, api: &str, describe: impl FnOnce(&Poison) -> String) -> Result<()> {
        match self.first.get() {
            None => Ok(()),
            Some(p) => {
                Err(Error::Driver { api: api.to_string(), code: p.code, name: p.name.clone(), detail: describe(p) })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_sticky_error_is_kept_and_refuses_later_calls() {
        let s = StickyError::new();
        assert!(s.refuse("a", |_| unreachable!()).is_ok());
        s.record("cuLaunchKernel", 700, "CUDA_ERROR_ILLEGAL_ADDRESS");
        s.record("cuMemFree", 719, "CUDA_ERROR_LAUNCH_FAILED");
        assert!(s.is_set());
        let e = s.refuse("cuMemAlloc", |p| format!("after {}", p.api)).unwrap_err();
        let Error::Driver { api, code, name, detail } = e else { panic!("{e:?}") };
        assert_eq!((api.as_str(), code, name.as_str()), ("cuMemAlloc", 700, "CUDA_ERROR_ILLEGAL_ADDRESS"));
        assert_eq!(detail, "after cuLaunchKernel");
    }
}
