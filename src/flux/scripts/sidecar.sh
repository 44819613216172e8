# shellcheck shell=bash
# shellcheck disable=SC2154 # the parameters are set by the prologue above the body (see below)
#
# The body of the wrapper of a container beside the Flux container (v1alpha2 wraps them unless
# noWrapEntrypoint; src/flux/sidecar.ts renders the script: a prologue of quoted parameters, then this
# file as it is). It puts Flux on PATH (the view's, or the image's), runs the servicePre hook, waits
# for the local Flux instance's socket, then runs the container's script and its command, and the post
# hook. Like the entrypoint it needs bash and coreutils only.
#
# The parameters, always set:
#   container_name; log_quiet: `yes` or empty
# Set only when the container has them:
#   flux_view, flux_command_dir: Flux from a view (its bin last on PATH, `flux` first through a link
#   in flux_command_dir, as in the Flux container); flux_install_root: Flux in the image (first on PATH)
#   flux_view_software, flux_view_software_dir: a Spack view's software (the Go operator's layout),
#   copied from the first to the second (/opt/software) when the init container left it there
#   flux_python_path: added to PYTHONPATH
#   flux_socket: the local instance's socket, waited for before the script and the command
#   script_path: a script run with bash before the command; container_command: shell run with bash
#   hook_init, hook_service_pre, hook_post: raw shell, run with eval

if [ -n "$log_quiet" ]; then
  log() {
    :
  }
else
  log() {
    printf 'flux-operator: %s\n' "$*"
  }
fi

run_hook() {
  log "running the $1 hook"
  if [ -n "$log_quiet" ] && [ "$1" != post ]; then
    eval "$2" >/dev/null
  else
    eval "$2"
  fi
}

# A TERM or INT (the pod stopping) goes on to what runs now, and ends this wrapper.
child=""
# shellcheck disable=SC2317 # run by the traps below
on_stop() {
  log "got SIG$1: stopping"
  if [ -n "$child" ]; then
    kill -s "$1" "$child" 2>/dev/null || true
  fi
  exit "$((128 + $(kill -l "$1")))"
}
trap 'on_stop TERM' TERM
trap 'on_stop INT' INT

# run_child COMMAND...: COMMAND in the background, waited for; its status in $status.
run_child() {
  "$@" &
  child=$!
  status=0
  wait "$child" || status=$?
  child=""
}

# shellcheck disable=SC2154 # set only when the container has it, as tested here
if [ -n "${hook_init+set}" ]; then
  run_hook init "$hook_init"
fi

# shellcheck disable=SC2154 # set only when the container has it, as tested here
if [ -n "${flux_view+set}" ]; then
  # The flux-view sidecar copies the view while the pod's containers start: its marker is written
  # last; view.failed says the copy failed (the Flux container fails with its words).
  until [ -e "$flux_view.complete" ]; do
    if [ -e "$flux_view.failed" ]; then
      printf 'flux-operator: error: the Flux view was not copied: %s\n' "$(cat "$flux_view.failed" 2>/dev/null)" >&2
      exit 1
    fi
    sleep 0.02
  done
  # The Flux container links `flux` too: a link made beside and renamed over is never half there.
  mkdir -p "$flux_command_dir"
  ln -sfn "$flux_view/bin/flux" "$flux_command_dir/.flux.$$"
  mv -Tf "$flux_command_dir/.flux.$$" "$flux_command_dir/flux"
  export PATH="$flux_command_dir:$PATH:$flux_view/bin"
  # A Spack view (the Go operator's layout): its programs load their libraries from /opt/software, as
  # in the Flux container. A container that cannot write there may still not need Flux: it is told.
  # shellcheck disable=SC2154 # set only when the container has it, as tested here
  if [ -n "${flux_view_software+set}" ] && [ -n "$(ls -A "$flux_view_software" 2>/dev/null)" ]; then
    if mkdir -p "$flux_view_software_dir" && cp -R "$flux_view_software/." "$flux_view_software_dir/"; then
      for site in "$flux_view"/lib/python3*/site-packages; do
        if [ -z "${flux_python_path+set}" ] && [ -d "$site" ]; then
          flux_python_path="$site"
        fi
      done
    else
      printf 'flux-operator: warning: the Flux view is a Spack view, whose programs load their libraries from %s, which this container (uid %s) cannot write: Flux from the view will not run here (run the container as root, or mount a writable volume there)\n' "$flux_view_software_dir" "$(id -u)" >&2
    fi
  fi
elif [ -n "${flux_install_root+set}" ]; then
  export PATH="$flux_install_root/bin:$PATH"
fi
# shellcheck disable=SC2154 # set only when the container has it, as tested here
if [ -n "${flux_python_path+set}" ]; then
  export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$flux_python_path"
fi

# shellcheck disable=SC2154 # set only when the container has it, as tested here
if [ -n "${hook_service_pre+set}" ]; then
  run_hook servicePre "$hook_service_pre"
fi

# shellcheck disable=SC2154 # set only when the container has it, as tested here
if [ -n "${flux_socket+set}" ]; then
  log "waiting for the Flux instance of this pod ($flux_socket)"
  until [ -S "$flux_socket" ]; do
    run_child sleep 1
  done
  # The Go operator's scripts name it fluxsocket.
  export FLUX_URI="local://$flux_socket" fluxsocket="local://$flux_socket"
  log "the Flux instance is up: FLUX_URI=$FLUX_URI"
fi

status=0
# shellcheck disable=SC2154 # set only when the container has it, as tested here
if [ -n "${script_path+set}" ]; then
  log "running the script of $container_name"
  run_child bash "$script_path"
  if [ "$status" -ne 0 ]; then
    printf 'flux-operator: error: the script of %s exited with status %s\n' "$container_name" "$status" >&2
    exit "$status"
  fi
fi
# shellcheck disable=SC2154 # set only when the container has it, as tested here
if [ -n "${container_command+set}" ]; then
  run_child bash -c "$container_command"
  log "the command of $container_name exited with status $status"
fi
# shellcheck disable=SC2154 # set only when the container has it, as tested here
if [ -n "${hook_post+set}" ]; then
  if ! run_hook post "$hook_post"; then
    log "the post hook failed"
  fi
fi
exit "$status"
