# shellcheck shell=bash
# shellcheck disable=SC2154 # the parameters are set by the prologue above the body (see below)
#
# The body of the per-pod entrypoint (src/flux/entrypoint.ts renders the script: a prologue of quoted
# parameters, then this file as it is). It prepares the pod (flux present, flux user, directories,
# certificate, munge, R), finds its role from its hostname and runs the lead broker with the initial
# program (pod index 0) or a worker broker (the others), passing the TERM or INT that stops the pod on
# to its broker. It keeps the brokers' secrets from the jobs, which run as the brokers' user: an
# execute-only flux-broker (a non-dumpable broker), and a copy of the certificate per broker start,
# removed by the broker's rc1 once it has read it (docs/security.md). Besides bash it uses coreutils
# only (id, uname, mkdir, cp, chmod, chown, ln, mv, rm, dirname, sleep, chroot), and with a Flux view
# nothing else: the view brings Flux and munged, and the brokers run as the container's own user,
# whatever uid that is and whether /etc/passwd knows it or not; but for the RESTful API, whose jobs
# run as the flux user (made by writing /etc/passwd where the image has no useradd).
#
# The parameters, always set:
#   job_name, flux_install_root, config_dir, curve_cert_source, curve_cert,
#   run_dir, state_dir, worker_retry_delay, start_args (an array: the words after `flux start`)
#   lead_is_remote, log_quiet, log_timed: `yes` or empty
#   flux_user, flux_uid: the user the brokers run as (created when missing, with uid flux_uid); both
#   empty: the container's own user, as it is (nothing is created or given away)
# Set only when the MiniCluster has them:
#   keep_secrets_from_jobs: the RESTful API's jobs: the pod must start as root and run the brokers as
#   a flux_user that is not root, or it refuses to start
#   flux_view, flux_command_dir: Flux from a view (flux_view/bin/flux), not the image: its bin goes
#   last on PATH, after the image's own programs, and `flux` alone first, as a link in
#   flux_command_dir, so every `flux` is the view's
#   flux_view_software, flux_view_software_dir, flux_view_fluxion (`yes` or empty): where the init
#   container copies a Spack view's software (the Go operator's layout) and where its programs load
#   it from; Fluxion wanted (its rc1.d of the view goes on FLUX_RC_EXTRA)
#   flux_python_path: added to PYTHONPATH
#   flux_environment_file: where to write the environment (PATH, PYTHONPATH, fluxsocket and
#   flux_environment, an array of NAME=value words, which the container has already) as `export`
#   lines, for users of `kubectl exec` to source
#   resource_path, resource_hostlist: this pod writes R with `flux R encode`
#   placement_shell_rc_dir: where the job shell's initrc goes when tasks are not bound by default;
#   placement_exclusive_cpus, placement_cpu_limit, placement_gpus: what the spec says of the Flux
#   container's CPUs and GPUs (see place_brokers)
#   munge_key_source, munge_key, munge_socket_dir, munge_seed_dir, munge_log_dir, munge_user:
#   munged of the image, as munge_user, at its compiled-in places; with munge_daemon (the view's
#   munged), that one, as the container's user, told every place
#   flux_prefix: shell words in front of `flux start`, run as the flux user
#   worker_max_attempts
#   complete_workers: a worker broker that fails ends its pod (exit 0) instead of starting again
#   make_dirs (an array): folders every pod makes (the batch jobs' output folder)
#   archive_path: the lead restores Flux's content from this file when it exists
#   shared_dir: the state volume's mount (an emptyDir), closed to the flux user (close_shared_dir)
#   rc_extra_dir: a folder whose rc1.d/forget-certificate.sh removes the certificate's copy, put
#   first on the brokers' FLUX_RC_EXTRA
#   hook_init, hook_pre, hook_broker_pre, hook_worker_pre, hook_post: raw shell, run with eval
# Set when the lead broker runs here (lead_is_remote empty):
#   program_args (an array: the initial program's words after the `flux start` words), stays_up
#   flux_option_flags: exported to the lead broker as FLUX_OPTION_FLAGS
#   restful_credentials_source, restful_credentials, restful_port (restful_ignored_branch): the
#   RESTful server's credentials to copy and its port

if [ -n "$log_quiet" ]; then
  # Quiet: only errors and the program's own output.
  log() {
    :
  }
else
  log() {
    printf 'flux-operator: %s\n' "$*"
  }
fi

fail() {
  printf 'flux-operator: error: %s\n' "$*" >&2
  exit 1
}

is_root() {
  [ "$(id -u)" -eq 0 ]
}

# Runs a user's shell snippet in this shell, so what it exports reaches the broker.
run_hook() {
  log "running the $1 hook"
  eval "$2"
}

# setup_hook NAME TEXT: a setup hook (init, pre, brokerPre, workerPre). Quiet: its standard output
# is dropped (errors stay), as the program's output is all a quiet MiniCluster prints; the
# redirection of a function call keeps it in this shell, so what the hook exports still reaches the
# broker.
setup_hook() {
  if [ -n "$log_quiet" ]; then
    run_hook "$1" "$2" >/dev/null
  else
    run_hook "$1" "$2"
  fi
}

# chroot_switches_users: this image's chroot is coreutils' (8.23 or later), which can run a command as
# another user without changing the root (--userspec, --skip-chdir). No grep: the plain images lack it.
chroot_switches_users() {
  local help
  help="$(chroot --help 2>/dev/null)" || return 1
  [[ "$help" == *--userspec* && "$help" == *--skip-chdir* ]]
}

# home_of USER: the user's home folder, as /etc/passwd says (/ when it says none).
home_of() {
  local name home rest
  while IFS=: read -r name _ _ _ _ home rest; do
    if [ "$name" = "$1" ]; then
      printf '%s\n' "${home:-/}"
      return 0
    fi
  done </etc/passwd
  printf '/\n'
}

# as_user USER COMMAND...: sets as_user_command to the words that run COMMAND as USER with this
# PATH, using whichever tool the image has. An empty USER is this container's own user.
as_user() {
  local user="$1"
  shift
  if [ -z "$user" ] || [ "$(id -un)" = "$user" ]; then
    as_user_command=("$@")
  elif is_root && command -v runuser >/dev/null 2>&1; then
    as_user_command=(runuser -u "$user" -- env "PATH=$PATH" "$@")
  elif is_root && chroot_switches_users; then
    # coreutils' chroot to / (images without util-linux, the plain ones): the user's uid, its group
    # alone, this folder kept; env, as runuser does, gives the user's HOME, USER and LOGNAME.
    as_user_command=(chroot --skip-chdir "--userspec=$(id -u "$user"):$(id -g "$user")" "--groups=$(id -g "$user")" /
      env "PATH=$PATH" "HOME=$(home_of "$user")" "USER=$user" "LOGNAME=$user" "$@")
  elif command -v sudo >/dev/null 2>&1; then
    as_user_command=(sudo -E -u "$user" -- env "PATH=$PATH" "$@")
  elif command -v su >/dev/null 2>&1; then
    as_user_command=(su -p -s /bin/bash -c "$(printf '%q ' env "PATH=$PATH" "$@")" "$user")
  else
    fail "cannot run as $user: the image has none of runuser, sudo, su"
  fi
}

# run_as USER COMMAND...: COMMAND as USER with this PATH.
run_as() {
  as_user "$@"
  "${as_user_command[@]}"
}

# copy_secret SOURCE DEST OWNER: a private copy of a Secret file (mounts are group/other readable),
# given to OWNER (an empty OWNER: kept by this container's user).
copy_secret() {
  mkdir -p "$(dirname "$2")"
  rm -f "$2"
  cp "$1" "$2"
  chmod 0400 "$2"
  if is_root && [ -n "$3" ]; then
    chown -h "$3:$(id -g "$3")" "$2"
  fi
}

# close_shared_dir: the state volume becomes root's and 0755 before any broker starts, where root runs
# the brokers as a user of their own. An emptyDir is writable by every uid and has no sticky bit, so a
# job (the flux user's) could otherwise plant a link where root writes again at each broker start (the
# certificate's copy) and have root's cp, chmod and chown follow it: root writes only where the jobs
# cannot. What the flux user writes (Flux's state, a shared rundir) are folders given to it below.
# shellcheck disable=SC2154 # shared_dir is set only when the MiniCluster has it, as tested here
close_shared_dir() {
  if [ -z "${shared_dir+set}" ] || ! is_root || [ -z "$flux_user" ] || [ "$(id -u "$flux_user")" = 0 ]; then
    return 0
  fi
  if [ -L "$shared_dir" ] || [ ! -d "$shared_dir" ]; then
    fail "$shared_dir is not a folder: the state volume should be mounted there"
  fi
  chown -h 0:0 "$shared_dir"
  chmod 0755 "$shared_dir"
}

# Stopping: a pod's TERM (the pod deleted, the MiniCluster scaled down, its Job finished) or INT
# reaches the broker. The script is PID 1 of its container: the kernel hands PID 1 only the signals
# it has a handler for, and bash runs a trap only once its foreground command has ended. So each
# broker runs in the background while the script `wait`s for it, and the trap passes the signal on.
#
# To the broker itself, not to the tool that runs it as the flux user: util-linux `runuser` and `su`
# (2.38) pass a TERM on to their child but SIGKILL it 2 s later, too soon for a lead broker to shut
# its instance down, and pass an INT on only when they made a new session; `sudo` relays both and
# waits; busybox `su` execs the command. The broker is the process named `flux-broker`
# (`flux-broker-<rank>` once it knows its rank) nearest the background job in the process tree, read
# from /proc (not every image has `pgrep`, not every kernel has /proc/PID/task/PID/children). When
# there is none (a prefix or `--wrap` that renames it or runs it in another PID namespace), the
# background job gets the signal.
#
# flux-core 0.88: TERM or INT to the lead broker (rank 0) ends its initial program and shuts the
# whole instance down; to a worker broker, makes it leave the instance.

# The background job running a broker (empty when none runs), the one sleeping in a pause, the signal
# that told the pod to stop (empty until one did), how many such signals came, and whether the job got the signal.
broker_job=""
pause_job=""
stop_signal=""
stop_signals=0
stop_passed=""

# broker_in_tree PID: prints the pid of the broker process nearest PID in its process tree (PID
# included); fails when there is none. A broker names itself flux-broker-RANK once it knows its rank.
broker_in_tree() {
  local file line pid ppid level next depth=0
  local -A name_of=() children_of=()
  for file in /proc/[0-9]*/stat; do
    line=""
    { read -r line <"$file"; } 2>/dev/null || continue
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so cut at the last ")".
    pid="${line%% *}"
    name_of[$pid]="${line#*(}"
    name_of[$pid]="${name_of[$pid]%)*}"
    line="${line##*) }"
    line="${line#* }"
    ppid="${line%% *}"
    children_of[$ppid]="${children_of[$ppid]-} $pid"
  done
  level="$1"
  # The depth bound keeps a /proc read while pids were reused from looping.
  while [ -n "$level" ] && [ "$depth" -lt 64 ]; do
    next=""
    # shellcheck disable=SC2086 # a list of pids, split on purpose
    for pid in $level; do
      case "${name_of[$pid]-}" in
        flux-broker | flux-broker-[0-9]*)
          printf '%s\n' "$pid"
          return 0
          ;;
      esac
      next="$next${children_of[$pid]-}"
    done
    level="$next"
    depth=$((depth + 1))
  done
  return 1
}

# pass_stop SIGNAL: SIGNAL to the running broker.
pass_stop() {
  local target
  target="$(broker_in_tree "$broker_job")" || target="$broker_job"
  log "passing SIG$1 on to the broker (pid $target)"
  kill -s "$1" "$target" 2>/dev/null || true
  stop_passed=yes
}

# on_stop SIGNAL: the trap of TERM and INT.
on_stop() {
  stop_signal="$1"
  stop_signals=$((stop_signals + 1))
  log "got SIG$1: stopping"
  if [ -n "$broker_job" ]; then
    pass_stop "$1"
  fi
  if [ -n "$pause_job" ]; then
    kill "$pause_job" 2>/dev/null || true
  fi
}
trap 'on_stop TERM' TERM
trap 'on_stop INT' INT

# The broker's certificate (its CURVE secret key) is readable by the flux user, as Flux requires, so
# by the jobs too, which run as that user: each broker start gets a fresh private copy, which the
# broker's rc1 removes (rc_extra_dir/rc1.d/forget-certificate.sh on FLUX_RC_EXTRA: a broker has read
# its certificate before rc1, and runs no job before rc1 ends), and which goes when the broker ends.

# use_rc_extra: the operator's rc1 folder first on FLUX_RC_EXTRA (once), with the copy's path, and its
# modprobe folder last on FLUX_MODPROBE_PATH_APPEND (once).
# shellcheck disable=SC2154 # rc_extra_dir is set only when the MiniCluster has it, as tested here
use_rc_extra() {
  if [ -n "${rc_extra_dir+set}" ]; then
    case ":${FLUX_RC_EXTRA:-}:" in
      *":$rc_extra_dir:"*) ;;
      *) export FLUX_RC_EXTRA="$rc_extra_dir${FLUX_RC_EXTRA:+:$FLUX_RC_EXTRA}" ;;
    esac
    # Its modprobe/rc1.d/one-step-cleanup.py, read by `flux modprobe rc1` (one-step-cleanup.py says why).
    case ":${FLUX_MODPROBE_PATH_APPEND:-}:" in
      *":$rc_extra_dir/modprobe:"*) ;;
      *) export FLUX_MODPROBE_PATH_APPEND="${FLUX_MODPROBE_PATH_APPEND:+$FLUX_MODPROBE_PATH_APPEND:}$rc_extra_dir/modprobe" ;;
    esac
    export FLUX_OPERATOR_CURVE_CERT="$curve_cert"
  fi
}

# copy_certificate: the broker's private copy of the certificate. In the state volume it goes in a
# folder of its own, made anew by root in the volume only root may write, then given to the flux user
# (the broker's rc1, as that user, removes the copy): whatever a job left in the old folder is gone
# with it, unfollowed, and root never writes where a job could have planted a link.
# shellcheck disable=SC2154 # shared_dir is set only when the MiniCluster has it, as tested here
copy_certificate() {
  local folder
  folder="$(dirname "$curve_cert")"
  if [ -z "${shared_dir+set}" ] || [ "$folder" != "$shared_dir/curve" ]; then
    copy_secret "$curve_cert_source" "$curve_cert" "$flux_user"
    return
  fi
  rm -rf "$folder"
  mkdir -m 0700 "$folder"
  copy_secret "$curve_cert_source" "$curve_cert" "$flux_user"
  if is_root && [ -n "$flux_user" ]; then
    chown -h "$flux_user:$(id -g "$flux_user")" "$folder"
  fi
}

# run_broker COMMAND...: COMMAND (flux start, behind the prefix if there is one) as the flux user, in
# the background, waited for until it is gone; its exit status in $status.
run_broker() {
  local seen
  as_user "$flux_user" "$@"
  stop_passed=""
  copy_certificate
  use_rc_extra
  "${as_user_command[@]}" &
  broker_job=$!
  # A signal that came while the job was being started has not reached it.
  if [ -n "$stop_signal" ] && [ -z "$stop_passed" ]; then
    pass_stop "$stop_signal"
  fi
  while :; do
    seen="$stop_signals"
    status=0
    wait "$broker_job" || status=$?
    # A trapped signal ends wait early (with 128 + its number): then wait again for the broker's status.
    if [ "$stop_signals" = "$seen" ]; then
      break
    fi
  done
  broker_job=""
  rm -f "$curve_cert"
}

# start_broker WORD...: runs `flux start` with start_args and WORDs (the lead's initial program) as a
# broker. Behind the prefix when there is one: the prefix is the quoted $flux_prefix, so its text is
# shell only for the `bash -c` that runs it, and the broker's words reach it as that bash's "$@",
# quoted. Timed when asked.
# shellcheck disable=SC2154 # flux_prefix is set only when there is a prefix, as tested here
start_broker() {
  local broker=("$flux_bin" start "${start_args[@]}" "$@")
  if [ -n "${flux_prefix+set}" ]; then
    broker=(bash -c "$flux_prefix"' "$@"' flux-prefix "${broker[@]}")
  fi
  if [ -n "$log_timed" ]; then
    time run_broker "${broker[@]}"
  else
    run_broker "${broker[@]}"
  fi
}

# pause SECONDS: sleeps, unless told to stop before or meanwhile. The trap kills the sleep, since a
# signal trapped after the check below but before `wait` began would not end the wait.
pause() {
  [ -z "$stop_signal" ] || return 0
  sleep "$1" &
  pause_job=$!
  [ -n "$stop_signal" ] || wait "$pause_job" || true
  kill "$pause_job" 2>/dev/null || true
  pause_job=""
}

# use_spack_view: the view is the Go Flux Operator's layout (a Spack view: the init container copied
# /opt/software of its image to flux_view_software beside it). Its programs load their libraries from
# /opt/software (and a Spack view's files may be links into it), so the software goes back there
# first; then, as the Go operator does, the view's Python site-packages on PYTHONPATH (unless
# flux.container.pythonPath names the place), Fluxion's rc1.d of the view on FLUX_RC_EXTRA, and the
# view's lib on LD_LIBRARY_PATH in the environment file only: exported here, it would come before
# the image's own libraries for every program of the jobs.
# shellcheck disable=SC2154 # its parameters are set with flux_view_software, which the caller tests
use_spack_view() {
  local copy_error
  log "the Flux view is a Spack view (the Go Flux Operator's layout): copying its software to $flux_view_software_dir"
  if ! copy_error="$(mkdir -p "$flux_view_software_dir" 2>&1 && cp -R "$flux_view_software/." "$flux_view_software_dir/" 2>&1)"; then
    fail "the Flux view is a Spack view (the Go Flux Operator's layout), whose programs load their libraries from $flux_view_software_dir, and this container (uid $(id -u)) cannot write there (${copy_error//$'\n'/; }): run the container as root (securityContext runAsUser: 0), or mount a writable volume at $flux_view_software_dir (an emptyDir in the container's volumes)"
  fi
  if [ -z "${flux_python_path+set}" ]; then
    local site
    for site in "$flux_view"/lib/python3*/site-packages; do
      if [ -d "$site" ]; then
        flux_python_path="$site"
        break
      fi
    done
  fi
  if [ -n "$flux_view_fluxion" ] && [ -d "$flux_view/etc/flux/rc1.d" ]; then
    export FLUX_RC_EXTRA="${FLUX_RC_EXTRA:+$FLUX_RC_EXTRA:}$flux_view/etc/flux/rc1.d"
  fi
  flux_view_library_path="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$flux_view/lib"
}

# shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
if [ -n "${hook_init+set}" ]; then
  setup_hook init "$hook_init"
fi

# wait_for_view: the flux-view sidecar copies the view while this container starts (view-sidecar.sh).
# Its marker, view.complete beside the view, is written last, when the copy is whole; view.failed
# holds the copy's words when it failed, and this broker fails with them.
wait_for_view() {
  local waits=0
  until [ -e "$flux_view.complete" ]; do
    if [ -e "$flux_view.failed" ]; then
      fail "the Flux view was not copied (the flux-view container's words): $(cat "$flux_view.failed" 2>/dev/null)"
    fi
    sleep 0.02
    waits=$((waits + 1))
  done
  log "the Flux view is in place (waited $((waits * 20)) ms or more for its copy)"
}

# shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
if [ -n "${flux_view+set}" ]; then
  wait_for_view
  # Flux from the view the sidecar copied into the volume shared with this container. `flux`
  # is run by its name, through a link first on PATH: then it keeps PATH as it is for the jobs (run
  # by a path, it would put the view's bin first), where the image's own programs (its python3, say)
  # come before the view's.
  # Empty, it is only where a Spack view's software would be (its own volume, with flux.container.medium).
  # shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
  if [ -n "${flux_view_software+set}" ] && [ -n "$(ls -A "$flux_view_software" 2>/dev/null)" ]; then
    use_spack_view
  fi
  if [ ! -x "$flux_view/bin/flux" ]; then
    fail "there is no Flux view at $flux_view (no bin/flux), yet its copy is marked complete: see the flux-view container's log"
  fi
  # Containers beside this one link it too: a link made beside and renamed over is never half there.
  mkdir -p "$flux_command_dir"
  ln -sfn "$flux_view/bin/flux" "$flux_command_dir/.flux.$$"
  mv -Tf "$flux_command_dir/.flux.$$" "$flux_command_dir/flux"
  export PATH="$flux_command_dir:$PATH:$flux_view/bin"
  flux_bin=flux
else
  export PATH="$flux_install_root/bin:$PATH"
  if ! flux_bin="$(command -v flux)"; then
    fail "flux is not in this container (looked in $flux_install_root/bin and PATH=$PATH): use an image with Flux installed, or set the Flux install root to where it is"
  fi
fi
# shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
if [ -n "${flux_python_path+set}" ]; then
  export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$flux_python_path"
fi
# shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
if [ -n "${flux_environment_file+set}" ]; then
  # What the other containers of the pod and users of `kubectl exec` source to use this instance.
  mkdir -p "$(dirname "$flux_environment_file")"
  {
    printf 'export PATH=%q\n' "$PATH"
    if [ -n "${PYTHONPATH+set}" ]; then
      printf 'export PYTHONPATH=%q\n' "$PYTHONPATH"
    fi
    if [ -n "${flux_view_library_path+set}" ]; then
      printf 'export LD_LIBRARY_PATH=%q\n' "$flux_view_library_path"
    fi
    printf 'export fluxsocket=%q\n' "local://$run_dir/local"
    for variable in ${flux_environment[@]+"${flux_environment[@]}"}; do
      printf 'export %s=%q\n' "${variable%%=*}" "${variable#*=}"
    done
  } >"$flux_environment_file"
fi

# The broker finds its rank by its hostname; index 0 of the Job is the lead broker.
pod_hostname="$(uname -n)"
case "$pod_hostname" in
  "$job_name"-*) pod_index="${pod_hostname#"$job_name"-}" ;;
  *) fail "hostname $pod_hostname is not a pod of job $job_name (expected $job_name-<index>)" ;;
esac
case "$pod_index" in
  "" | *[!0-9]*) fail "hostname $pod_hostname does not end in a pod index" ;;
esac
# On a burst cluster the lead broker runs elsewhere, so every pod here is a worker.
if [ -z "$lead_is_remote" ] && [ "$pod_index" -eq 0 ]; then role=lead; else role=worker; fi
log "pod $pod_hostname: $role"

# The flux user: used as it is when it exists. A new one gets uid $flux_uid unless another user
# already has it (uid 1000 is `ubuntu` in Ubuntu 24.04 images, and `useradd --uid` then fails "UID
# 1000 is not unique"): then useradd/adduser choose a free one, and the log says which.

# user_with_uid UID: the name of the user that has UID (empty when none has).
user_with_uid() {
  if command -v getent >/dev/null 2>&1; then
    getent passwd "$1" | cut -d: -f1 || true
  else
    local name uid rest
    while IFS=: read -r name _ uid rest; do
      if [ "$uid" = "$1" ]; then
        printf '%s\n' "$name"
        return 0
      fi
    done </etc/passwd
  fi
}

# free_id FILE FROM: the first id from FROM that no line of FILE (/etc/passwd, /etc/group) has.
free_id() {
  local id="$2" taken=" " name number rest
  while IFS=: read -r name _ number rest; do
    taken+="$number "
  done <"$1"
  while [[ "$taken" == *" $id "* ]]; do
    id=$((id + 1))
  done
  printf '%s\n' "$id"
}

# write_user NAME [UID]: NAME and its group written into /etc/passwd and /etc/group, for images with
# neither useradd nor adduser (the plain ones: coreutils alone); a free uid from 1000 without UID, a
# group of the same id where it is free; a home folder of its own.
write_user() {
  local uid="${2:-$(free_id /etc/passwd 1000)}" gid
  gid="$(free_id /etc/group "$uid")"
  printf '%s:x:%s:\n' "$1" "$gid" >>/etc/group
  printf '%s:x:%s:%s::/home/%s:/bin/bash\n' "$1" "$uid" "$gid" "$1" >>/etc/passwd
  mkdir -p "/home/$1"
  chown -h "$uid:$gid" "/home/$1"
  chmod 0755 "/home/$1"
}

# keep_secrets_from_jobs: the jobs come from the RESTful API's users. They must not run as root nor as
# this container's user, who can read the mounted keys (every user's token, the signing key, the
# CURVE key, the munge key): refused here, never run open, where the image starts as another user
# (the MiniCluster's own securityContext is refused when it is applied).
refuse_open_secrets() {
  fail "this MiniCluster serves the RESTful API, and $1: its users' jobs would reach every user's token, the signing key, the CURVE key and the munge key. Start the Flux container as root (an image whose USER is root, no securityContext.runAsUser) and let the brokers and jobs run as fluxUser (default flux, uid 1000), not root"
}
# shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
if [ -n "${keep_secrets_from_jobs+set}" ]; then
  if ! is_root; then
    refuse_open_secrets "this container runs as uid $(id -u), not root, so the jobs would run as the user that holds the keys"
  elif [ -z "$flux_user" ]; then
    refuse_open_secrets "no fluxUser is set, so the jobs would run as root"
  fi
fi

if [ -z "$flux_user" ]; then
  log "running Flux as this container's user (uid $(id -u))"
elif id -u "$flux_user" >/dev/null 2>&1; then
  log "using the existing user $flux_user (uid $(id -u "$flux_user"))"
else
  uid_owner="$(user_with_uid "$flux_uid")"
  # `-u <uid>` or nothing; the `+` form keeps an empty array valid under `set -u` in bash < 4.4.
  if [ -n "$uid_owner" ]; then
    log "uid $flux_uid belongs to $uid_owner: creating user $flux_user with a free uid"
    uid_option=()
  else
    log "creating user $flux_user (uid $flux_uid)"
    uid_option=(-u "$flux_uid")
  fi
  if command -v useradd >/dev/null 2>&1; then
    useradd ${uid_option[@]+"${uid_option[@]}"} --create-home --shell /bin/bash "$flux_user"
  elif command -v adduser >/dev/null 2>&1; then
    adduser -D ${uid_option[@]+"${uid_option[@]}"} -s /bin/sh "$flux_user"
  elif is_root && [ -w /etc/passwd ] && [ -w /etc/group ]; then
    write_user "$flux_user" "${uid_option[1]-}"
  else
    fail "user $flux_user does not exist and the image has neither useradd nor adduser, nor an /etc/passwd root may write"
  fi
  log "created user $flux_user with uid $(id -u "$flux_user")"
fi
if [ -n "${keep_secrets_from_jobs+set}" ] && [ "$(id -u "$flux_user")" = 0 ]; then
  refuse_open_secrets "the fluxUser $flux_user has uid 0, so the jobs would run as root"
fi
close_shared_dir
mkdir -p "$run_dir" "$state_dir" "$config_dir"
if is_root && [ -n "$flux_user" ]; then
  chown -h "$flux_user:$(id -g "$flux_user")" "$run_dir" "$state_dir"
fi
# shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
if [ -n "${make_dirs+set}" ]; then
  mkdir -p "${make_dirs[@]}"
  if is_root && [ -n "$flux_user" ]; then
    chown -h "$flux_user:$(id -g "$flux_user")" "${make_dirs[@]}"
  fi
fi
# keep_broker_private: flux-broker becomes execute-only for the flux user. The kernel makes a process
# that runs a program its user may not read non-dumpable: processes of the same uid (the jobs, in a
# single-user instance) can then neither trace a broker nor read its memory (the CURVE secret key),
# environment or file descriptors under /proc. The file is the image's, changed in this container
# only. Only where the brokers run as a user of their own (root reads any file, and with the view or
# runFluxAsRoot the jobs run as the container's user, who can read this pod's Secrets anyway).
keep_broker_private() {
  local program="$flux_install_root/libexec/flux/cmd/flux-broker"
  if [ ! -f "$program" ]; then
    log "no flux-broker at $program: the jobs can read the brokers' memory"
  elif chmod go-rw "$program" 2>/dev/null; then
    log "flux-broker is execute-only for $flux_user: the jobs cannot read the brokers' memory"
  else
    log "cannot make $program execute-only (a read-only file system?): the jobs can read the brokers' memory"
  fi
}

if is_root && [ -n "$flux_user" ] && [ "$(id -u "$flux_user")" != 0 ]; then
  keep_broker_private
fi

# munged (for flux-security), started only when the MiniCluster has a munge key and the image has
# munged. munged checks its directories before it starts: each is made here and given to the munge
# user, not writable by others. The socket's directory stays searchable by everyone: the flux user's
# brokers connect to the socket in it.

# munge_dir DIR MODE: DIR owned by the munge user (or this container's), with MODE.
munge_dir() {
  mkdir -p "$1"
  if is_root && [ -n "$munge_user" ]; then
    chown -h "$munge_user:$(id -g "$munge_user")" "$1"
  fi
  if is_root || [ -O "$1" ]; then
    chmod "$2" "$1"
  fi
}

# shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
if [ -n "${munge_daemon+set}" ]; then
  # The view's munged knows no place of this image: each is given. --force: the shared volume is
  # writable by all without the sticky bit (an emptyDir), which munged refuses otherwise; only this
  # pod's containers can write it.
  munge_socket="$munge_socket_dir/munge.socket.2"
  log "starting munged from the view (its socket: $munge_socket)"
  munge_dir "$munge_socket_dir" 0755
  munge_dir "$munge_seed_dir" 0700
  munge_dir "$munge_log_dir" 0700
  munge_dir "$(dirname "$munge_key")" 0700
  copy_secret "$munge_key_source" "$munge_key" "$munge_user"
  # Its warnings (the insecure folder, an origin it cannot resolve) go to its log, not the pod's: a
  # quiet MiniCluster prints its program's output only. They are shown when it fails.
  if ! "$munge_daemon" --force "--key-file=$munge_key" "--socket=$munge_socket" \
    "--pid-file=$munge_socket_dir/munged.pid" "--log-file=$munge_log_dir/munged.log" \
    "--seed-file=$munge_seed_dir/munged.seed" 2>>"$munge_log_dir/munged.stderr"; then
    printf '%s\n' "$(<"$munge_log_dir/munged.stderr")" >&2
    fail "munged from the view did not start (its log: $munge_log_dir/munged.log)"
  fi
elif [ -n "${munge_user+set}" ]; then
  if command -v munged >/dev/null 2>&1; then
    log "starting munged"
    munge_dir "$munge_socket_dir" 0755
    munge_dir "$munge_seed_dir" 0700
    munge_dir "$munge_log_dir" 0700
    munge_dir "$(dirname "$munge_key")" 0700
    copy_secret "$munge_key_source" "$munge_key" "$munge_user"
    run_as "$munge_user" munged
  else
    log "munged is not in the image: not starting munge"
  fi
fi

# Placement: what R says of this pod and whether Flux binds tasks to cores (docs/mpi.md). Flux's job
# shell binds each task to the cores R gives its broker, counted from the first core the pod may use.
# That is right only when those cores are this pod's own: brokers sharing a node's cores (the shared
# pool of every pod but a Guaranteed one with whole CPUs under the static CPU manager) would all bind
# their first task to the same core, and an MPI job would run its ranks on one core. So:
# - cores of its own (the Flux container asks for exactly placement_exclusive_cpus whole CPUs and the
#   pod may use exactly that many): Flux binds, as it does on a node of its own;
# - otherwise: R lists the cores the pod may use (no more than its CPU limit, placement_cpu_limit),
#   and the job shell binds no task unless its job asks (-o cpu-affinity=on, per-task, map:...): the
#   instance's shell initrc (placement_shell_rc_dir/initrc.lua) sets that default, then runs Flux's own.
# GPUs (placement_gpus: the container's nvidia.com/gpu and the like) are ids 0.. on every broker, as
# the device plugin shows them to the container.

# cpu_list_count LIST: how many CPU ids a list such as 0-3,8,10-11 (Cpus_allowed_list) names.
cpu_list_count() {
  local count=0 range first last
  local IFS=,
  for range in $1; do
    case "$range" in
      *[!0-9-]* | -* | *-) ;;
      *-*)
        first="${range%-*}"
        last="${range#*-}"
        count=$((count + 10#$last - 10#$first + 1))
        ;;
      ?*) count=$((count + 1)) ;;
    esac
  done
  printf '%s\n' "$count"
}

# ids_from_zero COUNT: the idset of COUNT ids from 0 (`0`, `0-3`): `flux R encode` refuses the cores
# `0-0` and drops the GPUs `0-0` without a word.
ids_from_zero() {
  if [ "$1" -eq 1 ]; then
    printf '0\n'
  else
    printf '0-%s\n' "$(($1 - 1))"
  fi
}

# allowed_cpu_list: the CPUs this process may run on (its cgroup's cpuset), as the kernel lists them.
allowed_cpu_list() {
  local line
  while IFS= read -r line; do
    case "$line" in
      Cpus_allowed_list:*)
        line="${line#*:}"
        printf '%s\n' "${line//[[:space:]]/}"
        return 0
        ;;
    esac
  done </proc/self/status
  return 1
}

# flux_shell_initrc: the job shell's own initrc.lua (Flux's sysconfdir: the view's etc, or /etc for an
# image's /usr install), asked of Flux's Python when it is in neither place.
flux_shell_initrc() {
  local candidate
  for candidate in ${flux_view+"$flux_view/etc/flux/shell/initrc.lua"} \
    "$flux_install_root/etc/flux/shell/initrc.lua" /etc/flux/shell/initrc.lua; do
    if [ -f "$candidate" ]; then
      printf '%s\n' "$candidate"
      return 0
    fi
  done
  "$flux_bin" python -c 'from flux.conf_builtin import conf_builtin_get; print(conf_builtin_get("shell_initrc"))' 2>/dev/null
}

# write_unbound_initrc DIR: DIR/initrc.lua, which leaves a job's tasks unbound unless the job asks,
# then runs Flux's initrc; DIR/lua.d is Flux's, whose rc files (openmpi.lua gives each job its own
# shared-memory folder) the shell finds beside the initrc it loaded. DIR is made anew, so nothing a
# job planted there (a link) is followed. Fails when Flux's initrc is not found.
write_unbound_initrc() {
  local own
  own="$(flux_shell_initrc)" && [ -f "$own" ] || return 1
  case "$own" in *']==]'*) return 1 ;; esac
  rm -rf "$1"
  mkdir -p "$1"
  ln -s "$(dirname "$own")/lua.d" "$1/lua.d"
  printf '%s\n' \
    '-- flux-operator: this pod shares its cores, so tasks are bound only when the job asks (docs/mpi.md).' \
    'if shell.options["cpu-affinity"] == nil then' \
    '  shell.options["cpu-affinity"] = "off"' \
    'end' \
    "source ([==[$own]==])" >"$1/initrc.lua"
  chmod 0755 "$1"
  chmod 0644 "$1/initrc.lua"
}

# shellcheck disable=SC2154 # the placement parameters are set only when known, as tested here
place_brokers() {
  local allowed allowed_count local_cores="" cores gpus_flag=() binds=""
  allowed="$(allowed_cpu_list)" || allowed=""
  allowed_count="$(cpu_list_count "$allowed")"
  if [ -n "${placement_exclusive_cpus+set}" ] && [ "$allowed_count" = "$placement_exclusive_cpus" ]; then
    binds=yes
  fi
  if [ -n "${placement_gpus+set}" ] && [ "$placement_gpus" -gt 0 ]; then
    gpus_flag=("--gpus=$(ids_from_zero "$placement_gpus")")
  fi
  if [ -n "${resource_hostlist+set}" ]; then
    mkdir -p "$(dirname "$resource_path")"
    # The cores hwloc finds in this pod's cpuset, which are the ones the shell binds to; counted when
    # R must list fewer (a CPU limit on shared cores) or GPUs too.
    if [ -z "$binds" ] && [ -n "${placement_cpu_limit+set}" ] || [ "${#gpus_flag[@]}" -gt 0 ]; then
      local_cores="$("$flux_bin" R encode --local)" &&
        local_cores="$(printf '%s\n' "$local_cores" | "$flux_bin" R decode --count=core)" || local_cores=""
    fi
    case "$local_cores" in
      "" | *[!0-9]* | 0)
        log "writing R for $resource_hostlist"
        "$flux_bin" R encode "--hosts=$resource_hostlist" --local >"$resource_path"
        ;;
      *)
        cores="$local_cores"
        if [ -z "$binds" ] && [ -n "${placement_cpu_limit+set}" ] && [ "$placement_cpu_limit" -lt "$cores" ]; then
          cores="$placement_cpu_limit"
        fi
        log "writing R for $resource_hostlist: $cores cores${placement_gpus+ and $placement_gpus GPUs} per broker"
        "$flux_bin" R encode "--hosts=$resource_hostlist" "--cores=$(ids_from_zero "$cores")" ${gpus_flag[@]+"${gpus_flag[@]}"} >"$resource_path"
        ;;
    esac
  fi
  if [ -n "$binds" ]; then
    log "placement: CPUs $allowed are this pod's own: Flux binds each task to its cores"
  elif [ -z "${placement_shell_rc_dir+set}" ]; then
    :
  elif write_unbound_initrc "$placement_shell_rc_dir"; then
    start_args+=("-Sconf.shell_initrc=$placement_shell_rc_dir/initrc.lua")
    log "placement: CPUs ${allowed:-unknown} may be shared with other pods: tasks are bound to cores only when a job asks (-o cpu-affinity=on)"
  else
    log "placement: Flux's shell initrc was not found: Flux binds tasks to cores as it does by default"
  fi
}
place_brokers

# shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
if [ -n "${hook_pre+set}" ]; then
  setup_hook pre "$hook_pre"
fi

# report_missing_program: when the lead broker ended with the status of a program that could not be
# started, 127 (not found) or 126 (found but not executable: what bash and Flux's job shell, which
# starts a submitted command, both exit with), and the command's own program is what is missing, says
# so on stderr and in the pod's termination message, which the operator puts in the MiniCluster's
# Failed condition (status.ts, programFailure, reads this very line: change both).
#   program_name: the command's program (its first word after any NAME=value), set by the operator
#   only when the command has one program and that word is plain; only that word ever reaches the
#   message, never the command's other words, which may carry anything
#   termination_log: the container's terminationMessagePath (the kubelet reads it when it ends)
# Checked after the job failed, not before the broker starts: the command runs inside Flux (a
# launcher under `bash -c`), and what it runs can come from a prefix (a wrapper that mounts it), from
# the command's own shell or from what a hook set up, so a check up front would refuse commands that
# run. After a 126/127, `command -v` here (it knows builtins, keywords, the hooks' functions and paths
# relative to this working directory) tells whether the program itself was the missing one: the
# job's PATH holds this shell's (the broker and its jobs inherit it), so what is not found here was
# not found there. Found here, something the program ran failed so, and only the status is reported.
# shellcheck disable=SC2154 # program_name and termination_log are set together, only then, as tested here
report_missing_program() {
  local what line
  case "$status" in
    127) what="was not found in the image" ;;
    126) what="is not executable" ;;
    *) return 0 ;;
  esac
  if [ -z "${program_name+set}" ] || [ -n "$stop_signal" ] || command -v -- "$program_name" >/dev/null 2>&1; then
    return 0
  fi
  line="the command's program \"$program_name\" $what (exit status $status)"
  printf 'flux-operator: error: %s\n' "$line" >&2
  if ! { printf '%s\n' "$line" >"$termination_log"; } 2>/dev/null; then
    log "cannot write the termination message to $termination_log"
  fi
}

if [ "$role" = lead ]; then
  # shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
  if [ -n "${hook_broker_pre+set}" ]; then
    setup_hook brokerPre "$hook_broker_pre"
  fi
  # shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
  if [ -n "${flux_option_flags+set}" ]; then
    export FLUX_OPTION_FLAGS="$flux_option_flags"
  fi
  # shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
  if [ -n "${restful_port+set}" ]; then
    # A folder of the server's (the flux user's), made anew: it removes the credentials once read.
    restful_dir="$(dirname "$restful_credentials")"
    rm -rf "$restful_dir"
    mkdir -m 0700 "$restful_dir"
    if is_root && [ -n "$flux_user" ]; then
      chown -h "$flux_user:$(id -g "$flux_user")" "$restful_dir"
    fi
    copy_secret "$restful_credentials_source" "$restful_credentials" "$flux_user"
    log "RESTful instance: the API is served on port $restful_port"
    if [ -n "${restful_ignored_branch+set}" ]; then
      log "fluxRestful.branch $restful_ignored_branch is ignored: the server ships with the operator, nothing is cloned"
    fi
  fi
  if [ -n "$stays_up" ]; then
    log "interactive instance: connect with flux proxy local://$run_dir/local"
  fi
  # shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
  if [ -n "${archive_path+set}" ] && [ -e "$archive_path" ]; then
    log "restoring Flux's content from $archive_path"
    start_args+=("-Scontent.restore=$archive_path")
  fi
  if [ -n "$stop_signal" ]; then
    log "told to stop (SIG$stop_signal) before the lead broker started"
    exit "$((128 + $(kill -l "$stop_signal")))"
  fi
  log "starting the lead broker"
  start_broker "${program_args[@]}"
  log "the lead broker exited with status $status"
  report_missing_program
  # shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
  if [ -n "${hook_post+set}" ]; then
    if ! run_hook post "$hook_post"; then
      log "the post hook failed"
    fi
  fi
  exit "$status"
fi

# shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
if [ -n "${hook_worker_pre+set}" ]; then
  setup_hook workerPre "$hook_worker_pre"
fi
# A worker broker exits 0 when the instance shuts down; anything else is retried so the pod
# rejoins (the lead may not be up yet, or restarted). A pod told to stop is done, whatever the status.
attempt=0
while :; do
  if [ -n "$stop_signal" ]; then
    log "told to stop (SIG$stop_signal): worker done"
    exit 0
  fi
  attempt=$((attempt + 1))
  log "starting a worker broker (attempt $attempt)"
  start_broker
  if [ -n "$stop_signal" ]; then
    log "told to stop (SIG$stop_signal): the worker broker exited with status $status, worker done"
    exit 0
  fi
  if [ "$status" -eq 0 ]; then
    log "the instance shut down: worker done"
    exit 0
  fi
  # shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
  if [ -n "${complete_workers+set}" ]; then
    log "the worker broker exited with status $status: worker done (workers complete)"
    exit 0
  fi
  # shellcheck disable=SC2154 # set only when the MiniCluster has it, as tested here
  if [ -n "${worker_max_attempts+set}" ] && [ "$attempt" -ge "$worker_max_attempts" ]; then
    printf 'flux-operator: error: worker broker failed %s times, last status %s\n' "$attempt" "$status" >&2
    exit "$status"
  fi
  log "the worker broker exited with status $status: retrying in $worker_retry_delay s"
  pause "$worker_retry_delay"
done
