#!/bin/sh
# view-init.sh MOUNT_PATH IMAGE: the command of a MiniCluster's flux-view init container, run with the
# view image's own /bin/sh (busybox, dash or bash: POSIX sh only, and cp, mv, rm, id, stat). It puts the
# Flux view of IMAGE into the volume shared with the application containers, mounted at MOUNT_PATH,
# whichever of the two layouts the image has (docs/flux-view.md):
#   - this project's view image: its own copy command, /usr/local/bin/flux-view-copy MOUNT_PATH;
#   - the Go Flux Operator's view images: a Spack environment view under /opt/views/._view/<hash>
#     (/opt/view links to it) whose programs load their libraries from /opt/software. The view's
#     content goes to MOUNT_PATH/view and /opt/software to MOUNT_PATH/software, as the Go operator
#     copies them; the entrypoint copies the software back to /opt/software in the application
#     container before it starts Flux.
# Otherwise it fails, naming the image and both layouts. On failure it prints one line only: the pod's
# status shows the first line of this container's log (terminationMessagePolicy FallbackToLogsOnError).
set -eu

if [ "$#" -ne 2 ]; then
  echo "flux-view-init: usage: view-init.sh MOUNT_PATH IMAGE" >&2
  exit 2
fi
mount_path=$1
image=$2
while [ "${mount_path%/}" != "$mount_path" ] && [ "$mount_path" != / ]; do
  mount_path=${mount_path%/}
done

copy_command=/usr/local/bin/flux-view-copy
spack_views=/opt/views/._view
spack_software=/opt/software

if [ -x "$copy_command" ]; then
  exec "$copy_command" "$mount_path"
fi

if [ ! -d "$spack_views" ]; then
  echo "flux-view-init: the image $image is not a Flux view of either layout: no $copy_command (this operator's views) and no Spack view in $spack_views with $spack_software (the Go operator's views); set flux.container.image to a view image, or flux.container.disable: true if the application image has Flux" >&2
  exit 2
fi

# One view, as the Go operator's images have (their /opt/view links to it).
set -- "$spack_views"/*
if [ "$#" -ne 1 ] || [ ! -d "$1" ]; then
  echo "flux-view-init: the image $image has a Spack view folder $spack_views (the Go Flux Operator's layout) but not one view in it (found: $*): its /opt/view should link to the only one" >&2
  exit 2
fi
view=$1
if [ ! -d "$spack_software" ]; then
  echo "flux-view-init: the image $image has a Spack view ($view, the Go Flux Operator's layout) but no $spack_software, where its programs load their libraries from: it is not a complete view image" >&2
  exit 2
fi
if [ ! -d "$mount_path" ] || [ ! -w "$mount_path" ]; then
  echo "flux-view-init: $mount_path is not a folder this user (uid $(id -u)) may write: mount the shared volume there (an emptyDir is writable by every uid)" >&2
  exit 1
fi

# place SOURCE TARGET: TARGET becomes a copy of SOURCE. Into a folder of the shared volume it is copied
# under a temporary name, then renamed: a restarted init container replaces a half copy. A volume of
# its own (flux.container.medium: Memory) cannot be removed or renamed onto: it is emptied and the copy
# goes into it. Either way the marker, written last, says whether the copy is complete. cp -R keeps
# the view's symbolic links (a Spack view's files may link into /opt/software) as links.
own_volumes=
place() {
  rm -rf "$2.partial"
  if [ -d "$2" ] && [ "$(stat -c %d "$2")" != "$(stat -c %d "$mount_path")" ]; then
    rm -rf "${2:?}"/* "${2:?}"/.[!.]* "${2:?}"/..?*
    cp -R "$1"/. "$2"
    own_volumes=", each into a volume of its own"
  else
    rm -rf "$2"
    cp -R "$1" "$2.partial"
    mv "$2.partial" "$2"
  fi
}
target=$mount_path/view
software=$mount_path/software
rm -f "$mount_path/view.complete"
place "$view" "$target"
place "$spack_software" "$software"
printf 'layout spack\nimage %s\nview %s\nsoftware %s\n' "$image" "$view" "$spack_software" >"$mount_path/view.complete"
echo "flux-view-init: copied the Spack view $view of $image to $target and $spack_software to $software$own_volumes"
