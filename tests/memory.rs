//! The facade's memory API: the default pools of the current device and clearing the kernel
//! cache. One test, since it sets `XP_CACHE_DIR` for the process.

use std::sync::Arc;

#[test]
fn default_pools_follow_the_current_device_and_the_kernel_cache_clears() {
    let cpu = xp::device("cpu").unwrap();
    xp::with_device(&cpu, || {
        let pool = xp::get_default_memory_pool().unwrap();
        assert!(Arc::ptr_eq(&pool, &xp::memory::pool(&cpu)));
        let before = pool.used_bytes();
        let a = xp::zeros(&[1024], xp::DType::F64).unwrap();
        assert!(pool.used_bytes() >= before + 8192, "{} -> {}", before, pool.used_bytes());
        drop(a);
        let pinned = xp::get_default_pinned_memory_pool().unwrap();
        assert!(Arc::ptr_eq(&pinned, &xp::memory::pinned_pool(&cpu).unwrap()));
        let block = pinned.alloc(100).unwrap();
        assert!(pinned.used_bytes() >= 4096);
        drop(block);
        pinned.free_all_blocks().unwrap();
        assert_eq!(pinned.total_bytes(), pinned.used_bytes());
    });

    let dir = std::env::temp_dir().join(format!("xp-clear-kernel-cache-{}", std::process::id()));
    let shard = dir.join("0f");
    std::fs::create_dir_all(&shard).unwrap();
    for i in 0..3 {
        std::fs::write(shard.join(format!("0f{i:030}.bin")), b"image").unwrap();
    }
    std::env::set_var("XP_CACHE_DIR", &dir);
    assert_eq!(xp::clear_kernel_cache().unwrap(), 3);
    assert_eq!(std::fs::read_dir(&shard).unwrap().count(), 0);
    std::env::set_var("XP_CACHE_DIR", "off");
    assert_eq!(xp::clear_kernel_cache().unwrap(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
