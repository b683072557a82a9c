//! With no usable adapter, opening a GPU is a clear error that says what to install, and
//! a name filter that matches nothing lists what exists. (Its own test binary: it sets
//! process-wide environment variables.)

use pelt::gpu::{GpuContext, GpuError};

#[test]
fn missing_adapters_are_clear_errors() {
    // SAFETY: this test binary has this one test, so no other thread reads the environment.
    unsafe { std::env::set_var("WGPU_BACKEND", "dx12") };
    let err = GpuContext::new().unwrap_err();
    assert!(matches!(err, GpuError::NoAdapter { .. }), "{err}");
    assert!(err.to_string().contains("mesa-vulkan-drivers"), "{err}");

    // SAFETY: as above.
    unsafe {
        std::env::remove_var("WGPU_BACKEND");
        std::env::set_var("WGPU_ADAPTER_NAME", "no such adapter anywhere");
    }
    let err = GpuContext::new().unwrap_err();
    assert!(matches!(err, GpuError::NoMatchingAdapter { .. }), "{err}");
    assert!(err.to_string().contains("found:"), "{err}");
    // SAFETY: as above.
    unsafe { std::env::remove_var("WGPU_ADAPTER_NAME") };
}
