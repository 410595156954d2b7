//! A queue's compute-unit mask (`hsa_amd_queue_cu_set_mask` / `_get_mask`): which of the agent's
//! emulated CUs its work-groups may run on. CUs are emulated, not host threads: the emulator
//! places each work-group of a dispatch on one CU of the mask (round-robin), and that is the
//! CU its waves read from `HW_ID`, however many host threads run them.
//!
//! `HSA_CU_MASK` (read at `hsa_init`, as ROCr reads it) limits the CUs of every queue of the
//! listed GPUs: queues start with that mask, and `hsa_amd_queue_cu_set_mask` is ANDed with it
//! (returning `HSA_STATUS_CU_MASK_REDUCED` when that disabled a requested CU).
//! `HSA_CU_MASK_SKIP_INIT=1` leaves new queues on every CU; the set call is still limited.

use std::collections::BTreeMap;

use parking_lot::Mutex;

#[derive(Debug, Default)]
struct State {
    /// This GPU's `HSA_CU_MASK` words; empty: not restricted.
    global: Vec<u32>,
    /// The current mask; `None`: every CU (the default).
    current: Option<Vec<u32>>,
}

/// The mask, one bit per CU (bit `i % 32` of word `i / 32`).
#[derive(Debug, Default)]
pub struct CuMask(Mutex<State>);

impl CuMask {
    /// Installs this GPU's `HSA_CU_MASK` words when the queue is created; unless `skip_init`,
    /// the queue starts with them (ROCr's `SetCUMasking(0, nullptr)` at queue creation).
    pub fn init_global(&self, global: &[u32], skip_init: bool, cus: u32) {
        self.0.lock().global = global.to_vec();
        if !global.is_empty() && !skip_init {
            self.set(&[], cus);
        }
    }

    /// Sets the mask from the application's words, trimmed to the agent's `cus` CUs and to
    /// `HSA_CU_MASK` as ROCr trims it; no words resets it to every CU (of `HSA_CU_MASK`).
    /// Returns whether `HSA_CU_MASK` disabled a requested CU (`HSA_STATUS_CU_MASK_REDUCED`).
    pub fn set(&self, words: &[u32], cus: u32) -> bool {
        let mut state = self.0.lock();
        let dwords = cus.div_ceil(32) as usize;
        if words.is_empty() && state.global.is_empty() {
            state.current = None;
            return false;
        }
        let mut mask = if words.is_empty() {
            vec![u32::MAX; dwords]
        } else {
            words.to_vec()
        };
        let mut clipped = false;
        if state.global.is_empty() {
            mask.truncate(dwords);
        } else {
            let limit = state.global.len().min(mask.len()).min(dwords);
            clipped = mask[limit..].iter().any(|&w| w != 0);
            mask.truncate(limit);
            for (m, g) in mask.iter_mut().zip(&state.global) {
                clipped |= *m & !g != 0;
                *m &= g;
            }
        }
        if mask.len() == dwords && !cus.is_multiple_of(32) {
            mask[dwords - 1] &= (1u32 << (cus % 32)) - 1;
        }
        state.current = Some(mask);
        clipped
    }

    /// Writes the mask into `out` (words beyond the mask are zero).
    pub fn get(&self, out: &mut [u32], cus: u32) {
        let state = self.0.lock();
        for (i, o) in out.iter_mut().enumerate() {
            *o = match &state.current {
                Some(m) => m.get(i).copied().unwrap_or(0),
                None => {
                    let bits = cus.saturating_sub(i as u32 * 32).min(32);
                    if bits == 32 {
                        u32::MAX
                    } else {
                        (1u32 << bits) - 1
                    }
                }
            };
        }
    }

    /// The enabled CU ids in order; empty for "every CU" (and for a mask with no CU, where
    /// the emulator then uses every CU too, rather than never running the queue).
    pub fn enabled(&self) -> Vec<u32> {
        match &self.0.lock().current {
            None => Vec::new(),
            Some(m) => (0..m.len() as u32 * 32)
                .filter(|&i| m[(i / 32) as usize] >> (i % 32) & 1 != 0)
                .collect(),
        }
    }
}

/// Parses `HSA_CU_MASK` with ROCr's grammar (whitespace ignored):
///
/// ```text
/// ID_list = (ID | ID-ID)[, (ID | ID-ID)]*   e.g. 0,2-4,7   (base 10)
/// CU_list = 0x[0-F]* | ID_list              e.g. 0x337F or 0-15,32-47
/// CU_Set  = GPU_list : CU_list
/// HSA_CU_MASK = CU_Set [; CU_Set]*
/// ```
///
/// GPU indexes count GPU agents from 0. IDs above `max_gpu` / `max_cu` are dropped; a
/// repeated GPU or CU, an inverted range, or an empty mask is a syntax error, and as in ROCr
/// parsing stops there: that set and the ones after it are ignored (here with a warning).
pub fn parse_env(var: &str, max_gpu: u32, max_cu: u32) -> BTreeMap<u32, Vec<u32>> {
    let mut masks = BTreeMap::new();
    let text: String = var
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    if text.is_empty() {
        return masks;
    }
    for set in text.split(';') {
        match parse_set(set, max_gpu, max_cu) {
            Some((gpus, mask)) if !gpus.iter().any(|g| masks.contains_key(g)) => {
                for g in gpus {
                    masks.insert(g, mask.clone());
                }
            }
            _ => {
                eprintln!(
                    "hsaemu: HSA_CU_MASK={var:?}: CU set {set:?} is not `GPUs:CUs` with \
                     distinct base-10 ids or ranges (CUs may be a 0x mask); it and the sets \
                     after it are ignored"
                );
                break;
            }
        }
    }
    masks
}

/// One `GPU_list:CU_list`: the GPU indexes and the mask words.
fn parse_set(set: &str, max_gpu: u32, max_cu: u32) -> Option<(Vec<u32>, Vec<u32>)> {
    let (gpus, cus) = set.split_once(':')?;
    if cus.contains(':') {
        return None;
    }
    let mut mask = if let Some(hex) = cus.strip_prefix("0X") {
        if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        // Eight digits per word, least significant word first.
        let mut words: Vec<u32> = hex
            .as_bytes()
            .rchunks(8)
            .map(|d| u32::from_str_radix(std::str::from_utf8(d).unwrap_or("0"), 16).unwrap_or(0))
            .collect();
        words.truncate(max_cu as usize / 32 + 1);
        words
    } else {
        let ids = id_list(cus, max_cu)?;
        let mut words = vec![0u32; (*ids.last()? / 32 + 1) as usize];
        for id in ids {
            words[(id / 32) as usize] |= 1 << (id % 32);
        }
        words
    };
    while mask.last() == Some(&0) {
        mask.pop();
    }
    if mask.is_empty() {
        return None;
    }
    mask.shrink_to_fit();
    Some((id_list(gpus, max_gpu)?, mask))
}

/// `ID | ID-ID` items separated by commas, sorted; ids above `max` are dropped (ranges are
/// clipped), repeats are an error, as are no ids at all.
fn id_list(text: &str, max: u32) -> Option<Vec<u32>> {
    let mut ids = Vec::new();
    for item in text.split(',') {
        let (lo, hi) = match item.split_once('-') {
            Some((lo, hi)) => (lo, Some(hi)),
            None => (item, None),
        };
        let lo: u32 = digits(lo)?;
        match hi {
            None => {
                if lo <= max {
                    ids.push(lo);
                }
            }
            Some(hi) => {
                let hi: u32 = digits(hi)?;
                if hi < lo {
                    return None;
                }
                ids.extend(lo..=hi.min(max));
            }
        }
    }
    ids.sort_unstable();
    if ids.is_empty() || ids.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    Some(ids)
}

fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}
