"""Encoding families of GFX8/GFX9 and GFX10 and the probe words for each opcode number.

LLVM's disassembler rejects an encoding whose unused operand fields are not zero, so each
family lists its optional fields with a probe value; `probes(fam, op)` yields one probe per
subset of those fields. The valid probe with the most fields set tells which fields an opcode
uses, and the distinct probe values tell which printed operand came from which field.
"""
import itertools

LIT = 0x12345678


def enc_sop2(op, f):
    return [(0b10 << 30) | (op << 23) | (f.get("sdst", 0) << 16) | (f.get("ssrc1", 0) << 8) | f.get("ssrc0", 0)]


def enc_sopk(op, f):
    return [(0b1011 << 28) | (op << 23) | (f.get("sdst", 0) << 16) | f.get("simm16", 0)]


def enc_sop1(op, f):
    return [(0b101111101 << 23) | (f.get("sdst", 0) << 16) | (op << 8) | f.get("ssrc0", 0)]


def enc_sopc(op, f):
    return [(0b101111110 << 23) | (op << 16) | (f.get("ssrc1", 0) << 8) | f.get("ssrc0", 0)]


def enc_sopp(op, f):
    return [(0b101111111 << 23) | (op << 16) | f.get("simm16", 0)]


def enc_smem(op, f):
    return [(0b110000 << 26) | (op << 18) | (f.get("imm", 0) << 17) | (f.get("sdata", 0) << 6) | f.get("sbase", 0),
            f.get("offset", 0)]


def enc_vop2(op, f):
    return [(op << 25) | (f.get("vdst", 0) << 17) | (f.get("vsrc1", 0) << 9) | f.get("src0", 0)]


def enc_vop1(op, f):
    return [(0b0111111 << 25) | (f.get("vdst", 0) << 17) | (op << 9) | f.get("src0", 0)]


def enc_vopc(op, f):
    return [(0b0111110 << 25) | (op << 17) | (f.get("vsrc1", 0) << 9) | f.get("src0", 0)]


def enc_vop3(op, f):
    return [(0b110100 << 26) | (op << 16) | f.get("vdst", 0),
            f.get("src0", 0) | (f.get("src1", 0) << 9) | (f.get("src2", 0) << 18)]


def enc_vop3p(op, f):
    # op_sel_hi (w0 bit 14, w1 bits 27-28) is set, its default, unless the probe clears it
    # (`opsel_hi: 0`): LLVM 22 refuses gfx950's f8f6f4 MFMAs with it set.
    hi = f.get("opsel_hi", 1)
    return [(0b110100111 << 23) | (op << 16) | (hi << 14) | f.get("vdst", 0),
            f.get("src0", 0) | (f.get("src1", 0) << 9) | (f.get("src2", 0) << 18) | ((3 * hi) << 27)]


def enc_ds(op, f):
    return [(0b110110 << 26) | (op << 17) | (f.get("gds", 0) << 16) | (f.get("offset1", 0) << 8) | f.get("offset0", 0),
            (f.get("vdst", 0) << 24) | (f.get("data1", 0) << 16) | (f.get("data0", 0) << 8) | f.get("addr", 0)]


def enc_flat(seg):
    def enc(op, f):
        return [(0b110111 << 26) | (op << 18) | (seg << 14),
                (f.get("vdst", 0) << 24) | (f.get("saddr", 0x7F if seg else 0) << 16) | (f.get("data", 0) << 8) | f.get("addr", 0)]
    return enc


def enc_mubuf(op, f):
    return [(0b111000 << 26) | (op << 18) | (f.get("offen", 0) << 12) | f.get("offset", 0),
            (f.get("soffset", 0) << 24) | (f.get("srsrc", 0) << 16) | (f.get("vdata", 0) << 8) | f.get("vaddr", 0)]


def enc_mtbuf(op, f):
    return [(0b111010 << 26) | (1 << 23) | (4 << 19) | (op << 15) | (1 << 12) | 0x10,
            (f.get("soffset", 0) << 24) | (f.get("srsrc", 0) << 16) | (f.get("vdata", 0) << 8) | f.get("vaddr", 0)]


def enc_mimg(op, f):
    return [(0b111100 << 26) | (op << 18) | (f.get("dmask", 0) << 8),
            (f.get("ssamp", 0) << 21) | (f.get("srsrc", 0) << 16) | (f.get("vdata", 0) << 8) | f.get("vaddr", 0)]


V = 256
# family: (opcode count, encoder, [(field, [probe values])])
FAMILIES = {
    "Sop2": (0x60, enc_sop2, [("sdst", [10]), ("ssrc0", [20]), ("ssrc1", [30])]),
    "Sopk": (0x1D, enc_sopk, [("sdst", [10]), ("simm16", [0x1234])]),
    "Sop1": (0x100, enc_sop1, [("sdst", [10]), ("ssrc0", [20])]),
    "Sopc": (0x80, enc_sopc, [("ssrc0", [20]), ("ssrc1", [30])]),
    "Sopp": (0x80, enc_sopp, [("simm16", [3])]),
    "Smem": (0x100, enc_smem, [("imm", [1]), ("sdata", [20]), ("sbase", [4]), ("offset", [0x10])]),
    "Vop2": (0x3F, enc_vop2, [("vdst", [10]), ("src0", [V + 20, 20]), ("vsrc1", [30])]),
    "Vop1": (0x100, enc_vop1, [("vdst", [10]), ("src0", [V + 20, 20])]),
    "Vopc": (0x100, enc_vopc, [("src0", [V + 20, 20]), ("vsrc1", [30])]),
    "Vop3": (0x380, enc_vop3, [("vdst", [10]), ("src0", [V + 20, 20]), ("src1", [V + 30, 30]), ("src2", [V + 40, 40])]),
    "Vop3p": (0x80, enc_vop3p, [("vdst", [10]), ("src0", [V + 20, 20]), ("src1", [V + 30, 30]), ("src2", [V + 40, 40])]),
    "Ds": (0x100, enc_ds, [("vdst", [10]), ("addr", [20]), ("data0", [30]), ("data1", [40]), ("offset0", [0x10]), ("offset1", [0x20])]),
    "Flat": (0x80, enc_flat(0), [("vdst", [10]), ("addr", [20]), ("data", [30])]),
    "Scratch": (0x80, enc_flat(1), [("vdst", [10]), ("addr", [20]), ("data", [30]), ("saddr", [40])]),
    "Global": (0x80, enc_flat(2), [("vdst", [10]), ("addr", [20]), ("data", [30]), ("saddr", [40])]),
    "Mubuf": (0x80, enc_mubuf, [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("soffset", [30]),
                                ("offen", [1]), ("offset", [0x10])]),
    "Mtbuf": (0x10, enc_mtbuf, [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("soffset", [30])]),
    "Mimg": (0x80, enc_mimg, [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("ssamp", [10]), ("dmask", [1])]),
}

# GFX10 (RDNA1/2) layouts: the SALU and short VALU words are as on GFX9; SMEM, VOP3, VOP3P, DS,
# FLAT, MUBUF and MTBUF moved fields (VOP3 literals, dlc bits, `null` = 125 as "no SGPR").
NULL = 0x7D


def enc_smem10(op, f):
    return [(0b111101 << 26) | (op << 18) | (f.get("sdata", 0) << 6) | f.get("sbase", 0),
            (f.get("soffset", NULL) << 25) | f.get("offset", 0)]


def enc_vop3_10(op, f):
    return [(0b110101 << 26) | (op << 16) | f.get("vdst", 0),
            f.get("src0", 0) | (f.get("src1", 0) << 9) | (f.get("src2", 0) << 18)]


def enc_vop3p10(op, f):
    return [(0b110011000 << 23) | (op << 16) | (1 << 14) | f.get("vdst", 0),
            f.get("src0", 0) | (f.get("src1", 0) << 9) | (f.get("src2", 0) << 18) | (3 << 27)]


def enc_ds10(op, f):
    return [(0b110110 << 26) | (op << 18) | (f.get("gds", 0) << 17) | (f.get("offset1", 0) << 8) | f.get("offset0", 0),
            (f.get("vdst", 0) << 24) | (f.get("data1", 0) << 16) | (f.get("data0", 0) << 8) | f.get("addr", 0)]


def enc_flat10(seg):
    def enc(op, f):
        return [(0b110111 << 26) | (op << 18) | (seg << 14),
                (f.get("vdst", 0) << 24) | (f.get("saddr", NULL) << 16) | (f.get("data", 0) << 8) | f.get("addr", 0)]
    return enc


def enc_mubuf10(op, f):
    return [(0b111000 << 26) | (op << 18) | (f.get("offen", 0) << 12) | f.get("offset", 0),
            (f.get("soffset", 0) << 24) | (f.get("srsrc", 0) << 16) | (f.get("vdata", 0) << 8) | f.get("vaddr", 0)]


# GFX10 MTBUF: opcode bits 2:0 in word 0 (18:16), bit 3 in word 1 (bit 21); 7-bit unified format
# (22 = BUF_FMT_32_FLOAT) in 25:19.
def enc_mtbuf10(op, f):
    return [(0b111010 << 26) | (22 << 19) | ((op & 7) << 16) | (1 << 12) | 0x10,
            (f.get("soffset", 0) << 24) | (f.get("srsrc", 0) << 16) | ((op >> 3) << 21) | (f.get("vdata", 0) << 8) | f.get("vaddr", 0)]


# GFX10 MIMG: dim (5:3) and NSA (2:1) in word 0, no `da`/`r128`; a16 and d16 in word 1 (30, 31);
# opcode bit 7 in word 0 bit 0 (the `_g16` samples, `image_bvh*`).
# The probes use dim 0 (1D) and no NSA; the address widths of other dims are probed separately
# (gen_tables.py, `probe_mimg_vaddr`).
def enc_mimg10(op, f):
    return [(0b111100 << 26) | ((op & 0x7F) << 18) | (f.get("dmask", 0) << 8) | (op >> 7),
            (f.get("ssamp", 0) << 21) | (f.get("srsrc", 0) << 16) | (f.get("vdata", 0) << 8) | f.get("vaddr", 0)]


FAMILIES_GFX10 = {
    "Sop2": FAMILIES["Sop2"],
    "Sopk": FAMILIES["Sopk"],
    "Sop1": FAMILIES["Sop1"],
    "Sopc": FAMILIES["Sopc"],
    "Sopp": FAMILIES["Sopp"],
    "Smem": (0x100, enc_smem10, [("sdata", [20]), ("sbase", [4]), ("offset", [0x10]), ("soffset", [30])]),
    "Vop2": FAMILIES["Vop2"],
    "Vop1": FAMILIES["Vop1"],
    "Vopc": FAMILIES["Vopc"],
    "Vop3": (0x400, enc_vop3_10, [("vdst", [10]), ("src0", [V + 20, 20]), ("src1", [V + 30, 30]), ("src2", [V + 40, 40])]),
    "Vop3p": (0x80, enc_vop3p10, [("vdst", [10]), ("src0", [V + 20, 20]), ("src1", [V + 30, 30]), ("src2", [V + 40, 40])]),
    "Ds": (0x100, enc_ds10, [("vdst", [10]), ("addr", [20]), ("data0", [30]), ("data1", [40]), ("offset0", [0x10]), ("offset1", [0x20])]),
    "Flat": (0x80, enc_flat10(0), [("vdst", [10]), ("addr", [20]), ("data", [30])]),
    "Scratch": (0x80, enc_flat10(1), [("vdst", [10]), ("addr", [20]), ("data", [30]), ("saddr", [40])]),
    "Global": (0x80, enc_flat10(2), [("vdst", [10]), ("addr", [20]), ("data", [30]), ("saddr", [40])]),
    "Mubuf": (0x80, enc_mubuf10, [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("soffset", [30]),
                                  ("offen", [1]), ("offset", [0x10])]),
    "Mtbuf": (0x10, enc_mtbuf10, [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("soffset", [30])]),
    "Mimg": (0x100, enc_mimg10, [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("ssamp", [10]), ("dmask", [1])]),
}

# Oracle targets: a processor, optionally with `+wavefrontsize64` (see oracle.py).
TARGETS = ["gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx1030"]
# The wave64 view of gfx1030: the same words, lane masks printed 64 bits wide.
GFX1030_W64 = "gfx1030+wavefrontsize64"


def families(target):
    """The family layouts of a target."""
    if target.startswith("gfx12"):
        return FAMILIES_GFX12
    if target.startswith("gfx11"):
        return FAMILIES_GFX11
    return FAMILIES_GFX10 if target.startswith("gfx10") else FAMILIES


def variants(fam, target="gfx803"):
    """Every assignment of the optional fields: absent (0) or one of its probe values."""
    fields = families(target)[fam][2]
    choices = [[None] + vals for _, vals in fields]
    for combo in itertools.product(*choices):
        yield {name: v for (name, _), v in zip(fields, combo) if v is not None}

# GFX11 (RDNA3, RDNA3.5) layouts, as llvm-objdump-22 reads them. `null` is 124 and `m0` 125 (the
# M0/NULL swap); SMEM, VOP3, VOP3P and DS are as on GFX10; FLAT has the segment in bits 17:16,
# MUBUF/MTBUF carry offen/idxen in word 1, and VOPD packs two VALU halves into one instruction.
NULL11 = 0x7C


def enc_smem11(op, f):
    return [(0b111101 << 26) | (op << 18) | (f.get("sdata", 0) << 6) | f.get("sbase", 0),
            (f.get("soffset", NULL11) << 25) | f.get("offset", 0)]


def enc_flat11(seg):
    def enc(op, f):
        return [(0b110111 << 26) | (op << 18) | (seg << 16),
                (f.get("vdst", 0) << 24) | (f.get("sve", 0) << 23) | (f.get("saddr", NULL11) << 16) | (f.get("data", 0) << 8)
                | f.get("addr", 0)]
    return enc


def enc_mubuf11(op, f):
    return [(0b111000 << 26) | (op << 18) | f.get("offset", 0),
            (f.get("soffset", 0) << 24) | (f.get("offen", 0) << 22) | (f.get("srsrc", 0) << 16) | (f.get("vdata", 0) << 8)
            | f.get("vaddr", 0)]


# GFX11 MTBUF: 4-bit opcode in 18:15, 7-bit unified format (22 = BUF_FMT_32_FLOAT) in 25:19.
def enc_mtbuf11(op, f):
    return [(0b111010 << 26) | (22 << 19) | (op << 15) | 0x10,
            (f.get("soffset", 0) << 24) | (1 << 22) | (f.get("srsrc", 0) << 16) | (f.get("vdata", 0) << 8) | f.get("vaddr", 0)]


# VOPD: X opcode in 25:22, Y opcode in 21:17; srcX0 8:0, vsrcX1 16:9; word 1 srcY0 8:0, vsrcY1
# 16:9, vdstY>>1 23:17 (its low bit is the opposite of vdstX's), vdstX 31:24. Each half is probed
# with the other fixed to a valid operation on other register banks.
def enc_vopd_x(op, f):
    return [(0b110010 << 26) | (op << 22) | (8 << 17) | (f.get("vsrc1", 0) << 9) | f.get("src0", V + 1),
            (f.get("vdst", 0) << 24) | (1 << 17) | (V + 4)]


def enc_vopd_y(op, f):
    return [(0b110010 << 26) | (3 << 22) | (op << 17) | (2 << 9) | (V + 1),
            (0 << 24) | ((f.get("vdst", 1) >> 1) << 17) | (f.get("vsrc1", 0) << 9) | f.get("src0", V)]


# GFX11 MIMG (non-NSA): dim 4:2, dmask 11:8, opcode 25:18; vaddr, vdata, srsrc>>2 52:48, ssamp>>2
# 62:58.
def enc_mimg11(op, f):
    return [(0b111100 << 26) | (op << 18) | (f.get("dmask", 0) << 8),
            (f.get("ssamp", 0) << 26) | (f.get("srsrc", 0) << 16) | (f.get("vdata", 0) << 8) | f.get("vaddr", 0)]



# GFX11 LDSDIR (0xce in 31:24): opcode 21:20, wait_vdst 19:16, attr 15:10, attrchan 9:8, vdst 7:0.
# VINTERP (0xcd in 31:24): opcode 22:16, clamp 15, op_sel 14:11, wait_exp 10:8, vdst 7:0; word 1:
# neg 31:29, src2 26:18, src1 17:9, src0 8:0 (VGPRs: 256 + n). Graphics only (interpolation).
def enc_ldsdir11(op, f):
    return [(0xCE << 24) | (op << 20) | (f.get("attr", 0) << 10) | f.get("vdst", 0)]


# EXP (0x3e in 31:26, no opcode): en 3:0, target 9:4, done 11, row_en 13; word 1: vsrc0-3, a
# byte each. Graphics only (exports to the colour, depth and position buffers).
def enc_exp11(op, f):
    return [(0x3E << 26) | (f.get("tgt", 0) << 4) | 0xF, (f.get("vsrc", 1) * 0x01010101 + 0x03020100)]


def enc_vinterp11(op, f):
    return [(0xCD << 24) | (op << 16) | f.get("vdst", 0),
            (f.get("src2", V + 3) << 18) | (f.get("src1", V + 2) << 9) | f.get("src0", V + 1)]


FAMILIES_GFX11 = {
    "Sop2": FAMILIES["Sop2"],
    "Sopk": FAMILIES["Sopk"],
    "Sop1": FAMILIES["Sop1"],
    "Sopc": FAMILIES["Sopc"],
    "Sopp": FAMILIES["Sopp"],
    "Smem": (0x100, enc_smem11, [("sdata", [20]), ("sbase", [4]), ("offset", [0x10]), ("soffset", [30])]),
    "Vop2": FAMILIES["Vop2"],
    "Vop1": FAMILIES["Vop1"],
    "Vopc": FAMILIES["Vopc"],
    "Vop3": FAMILIES_GFX10["Vop3"],
    "Vop3p": FAMILIES_GFX10["Vop3p"],
    "Ds": FAMILIES_GFX10["Ds"],
    "Flat": (0x80, enc_flat11(0), [("vdst", [10]), ("addr", [20]), ("data", [30])]),
    "Scratch": (0x80, enc_flat11(1), [("vdst", [10]), ("addr", [20]), ("data", [30]), ("saddr", [40]), ("sve", [1])]),
    "Global": (0x80, enc_flat11(2), [("vdst", [10]), ("addr", [20]), ("data", [30]), ("saddr", [40])]),
    "Mubuf": (0x100, enc_mubuf11, [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("soffset", [30]),
                                   ("offen", [1]), ("offset", [0x10])]),
    "Mtbuf": (0x10, enc_mtbuf11, [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("soffset", [30])]),
    "Mimg": (0x100, enc_mimg11, [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("ssamp", [10]), ("dmask", [1])]),
    "VopdX": (0x10, enc_vopd_x, [("vdst", [10]), ("src0", [V + 21, 21]), ("vsrc1", [30])]),
    "VopdY": (0x20, enc_vopd_y, [("vdst", [11]), ("src0", [V + 20, 20]), ("vsrc1", [31])]),
    "Ldsdir": (0x4, enc_ldsdir11, [("vdst", [10]), ("attr", [2])]),
    "Exp": (0x1, enc_exp11, [("tgt", [12])]),
    "Vinterp": (0x80, enc_vinterp11, [("vdst", [10]), ("src0", [V + 20]), ("src1", [V + 21]), ("src2", [V + 22])]),
}

# LLVM 22's RDNA targets (probes-rdna.json): GFX11 (gfx1100; gfx1151 adds RDNA3.5's opcodes).
RDNA_TARGETS = ["gfx1100", "gfx1151"]

# GFX12 (RDNA4: gfx1200, gfx1201) layouts, as llvm-objdump-22 reads them (probes-gfx12.json).
# The SALU, VALU (VOP1/2/C/3/3P, VOPD) and DS words are GFX11's. New: SMEM with a 6-bit opcode
# in 18:13, cache policy `th` 24:23 and `scope` 22:21, a signed 24-bit offset and `soffset` in
# 31:25 of word 1; the three-dword VFLAT/VGLOBAL/VSCRATCH (segment 25:24, opcode 21:14, saddr
# 6:0; word 1: vdst 7:0, sve 17, scope 19:18, th 22:20, vdata 30:23; word 2: vaddr 7:0, signed
# 24-bit offset 31:8) and VBUFFER (opcode 21:14, MTBUF opcodes 0x80-0x8f, tfe 22, soffset 6:0;
# word 1: vdata 7:0, srsrc 17:9, cache policy as VFLAT, format 29:23, offen 30, idxen 31;
# word 2: vaddr 7:0, unsigned 24-bit offset 31:8). VIMAGE (0x34) and VSAMPLE (0x39) share one
# 8-bit opcode space (opcode 21:14, dmask 25:22, dim 2:0; word 1: vdata 7:0, rsrc 17:9, cache
# policy as VFLAT; word 2: vaddr0-3): one `Mimg` family whose probes with `ssamp` are VSAMPLE.


def enc_smem12(op, f):
    return [(0b111101 << 26) | (op << 13) | (f.get("sdata", 0) << 6) | f.get("sbase", 0),
            (f.get("soffset", NULL11) << 25) | f.get("offset", 0)]


def enc_vflat12(seg):
    def enc(op, f):
        return [(0b111011 << 26) | (seg << 24) | (op << 14) | f.get("saddr", NULL11),
                (f.get("data", 0) << 23) | (f.get("sve", 0) << 17) | f.get("vdst", 0),
                f.get("addr", 0)]
    return enc


def enc_vbuffer12(tbuffer):
    def enc(op, f):
        fmt = 22 if tbuffer else 1
        return [(0b110001 << 26) | ((op | (0x80 if tbuffer else 0)) << 14) | f.get("soffset", NULL11),
                (f.get("offen", 0) << 30) | (fmt << 23) | ((f.get("srsrc", 0) * 4) << 9) | f.get("vdata", 0),
                (f.get("offset", 0) << 8) | f.get("vaddr", 0)]
    return enc


def enc_mimg12(op, f):
    """VIMAGE, or VSAMPLE (sampler in word 1 31:23) when the probe has `ssamp`; `r128` (bit 4)
    only for the BVH opcodes, which need it."""
    sample = "ssamp" in f
    return [((0x39 if sample else 0x34) << 26) | (f.get("dmask", 0) << 22) | (op << 14) | (f.get("r128", 0) << 4),
            (f.get("ssamp", 0) * 4 << 23) | ((f.get("srsrc", 0) * 4) << 9) | f.get("vdata", 0),
            f.get("vaddr", 0)]


FAMILIES_GFX12 = {
    "Sop2": FAMILIES["Sop2"],
    "Sopk": FAMILIES["Sopk"],
    "Sop1": FAMILIES["Sop1"],
    "Sopc": FAMILIES["Sopc"],
    "Sopp": FAMILIES["Sopp"],
    "Smem": (0x40, enc_smem12, [("sdata", [20]), ("sbase", [4]), ("offset", [0x10]), ("soffset", [30])]),
    "Vop2": FAMILIES["Vop2"],
    "Vop1": FAMILIES["Vop1"],
    "Vopc": FAMILIES["Vopc"],
    "Vop3": FAMILIES_GFX10["Vop3"],
    "Vop3p": FAMILIES_GFX10["Vop3p"],
    "Ds": FAMILIES_GFX10["Ds"],
    "Flat": (0x100, enc_vflat12(0), [("vdst", [10]), ("addr", [20]), ("data", [30])]),
    "Scratch": (0x100, enc_vflat12(1), [("vdst", [10]), ("addr", [20]), ("data", [30]), ("saddr", [40]), ("sve", [1])]),
    "Global": (0x100, enc_vflat12(2), [("vdst", [10]), ("addr", [20]), ("data", [30]), ("saddr", [40])]),
    "Mubuf": (0x80, enc_vbuffer12(False), [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("soffset", [30]),
                                          ("offen", [1]), ("offset", [0x10])]),
    "Mtbuf": (0x10, enc_vbuffer12(True), [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("soffset", [30]),
                                         ("offen", [1])]),
    "Mimg": (0x100, enc_mimg12, [("vdata", [10]), ("vaddr", [20]), ("srsrc", [4]), ("ssamp", [10]), ("dmask", [1])]),
    "VopdX": FAMILIES_GFX11["VopdX"],
    "VopdY": FAMILIES_GFX11["VopdY"],
    "Ldsdir": FAMILIES_GFX11["Ldsdir"],  # VDSDIR: GFX11's LDSDIR layout, wait_vm_vsrc in bit 23
    "Exp": FAMILIES_GFX11["Exp"],  # EXPORT
    "Vinterp": FAMILIES_GFX11["Vinterp"],
}

# LLVM 22's GFX12 targets (probes-gfx12.json): gfx1200 and gfx1201 (the same instruction set).
GFX12_TARGETS = ["gfx1200", "gfx1201"]
