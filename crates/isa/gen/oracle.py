"""Runs llvm-objdump-15 on probe words: the oracle every generated table comes from.

`LLVM_VERSION` (environment, default 15) picks another LLVM: 22 is the oracle for gfx942/gfx950.

`disassemble(target, probes)` assembles each probe (a list of 32-bit words) into its own 16-byte
slot of an ELF `.text` (padded with `s_nop 0`), runs `llvm-objdump-15 -d` once and returns, per
probe, `(text, nwords)` or `None` when llvm-objdump printed `.long` (an invalid encoding).
A target is a processor, optionally followed by `+feature`s for `--mattr`
(`gfx1030+wavefrontsize64`).
"""
import os
import re
import subprocess
import tempfile

SLOT_WORDS = 5
NOP = 0xBF800000
LLVM = os.environ.get("LLVM_VERSION", "15")
LINE = re.compile(r"^\t(.*?)\s*// ([0-9A-F]{12}): ((?:[0-9A-F]{8} ?)+)(?:<.*>)?$")


def disassemble(mcpu, probes):
    """Like `_disassemble`, but probes that crash llvm-objdump (it has assertion failures on some
    invalid encodings) are found by bisection and reported as `None`."""
    try:
        return _disassemble(mcpu, probes)
    except subprocess.CalledProcessError:
        if len(probes) <= 1:
            return [None] * len(probes)
        mid = len(probes) // 2
        return disassemble(mcpu, probes[:mid]) + disassemble(mcpu, probes[mid:])


def _disassemble(target, probes):
    mcpu, *features = target.split("+")
    mattr = ["--mattr=" + ",".join("+" + f for f in features)] if features else []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "p.s")
        obj = os.path.join(tmp, "p.o")
        with open(src, "w") as f:
            f.write(".text\n")
            for words in probes:
                ws = list(words) + [NOP] * (SLOT_WORDS - len(words))
                f.write("".join(".long 0x%08x\n" % w for w in ws))
        subprocess.run(["llvm-mc-" + LLVM, "-triple=amdgcn-amd-amdhsa", "-mcpu=" + mcpu,
                        "-filetype=obj", src, "-o", obj] + mattr, check=True)
        out = subprocess.run(["llvm-objdump-" + LLVM, "-d", "--mcpu=" + mcpu] + mattr + [obj],
                             check=True, capture_output=True, text=True).stdout
    by_addr = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            by_addr[int(m.group(2), 16)] = (m.group(1).strip(), len(m.group(3).split()))
    res = []
    for i in range(len(probes)):
        r = by_addr.get(i * SLOT_WORDS * 4)
        if r is None or r[0].startswith(".long"):
            res.append(None)
        else:
            res.append(r)
    return res
