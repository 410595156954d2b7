//! Float atomics the hardware drops: on gfx90a (MI200), `global_atomic_add_f32`/`_f64`,
//! `global_atomic_pk_add_f16` and `global_atomic_min/max_f64` (and their `flat_` and `buffer_`
//! forms) are executed in the L2 cache, but fine-grained (coherent) system memory is reached
//! uncached over PCIe/XGMI (MTYPE UC, memory model GFX90A), where there is no float ALU: the
//! operation is silently dropped, memory keeps its value and a returning form returns 0. HIP's
//! own tests (`Unit_BuiltInAtomicAdd_CoherentGlobalMem` and its siblings) check exactly that;
//! coarse-grained host memory (`hipHostMallocNonCoherent`) and device memory do the add.
//! Integer atomics and compare-and-swap (which compilers use for "safe" float atomics) work
//! on every kind. See docs/memory-kinds.md.

use crate::decode::Atom;
use crate::decode::Gen;
use crate::memory::{MemoryKind, MemoryMap, RegionCache};

/// Whether atomic `atom` at `addr` is dropped by the hardware being modelled. `addr` has
/// passed the access check.
pub(crate) fn drops_float_atomic(
    gen: Gen,
    atom: Atom,
    cache: &mut RegionCache,
    map: &MemoryMap,
    addr: u64,
) -> bool {
    gen == Gen::Gfx90a
        && matches!(atom, Atom::FAdd | Atom::FMin | Atom::FMax | Atom::PkAddF16)
        && cache.kind(map, addr) == MemoryKind::FineHost
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Access;

    #[test]
    fn only_gfx90a_float_atomics_on_fine_grained_host_memory_are_dropped() {
        let map = MemoryMap::new();
        map.register_kind(0x1000, 0x100, Access::ReadWrite, MemoryKind::FineHost)
            .expect("register");
        map.register(0x2000, 0x100, Access::ReadWrite)
            .expect("register");
        map.register_kind(0x3000, 0x100, Access::ReadWrite, MemoryKind::FineDevice)
            .expect("register");
        let mut cache = RegionCache::default();
        let mut drops = |gen, atom, addr| drops_float_atomic(gen, atom, &mut cache, &map, addr);
        for atom in [Atom::FAdd, Atom::FMin, Atom::FMax, Atom::PkAddF16] {
            assert!(drops(Gen::Gfx90a, atom, 0x1008));
            assert!(!drops(Gen::Gfx90a, atom, 0x2008), "coarse-grained memory");
            assert!(
                !drops(Gen::Gfx90a, atom, 0x3008),
                "fine-grained device memory"
            );
            assert!(
                !drops(Gen::Gfx9, atom, 0x1008),
                "gfx908 is not modelled as dropping"
            );
            assert!(!drops(Gen::Gfx10, atom, 0x1008));
        }
        for atom in [Atom::Add, Atom::CmpSwap, Atom::Swap, Atom::UMax] {
            assert!(
                !drops(Gen::Gfx90a, atom, 0x1008),
                "{atom:?} is not a float atomic"
            );
        }
    }
}
