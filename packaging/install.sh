#!/usr/bin/env bash
# Install (or remove) the RackDesigner bundle for one user or system-wide.
#
# Run from the unpacked archive:   ./rackdesigner/install.sh [--prefix DIR] [--uninstall]
# Default prefix: ~/.local (no root needed). With --prefix /usr/local (as root) for everyone.
#
#   PREFIX/lib/rackdesigner/                 the bundle (executable + _internal/)
#   PREFIX/bin/rackdesigner                  symlink to it (CLI verbs and the designer)
#   PREFIX/share/applications/io.github.rackdesigner.RackDesigner.desktop
#   PREFIX/share/icons/hicolor/*/apps/io.github.rackdesigner.RackDesigner.{png,svg} (the icon is named for the app id)
#   PREFIX/share/metainfo/io.github.rackdesigner.RackDesigner.metainfo.xml
set -euo pipefail

prefix="${HOME}/.local"
action=install
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="$2"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --uninstall) action=uninstall; shift ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

bundle="$(cd "$(dirname "$0")" && pwd)"
appdir="$prefix/lib/rackdesigner"
metainfo=io.github.rackdesigner.RackDesigner.metainfo.xml
icon=io.github.rackdesigner.RackDesigner  # desktop stores want the icon named for the app id
sizes="16 24 32 48 64 128 256 512"

refresh_caches() {
    command -v update-desktop-database >/dev/null && \
        update-desktop-database -q "$prefix/share/applications" 2>/dev/null || true
    command -v gtk-update-icon-cache >/dev/null && \
        gtk-update-icon-cache -q -t "$prefix/share/icons/hicolor" 2>/dev/null || true
}

if [ "$action" = uninstall ]; then
    rm -rf "$appdir"
    rm -f "$prefix/bin/rackdesigner" "$prefix/share/applications/io.github.rackdesigner.RackDesigner.desktop" \
          "$prefix/share/metainfo/$metainfo" \
          "$prefix/share/icons/hicolor/scalable/apps/$icon.svg" \
          "$prefix/share/icons/hicolor/scalable/apps/rackdesigner.svg"
    for s in $sizes; do
        rm -f "$prefix/share/icons/hicolor/${s}x${s}/apps/$icon.png" \
              "$prefix/share/icons/hicolor/${s}x${s}/apps/rackdesigner.png"  # before 0.1.1
    done
    refresh_caches
    echo "RackDesigner removed from $prefix"
    exit 0
fi

[ -x "$bundle/rackdesigner" ] && [ -d "$bundle/share" ] || {
    echo "install.sh: run me from the unpacked bundle (rackdesigner/install.sh)" >&2; exit 2; }

mkdir -p "$prefix/bin" "$prefix/lib" "$prefix/share/applications" "$prefix/share/metainfo"
if [ "$bundle" != "$appdir" ]; then
    rm -rf "$appdir.new"
    cp -a "$bundle" "$appdir.new"
    rm -rf "$appdir"
    mv "$appdir.new" "$appdir"
fi
ln -sfn "$appdir/rackdesigner" "$prefix/bin/rackdesigner"

sed -e "s|^Exec=rackdesigner|Exec=$prefix/bin/rackdesigner|" \
    -e "s|^TryExec=rackdesigner|TryExec=$prefix/bin/rackdesigner|" \
    "$bundle/share/applications/io.github.rackdesigner.RackDesigner.desktop" \
    > "$prefix/share/applications/io.github.rackdesigner.RackDesigner.desktop"
cp "$bundle/share/metainfo/$metainfo" "$prefix/share/metainfo/$metainfo"
for s in $sizes; do
    mkdir -p "$prefix/share/icons/hicolor/${s}x${s}/apps"
    cp "$bundle/share/icons/hicolor/${s}x${s}/apps/$icon.png" \
       "$prefix/share/icons/hicolor/${s}x${s}/apps/$icon.png"
done
mkdir -p "$prefix/share/icons/hicolor/scalable/apps"
cp "$bundle/share/icons/hicolor/scalable/apps/$icon.svg" \
   "$prefix/share/icons/hicolor/scalable/apps/$icon.svg"
refresh_caches

echo "RackDesigner installed in $appdir"
echo "  command:      $prefix/bin/rackdesigner"
echo "  menu entry:   $prefix/share/applications/io.github.rackdesigner.RackDesigner.desktop"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "  note: $prefix/bin is not on your PATH" ;; esac
