//! What each action info object was set to, recorded from the setter calls as they pass
//! through to comgr. The cache keys on this instead of comgr's getters: comgr 2.4's
//! `amd_comgr_action_info_get_working_directory_path` dereferences NULL when the path was
//! never set (ROCclr never sets it), and a key must never crash a program.

use std::collections::HashMap;
use std::ffi::{c_char, CStr};
use std::sync::Mutex;

use crate::{Enum, Handle};

/// One action info object's settings (the defaults: as `amd_comgr_create_action_info`
/// leaves it).
#[derive(Clone, Debug, Default)]
pub(crate) struct Info {
    pub isa_name: Vec<u8>,
    pub language: Enum,
    /// `Some(true, list)` after `set_option_list`, `Some(false, [string])` after
    /// `set_options`.
    pub options: Option<(bool, Vec<Vec<u8>>)>,
    pub working_directory: Option<Vec<u8>>,
    pub logging: bool,
}

/// `f` on the settings of every live action info, by handle.
fn with<R>(f: impl FnOnce(&mut HashMap<u64, Info>) -> R) -> R {
    static INFOS: Mutex<Option<HashMap<u64, Info>>> = Mutex::new(None);
    let mut guard = INFOS.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(HashMap::new))
}

/// The recorded settings of `info` (None: not created through this library).
pub(crate) fn get(info: Handle) -> Option<Info> {
    with(|m| m.get(&info.handle).cloned())
}

fn update(info: Handle, f: impl FnOnce(&mut Info)) {
    with(|m| m.get_mut(&info.handle).map(f));
}

/// A C string's bytes (empty for NULL).
///
/// # Safety
/// `s` is NULL or NUL-terminated.
unsafe fn bytes(s: *const c_char) -> Vec<u8> {
    if s.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller's promise.
    unsafe { CStr::from_ptr(s) }.to_bytes().to_vec()
}

/// After a successful `amd_comgr_create_action_info`.
///
/// # Safety
/// `out` points to the new handle.
pub(crate) unsafe fn create(out: *mut Handle) {
    // SAFETY: comgr succeeded, so `out` was valid and written.
    let h = unsafe { *out };
    with(|m| m.insert(h.handle, Info::default()));
}

pub(crate) fn destroy(info: Handle) {
    with(|m| m.remove(&info.handle));
}

/// # Safety
/// `isa_name` is NUL-terminated (comgr accepted it).
pub(crate) unsafe fn isa_name(info: Handle, isa_name: *const c_char) {
    // SAFETY: the caller's promise.
    let v = unsafe { bytes(isa_name) };
    update(info, |i| i.isa_name = v);
}

pub(crate) fn language(info: Handle, language: Enum) {
    update(info, |i| i.language = language);
}

/// # Safety
/// `options` is NUL-terminated (comgr accepted it).
pub(crate) unsafe fn options(info: Handle, options: *const c_char) {
    // SAFETY: the caller's promise.
    let v = unsafe { bytes(options) };
    update(info, |i| i.options = Some((false, vec![v])));
}

/// # Safety
/// `options` holds `count` NUL-terminated strings (comgr accepted them).
pub(crate) unsafe fn option_list(info: Handle, options: *const *const c_char, count: usize) {
    let mut v = Vec::new();
    for k in 0..count {
        // SAFETY: the caller's promise; comgr read the same `count` pointers.
        v.push(unsafe { bytes(*options.add(k)) });
    }
    update(info, |i| i.options = Some((true, v)));
}

/// # Safety
/// `path` is NUL-terminated (comgr accepted it).
pub(crate) unsafe fn working_directory(info: Handle, path: *const c_char) {
    // SAFETY: the caller's promise.
    let v = unsafe { bytes(path) };
    update(info, |i| i.working_directory = Some(v));
}

pub(crate) fn logging(info: Handle, logging: bool) {
    update(info, |i| i.logging = logging);
}
