//! The semantics table (semantics.rs's tests).

use hsaemu_isa::internals::SEMANTICS_ROWS;
use hsaemu_isa::semantics::*;
use hsaemu_isa::Opcode;

#[test]
fn rows_follow_the_opcode_list() {
    assert_eq!(SEMANTICS_ROWS, Opcode::all().len());
    for &op in Opcode::all() {
        let key = op.semantics().key;
        // A key is itself or a rename whose key is itself.
        assert_eq!(key.semantics().key, key, "{op:?}");
    }
    assert_eq!(Opcode::V_ADD_NC_U32.semantics().key, Opcode::V_ADD_U32);
    assert_eq!(
        Opcode::V_ADD_CO_CI_U32.semantics().key,
        Opcode::V_ADDC_CO_U32
    );
    let c = Opcode::V_CMPX_NE_U64.semantics().cmp.expect("compare");
    assert_eq!((c.cond, c.ty, c.exec), (CmpCond::Lg, CmpType::U64, true));
    let m = Opcode::GLOBAL_LOAD_SBYTE_D16_HI
        .semantics()
        .mem
        .expect("load");
    assert_eq!(
        (m.kind, m.bytes, m.signed, m.d16),
        (MemKind::Load, 1, true, D16::Hi)
    );
    let m = Opcode::DS_READ2ST64_B64.semantics().mem.expect("read2");
    assert_eq!((m.bytes, m.two, m.st64), (8, true, true));
    let m = Opcode::DS_MAX_RTN_F64.semantics().mem.expect("atomic");
    assert_eq!((m.atomic, m.returns), (AtomicOp::FMax, true));
    assert!(Opcode::V_DIV_SCALE_F64.semantics().vop3b);
    assert_eq!(
        Opcode::V_LSHLREV_B64.semantics().src,
        [SrcType::B32, SrcType::B64, SrcType::B32]
    );
}
