//! `einsum` subscripts from anywhere, over operands of a few small shapes on the null device
//! (whose kernels run nothing: this target is about the subscript grammar and the shape logic).
//! Any text is an answer or an error, never a panic; an answer's shape has a dimension per
//! output label, each the size its label has in the operands.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use xp_array::linalg::einsum;
use xp_array::Array;
use xp_backend_api::null::NullDevice;
use xp_backend_api::DynDevice;

fn device() -> &'static Arc<dyn DynDevice> {
    static D: OnceLock<Arc<dyn DynDevice>> = OnceLock::new();
    D.get_or_init(|| Arc::new(NullDevice::new(1 << 30, None).expect("a null device")))
}

fuzz_target!(|data: &[u8]| {
    // Up to three operands; byte k < 3 gives operand k's rank (0..=12) in its low nibble and
    // its axes' sizes (1..=3) from the high bits; the rest is the subscripts.
    if data.len() < 3 {
        return;
    }
    let (head, text) = data.split_at(3);
    let Ok(subscripts) = std::str::from_utf8(text) else { return };
    let count = (head[0] as usize % 3) + 1;
    let arrays: Vec<Array> = head[..count]
        .iter()
        .map(|&b| {
            let rank = (b & 0x0f) as usize % 13;
            let shape: Vec<usize> = (0..rank).map(|i| 1 + ((b as usize >> 4) + i) % 3).collect();
            let n: usize = shape.iter().product();
            Array::from_slice_on(device(), &vec![1.0f32; n], &shape).expect("a small array")
        })
        .collect();
    let refs: Vec<&Array> = arrays.iter().collect();
    if let Ok(out) = einsum(subscripts, &refs) {
        assert!(out.ndim() <= arrays.iter().map(|a| a.ndim()).sum::<usize>(), "{subscripts:?}");
        assert!(out.shape().iter().all(|&n| (1..=3).contains(&n)), "{subscripts:?} -> {:?}", out.shape());
    }
});
