//! The memory pool against a model of it: random sequences of allocations (on three streams,
//! of every size class), frees in any order, uses noted on other streams, limits set and
//! lifted, and `free_all_blocks`, on the null backend. After every step the pool's counts are
//! the model's, live buffers never overlap, growth respects the limit, and a refusal is an
//! `OutOfMemory` that the limit explains and that changes nothing in use; at the end every byte
//! goes back to the device.

use std::sync::Arc;

use proptest::prelude::*;
use xp_backend_api::memory::ALIGNMENT;
use xp_backend_api::null::NullDevice;
use xp_backend_api::{Buffer, Device, Error, Stream};

#[derive(Debug, Clone)]
enum Step {
    Alloc { bytes: usize, stream: usize },
    Free(usize),
    Use { buffer: usize, stream: usize },
    FreeAll,
    Limit(Option<usize>),
}

fn step() -> impl Strategy<Value = Step> {
    let bytes = prop_oneof![
        4 => 0usize..8192,
        3 => 8192usize..(3 << 19),
        1 => (2usize << 20)..(6 << 20),
    ];
    prop_oneof![
        6 => (bytes, 0usize..3).prop_map(|(bytes, stream)| Step::Alloc { bytes, stream }),
        4 => any::<usize>().prop_map(Step::Free),
        2 => (any::<usize>(), 0usize..3).prop_map(|(buffer, stream)| Step::Use { buffer, stream }),
        1 => Just(Step::FreeAll),
        1 => prop_oneof![Just(None), (4usize..24).prop_map(|mib| Some(mib << 20))].prop_map(Step::Limit),
    ]
}

fn rounded(bytes: usize) -> usize {
    bytes.max(1).div_ceil(ALIGNMENT) * ALIGNMENT
}

fn check(steps: &[Step]) {
    let d = NullDevice::new(1 << 30, None).unwrap();
    let pool = d.memory_pool().clone();
    let streams: Vec<Arc<dyn Stream>> = vec![d.default_stream(), d.new_stream().unwrap(), d.new_stream().unwrap()];
    let mut live: Vec<(Buffer, usize)> = Vec::new();
    let mut limit: Option<usize> = None;
    for (i, s) in steps.iter().enumerate() {
        let total_before = pool.total_bytes();
        let used_before = pool.used_bytes();
        match s {
            Step::Alloc { bytes, stream } => match pool.alloc(*bytes, &streams[*stream]) {
                Ok(b) => {
                    assert!(b.len() == *bytes, "step {i}: {s:?} gave {} bytes", b.len());
                    if let Some(l) = limit {
                        assert!(
                            pool.total_bytes() <= total_before.max(l),
                            "step {i}: {s:?} grew the pool to {} past the limit {l}",
                            pool.total_bytes()
                        );
                    }
                    live.push((b, rounded(*bytes)));
                }
                Err(Error::OutOfMemory { .. }) => {
                    let l = limit.unwrap_or_else(|| panic!("step {i}: {s:?} refused without a limit"));
                    assert_eq!(pool.used_bytes(), used_before, "step {i}: a refusal changed what is in use");
                    // The pool gave back what it had cached before refusing: what it still
                    // holds plus the request does not fit under the limit.
                    assert!(
                        pool.total_bytes() + rounded(*bytes) > l,
                        "step {i}: {s:?} refused with {} held and a limit of {l}",
                        pool.total_bytes()
                    );
                }
                Err(e) => panic!("step {i}: {s:?}: {e}"),
            },
            Step::Free(k) => {
                if !live.is_empty() {
                    let k = k % live.len();
                    drop(live.swap_remove(k));
                }
            }
            Step::Use { buffer, stream } => {
                if !live.is_empty() {
                    live[buffer % live.len()].0.note_use(&streams[*stream]);
                }
            }
            Step::FreeAll => {
                pool.free_all_blocks().unwrap();
                // What stays is what live buffers' segments hold.
                assert!(pool.total_bytes() >= pool.used_bytes());
                if live.is_empty() {
                    assert_eq!(pool.total_bytes(), 0, "step {i}: cached bytes kept with no buffer live");
                }
            }
            Step::Limit(l) => {
                pool.set_limit(l.unwrap_or(0));
                limit = *l;
                assert_eq!(pool.get_limit(), l.unwrap_or(0));
            }
        }
        let want: usize = live.iter().map(|(_, r)| r).sum();
        assert_eq!(pool.used_bytes(), want, "step {i}: {s:?}");
        assert_eq!(pool.stats().blocks, live.len(), "step {i}: {s:?}");
        assert!(pool.total_bytes() >= pool.used_bytes());
        let mut ranges: Vec<(u64, u64)> =
            live.iter().map(|(b, r)| (b.device_ptr(), b.device_ptr() + *r as u64)).collect();
        ranges.sort_unstable();
        for w in ranges.windows(2) {
            assert!(w[0].1 <= w[1].0, "step {i}: live buffers overlap: {:?} and {:?}", w[0], w[1]);
        }
    }
    drop(live);
    assert_eq!(pool.used_bytes(), 0);
    pool.free_all_blocks().unwrap();
    assert_eq!(pool.total_bytes(), 0);
    assert_eq!(d.memory.live(), 0, "bytes never given back to the device");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn the_pool_follows_its_model(steps in prop::collection::vec(step(), 1..120)) {
        check(&steps);
    }
}
