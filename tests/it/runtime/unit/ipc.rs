//! crates/runtime/src/ipc.rs's unit tests.

use hsaemu_runtime::error::HsaError;
use hsaemu_runtime::ipc::*;
use hsaemu_runtime::pages::{Pages, PAGE_SIZE};

#[test]
fn handles_round_trip_and_foreign_handles_are_refused() {
    let h = IpcHandle {
        pid: 42,
        fd: 7,
        token: 0x1234_5678_9abc_def0,
        len: 3 << 32 | 4096,
    };
    assert_eq!(IpcHandle::from_words(h.to_words()), Ok(h));
    assert_eq!(
        IpcHandle::from_words([0; 8]),
        Err(HsaError::InvalidArgument)
    );
}

#[test]
fn an_exported_range_keeps_its_address_and_bytes_and_is_seen_by_an_attachment() {
    let pages = Pages::new(2 * PAGE_SIZE).expect("map");
    // SAFETY: `pages` owns 2 pages.
    let bytes = unsafe { std::slice::from_raw_parts_mut(pages.as_ptr(), pages.len()) };
    bytes[5] = 7;
    bytes[PAGE_SIZE + 1] = 9;
    // SAFETY: `pages` is our own mapping; nothing else writes to it.
    let export = unsafe { export_in_place(pages.addr(), pages.len() as u64) }.expect("export");
    assert_eq!((bytes[5], bytes[PAGE_SIZE + 1]), (7, 9));
    let other = attach(export.handle(), 0).expect("attach");
    assert_ne!(other.addr(), pages.addr());
    // SAFETY: `other` maps the same 2 pages.
    let seen = unsafe { std::slice::from_raw_parts_mut(other.as_ptr(), other.len()) };
    assert_eq!(seen[PAGE_SIZE + 1], 9);
    seen[6] = 11;
    assert_eq!(bytes[6], 11);
    let mut wrong = export.handle();
    wrong.token ^= 1;
    assert_eq!(attach(wrong, 0).err(), Some(HsaError::InvalidArgument));
    assert_eq!(
        attach(export.handle(), 3 * PAGE_SIZE as u64).err(),
        Some(HsaError::InvalidArgument)
    );
}
