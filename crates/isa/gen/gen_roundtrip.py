"""Writes tests/data/roundtrip-<target>.txt: machine words and llvm-objdump-15's text for every
opcode of every family, plus randomised operands and modifiers around each one.

Every line is `<hex words>\t<text>`; the test decodes the words and compares the text. The
words start from the probe that showed the opcode's operand fields (probes.json), then
randomise those fields and the family's modifier bits; only words llvm-objdump decodes are kept.
"""
import json
import random
import sys
import oracle
import os
from families import GFX12_TARGETS, GFX1030_W64, NULL, NULL11, RDNA_TARGETS, TARGETS, V, families

rng = random.Random(1234)


def rsrc9(vgpr=True, lit=True):
    r = rng.random()
    if vgpr and r < 0.45:
        return V + rng.randrange(256)
    if r < 0.7:
        return rng.randrange(0, 106)
    choices = list(range(102, 128)) + list(range(128, 209)) + list(range(235, 255))
    if lit:
        choices += [255] * 20
    return rng.choice(choices)


def rlit():
    return rng.choice([rng.getrandbits(32), rng.randrange(-16, 65) & 0xFFFFFFFF, 0x3F800000, 0x3E22F983,
                       0x3800, 0x3118, 0xBC00, rng.getrandbits(16), 0x40000000])


def mutate(fam, fields, words):
    w = list(words)
    f = fields
    if fam in ("Sop2", "Sop1", "Sopc"):
        for name, shift in (("ssrc0", 0), ("ssrc1", 8)):
            if name in f:
                v = rsrc9(vgpr=False)
                w[0] = (w[0] & ~(0xFF << shift)) | (v << shift)
        if "sdst" in f:
            w[0] = (w[0] & ~(0x7F << 16)) | (rng.choice(list(range(0, 106)) + [106, 124, 126]) << 16)
        return w + [rlit()]
    if fam in ("Sopk", "Sopp"):
        w[0] = (w[0] & ~0xFFFF) | rng.getrandbits(16)
        return w + [rlit()]
    if fam == "Smem":
        w[0] |= rng.getrandbits(1) << 16  # glc
        if rng.random() < 0.3:
            w[0] &= ~(1 << 17)  # soffset
            w[1] = rng.randrange(0, 102)
        else:
            w[1] = rng.getrandbits(20)
        return w
    if fam in ("Vop1", "Vop2", "Vopc"):
        r = rng.random()
        if "src0" in f:
            if r < 0.15:
                w[0] = (w[0] & ~0x1FF) | 0xF9
                return w + [rng.getrandbits(32) & 0xFFFF3F00 | (w[0] & 0 ) | rng.randrange(256)]
            if r < 0.3:
                w[0] = (w[0] & ~0x1FF) | 0xFA
                return w + [rng.getrandbits(32) & ~0x000000FF | rng.randrange(256)]
            w[0] = (w[0] & ~0x1FF) | rsrc9()
        if "vdst" in f:
            w[0] = (w[0] & ~(0xFF << 17)) | (rng.randrange(256) << 17) if fam != "Vopc" else w[0]
        return w + [rlit()]
    if fam in ("Vop3", "Vop3p"):
        for name, shift in (("src0", 0), ("src1", 9), ("src2", 18)):
            if name in f:
                w[1] = (w[1] & ~(0x1FF << shift)) | (rsrc9(lit=False) << shift)
        if fam == "Vop3":
            w[0] |= rng.getrandbits(1) << 15 if rng.random() < 0.3 else 0  # clamp
            if rng.random() < 0.4:
                w[0] |= rng.getrandbits(3) << 8  # abs / sdst
            if rng.random() < 0.3:
                w[0] |= rng.getrandbits(4) << 11  # op_sel
            if rng.random() < 0.4:
                w[1] |= rng.getrandbits(3) << 29  # neg
            if rng.random() < 0.2:
                w[1] |= rng.getrandbits(2) << 27  # omod
        elif f.get("opsel_hi") == 0:
            # gfx950 f8f6f4 MFMA: op_sel_hi and ABID 0 (LLVM refuses them); random formats
            # (CBSZ, BLGP: the A/B widths), AGPR bits for A/B and acc_cd, even VGPRs (its
            # register classes are aligned pairs).
            w[0] = (w[0] & ~0xFF) | (2 * rng.randrange(100))
            for shift in (0, 9, 18):
                w[1] = (w[1] & ~(0x1FF << shift)) | ((256 + 2 * rng.randrange(100)) << shift)
            w[0] = (w[0] & ~(0xFF << 8)) | (rng.getrandbits(3) << 8) | (rng.getrandbits(1) << 15)
            w[1] = (w[1] & ~(0x1F << 27)) | (rng.getrandbits(2) << 27) | (rng.getrandbits(3) << 29)
        else:
            w[0] = (w[0] & ~(0xFF << 8)) | (rng.getrandbits(8) << 8)
            w[1] = (w[1] & ~(7 << 27)) | (rng.getrandbits(5) << 27)
        return w
    if fam == "Ds":
        w[0] = (w[0] & ~0x1FFFF) | rng.getrandbits(16) | (rng.getrandbits(1) << 16 if rng.random() < 0.1 else 0)
        return w
    if fam in ("Flat", "Global", "Scratch"):
        w[0] = (w[0] & ~0x1FFF) | rng.getrandbits(13)
        w[0] |= rng.getrandbits(2) << 16
        w[0] |= (1 << 25) if rng.random() < 0.2 else 0  # scc / sc1
        if fam != "Flat" and rng.random() < 0.5:
            w[1] = (w[1] & ~(0x7F << 16)) | (0x7F << 16)
        return w
    if fam in ("Mubuf", "Mtbuf"):
        if "offset" in f or fam == "Mtbuf":
            w[0] = (w[0] & ~0x3FFF) | rng.getrandbits(14)
        w[0] |= rng.getrandbits(1) << 17
        if fam == "Mubuf":
            w[0] |= rng.getrandbits(1) << 14 if rng.random() < 0.5 else 0  # glc
            w[0] |= rng.getrandbits(1) << 15 if rng.random() < 0.3 else 0  # scc / sc1
            w[0] |= rng.getrandbits(1) << 16 if rng.random() < 0.2 else 0  # lds
        if "soffset" not in f:
            return w
        w[1] = (w[1] & ~(0xFF << 24)) | (rng.choice(list(range(0, 102)) + list(range(128, 209))) << 24)
        return w
    if fam == "Mimg":
        w[0] = (w[0] & ~(0xF << 8)) | (rng.randrange(1, 16) << 8)
        w[0] |= rng.getrandbits(1) << 12
        return w
    return w


def mutate_mimg10(r, words):
    """GFX10 MIMG: dmask, dim, NSA (with its address bytes), the cache and format bits, a16/d16.
    `r` is MIMG's own generator, so adding MIMG left the other families' samples as they were."""
    w = list(words[:2])
    w[0] = (w[0] & ~((0xF << 8) | 0x3E)) | (r.randrange(1, 16) << 8) | (r.randrange(8) << 3)
    for bit, p in ((7, 0.3), (12, 0.3), (13, 0.3), (16, 0.1), (17, 0.1), (25, 0.3)):
        w[0] |= (1 << bit) if r.random() < p else 0
    w[1] = (w[1] & ~0xFF) | r.randrange(240)  # a 16-VGPR tuple stays below v256
    w[1] |= (1 << 30) if r.random() < 0.2 else 0
    w[1] |= (1 << 31) if r.random() < 0.2 else 0
    nsa = r.choice([0, 0, 1, 1, 2, 3])
    w[0] |= nsa << 1
    return w + [r.getrandbits(32) for _ in range(nsa)]


def mutate_mimg11_nsa(r, words):
    """GFX11 MIMG with NSA (bit 0): dmask, dim, the cache and format bits, a16/d16, tfe/lwe, and
    a third word of four address VGPRs. `r` is its own generator, so adding these cases left
    the other samples as they were."""
    w = list(words)
    w[0] = (w[0] & ~0x3FFFE) | (r.randrange(1, 16) << 8) | (r.getrandbits(3) << 2) | 1
    w[0] |= r.getrandbits(1) << 7
    w[0] |= r.getrandbits(6) << 12 if r.random() < 0.5 else 0
    w[1] |= r.getrandbits(2) << 21 if r.random() < 0.3 else 0
    return w + [r.getrandbits(32)]


def mutate_mimg12(r, fields, words):
    """GFX12 VIMAGE/VSAMPLE: dmask, dim, r128/a16/d16/nv, cache policy, tfe (VSAMPLE: unorm,
    lwe), the data, address, resource and sampler registers. `r` is the family's own generator."""
    w = list(words)
    sample = w[0] >> 26 == 0x39
    bvh = "r128" in fields
    if not bvh:
        w[0] = (w[0] & ~((0xF << 22) | 7)) | (r.randrange(16) << 22) | r.randrange(8)
        w[0] |= (1 << 4) if r.random() < 0.2 else 0  # r128
    for bit, p in ((5, 0.2), (6, 0.25), (7, 0.2)):  # d16, a16, nv
        w[0] |= (1 << bit) if r.random() < p else 0
    w[1] = (w[1] & ~(0x1F << 18)) | (r.getrandbits(5) << 18)  # scope, th
    w[1] = (w[1] & ~0xFF) | r.randrange(240)  # vdata
    rsrc = r.choice(list(range(0, 100, 4)) + [108, 112, 116])
    w[1] = (w[1] & ~(0x1FF << 9)) | (rsrc << 9)
    w[2] = r.getrandbits(32) & 0x7F7F7F7F if r.random() < 0.7 else r.randrange(240)
    if sample:
        w[0] |= (1 << 3) if r.random() < 0.2 else 0  # tfe
        w[0] |= (1 << 13) if r.random() < 0.3 else 0  # unorm
        w[1] |= (1 << 8) if r.random() < 0.2 else 0  # lwe
        samp = r.choice(list(range(0, 104, 4)) + [108, 112, 120, NULL11])
        w[1] = (w[1] & ~(0x1FF << 23)) | (samp << 23)
        if r.random() < 0.5:
            w[2] &= 0xFFFFFF  # vaddr3, which must be 0 when unused
    else:
        w[1] |= (1 << 23) if r.random() < 0.2 else 0  # tfe
        w[1] = (w[1] & ~(0xFF << 24)) | ((r.randrange(1, 128) << 24) if r.random() < 0.3 else 0)  # vaddr4
    return w


def mimg12_data_fits(words, text):
    """GFX12: leaves out the words whose data tuple would pass v255 (LLVM then falls back to
    the first variant it decoded, which hsaemu does not mimic)."""
    w0, w1 = words[0], words[1]
    sample = w0 >> 26 == 0x39
    n = 4 if text.startswith("image_gather4") else max(1, bin((w0 >> 22) & 0xF).count("1"))
    if (w0 >> 5) & 1:
        n = (n + 1) // 2
    n += (w0 >> 3) & 1 if sample else (w1 >> 23) & 1
    return (w1 & 0xFF) + n <= 256


def mimg_data_fits(words, text):
    """Whether llvm-objdump printed the data operand as wide as dmask, d16 and tfe make it. When
    the opcode has no variant of that width (a dmask an atomic does not take), LLVM falls back to
    the first variant it decoded, address operand included; hsaemu does not mimic that choice on
    such invalid encodings, so those words are left out."""
    w0, w1 = words[0], words[1]
    n = 4 if text.startswith("image_gather4") else max(1, bin((w0 >> 8) & 0xF).count("1"))
    if w1 >> 31:
        n = (n + 1) // 2
    n += (w0 >> 16) & 1
    first = text.partition(" ")[2].split(",")[0]
    width = 1 if ":" not in first else int(first.split(":")[1].rstrip("]")) - int(first[2:].split(":")[0]) + 1
    return width == n


def mutate10(fam, fields, words):
    """GFX10: the families whose layout or operand choices differ from GFX9's."""
    w = list(words)
    f = fields
    if fam in ("Sop2", "Sop1", "Sopk") and "sdst" in f and rng.random() < 0.1:
        w = mutate(fam, fields, words)
        w[0] = (w[0] & ~(0x7F << 16)) | (NULL << 16)
        return w
    if fam == "Sopp":
        w = mutate(fam, fields, words)
        if rng.random() < 0.5:
            w[0] &= ~0x60  # s_waitcnt_depctr: only its fields set
        return w
    if fam == "Smem":
        w[0] |= rng.getrandbits(1) << 16  # glc
        w[0] |= rng.getrandbits(1) << 14  # dlc
        if "offset" in f or "soffset" in f:
            off = rng.choice([0, rng.getrandbits(21), rng.randrange(0, 0x100), rng.getrandbits(8) << 13])
            soff = rng.choice([NULL, NULL, rng.randrange(0, 106), 106, 124, 126])
            w[1] = (soff << 25) | off
        return w
    if fam in ("Vop1", "Vop2", "Vopc"):
        r = rng.random()
        if "src0" in f:
            if r < 0.12:
                w[0] = (w[0] & ~0x1FF) | 0xF9
                return w + [rng.getrandbits(32) & 0xFFFF3F00 | rng.randrange(256)]
            if r < 0.24:
                w[0] = (w[0] & ~0x1FF) | 0xFA
                return w + [rng.getrandbits(32) & ~0x000000FF | rng.randrange(256)]
            if r < 0.32:
                w[0] = (w[0] & ~0x1FF) | rng.choice([0xE9, 0xEA])
                return w + [rng.getrandbits(32)]
            w[0] = (w[0] & ~0x1FF) | rsrc9()
        if "vdst" in f:
            w[0] = (w[0] & ~(0xFF << 17)) | (rng.randrange(256) << 17) if fam != "Vopc" else w[0]
        return w + [rlit()]
    if fam in ("Vop3", "Vop3p"):
        w = mutate(fam, fields, words)
        for name, shift in (("src0", 0), ("src1", 9), ("src2", 18)):
            if name in f and rng.random() < 0.15:
                w[1] = (w[1] & ~(0x1FF << shift)) | (255 << shift)
        if fam == "Vop3" and "vdst" in f and rng.random() < 0.2:
            w[0] = (w[0] & ~0xFF) | rng.choice([106, 124, NULL, 126, rng.randrange(0, 106)])
        return w + [rlit()]
    if fam == "Ds":
        w[0] = (w[0] & ~0x3FFFF) | rng.getrandbits(16) | (rng.getrandbits(1) << 17 if rng.random() < 0.1 else 0)
        return w
    if fam in ("Flat", "Global", "Scratch"):
        w[0] = (w[0] & ~0x1FFF) | rng.getrandbits(13)  # offset and dlc
        w[0] |= rng.getrandbits(2) << 16  # glc, slc
        w[0] |= (1 << 13) if rng.random() < 0.1 else 0  # lds
        if fam != "Flat":
            r = rng.random()
            if r < 0.4:
                w[1] = (w[1] & ~(0x7F << 16)) | (NULL << 16)
            elif r < 0.5:
                w[1] = (w[1] & ~(0x7F << 16)) | (rng.choice([0x7F, 106, 124, 126, rng.randrange(0, 106)]) << 16)
        return w
    if fam in ("Mubuf", "Mtbuf"):
        if "offset" in f or fam == "Mtbuf":
            w[0] = (w[0] & ~0x3FFF) | rng.getrandbits(14)  # offset, offen, idxen
        w[0] |= rng.getrandbits(2) << 14  # glc, dlc
        if fam == "Mubuf":
            w[0] |= (1 << 16) if rng.random() < 0.2 else 0  # lds
        else:
            w[0] = (w[0] & ~(0x7F << 19)) | (rng.getrandbits(7) << 19)  # format
        w[1] |= rng.getrandbits(2) << 22  # slc, tfe
        if "soffset" not in f:
            return w
        w[1] = (w[1] & ~(0xFF << 24)) | (rng.choice(list(range(0, 106)) + [106, 124, NULL, 126] + list(range(128, 209))) << 24)
        return w
    return mutate(fam, fields, words)


def mutate11(fam, fields, words):
    """GFX11: the new layouts (SMEM cache bits, FLAT/MUBUF/MTBUF/MIMG fields, `null` = 124,
    VOPD), no SDWA."""
    w = list(words)
    f = fields
    if fam == "Smem":
        w[0] |= rng.getrandbits(2) << 13  # dlc, glc
        if "offset" in f or "soffset" in f:
            off = rng.choice([0, rng.getrandbits(21), rng.randrange(0, 0x100), rng.getrandbits(8) << 13])
            soff = rng.choice([NULL11, NULL11, rng.randrange(0, 106), 106, 125, 126])
            w[1] = (soff << 25) | off
        return w
    if fam in ("Vop1", "Vop2", "Vopc"):
        r = rng.random()
        if "src0" in f:
            if r < 0.15:
                w[0] = (w[0] & ~0x1FF) | 0xFA
                return w + [rng.getrandbits(32) & ~0x000000FF | rng.randrange(256)]
            if r < 0.25:
                w[0] = (w[0] & ~0x1FF) | rng.choice([0xE9, 0xEA])
                return w + [rng.getrandbits(32)]
            w[0] = (w[0] & ~0x1FF) | rsrc9()
        if "vdst" in f and fam != "Vopc":
            w[0] = (w[0] & ~(0xFF << 17)) | (rng.randrange(256) << 17)
        if "vsrc1" in f and rng.random() < 0.5:
            w[0] = (w[0] & ~(0xFF << 9)) | (rng.randrange(256) << 9)
        return w + [rlit()]
    if fam in ("Vop3", "Vop3p"):
        w = mutate(fam, fields, words)
        for name, shift in (("src0", 0), ("src1", 9), ("src2", 18)):
            if name in f and rng.random() < 0.15:
                w[1] = (w[1] & ~(0x1FF << shift)) | (255 << shift)
        if fam == "Vop3" and "vdst" in f and rng.random() < 0.2:
            w[0] = (w[0] & ~0xFF) | rng.choice([106, NULL11, 125, 126, rng.randrange(0, 106)])
        return w + [rlit()]
    if fam == "Ds":
        w[0] = (w[0] & ~0x3FFFF) | rng.getrandbits(16) | (rng.getrandbits(1) << 17 if rng.random() < 0.1 else 0)
        return w
    if fam in ("Flat", "Global", "Scratch"):
        w[0] = (w[0] & ~0xFFFF) | rng.getrandbits(16)  # offset, dlc, glc, slc
        if fam != "Flat":
            r = rng.random()
            if r < 0.4:
                w[1] = (w[1] & ~(0x7F << 16)) | (NULL11 << 16)
            elif r < 0.5:
                w[1] = (w[1] & ~(0x7F << 16)) | (rng.choice([0x7F, 106, 125, 126, rng.randrange(0, 106)]) << 16)
        if fam == "Scratch":
            w[1] = (w[1] & ~(1 << 23)) | (rng.getrandbits(1) << 23)
        return w
    if fam in ("Mubuf", "Mtbuf"):
        w[0] = (w[0] & ~0x7FFF) | rng.getrandbits(15)  # offset, slc, dlc, glc
        if fam == "Mubuf":
            w[0] |= (1 << 16) if rng.random() < 0.2 else 0  # lds
        else:
            w[0] = (w[0] & ~(0x7F << 19)) | (rng.getrandbits(7) << 19)  # format
        w[1] = (w[1] & ~(7 << 21)) | (rng.getrandbits(3) << 21)  # tfe, offen, idxen
        if "soffset" in f:
            w[1] = (w[1] & ~(0xFF << 24)) | (rng.choice(list(range(0, 106)) + [106, NULL11, 125, 126] + list(range(128, 209))) << 24)
        return w
    if fam == "Mimg":
        w[0] = (w[0] & ~0x3FFFE) | (rng.randrange(1, 16) << 8) | (rng.getrandbits(3) << 2)
        w[0] |= rng.getrandbits(1) << 7
        w[0] |= rng.getrandbits(6) << 12 if rng.random() < 0.5 else 0
        w[1] |= rng.getrandbits(2) << 21 if rng.random() < 0.3 else 0
        return w
    if fam in ("VopdX", "VopdY"):
        w[0] = (w[0] & ~0x1FFFF) | rsrc9() | (rng.randrange(256) << 9)
        w[1] = rsrc9() | (rng.randrange(256) << 9) | (rng.randrange(128) << 17) | (rng.randrange(256) << 24)
        return w + [rlit()]
    return mutate(fam, fields, words)


def mutate_interp11(r, fam, words):
    """GFX11 EXP (any target, en, done, row_en, VGPRs), LDSDIR (vdst, attrchan, attr, wait_vdst;
    now and then a reserved bit 23:22) and VINTERP (vdst, wait_exp, op_sel, clamp; VGPR sources,
    now and then an SGPR; neg), with their own generator `r` so that the other families' lines
    stay as they were."""
    w = list(words)
    if fam == "Exp":
        w[0] = (w[0] & ~0xFFFFFF) | r.getrandbits(24)
        w[0] = (w[0] & ~(0x3F << 4)) | (r.choice(list(range(9)) + list(range(12, 17)) + [20, 21, 22] + [r.randrange(64)]) << 4)
        w[1] = r.getrandbits(32)
        return w
    if fam == "Ldsdir":
        w[0] = (w[0] & ~0xFFFFF) | r.getrandbits(20)
        if r.random() < 0.05:
            w[0] |= r.randrange(1, 4) << 22
        return w
    w[0] = (w[0] & ~0xFFFF) | r.getrandbits(16)
    srcs = [V + r.randrange(256) if r.random() < 0.97 else r.randrange(256) for _ in range(3)]
    w[1] = srcs[0] | (srcs[1] << 9) | (srcs[2] << 18) | (r.getrandbits(3) << 29)
    return w


def mutate12(fam, fields, words):
    """GFX12: the new SMEM, VFLAT/VGLOBAL/VSCRATCH and VBUFFER layouts with their `th`/`scope`
    cache policies; everything else as on GFX11."""
    w = list(words)
    f = fields
    if fam == "Smem":
        w[0] = (w[0] & ~(0xF << 21)) | (rng.getrandbits(4) << 21)  # scope, th
        if "offset" in f or "soffset" in f:
            off = rng.choice([0, rng.getrandbits(24), rng.randrange(0, 0x100), rng.getrandbits(8) << 16])
            soff = rng.choice([NULL11, NULL11, rng.randrange(0, 106), 106, 125, 126])
            w[1] = (soff << 25) | off
        if "sdata" not in f and rng.random() < 0.5:
            w[0] = (w[0] & ~(0x7F << 6)) | (rng.randrange(128) << 6)  # s_prefetch_* count
        return w
    if fam in ("Flat", "Global", "Scratch"):
        w[1] = (w[1] & ~(0x1F << 18)) | (rng.getrandbits(5) << 18)  # scope, th
        off = rng.choice([0, rng.getrandbits(24), rng.randrange(0, 0x1000), (-rng.randrange(1, 0x1000)) & 0xFFFFFF])
        w[2] = (w[2] & 0xFF) | (off << 8)
        if "vdst" in f or "data" in f:
            w[1] = (w[1] & ~0xFF) | (rng.randrange(256) if "vdst" in f or rng.random() < 0.5 else 0)
        if fam != "Flat":
            r = rng.random()
            if r < 0.4:
                w[0] = (w[0] & ~0x7F) | NULL11
            elif r < 0.5:
                w[0] = (w[0] & ~0x7F) | rng.choice([106, 125, 126, rng.randrange(0, 106)])
        if fam == "Scratch":
            w[1] = (w[1] & ~(1 << 17)) | (rng.getrandbits(1) << 17)
        return w
    if fam in ("Mubuf", "Mtbuf"):
        w[1] = (w[1] & ~(0x1F << 18)) | (rng.getrandbits(5) << 18)  # scope, th
        w[1] = (w[1] & ~(3 << 30)) | (rng.getrandbits(2) << 30)  # offen, idxen
        w[0] = (w[0] & ~(1 << 22)) | ((1 << 22) if rng.random() < 0.3 else 0)  # tfe
        if fam == "Mtbuf":
            w[1] = (w[1] & ~(0x7F << 23)) | (rng.getrandbits(7) << 23)  # format
        off = rng.choice([0, rng.getrandbits(24), rng.randrange(0, 0x1000)])
        w[2] = (w[2] & 0xFF) | (off << 8)
        if "soffset" in f:
            w[0] = (w[0] & ~0x7F) | rng.choice(list(range(0, 106)) + [106, NULL11, 125, 126])
        return w
    return mutate11(fam, fields, words)


# Families whose text depends on the wave size (the wave64 round-trip file has only these).
WAVE_DEPENDENT = ("Vop1", "Vop2", "Vopc", "Vop3", "Vop3p")


# GFX11 EXP, LDSDIR and VINTERP: generated after the other families, each opcode with its own seed.
INTERP11 = ("Exp", "Ldsdir", "Vinterp")


def main(probes, outdir, samples, only):
    d = json.load(open(probes))
    # LLVM_VERSION=22: the targets of probes-llvm22.json (TABLES=rdna: of probes-rdna.json).
    targets = ["gfx942", "gfx950"] if oracle.LLVM == "22" else TARGETS + [GFX1030_W64]
    rdna = oracle.LLVM == "22" and os.environ.get("TABLES") == "rdna"
    if rdna:
        targets = RDNA_TARGETS + ["gfx1100+wavefrontsize64"]
    if oracle.LLVM == "22" and os.environ.get("TABLES") == "gfx12":
        targets = GFX12_TARGETS + ["gfx1201+wavefrontsize64"]
    for t in targets:
        src_t = t.split("+")[0]
        gfx10 = src_t.startswith(("gfx10", "gfx11", "gfx12"))
        if gfx10:
            # Seeded per target, so that the GFX8/GFX9 files stay as they were.
            rng.seed(t)
        if only and t not in only:
            continue
        cases = []
        for fam, ops in sorted(d[src_t].items()):
            if fam in INTERP11:
                continue  # below, after every other family
            if t.endswith("+wavefrontsize64") and fam not in WAVE_DEPENDENT:
                continue
            enc = families(src_t)[fam][1]
            for op, (fields, text, nwords) in sorted(ops.items(), key=lambda kv: int(kv[0])):
                base = enc(int(op), fields)
                cases.append(base)
                n = samples * (3 if fam in ("Vop1", "Vop2", "Vop3", "Vopc", "Sop1", "Sop2") else 1)
                if fields.get("opsel_hi") == 0:
                    n *= 16  # the f8f6f4 MFMAs: 25 valid format pairs, each with its own widths
                if gfx10 and fam in ("Sopp", "Sopk", "Smem"):
                    n *= 8  # the operand syntaxes new on GFX10 (depctr, sendmsg, hwreg, soffset)
                if src_t.startswith("gfx10") and fam == "Mimg":
                    mrng = random.Random("%s/mimg/%s" % (t, op))
                    cases.extend(mutate_mimg10(mrng, base) for _ in range(4 * n))
                    continue
                if src_t.startswith("gfx12") and fam == "Mimg":
                    mrng = random.Random("%s/mimg/%s" % (t, op))
                    cases.extend(mutate_mimg12(mrng, fields, base) for _ in range(12 * n))
                    continue
                mut = (mutate12 if src_t.startswith("gfx12") else mutate11 if src_t.startswith("gfx11")
                       else mutate10 if gfx10 else mutate)
                for _ in range(n):
                    cases.append(mut(fam, fields, base))
                if src_t.startswith("gfx11") and fam == "Mimg":
                    nrng = random.Random("%s/mimg-nsa/%s" % (t, op))
                    cases.extend(mutate_mimg11_nsa(nrng, base) for _ in range(2 * n))
        for fam in INTERP11:
            if fam not in d[src_t]:
                continue  # before GFX11
            enc = families(src_t)[fam][1]
            for op, (fields, _, _) in sorted(d[src_t].get(fam, {}).items(), key=lambda kv: int(kv[0])):
                base = enc(int(op), fields)
                irng = random.Random("%s/%s/%s" % (t, fam, op))
                cases.append(base)
                cases.extend(mutate_interp11(irng, fam, base) for _ in range(16 * samples))
        if gfx10:
            cases.extend(gfx9_prefixed_vop3p(t, 16 * samples))
        if src_t == "gfx950" and not t.endswith("+wavefrontsize64"):
            vop3p = families(src_t)["Vop3p"][1]
            cases.extend(scaled_mfma(d[src_t]["Vop3p"], vop3p, 64 * samples))
        res = oracle.disassemble(t, cases)
        lines = []
        for words, r in zip(cases, res):
            if r is None:
                continue
            text, nw = r
            if src_t.startswith("gfx10") and text.startswith("image_") and not mimg_data_fits(words, text):
                continue
            if src_t.startswith("gfx12") and text.startswith("image_") and not mimg12_data_fits(words, text):
                continue
            if "/*" in text or (text.startswith("v_interp") and not src_t.startswith(("gfx11", "gfx12"))):
                # llvm-objdump's comments on invalid fields (`/* Invalid dpp_ctrl value */`);
                # v_interp_* before GFX11 (VINTRP, graphics-only) is not decoded.
                continue
            words = list(words) + [oracle.NOP] * max(0, nw - len(words))
            lines.append("%s\t%s" % (" ".join("%08x" % x for x in words[:nw]), text))
        name = t.replace("+wavefrontsize64", "-wave64")
        with open("%s/roundtrip-%s.txt" % (outdir, name), "w") as f:
            f.write("# Generated by crates/isa/gen/gen_roundtrip.py with llvm-objdump-%s; do not edit.\n" % oracle.LLVM)
            f.write("# <machine words>\\t<llvm-objdump-%s text>\n" % oracle.LLVM)
            f.write("\n".join(lines) + "\n")
        print(t, len(lines), "of", len(cases), file=sys.stderr)


def gfx9_prefixed_vop3p(t, n):
    """GFX9's VOP3P prefix (bits 31:23 = 0x1a7) on GFX10.3, GFX11 and GFX12, which llvm-objdump
    still decodes for some opcodes (the v_fma_mix* of its GFX9 "DL" table; LLVM 15 on gfx1030 also
    the GFX9 v_pk_mad/v_pk_fma and v_dot* numbers): the opcodes the oracle decodes, each with `n`
    random operands and modifiers (GFX10 VOP3P fields, a literal word after), from their own
    generator so that the other lines stay as they were."""
    probe = [[0xD3800000 | op << 16 | 4, 0x040E0501] for op in range(128)]
    ops = [op for op, r in zip(range(128), oracle.disassemble(t, probe)) if r is not None]
    out = []
    for op in ops:
        r = random.Random("%s/gfx9-vop3p/%d" % (t, op))
        for _ in range(n):
            srcs = [r.choice([V + r.randrange(256), V + r.randrange(256), r.randrange(106),
                              r.randrange(128, 209), r.randrange(240, 249), 255])
                    for _ in range(3)]
            w0 = 0xD3800000 | op << 16 | r.getrandbits(16)
            w1 = srcs[0] | srcs[1] << 9 | srcs[2] << 18 | r.getrandbits(5) << 27
            out.append([w0, w1, r.choice([r.getrandbits(32), 0x3F800000, 0x3800, 0xBC00])])
    return out


def scaled_mfma(ops, enc, n):
    """gfx950's scaled MFMAs: a random `v_mfma_ld_scale_b32` (0x2c) and a random f8f6f4 MFMA
    (0x2d, 0x2e) with ABID 1, which llvm-objdump prints as one 16-byte instruction."""
    out = []
    ld = ops["44"][0]
    for i in range(n):
        op = str(45 + i % 2)
        f = ops[op][0]
        m = mutate("Vop3p", f, enc(int(op), f))
        m[0] |= 1 << 11
        out.append(mutate("Vop3p", ld, enc(44, ld)) + m)
    return out


# `gen_roundtrip.py PROBES OUTDIR SAMPLES [TARGET…]` (GFX10 targets are seeded on their own, so
# regenerating one of them alone gives the same file).
main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:])
