//! The values of xp's environment variables and device labels, as a user may type them: every
//! parser of `xp_backend_api::env` (sizes, limits, switches, durations, choices) and
//! `parse_device_label` gives a value or an error naming the variable, never a panic or a
//! silent default.
#![no_main]

use std::ffi::OsString;

use libfuzzer_sys::fuzz_target;
use xp_array::device::parse_device_label;
use xp_backend_api::env;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let value = OsString::from(text);
    let lookup = |_: &str| Some(value.clone());
    let name = "XP_FUZZ";
    let named = |r: &xp_backend_api::Error| {
        let m = r.to_string();
        assert!(m.contains(name), "an error that does not name the variable: {m}");
    };
    if let Some(n) = env::parse_bytes(text) {
        // A size that parses is one a user wrote: its digits are there.
        assert!(text.chars().any(|c| c.is_ascii_digit()), "{text:?} -> {n}");
    }
    for total in [0usize, 1, 1 << 30, usize::MAX] {
        if let Some(n) = xp_backend_api::memory::parse_limit(text, total) {
            if text.trim_end().ends_with('%') {
                assert!(n <= total || total == 0, "{text:?} of {total} -> {n}");
            }
        }
        if let Err(e) = env::limit_in(&lookup, name, total) {
            named(&e);
        }
    }
    if let Err(e) = env::text_in(&lookup, name) {
        named(&e);
    }
    if let Err(e) = env::switch_in(&lookup, name) {
        named(&e);
    }
    if let Err(e) = env::bytes_in(&lookup, name) {
        named(&e);
    }
    if let Err(e) = env::seconds_in(&lookup, name) {
        named(&e);
    }
    match env::choice_in(&lookup, name, &["on", "off", "auto"]) {
        Ok(Some(c)) => assert!(c.eq_ignore_ascii_case(text.trim()) || c.eq_ignore_ascii_case(text)),
        Ok(None) => {}
        Err(e) => named(&e),
    }
    if let Ok((backend, _)) = parse_device_label(text) {
        assert!(matches!(backend.as_str(), "cpu" | "cuda" | "hip"), "{text:?} -> {backend}");
    }
});
