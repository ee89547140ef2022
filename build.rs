//! Records what `xp::show_config()` reports about the build: the compiler's version, the
//! target triple and the profile. Nothing here needs a vendor toolkit.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| format!("unknown (`{rustc} --version` failed)"));
    println!("cargo:rustc-env=XP_BUILD_RUSTC_VERSION={version}");
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=XP_BUILD_TARGET={target}");
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=XP_BUILD_PROFILE={profile}");
}
