//! Parsing the device library's definitions (crates/testkit/src/generic_shim.rs's tests).

use hsaemu_testkit::internals::parse_define;

#[test]
fn parses_library_definitions() {
    let d = parse_define(
        "define linkonce_odr protected zeroext i1 @_Zf(ptr noundef captures(none) %0, \
         <4 x float> noundef %1, ptr addrspace(5) noundef %2) local_unnamed_addr #5 {",
    )
    .expect("define");
    assert_eq!(d.name, "_Zf");
    assert_eq!(d.ret, "zeroext i1");
    assert_eq!(d.params, ["ptr", "<4 x float>", "ptr addrspace(5)"]);
}
