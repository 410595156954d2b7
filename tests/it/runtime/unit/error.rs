//! crates/runtime/src/error.rs's unit tests.

use hsaemu_runtime::error::*;

#[test]
fn every_error_round_trips_and_has_its_name_in_its_string() {
    for &e in HsaError::ALL {
        assert_eq!(HsaError::from_status(e.status()), Some(e));
        let s = status_string(e.status())
            .expect("string")
            .to_str()
            .expect("ascii");
        assert!(s.starts_with(e.name()), "{s}");
    }
    assert_eq!(HsaError::ALL.len(), 48);
    assert!(status_string(2).is_none());
    assert!(status_string(0x1027).is_none());
    assert_eq!(
        status_string(0x1004).map(|s| s.to_str().unwrap_or("")),
        Some("HSA_STATUS_ERROR_INVALID_AGENT: The agent is invalid.")
    );
}
