#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine needs to build and run ferry: the C libraries
# (through the distribution's -dev packages) and the pinned tree-sitter Python grammar
# (fetched with `npm pack`, unpacked under build/). With --test, also what the test suite
# needs: cmocka, the sanitizer and fuzzing toolchain, tmux, Chromium and the Noto CJK fonts
# for the HTML/PDF report (poppler-utils to inspect the PDF), Python with the
# distribution's torch (real tensors for the probe's smoke test), and the SARIF schema
# with its validator. gettext (msgfmt) builds the translations.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
with_tests=0
case "${1:-}" in
  --test) with_tests=1 ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--test]" >&2; exit 2 ;;
esac

packages=(
  build-essential pkgconf git ca-certificates
  libncurses-dev libgit2-dev libsqlite3-dev liblua5.4-dev libcjson-dev
  libtree-sitter-dev libssl-dev libzip-dev zlib1g-dev gettext
)
if ((with_tests)); then
  packages+=(
    libcmocka-dev clang libclang-rt-14-dev
    tmux python3 sqlite3 openssh-client openssl
    chromium fonts-noto-cjk poppler-utils python3-torch cmark-gfm
  )
fi
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

make -C "$here" grammar
if ((with_tests)); then
  make -C "$here" sarif-tools
fi
