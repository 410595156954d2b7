#!/usr/bin/env bash
# Installs what hsaemu's build and tests need, when it is missing (Debian 12).
# Idempotent: a machine that has everything installs nothing.
set -euo pipefail

packages=(clang-15 lld-15 llvm-15 clang-22 lld-22 llvm-22 hipcc rocm-device-libs libhsa-runtime-dev librocrand1 librocrand-dev librocsparse-dev librocprim-dev pocl-opencl-icd ocl-icd-opencl-dev gcc g++ binutils llvm-15-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
for tool in clang-15 ld.lld-15 llvm-objdump-15 llvm-readelf-15 llvm-mc-15 clang-22 ld.lld-22 llvm-objdump-22 llvm-mc-22 hipcc; do
  command -v "$tool" >/dev/null || { echo "setup: $tool still missing after install" >&2; exit 1; }
done
command -v cargo >/dev/null || { echo "setup: cargo (Rust) is required" >&2; exit 1; }
