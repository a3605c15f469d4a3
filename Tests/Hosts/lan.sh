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
#   lan.sh rate NAME RATE [BURST [LATENCY]]
#                                 limit the host's link to RATE (tc units: 100mbit, 400mbit, 12500kbps)
#                                 both ways, with a token bucket filter (tc tbf) on the host's eth0
#                                 (what it sends) and on its switch port v-NAME (what it receives);
#                                 BURST (default 64kb) and LATENCY (default 50ms) as in tc-tbf(8)
#   lan.sh unrate NAME            remove the limit
#   lan.sh link NAME down|up      take the host's link down (its switch port: the host keeps its
#                                 addresses and routes and sees no carrier, like a pulled cable;
#                                 what it sends is dropped) or up again
#   lan.sh tcp-retries NAME N     how many times TCP on the host retransmits before it drops a
#                                 connection whose peer went silent (net.ipv4.tcp_retries2; the
#                                 default 15 takes about 15 minutes, 3 about 3 seconds), so that a
#                                 link down ends a transfer's connection within a test's time
#   lan.sh down [NAME...]         kill everything running on those hosts (all hosts
#                                 when no name is given), delete their namespaces
#
# Routed subnets (wide-area DNS-SD, docs/WIDE-AREA.md):
#   lan.sh up-routed A... / B...  hosts A... on subnet 1 and B... on subnet 2 (one bridge each),
#                                 joined by a host "router" that forwards IPv4 and IPv6 between
#                                 them and runs BIND (named) with docs/wide-area/named.conf: the
#                                 zone office.example (updates signed with the key share-team),
#                                 an empty zone campus.example, and the subnets' reverse zones
#                                 naming office.example as browse domain. Subnet k is
#                                 10.232.k.0/24 and fd00:232:k::/64 (router .1 / ::1, hosts
#                                 .11, .12, ...); 10.232.9.9 and fd00:232:9::9 are dead (the router
#                                 drops what is sent there). Each host's resolver asks the router
#                                 (resolv.conf: nameserver, "search office.example").
#   lan.sh addr6 NAME             on a routed host: its global IPv6 address
#   lan.sh resolv NAME [FILE]     replace the host's resolv.conf with FILE (or stdin)
#   lan.sh named-dir              print named's folder (named.conf, zones, named.log, and the keys
#                                 share-team.key and lab-other.key, both allowed to update)
#   lan.sh restart-named          restart named (after editing named.conf in named-dir)
#   lan.sh check-routed           like check, for up-routed (named and tsig-keygen too)
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
# if_indextoname() sees the host's interfaces (eth0 plus lo). `run` also puts the host's
# resolv.conf over /etc/resolv.conf (a private mount namespace): the router on a routed host,
# loopback (no DNS) on the flat LAN.
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
ROUTED=10.232
ROUTED6=fd00:232
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
  for bin in ip tc dbus-daemon avahi-daemon unshare ${NEED_NAMED:+named tsig-keygen}; do
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
  for f in avahi.pid dbus.pid named.pid; do
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

# up_host NAME INDEX [SUBNET-NUMBER]: without a subnet number, a host of the flat LAN.
up_host() {
  local name=$1 idx=$2 net=${3:-} d="$STATE/$1" ns
  ns=$(host_ns "$name")
  mkdir -p "$d"
  ip netns add "$ns"
  # No duplicate address detection: the IPv6 link-local address is usable at
  # once, instead of after a second or two of tentative state.
  ip netns exec "$ns" sh -c 'echo 0 > /proc/sys/net/ipv6/conf/all/accept_dad; echo 0 > /proc/sys/net/ipv6/conf/default/accept_dad'
  ip link add "v-$name" netns "$SWITCH" type veth peer name eth0 netns "$ns"
  local bridge=$BRIDGE
  [ -z "$net" ] || bridge="br$net"
  ip -n "$SWITCH" link set "v-$name" master "$bridge" up
  ip -n "$ns" link set lo up
  if [ -n "$net" ]; then
    ip -n "$ns" addr add "$ROUTED.$net.$idx/24" dev eth0
    ip -n "$ns" addr add "$ROUTED6:$net::$idx/64" dev eth0 nodad
    ip -n "$ns" link set eth0 up
    ip -n "$ns" route add default via "$ROUTED.$net.1"
    ip -n "$ns" -6 route add default via "$ROUTED6:$net::1"
    echo "$ROUTED.$net.$idx" > "$d/ipv4"
    echo "$ROUTED6:$net::$idx" > "$d/ipv6"
    printf 'nameserver %s\nsearch office.example\noptions timeout:1 attempts:2\n' "$ROUTED.1.1" > "$d/resolv.conf"
  else
    ip -n "$ns" addr add "$SUBNET.$idx/24" dev eth0
    ip -n "$ns" link set eth0 up
    # No default route (nothing may leave the namespaces), but multicast goes out on the LAN as a
    # default route would send it: programs that join a group on "any" interface (LocalSend apps
    # such as localsendd) find eth0.
    ip -n "$ns" route add 224.0.0.0/4 dev eth0
    echo "$SUBNET.$idx" > "$d/ipv4"
    # No DNS on the flat LAN: a resolver that asks loopback, where nothing answers, so that no
    # query (share peers looks for wide-area browse domains) ever goes to this machine's own.
    printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' > "$d/resolv.conf"
  fi
  write_configs "$name"
  start_dbus "$name"
  launch_avahi "$name"
}

# The router of a routed LAN: one leg on each subnet's bridge, forwarding, a dead range, named.
up_router() {
  local count=$1 d="$STATE/router" ns net
  ns=$(host_ns router)
  mkdir -p "$d"
  ip netns add "$ns"
  ip netns exec "$ns" sh -c 'echo 0 > /proc/sys/net/ipv6/conf/all/accept_dad; echo 0 > /proc/sys/net/ipv6/conf/default/accept_dad'
  ip netns exec "$ns" sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward; echo 1 > /proc/sys/net/ipv6/conf/all/forwarding'
  ip -n "$ns" link set lo up
  for net in $(seq "$count"); do
    ip -n "$SWITCH" link add "br$net" type bridge
    ip -n "$SWITCH" link set "br$net" type bridge mcast_snooping 0
    ip -n "$SWITCH" link set "br$net" up
    ip link add "v-router$net" netns "$SWITCH" type veth peer name "r$net" netns "$ns"
    ip -n "$SWITCH" link set "v-router$net" master "br$net" up
    ip -n "$ns" addr add "$ROUTED.$net.1/24" dev "r$net"
    ip -n "$ns" addr add "$ROUTED6:$net::1/64" dev "r$net" nodad
    ip -n "$ns" link set "r$net" up
  done
  # A dead DNS server: what is sent to 10.232.9.0/24 or fd00:232:9::/64 is dropped silently.
  ip -n "$ns" route add blackhole "$ROUTED.9.0/24"
  ip -n "$ns" -6 route add blackhole "$ROUTED6:9::/64"
  write_named "$count"
  start_named
}

# named.conf and zones from the example in docs/wide-area, with the lab's paths and addresses.
write_named() {
  local count=$1 d="$STATE/router/named" example net listen="" listen6=""
  example="$(cd "$(dirname "$0")/../.." && pwd)/docs/wide-area"
  mkdir -p "$d"
  for net in $(seq "$count"); do listen="$listen $ROUTED.$net.1;"; listen6="$listen6 $ROUTED6:$net::1;"; done
  tsig-keygen -a hmac-sha256 share-team > "$d/share-team.key"
  # A second key with the same rights, for another machine than the team's (name conflicts).
  tsig-keygen -a hmac-sha256 lab-other > "$d/lab-other.key"
  chmod 600 "$d/share-team.key" "$d/lab-other.key"
  sed -e "s|directory \"/var/cache/bind\";|directory \"$d\"; pid-file \"$d/named.pid\"; session-keyfile \"$d/session.key\";|" \
      -e "s|listen-on { 192.0.2.53; 127.0.0.1; };|listen-on {$listen };|" \
      -e "s|listen-on-v6 { 2001:db8::53; };|listen-on-v6 {$listen6 };|" \
      -e "s|/etc/bind/share-team.key|$d/share-team.key|" \
      -e "s|/var/lib/bind/|$d/|" \
      -e "s|^\( *\)grant share-team zonesub \(.*\)$|&\n\1grant lab-other zonesub \2|" "$example/named.conf" > "$d/named.conf"
  echo "include \"$d/lab-other.key\";" >> "$d/named.conf"
  sed -e "s|192.0.2.53|$ROUTED.1.1|" -e "s|2001:db8::53|$ROUTED6:1::1|" "$example/office.example.zone" > "$d/office.example.zone"
  {
    echo 'controls { };'
    echo 'logging { channel lab { stderr; severity info; print-time yes; };'
    echo '          category default { lab; }; category update { lab; }; category update-security { lab; }; };'
    echo "zone \"campus.example\" { type primary; file \"$d/campus.example.zone\"; update-policy { grant share-team zonesub PTR SRV TXT A AAAA; }; };"
    for net in $(seq "$count"); do
      echo "zone \"$net.${ROUTED#10.}.10.in-addr.arpa\" { type primary; file \"$d/reverse.zone\"; };"
    done
  } >> "$d/named.conf"
  sed -n '1,/IN NS/p' "$d/office.example.zone" | sed 's/office.example zone/campus.example zone/' > "$d/campus.example.zone"
  cp "$example/reverse.zone" "$d/reverse.zone"
}

start_named() {
  local d="$STATE/router/named"
  ip netns exec "$(host_ns router)" named -g -c "$d/named.conf" > "$d/named.log" 2>&1 < /dev/null &
  echo $! > "$STATE/router/named.pid"
  for _ in $(seq 200); do
    grep -q 'running$' "$d/named.log" 2>/dev/null && return 0
    kill -0 "$(cat "$STATE/router/named.pid")" 2>/dev/null || break
    sleep 0.05
  done
  die "named did not start; see $d/named.log"
}

# limit_rate NAME RATE BURST LATENCY: a token bucket on both ends of the host's link.
limit_rate() {
  local ns
  ns=$(host_ns "$1")
  ip netns exec "$ns" tc qdisc replace dev eth0 root tbf rate "$2" burst "$3" latency "$4"
  ip netns exec "$SWITCH" tc qdisc replace dev "v-$1" root tbf rate "$2" burst "$3" latency "$4"
}

# unlimit_rate NAME: back to the links' default queue (none: a veth has no queue of its own).
unlimit_rate() {
  local ns
  ns=$(host_ns "$1")
  ip netns exec "$ns" tc qdisc del dev eth0 root 2>/dev/null || true
  ip netns exec "$SWITCH" tc qdisc del dev "v-$1" root 2>/dev/null || true
}

need_host() {
  check_name "$1"
  [ -d "$STATE/$1" ] || die "no host '$1' (prefix $PREFIX, state $STATE); run 'lan.sh up $1' first"
}

cmd=${1:-}; shift || true
case "$cmd" in
  check)
    check ;;
  check-routed)
    NEED_NAMED=1 check ;;
  up|up-routed)
    [ $# -gt 0 ] || die "usage: lan.sh up NAME... | lan.sh up-routed NAME... / NAME..."
    for h in "$@"; do [ "$h" = / ] || check_name "$h"; [ "$h" != router ] || die "'router' is the router's name"; done
    [ "$cmd" = up ] || NEED_NAMED=1
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
    if [ "$cmd" = up ]; then
      i=10
      for h in "$@"; do i=$((i+1)); up_host "$h" "$i"; done
    else
      up_router 2
      net=1; i=10
      for h in "$@"; do
        if [ "$h" = / ]; then net=2; i=10; continue; fi
        i=$((i+1)); up_host "$h" "$i" "$net"
      done
    fi
    for h in "$@"; do [ "$h" = / ] || wait_avahi "$h"; done
    trap - ERR ;;
  run)
    [ $# -ge 2 ] || die "usage: lan.sh run NAME CMD..."
    need_host "$1"; h=$1; shift
    if [ -f "$STATE/$h/resolv.conf" ]; then
      # The host's own resolver configuration, in a mount namespace of the command's own.
      exec ip netns exec "$(host_ns "$h")" unshare -m sh -c 'mount --bind "$0" /etc/resolv.conf && exec "$@"' \
        "$STATE/$h/resolv.conf" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$STATE/$h/bus" "$@"
    fi
    exec ip netns exec "$(host_ns "$h")" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$STATE/$h/bus" "$@" ;;
  addr)
    need_host "${1:-}"; cat "$STATE/$1/ipv4" ;;
  addr6)
    need_host "${1:-}"
    if [ -f "$STATE/$1/ipv6" ]; then cat "$STATE/$1/ipv6"; exit 0; fi
    ip -n "$(host_ns "$1")" -6 -o addr show dev eth0 scope link | awk '{sub(/\/.*/, "", $4); print $4; exit}' ;;
  resolv)
    need_host "${1:-}"
    if [ -n "${2:-}" ]; then cp "$2" "$STATE/$1/resolv.conf"; else cat > "$STATE/$1/resolv.conf"; fi ;;
  named-dir)
    [ -d "$STATE/router/named" ] || die "no router here (lan.sh up-routed)"
    echo "$STATE/router/named" ;;
  restart-named)
    [ -s "$STATE/router/named.pid" ] || die "no router here (lan.sh up-routed)"
    pid=$(cat "$STATE/router/named.pid")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    start_named ;;
  stop-avahi)
    need_host "${1:-}"; stop_avahi "$1" ;;
  start-avahi)
    need_host "${1:-}"; stop_avahi "$1"; start_avahi "$1" ;;
  restart-avahi)
    need_host "${1:-}"; stop_avahi "$1"; start_avahi "$1" ;;
  rate)
    [ $# -ge 2 ] && [ $# -le 4 ] || die "usage: lan.sh rate NAME RATE [BURST [LATENCY]]"
    need_host "$1"; limit_rate "$1" "$2" "${3:-64kb}" "${4:-50ms}" ;;
  unrate)
    need_host "${1:-}"; unlimit_rate "$1" ;;
  link)
    [ $# -eq 2 ] && { [ "$2" = down ] || [ "$2" = up ]; } || die "usage: lan.sh link NAME down|up"
    need_host "$1"; ip -n "$SWITCH" link set "v-$1" "$2" ;;
  tcp-retries)
    [ $# -eq 2 ] && [[ $2 =~ ^[0-9]+$ ]] || die "usage: lan.sh tcp-retries NAME N"
    need_host "$1"; ip netns exec "$(host_ns "$1")" sh -c "echo $2 > /proc/sys/net/ipv4/tcp_retries2" ;;
  down)
    if [ $# -eq 0 ]; then
      down_all
    else
      for h in "$@"; do check_name "$h"; down_host "$h"; done
      if [ -z "$(ls -A "$STATE" 2>/dev/null | grep -v '^owner$')" ]; then down_all; fi
    fi ;;
  *)
    sed -n '2,/^set /{/^set /!p}' "$0"; exit 64 ;;
esac
