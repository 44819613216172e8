#!/bin/sh
# flux-view-copy [MOUNT_PATH]: the command of the Flux view image (localhost/flux-view:<version>, run
# by busybox's sh). Copies the view this image holds (/opt/flux-view) to MOUNT_PATH/view (MOUNT_PATH
# defaults to /mnt/flux, a volume shared with the application container), then writes
# MOUNT_PATH/view.complete, a copy of the view's info file (what it is, its prefix). The view's programs
# find their loader and libraries at the prefix they were built for, so MOUNT_PATH/view must be that
# prefix. Works as root or as any uid that may write MOUNT_PATH; run again, it keeps a complete copy of
# the same view and replaces anything else.
set -eu
source_dir=/opt/flux-view
info=$source_dir/share/flux-view/info
mount_path=${1:-/mnt/flux}
mount_path=${mount_path%/}
target=$mount_path/view
marker=$mount_path/view.complete

prefix=$(sed -n 's/^prefix //p' "$info")
if [ "$target" != "$prefix" ]; then
  echo "flux-view-copy: this view was built for $prefix (its programs load their libraries from there): mount the shared volume at ${prefix%/view}, not at $mount_path" >&2
  exit 2
fi
if [ ! -d "$mount_path" ] || [ ! -w "$mount_path" ]; then
  echo "flux-view-copy: $mount_path is not a folder this user (uid $(id -u)) may write: mount the shared volume there (an emptyDir is writable by every uid)" >&2
  exit 1
fi
if [ -f "$marker" ] && [ -d "$target" ] && cmp -s "$marker" "$info"; then
  echo "flux-view-copy: $target already holds this view"
  exit 0
fi
start=$(date +%s)
rm -rf "$marker" "$target.partial"
# No -p: the copy belongs to whoever runs this (a uid other than root cannot give files away), with
# the view's modes (under the usual umask 022); times do not matter (Python's byte code does not check them).
if [ -d "$target" ] && [ "$(stat -c %d "$target")" != "$(stat -c %d "$mount_path")" ]; then
  # A volume of its own (flux.container.medium: Memory) cannot be removed or renamed onto: emptied,
  # then the copy goes into it; the marker, written last, says whether it is complete.
  rm -rf "${target:?}"/* "${target:?}"/.[!.]* "${target:?}"/..?*
  cp -R "$source_dir"/. "$target"
  where="its own volume at $target"
else
  rm -rf "$target"
  cp -R "$source_dir" "$target.partial"
  mv "$target.partial" "$target"
  where=$target
fi
cp "$info" "$marker.partial"
mv "$marker.partial" "$marker"
echo "flux-view-copy: copied the Flux view to $where in $(($(date +%s) - start)) s ($(du -sm "$target" | cut -f1) MiB)"
