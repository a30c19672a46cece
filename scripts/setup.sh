#!/usr/bin/env bash
# Installs everything a fresh Debian 12 machine needs to build, run and test ferry:
# the C libraries (through the distribution's -dev packages), test tools, and the
# pinned tree-sitter Python grammar (fetched with `npm pack`, unpacked under build/).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  build-essential pkgconf git ca-certificates
  libncurses-dev libgit2-dev libsqlite3-dev liblua5.4-dev libcjson-dev
  libtree-sitter-dev libssl-dev libcmocka-dev libzip-dev
  clang libclang-rt-14-dev
  tmux python3 sqlite3 openssh-client openssl
  chromium
)
# node and npm fetch the pinned grammar; use the machine's own when it has them
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

make -C "$here" grammar sarif-tools
