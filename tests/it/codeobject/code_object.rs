//! Formerly hsaemu-codeobject's unit tests of src/code_object.rs (docs/notes/ci-time.md, "Round 38").

use hsaemu_codeobject::code_object::*;
use hsaemu_codeobject::elf_consts::*;
use hsaemu_codeobject::processor::PROCESSORS;
use hsaemu_codeobject::{Error, Feature, ProcessorInfo};

#[test]
fn e_flags_of_every_processor_and_version() {
    for p in PROCESSORS {
        for version in 3..=6u32 {
            let generic = if p.is_generic() { 1u32 << 24 } else { 0 };
            if p.is_generic() && version < 6 {
                assert!(
                    target_from_e_flags(p.mach | generic, version).is_err(),
                    "{}",
                    p.name
                );
                continue;
            }
            if version == 3 {
                let on = p.mach
                    | if p.supports_xnack {
                        EF_AMDGPU_FEATURE_XNACK_V3
                    } else {
                        0
                    }
                    | if p.supports_sramecc {
                        EF_AMDGPU_FEATURE_SRAMECC_V3
                    } else {
                        0
                    };
                let (t, _) = target_from_e_flags(on, 3).expect("V3 flags decode");
                assert_eq!(t.processor(), p.name);
                let want = |s: bool| if s { Feature::On } else { Feature::Unsupported };
                assert_eq!(
                    (t.xnack(), t.sramecc()),
                    (want(p.supports_xnack), want(p.supports_sramecc)),
                    "{}",
                    p.name
                );
                let (t, _) = target_from_e_flags(p.mach, 3).expect("V3 flags decode");
                let want = |s: bool| {
                    if s {
                        Feature::Off
                    } else {
                        Feature::Unsupported
                    }
                };
                assert_eq!(
                    (t.xnack(), t.sramecc()),
                    (want(p.supports_xnack), want(p.supports_sramecc)),
                    "{}",
                    p.name
                );
                continue;
            }
            for (field, feature) in [(1u32, Feature::Any), (2, Feature::Off), (3, Feature::On)] {
                let x = if p.supports_xnack { field << 8 } else { 0 };
                let s = if p.supports_sramecc { field << 10 } else { 0 };
                let flags = p.mach | x | s | if version >= 6 { generic } else { 0 };
                let (t, gv) = target_from_e_flags(flags, version)
                    .unwrap_or_else(|e| panic!("{} V{version}: {e}", p.name));
                assert_eq!(t.processor(), p.name);
                assert_eq!(gv, if version >= 6 && p.is_generic() { 1 } else { 0 });
                let want = |sup: bool| if sup { feature } else { Feature::Unsupported };
                assert_eq!(
                    (t.xnack(), t.sramecc()),
                    (want(p.supports_xnack), want(p.supports_sramecc)),
                    "{} V{version}",
                    p.name
                );
                // A feature the processor lacks must not be set; one it has must not be 0.
                if !p.supports_xnack {
                    assert!(
                        target_from_e_flags(flags | 0x300, version).is_err(),
                        "{}",
                        p.name
                    );
                } else {
                    let (t, _) =
                        target_from_e_flags(flags & !0x300, version).expect("xnack field 0");
                    assert_eq!(t.xnack(), Feature::Any, "{}", p.name);
                }
            }
            if version >= 6 && !p.is_generic() {
                assert!(target_from_e_flags(p.mach | (1 << 24) | default_features(p), 6).is_err());
            }
        }
    }
    assert!(matches!(
        target_from_e_flags(0xee, 4),
        Err(Error::UnknownMach { mach: 0xee, .. })
    ));
}

fn default_features(p: &ProcessorInfo) -> u32 {
    (if p.supports_xnack { 0x100 } else { 0 }) | (if p.supports_sramecc { 0x400 } else { 0 })
}

#[test]
fn relocation_names_round_trip() {
    for r in 0..=14u32 {
        let k = RelocKind::from_raw(r);
        if r == 12 {
            assert_eq!(k, RelocKind::Unknown(12));
        } else {
            assert!(
                k.name().starts_with("R_AMDGPU_") && !k.name().contains('<'),
                "{r}"
            );
        }
    }
    assert!(RelocKind::Relative64.is_dynamic() && !RelocKind::Rel32Lo.is_dynamic());
}
