#!/usr/bin/env bash
# Makes the Flux view: flux-core (installed with prefix PREFIX) plus everything it runs with, from the
# Debian packages of the root file system this runs in, under PREFIX alone. Runs inside the bookworm
# root file system mmdebstrap made for the view (workbench/src/images/flux-view.ts), as root, with flux-core
# already at PREFIX. Afterwards:
#   - PREFIX/bin/python3 is Debian's Python (stdlib, cffi, ply, yaml) and finds flux's bindings;
#   - PREFIX/sbin/munged, PREFIX/bin/munge and unmunge are Debian's munge; PREFIX/bin/lua5.1 and
#     lua-posix serve flux's Lua commands; PREFIX/bin/sh (dash) runs the view's own sh scripts;
#   - every shared library any of them loads, glibc and its loader included, is in PREFIX/lib;
#   - every ELF file's interpreter is PREFIX/lib/ld-linux-x86-64.so.2 and its RUNPATH PREFIX's library
#     folders, so nothing is loaded from the image the view is copied into;
#   - script interpreters (#!) point into PREFIX; Python's byte code is compiled with unchecked hashes
#     (valid whatever the files' times become in a layer or a copy);
#   - Python's pure standard library is one zip, PREFIX/lib/pythonXY.zip, and so are Debian's pure
#     packages, PREFIX/lib/python3/dist-packages.zip (zip-python-modules.py, beside this script): the
#     init container copies the view file by file, and a file costs more to create than its bytes to copy;
#   - PREFIX/share/flux-view/info names what the view is, and PREFIX/share/doc/flux-view/copyright holds
#     the copyright file of every Debian package it took files from.
# Usage: assemble-flux-view.sh PREFIX INFO_LINE...  (each INFO_LINE goes into the info file)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 PREFIX [INFO_LINE...]" >&2; exit 2; }
P=$1
shift
[ -x "$P/bin/flux" ] || { echo "error: $P/bin/flux is missing: install flux-core with prefix $P first" >&2; exit 1; }
log() { printf '[build-flux-view] %s\n' "$*" >&2; }
multiarch=/usr/lib/x86_64-linux-gnu
loader_name=ld-linux-x86-64.so.2
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
# Files taken from the root file system: their packages' copyright files go into the view.
taken=()
take() { # take SOURCE DEST: copies a file or folder of the root file system into the view
  mkdir -p "$(dirname "$2")"
  cp -a "$1" "$2"
  taken+=("$1")
}

log "Python $pyver, its stdlib and Debian's cffi, ply and yaml"
take "/usr/bin/python$pyver" "$P/bin/python$pyver"
ln -sfn "python$pyver" "$P/bin/python3"
# The stdlib without what no Flux command imports and what only a developer uses.
tar -C "/usr/lib/python$pyver" -cf - \
  --exclude=./test --exclude=./idlelib --exclude=./tkinter --exclude=./turtledemo --exclude=./ensurepip \
  --exclude=./lib2to3 --exclude=./unittest/test --exclude='__pycache__' . |
  tar -C "$P/lib/python$pyver" -xf -
taken+=("/usr/lib/python$pyver/os.py" "/usr/lib/python$pyver/lib-dynload")
take /usr/lib/python3/dist-packages "$P/lib/python3/dist-packages"
find "$P/lib/python3/dist-packages" -name __pycache__ -prune -exec rm -rf {} +
# Debian's Python searches PREFIX/lib/python3/dist-packages; flux's bindings are in site-packages.
bindings=$(find "$P/lib" -mindepth 3 -maxdepth 3 -type d -path "$P/lib/python3*/site-packages/flux" -printf '%h\n')
[ -n "$bindings" ] || { echo "error: no flux Python package under $P/lib/python3*/site-packages" >&2; exit 1; }
echo "$bindings" >"$P/lib/python3/dist-packages/flux-core.pth"

log "munge, Lua 5.1 with lua-posix, dash"
take /usr/sbin/munged "$P/sbin/munged"
take /usr/sbin/mungekey "$P/sbin/mungekey"
for b in munge unmunge remunge; do take "/usr/bin/$b" "$P/bin/$b"; done
take /usr/bin/lua5.1 "$P/bin/lua5.1"
ln -sfn lua5.1 "$P/bin/lua"
# flux puts PREFIX/share/lua/5.1 and PREFIX/lib/lua/5.1 on Lua's paths for its commands.
take /usr/share/lua/5.1/posix "$P/share/lua/5.1/posix"
# Debian's lua-posix is one C module (posix.so, every posix.* submodule in it) beside bit32.so.
for m in "$multiarch"/lua/5.1/*.so; do take "$(readlink -f "$m")" "$P/lib/lua/5.1/${m##*/}"; done
take /usr/bin/dash "$P/bin/sh"

log "dropping what only building against flux-core uses"
rm -rf "$P/include" "$P/share/man" "$P/lib/pkgconfig"
find "$P" \( -name '*.la' -o -name '*.a' \) -delete

is_elf() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; }
elf_files() { find "$P" -type f -print0 | while IFS= read -r -d '' f; do if is_elf "$f"; then echo "$f"; fi; done; }

log "stripping debug information from flux-core"
elf_files | while read -r f; do
  case $f in "$P/lib/python$pyver/"* | "$P/lib/python3/"*) continue ;; esac
  strip --strip-debug "$f"
done

log "shared libraries: every one that a program, library or module of the view loads"
loader=$(readlink -f "$multiarch/$loader_name")
take "$loader" "$P/lib/$loader_name"
# libc loads libgcc_s itself (for pthread_cancel and backtraces), which no ldd shows.
take "$(readlink -f "$multiarch/libgcc_s.so.1")" "$P/lib/libgcc_s.so.1"
missing=()
while read -r f; do
  # "name => /path (0x...)" lines; the loader's own line has no "=>".
  while read -r name arrow target _; do
    [ "$arrow" = '=>' ] || continue
    if [ "$target" = not ]; then
      missing+=("$f: $name")
    elif [[ $target != "$P"/* ]] && [ ! -e "$P/lib/$name" ]; then
      take "$(readlink -f "$target")" "$P/lib/$name"
    fi
  done < <(ldd "$f" 2>/dev/null || true)
done < <(elf_files)
if [ ${#missing[@]} -gt 0 ]; then
  printf 'error: not found: %s\n' "${missing[@]}" >&2
  exit 1
fi

log "interpreter and RUNPATH of every ELF file"
# The folders the view's libraries are in (flux-core keeps some in PREFIX/lib/flux).
runpath=$(elf_files | while read -r f; do
  case $f in *.so | *.so.*) dirname "$f" ;; esac
done | grep -E "^$P/lib(/flux)?$" | sort -u | paste -sd:)
patched=0
while read -r f; do
  [ "$f" = "$P/lib/$loader_name" ] && continue
  if patchelf --print-interpreter "$f" >/dev/null 2>&1; then
    patchelf --set-interpreter "$P/lib/$loader_name" "$f"
  fi
  # Only objects that load something get a RUNPATH (a static program or data file has no dynamic section).
  if [ -n "$(patchelf --print-needed "$f" 2>/dev/null)" ]; then
    patchelf --set-rpath "$runpath" "$f"
  fi
  patched=$((patched + 1))
done < <(elf_files)
log "patched $patched ELF files (RUNPATH $runpath)"

log "script interpreters"
# `#!/bin/sh`, `#!/usr/bin/python3`, `#!/usr/bin/env lua` ... -> the view's own; options stay.
find "$P" -type f -perm -u+x -print0 | while IFS= read -r -d '' f; do
  is_elf "$f" && continue
  first=$(head -n 1 "$f" | tr -d '\0')
  [[ $first == '#!'* ]] || continue
  read -r -a words <<<"${first#\#!}"
  [ ${#words[@]} -gt 0 ] || continue
  if [ "${words[0]}" = /usr/bin/env ]; then words=("${words[@]:1}"); fi
  case ${words[0]##*/} in
  sh) new=$P/bin/sh ;;
  python3 | "python$pyver") new=$P/bin/python3 ;;
  lua | lua5.1) new=$P/bin/lua ;;
  *) continue ;;
  esac
  [ "${words[0]}" = "$new" ] && continue
  line="#!$new${words[1]:+ ${words[*]:1}}"
  sed -i "1s|.*|$line|" "$f"
done

log "Python's pure modules in zips: the standard library's and Debian's cffi, ply and pycparser"
# The entries' times: the build's SOURCE_DATE_EPOCH (mmdebstrap's hooks have it), the same zips every build.
epoch=${SOURCE_DATE_EPOCH:-0}
# Python looks in lib/pythonXY.zip for its standard library before lib/pythonX.Y.
"$P/bin/python3" "$here/zip-python-modules.py" "$P/lib/python$pyver" "$P/lib/python${pyver/./}.zip" \
  "$epoch" os.py >&2
# dist-packages' .pth files name the folders and zips Python adds to its path.
"$P/bin/python3" "$here/zip-python-modules.py" "$P/lib/python3/dist-packages" \
  "$P/lib/python3/dist-packages.zip" "$epoch" >&2
echo "$P/lib/python3/dist-packages.zip" >"$P/lib/python3/dist-packages/dist-packages-zip.pth"

log "Python byte code (unchecked hashes)"
# Forced, and Flux's own modules too (its rc tasks, broker and scheduler modules): flux-core's install
# leaves byte code stamped with its sources' times, which the init container's copy changes, so every
# pod compiled Flux's Python again at its first commands (about 0.35 s in rc1 and again in the first
# `flux submit`, measured on the real node). Unchecked hashes hold whatever the files' times.
# No optimized byte code (no Flux command runs Python with -O) and none for the commands in
# libexec/flux/cmd (each runs as a script, never imported): each file costs the copy a creation.
find "$P" -name '*.opt-[12].pyc' -delete
"$P/bin/python3" -m compileall -f -q --invalidation-mode unchecked-hash -x /libexec/flux/cmd/ \
  "$P/lib/python$pyver" "$P/lib/python3/dist-packages" "$bindings" "$P/lib/flux" "$P/libexec/flux" >/dev/null

log "licences and the view's info"
# dpkg knows a file by the path its package ships it under: /usr/bin/x or /bin/x (merged /usr).
candidates=()
for t in "${taken[@]}"; do
  candidates+=("$t")
  case $t in /usr/bin/* | /usr/sbin/* | /usr/lib/*) candidates+=("${t#/usr}") ;; esac
done
mapfile -t packages < <(dpkg-query -S "${candidates[@]}" 2>/dev/null | grep -v '^diversion' |
  cut -d: -f1 | tr ',' '\n' | tr -d ' ' | sed '/^$/d' | sort -u)
# All in one file (one file to create in the pod, not one folder and file per package).
copyrights=$P/share/doc/flux-view/copyright
mkdir -p "$(dirname "$copyrights")"
{
  echo "The copyright files of the Debian packages the Flux view took files from, each after a line naming it."
  for pkg in "${packages[@]}"; do
    if [ -f "/usr/share/doc/$pkg/copyright" ]; then
      printf '\n==> Debian package %s: /usr/share/doc/%s/copyright <==\n' "$pkg" "$pkg"
      cat "/usr/share/doc/$pkg/copyright"
    fi
  done
} >"$copyrights"
mkdir -p "$P/share/flux-view"
{
  printf '%s\n' "$@"
  echo "prefix $P"
  echo "python $pyver"
  echo "debian-packages ${packages[*]}"
} >"$P/share/flux-view/info"
log "done: $(du -sm "$P" | cut -f1) MiB, $(find "$P" -type f | wc -l) files"
