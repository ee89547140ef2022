//! After a sticky error every runtime call fails without calling into HIP, and says that the
//! process must be restarted. Its own test binary: the state is process-wide.

use xp_backend_api::Error;
use xp_backend_hip::{result, sys};

#[test]
fn calls_after_a_sticky_error_say_restart() {
    let first = result::check("hipModuleLaunchKernel", sys::hipErrorIllegalAddress).expect_err("700 is an error");
    let Error::Driver { api, code, name, detail } = &first else { panic!("expected Driver, got {first:?}") };
    assert_eq!((api.as_str(), *code), ("hipModuleLaunchKernel", 700));
    assert!(detail.contains("must be restarted"), "{detail}");
    match sys::library() {
        Ok(_) => {
            assert_eq!(name, "hipErrorIllegalAddress");
            let later = result::set_device(0).expect_err("every call fails after a sticky error");
            let Error::Driver { api, name, detail, .. } = &later else { panic!("expected Driver, got {later:?}") };
            assert_eq!(api, "hipSetDevice");
            assert_eq!(name, "hipErrorIllegalAddress");
            assert!(detail.contains("hipModuleLaunchKernel") && detail.contains("must be restarted"), "{detail}");
            assert_eq!(result::sticky_error().map(|s| s.1), Some(700));
        }
        Err(e) => assert!(matches!(e, Error::BackendUnavailable { .. }), "{e}"),
    }
}

#[test]
fn ordinary_errors_are_not_sticky() {
    let e = result::check("hipMalloc", sys::hipErrorOutOfMemory).expect_err("2 is an error");
    let Error::Driver { detail, .. } = &e else { panic!("expected Driver, got {e:?}") };
    assert!(!detail.contains("restarted"), "{detail}");
    if sys::library().is_ok() {
        assert_eq!(result::error_name(sys::hipErrorNoDevice), "hipErrorNoDevice");
    }
}
