//! NumPy's `.npy` and `.npz` files, byte for byte.
//!
//! This module moves array data between files and the host: [`HostData`] (owned) and
//! [`HostDataRef`] (borrowed) hold a dtype, a C-order shape and the elements in C order,
//! little-endian, which is how every backend's host copies are laid out.
//!
//! # What is read
//!
//! * Format versions 1.0, 2.0 and 3.0 (2.0 widens the header length to 4 bytes, 3.0 makes the
//!   header UTF-8). The header is the Python dict literal NumPy writes, parsed here without
//!   evaluating anything: keys in any order, spaces anywhere between tokens, trailing commas,
//!   Python 2's `3L` integers. It must hold exactly the keys `descr`, `fortran_order` and `shape`.
//! * The type strings `|b1 |i1 |u1 <i2 <i4 <i8 <u2 <u4 <u8 <f2 <f4 <f8 <c8 <c16`, their
//!   big-endian `>` forms (swapped on read; each half of a complex number is swapped on its own),
//!   `=` and no mark (this machine's order, as NumPy reads them), `|` only on one-byte types, and
//!   NumPy's one-letter codes (`?`, `b`, `h`, `f`, `d`, `F`, `D`…) with a fixed size.
//! * Fortran-order files, transposed to C order on read.
//! * 0-d arrays (shape `()`) and arrays with a zero-length axis.
//!
//! `bool` elements are read as 0 or 1 (any non-zero byte is `True`, as in NumPy).
//!
//! # What is written
//!
//! Format 1.0 with the header NumPy itself writes (sorted keys, the spare room NumPy leaves for
//! the first axis to grow, padding to 64 bytes), so a C-order little-endian array saved here is
//! byte-identical to `numpy.save`'s file. A header too long for 1.0's 2-byte length (only with
//! thousands of axes) is written as 2.0.
//!
//! # What is refused
//!
//! Every problem is an [`Error`], never a panic, and no buffer is sized from the header alone:
//! the data's byte count is computed with checked arithmetic, compared with the bytes the file
//! or archive member has left when that is known, and otherwise read in bounded steps.
//!
//! * Not a `.npy` file (bad magic), an unknown format version, a header that is not the dict
//!   above: [`Error::Value`].
//! * A file that ends before its header or data does: [`Error::Io`], saying how many bytes were
//!   expected and found. A shape whose byte count overflows: [`Error::Overflow`].
//! * Object arrays (`|O`, pickled Python objects), structured dtypes (a list `descr`), strings,
//!   dates, `float128` and every other type xp has no dtype for: [`Error::UnsupportedDType`].
//! * `bfloat16`, read or written. `.npy` has no type string for it: `ml_dtypes` saves its
//!   `bfloat16` arrays as the anonymous 2-byte void `<V2`, which any other 2-byte void type also
//!   is, so such a file cannot say that it holds bfloat16. Cast to `float32` to save.
//!
//! # `.npz`
//!
//! An `.npz` file is a zip archive with one `NAME.npy` member per array, stored or deflated
//! (`numpy.savez` / `numpy.savez_compressed`). Archives are read and written with the
//! [`zip`](https://docs.rs/zip) crate: it is the maintained zip implementation in Rust, reads
//! and writes both methods and ZIP64 (which NumPy always asks for), and can be built with
//! deflate alone, through `flate2` on the pure-Rust `zlib-rs` backend, so that no C library and
//! none of the other codecs, encryption or clock dependencies come along. Version 6 is the
//! newest whose minimum Rust version (1.83) is within the workspace's.
#![deny(unsafe_code)]

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

use xp_backend_api::{DType, Error, Result};

/// The 6 bytes every `.npy` file starts with.
const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// Header padding: magic, version, length and header together are a multiple of this.
const ARRAY_ALIGN: usize = 64;
/// NumPy pads the header so that the first axis can grow to this many digits in place.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;
/// Nested tuples and lists deeper than this in a header are refused (NumPy's headers nest 2).
const MAX_LITERAL_DEPTH: usize = 32;
/// Buffer reserved ahead of the data when the reader cannot say how many bytes it holds; the
/// buffer then grows as data arrives.
const READ_STEP: u64 = 1 << 20;
/// Deflate expands its input at most about 1032 times: a bound on what a member can produce.
const MAX_DEFLATE_RATIO: u64 = 1032;

/// Array data on the host: dtype, C-order shape, and the elements in C order, little-endian.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostData {
    /// The element type.
    pub dtype: DType,
    /// The shape, in C order (`[]` for a 0-d array).
    pub shape: Vec<usize>,
    /// `shape.iter().product() * dtype.size()` bytes.
    pub bytes: Vec<u8>,
}

impl HostData {
    /// A borrowed view of this data, for [`write_npy`] and friends.
    pub fn view(&self) -> HostDataRef<'_> {
        HostDataRef { dtype: self.dtype, shape: &self.shape, bytes: &self.bytes }
    }
}

/// Borrowed array data on the host, laid out as in [`HostData`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostDataRef<'a> {
    /// The element type.
    pub dtype: DType,
    /// The shape, in C order (`[]` for a 0-d array).
    pub shape: &'a [usize],
    /// `shape.iter().product() * dtype.size()` bytes.
    pub bytes: &'a [u8],
}

/// Reads one `.npy` array from `r`, which is left just after the array's data.
pub fn read_npy<R: Read>(r: R) -> Result<HostData> {
    read_npy_limited(r, None, READ_STEP, "read_npy")
}

/// Writes `data` to `w` as a `.npy` file (format 1.0, or 2.0 when the header needs it).
pub fn write_npy<W: Write>(mut w: W, data: &HostDataRef<'_>) -> Result<()> {
    let header = npy_header(data, "write_npy")?;
    w.write_all(&header).map_err(|e| Error::io("write_npy: writing the header", e))?;
    w.write_all(data.bytes).map_err(|e| Error::io("write_npy: writing the data", e))?;
    Ok(())
}

/// Reads the `.npy` file at `path`.
pub fn load_npy(path: impl AsRef<Path>) -> Result<HostData> {
    let path = path.as_ref();
    let op = format!("load_npy {}", path.display());
    let file = File::open(path).map_err(|e| Error::io(format!("{op}: opening"), e))?;
    let len = file.metadata().map_err(|e| Error::io(format!("{op}: reading its size"), e))?.len();
    read_npy_limited(BufReader::new(file), Some(len), len, &op)
}

/// Writes `data` to a `.npy` file at `path`, replacing any file there.
pub fn save_npy(path: impl AsRef<Path>, data: &HostDataRef<'_>) -> Result<()> {
    let path = path.as_ref();
    let op = format!("save_npy {}", path.display());
    let header = npy_header(data, &op)?;
    let file = File::create(path).map_err(|e| Error::io(format!("{op}: creating"), e))?;
    let mut w = BufWriter::new(file);
    w.write_all(&header).map_err(|e| Error::io(format!("{op}: writing the header"), e))?;
    w.write_all(data.bytes).map_err(|e| Error::io(format!("{op}: writing the data"), e))?;
    w.flush().map_err(|e| Error::io(format!("{op}: writing"), e))
}

/// Reads every array of the `.npz` file at `path`, in archive order, each named as its member
/// without the `.npy` suffix (as `numpy.load` names them). Directory entries are skipped.
pub fn load_npz(path: impl AsRef<Path>) -> Result<Vec<(String, HostData)>> {
    let path = path.as_ref();
    let op = format!("load_npz {}", path.display());
    let file = File::open(path).map_err(|e| Error::io(format!("{op}: opening"), e))?;
    let len = file.metadata().map_err(|e| Error::io(format!("{op}: reading its size"), e))?.len();
    read_npz_from(BufReader::new(file), len, &op)
}

/// Writes `arrays` to a `.npz` file at `path`, each as the member `NAME.npy`: deflated when
/// `compressed` (as `numpy.savez_compressed`), else stored (as `numpy.savez`).
pub fn save_npz(path: impl AsRef<Path>, arrays: &[(&str, HostDataRef<'_>)], compressed: bool) -> Result<()> {
    let path = path.as_ref();
    let op = format!("save_npz {}", path.display());
    let file = File::create(path).map_err(|e| Error::io(format!("{op}: creating"), e))?;
    let mut w = write_npz(BufWriter::new(file), arrays, compressed, &op)?;
    w.flush().map_err(|e| Error::io(format!("{op}: writing"), e))
}

/// Reads every array of the `.npz` archive in `r` (a file, or bytes in a `Cursor`), as
/// [`load_npz`] reads a file: in archive order, named as their members without `.npy`.
///
/// ```
/// use xp_array::io::npy::{read_npz, save_npz, HostDataRef};
/// use xp_array::DType;
///
/// let path = std::env::temp_dir().join(format!("read_npz_doc_{}.npz", std::process::id()));
/// let bytes: Vec<u8> = [1.5f32, 2.5].iter().flat_map(|v| v.to_le_bytes()).collect();
/// let x = HostDataRef { dtype: DType::F32, shape: &[2], bytes: &bytes };
/// save_npz(&path, &[("x", x)], true).unwrap();
/// let arrays = read_npz(std::fs::File::open(&path).unwrap()).unwrap();
/// std::fs::remove_file(&path).unwrap();
/// assert_eq!(arrays[0].0, "x");
/// assert_eq!((arrays[0].1.dtype, &arrays[0].1.shape[..]), (DType::F32, &[2usize][..]));
/// assert!(read_npz(std::io::Cursor::new(b"not a zip")).is_err());
/// ```
pub fn read_npz<R: Read + Seek>(mut r: R) -> Result<Vec<(String, HostData)>> {
    let op = "read_npz";
    let len = r.seek(std::io::SeekFrom::End(0)).map_err(|e| Error::io(format!("{op}: finding its size"), e))?;
    r.seek(std::io::SeekFrom::Start(0)).map_err(|e| Error::io(format!("{op}: seeking"), e))?;
    read_npz_from(r, len, op)
}

/// Reads every member of the zip archive in `r`, of `archive_len` bytes, as a `.npy` array.
fn read_npz_from<R: Read + Seek>(r: R, archive_len: u64, op: &str) -> Result<Vec<(String, HostData)>> {
    let mut archive = zip::ZipArchive::new(r).map_err(|e| zip_error(op, "reading the archive", e))?;
    let mut arrays = Vec::with_capacity(archive.len().min(1024));
    for i in 0..archive.len() {
        let member = archive.by_index(i).map_err(|e| zip_error(op, &format!("opening member {i}"), e))?;
        if member.is_dir() {
            continue;
        }
        let name = member.name().to_owned();
        // The sizes in the archive's directory are claims: buffers are sized no larger than
        // what the member's compressed bytes, which lie within the archive, can expand to.
        let size = member.size();
        let max_reserve = member.compressed_size().min(archive_len).saturating_mul(MAX_DEFLATE_RATIO);
        let data = read_npy_limited(member, Some(size), max_reserve.max(READ_STEP), &format!("{op}, member {name}"))?;
        let key = name.strip_suffix(".npy").unwrap_or(&name).to_owned();
        arrays.push((key, data));
    }
    Ok(arrays)
}

/// Writes `arrays` as a zip archive to `w` and returns `w`.
fn write_npz<W: Write + Seek>(w: W, arrays: &[(&str, HostDataRef<'_>)], compressed: bool, op: &str) -> Result<W> {
    let method = if compressed { zip::CompressionMethod::Deflated } else { zip::CompressionMethod::Stored };
    let mut zip = zip::ZipWriter::new(w);
    for (name, data) in arrays {
        let member = format!("{name}.npy");
        let member_op = format!("{op}, member {member}");
        let header = npy_header(data, &member_op)?;
        let size = (header.len() + data.bytes.len()) as u64;
        // Sizes of 4 GiB and over need ZIP64 fields, which must be reserved before the data;
        // deflate can grow incompressible data a little, hence the margin.
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(method)
            .large_file(size >= u64::from(u32::MAX) / 2);
        zip.start_file(member.as_str(), options).map_err(|e| zip_error(op, &format!("adding {member}"), e))?;
        zip.write_all(&header).map_err(|e| Error::io(format!("{member_op}: writing the header"), e))?;
        zip.write_all(data.bytes).map_err(|e| Error::io(format!("{member_op}: writing the data"), e))?;
    }
    zip.finish().map_err(|e| zip_error(op, "finishing the archive", e))
}

/// The xp error for a zip error while `doing`.
fn zip_error(op: &str, doing: &str, err: zip::result::ZipError) -> Error {
    match err {
        zip::result::ZipError::Io(e) => Error::io(format!("{op}: {doing}"), e),
        other => Error::value(op, format!("{doing}: {other}")),
    }
}

// ---------------------------------------------------------------------------------------------
// Reading

/// A `.npy` type string, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Descr {
    dtype: DType,
    /// The file's byte order is not [`HostData`]'s little-endian: every element is swapped.
    swap: bool,
}

/// Reads one `.npy` array from `r`. `available` is how many bytes `r` holds, when known: a
/// header that claims more data than that is refused before anything is allocated for it.
/// At most `max_reserve` bytes are allocated before the data arrives.
fn read_npy_limited<R: Read>(mut r: R, available: Option<u64>, max_reserve: u64, op: &str) -> Result<HostData> {
    let mut prefix = [0u8; 8];
    let got = read_up_to(&mut r, &mut prefix).map_err(|e| Error::io(format!("{op}: reading the magic"), e))?;
    let magic_len = got.min(MAGIC.len());
    if got < prefix.len() && prefix[..magic_len] == MAGIC[..magic_len] {
        return Err(truncated(op, "magic and version", prefix.len() as u64, got as u64));
    }
    if &prefix[..6] != MAGIC {
        return Err(Error::value(
            op,
            format!(
                "not a .npy file: it starts with {:?}, not \"\\x93NUMPY\" and a version",
                String::from_utf8_lossy(&prefix[..got])
            ),
        ));
    }
    let (major, minor) = (prefix[6], prefix[7]);
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => {
            return Err(Error::value(
                op,
                format!("unknown .npy format version {major}.{minor} (1.0, 2.0 and 3.0 are known)"),
            ))
        }
    };
    let mut len_buf = [0u8; 4];
    read_exactly(&mut r, &mut len_buf[..len_bytes], op, "the header length")?;
    let header_len = u32::from_le_bytes(len_buf) as usize;
    let mut header = Vec::new();
    let got = (&mut r)
        .take(header_len as u64)
        .read_to_end(&mut header)
        .map_err(|e| Error::io(format!("{op}: reading the header"), e))?;
    if got < header_len {
        return Err(truncated(op, "header", header_len as u64, got as u64));
    }
    let header: String = if major == 3 {
        String::from_utf8(header).map_err(|_| Error::value(op, "the format 3.0 header is not UTF-8"))?
    } else {
        header.iter().map(|&b| char::from(b)).collect() // Latin-1
    };
    let (descr, fortran_order, shape) = parse_header(&header, op)?;

    let count = element_count(&shape).ok_or_else(|| overflow(op, &shape, descr.dtype))?;
    let nbytes = count
        .checked_mul(descr.dtype.size())
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| overflow(op, &shape, descr.dtype))?;
    if let Some(available) = available {
        let left = available.saturating_sub((prefix.len() + len_bytes + header_len) as u64);
        if nbytes as u64 > left {
            return Err(truncated(op, "data", nbytes as u64, left));
        }
    }
    // Fits in usize: it is at most nbytes.
    let mut bytes = Vec::with_capacity((nbytes as u64).min(max_reserve) as usize);
    let got = (&mut r)
        .take(nbytes as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(format!("{op}: reading the data"), e))?;
    if got < nbytes {
        return Err(truncated(op, "data", nbytes as u64, got as u64));
    }

    if descr.swap {
        swap_elements(&mut bytes, descr.dtype);
    }
    if descr.dtype == DType::Bool {
        bytes.iter_mut().for_each(|b| *b = u8::from(*b != 0));
    }
    if fortran_order && shape.iter().filter(|&&d| d > 1).count() > 1 {
        bytes = fortran_to_c(&bytes, &shape, descr.dtype.size());
    }
    Ok(HostData { dtype: descr.dtype, shape, bytes })
}

/// The number of elements of `shape`, `None` on overflow (a zero-length axis gives 0 whatever
/// the others are).
fn element_count(shape: &[usize]) -> Option<usize> {
    if shape.contains(&0) {
        return Some(0);
    }
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

fn overflow(op: &str, shape: &[usize], dtype: DType) -> Error {
    Error::Overflow {
        op: op.to_owned(),
        reason: format!("an array of shape {shape:?} and dtype {dtype} has too many bytes"),
    }
}

fn truncated(op: &str, what: &str, expected: u64, found: u64) -> Error {
    Error::Io {
        context: op.to_owned(),
        message: format!("file truncated: the {what} needs {expected} bytes, only {found} are left"),
    }
}

/// Reads until `buf` is full or the reader ends; returns the bytes read.
fn read_up_to<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Fills `buf`, or fails with a truncation error naming `what`.
fn read_exactly<R: Read>(r: &mut R, buf: &mut [u8], op: &str, what: &str) -> Result<()> {
    let got = read_up_to(r, buf).map_err(|e| Error::io(format!("{op}: reading {what}"), e))?;
    if got < buf.len() {
        return Err(truncated(op, what, buf.len() as u64, got as u64));
    }
    Ok(())
}

/// Reverses the bytes of each element (of each half, for complex numbers).
fn swap_elements(bytes: &mut [u8], dtype: DType) {
    let unit = if dtype.is_complex() { dtype.size() / 2 } else { dtype.size() };
    if unit > 1 {
        bytes.chunks_exact_mut(unit).for_each(<[u8]>::reverse);
    }
}

/// The C-order copy of `src`, which holds an array of `shape` in Fortran order.
fn fortran_to_c(src: &[u8], shape: &[usize], elem: usize) -> Vec<u8> {
    let mut dst = vec![0u8; src.len()];
    if src.is_empty() || shape.is_empty() {
        dst.copy_from_slice(src);
        return dst;
    }
    // Fortran strides, in elements: the first axis is contiguous.
    let mut strides = Vec::with_capacity(shape.len());
    let mut acc = 1;
    for &d in shape {
        strides.push(acc);
        acc *= d;
    }
    let last = shape.len() - 1;
    let (inner, inner_stride) = (shape[last], strides[last]);
    let mut index = vec![0usize; shape.len()];
    let mut base = 0; // the Fortran offset of `index`, whose last entry stays 0
    let mut out = dst.chunks_exact_mut(elem);
    loop {
        for j in 0..inner {
            let at = (base + j * inner_stride) * elem;
            // The chunk exists: dst has exactly as many elements as the loops visit.
            if let Some(chunk) = out.next() {
                chunk.copy_from_slice(&src[at..at + elem]);
            }
        }
        // Odometer over the outer axes, last fastest.
        let mut axis = last;
        loop {
            if axis == 0 {
                return dst;
            }
            axis -= 1;
            index[axis] += 1;
            base += strides[axis];
            if index[axis] < shape[axis] {
                break;
            }
            base -= strides[axis] * shape[axis];
            index[axis] = 0;
        }
    }
}

/// The `descr`, `fortran_order` and `shape` of a `.npy` header.
fn parse_header(header: &str, op: &str) -> Result<(Descr, bool, Vec<usize>)> {
    let bad = |reason: String| Error::value(op, format!("bad .npy header {:?}: {reason}", header.trim_end()));
    let mut parser = LiteralParser { text: header.as_bytes(), pos: 0 };
    let dict = parser.parse_value(0).map_err(&bad)?;
    parser.skip_space();
    if parser.pos != parser.text.len() {
        return Err(bad(format!("unexpected text after the dict at byte {}", parser.pos)));
    }
    let Literal::Dict(items) = dict else {
        return Err(bad("the header is not a dict".into()));
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    for (key, value) in items {
        let slot = match &key {
            Literal::Str(k) if k == "descr" => &mut descr,
            Literal::Str(k) if k == "fortran_order" => &mut fortran,
            Literal::Str(k) if k == "shape" => &mut shape,
            other => return Err(bad(format!("unexpected key {other}"))),
        };
        if slot.replace(value).is_some() {
            return Err(bad(format!("key {key} appears twice")));
        }
    }
    let (Some(descr), Some(fortran), Some(shape)) = (descr, fortran, shape) else {
        return Err(bad("it needs the keys 'descr', 'fortran_order' and 'shape'".into()));
    };
    let Literal::Bool(fortran) = fortran else {
        return Err(bad(format!("'fortran_order' is {fortran}, not True or False")));
    };
    let Literal::Tuple(dims) = shape else {
        return Err(bad(format!("'shape' is {shape}, not a tuple")));
    };
    let shape = dims
        .iter()
        .map(|d| match d {
            Literal::Int(n) => usize::try_from(*n).map_err(|_| {
                if *n < 0 {
                    bad(format!("negative dimension {n}"))
                } else {
                    Error::Overflow { op: op.to_owned(), reason: format!("dimension {n} does not fit in usize") }
                }
            }),
            other => Err(bad(format!("dimension {other} is not an integer"))),
        })
        .collect::<Result<Vec<_>>>()?;
    let descr = match descr {
        Literal::Str(s) => parse_descr(&s, op)?,
        Literal::List(_) => {
            return Err(Error::UnsupportedDType {
                op: op.to_owned(),
                dtypes: vec![],
                detail: format!("{descr} (a structured dtype; xp arrays hold one numeric type)"),
            })
        }
        other => return Err(bad(format!("'descr' is {other}, not a type string"))),
    };
    Ok((descr, fortran, shape))
}

/// Decodes a type string such as `<f4`.
fn parse_descr(descr: &str, op: &str) -> Result<Descr> {
    let unsupported =
        |why: &str| Error::UnsupportedDType { op: op.to_owned(), dtypes: vec![], detail: format!("'{descr}' ({why})") };
    let (order, code) = match descr.as_bytes().first() {
        Some(c @ (b'<' | b'>' | b'=' | b'|')) => (Some(*c), &descr[1..]),
        _ => (None, descr),
    };
    let dtype = match code {
        "b1" | "?" => DType::Bool,
        "i1" | "b" => DType::I8,
        "i2" | "h" => DType::I16,
        "i4" | "i" => DType::I32,
        "i8" | "q" => DType::I64,
        "u1" | "B" => DType::U8,
        "u2" | "H" => DType::U16,
        "u4" | "I" => DType::U32,
        "u8" | "Q" => DType::U64,
        "f2" | "e" => DType::F16,
        "f4" | "f" => DType::F32,
        "f8" | "d" => DType::F64,
        "c8" | "F" => DType::C64,
        "c16" | "D" => DType::C128,
        "O" | "O8" => return Err(unsupported("object array: pickled Python objects, which xp does not read")),
        "V2" => {
            return Err(unsupported(
                "a raw 2-byte void type; bfloat16 arrays saved through ml_dtypes look like this, \
                 but .npy cannot say so: save them as float32",
            ))
        }
        _ => {
            let what = match code.as_bytes().first() {
                Some(b'V') => "a raw void type",
                Some(b'S' | b'a') => "a byte string type",
                Some(b'U') => "a unicode string type",
                Some(b'M' | b'm') => "a datetime type",
                Some(b'f' | b'c' | b'g' | b'G') => "a float width xp does not have",
                _ => "not a NumPy type string xp knows",
            };
            return Err(unsupported(what));
        }
    };
    let swap = match order {
        Some(b'<') => false,
        Some(b'>') => dtype.size() > 1,
        Some(b'|') if dtype.size() == 1 => false,
        Some(b'|') => {
            return Err(Error::value(
                op,
                format!("type string '{descr}' says byte order is not applicable to a {}-byte type", dtype.size()),
            ))
        }
        // `=` and no mark mean the reading machine's order, as in NumPy.
        _ => cfg!(target_endian = "big") && dtype.size() > 1,
    };
    Ok(Descr { dtype, swap })
}

/// A Python literal, as far as `.npy` headers use them.
#[derive(Debug, Clone, PartialEq)]
enum Literal {
    Str(String),
    Int(i128),
    Bool(bool),
    None,
    Tuple(Vec<Literal>),
    List(Vec<Literal>),
    Dict(Vec<(Literal, Literal)>),
}

impl std::fmt::Display for Literal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fn seq(f: &mut std::fmt::Formatter<'_>, items: &[Literal], open: &str, close: &str) -> std::fmt::Result {
            f.write_str(open)?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{item}")?;
            }
            if open == "(" && items.len() == 1 {
                f.write_str(",")?;
            }
            f.write_str(close)
        }
        match self {
            Literal::Str(s) => write!(f, "'{s}'"),
            Literal::Int(n) => write!(f, "{n}"),
            Literal::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            Literal::None => f.write_str("None"),
            Literal::Tuple(items) => seq(f, items, "(", ")"),
            Literal::List(items) => seq(f, items, "[", "]"),
            Literal::Dict(items) => {
                f.write_str("{")?;
                for (i, (k, v)) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// A recursive-descent parser for the Python literals of a `.npy` header. Errors are plain
/// text; the caller adds the header and the operation.
struct LiteralParser<'a> {
    text: &'a [u8],
    pos: usize,
}

impl LiteralParser<'_> {
    fn skip_space(&mut self) {
        while self.text.get(self.pos).is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn error(&self, what: &str) -> String {
        match self.peek() {
            Some(c) => format!("{what} at byte {} (found {:?})", self.pos, char::from(c)),
            None => format!("{what} at the end of the header"),
        }
    }

    fn parse_value(&mut self, depth: usize) -> Result<Literal, String> {
        if depth > MAX_LITERAL_DEPTH {
            return Err(format!("literals nested deeper than {MAX_LITERAL_DEPTH} levels"));
        }
        self.skip_space();
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_space();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        return Ok(Literal::Dict(items));
                    }
                    let key = self.parse_value(depth + 1)?;
                    self.skip_space();
                    if self.peek() != Some(b':') {
                        return Err(self.error("expected ':'"));
                    }
                    self.pos += 1;
                    let value = self.parse_value(depth + 1)?;
                    items.push((key, value));
                    if !self.separator(b'}')? {
                        return Ok(Literal::Dict(items));
                    }
                }
            }
            Some(open @ (b'(' | b'[')) => {
                let close = if open == b'(' { b')' } else { b']' };
                self.pos += 1;
                let mut items = Vec::new();
                let mut trailing_comma = false;
                loop {
                    self.skip_space();
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        break;
                    }
                    items.push(self.parse_value(depth + 1)?);
                    trailing_comma = self.separator(close)?;
                    if !trailing_comma {
                        break;
                    }
                }
                Ok(match (open, items.len(), trailing_comma) {
                    (b'[', ..) => Literal::List(items),
                    // `(x)` is `x` in Python, not a tuple.
                    (_, 1, false) => items.remove(0),
                    _ => Literal::Tuple(items),
                })
            }
            Some(quote @ (b'\'' | b'"')) => self.parse_string(quote),
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => self.parse_int(),
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
                    self.pos += 1;
                }
                match &self.text[start..self.pos] {
                    b"True" => Ok(Literal::Bool(true)),
                    b"False" => Ok(Literal::Bool(false)),
                    b"None" => Ok(Literal::None),
                    word => Err(format!("unexpected name {:?} at byte {start}", String::from_utf8_lossy(word))),
                }
            }
            _ => Err(self.error("expected a value")),
        }
    }

    /// After an item: consumes `,` (returns true) or the closing `close` (returns false).
    fn separator(&mut self, close: u8) -> Result<bool, String> {
        self.skip_space();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(false)
            }
            _ => Err(self.error(&format!("expected ',' or {:?}", char::from(close)))),
        }
    }

    fn parse_string(&mut self, quote: u8) -> Result<Literal, String> {
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return Err(format!("string starting at byte {start} never ends")),
                Some(c) if c == quote => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let escaped = self.peek().ok_or_else(|| format!("string starting at byte {start} never ends"))?;
                    out.push(match escaped {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'0' => 0,
                        other => other,
                    });
                    self.pos += 1;
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
        // The input is a `&str` and only whole ASCII bytes were dropped, so this cannot fail.
        String::from_utf8(out).map(Literal::Str).map_err(|_| format!("string at byte {start} is not UTF-8"))
    }

    fn parse_int(&mut self) -> Result<Literal, String> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        let digits = self.pos;
        let mut value: i128 = 0;
        while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(i128::from(c - b'0')))
                .ok_or_else(|| format!("integer at byte {start} is too large"))?;
            self.pos += 1;
        }
        if self.pos == digits {
            return Err(self.error("expected digits"));
        }
        // Python 2 wrote long integers as `3L`.
        if matches!(self.peek(), Some(b'L' | b'l')) {
            self.pos += 1;
        }
        Ok(Literal::Int(if negative { -value } else { value }))
    }
}

// ---------------------------------------------------------------------------------------------
// Writing

/// The type string this module writes for `dtype`.
fn descr_of(dtype: DType, op: &str) -> Result<String> {
    match dtype {
        DType::BF16 => Err(Error::UnsupportedDType {
            op: format!("{op} (.npy has no type string for bfloat16; cast to float32 to save)"),
            dtypes: vec![dtype],
            detail: String::new(),
        }),
        d if d.size() == 1 => Ok(format!("|{}", d.npy_code())),
        d => Ok(format!("<{}", d.npy_code())),
    }
}

/// Magic, version, header length and header for `data`, laid out as `numpy.save` does.
fn npy_header(data: &HostDataRef<'_>, op: &str) -> Result<Vec<u8>> {
    let descr = descr_of(data.dtype, op)?;
    let expected = element_count(data.shape)
        .and_then(|n| n.checked_mul(data.dtype.size()))
        .ok_or_else(|| overflow(op, data.shape, data.dtype))?;
    if data.bytes.len() != expected {
        return Err(Error::value(
            op,
            format!(
                "{} bytes given for shape {:?} of {} (it needs {expected})",
                data.bytes.len(),
                data.shape,
                data.dtype
            ),
        ));
    }
    let shape = match data.shape {
        [] => "()".to_owned(),
        [d] => format!("({d},)"),
        dims => format!("({})", dims.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    if let Some(first) = data.shape.first() {
        let digits = first.to_string().len();
        dict.extend(std::iter::repeat_n(' ', GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits)));
    }
    // The dict, padding and a final newline; numpy pads a full ARRAY_ALIGN when already aligned.
    let wrap = |len_bytes: usize| {
        let unpadded = MAGIC.len() + 2 + len_bytes + dict.len() + 1;
        dict.len() + 1 + ARRAY_ALIGN - unpadded % ARRAY_ALIGN
    };
    let (version, header_len) = match wrap(2) {
        len if len <= usize::from(u16::MAX) => (1u8, len),
        _ => (2u8, wrap(4)),
    };
    let header_len32 = u32::try_from(header_len).map_err(|_| {
        Error::value(op, format!("a header of {header_len} bytes does not fit in any .npy format version"))
    })?;
    let mut out = Vec::with_capacity(MAGIC.len() + 6 + header_len);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header_len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&header_len32.to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(out.len() + header_len - dict.len() - 1, b' ');
    out.push(b'\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    /// `n` elements of `dtype` whose bytes differ from each other (bools stay 0 or 1).
    fn sample(dtype: DType, shape: &[usize]) -> HostData {
        let n = element_count(shape).unwrap();
        let bytes = (0..n * dtype.size())
            .map(|i| if dtype == DType::Bool { (i % 3 == 0) as u8 } else { (i * 7 + 3) as u8 })
            .collect();
        HostData { dtype, shape: shape.to_vec(), bytes }
    }

    fn to_bytes(data: &HostData) -> Vec<u8> {
        let mut out = Vec::new();
        write_npy(&mut out, &data.view()).unwrap();
        out
    }

    fn header_with(dict: &str) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(dict.len() as u16 + 1).to_le_bytes());
        out.extend_from_slice(dict.as_bytes());
        out.push(b'\n');
        out
    }

    fn numeric() -> impl Iterator<Item = DType> {
        DType::ALL.into_iter().filter(|&d| d != DType::BF16)
    }

    #[test]
    fn every_dtype_round_trips() {
        for dtype in numeric() {
            for shape in [&[2usize, 3][..], &[], &[0], &[4, 0, 2], &[5]] {
                let data = sample(dtype, shape);
                let bytes = to_bytes(&data);
                assert_eq!(bytes.len() % ARRAY_ALIGN, data.bytes.len() % ARRAY_ALIGN, "{dtype} {shape:?}");
                assert_eq!(read_npy(Cursor::new(&bytes)).unwrap(), data, "{dtype} {shape:?}");
            }
        }
    }

    #[test]
    fn header_matches_numpy_layout() {
        let bytes = to_bytes(&sample(DType::F32, &[2, 3]));
        let text = String::from_utf8_lossy(&bytes[10..128]);
        assert_eq!(&bytes[..10], b"\x93NUMPY\x01\x00\x76\x00");
        assert!(text.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
        assert!(text.ends_with(" \n"));
        let scalar = to_bytes(&sample(DType::Bool, &[]));
        assert!(String::from_utf8_lossy(&scalar).contains("'descr': '|b1', 'fortran_order': False, 'shape': (), }"));
    }

    #[test]
    fn many_axes_need_format_2() {
        let shape = vec![1usize; 30_000];
        let data = sample(DType::I16, &shape);
        let bytes = to_bytes(&data);
        assert_eq!(&bytes[6..8], &[2, 0]);
        assert_eq!(bytes.iter().position(|&b| b == b'\n').unwrap() % ARRAY_ALIGN, ARRAY_ALIGN - 1);
        assert_eq!(read_npy(Cursor::new(&bytes)).unwrap(), data);
    }

    #[test]
    fn format_3_header_is_utf8() {
        let v3 = |dict: &[u8]| {
            let mut file = MAGIC.to_vec();
            file.extend_from_slice(&[3, 0]);
            file.extend_from_slice(&(dict.len() as u32).to_le_bytes());
            file.extend_from_slice(dict);
            file.extend_from_slice(&[1, 0, 2, 0]);
            file
        };
        let data = read_npy(Cursor::new(v3(b"{'shape': (2,), 'fortran_order': False, 'descr': '<u2'}"))).unwrap();
        assert_eq!((data.dtype, data.bytes), (DType::U16, vec![1, 0, 2, 0]));
        // Extra keys are refused, as NumPy does; the UTF-8 survives into the message.
        let err =
            read_npy(Cursor::new(v3("{'shape': (2,), 'fortran_order': False, 'descr': '<u2', 'é': 1}".as_bytes())))
                .unwrap_err();
        assert!(err.to_string().contains("unexpected key 'é'"), "{err}");
        let err =
            read_npy(Cursor::new(v3(b"{'shape': (2,), 'fortran_order': False, 'descr': '<u2\xff'}"))).unwrap_err();
        assert!(err.to_string().contains("not UTF-8"), "{err}");
    }

    #[test]
    fn header_in_any_key_order_with_spaces_and_trailing_commas() {
        let mut file = header_with("{ 'shape' : ( 2 , 1L , ) ,\"fortran_order\":False,'descr':'>i2',}   ");
        file.extend_from_slice(&[0, 1, 1, 2]);
        let data = read_npy(Cursor::new(&file)).unwrap();
        assert_eq!((data.dtype, data.shape, data.bytes), (DType::I16, vec![2, 1], vec![1, 0, 2, 1]));
    }

    #[test]
    fn big_endian_complex_swaps_each_half() {
        let mut file = header_with("{'descr': '>c8', 'fortran_order': False, 'shape': ()}");
        file.extend_from_slice(&1.5f32.to_be_bytes());
        file.extend_from_slice(&(-2.0f32).to_be_bytes());
        let data = read_npy(Cursor::new(&file)).unwrap();
        assert_eq!(data.bytes[..4], 1.5f32.to_le_bytes());
        assert_eq!(data.bytes[4..], (-2.0f32).to_le_bytes());
    }

    #[test]
    fn fortran_order_is_transposed() {
        // [[0, 1, 2], [3, 4, 5]] stored column by column.
        let mut file = header_with("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }");
        file.extend_from_slice(&[0, 3, 1, 4, 2, 5]);
        assert_eq!(read_npy(Cursor::new(&file)).unwrap().bytes, vec![0, 1, 2, 3, 4, 5]);
        // Three axes, two-byte elements: element (i, j, k) = 100i + 10j + k.
        let shape = [2usize, 3, 4];
        let mut file = header_with("{'descr': '<u2', 'fortran_order': True, 'shape': (2, 3, 4), }");
        for k in 0..4u16 {
            for j in 0..3u16 {
                for i in 0..2u16 {
                    file.extend_from_slice(&(100 * i + 10 * j + k).to_le_bytes());
                }
            }
        }
        let data = read_npy(Cursor::new(&file)).unwrap();
        let expected: Vec<u8> = (0..2u16)
            .flat_map(|i| (0..3u16).flat_map(move |j| (0..4u16).map(move |k| 100 * i + 10 * j + k)))
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!((data.shape.as_slice(), data.bytes), (&shape[..], expected));
    }

    #[test]
    fn bools_read_as_zero_or_one() {
        let mut file = header_with("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }");
        file.extend_from_slice(&[0, 7, 1]);
        assert_eq!(read_npy(Cursor::new(&file)).unwrap().bytes, vec![0, 1, 1]);
    }

    #[test]
    fn native_and_not_applicable_orders() {
        for descr in ["=f4", "f4", "<f", "|u1", ">u1", "?"] {
            let file = header_with(&format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (0,), }}"));
            assert!(read_npy(Cursor::new(&file)).is_ok(), "{descr}");
        }
        let file = header_with("{'descr': '|f4', 'fortran_order': False, 'shape': (0,), }");
        assert_eq!(read_npy(Cursor::new(&file)).unwrap_err().kind(), "Value");
    }

    #[test]
    fn truncated_files_are_io_errors() {
        let bytes = to_bytes(&sample(DType::F64, &[3, 4]));
        for cut in [0usize, 3, 7, 8, 9, 40, bytes.len() - 96, bytes.len() - 1] {
            let err = read_npy(Cursor::new(&bytes[..cut])).unwrap_err();
            assert_eq!(err.kind(), "Io", "cut at {cut}: {err}");
            assert!(err.to_string().contains("file truncated"), "cut at {cut}: {err}");
        }
    }

    #[test]
    fn bad_magic_and_version() {
        let err = read_npy(Cursor::new(b"PK\x03\x04 not npy at all")).unwrap_err();
        assert!(err.to_string().contains("not a .npy file"), "{err}");
        let mut bytes = to_bytes(&sample(DType::U8, &[2]));
        bytes[6] = 4;
        let err = read_npy(Cursor::new(&bytes)).unwrap_err();
        assert!(err.to_string().contains("version 4.0"), "{err}");
    }

    #[test]
    fn unsupported_types() {
        for (descr, says) in [
            ("'|O'", "object"),
            ("[('x', '<f4'), ('y', '<i4')]", "structured"),
            ("'<U8'", "unicode"),
            ("'<M8[ns]'", "datetime"),
            ("'<f16'", "float width"),
            ("'<V2'", "bfloat16"),
            ("'<x9'", "not a NumPy type string"),
        ] {
            let file = header_with(&format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (1,), }}"));
            let err = read_npy(Cursor::new(&file)).unwrap_err();
            assert!(matches!(err, Error::UnsupportedDType { .. }), "{descr}: {err}");
            assert!(err.to_string().contains(says), "{descr}: {err}");
        }
    }

    #[test]
    fn bfloat16_is_refused_on_write() {
        let data = sample(DType::BF16, &[2]);
        let err = write_npy(Vec::new(), &data.view()).unwrap_err();
        assert!(matches!(err, Error::UnsupportedDType { .. }), "{err}");
        assert!(err.to_string().contains("bfloat16") && err.to_string().contains(".npy"), "{err}");
    }

    #[test]
    fn lying_shapes_allocate_nothing() {
        // Far more data than the 8 bytes present, and a product that overflows usize.
        let mut file = header_with("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000000000), }");
        file.extend_from_slice(&[0; 8]);
        let err = read_npy(Cursor::new(&file)).unwrap_err();
        assert_eq!(err.kind(), "Io", "{err}");
        let file = header_with("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }");
        assert_eq!(read_npy(Cursor::new(&file)).unwrap_err().kind(), "Overflow");
        // With a zero axis the others may be anything.
        let file = header_with("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 0), }");
        assert_eq!(read_npy(Cursor::new(&file)).unwrap().bytes, Vec::<u8>::new());
    }

    #[test]
    fn malformed_headers_are_value_errors() {
        for dict in [
            "",
            "{",
            "[1, 2]",
            "{'descr': '<f4', 'fortran_order': False}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (2,)}",
            "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': __import__('os')}",
            "{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}",
        ] {
            let err = read_npy(Cursor::new(header_with(dict))).unwrap_err();
            assert_eq!(err.kind(), "Value", "{dict:?}: {err}");
        }
        let deep = format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': {}2{}}}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        assert_eq!(read_npy(Cursor::new(header_with(&deep))).unwrap_err().kind(), "Value");
        let huge = "{'descr': '<f4', 'fortran_order': False, 'shape': (999999999999999999999999999999999999999999,)}";
        assert_eq!(read_npy(Cursor::new(header_with(huge))).unwrap_err().kind(), "Value");
    }

    #[test]
    fn wrong_byte_count_is_refused_on_write() {
        let data = HostDataRef { dtype: DType::F32, shape: &[2, 3], bytes: &[0; 20] };
        let err = write_npy(Vec::new(), &data).unwrap_err();
        assert!(err.to_string().contains("20 bytes given for shape [2, 3] of float32 (it needs 24)"), "{err}");
    }

    #[test]
    fn reader_stops_after_the_array() {
        let a = sample(DType::I32, &[3]);
        let b = sample(DType::C128, &[1, 2]);
        let mut stream = to_bytes(&a);
        stream.extend(to_bytes(&b));
        let mut cursor = Cursor::new(stream);
        assert_eq!(read_npy(&mut cursor).unwrap(), a);
        assert_eq!(read_npy(&mut cursor).unwrap(), b);
    }

    #[test]
    fn npz_round_trip_stored_and_deflated() {
        let arrays = [
            ("x", sample(DType::F64, &[3, 2])),
            ("nested/name", sample(DType::Bool, &[4])),
            ("scalar", sample(DType::C64, &[])),
            ("empty", sample(DType::U16, &[0, 5])),
        ];
        let refs: Vec<_> = arrays.iter().map(|(n, d)| (*n, d.view())).collect();
        for compressed in [false, true] {
            let archive = write_npz(Cursor::new(Vec::new()), &refs, compressed, "test").unwrap().into_inner();
            let back = read_npz(Cursor::new(archive)).unwrap();
            let expected: Vec<_> = arrays.iter().map(|(n, d)| (n.to_string(), d.clone())).collect();
            assert_eq!(back, expected, "compressed: {compressed}");
        }
    }

    #[test]
    fn npz_member_errors_name_the_member() {
        let good = sample(DType::I8, &[2]);
        let archive = write_npz(Cursor::new(Vec::new()), &[("ok", good.view())], false, "test").unwrap().into_inner();
        // Corrupt the member's magic inside the stored archive.
        let mut broken = archive.clone();
        let at = broken.windows(6).position(|w| w == MAGIC).unwrap();
        broken[at] = b'X';
        let err = read_npz(Cursor::new(broken)).unwrap_err();
        assert!(err.to_string().contains("member ok.npy") && err.to_string().contains("not a .npy file"), "{err}");
        let err = read_npz(Cursor::new(&archive[..archive.len() / 2])).unwrap_err();
        assert_eq!(err.kind(), "Value", "{err}");
        let twice = [("a", good.view()), ("a", good.view())];
        let err = write_npz(Cursor::new(Vec::new()), &twice, true, "test").unwrap_err();
        assert!(err.to_string().contains("a.npy"), "{err}");
    }
}
