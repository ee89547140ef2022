//! `.npy` / `.npz` against NumPy: the files under `tests/data/` were written by NumPy
//! (`tests/data/make_npy_fixtures.py`, which also writes `manifest.txt`, the expected dtype,
//! shape and little-endian C-order bytes of every array in them).
//!
//! The reverse direction, NumPy reading what xp writes, is covered twice: `.npy` files written
//! here are byte-identical to `numpy.save`'s for C-order little-endian arrays, and
//! `files_for_numpy_to_check` leaves every manifest array, written by xp, in
//! `target/tmp/npy_written/`, for `python3 array/tests/data/make_npy_fixtures.py --verify
//! target/tmp/npy_written` to load with NumPy.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use xp_array::io::npy::{load_npy, load_npz, read_npy, save_npy, save_npz, write_npy, HostData};
use xp_array::DType;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// One line of `manifest.txt`.
struct Entry {
    file: String,
    member: Option<String>,
    data: HostData,
}

fn manifest() -> Vec<Entry> {
    let text = std::fs::read_to_string(data_dir().join("manifest.txt")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [key, dtype, shape, hex] = fields[..] else { panic!("bad manifest line {line:?}") };
            let (file, member) = match key.split_once(':') {
                Some((f, m)) => (f.to_owned(), Some(m.to_owned())),
                None => (key.to_owned(), None),
            };
            let dtype = DType::from_name(dtype).unwrap_or_else(|| panic!("unknown dtype in {line:?}"));
            let shape = if shape == "-" { vec![] } else { shape.split(',').map(|d| d.parse().unwrap()).collect() };
            let bytes = if hex == "-" {
                vec![]
            } else {
                (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
            };
            Entry { file, member, data: HostData { dtype, shape, bytes } }
        })
        .collect()
}

#[test]
fn numpy_files_read_as_the_manifest_says() {
    let entries = manifest();
    assert!(entries.len() > 50, "manifest has {} entries", entries.len());
    let mut archives: BTreeMap<String, Vec<(String, HostData)>> = BTreeMap::new();
    for entry in &entries {
        let got = match &entry.member {
            None => load_npy(data_dir().join(&entry.file)).unwrap_or_else(|e| panic!("{}: {e}", entry.file)),
            Some(member) => {
                let arrays = archives
                    .entry(entry.file.clone())
                    .or_insert_with(|| load_npz(data_dir().join(&entry.file)).unwrap());
                let found = arrays.iter().find(|(name, _)| name == member);
                found.unwrap_or_else(|| panic!("{} has no member {member}", entry.file)).1.clone()
            }
        };
        assert_eq!(got, entry.data, "{} {:?}", entry.file, entry.member);
    }
    // Members come back in archive order, which is the order they were given to numpy.savez.
    for (file, arrays) in &archives {
        let names: Vec<&str> = arrays.iter().map(|(n, _)| n.as_str()).collect();
        let expected: Vec<&str> =
            entries.iter().filter(|e| &e.file == file).filter_map(|e| e.member.as_deref()).collect();
        assert_eq!(names, expected, "{file}");
    }
    assert_eq!(archives.len(), 2);
}

#[test]
fn covers_every_dtype_and_layout() {
    let entries = manifest();
    for dtype in DType::ALL.into_iter().filter(|&d| d != DType::BF16) {
        for prefix in ["le_", "fortran_"] {
            let file = format!("{prefix}{}.npy", dtype.name());
            assert!(entries.iter().any(|e| e.file == file && e.data.dtype == dtype), "no fixture {file}");
        }
        if dtype.size() > 1 {
            let file = format!("be_{}.npy", dtype.name());
            assert!(entries.iter().any(|e| e.file == file), "no fixture {file}");
        }
    }
}

#[test]
fn written_npy_is_byte_identical_to_numpy_save() {
    let mut compared = 0;
    for entry in manifest() {
        // numpy.save's own files for C-order little-endian arrays, in format 1.0.
        let plain = ["le_", "scalar_float64", "empty_"].iter().any(|p| entry.file.starts_with(p));
        if entry.member.is_some() || !plain {
            continue;
        }
        let numpy = std::fs::read(data_dir().join(&entry.file)).unwrap();
        let mut ours = Vec::new();
        write_npy(&mut ours, &entry.data.view()).unwrap();
        assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&numpy), "{}", entry.file);
        assert_eq!(ours, numpy, "{}", entry.file);
        compared += 1;
    }
    assert_eq!(compared, 17);
}

#[test]
fn format_2_and_3_files_from_numpy() {
    for (file, version) in [("v2_float32.npy", 2u8), ("v3_int64.npy", 3)] {
        let bytes = std::fs::read(data_dir().join(file)).unwrap();
        assert_eq!(bytes[6], version, "{file}");
        let data = read_npy(bytes.as_slice()).unwrap();
        assert_eq!(data, load_npy(data_dir().join(file)).unwrap());
    }
}

#[test]
fn truncated_numpy_file_names_the_path() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("npy_truncated");
    std::fs::create_dir_all(&dir).unwrap();
    let bytes = std::fs::read(data_dir().join("le_complex128.npy")).unwrap();
    let path = dir.join("cut.npy");
    std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
    let err = load_npy(&path).unwrap_err();
    assert_eq!(err.kind(), "Io");
    assert!(err.to_string().contains("cut.npy") && err.to_string().contains("file truncated"), "{err}");
    let err = load_npz(data_dir().join("le_int8.npy")).unwrap_err();
    assert!(err.to_string().contains("le_int8.npy"), "{err}");
}

/// Writes every manifest array with xp under the fixture's name, reads it back, and leaves the
/// files for NumPy (`make_npy_fixtures.py --verify`).
#[test]
fn files_for_numpy_to_check() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("npy_written");
    std::fs::create_dir_all(&dir).unwrap();
    let entries = manifest();
    let mut archives: BTreeMap<&str, Vec<(&str, &HostData)>> = BTreeMap::new();
    for entry in &entries {
        match &entry.member {
            None => {
                let path = dir.join(&entry.file);
                save_npy(&path, &entry.data.view()).unwrap();
                assert_eq!(load_npy(&path).unwrap(), entry.data, "{}", entry.file);
            }
            Some(member) => archives.entry(&entry.file).or_default().push((member, &entry.data)),
        }
    }
    for (file, members) in archives {
        let path = dir.join(file);
        let refs: Vec<_> = members.iter().map(|(name, data)| (*name, data.view())).collect();
        save_npz(&path, &refs, file.contains("compressed")).unwrap();
        let back = load_npz(&path).unwrap();
        let expected: Vec<_> = members.iter().map(|(n, d)| (n.to_string(), (*d).clone())).collect();
        assert_eq!(back, expected, "{file}");
    }
}
