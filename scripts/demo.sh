#!/usr/bin/env bash
# The main job: build hsaemu, compile a demo kernel from tests/kernels with the real compiler,
# and show it through hsaemu.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release -p hsaemu-cli
out=target/demo
mkdir -p "$out"
clang-15 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx90a:xnack- -O2 \
  --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode \
  tests/kernels/cl/vector_add.cl -o "$out/vector_add.hsaco"
target/release/hsaemu inspect "$out/vector_add.hsaco"
