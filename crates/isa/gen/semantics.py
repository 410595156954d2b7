"""Semantic attributes of every opcode, derived once (here, at generation time) from LLVM's
mnemonics, which spell them: the canonical semantic key (absorbing per-generation renames),
the memory descriptor, the compare condition and type, VOP3b-ness and source operand types.

Used by gen_semantics.py (writes ../src/tables/semantics.rs) and by the emulator's
crates/emu/tools/gen_ops.py (which joins these keys to the emulator's handlers). Nothing at
run time parses a mnemonic."""
import json
import re

# GFX10 renamed these GFX9 opcodes without changing what they do (`_nc_`: no carry;
# `_co_ci_`: carry-in and carry-out), as CDNA3 did the MFMAs below. The key is the GFX9
# (gfx908/gfx90a) opcode.
RENAMES = {
    "v_add_nc_u32": "v_add_u32", "v_sub_nc_u32": "v_sub_u32", "v_subrev_nc_u32": "v_subrev_u32",
    "v_add_co_ci_u32": "v_addc_co_u32", "v_sub_co_ci_u32": "v_subb_co_u32",
    "v_subrev_co_ci_u32": "v_subbrev_co_u32",
    "v_add_nc_i32": "v_add_i32", "v_sub_nc_i32": "v_sub_i32",
    "v_add_nc_u16": "v_add_u16", "v_sub_nc_u16": "v_sub_u16",
    "v_add_nc_i16": "v_add_i16", "v_sub_nc_i16": "v_sub_i16",
    # gfx940 named gfx90a's `_1k` bf16 MFMAs and the f64 ones by their blocks (`_2b_`) and
    # source type; LLVM 22 spells every gfx908-era shape that way on gfx942/gfx950. Same
    # opcode, same shape (CDNA3's f64 NEG bits are read by the generation).
    "v_mfma_f32_32x32x1_2b_f32": "v_mfma_f32_32x32x1f32",
    "v_mfma_f32_16x16x1_4b_f32": "v_mfma_f32_16x16x1f32",
    "v_mfma_f32_4x4x1_16b_f32": "v_mfma_f32_4x4x1f32",
    "v_mfma_f32_32x32x2_f32": "v_mfma_f32_32x32x2f32",
    "v_mfma_f32_16x16x4_f32": "v_mfma_f32_16x16x4f32",
    "v_mfma_f32_32x32x4_2b_f16": "v_mfma_f32_32x32x4f16",
    "v_mfma_f32_16x16x4_4b_f16": "v_mfma_f32_16x16x4f16",
    "v_mfma_f32_4x4x4_16b_f16": "v_mfma_f32_4x4x4f16",
    "v_mfma_f32_32x32x8_f16": "v_mfma_f32_32x32x8f16",
    "v_mfma_f32_16x16x16_f16": "v_mfma_f32_16x16x16f16",
    "v_mfma_i32_32x32x4_2b_i8": "v_mfma_i32_32x32x4i8",
    "v_mfma_i32_16x16x4_4b_i8": "v_mfma_i32_16x16x4i8",
    "v_mfma_i32_4x4x4_16b_i8": "v_mfma_i32_4x4x4i8",
    "v_mfma_f32_32x32x4_2b_bf16": "v_mfma_f32_32x32x4bf16_1k",
    "v_mfma_f32_16x16x4_4b_bf16": "v_mfma_f32_16x16x4bf16_1k",
    "v_mfma_f32_4x4x4_16b_bf16": "v_mfma_f32_4x4x4bf16_1k",
    "v_mfma_f32_32x32x8_bf16": "v_mfma_f32_32x32x8bf16_1k",
    "v_mfma_f32_16x16x16_bf16": "v_mfma_f32_16x16x16bf16_1k",
    "v_mfma_f64_16x16x4_f64": "v_mfma_f64_16x16x4f64",
    "v_mfma_f64_4x4x4_4b_f64": "v_mfma_f64_4x4x4f64",
    # GFX11 renamed these without changing what they do.
    "s_and_not1_b32": "s_andn2_b32", "s_and_not1_b64": "s_andn2_b64",
    "s_or_not1_b32": "s_orn2_b32", "s_or_not1_b64": "s_orn2_b64",
    "s_and_not1_saveexec_b32": "s_andn2_saveexec_b32",
    "s_and_not1_saveexec_b64": "s_andn2_saveexec_b64",
    "s_or_not1_saveexec_b32": "s_orn2_saveexec_b32",
    "s_or_not1_saveexec_b64": "s_orn2_saveexec_b64",
    "s_and_not0_saveexec_b32": "s_andn1_saveexec_b32",
    "s_and_not0_saveexec_b64": "s_andn1_saveexec_b64",
    "s_or_not0_saveexec_b32": "s_orn1_saveexec_b32",
    "s_or_not0_saveexec_b64": "s_orn1_saveexec_b64",
    "s_and_not0_wrexec_b32": "s_andn1_wrexec_b32", "s_and_not0_wrexec_b64": "s_andn1_wrexec_b64",
    "s_and_not1_wrexec_b32": "s_andn2_wrexec_b32", "s_and_not1_wrexec_b64": "s_andn2_wrexec_b64",
    "s_cls_i32": "s_flbit_i32", "s_cls_i32_i64": "s_flbit_i32_i64",
    "s_clz_i32_u32": "s_flbit_i32_b32", "s_clz_i32_u64": "s_flbit_i32_b64",
    "s_ctz_i32_b32": "s_ff1_i32_b32", "s_ctz_i32_b64": "s_ff1_i32_b64",
    "v_cls_i32": "v_ffbh_i32", "v_clz_i32_u32": "v_ffbh_u32", "v_ctz_i32_b32": "v_ffbl_b32",
    "v_cvt_floor_i32_f32": "v_cvt_flr_i32_f32", "v_cvt_nearest_i32_f32": "v_cvt_rpi_i32_f32",
    "v_cvt_pk_rtz_f16_f32": "v_cvt_pkrtz_f16_f32",
    "v_cvt_pk_norm_i16_f32": "v_cvt_pknorm_i16_f32", "v_cvt_pk_norm_u16_f32": "v_cvt_pknorm_u16_f32",
    "v_cvt_pk_norm_i16_f16": "v_cvt_pknorm_i16_f16", "v_cvt_pk_norm_u16_f16": "v_cvt_pknorm_u16_f16",
    "v_mul_dx9_zero_f32": "v_mul_legacy_f32", "v_fma_dx9_zero_f32": "v_fma_legacy_f32",
    "v_fmac_dx9_zero_f32": "v_fmac_legacy_f32", "v_dot2acc_f32_f16": "v_dot2c_f32_f16",
    # GFX11's ds_cmpstore takes the new value before the compare value (the emulator swaps
    # them back when lowering).
    "ds_cmpstore_b32": "ds_cmpst_b32", "ds_cmpstore_b64": "ds_cmpst_b64",
    "ds_cmpstore_f32": "ds_cmpst_f32", "ds_cmpstore_f64": "ds_cmpst_f64",
    "ds_cmpstore_rtn_b32": "ds_cmpst_rtn_b32", "ds_cmpstore_rtn_b64": "ds_cmpst_rtn_b64",
    "ds_cmpstore_rtn_f32": "ds_cmpst_rtn_f32", "ds_cmpstore_rtn_f64": "ds_cmpst_rtn_f64",
    "ds_storexchg_rtn_b32": "ds_wrxchg_rtn_b32", "ds_storexchg_rtn_b64": "ds_wrxchg_rtn_b64",
    "ds_storexchg_2addr_rtn_b32": "ds_wrxchg2_rtn_b32",
    "ds_storexchg_2addr_rtn_b64": "ds_wrxchg2_rtn_b64",
    "ds_storexchg_2addr_stride64_rtn_b32": "ds_wrxchg2st64_rtn_b32",
    "ds_storexchg_2addr_stride64_rtn_b64": "ds_wrxchg2st64_rtn_b64",
    # GFX11 spells the float atomics by type, the d16 formats and addtid accesses by size.
    "buffer_atomic_cmpswap_f32": "buffer_atomic_fcmpswap",
    "buffer_atomic_min_f32": "buffer_atomic_fmin", "buffer_atomic_max_f32": "buffer_atomic_fmax",
    "flat_atomic_cmpswap_f32": "flat_atomic_fcmpswap",
    "flat_atomic_min_f32": "flat_atomic_fmin", "flat_atomic_max_f32": "flat_atomic_fmax",
    "global_atomic_cmpswap_f32": "global_atomic_fcmpswap",
    "global_atomic_min_f32": "global_atomic_fmin", "global_atomic_max_f32": "global_atomic_fmax",
    "global_load_addtid_b32": "global_load_dword_addtid",
    "global_store_addtid_b32": "global_store_dword_addtid",
    **{"%s_%s_d16%s_format_%s" % (b, op, hi, c): "%s_%s_format_d16%s_%s" % (b, op, hi, c)
       for b in ("buffer", "tbuffer") for op in ("load", "store") for hi in ("", "_hi")
       for c in ("x", "xy", "xyz", "xyzw") if not (hi and (b == "tbuffer" or c != "x"))},
    # GFX12 renamed these without changing what they do: the SALU carry ops, the 64-bit
    # multiply-adds, and the IEEE min/max (`_num`: minNum/maxNum, what the GFX9-GFX11 ops do
    # in IEEE mode, the mode compute kernels run in).
    "s_add_co_u32": "s_add_u32", "s_sub_co_u32": "s_sub_u32",
    "s_add_co_i32": "s_add_i32", "s_sub_co_i32": "s_sub_i32",
    "s_add_co_ci_u32": "s_addc_u32", "s_sub_co_ci_u32": "s_subb_u32",
    "s_addk_co_i32": "s_addk_i32",
    "v_mad_co_u64_u32": "v_mad_u64_u32", "v_mad_co_i64_i32": "v_mad_i64_i32",
    "v_max_num_f16": "v_max_f16", "v_max_num_f32": "v_max_f32", "v_max_num_f64": "v_max_f64",
    "v_min_num_f16": "v_min_f16", "v_min_num_f32": "v_min_f32", "v_min_num_f64": "v_min_f64",
    "v_max3_num_f16": "v_max3_f16", "v_max3_num_f32": "v_max3_f32",
    "v_min3_num_f16": "v_min3_f16", "v_min3_num_f32": "v_min3_f32",
    "v_med3_num_f16": "v_med3_f16", "v_med3_num_f32": "v_med3_f32",
    "v_maxmin_num_f16": "v_maxmin_f16", "v_maxmin_num_f32": "v_maxmin_f32",
    "v_minmax_num_f16": "v_minmax_f16", "v_minmax_num_f32": "v_minmax_f32",
    "v_pk_max_num_f16": "v_pk_max_f16", "v_pk_min_num_f16": "v_pk_min_f16",
}

# VOP3b: a VOP3 word whose bits 8-14 are an SGPR(-pair) destination instead of abs/op_sel.
VOP3B = {
    "v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_addc_co_u32", "v_subb_co_u32",
    "v_subbrev_co_u32", "v_add_co_ci_u32", "v_sub_co_ci_u32", "v_subrev_co_ci_u32",
    "v_div_scale_f32", "v_div_scale_f64", "v_mad_u64_u32", "v_mad_i64_i32",
    "v_mad_co_u64_u32", "v_mad_co_i64_i32",
}

CMP_CONDS = ["f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle",
             "neq", "nlt", "tru", "class"]
CMP_ALIASES = {"ne": "lg", "t": "tru"}
CMP_TYPES = ["f16", "f32", "f64", "i16", "i32", "i64", "u16", "u32", "u64"]

ATOMS = ["swap", "cmpswap", "add", "sub", "rsub", "smin", "umin", "smax", "umax", "and", "or",
         "xor", "inc", "dec", "fadd", "fmin", "fmax", "pk_add_f16", "mskor", "fcmpswap", "pk_add_bf16",
         "csub", "cond_sub", "fmin_num", "fmax_num"]
# GFX12 renamed the GFX10.3 `csub` (subtract clamped at 0) to `sub_clamp`.
ATOM_ALIASES = {"wrxchg": "swap", "cmpst": "cmpswap", "sub_clamp": "csub"}


def mai(name):
    """A matrix-core instruction (MFMA, SMFMAC, AccVGPR moves): its AGPR operands and the
    `acc_cd` bit are read by the opcode's own rules."""
    return re.match(r"v_(mfma|smfmac|accvgpr)_", name) is not None


# GFX11 renamed memory opcodes by type instead of size words (LLVM's GFX11 spellings). These
# rules apply only to names the opcode list holds, so they are ready for a GFX11 table.
_GFX11_DATA = {"b32": "dword", "b64": "dwordx2", "b96": "dwordx3", "b128": "dwordx4",
               "u8": "ubyte", "i8": "sbyte", "u16": "ushort", "i16": "sshort",
               "b8": "byte", "b16": "short"}
_GFX11_D16 = {"d16_b16": "short_d16", "d16_hi_b16": "short_d16_hi", "d16_u8": "ubyte_d16",
              "d16_i8": "sbyte_d16", "d16_hi_u8": "ubyte_d16_hi", "d16_hi_i8": "sbyte_d16_hi",
              "d16_hi_b8": "byte_d16_hi"}
_GFX11_SMEM = {"b32": "dword", "b64": "dwordx2", "b128": "dwordx4", "b256": "dwordx8",
               "b512": "dwordx16"}
_GFX11_DS = {"load": "read", "store": "write", "load_2addr": "read2", "store_2addr": "write2",
             "load_2addr_stride64": "read2st64", "store_2addr_stride64": "write2st64"}
_GFX11_ATOMIC = {"add_u32": "add", "sub_u32": "sub", "swap_b32": "swap", "cmpswap_b32": "cmpswap",
                 "and_b32": "and", "or_b32": "or", "xor_b32": "xor", "inc_u32": "inc",
                 "dec_u32": "dec", "min_i32": "smin", "min_u32": "umin", "max_i32": "smax",
                 "max_u32": "umax"}


def gfx11_key(name):
    """The GFX9 spelling of a GFX11 memory mnemonic (`global_load_b32` → `global_load_dword`,
    `s_load_b32` → `s_load_dword`, `ds_load_2addr_b32` → `ds_read2_b32`), or None."""
    m = re.fullmatch(r"(flat|global|scratch|buffer)_(load|store)_(.+)", name)
    if m:
        t = _GFX11_D16.get(m.group(3)) or _GFX11_DATA.get(m.group(3))
        return t and "%s_%s_%s" % (m.group(1), m.group(2), t)
    m = re.fullmatch(r"(flat|global|buffer)_atomic_([a-z]+_[a-z0-9]+?)(_x2)?", name)
    if m and m.group(2) in _GFX11_ATOMIC:
        return "%s_atomic_%s" % (m.group(1), _GFX11_ATOMIC[m.group(2)])
    m = re.fullmatch(r"(flat|global|buffer)_atomic_([a-z]+)_(u64|b64|i64)", name)
    if m:
        a = _GFX11_ATOMIC.get("%s_%s" % (m.group(2), "i32" if m.group(3) == "i64" else
                                         "b32" if m.group(3) == "b64" else "u32"))
        return a and "%s_atomic_%s_x2" % (m.group(1), a)
    m = re.fullmatch(r"(s_load|s_buffer_load|s_store|s_buffer_store)_(b\d+)", name)
    if m and m.group(2) in _GFX11_SMEM:
        return "%s_%s" % (m.group(1), _GFX11_SMEM[m.group(2)])
    m = re.fullmatch(r"ds_(load|store)((?:_2addr)?(?:_stride64)?)_(.+)", name)
    if m:
        return "ds_%s_%s" % (_GFX11_DS[m.group(1) + m.group(2)], m.group(3))
    return None


def key(name):
    """The opcode whose semantics `name` has: a GFX10 rename, a GFX11 memory rename, or itself."""
    return RENAMES.get(name) or gfx11_key(name) or name


def compare(name):
    """(cond, type, is_cmpx) of a `v_cmp[x]_COND_TYPE`, or None."""
    m = re.fullmatch(r"v_cmp(x?)_([a-z]+)_([a-z0-9]+)", name)
    if not m:
        return None
    cond = CMP_ALIASES.get(m.group(2), m.group(2))
    if cond not in CMP_CONDS or m.group(3) not in CMP_TYPES:
        return None
    return cond, m.group(3), m.group(1) == "x"


def _atom(s):
    s = ATOM_ALIASES.get(s, s)
    return s if s in ATOMS and s not in ("fadd", "fmin", "fmax", "pk_add_f16", "pk_add_bf16",
                                              "fcmpswap", "fmin_num", "fmax_num") else None


def memory(name):
    """A dict: kind (load/store/atomic/None), bytes, count, signed, d16 (0 full, 1 lo, 2 hi),
    atomic, returns (DS `_rtn`), two (DS read2/write2), st64. None for non-memory opcodes and
    for memory opcodes whose access has no description here (they have their own handlers or
    none)."""
    m = dict(kind=None, bytes=4, count=1, signed=False, d16=0, atomic="swap", returns=False,
             two=False, st64=False)
    if name.startswith("ds_"):
        rest = name[3:]
        m["returns"] = "_rtn" in rest
        rest = rest.replace("_rtn", "")
        op, _, ty = rest.rpartition("_")
        if not op:
            op, ty = rest, ""
        if ty in ("hi", "d16"):
            m["d16"] = 2 if ty == "hi" else 1
            base = rest
            for s in ("_hi", "_d16"):
                if base.endswith(s):
                    base = base[: -len(s)]
            op, _, ty = base.rpartition("_")
            if not op:
                op, ty = base, ""
        if ty in ("b8", "u8", "i8"):
            m["bytes"] = 1
        elif ty in ("b16", "u16", "i16"):
            m["bytes"] = 2
        elif ty in ("b64", "u64", "i64", "f64"):
            m["bytes"] = 8
        elif ty == "b96":
            m["count"] = 3
        elif ty == "b128":
            m["count"] = 4
        m["signed"] = ty.startswith("i")
        if op == "read":
            m["kind"] = "load"
        elif op == "write":
            m["kind"] = "store"
        elif op in ("read2", "read2st64", "write2", "write2st64"):
            m["kind"] = "load" if op.startswith("read") else "store"
            m["two"] = True
            m["st64"] = op.endswith("st64")
        elif _atom(op):
            m["kind"] = "atomic"
            a = _atom(op)
            if ty in ("f32", "f64"):
                # `ds_add_f32`, `ds_cmpst_f32`: the float forms (a float compare for cmpst).
                a = {"add": "fadd", "cmpswap": "fcmpswap"}.get(a, a)
            m["atomic"] = a
        elif op in ("min_num", "max_num"):
            # GFX12 `ds_min_num_f32`/`_f64`: IEEE 754-2019 minimumNumber/maximumNumber.
            m["kind"], m["atomic"] = "atomic", "f" + op
        elif op in ("min", "max"):
            m["kind"] = "atomic"
            if ty in ("i32", "i64"):
                m["atomic"] = "s" + op
            elif ty in ("u32", "u64"):
                m["atomic"] = "u" + op
            else:
                m["atomic"] = "f" + op
        elif op == "pk_add" and ty in ("f16", "bf16"):
            # gfx940 `ds_pk_add_f16`/`ds_pk_add_bf16` (`_rtn`): two 16-bit float adds in a dword.
            m["kind"], m["atomic"] = "atomic", "pk_add_" + ty
        return m if m["kind"] else None
    sm = re.fullmatch(r"s_(?:buffer_)?atomic_([a-z]+?)(_x2)?", name)
    if sm:
        # Scalar atomics (GFX9): the data SGPR(s) return the old value when `glc` is set.
        a = _atom(sm.group(1))
        if not a:
            return None
        m["kind"], m["atomic"], m["bytes"] = "atomic", a, 8 if sm.group(2) else 4
        return m
    sm = re.fullmatch(r"s_scratch_(load|store)_dword(?:x([24]))?", name)
    if sm:
        m["kind"], m["count"] = sm.group(1), int(sm.group(2) or 1)
        return m
    pre = re.match(r"(flat|global|scratch|buffer)_", name)
    if not pre:
        return None
    rest = name[pre.end():]
    if rest.startswith("atomic_"):
        a = rest[len("atomic_"):]
        x2 = a.endswith("_x2")
        if x2:
            a = a[:-3]
        m["kind"] = "atomic"
        m["bytes"] = 8 if x2 else 4
        special = {"add_f32": ("fadd", 4), "add_f64": ("fadd", 8), "min_f64": ("fmin", 8),
                   "max_f64": ("fmax", 8), "pk_add_f16": ("pk_add_f16", 4), "pk_add_bf16": ("pk_add_bf16", 4),
                   "csub_u32": ("csub", 4),
                   # GFX12: `sub_clamp` is csub renamed; `cond_sub` subtracts only when it
                   # does not wrap; `min_num`/`max_num` are minimumNumber/maximumNumber.
                   "sub_clamp_u32": ("csub", 4), "cond_sub_u32": ("cond_sub", 4),
                   "min_num_f32": ("fmin_num", 4), "max_num_f32": ("fmax_num", 4)}
        if a in special:
            m["atomic"], m["bytes"] = special[a]
        elif a in ("fcmpswap", "fmin", "fmax"):
            # GFX6/7 and GFX10 spellings of the float atomics (`_x2`: f64).
            m["atomic"] = a
        elif _atom(a):
            m["atomic"] = _atom(a)
        else:
            return None
        return m
    if rest.startswith("load_"):
        m["kind"], ty = "load", rest[5:]
    elif rest.startswith("store_"):
        m["kind"], ty = "store", rest[6:]
    else:
        return None
    if ty.endswith("_d16_hi"):
        ty, m["d16"] = ty[:-7], 2
    elif ty.endswith("_d16"):
        ty, m["d16"] = ty[:-4], 1
    sizes = {"ubyte": (1, 1, False), "byte": (1, 1, False), "sbyte": (1, 1, True),
             "ushort": (2, 1, False), "short": (2, 1, False), "sshort": (2, 1, True),
             "dword": (4, 1, False), "dwordx2": (4, 2, False), "dwordx3": (4, 3, False),
             "dwordx4": (4, 4, False)}
    if ty not in sizes:
        return None
    m["bytes"], m["count"], m["signed"] = sizes[ty]
    return m


def src_types(name):
    """How each source's constants read: b16, b32, b64 (integer) or f64; from the type suffix
    (`v_cvt_DST_SRC`: the last is the source), with the shifts and mixed-width forms."""
    last = name.rsplit("_", 1)[-1]
    base = {"f16": "b16", "i16": "b16", "u16": "b16", "b16": "b16", "f64": "f64",
            "i64": "b64", "u64": "b64", "b64": "b64"}.get(last, "b32")
    t = [base] * 3
    if name.startswith("v_"):
        special = {
            "v_lshlrev_b64": ["b32", "b64", "b32"], "v_lshrrev_b64": ["b32", "b64", "b32"],
            "v_ashrrev_i64": ["b32", "b64", "b32"], "v_lshl_b64": ["b64", "b32", "b32"],
            "v_lshr_b64": ["b64", "b32", "b32"], "v_ashr_i64": ["b64", "b32", "b32"],
            "v_ldexp_f64": ["f64", "b32", "b32"], "v_trig_preop_f64": ["f64", "b32", "b32"],
            "v_ldexp_f16": ["b16", "b32", "b32"], "v_mad_u64_u32": ["b32", "b32", "b64"],
            "v_mad_i64_i32": ["b32", "b32", "b64"],
            # 32-bit operands despite the 16-bit type in the name (LLVM's operand types).
            "v_sad_u16": ["b32", "b32", "b32"], "v_sat_pk_u8_i16": ["b32", "b32", "b32"],
            "v_mad_u32_u16": ["b16", "b16", "b32"], "v_mad_i32_i16": ["b16", "b16", "b32"],
        }
        if not (name.startswith("v_cvt_") or name.startswith("v_frexp_")):
            t = special.get(name, t)
    if name.startswith("s_"):
        # Scalar operands are 32 or 64 bits: no 16-bit inline constants.
        t = ["b32" if x == "b16" else x for x in t]
    if name in ("s_lshl_b64", "s_lshr_b64", "s_ashr_i64", "s_bfe_u64", "s_bfe_i64",
                "s_bitset0_b64", "s_bitset1_b64"):
        t = ["b64", "b32", "b32"]
    if name == "s_bfm_b64":
        t = ["b32"] * 3
    return t


def mnemonics(opcode_rs):
    """The opcode list in `Opcode` order (index 0 is `Unknown`), read from src/opcode.rs."""
    text = open(opcode_rs).read()
    block = text[text.index("MNEMONICS"):]
    block = block[: block.index("];")]
    return re.findall(r'"([^"]*)"', block)
