//! The portable error type shared by every layer of xp.

use crate::DType;

/// Result with the portable [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every way an xp operation can fail.
///
/// Environment problems (no driver, no compiler, out of memory) and bad input are errors, never
/// panics. Variants carry what a user needs to find the cause: the op, the dtypes, the shapes,
/// and for vendor calls the API name with the vendor's own numeric code and symbolic name.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A backend cannot be used on this machine (no driver, no library, no device).
    #[error("backend {backend} is unavailable: {reason}")]
    BackendUnavailable {
        /// `cpu`, `cuda` or `hip`.
        backend: String,
        /// Why, naming the missing library, the paths tried or the driver's error.
        reason: String,
    },
    /// An allocation failed even after the pool released its cached blocks.
    #[error("out of memory: requested {requested} bytes with {in_use} bytes in use (limit {limit} bytes)")]
    OutOfMemory {
        /// Bytes asked for.
        requested: usize,
        /// Bytes held by live buffers when the request failed.
        in_use: usize,
        /// The pool's limit in bytes (`usize::MAX` when unlimited).
        limit: usize,
    },
    /// A kernel failed to compile; `log` is the compiler's full output.
    #[error("kernel `{kernel}` failed to compile (options: {options}):\n{log}")]
    Compile {
        /// The kernel (or module) name.
        kernel: String,
        /// The compiler's log, with line numbers.
        log: String,
        /// The options it was compiled with.
        options: String,
    },
    /// A vendor API call failed.
    #[error("{api} failed: {name} ({code}){}", if .detail.is_empty() { String::new() } else { format!(": {}", .detail) })]
    Driver {
        /// The API call, e.g. `cuLaunchKernel`.
        api: String,
        /// The vendor's numeric code.
        code: i64,
        /// The vendor's symbolic name, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
        name: String,
        /// More context (what xp was doing, what to do next).
        detail: String,
    },
    /// A launch configuration or kernel argument list the device cannot run.
    #[error("launch of kernel `{kernel}` rejected: {reason}")]
    Launch {
        /// The kernel name.
        kernel: String,
        /// What is wrong.
        reason: String,
    },
    /// An op does not support a dtype.
    #[error("{op}: unsupported dtype {}", unsupported_text(.dtypes, .detail))]
    UnsupportedDType {
        /// The op.
        op: String,
        /// The dtypes refused, shown by their NumPy names; empty when the type has no xp
        /// dtype (a `.npy` type string such as `'<U8'`), which `detail` then names.
        dtypes: Vec<DType>,
        /// More context (why, or what the type is), or empty.
        detail: String,
    },
    /// Dtypes that cannot be combined in an op (e.g. bitwise ops on floats).
    #[error("{op}: {reason}")]
    DType {
        /// The op.
        op: String,
        /// What is wrong, naming the dtypes.
        reason: String,
    },
    /// Shapes that cannot be combined (broadcasting, reshaping, concatenation).
    #[error("{op}: shapes {lhs:?} and {rhs:?} {reason}")]
    ShapeMismatch {
        /// The op.
        op: String,
        /// The first shape.
        lhs: Vec<usize>,
        /// The second shape.
        rhs: Vec<usize>,
        /// Why they do not fit.
        reason: String,
    },
    /// Arrays (or an array and a stream) on different devices met in one op.
    #[error("{op}: operands live on different devices ({lhs} and {rhs}); copy one with to_device first")]
    DeviceMismatch {
        /// The op.
        op: String,
        /// One device.
        lhs: String,
        /// The other device.
        rhs: String,
    },
    /// An index or slice out of range.
    #[error("{op}: {reason}")]
    Index {
        /// The op.
        op: String,
        /// What is out of range.
        reason: String,
    },
    /// A bad axis argument (out of range, duplicated).
    #[error("{op}: {reason}")]
    Axis {
        /// The op.
        op: String,
        /// What is wrong.
        reason: String,
    },
    /// A value that does not fit its dtype (weak-scalar overflow, shape overflow).
    #[error("{op}: {reason}")]
    Overflow {
        /// The op.
        op: String,
        /// What overflowed.
        reason: String,
    },
    /// Any other bad argument.
    #[error("{op}: {reason}")]
    Value {
        /// The op.
        op: String,
        /// What is wrong.
        reason: String,
    },
    /// A linear-algebra failure NumPy reports as `LinAlgError`: a singular or non-square
    /// matrix, one that is not positive definite, a solver that did not converge (naming which
    /// matrix of a batch).
    #[error("{op}: {reason}")]
    LinAlg {
        /// The op.
        op: String,
        /// What failed, and where.
        reason: String,
    },
    /// A feature xp does not have yet.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// An I/O error (files, caches, `.npy`).
    #[error("{context}: {message}")]
    Io {
        /// What was being done.
        context: String,
        /// The OS error.
        message: String,
    },
}

impl Error {
    /// The variant's name, used as the error kind by the conformance runner.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::BackendUnavailable { .. } => "BackendUnavailable",
            Error::OutOfMemory { .. } => "OutOfMemory",
            Error::Compile { .. } => "Compile",
            Error::Driver { .. } => "Driver",
            Error::Launch { .. } => "Launch",
            Error::UnsupportedDType { .. } => "DType",
            Error::DType { .. } => "DType",
            Error::ShapeMismatch { .. } => "ShapeMismatch",
            Error::DeviceMismatch { .. } => "DeviceMismatch",
            Error::Index { .. } => "Index",
            // NumPy's AxisError is a ValueError: code that catches one catches both.
            Error::Axis { .. } => "Value",
            Error::Overflow { .. } => "Overflow",
            Error::Value { .. } => "Value",
            Error::LinAlg { .. } => "LinAlg",
            Error::Unsupported(_) => "Unsupported",
            Error::Io { .. } => "Io",
        }
    }

    /// A [`Error::Value`] for `op`.
    pub fn value(op: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Value { op: op.into(), reason: reason.into() }
    }

    /// An [`Error::Io`] from an OS error.
    pub fn io(context: impl Into<String>, err: std::io::Error) -> Self {
        Error::Io { context: context.into(), message: err.to_string() }
    }

    /// An [`Error::UnsupportedDType`] for one dtype, without detail.
    pub fn unsupported_dtype(op: impl Into<String>, dtype: DType) -> Self {
        Error::UnsupportedDType { op: op.into(), dtypes: vec![dtype], detail: String::new() }
    }
}

/// What [`Error::UnsupportedDType`] shows after `unsupported dtype `: the NumPy names of the
/// dtypes, then the detail in parentheses; the detail alone when there are no dtypes.
fn unsupported_text(dtypes: &[DType], detail: &str) -> String {
    let names = dtypes.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ");
    match (names.is_empty(), detail.is_empty()) {
        (true, _) => detail.to_string(),
        (false, true) => names,
        (false, false) => format!("{names} ({detail})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsupported_dtypes_show_their_numpy_names_then_the_detail() {
        assert_eq!(Error::unsupported_dtype("sort", DType::C64).to_string(), "sort: unsupported dtype complex64");
        let e = Error::UnsupportedDType {
            op: "max".into(),
            dtypes: vec![DType::BF16, DType::Bool],
            detail: "no loop takes them".into(),
        };
        assert_eq!(e.to_string(), "max: unsupported dtype bfloat16, bool (no loop takes them)");
        let e = Error::UnsupportedDType {
            op: "load".into(),
            dtypes: vec![],
            detail: "'<U8' (a unicode string type)".into(),
        };
        assert_eq!(e.to_string(), "load: unsupported dtype '<U8' (a unicode string type)");
        assert_eq!(e.kind(), "DType");
    }
}
