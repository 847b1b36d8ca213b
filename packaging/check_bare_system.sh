#!/usr/bin/env bash
# Prove the archive runs where no Python is installed: a minimal Debian root made by
# `debootstrap --variant=minbase` (it has no python3 at all), plus only the system libraries that
# every desktop has and that PyInstaller deliberately leaves out of bundles: the OpenGL and EGL
# loaders (libgl1, libegl1, which pick the machine's GPU driver), fontconfig and one font.
# In that root it runs --version, examples, validate, simulate, render and the GUI (offscreen,
# and on X11 through Xvfb when the host has it).
#
#   packaging/check_bare_system.sh [ROOT]     ROOT defaults to build/bare-root; made once, reused
#
# Needs root (chroot, mount), debootstrap, and Debian's package mirror (BARE_MIRROR, BARE_SUITE).
# Run packaging/build.sh (or check_bundle.py) first: this takes the archive from dist/.
set -uo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
bare="${1:-$repo/build/bare-root}"
suite="${BARE_SUITE:-bookworm}"
mirror="${BARE_MIRROR:-http://deb.debian.org/debian}"
runtime_packages="libgl1 libegl1 fontconfig fonts-dejavu-core"
archive="$(ls -t "$repo"/dist/rackdesigner-*-linux-"$(uname -m)".tar.gz 2>/dev/null | head -1)"
passed=0
failed=0

[ "$(id -u)" = 0 ] || { echo "check_bare_system.sh: needs root (chroot)" >&2; exit 2; }
[ -n "$archive" ] || { echo "check_bare_system.sh: no archive in dist/; build first" >&2; exit 2; }

if [ ! -x "$bare/usr/bin/apt-get" ]; then
    echo "== debootstrap --variant=minbase $suite $bare"
    debootstrap --variant=minbase "$suite" "$bare" "$mirror" > "$bare.debootstrap.log" 2>&1 \
        || { tail -5 "$bare.debootstrap.log"; exit 1; }
fi
cp /etc/resolv.conf "$bare/etc/resolv.conf"
echo "== installing the runtime libraries into the root: $runtime_packages"
chroot "$bare" apt-get install -y -qq --no-install-recommends $runtime_packages \
    > "$bare.apt.log" 2>&1 || { tail -5 "$bare.apt.log"; exit 1; }
rm -rf "$bare/opt/rackdesigner"
mkdir -p "$bare/opt" "$bare/tmp/check"
tar -xzf "$archive" -C "$bare/opt"
echo "== $(basename "$archive") unpacked in $bare/opt"

xvfb_pid=""
cleanup() {
    mountpoint -q "$bare/tmp/.X11-unix" && umount "$bare/tmp/.X11-unix"
    [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null
}
trap cleanup EXIT

report() {  # report PASS|FAIL NAME DETAIL
    if [ "$1" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    printf '[%s] %-22s %s\n' "$1" "$2" "$(cut -c1-110 <<< "$3")"
}

# check NAME EXPECT-REGEX COMMAND...: run in the root, pass on exit 0 and output matching EXPECT
check() {
    local name="$1" expect="$2"; shift 2
    local out rc
    out="$(chroot "$bare" env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
        QT_QPA_PLATFORM=offscreen "$@" 2>&1)"
    rc=$?
    if [ $rc -eq 0 ] && grep -qE "$expect" <<< "$out"; then
        report PASS "$name" "$(grep -E "$expect" <<< "$out" | head -1)"
    else
        report FAIL "$name" "rc=$rc $(tail -1 <<< "$out")"
    fi
}

exe=/opt/rackdesigner/rackdesigner
if chroot "$bare" sh -c 'command -v python3 || command -v python' > /dev/null; then
    report FAIL "no Python" "the root has a Python: this proves nothing"
else
    report PASS "no Python" "neither python3 nor python exists in the root"
fi
check "--version" '^rackdesigner [0-9]' "$exe" --version
example="$(chroot "$bare" env -i PATH=/usr/bin:/bin "$exe" examples 2>/dev/null | head -1)"
check "examples" '^/opt/rackdesigner/' "$exe" examples
check "validate" 'error' "$exe" validate "${example:-/missing.yaml}"
check "simulate" 'GPU' "$exe" simulate "${example:-/missing.yaml}"
check "render" 'render\.png' "$exe" render "${example:-/missing.yaml}" -o /tmp/check/render.png
check "gui (offscreen)" 'first frame after' env RACKDESIGNER_SMOKE_TEST=1 \
    RACKDESIGNER_SMOKE_SCREENSHOT=/tmp/check/gui.png "$exe" "${example:-}"
if command -v Xvfb > /dev/null; then
    Xvfb :57 -screen 0 1600x1000x24 -nolisten tcp > /dev/null 2>&1 &
    xvfb_pid=$!
    sleep 1
    mkdir -p "$bare/tmp/.X11-unix"
    mount --bind /tmp/.X11-unix "$bare/tmp/.X11-unix"
    check "gui (X11 via Xvfb)" 'first frame after' env RACKDESIGNER_SMOKE_TEST=1 DISPLAY=:57 \
        QT_QPA_PLATFORM=xcb "$exe" "${example:-}"
else
    printf '[SKIP] %-22s %s\n' "gui (X11 via Xvfb)" "Xvfb is not installed on the host"
fi
echo "pictures: $bare/tmp/check/render.png $bare/tmp/check/gui.png"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
