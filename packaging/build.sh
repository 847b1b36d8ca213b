#!/usr/bin/env bash
# Build RackDesigner as a standalone Linux application (no Python needed where it runs).
#
#   packaging/build.sh                     build venv in build/bundle-venv (made on first use)
#   packaging/build.sh --current-python    use `python3` as it is (installs into it!)
#   packaging/build.sh --ref v0.1.0        build a committed revision (its package; packaging/
#                                          itself comes from the work tree)
#   RACKDESIGNER_BUILD_VENV=DIR packaging/build.sh    build venv elsewhere
#
# Output:
#   dist/rackdesigner/       one-folder bundle: ./rackdesigner, _internal/, install.sh and
#                            share/ (desktop entry, icons, metainfo)
#   dist/rackdesigner-<version>-linux-<arch>.tar.gz    the same folder, archived
#
# Steps: copy the sources to a clean folder, build the project's wheel there (so stale files in
# build/ can never end up in it), install the wheel and PyInstaller from PyPI into the build
# Python, run PyInstaller on packaging/rackdesigner.spec outside the checkout (so the analysis
# sees the installed package, as users get it), then add the desktop files and archive.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-python3}"
venv="${RACKDESIGNER_BUILD_VENV:-$root/build/bundle-venv}"
pyinstaller_req="${PYINSTALLER_REQUIREMENT:-pyinstaller>=6.10}"

use_current=no
ref=""
while [ $# -gt 0 ]; do
    case "$1" in
        --current-python) use_current=yes; shift ;;
        --ref) ref="$2"; shift 2 ;;
        --ref=*) ref="${1#--ref=}"; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "build.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

if [ "$use_current" = yes ]; then
    build_python="$(command -v "$python")"
else
    if [ ! -x "$venv/bin/python" ]; then
        echo "== creating build venv $venv"
        "$python" -m venv "$venv"
    fi
    build_python="$venv/bin/python"
fi

work="$root/build/pyinstaller"
src="$work/src"
mkdir -p "$work"
rm -rf "$src" "$work/wheel"
mkdir -p "$src" "$work/wheel"
sources="pyproject.toml setup.py README.md LICENSE THIRD-PARTY-NOTICES.md rackdesigner resources"
if [ -n "$ref" ]; then
    echo "== exporting $ref ($(git -C "$root" rev-parse --short "$ref")) to $src"
    # shellcheck disable=SC2086
    git -C "$root" archive "$ref" $sources | tar -xf - -C "$src"
else
    echo "== copying the work tree's sources to $src"
    # shellcheck disable=SC2086
    (cd "$root" && tar --exclude=__pycache__ --exclude='*.pyc' -cf - $sources) | tar -xf - -C "$src"
fi

echo "== building the wheel (log: $work/wheel.log)"
"$build_python" -m pip wheel --no-deps --wheel-dir "$work/wheel" "$src" > "$work/wheel.log" 2>&1 \
    || { tail -20 "$work/wheel.log"; exit 1; }
wheel="$(ls "$work"/wheel/rackdesigner-*.whl)"
echo "   $wheel"

echo "== installing the wheel, its dependencies and PyInstaller into $build_python"
"$build_python" -m pip install --quiet --disable-pip-version-check "$pyinstaller_req" "$wheel"
"$build_python" -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall \
    "$wheel"

version="$(cd "$work" && "$build_python" -c 'import rackdesigner; print(rackdesigner.__version__)')"
arch="$(uname -m)"
echo "== PyInstaller: rackdesigner $version for linux-$arch"
rm -rf "$root/dist/rackdesigner"
(cd "$work" && "$build_python" -m PyInstaller --noconfirm --log-level WARN \
    --distpath "$root/dist" --workpath "$work/work" "$root/packaging/rackdesigner.spec")

bundle="$root/dist/rackdesigner"
echo "== adding desktop integration to $bundle"
install -D -m 644 "$root/packaging/io.github.rackdesigner.RackDesigner.desktop" \
    "$bundle/share/applications/io.github.rackdesigner.RackDesigner.desktop"
install -D -m 644 "$root/packaging/io.github.rackdesigner.RackDesigner.metainfo.xml" \
    "$bundle/share/metainfo/io.github.rackdesigner.RackDesigner.metainfo.xml"
for png in "$root"/resources/icons/rackdesigner-*.png; do
    size="$(basename "$png" .png)"; size="${size#rackdesigner-}"
    install -D -m 644 "$png" "$bundle/share/icons/hicolor/${size}x${size}/apps/io.github.rackdesigner.RackDesigner.png"
done
install -D -m 644 "$root/resources/icons/rackdesigner.svg" \
    "$bundle/share/icons/hicolor/scalable/apps/io.github.rackdesigner.RackDesigner.svg"
install -m 755 "$root/packaging/install.sh" "$bundle/install.sh"
echo "== license texts: $bundle/share/doc/rackdesigner (LICENSE, notices, every bundled component's)"
# and, from the bundle itself, those of the build machine's libraries in it (licenses/system)
(cd "$work" && "$build_python" "$root/packaging/licenses.py" "$bundle/share/doc/rackdesigner" \
    "$bundle")

archive="$root/dist/rackdesigner-$version-linux-$arch.tar.gz"
echo "== archiving $archive"
tar -C "$root/dist" -czf "$archive" rackdesigner
echo "== done"
echo "bundle:  $bundle ($(du -sh "$bundle" | cut -f1))"
echo "archive: $archive ($(du -sh "$archive" | cut -f1))"
