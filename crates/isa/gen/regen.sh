#!/bin/sh
# Regenerates every generated file of hsaemu-isa from llvm-objdump-15/llvm-mc-15 (the oracle).
# Needs python3 and the LLVM 15 tools; takes about five minutes on an idle machine (the round-trip
# data is most of it).
#   data/probes.json            what each opcode number of each family is, per target (enumerate.py)
#   ../src/opcode.rs            the Opcode enum (gen_opcodes.py)
#   ../src/tables/semantics.rs  per-opcode semantic attributes (gen_semantics.py; no LLVM)
#   ../src/tables/generated.rs  per-generation decoding tables (gen_tables.py)
#   ../tests/data/roundtrip-*.txt  words -> llvm-objdump text for every opcode (gen_roundtrip.py)
set -eu
cd "$(dirname "$0")"
python3 enumerate.py data/probes.json
python3 gen_opcodes.py data/probes.json ../src/opcode.rs
python3 gen_semantics.py ../src/opcode.rs ../src/tables/semantics.rs
python3 gen_tables.py data/probes.json ../src/tables/generated.rs
python3 gen_roundtrip.py data/probes.json ../tests/data 4
