//! crates/runtime/src/agent.rs's unit tests.

use hsaemu_runtime::agent::*;
use hsaemu_runtime::error::HsaError;

/// The facts the agent table takes from codeobject's processor table (ROCm's values).
#[test]
fn targets_read_their_processor_facts_from_codeobject() {
    let facts: Vec<(&str, bool, bool, u32)> = TARGETS
        .iter()
        .map(|t| {
            (
                t.processor,
                t.supports_xnack(),
                t.supports_sramecc(),
                t.wavefront_size(),
            )
        })
        .collect();
    assert_eq!(
        facts,
        [
            ("gfx803", false, false, 64),
            ("gfx900", true, false, 64),
            ("gfx906", true, true, 64),
            ("gfx908", true, true, 64),
            ("gfx90a", true, true, 64),
            ("gfx1030", false, false, 32),
            ("gfx940", true, true, 64),
            ("gfx941", true, true, 64),
            ("gfx942", true, true, 64),
            ("gfx950", true, true, 64),
            ("gfx1100", false, false, 32),
            ("gfx1151", false, false, 32),
            ("gfx1101", false, false, 32),
            ("gfx1102", false, false, 32),
            ("gfx1103", false, false, 32),
            ("gfx1150", false, false, 32),
            ("gfx1152", false, false, 32),
            ("gfx1153", false, false, 32),
            ("gfx1200", false, false, 32),
            ("gfx1201", false, false, 32),
        ]
    );
}

#[test]
fn isa_names_fill_defaults_and_check_compatibility() {
    let agent = Isa::parse("gfx90a", true).expect("parse");
    assert_eq!(agent.name, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
    let any = Isa::parse("amdgcn-amd-amdhsa--gfx90a", false).expect("parse");
    let plus = Isa::parse("gfx90a:xnack+", false).expect("parse");
    assert!(agent.accepts(&any));
    assert!(!agent.accepts(&plus));
    assert!(!agent.accepts(&Isa::parse("gfx906", false).expect("parse")));
    assert_eq!(
        Isa::parse("gfx803:xnack+", true),
        Err(HsaError::InvalidIsaName)
    );
    assert_eq!(Isa::parse("gfx9000", true), Err(HsaError::InvalidIsaName));
    assert_eq!(
        Isa::parse("gfx803", true).expect("parse").name,
        "amdgcn-amd-amdhsa--gfx803"
    );
}
