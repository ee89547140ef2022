//! Views from anywhere: chains of slicing (integers, ranges with any start, stop and step, new
//! axes, ellipses), permutations, broadcasts, reshapes, squeezes and new dimensions on layouts,
//! and `getitem` on arrays (of the null device). Each step is a view or an error, never a panic;
//! every element of every view lies inside the buffer it views.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use xp_array::indexing::IndexItem;
use xp_array::{Array, Layout, SliceArg};
use xp_backend_api::null::NullDevice;
use xp_backend_api::DynDevice;

struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }
    /// Small numbers mostly, the extremes sometimes.
    fn int(&mut self) -> Option<isize> {
        let b = self.byte()?;
        Some(match b {
            0..=199 => b as isize - 100,
            200..=219 => isize::MAX - (b - 200) as isize,
            220..=239 => isize::MIN + (b - 220) as isize,
            _ => {
                let mut v = [0u8; 8];
                for x in &mut v {
                    *x = self.byte()?;
                }
                isize::from_le_bytes(v)
            }
        })
    }
    fn opt(&mut self) -> Option<Option<isize>> {
        Some(if self.byte()? % 3 == 0 { None } else { Some(self.int()?) })
    }
    fn shape(&mut self) -> Option<Vec<usize>> {
        let rank = self.byte()? as usize % 7;
        (0..rank).map(|_| self.byte().map(|b| b as usize % 6)).collect()
    }
    fn slice_args(&mut self) -> Option<Vec<SliceArg>> {
        let n = self.byte()? as usize % 6;
        (0..n)
            .map(|_| {
                Some(match self.byte()? % 4 {
                    0 => SliceArg::Index(self.int()?),
                    1 => SliceArg::Range { start: self.opt()?, stop: self.opt()?, step: self.opt()? },
                    2 => SliceArg::NewAxis,
                    _ => SliceArg::Ellipsis,
                })
            })
            .collect()
    }
}

/// Every element of `l` lies in a buffer of `len` elements: by the extent, and one by one for
/// small views.
fn inside(l: &Layout, len: usize, what: &str) {
    if l.size() == 0 {
        return;
    }
    let (lo, hi) = l.extent();
    assert!(lo < hi && hi <= len, "{what}: extent {lo}..{hi} of a buffer of {len}: {l:?}");
    if l.size() <= 4096 {
        let mut index = vec![0usize; l.ndim()];
        for _ in 0..l.size() {
            let off: isize =
                l.offset() as isize + index.iter().zip(l.strides()).map(|(&i, &s)| i as isize * s).sum::<isize>();
            assert!((0..len as isize).contains(&off), "{what}: element {index:?} at {off} of {len}: {l:?}");
            for d in (0..index.len()).rev() {
                index[d] += 1;
                if index[d] < l.shape()[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }
}

fn device() -> &'static Arc<dyn DynDevice> {
    static D: OnceLock<Arc<dyn DynDevice>> = OnceLock::new();
    D.get_or_init(|| Arc::new(NullDevice::new(1 << 30, None).expect("a null device")))
}

fn run(mut input: Input<'_>) -> Option<()> {
    let shape = input.shape()?;
    let mut l = Layout::contiguous("fuzz", &shape).ok()?;
    let len = l.size();
    let array = Array::from_slice_on(device(), &vec![0u8; len], &shape).expect("a small array");
    for _ in 0..8 {
        let next = match input.byte()? % 8 {
            0 => l.slice("fuzz", &input.slice_args()?).ok(),
            1 => {
                let axes: Option<Vec<isize>> = (0..l.ndim()).map(|_| input.int()).collect();
                l.permute("fuzz", &axes?).ok()
            }
            2 => l.broadcast_to("fuzz", &input.shape()?).ok(),
            3 => l.reshaped(&input.shape()?),
            4 => {
                let axis = input.int()?;
                let axes = [axis / 2];
                l.squeeze("fuzz", if axis % 2 == 0 { None } else { Some(&axes[..]) }).ok()
            }
            5 => l.expand_dims("fuzz", input.int()?).ok(),
            6 => Some(l.transposed()),
            _ => {
                let items: Vec<IndexItem<'_>> = input
                    .slice_args()?
                    .into_iter()
                    .map(|a| match a {
                        SliceArg::Index(i) => IndexItem::Int(i),
                        SliceArg::Range { start, stop, step } => IndexItem::Slice(start, stop, step),
                        SliceArg::NewAxis => IndexItem::NewAxis,
                        SliceArg::Ellipsis => IndexItem::Ellipsis,
                    })
                    .collect();
                if let Ok(view) = array.getitem(&items) {
                    inside(view.layout(), len, "getitem");
                }
                None
            }
        };
        if let Some(n) = next {
            inside(&n, len, "a layout step");
            l = n;
        }
    }
    Some(())
}

fuzz_target!(|data: &[u8]| {
    run(Input(data));
});
