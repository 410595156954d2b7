"""Mnemonic normalisation shared by the generators."""
import re

# GFX8 spells the carry-out adds without `_co`; GFX9 renamed them and reused the old names for
# the carry-less forms. The generation-independent Opcode uses the GFX9 name.
GFX8_RENAMES = {
    "v_add_u32": "v_add_co_u32", "v_sub_u32": "v_sub_co_u32", "v_subrev_u32": "v_subrev_co_u32",
    "v_addc_u32": "v_addc_co_u32", "v_subb_u32": "v_subb_co_u32", "v_subbrev_u32": "v_subbrev_co_u32",
}


def base_name(text):
    """The mnemonic without its encoding suffix (`_e32`, `_e64`, `_sdwa`, `_dpp`)."""
    return re.sub(r"_(e32|e64|sdwa|dpp)$", "", text.split()[0])


def opcode_name(target, text):
    n = base_name(text)
    # A VOPD half (`v_dual_mul_f32`) is the VALU operation it issues.
    n = re.sub(r"^v_dual_", "v_", n)
    if target == "gfx803":
        n = GFX8_RENAMES.get(n, n)
    return n
