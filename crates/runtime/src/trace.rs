//! The timeline trace (`hsaemu exec --trace FILE`, or `HSAEMU_TRACE=FILE`): a Chrome trace
//! (the JSON array format read by chrome://tracing and Perfetto) with one track per queue
//! holding its kernel dispatches, barrier packets and failures, a track for memory copies,
//! and one instant event per HSA API call on the track of the calling thread.
//!
//! `HSAEMU_TRACE` is a comma-separated list; the words `api`, `mem` and `unimplemented` select
//! text logs on stderr (see `hsaemu-capi`), and any other entry is the path of the timeline
//! file. The file is rewritten after every event so that it is complete, valid JSON even when
//! the program aborts (as HIP does after a kernel fault).

use std::collections::HashMap;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::sync::{Mutex, OnceLock};

/// Words of `HSAEMU_TRACE` that are not a file path.
const KEYWORDS: &[&str] = &["api", "mem", "unimplemented", ""];

/// Process id written in every event (one process: this one).
const PID: u32 = 1;
/// Thread id of the track holding memory copies.
const COPY_TID: u64 = 1;

/// The open timeline file.
pub struct Timeline {
    inner: Mutex<TimelineFile>,
    kernel_names: Mutex<HashMap<u64, String>>,
}

struct TimelineFile {
    file: File,
    /// Offset of the closing `]` (where the next event goes).
    end: u64,
    events: u64,
    named_tracks: HashMap<u64, ()>,
}

/// The timeline of this process, when `HSAEMU_TRACE` names a file; `None` otherwise or when the
/// file cannot be created (that is reported once on stderr).
pub fn timeline() -> Option<&'static Timeline> {
    static T: OnceLock<Option<Timeline>> = OnceLock::new();
    T.get_or_init(|| {
        let spec = std::env::var("HSAEMU_TRACE").ok()?;
        let path = spec
            .split(',')
            .map(str::trim)
            .find(|e| !KEYWORDS.contains(e))?
            .to_string();
        match Timeline::create(&path) {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("hsaemu: cannot write the trace file {path}: {e}");
                None
            }
        }
    })
    .as_ref()
}

/// Microseconds since the runtime's timestamp epoch (Chrome traces count in µs).
fn micros(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// The calling thread's kernel thread id.
fn thread_id() -> u64 {
    // SAFETY: `gettid` has no arguments and cannot fail.
    let tid = unsafe { libc::gettid() };
    u64::try_from(tid).unwrap_or(0)
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Timeline {
    pub(crate) fn create(path: &str) -> std::io::Result<Timeline> {
        let mut file = File::create(path)?;
        file.write_all(b"[\n]\n")?;
        let t = Timeline {
            inner: Mutex::new(TimelineFile {
                file,
                end: 2,
                events: 0,
                named_tracks: HashMap::new(),
            }),
            kernel_names: Mutex::new(HashMap::new()),
        };
        t.name_track(COPY_TID, "memory copies");
        Ok(t)
    }

    /// Appends one event (a JSON object) and rewrites the closing bracket after it.
    fn push(&self, event: &str) {
        let mut f = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let sep = if f.events == 0 { "" } else { ",\n" };
        let text = format!("{sep}{event}\n]\n");
        let end = f.end;
        let ok =
            f.file.seek(SeekFrom::Start(end)).is_ok() && f.file.write_all(text.as_bytes()).is_ok();
        if ok {
            f.end = end + (sep.len() + event.len()) as u64;
            f.events += 1;
        }
    }

    /// Names the track `tid` once (a `thread_name` metadata event).
    fn name_track(&self, tid: u64, name: &str) {
        {
            let mut f = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            if f.named_tracks.insert(tid, ()).is_some() {
                return;
            }
        }
        self.push(&format!(
            r#"{{"name":"thread_name","ph":"M","pid":{PID},"tid":{tid},"args":{{"name":{}}}}}"#,
            json_string(name)
        ));
    }

    /// Remembers the name of a kernel so that dispatches of `kernel_object` carry it.
    pub fn kernel_loaded(&self, kernel_object: u64, name: &str) {
        self.kernel_names
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(kernel_object, name.trim_end_matches(".kd").to_string());
    }

    fn kernel_name(&self, kernel_object: u64) -> String {
        self.kernel_names
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&kernel_object)
            .cloned()
            .unwrap_or_else(|| format!("kernel 0x{kernel_object:x}"))
    }

    /// One HSA API call (an instant event on the caller's thread), with its error status if it
    /// failed.
    pub fn api_call(&self, name: &str, error: Option<&str>) {
        let tid = thread_id();
        self.name_track(tid, &format!("host thread {tid}"));
        let args = error.map_or(String::new(), |e| {
            format!(r#","args":{{"status":{}}}"#, json_string(e))
        });
        self.push(&format!(
            r#"{{"name":{},"cat":"api","ph":"i","s":"t","ts":{:.3},"pid":{PID},"tid":{tid}{args}}}"#,
            json_string(name),
            micros(crate::signal::timestamp_ns())
        ));
    }

    /// One packet processed by the queue at `queue` between `start_ns` and `end_ns`. `kind` is
    /// the packet kind (`dispatch`, `barrier-and`, ...); dispatches give their kernel object
    /// and grid/work-group sizes.
    #[allow(clippy::too_many_arguments)]
    pub fn packet(
        &self,
        queue: u64,
        index: u64,
        kind: &str,
        kernel: Option<(u64, [u32; 3], [u16; 3])>,
        start_ns: u64,
        end_ns: u64,
        error: Option<&str>,
    ) {
        let tid = 0x1000 + (queue & 0xffff_ffff);
        self.name_track(tid, &format!("queue 0x{queue:x}"));
        let (name, extra) = match kernel {
            Some((object, grid, wg)) => (
                self.kernel_name(object),
                format!(
                    r#","grid":"{}x{}x{}","workgroup":"{}x{}x{}""#,
                    grid[0], grid[1], grid[2], wg[0], wg[1], wg[2]
                ),
            ),
            None => (kind.to_string(), String::new()),
        };
        let err = error.map_or(String::new(), |e| format!(r#","error":{}"#, json_string(e)));
        self.push(&format!(
            r#"{{"name":{},"cat":{},"ph":"X","ts":{:.3},"dur":{:.3},"pid":{PID},"tid":{tid},"args":{{"packet":{index}{extra}{err}}}}}"#,
            json_string(&name),
            json_string(kind),
            micros(start_ns),
            micros(end_ns.saturating_sub(start_ns)),
        ));
    }

    /// One memory copy (`hsa_amd_memory_async_copy` and friends).
    pub fn copy(&self, dst: u64, src: u64, len: usize, start_ns: u64, end_ns: u64) {
        self.push(&format!(
            r#"{{"name":"copy {len} bytes","cat":"copy","ph":"X","ts":{:.3},"dur":{:.3},"pid":{PID},"tid":{COPY_TID},"args":{{"dst":"0x{dst:x}","src":"0x{src:x}","bytes":{len}}}}}"#,
            micros(start_ns),
            micros(end_ns.saturating_sub(start_ns)),
        ));
    }
}
