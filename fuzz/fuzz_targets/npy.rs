//! `.npy` and `.npz` bytes from anywhere: reading never panics, hangs or allocates past what the
//! bytes can hold; what reads as an array holds as many bytes as its shape says, and written
//! back it reads the same.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use xp_array::io::npy::{read_npy, read_npz, write_npy, HostData};

fn round_trips(a: &HostData) {
    let n: usize = a.shape.iter().product();
    assert_eq!(a.bytes.len(), n * a.dtype.size(), "{:?} {:?}", a.dtype, a.shape);
    let mut file = Vec::new();
    write_npy(&mut file, &a.view()).expect("an array read can be written");
    let back = read_npy(&file[..]).expect("an array written can be read");
    assert_eq!(&back, a);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(a) = read_npy(data) {
        round_trips(&a);
    }
    if let Ok(arrays) = read_npz(Cursor::new(data)) {
        for (_, a) in &arrays {
            round_trips(a);
        }
    }
});
