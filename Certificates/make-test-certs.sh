#!/usr/bin/env bash
# make-test-certs.sh: the certificates share's tests use (Tests/ShareTLSTests, ShareKitTests,
# ShareCLITests run it into a temporary folder). Every file is PEM.
#
#   make-test-certs.sh OUTDIR [NODE_KEY]
#
# NODE_KEY is an Ed25519 private key (PKCS#8 PEM, e.g. a share identity.key); without it a new one
# is made as OUTDIR/node.key. Made in OUTDIR:
#
#   ca/ca.crt, ca/ca.key        the team CA "share test team CA" (team-ca.sh init)
#   node.crt                    node.key's certificate from the team CA (team-ca.sh issue)
#   peer.key, peer.crt          a second node, also from the team CA
#   expired.crt                 node.key, team CA, valid 2020-01-01 to 2020-01-02 only
#   not-yet-valid.crt           node.key, team CA, valid from 2099-01-01
#   wrong-ca/ca.crt, ca.key     another CA with the SAME name as the team CA, another key
#   wrong-ca.crt                node.key's certificate from that wrong CA
#   other.key, wrong-key.crt    a team CA certificate for another key than node.key
#   self-signed.crt             node.key's self-signed certificate
#   expired-ca/ca.crt, ca.key   a CA that expired on 2021-01-01
#   expired-ca-node.crt         node.key's certificate from the expired CA (itself valid now)
#   not-a-ca.crt                a self-signed certificate with CA:FALSE
#   no-certsign-ca.crt          a self-signed certificate with CA:TRUE but no keyCertSign
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
config=${TEAM_CA_CONFIG:-$here/openssl-team-ca.cnf}
team_ca="$here/team-ca.sh"

[ $# -ge 1 ] && [ $# -le 2 ] || { sed -n '5p' "${BASH_SOURCE[0]}" | sed 's/^#  */usage: /' >&2; exit 64; }
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
name="share test team CA"

key() { (umask 077 && openssl genpkey -algorithm ed25519 -out "$1"); }
request() { openssl req -config "$config" -new -key "$1" -subj "/CN=$2" -out "$3"; }
# sign CA_DIR CSR OUT openssl-ca-options...: node extensions, from inside the CA folder.
sign() {
    local dir=$1 csr=$2 cert=$3
    shift 3
    (cd "$dir" && openssl ca -config "$config" -batch -notext -in "$csr" -out "$cert" "$@" 2>/dev/null)
}

if [ $# -eq 2 ]; then
    cp "$2" "$out/node.key"
    chmod 600 "$out/node.key"
else
    key "$out/node.key"
fi
request "$out/node.key" "test node" "$out/node.csr"

# The team CA and two nodes it vouches for, through the documented script.
"$team_ca" init "$out/ca" "$name" > /dev/null
"$team_ca" issue "$out/ca" "$out/node.csr" "$out/node.crt" 30 > /dev/null
key "$out/peer.key"
request "$out/peer.key" "test peer" "$out/peer.csr"
"$team_ca" issue "$out/ca" "$out/peer.csr" "$out/peer.crt" 30 > /dev/null

# Validity periods in the past and in the future (OpenSSL 3.0's `req -x509 -days -1` is refused).
sign "$out/ca" "$out/node.csr" "$out/expired.crt" -startdate 20200101000000Z -enddate 20200102000000Z
sign "$out/ca" "$out/node.csr" "$out/not-yet-valid.crt" -startdate 20990101000000Z -enddate 21000101000000Z

# A CA nobody added, named like the team CA.
"$team_ca" init "$out/wrong-ca" "$name" > /dev/null
sign "$out/wrong-ca" "$out/node.csr" "$out/wrong-ca.crt" -days 30

# The right CA, the wrong key.
key "$out/other.key"
request "$out/other.key" "test node" "$out/other.csr"
sign "$out/ca" "$out/other.csr" "$out/wrong-key.crt" -days 30

# What share makes by itself: self-signed, node extensions.
openssl req -config "$config" -new -x509 -key "$out/node.key" -subj "/CN=share node" -extensions node_cert \
    -days 30 -out "$out/self-signed.crt"

# A CA whose own certificate has expired, and a current node certificate it signed.
mkdir -p "$out/expired-ca/issued"
: > "$out/expired-ca/index.txt"
openssl rand -hex 16 > "$out/expired-ca/serial"
key "$out/expired-ca/ca.key"
request "$out/expired-ca/ca.key" "share expired team CA" "$out/expired-ca/ca.csr"
sign "$out/expired-ca" "$out/expired-ca/ca.csr" "$out/expired-ca/ca.crt" -selfsign -keyfile ca.key \
    -extensions team_ca_cert -startdate 20200101000000Z -enddate 20210101000000Z
sign "$out/expired-ca" "$out/node.csr" "$out/expired-ca-node.crt" -days 30

# Certificates that must never be accepted as a CA.
key "$out/not-a-ca.key"
openssl req -config "$config" -new -x509 -key "$out/not-a-ca.key" -subj "/CN=not a CA" -extensions node_cert \
    -days 30 -out "$out/not-a-ca.crt"
key "$out/no-certsign-ca.key"
openssl req -config "$config" -new -x509 -key "$out/no-certsign-ca.key" -subj "/CN=CA without keyCertSign" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,digitalSignature" \
    -days 30 -out "$out/no-certsign-ca.crt"

rm -f "$out"/*.csr "$out/expired-ca/ca.csr"
