//! A queue's compute-unit mask (`hsa_amd_queue_cu_set_mask` / `_get_mask`): which of the agent's
//! emulated CUs its work-groups may run on. CUs are emulated, not host threads: the emulator
//! places each work-group of a dispatch on one CU of the mask (round-robin), and that is the
//! CU its waves read from `HW_ID`, however many host threads run them.

use parking_lot::Mutex;

/// The mask, one bit per CU (bit `i % 32` of word `i / 32`); `None`: every CU (the default).
#[derive(Debug, Default)]
pub struct CuMask(Mutex<Option<Vec<u32>>>);

impl CuMask {
    /// Sets the mask from the application's words, trimmed to the agent's `cus` CUs as ROCr
    /// trims it; no words resets it to every CU.
    pub fn set(&self, words: &[u32], cus: u32) {
        if words.is_empty() {
            *self.0.lock() = None;
            return;
        }
        let n = cus.div_ceil(32) as usize;
        let mut mask: Vec<u32> = words.iter().copied().take(n).collect();
        mask.resize(n, 0);
        if !cus.is_multiple_of(32) {
            mask[n - 1] &= (1u32 << (cus % 32)) - 1;
        }
        *self.0.lock() = Some(mask);
    }

    /// Writes the mask into `out` (words beyond the agent's CUs are zero).
    pub fn get(&self, out: &mut [u32], cus: u32) {
        let mask = self.0.lock();
        for (i, o) in out.iter_mut().enumerate() {
            *o = match &*mask {
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
        match &*self.0.lock() {
            None => Vec::new(),
            Some(m) => (0..m.len() as u32 * 32)
                .filter(|&i| m[(i / 32) as usize] >> (i % 32) & 1 != 0)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_are_trimmed_to_the_agent_and_read_back() {
        let m = CuMask::default();
        let mut out = [7u32; 2];
        m.get(&mut out, 4);
        assert_eq!(out, [0xf, 0]);
        assert!(m.enabled().is_empty());
        m.set(&[0b1010_0110, 0xffff_ffff], 4);
        m.get(&mut out, 4);
        assert_eq!(out, [0b0110, 0]);
        assert_eq!(m.enabled(), vec![1, 2]);
        m.set(&[], 4);
        assert!(m.enabled().is_empty());
    }
}
