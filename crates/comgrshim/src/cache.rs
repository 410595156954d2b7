//! The result cache of `amd_comgr_do_action`: one file per action, named by the SHA-256 of
//! everything the result depends on ([`key`]): the comgr and LLVM libraries' identity, the
//! action kind, the action info's ISA name, language, options, working directory and logging,
//! and every input data object's kind, name and bytes. The file holds the result set's data
//! objects (kind, name, bytes; the log too when logging is on), which a hit rebuilds through
//! the real comgr. Files are written to a temporary name and renamed, so concurrent processes
//! never read a partial one; each ends with a SHA-256 of its contents, checked on reading.
//!
//! Whatever cannot be keyed completely is not cached (it runs the real action): comgr other
//! than 2.0-2.4 (whose data kinds and action info fields are the ones known here), any
//! `AMD_COMGR_*` variable set (their side effects: saved temporaries, redirected logs),
//! options that name files or make comgr write them, and source actions whose result could
//! depend on files on disk (a source that mentions `include`, `import`, `incbin` or `embed`,
//! or a language other than OpenCL: HIP's compile adds headers from the ROCm installation).
//!
//! `HSAEMU_COMGR_CACHE`: unset or `1`, the cache is `$XDG_CACHE_HOME/hsaemu/comgr` (else
//! `~/.cache/hsaemu/comgr`); `0`, off (every call goes straight to comgr, nothing is
//! written); anything else, the cache directory. `HSAEMU_COMGR_CACHE_LOG=1` prints one line
//! per action on stderr (`hsaemu: comgr cache: hit|stored|bypass ...`).

use std::ffi::{c_char, c_int, c_void, CString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::{Enum, Handle, Status, STATUS_SUCCESS};

/// The data kinds of comgr 2.4 (`AMD_COMGR_DATA_KIND_SOURCE` .. `_BYTES`, `_FATBIN`).
const DATA_KINDS: [Enum; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10];
const KIND_SOURCE: Enum = 1;
const KIND_INCLUDE: Enum = 2;

/// Actions that read source text, which may name files to include.
const ACTION_SOURCE_TO_PREPROCESSOR: Enum = 0x0;
const ACTION_COMPILE_SOURCE_TO_BC: Enum = 0x2;
const ACTION_ASSEMBLE_SOURCE_TO_RELOCATABLE: Enum = 0xA;
const ACTION_COMPILE_SOURCE_TO_FATBIN: Enum = 0xE;
const ACTION_COMPILE_SOURCE_WITH_DEVICE_LIBS_TO_BC: Enum = 0xF;
/// `AMD_COMGR_LANGUAGE_OPENCL_1_2`, `_OPENCL_2_0`.
const OPENCL: [Enum; 2] = [1, 2];

/// The file format; part of every key, so a change of it never reads old files.
pub const MAGIC: &[u8] = b"HSAEMU-COMGR-CACHE 1\n";

/// What the cache is set to in this process.
struct Config {
    dir: PathBuf,
    log: bool,
}

fn config() -> Option<&'static Config> {
    static CONFIG: OnceLock<Option<Config>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let dir = match std::env::var_os("HSAEMU_COMGR_CACHE") {
                Some(v) if v == "0" => return None,
                Some(v) if !v.is_empty() && v != "1" => PathBuf::from(v),
                _ => default_dir()?,
            };
            let log = std::env::var_os("HSAEMU_COMGR_CACHE_LOG").is_some_and(|v| v == "1");
            Some(Config { dir, log })
        })
        .as_ref()
}

/// `$XDG_CACHE_HOME/hsaemu/comgr`, else `$HOME/.cache/hsaemu/comgr`.
fn default_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|h| h.join(".cache"))
        })?;
    Some(base.join("hsaemu").join("comgr"))
}

/// One data object: kind, name (without its NUL) and bytes.
#[derive(Debug, PartialEq, Eq)]
pub struct Object {
    pub kind: Enum,
    pub name: Vec<u8>,
    pub bytes: Vec<u8>,
}

type RealDoAction = fn(Enum, Handle, Handle, Handle) -> Status;

/// `amd_comgr_do_action` through the cache.
pub(crate) fn do_action(
    kind: Enum,
    info: Handle,
    input: Handle,
    result: Handle,
    real: RealDoAction,
) -> Status {
    let Some(config) = config() else {
        return real(kind, info, input, result);
    };
    let log = |what: &str| {
        if config.log {
            eprintln!("hsaemu: comgr cache: {what}");
        }
    };
    let key = match key(kind, info, input) {
        Ok(k) => k,
        Err(why) => {
            log(&format!("bypass action {kind}: {why}"));
            return real(kind, info, input, result);
        }
    };
    // The result set must start empty: a hit adds exactly the stored objects, and a miss
    // stores exactly what the action added.
    if !matches!(objects(result), Some(o) if o.is_empty()) {
        log(&format!(
            "bypass action {kind}: the result set is not empty"
        ));
        return real(kind, info, input, result);
    }
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let path = config.dir.join(&hex);
    if let Ok(file) = std::fs::read(&path) {
        match decode(&file) {
            Some(stored) if add_all(result, &stored) => {
                log(&format!("hit action {kind} {}", &hex[..16]));
                return STATUS_SUCCESS;
            }
            Some(_) => {
                log(&format!("action {kind}: comgr refused the stored objects"));
                remove_all(result);
            }
            None => log(&format!("action {kind}: {} is damaged", path.display())),
        }
    }
    let status = real(kind, info, input, result);
    if status == STATUS_SUCCESS {
        match objects(result) {
            Some(out) => match store(&config.dir, &path, &encode(&out)) {
                Ok(()) => log(&format!("stored action {kind} {}", &hex[..16])),
                Err(e) => log(&format!("not stored: {}: {e}", path.display())),
            },
            None => log(&format!("not stored: action {kind}'s result unreadable")),
        }
    }
    status
}

/// The SHA-256 of everything the action's result depends on, or why it cannot be known.
fn key(kind: Enum, info: Handle, input: Handle) -> Result<[u8; 32], &'static str> {
    if std::env::vars_os().any(|(k, _)| k.to_string_lossy().starts_with("AMD_COMGR_")) {
        return Err("an AMD_COMGR_* variable is set");
    }
    let mut h = Sha256::new();
    h.update(MAGIC);
    h.update(identity().ok_or("comgr is not version 2.0-2.4 or its files are unknown")?);
    h.update(kind.to_le_bytes());
    let info = crate::record::get(info).ok_or("action info not created through hsaemu")?;
    field(&mut h, &info.isa_name);
    h.update(info.language.to_le_bytes());
    match &info.options {
        None => h.update([0]),
        Some((list, options)) => {
            // A flat option string is tested word by word, and hashed whole.
            let mut words = options
                .iter()
                .flat_map(|o| o.split(|b| b.is_ascii_whitespace()))
                .filter(|w| !w.is_empty());
            if words.any(names_a_file) {
                return Err("an option names a file");
            }
            h.update([1 + *list as u8]);
            h.update((options.len() as u64).to_le_bytes());
            for o in options {
                field(&mut h, o);
            }
        }
    }
    match &info.working_directory {
        None => h.update([0]),
        Some(d) => {
            h.update([1]);
            field(&mut h, d);
        }
    }
    h.update([info.logging as u8]);
    let language = info.language;
    let inputs = objects(input).ok_or("an input is unreadable")?;
    if reads_source(kind) {
        if kind != ACTION_ASSEMBLE_SOURCE_TO_RELOCATABLE && !OPENCL.contains(&language) {
            return Err("a source action in a language other than OpenCL");
        }
        let may_include = |o: &Object| {
            [&b"include"[..], b"import", b"incbin", b"embed"]
                .iter()
                .any(|w| o.bytes.windows(w.len()).any(|x| x == *w))
        };
        if inputs
            .iter()
            .any(|o| (o.kind == KIND_SOURCE || o.kind == KIND_INCLUDE) && may_include(o))
        {
            return Err("a source may include files");
        }
    }
    h.update((inputs.len() as u64).to_le_bytes());
    for o in &inputs {
        h.update(o.kind.to_le_bytes());
        field(&mut h, &o.name);
        field(&mut h, &o.bytes);
    }
    Ok(h.finalize().into())
}

/// Hashes `bytes` with its length first (so fields never run into each other).
fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

fn reads_source(kind: Enum) -> bool {
    matches!(
        kind,
        ACTION_SOURCE_TO_PREPROCESSOR
            | ACTION_COMPILE_SOURCE_TO_BC
            | ACTION_ASSEMBLE_SOURCE_TO_RELOCATABLE
            | ACTION_COMPILE_SOURCE_TO_FATBIN
            | ACTION_COMPILE_SOURCE_WITH_DEVICE_LIBS_TO_BC
    )
}

/// Whether option `o` (one of a list, or a word of the flat string) may make the result
/// depend on a file, or the action write one (which a hit would not): a path, an include or
/// library search option, a response file, dependency output, saved temporaries.
pub fn names_a_file(o: &[u8]) -> bool {
    const PREFIXES: [&[u8]; 12] = [
        b"-I",
        b"-L",
        b"-l",
        b"-T",
        b"@",
        b"-i",
        b"--include",
        b"-F",
        b"--sysroot",
        b"-M",
        b"-save-temps",
        b"--save-temps",
    ];
    o.contains(&b'/') || PREFIXES.iter().any(|p| o.starts_with(p))
}

/// A comgr string or byte getter's result: `get(&mut size, NULL)` for the size, then
/// `get(&mut size, buffer)`. A trailing NUL is dropped.
fn string(get: impl Fn(*mut usize, *mut c_char) -> Status) -> Option<Vec<u8>> {
    let mut size = 0usize;
    if get(&mut size, std::ptr::null_mut()) != STATUS_SUCCESS {
        return None;
    }
    let mut buf = vec![0u8; size];
    if size > 0 {
        let mut got = size;
        if get(&mut got, buf.as_mut_ptr().cast()) != STATUS_SUCCESS || got != size {
            return None;
        }
    }
    if buf.last() == Some(&0) {
        buf.pop();
    }
    Some(buf)
}

/// Every data object of `set`, in kind order (the order within a kind kept).
fn objects(set: Handle) -> Option<Vec<Object>> {
    let mut out = Vec::new();
    for kind in DATA_KINDS {
        let mut count = 0usize;
        // SAFETY: `count` is writable; comgr validates `set`.
        if unsafe { crate::amd_comgr_action_data_count(set, kind, &mut count) } != STATUS_SUCCESS {
            return None;
        }
        for i in 0..count {
            let mut data = Handle { handle: 0 };
            // SAFETY: `data` is writable; `i` is below the count comgr gave.
            if unsafe { crate::amd_comgr_action_data_get_data(set, kind, i, &mut data) }
                != STATUS_SUCCESS
            {
                return None;
            }
            let object = read_object(kind, data);
            // SAFETY: get_data added a reference to `data`, released here.
            unsafe { crate::amd_comgr_release_data(data) };
            out.push(object?);
        }
    }
    Some(out)
}

fn read_object(kind: Enum, data: Handle) -> Option<Object> {
    let name = string(|size, buf| {
        // SAFETY: as for the ISA name; `data` is a live data object.
        unsafe { crate::amd_comgr_get_data_name(data, size, buf) }
    })?;
    let mut size = 0usize;
    // SAFETY: `size` is writable; a NULL buffer asks for the size.
    if unsafe { crate::amd_comgr_get_data(data, &mut size, std::ptr::null_mut()) } != STATUS_SUCCESS
    {
        return None;
    }
    let mut bytes = vec![0u8; size];
    if size > 0 {
        let mut got = size;
        // SAFETY: `bytes` has room for `got` bytes.
        if unsafe { crate::amd_comgr_get_data(data, &mut got, bytes.as_mut_ptr().cast()) }
            != STATUS_SUCCESS
            || got != size
        {
            return None;
        }
    }
    Some(Object { kind, name, bytes })
}

/// Adds new data objects made from `objects` to `set`; false at the first failure.
fn add_all(set: Handle, objects: &[Object]) -> bool {
    objects.iter().all(|o| {
        let Ok(name) = CString::new(o.name.clone()) else {
            return false;
        };
        let mut data = Handle { handle: 0 };
        // SAFETY: `data` is writable.
        if unsafe { crate::amd_comgr_create_data(o.kind, &mut data) } != STATUS_SUCCESS {
            return false;
        }
        // SAFETY: `data` is the new object; `o.bytes` and `name` outlive the calls (comgr
        // copies them); the set takes its own reference, so ours is released.
        unsafe {
            let ok = set_bytes(data, &o.bytes)
                && crate::amd_comgr_set_data_name(data, name.as_ptr()) == STATUS_SUCCESS
                && crate::amd_comgr_data_set_add(set, data) == STATUS_SUCCESS;
            crate::amd_comgr_release_data(data);
            ok
        }
    })
}

/// Sets data object `data`'s bytes. comgr refuses `amd_comgr_set_data` of 0 bytes, and a
/// data object never set has no buffer, which `amd_comgr_get_data` refuses (HIP then
/// crashes reading the log, empty when logging is off): an empty slice of `/dev/null` gives
/// an empty buffer, as comgr's own empty results have.
fn set_bytes(data: Handle, bytes: &[u8]) -> bool {
    if !bytes.is_empty() {
        // SAFETY: `bytes` outlives the call (comgr copies it).
        return unsafe { crate::amd_comgr_set_data(data, bytes.len(), bytes.as_ptr().cast()) }
            == STATUS_SUCCESS;
    }
    let Ok(null) = std::fs::File::open("/dev/null") else {
        return false;
    };
    use std::os::fd::AsRawFd;
    // SAFETY: `null` is an open file for the call's duration; comgr reads 0 bytes of it.
    let status = unsafe { crate::amd_comgr_set_data_from_file_slice(data, null.as_raw_fd(), 0, 0) };
    status == STATUS_SUCCESS
}

/// Empties `set` (which was empty before [`add_all`] began).
fn remove_all(set: Handle) {
    for kind in DATA_KINDS {
        // SAFETY: comgr validates `set`.
        unsafe { crate::amd_comgr_data_set_remove(set, kind) };
    }
}

pub fn encode(objects: &[Object]) -> Vec<u8> {
    let mut f = MAGIC.to_vec();
    f.extend((objects.len() as u64).to_le_bytes());
    for o in objects {
        f.extend(o.kind.to_le_bytes());
        f.extend((o.name.len() as u64).to_le_bytes());
        f.extend(&o.name);
        f.extend((o.bytes.len() as u64).to_le_bytes());
        f.extend(&o.bytes);
    }
    let sum: [u8; 32] = Sha256::digest(&f).into();
    f.extend(sum);
    f
}

/// The objects of a cache file; None if it is not exactly a well-formed one.
pub fn decode(file: &[u8]) -> Option<Vec<Object>> {
    let (body, sum) = file.split_at_checked(file.len().checked_sub(32)?)?;
    if Sha256::digest(body).as_slice() != sum {
        return None;
    }
    let mut rest = body.strip_prefix(MAGIC)?;
    let mut take = |n: usize| -> Option<&[u8]> {
        let (a, b) = rest.split_at_checked(n)?;
        rest = b;
        Some(a)
    };
    let count = u64::from_le_bytes(take(8)?.try_into().ok()?);
    let mut out = Vec::new();
    for _ in 0..count {
        let kind = Enum::from_le_bytes(take(4)?.try_into().ok()?);
        let n = usize::try_from(u64::from_le_bytes(take(8)?.try_into().ok()?)).ok()?;
        let name = take(n)?.to_vec();
        let n = usize::try_from(u64::from_le_bytes(take(8)?.try_into().ok()?)).ok()?;
        let bytes = take(n)?.to_vec();
        if !DATA_KINDS.contains(&kind) {
            return None;
        }
        out.push(Object { kind, name, bytes });
    }
    if !rest.is_empty() {
        return None;
    }
    Some(out)
}

/// Writes `file` at `path` in `dir`: to a temporary name, then renamed (atomic, so
/// concurrent readers see the whole file or none).
fn store(dir: &Path, path: &Path, file: &[u8]) -> std::io::Result<()> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".tmp{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let written = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(file));
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// What identifies the compiler: comgr's version and the path, size and modification time
/// of this library, the real comgr and every loaded LLVM library (comgr links LLVM
/// dynamically). None for a comgr version whose data kinds and action info may not all be
/// the ones [`key`] reads.
fn identity() -> Option<&'static [u8]> {
    static ID: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    ID.get_or_init(|| {
        let (mut major, mut minor) = (0usize, 0usize);
        // SAFETY: both are writable.
        unsafe { crate::amd_comgr_get_version(&mut major, &mut minor) };
        if major != 2 || minor > 4 {
            return None;
        }
        let mut files = vec![crate::own_path()?, crate::real_path()?.canonicalize().ok()?];
        files.extend(loaded_llvm());
        files.sort();
        files.dedup();
        let mut id = format!("comgr {major}.{minor}\n");
        for f in files {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(&f).ok()?;
            id.push_str(&format!(
                "{} {} {}.{}\n",
                f.display(),
                m.len(),
                m.mtime(),
                m.mtime_nsec()
            ));
        }
        Some(id.into_bytes())
    })
    .as_deref()
}

/// The loaded libraries named `libLLVM*`, resolved.
fn loaded_llvm() -> Vec<PathBuf> {
    unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _: usize, data: *mut c_void) -> c_int {
        // SAFETY: dl_iterate_phdr passes a valid `info` and our `data` (a Vec<PathBuf>).
        let (info, out) = unsafe { (&*info, &mut *(data as *mut Vec<PathBuf>)) };
        if info.dlpi_name.is_null() {
            return 0;
        }
        // SAFETY: dlpi_name is a NUL-terminated string owned by the dynamic loader.
        let name = unsafe { std::ffi::CStr::from_ptr(info.dlpi_name) };
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(std::ffi::OsStr::from_bytes(name.to_bytes()));
        if path
            .file_name()
            .is_some_and(|n| n.as_bytes().starts_with(b"libLLVM"))
        {
            if let Ok(p) = path.canonicalize() {
                out.push(p);
            }
        }
        0
    }
    let mut out: Vec<PathBuf> = Vec::new();
    // SAFETY: `each` only reads what the loader passes and pushes to `out`, which outlives
    // the call.
    unsafe { libc::dl_iterate_phdr(Some(each), (&mut out as *mut Vec<PathBuf>).cast()) };
    out
}

/// The cache file's format and the option filter, for the crate's tests
/// (tests/it/comgr/cache.rs, in the integration binary: no unit-test harness of its own). Not
/// part of the API.
#[doc(hidden)]
pub mod internals {
    pub use super::{decode, encode, names_a_file, Object, MAGIC};
}
