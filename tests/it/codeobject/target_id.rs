//! Formerly hsaemu-codeobject's unit tests of src/target_id.rs (docs/notes/ci-time.md, "Round 38").

use hsaemu_codeobject::target_id::*;

#[test]
fn parses_both_syntaxes_and_isa_names() {
    let t = TargetId::parse("gfx90a:xnack-").expect("parses");
    assert_eq!(t.processor(), "gfx90a");
    assert_eq!(t.xnack(), Feature::Off);
    assert_eq!(t.sramecc(), Feature::Any);
    assert_eq!(t.canonical(), "gfx90a:xnack-");
    assert_eq!(t.isa_name(), "amdgcn-amd-amdhsa--gfx90a:xnack-");
    let old = TargetId::parse("gfx906+xnack").expect("parses");
    assert_eq!(old.xnack(), Feature::On);
    assert_eq!(old.canonical(), "gfx906:xnack+");
    let full = TargetId::parse("amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-").expect("parses");
    assert_eq!(full.canonical(), "gfx90a:sramecc-:xnack+");
    assert_eq!(
        TargetId::parse("fiji").expect("parses").processor(),
        "gfx803"
    );
    assert_eq!(
        TargetId::parse("gfx1030").expect("parses").xnack(),
        Feature::Unsupported
    );
}

#[test]
fn rejects_malformed_ids() {
    for bad in [
        "",
        "gfx90a:xnack",
        "gfx90a:xnack+:xnack-",
        "gfx90a:foo+",
        "gfx1030:xnack+",
        "amdgcn-amd-amdhsa",
        "gfx90a::",
        "gfx9 0a",
    ] {
        assert!(TargetId::parse(bad).is_err(), "{bad} must be rejected");
    }
}

#[test]
fn compatibility_rule() {
    let t = |s: &str| TargetId::parse(s).expect("parses");
    assert!(is_compatible(&t("gfx90a"), &t("gfx90a:sramecc-:xnack-")));
    assert!(is_compatible(
        &t("gfx90a:xnack-"),
        &t("gfx90a:sramecc+:xnack-")
    ));
    assert!(!is_compatible(
        &t("gfx90a:xnack+"),
        &t("gfx90a:sramecc+:xnack-")
    ));
    assert!(!is_compatible(&t("gfx906"), &t("gfx90a:xnack-")));
    assert!(is_compatible(&t("gfx9-generic"), &t("gfx906:xnack-")));
    assert!(!is_compatible(&t("gfx9-generic"), &t("gfx90a:xnack-")));
    assert!(is_compatible(&t("gfx1030"), &t("gfx1030")));
}
