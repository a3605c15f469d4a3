#!/usr/bin/env bash
# team-ca.sh: a small team certificate authority for share (see README.md in this folder).
#
#   team-ca.sh init DIR [NAME]            create a team CA in DIR: an Ed25519 key (ca.key, 0600)
#                                         and a self-signed CA certificate (ca.crt), 10 years
#   team-ca.sh issue DIR CSR OUT.pem [DAYS]
#                                         sign a node's request (from `share identity csr`) with
#                                         the CA in DIR; the certificate is valid DAYS days (365)
#   team-ca.sh fingerprint FILE           the share fingerprint of the key in a certificate or
#                                         request (what `share identity` shows on that node)
#
# Installed as `share-team-ca` by `make install` (man share-team-ca). Uses openssl-team-ca.cnf
# next to this script, else the installed one ($PREFIX/share/share/), or $TEAM_CA_CONFIG. Needs
# bash and the openssl command (Debian: openssl).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -n "${TEAM_CA_CONFIG:-}" ]; then
    config=$TEAM_CA_CONFIG
elif [ -f "$here/openssl-team-ca.cnf" ]; then
    config=$here/openssl-team-ca.cnf
else
    config=$here/../share/share/openssl-team-ca.cnf
fi
me=$(basename "$0")

usage() {
    echo "usage:" >&2
    sed -n '3,11p' "${BASH_SOURCE[0]}" | sed "s/^# \{0,1\}/  /; s/team-ca.sh/$me/" >&2
    exit 64
}

fail() {
    echo "$me: $*" >&2
    exit 1
}

# An absolute path for $1 (which need not exist yet).
absolute() {
    case $1 in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s\n' "$PWD/$1" ;;
    esac
}

# The share fingerprint of the public key in a PEM certificate or request: SHA-256 of the DER
# SubjectPublicKeyInfo, in groups of four uppercase digits (as `share identity` prints it).
fingerprint() {
    local file=$1 pubkey
    if grep -q 'BEGIN CERTIFICATE REQUEST' "$file"; then
        pubkey=$(openssl req -in "$file" -noout -pubkey)
    else
        pubkey=$(openssl x509 -in "$file" -noout -pubkey)
    fi
    printf '%s\n' "$pubkey" | openssl pkey -pubin -outform DER | sha256sum | cut -c1-64 \
        | tr 'a-f' 'A-F' | sed 's/..../& /g; s/ $//'
}

cmd_init() {
    [ $# -ge 1 ] && [ $# -le 2 ] || usage
    local dir name
    dir=$(absolute "$1")
    name=${2:-share team CA}
    [ -e "$dir/ca.key" ] && fail "$dir/ca.key already exists; a CA is never overwritten"
    mkdir -p "$dir"
    chmod 700 "$dir"
    mkdir -p "$dir/issued"
    : > "$dir/index.txt"
    openssl rand -hex 16 > "$dir/serial"
    (umask 077 && openssl genpkey -algorithm ed25519 -out "$dir/ca.key")
    chmod 600 "$dir/ca.key"
    # The subject is given as one CN; escape the characters -subj treats specially.
    local subject
    subject=$(printf '%s' "$name" | sed 's/[\\/+=]/\\&/g')
    (cd "$dir" && openssl req -config "$config" -new -x509 -key ca.key -subj "/CN=$subject" \
        -extensions team_ca_cert -days 3650 -out ca.crt)
    echo "Created the team CA \"$name\" in $dir."
    echo "  Certificate: $dir/ca.crt (give it to every member: share trust ca add ca.crt)"
    echo "  Key:         $dir/ca.key (keep it secret and offline; whoever has it can vouch for any key)"
    echo "  SHA-256:     $(openssl x509 -in "$dir/ca.crt" -noout -fingerprint -sha256 | cut -d= -f2 | tr -d : | tr 'A-F' 'a-f')"
}

cmd_issue() {
    [ $# -ge 3 ] && [ $# -le 4 ] || usage
    local dir csr out days
    dir=$(absolute "$1")
    csr=$(absolute "$2")
    out=$(absolute "$3")
    days=${4:-365}
    case $days in '' | *[!0-9]*) fail "DAYS must be a number of days, not '$days'" ;; esac
    [ -f "$dir/ca.key" ] && [ -f "$dir/ca.crt" ] || fail "$dir is not a team CA folder (run: $me init $1)"
    [ -f "$csr" ] || fail "no such request: $2"
    grep -q 'BEGIN CERTIFICATE REQUEST' "$csr" || fail "$2 is not a PEM certificate request (make one with: share identity csr --out FILE)"
    local log
    log=$(mktemp)
    if ! (cd "$dir" && openssl ca -config "$config" -batch -notext -in "$csr" -out "$out" -days "$days" 2>"$log"); then
        cat "$log" >&2
        rm -f "$log"
        fail "openssl could not sign $2"
    fi
    rm -f "$log"
    echo "Issued $3 for the key with fingerprint"
    echo "  $(fingerprint "$out")"
    echo "Check that it is the one 'share identity' shows on that machine, then install it there with:"
    echo "  share identity import-cert $(basename "$out")"
}

cmd_fingerprint() {
    [ $# -eq 1 ] || usage
    [ -f "$1" ] || fail "no such file: $1"
    fingerprint "$1"
}

[ $# -ge 1 ] || usage
command=$1
shift
case $command in
    init) cmd_init "$@" ;;
    issue) cmd_issue "$@" ;;
    fingerprint) cmd_fingerprint "$@" ;;
    -h | --help | help) usage ;;
    *) echo "$me: unknown command '$command'" >&2; usage ;;
esac
