#!/usr/bin/env bash
# Makes the three data sets of the compression benchmarks (docs/PERFORMANCE.md §9) in OUT, each about
# SET_MIB MiB (default 24), the same on every run of the same machine:
#
#   OUT/source  source code: files of /usr/include (and /usr/share/perl5 if it is short), in byte
#               order of their paths, under their own relative paths
#   OUT/text    text, JSON and logs: generated logs (syslog and web server lines) and JSON records
#               (made with a fixed seed), and the text files of /usr/share/common-licenses and
#               /usr/share/doc/*/copyright
#   OUT/media   incompressible media: PNG and JPEG images and gzip files of /usr/share, and
#               random.bin (AES-128-CTR of zeros under a fixed key)
#
#   Tests/Benchmarks/make-compression-sets.sh OUT [SET_MIB]
#
# Prints one line per set: NAME FILES BYTES.
set -euo pipefail

out=$1
limit=$(( ${2:-24} << 20 ))
mkdir -p "$out/source" "$out/text/logs" "$out/text/json" "$out/text/docs" "$out/media"

# Copies files (NUL-separated paths on stdin, relative to $1) into $2 until the next would pass
# $limit bytes; prints the bytes copied.
copy_until_full() {
    perl -MFile::Copy -MFile::Path=make_path -MFile::Basename -0 -ne '
        BEGIN { ($from, $to, $limit) = @ARGV[0..2]; @ARGV = (); $total = 0 }
        chomp; next if $full; my $size = -s "$from/$_" or next;
        if ($total + $size > $limit) { $full = 1; next }  # read on: no SIGPIPE for the writer
        make_path(dirname("$to/$_")); copy("$from/$_", "$to/$_") or die "cannot copy $from/$_: $!";
        $total += $size;
        END { print "$total\n" }' "$1" "$2" "$limit"
}

sorted_files() { # folder, then find(1) tests
    local folder=$1
    shift
    (cd "$folder" && find . -xdev -type f -size -4M "$@" -print0 2>/dev/null | LC_ALL=C sort -z)
}

# Source code.
used=$(sorted_files /usr/include \( -name '*.h' -o -name '*.hpp' -o -name '*.c' -o -name '*.cc' -o -name '*.def' \) |
    copy_until_full /usr/include "$out/source")
if [ "$used" -lt $((limit / 2)) ] && [ -d /usr/share/perl5 ]; then
    sorted_files /usr/share/perl5 -name '*.pm' | limit=$((limit - used)) copy_until_full /usr/share/perl5 "$out/source/perl5" >/dev/null
fi

# Text, JSON and logs: a third each.
third=$((limit / 3))
awk -v bytes="$third" -v dir="$out/text/logs" '
function stamp(t, web,    day, h, m, s) {
    day = 1 + int(t / 86400) % 28; h = int(t / 3600) % 24; m = int(t / 60) % 60; s = t % 60
    if (web) return sprintf("%02d/Dec/2025:%02d:%02d:%02d +0000", day, h, m, s)
    return sprintf("2025-12-%02dT%02d:%02d:%02d", day, h, m, s)
}
BEGIN {
    srand(1); split("sshd cron kernel systemd nginx postfix dbus avahi-daemon", daemons, " ")
    split("GET POST PUT DELETE", methods, " "); split("/ /index.html /api/v1/items /api/v1/users /static/app.js /login", paths, " ")
    total = 0; file = 0; t = 1764547200
    while (total < bytes) {
        name = sprintf("%s/%s-%02d.log", dir, (file % 2 ? "access" : "syslog"), file); size = 0
        while (size < 1048576 && total < bytes) {
            t += int(rand() * 3)
            if (file % 2)
                line = sprintf("10.%d.%d.%d - - [%s] \"%s %s HTTP/1.1\" %d %d \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\"",
                    int(rand() * 4), int(rand() * 256), int(rand() * 256), stamp(t, 1),
                    methods[1 + int(rand() * 4)], paths[1 + int(rand() * 6)], (rand() < 0.9 ? 200 : 404), int(rand() * 50000))
            else
                line = sprintf("%s host%02d %s[%d]: %s user%d from 192.168.%d.%d port %d",
                    stamp(t, 0), int(rand() * 8), daemons[1 + int(rand() * 8)], 1000 + int(rand() * 30000),
                    (rand() < 0.7 ? "Accepted publickey for" : "Connection closed by"), int(rand() * 50), int(rand() * 4),
                    int(rand() * 256), 1024 + int(rand() * 60000))
            print line > name; size += length(line) + 1; total += length(line) + 1
        }
        close(name); file++
    }
}'
awk -v bytes="$third" -v dir="$out/text/json" 'BEGIN {
    srand(2); split("red green blue alpha beta gamma delta linux share zstd", words, " ")
    total = 0; file = 0; id = 0
    while (total < bytes) {
        name = sprintf("%s/records-%03d.json", dir, file); size = 0
        print "[" > name
        while (size < 262144 && total < bytes) {
            line = sprintf("  {\"id\": %d, \"name\": \"%s-%d\", \"tags\": [\"%s\", \"%s\"], \"score\": %.3f, \"active\": %s, \"created\": \"2026-%02d-%02dT%02d:%02d:00Z\"},",
                id, words[1 + int(rand() * 10)], int(rand() * 10000), words[1 + int(rand() * 10)], words[1 + int(rand() * 10)],
                rand() * 100, (rand() < 0.5 ? "true" : "false"), 1 + int(rand() * 12), 1 + int(rand() * 28), int(rand() * 24), int(rand() * 60))
            print line > name; size += length(line) + 1; total += length(line) + 1; id++
        }
        print "  {}\n]" > name; close(name); file++
    }
}'
{
    (cd /usr/share/common-licenses && find . -type f -print0 | LC_ALL=C sort -z | sed -z 's|^|common-licenses/|')
    (cd /usr/share/doc && find . -name copyright -type f -print0 2>/dev/null | LC_ALL=C sort -z | sed -z 's|^|doc/|')
} | limit=$third copy_until_full /usr/share "$out/text/docs" >/dev/null

# Incompressible media: images and gzip files of /usr/share (a third at most each), random bytes.
sorted_files /usr/share \( -iname '*.png' -o -iname '*.jpg' -o -iname '*.jpeg' \) |
    limit=$third copy_until_full /usr/share "$out/media/images" >/dev/null
sorted_files /usr/share -name '*.gz' -size +8k | limit=$((limit / 6)) copy_until_full /usr/share "$out/media/gzip" >/dev/null
media=$(find "$out/media" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
head -c $((limit - media)) /dev/zero |
    openssl enc -aes-128-ctr -nosalt -K 000102030405060708090a0b0c0d0e0f -iv 0 > "$out/media/random.bin" 2>/dev/null

for set in source text media; do
    echo "$set $(find "$out/$set" -type f | wc -l) $(find "$out/$set" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')"
done
