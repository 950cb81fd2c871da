#!/bin/sh
# Installs the Debian packages that build and test tmcml.  The CUDA Toolkit
# (NVIDIA's, in /usr/local/cuda) is optional: without it tmcml builds the CPU
# engine only.
set -e
packages="build-essential cmake pkg-config locales liblua5.4-dev libcjson-dev libpng-dev dieharder clang-format clang libclang-rt-dev libopenmpi-dev openmpi-bin python3-numpy python3-pytest python3-setuptools python3-pip"
if [ "$(id -u)" -eq 0 ]; then sudo=; else sudo=sudo; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $packages >/dev/null
echo "tools/deps.sh: installed $packages"
