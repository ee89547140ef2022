//! The facade's user tools: `show_config`, `benchmark`, and NVTX ranges, on the CPU device
//! (present in every build with the default features).
#![cfg(feature = "cpu")]

use std::cell::Cell;

use xp::DType;

#[test]
fn config_names_the_version_the_features_and_every_backend() {
    let info = xp::config_info();
    let text = info.to_string();
    assert_eq!(info.version, env!("CARGO_PKG_VERSION"));
    assert!(text.contains(&format!("xp Version                    : {}", env!("CARGO_PKG_VERSION"))), "{text}");
    assert!(info.features.contains(&"cpu"));
    assert_eq!(info.features.contains(&"cuda"), cfg!(feature = "cuda"));
    let features = text.lines().find(|l| l.starts_with("xp Features")).expect("a features line");
    assert!(features.contains("cpu"), "{features}");
    assert!(info.rustc.starts_with("rustc "), "{}", info.rustc);
    assert!(text.contains(info.rustc) && text.contains(info.target), "{text}");
    assert!(info.target.contains('-'), "a target triple: {}", info.target);
    // One line per backend, built or not, never a panic.
    for name in ["cuda", "hip", "cpu"] {
        let line = text.lines().find(|l| l.starts_with(&format!("Backend {name} "))).unwrap_or_else(|| {
            panic!("no line for backend {name} in\n{text}");
        });
        assert!(line.contains("available") || line.contains("unavailable"), "{line}");
    }
    let cpu = info.backends.iter().find(|b| b.name == "cpu").expect("cpu is reported");
    assert!(cpu.built);
    assert_eq!(cpu.status, Ok(()), "the CPU backend always works");
    assert_eq!(cpu.devices.len(), 1);
    assert_eq!(cpu.devices[0].label, "cpu");
    assert!(!cpu.devices[0].name.is_empty());
    // Building the CPU backend needs a C++ compiler, so the tests find one too.
    let cxx = cpu.info.versions.iter().find(|(what, _)| what == "C++ compiler").expect("a compiler line");
    assert!(!cxx.1.starts_with("none"), "{:?}", cpu.info);
    let path = cpu.info.libraries.iter().find(|(what, _)| what == "C++ compiler").expect("a compiler path");
    assert!(path.1 != "none" && !path.1.is_empty(), "{:?}", cpu.info);
    assert!(text.contains("  Device cpu"), "{text}");
    if !cfg!(feature = "hip") {
        let hip = info.backends.iter().find(|b| b.name == "hip").unwrap();
        assert!(!hip.built);
        assert!(hip.status.as_ref().unwrap_err().contains("`hip` feature"), "{:?}", hip.status);
    }
}

#[test]
fn an_unavailable_gpu_backend_says_why_and_where_it_looked() {
    let info = xp::config_info();
    for b in info.backends.iter().filter(|b| b.built && b.name != "cpu") {
        match &b.status {
            Ok(()) => assert!(!b.devices.is_empty(), "{} probes fine but lists no device", b.name),
            Err(reason) => {
                assert!(!reason.is_empty());
                assert!(b.devices.is_empty());
                // The libraries are still listed, with `none` and the reason when missing.
                assert!(!b.info.libraries.is_empty(), "{}: {:?}", b.name, b.info);
            }
        }
    }
}

#[test]
fn benchmark_times_every_repeat_on_the_host_and_the_device() {
    let cpu = xp::device("cpu").unwrap();
    let calls = Cell::new(0usize);
    let r = xp::with_device(&cpu, || {
        let x = xp::arange(0, 200_000, 1, Some(DType::F32))?;
        xp::benchmark_named(
            "exp",
            || {
                calls.set(calls.get() + 1);
                x.exp()
            },
            7,
            3,
        )
    })
    .unwrap();
    assert_eq!(calls.get(), 10, "3 warm-up calls and 7 timed ones");
    assert_eq!(r.cpu_times.len(), 7);
    assert_eq!(r.gpu_times.len(), 7);
    assert_eq!(r.device, "cpu-device");
    assert!(r.cpu_times.iter().all(|t| *t > 0.0), "{:?}", r.cpu_times);
    // The device's events bracket the queued exp over 200,000 floats: it takes time.
    assert!(r.gpu_times.iter().all(|t| *t > 0.0 && *t < 10.0), "{:?}", r.gpu_times);
    let s = r.to_string();
    assert!(s.starts_with("exp                 :    CPU:"), "{s}");
    assert!(s.contains("     cpu-device:") && s.contains(" us   +/-") && s.contains("(min:"), "{s}");
}

#[test]
fn benchmark_returns_the_error_of_the_function_and_refuses_zero_repeats() {
    let calls = Cell::new(0usize);
    let e = xp::benchmark(
        || {
            calls.set(calls.get() + 1);
            if calls.get() == 4 {
                Err(xp::Error::value("step", "failed on the fourth call"))
            } else {
                Ok(())
            }
        },
        10,
        2,
    )
    .unwrap_err();
    assert_eq!(calls.get(), 4);
    assert!(e.to_string().contains("fourth call"), "{e}");
    let e = xp::benchmark(|| Ok(()), 0, 0).unwrap_err();
    assert_eq!(e.kind(), "Value");
}

#[test]
fn benchmark_names_a_closure_as_cupy_names_a_lambda() {
    let r = xp::benchmark(|| Ok(()), 2, 0).unwrap();
    assert_eq!(r.name, "<closure>");
    fn noop() -> xp::Result<()> {
        Ok(())
    }
    assert_eq!(xp::benchmark(noop, 1, 0).unwrap().name, "noop");
}

#[test]
fn nvtx_ranges_and_marks_never_fail_without_a_library() {
    let found = xp::profile::nvtx_library();
    {
        let outer = xp::profile::range("outer");
        let inner = xp::profile::range("inner with a \0 nul");
        xp::profile::mark("a mark");
        assert_eq!(outer.is_recorded(), found.is_some());
        assert_eq!(inner.is_recorded(), found.is_some());
    }
    // A second lookup answers the same (cached) library.
    assert_eq!(xp::profile::nvtx_library(), found);
    assert_eq!(xp::config_info().nvtx, found.map(|p| p.display().to_string()));
}
