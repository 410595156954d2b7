//! The mutations every stable fuzz loop applies: byte flips, interesting values, chunk copies,
//! inserts, deletes and truncations, biased towards headers and tables (the start of the input)
//! and its end.

/// xorshift64*: deterministic, seedable, good enough for mutation choices.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

const INTERESTING: &[u64] = &[
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x100,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    u64::MAX,
    1 << 32,
    1 << 60,
];

fn position(rng: &mut Rng, len: usize) -> usize {
    match rng.below(4) {
        0 => rng.below(len.min(512)),
        1 => rng.below(len.min(8192)),
        2 => len.saturating_sub(1 + rng.below(len.min(4096))),
        _ => rng.below(len),
    }
}

/// Applies 1–8 random mutations to `d`.
pub fn mutate(rng: &mut Rng, d: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(8) {
        let len = d.len();
        if len == 0 {
            d.push(rng.next_u64() as u8);
            continue;
        }
        let at = position(rng, len);
        match rng.below(7) {
            0 => d[at] ^= 1 << rng.below(8),
            1 => d[at] = rng.next_u64() as u8,
            2 => {
                let v = INTERESTING[rng.below(INTERESTING.len())].to_le_bytes();
                let w = [1, 2, 4, 8][rng.below(4)];
                for (i, b) in v.iter().take(w).enumerate() {
                    if let Some(x) = d.get_mut(at + i) {
                        *x = *b;
                    }
                }
            }
            3 => {
                let from = rng.below(len);
                let n = rng.below(64).min(len - from).min(len - at);
                let chunk = d[from..from + n].to_vec();
                d[at..at + n].copy_from_slice(&chunk);
            }
            4 => {
                let n = rng.below(32);
                d.splice(at..at, std::iter::repeat_n(rng.next_u64() as u8, n));
            }
            5 => {
                let n = rng.below(32).min(len - at);
                d.drain(at..at + n);
            }
            _ => d.truncate(at),
        }
    }
}
