//! NumPy's text files: `savetxt` and `loadtxt` of 1-d and 2-d numeric arrays.

use std::path::Path;

use xp_backend_api::{DType, Error, Result};

use crate::{current_device, Array};

/// NumPy's `savetxt(fname, X, delimiter=' ')` for a 1-d or 2-d numeric array, NumPy's
/// default format `%.18e` (integers as integers).
pub fn savetxt(path: impl AsRef<Path>, x: &Array, delimiter: &str) -> Result<()> {
    if x.ndim() == 0 || x.ndim() > 2 || x.dtype().is_complex() {
        return Err(Error::value(
            "savetxt",
            format!("expected a real 1-d or 2-d array, got {:?} {}", x.shape(), x.dtype()),
        ));
    }
    let cols = if x.ndim() == 2 { x.shape()[1] } else { 1 };
    let mut s = String::new();
    if x.dtype().is_integer() || x.dtype() == DType::Bool {
        let v = x.astype(DType::I64)?.to_vec::<i64>()?;
        for row in v.chunks(cols.max(1)) {
            s.push_str(&row.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(delimiter));
            s.push('\n');
        }
    } else {
        let v = x.astype(DType::F64)?.to_vec::<f64>()?;
        for row in v.chunks(cols.max(1)) {
            s.push_str(&row.iter().map(|e| format!("{e:.18e}")).collect::<Vec<_>>().join(delimiter));
            s.push('\n');
        }
    }
    std::fs::write(path.as_ref(), s)
        .map_err(|e| Error::Io { context: format!("savetxt to {}", path.as_ref().display()), message: e.to_string() })
}

/// NumPy's `loadtxt(fname, delimiter)` of numeric text: float64, 1-d for one column (or one
/// row), else 2-d; `#` starts a comment; `None` splits at whitespace.
pub fn loadtxt(path: impl AsRef<Path>, delimiter: Option<&str>) -> Result<Array> {
    let p = path.as_ref().display().to_string();
    let text = std::fs::read_to_string(path.as_ref())
        .map_err(|e| Error::Io { context: format!("loadtxt from {p}"), message: e.to_string() })?;
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = match delimiter {
            Some(d) => line.split(d).map(str::trim).collect(),
            None => line.split_whitespace().collect(),
        };
        let row = fields
            .iter()
            .map(|f| {
                f.parse::<f64>().map_err(|_| {
                    Error::value("loadtxt", format!("could not convert string {f:?} to float64 at row {ln}"))
                })
            })
            .collect::<Result<Vec<f64>>>()?;
        if let Some(first) = rows.first() {
            if first.len() != row.len() {
                return Err(Error::value(
                    "loadtxt",
                    format!("the number of columns changed from {} to {} at row {}", first.len(), row.len(), ln + 1),
                ));
            }
        }
        rows.push(row);
    }
    let cols = rows.first().map_or(0, |r| r.len());
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    let shape = if rows.len() == 1 || cols == 1 { vec![flat.len()] } else { vec![rows.len(), cols] };
    Array::from_slice_on(&current_device()?, &flat, &shape)
}
