//! Host memory that kernels run by `hsaemu run` and `hsaemu bench` may touch: a buffer
//! registered in the emulator's memory map for as long as it lives.

use hsaemu_emu::{Access, MemoryMap};
use std::sync::Arc;

/// A zero-padded, 8-byte aligned host buffer registered read-write while alive.
pub struct HostBuffer {
    data: Vec<u64>,
    len: usize,
    mem: Arc<MemoryMap>,
}

impl HostBuffer {
    /// Copies `bytes` into a new buffer and registers it in `mem`.
    pub fn new(mem: &Arc<MemoryMap>, bytes: &[u8]) -> Result<HostBuffer, String> {
        let mut data = vec![0u64; bytes.len().div_ceil(8).max(1)];
        for (i, b) in bytes.iter().enumerate() {
            data[i / 8] |= u64::from(*b) << (8 * (i % 8));
        }
        let b = HostBuffer {
            data,
            len: bytes.len(),
            mem: mem.clone(),
        };
        mem.register(b.addr(), (b.data.len() * 8) as u64, Access::ReadWrite)
            .map_err(|e| e.to_string())?;
        Ok(b)
    }

    /// The device (= host) address of the first byte.
    pub fn addr(&self) -> u64 {
        self.data.as_ptr() as u64
    }

    /// The current contents (as many bytes as were given to `new`).
    pub fn bytes(&self) -> Vec<u8> {
        let mut v: Vec<u8> = self.data.iter().flat_map(|w| w.to_le_bytes()).collect();
        v.truncate(self.len);
        v
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        let _ = self.mem.unregister(self.addr());
    }
}
