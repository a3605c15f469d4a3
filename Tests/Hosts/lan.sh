#!/usr/bin/env bash
# lan.sh: simulated LAN hosts for share's tests, all on this one Linux machine.
#
# Each host is a network namespace with its own D-Bus system bus and its own
# avahi-daemon, linked by a veth pair to a bridge that lives in a "switch"
# namespace. mDNS multicast flows between the hosts as on a real LAN and never
# leaves the namespaces. Needs root, iproute2, dbus-daemon and avahi-daemon.
#
#   lan.sh check                  print what is missing (exit 0: all present)
#   lan.sh up NAME...             create hosts (NAME: [a-z][a-z0-9]{0,11}); first
#                                 removes every host and the switch left with the
#                                 same prefix by an earlier run that is gone
#   lan.sh run NAME CMD...        run CMD as if on host NAME (exec, so the pid is CMD's)
#   lan.sh addr NAME              print the host's IPv4 address
#   lan.sh addr6 NAME             print the host's IPv6 link-local address (no scope)
#   lan.sh stop-avahi NAME        stop the host's avahi-daemon (SIGTERM, it sends goodbyes)
#   lan.sh start-avahi NAME       start it again and wait until it is up
#   lan.sh restart-avahi NAME     stop, then start
#   lan.sh down [NAME...]         kill everything running on those hosts (all hosts
#                                 when no name is given), delete their namespaces
#
# Environment:
#   SHARE_LAN_PREFIX   namespace prefix (default "shlan"); runs that may overlap
#                      must use different prefixes
#   SHARE_LAN_STATE    state folder (default /tmp/share-lan-$SHARE_LAN_PREFIX):
#                      bus sockets, configs, pids, daemon logs
#   SHARE_LAN_SUBNET   first three octets of the hosts' IPv4 /24 (default 10.231.0);
#                      hosts get .11, .12, ... in the order given to `up`
#   SHARE_LAN_TRACE    append a command trace (set -x) to this file
#   SHARE_LAN_OWNER    pid of the process that owns the LAN (default: the caller's);
#                      `up` refuses to replace a LAN whose owner is still alive
#
# Inside `run`, DBUS_SYSTEM_BUS_ADDRESS points at the host's own bus, so any Avahi
# client (avahi-browse, libavahi-client) talks to that host's daemon, and
# if_indextoname() sees the host's interfaces (eth0 plus lo).
set -euo pipefail

# Close every inherited descriptor but stdin, stdout and stderr (and 255, bash's own
# handle on this script): the daemons started here outlive the script and must not keep
# the caller's pipes open, or a caller reading our output to EOF would wait forever.
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  case $fd in 0|1|2|255) ;; *) eval "exec $fd>&-" 2>/dev/null || true ;; esac
done

# SHARE_LAN_TRACE=FILE appends a trace of every command (set -x) to FILE.
if [ -n "${SHARE_LAN_TRACE:-}" ]; then exec 19>>"$SHARE_LAN_TRACE"; BASH_XTRACEFD=19; set -x; fi

PREFIX=${SHARE_LAN_PREFIX:-shlan}
STATE=${SHARE_LAN_STATE:-/tmp/share-lan-$PREFIX}
SUBNET=${SHARE_LAN_SUBNET:-10.231.0}
OWNER=${SHARE_LAN_OWNER:-$PPID}
SWITCH="${PREFIX}_switch"
BRIDGE=br0

die() { echo "lan.sh: $*" >&2; exit 1; }
host_ns() { echo "$PREFIX-$1"; }

check_name() {
  [[ $1 =~ ^[a-z][a-z0-9]{0,11}$ ]] || die "bad host name '$1' (want [a-z][a-z0-9]{0,11})"
}

# Prints one line per missing capability; returns 1 if anything is missing.
check() {
  local missing=0
  [ "$(id -u)" = 0 ] || { echo "not running as root (network namespaces need root)"; missing=1; }
  for bin in ip dbus-daemon avahi-daemon unshare; do
    command -v "$bin" >/dev/null 2>&1 || { echo "missing program: $bin"; missing=1; }
  done
  if [ $missing = 0 ]; then
    local probe="${PREFIX}_probe$$"
    if ip netns add "$probe" 2>/dev/null; then
      ip netns del "$probe" 2>/dev/null || true
    else
      echo "'ip netns add' fails here (no CAP_SYS_ADMIN or no network namespace support)"; missing=1
    fi
  fi
  return $missing
}

our_namespaces() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^(${PREFIX}-[a-z][a-z0-9]*|${SWITCH})\$" || true
}

# The processes inside a namespace that still run (zombies, waiting for their parent to
# reap them, are left out: signals cannot end them).
live_pids() {
  local pid state
  for pid in $(ip netns pids "$1" 2>/dev/null || true); do
    state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$state" ] && [ "$state" != Z ] && echo "$pid"
  done
  return 0
}

# Kills every process inside a namespace (all of them were started by this harness or
# through `run`), then deletes the namespace.
kill_namespace() {
  local ns=$1 pids
  pids=$(live_pids "$ns")
  if [ -n "$pids" ]; then
    kill -TERM $pids 2>/dev/null || true
    for _ in $(seq 30); do
      pids=$(live_pids "$ns")
      [ -z "$pids" ] && break
      sleep 0.1
    done
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
  fi
  ip netns del "$ns" 2>/dev/null || true
}

down_host() {
  local name=$1 d="$STATE/$1"
  # dbus-daemon and avahi-daemon live in the namespace too; their pid files
  # cover a daemon that somehow left it.
  for f in avahi.pid dbus.pid; do
    [ -s "$d/$f" ] && kill -TERM "$(cat "$d/$f")" 2>/dev/null || true
  done
  kill_namespace "$(host_ns "$name")"
  rm -rf "$d"
}

down_all() {
  local ns
  if [ -d "$STATE" ]; then
    for d in "$STATE"/*/; do
      [ -d "$d" ] && down_host "$(basename "$d")"
    done
  fi
  for ns in $(our_namespaces); do kill_namespace "$ns"; done
  rm -rf "$STATE"
}

up_switch() {
  ip netns add "$SWITCH"
  ip -n "$SWITCH" link set lo up
  ip -n "$SWITCH" link add "$BRIDGE" type bridge
  # Flood all multicast: no IGMP/MLD snooping, so mDNS on 224.0.0.251 and
  # ff02::fb reaches every port from the first packet on.
  ip -n "$SWITCH" link set "$BRIDGE" type bridge mcast_snooping 0
  ip -n "$SWITCH" link set "$BRIDGE" up
}

write_configs() {
  local name=$1 d="$STATE/$1"
  cat > "$d/dbus.conf" <<EOC
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$d/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_type="*"/>
  </policy>
  <includedir>/usr/share/dbus-1/system.d</includedir>
</busconfig>
EOC
  cat > "$d/avahi.conf" <<EOC
[server]
host-name=$name
use-ipv4=yes
use-ipv6=yes
allow-interfaces=eth0
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
EOC
}

start_dbus() {
  local name=$1 d="$STATE/$1"
  ip netns exec "$(host_ns "$name")" dbus-daemon --config-file="$d/dbus.conf" --fork --print-pid \
    > "$d/dbus.pid" 2> "$d/dbus.log" < /dev/null
  for _ in $(seq 50); do [ -S "$d/bus" ] && return 0; sleep 0.05; done
  die "dbus-daemon on $name did not start; see $d/dbus.log"
}

# Launches the host's avahi-daemon without waiting for it (see wait_avahi).
launch_avahi() {
  local name=$1 d="$STATE/$1"
  [ -f "$d/avahi.log" ] && cat "$d/avahi.log" >> "$d/avahi.log.old"
  : > "$d/avahi.log"
  # avahi-daemon keeps its pid file and socket under /run/avahi-daemon: each one
  # gets a private tmpfs there (unshare -m makes mounts private), so several
  # daemons run at once.
  ip netns exec "$(host_ns "$name")" unshare -m sh -c \
    "mkdir -p /run/avahi-daemon && mount -t tmpfs none /run/avahi-daemon && \
     DBUS_SYSTEM_BUS_ADDRESS=unix:path=$d/bus exec avahi-daemon -f $d/avahi.conf --no-chroot --no-drop-root --no-rlimits" \
    >> "$d/avahi.log" 2>&1 < /dev/null &
  echo $! > "$d/avahi.pid"
}

# Waits until the host's avahi-daemon has registered its host name (about a second of probing).
wait_avahi() {
  local name=$1 d="$STATE/$1"
  for _ in $(seq 100); do
    grep -q 'Server startup complete' "$d/avahi.log" 2>/dev/null && return 0
    kill -0 "$(cat "$d/avahi.pid")" 2>/dev/null || break
    sleep 0.05
  done
  die "avahi-daemon on $name did not start; see $d/avahi.log"
}

start_avahi() {
  launch_avahi "$1"
  wait_avahi "$1"
}

stop_avahi() {
  local name=$1 d="$STATE/$1" pid
  [ -s "$d/avahi.pid" ] || return 0
  pid=$(cat "$d/avahi.pid")
  kill -TERM "$pid" 2>/dev/null || { : > "$d/avahi.pid"; return 0; }
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$pid" 2>/dev/null || true
  : > "$d/avahi.pid"
}

up_host() {
  local name=$1 idx=$2 d="$STATE/$1" ns
  ns=$(host_ns "$name")
  mkdir -p "$d"
  ip netns add "$ns"
  # No duplicate address detection: the IPv6 link-local address is usable at
  # once, instead of after a second or two of tentative state.
  ip netns exec "$ns" sh -c 'echo 0 > /proc/sys/net/ipv6/conf/all/accept_dad; echo 0 > /proc/sys/net/ipv6/conf/default/accept_dad'
  ip link add "v-$name" netns "$SWITCH" type veth peer name eth0 netns "$ns"
  ip -n "$SWITCH" link set "v-$name" master "$BRIDGE" up
  ip -n "$ns" addr add "$SUBNET.$idx/24" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
  echo "$SUBNET.$idx" > "$d/ipv4"
  write_configs "$name"
  start_dbus "$name"
  launch_avahi "$name"
}

need_host() {
  check_name "$1"
  [ -d "$STATE/$1" ] || die "no host '$1' (prefix $PREFIX, state $STATE); run 'lan.sh up $1' first"
}

cmd=${1:-}; shift || true
case "$cmd" in
  check)
    check ;;
  up)
    [ $# -gt 0 ] || die "usage: lan.sh up NAME..."
    for h in "$@"; do check_name "$h"; done
    check >&2 || die "cannot create hosts (see above)"
    if [ -s "$STATE/owner" ]; then
      old=$(cat "$STATE/owner")
      if [ "$old" != "$OWNER" ] && kill -0 "$old" 2>/dev/null; then
        die "prefix '$PREFIX' is in use by live process $old; set SHARE_LAN_PREFIX to another value"
      fi
    fi
    down_all
    mkdir -p "$STATE"
    echo "$OWNER" > "$STATE/owner"
    trap 'echo "lan.sh: up failed; removing the hosts" >&2; down_all' ERR
    up_switch
    i=10
    for h in "$@"; do i=$((i+1)); up_host "$h" "$i"; done
    for h in "$@"; do wait_avahi "$h"; done
    trap - ERR ;;
  run)
    [ $# -ge 2 ] || die "usage: lan.sh run NAME CMD..."
    need_host "$1"; h=$1; shift
    exec ip netns exec "$(host_ns "$h")" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$STATE/$h/bus" "$@" ;;
  addr)
    need_host "${1:-}"; cat "$STATE/$1/ipv4" ;;
  addr6)
    need_host "${1:-}"
    ip -n "$(host_ns "$1")" -6 -o addr show dev eth0 scope link | awk '{sub(/\/.*/, "", $4); print $4; exit}' ;;
  stop-avahi)
    need_host "${1:-}"; stop_avahi "$1" ;;
  start-avahi)
    need_host "${1:-}"; stop_avahi "$1"; start_avahi "$1" ;;
  restart-avahi)
    need_host "${1:-}"; stop_avahi "$1"; start_avahi "$1" ;;
  down)
    if [ $# -eq 0 ]; then
      down_all
    else
      for h in "$@"; do check_name "$h"; down_host "$h"; done
      if [ -z "$(ls -A "$STATE" 2>/dev/null | grep -v '^owner$')" ]; then down_all; fi
    fi ;;
  *)
    sed -n '2,34p' "$0"; exit 64 ;;
esac
