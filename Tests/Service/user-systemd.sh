#!/usr/bin/env bash
# user-systemd.sh: a real `systemd --user` for tests, on a machine whose PID 1 is not systemd
# (containers, CI): started in a private mount namespace where /run/systemd/system exists (the
# mark systemd looks for), in a cgroup of its own, with its own XDG_RUNTIME_DIR and HOME, so it
# never touches the machine's services nor another test's manager.
#
#   user-systemd.sh up STATE        start a manager; STATE (an empty folder) holds its runtime
#                                   folder (STATE/run), home (STATE/home) and pid (STATE/pid)
#   user-systemd.sh ctl STATE ARGS  systemctl --user ARGS, against that manager
#   user-systemd.sh down STATE      stop the manager and everything it started; remove its cgroup
#
# Needs root (mount namespace, cgroups), util-linux (unshare, nsenter) and systemd.
set -euo pipefail

die() { echo "user-systemd.sh: $*" >&2; exit 1; }

[ $# -ge 2 ] || { sed -n '2,13p' "$0" >&2; exit 64; }
cmd=$1 state=$2
shift 2
cgroup_name="share-test-$(basename "$state")"

in_namespace() {
    local pid
    pid=$(cat "$state/pid")
    nsenter --mount="/proc/$pid/ns/mnt" env XDG_RUNTIME_DIR="$state/run" HOME="$state/home" "$@"
}

case $cmd in
  up)
    [ "$(id -u)" = 0 ] || die "needs root"
    mkdir -p "$state/run" "$state/home/.config/systemd/user"
    chmod 700 "$state/run"
    # A cgroup of its own in every hierarchy systemd uses (cgroup v2, or the hybrid layout).
    cgroups=()
    for root in /sys/fs/cgroup/unified /sys/fs/cgroup/systemd /sys/fs/cgroup; do
        if [ -w "$root/cgroup.procs" ] && { [ "$root" != /sys/fs/cgroup ] || [ -e /sys/fs/cgroup/cgroup.controllers ]; }; then
            mkdir -p "$root/$cgroup_name"
            cgroups+=("$root/$cgroup_name")
        fi
    done
    printf '%s\n' "${cgroups[@]}" > "$state/cgroups"
    # The manager: in its cgroups, in a mount namespace with /run/systemd/system.
    (
        for group in "${cgroups[@]}"; do echo $BASHPID > "$group/cgroup.procs"; done
        exec unshare --mount --propagation private bash -c '
            mount -t tmpfs tmpfs /run/systemd
            mkdir -p /run/systemd/system
            exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin XDG_RUNTIME_DIR="$1/run" HOME="$1/home" \
                SYSTEMD_LOG_LEVEL=info /lib/systemd/systemd --user
        ' manager "$state" < /dev/null > "$state/manager.log" 2>&1 3>&- 4>&- 5>&-
    ) &
    echo $! > "$state/pid"
    for _ in $(seq 1 200); do
        [ -S "$state/run/systemd/private" ] && in_namespace systemctl --user is-system-running >/dev/null 2>&1 && exit 0
        kill -0 "$(cat "$state/pid")" 2>/dev/null || die "systemd --user exited: $(cat "$state/manager.log")"
        sleep 0.05
    done
    state_now=$(in_namespace systemctl --user is-system-running 2>&1 || true)
    [ -S "$state/run/systemd/private" ] || die "systemd --user did not start: $(cat "$state/manager.log")"
    echo "systemd --user runs ($state_now)" >&2 ;;
  ctl)
    in_namespace systemctl --user "$@" ;;
  down)
    if [ -f "$state/pid" ]; then
        pid=$(cat "$state/pid")
        in_namespace systemctl --user exit >/dev/null 2>&1 || true
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    if [ -f "$state/cgroups" ]; then
        while read -r group; do
            [ -d "$group" ] || continue
            # Whatever is left in the manager's cgroups (and their children) goes.
            find "$group" -name cgroup.procs | while read -r procs; do
                while read -r leftover; do kill -KILL "$leftover" 2>/dev/null || true; done < "$procs"
            done
            sleep 0.1
            find "$group" -depth -type d -exec rmdir {} \; 2>/dev/null || true
        done < "$state/cgroups"
    fi ;;
  *) die "unknown command $cmd" ;;
esac
