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
        let mut b = HostBuffer {
            data: vec![0u64; bytes.len().div_ceil(8).max(1)],
            len: bytes.len(),
            mem: mem.clone(),
        };
        b.fill(bytes);
        mem.register(b.addr(), (b.data.len() * 8) as u64, Access::ReadWrite)
            .map_err(|e| e.to_string())?;
        Ok(b)
    }

    /// Rewrites the contents from `bytes` (as many as were given to `new`; the padding
    /// stays zero).
    pub fn fill(&mut self, bytes: &[u8]) {
        let bytes = &bytes[..bytes.len().min(self.len)];
        let mut words = bytes.chunks_exact(8);
        for (w, c) in self.data.iter_mut().zip(&mut words) {
            *w = u64::from_le_bytes(c.try_into().unwrap_or_default());
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.data[bytes.len() / 8] = u64::from_le_bytes(last);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_read_back_after_new_and_fill() {
        let mem = MemoryMap::new();
        let first: Vec<u8> = (0..13).collect();
        let mut b = HostBuffer::new(&mem, &first).expect("registers");
        assert_eq!(b.bytes(), first);
        let second: Vec<u8> = (100..113).collect();
        b.fill(&second);
        assert_eq!(b.bytes(), second);
        // The padding after the 13 bytes stays zero.
        assert_eq!(b.data[1] >> 40, 0);
    }
}
