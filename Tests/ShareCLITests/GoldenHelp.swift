/// The exact help texts of `share`. A change here is a change users see: review it as such.
enum GoldenHelp {
    static let root = """
OVERVIEW: Send files and document bundles to nearby machines, securely.

share finds machines on the local network that run 'share receive' and sends
them files and folders over mutually authenticated TLS 1.3. A folder is sent as
one document (a bundle) and lands whole or not at all; every file is checked
with SHA-256 before it is kept.

USAGE: share <subcommand>

OPTIONS:
  -h, --help              Show help information.
  --version               Show the version.

SUBCOMMANDS:
  receive                 Accept documents from nearby machines.
  peers                   List the receivers nearby.
  send                    Send files and folders to a receiver.
  history                 List past transfers, sent and received.
  trust                   Verify, list, forget and block peers; manage team CAs.
  types                   Register applications and look up document types.
  inbox                   List, retry or remove documents waiting in the inbox.
  identity                Show this machine's device name and fingerprint.
  config                  Show and change settings: folder, port, policy, ...
  completion              Print a completion script for bash, zsh or fish.

EXIT CODES:
  0   success
  1   failure (the message says what happened)
  64  usage error
  69  a needed service (avahi-daemon) is unavailable

  See 'share help <subcommand>' for detailed help.

"""

    static let send = """
OVERVIEW: Send files and folders to a receiver.

Sends any mix of files and folders in one transfer. A folder is sent as one
document (a bundle) with its relative paths, empty folders, permissions and
modification times; a symbolic link inside it is kept only when it points inside
the folder. The receiver checks every file's SHA-256 before it keeps anything.

PEER is a name seen by 'share peers' (any case, or a unique beginning of it), a
prefix of a peer's fingerprint, an address (HOST:PORT, or an IP address alone
for the default port 47321), or a host of the local network as 'share peers'
shows it (desk.local, or desk.local:PORT when it runs several receivers). A peer
found by name must present the key whose fingerprint it advertises, and the name
of a peer you verified means that peer's key, wherever it is: nothing is sent to
another machine that took the name. Several --to send the same documents to
several peers at once. Without --to, on a terminal, share lists the receivers
nearby as they appear and you choose: up and down move, space chooses several,
typing filters by name, enter sends, escape cancels.

'-' sends standard input as one file called --name: it is saved to a private
temporary file first (in $TMPDIR, else /tmp; never filling the disk), so its
size and SHA-256 are known before it is offered, and deleted afterwards.

--text sends a short text (at most 16 KiB), alone or with files: the receiver
sees it in its question and keeps it as a .txt document (named --name when no
'-' is sent, else Text.txt). A web address in it is shown as a link there, never
opened by share.

Nothing but a greeting is sent before the receiver's key passed these checks.
When the receiver's user decides on a terminal and one of you has not verified
the other, both sides show the same verification code: confirm it here, and each
side remembers the other as verified. A send without a terminal stays
unverified, and says so once per receiver.

Named pipes, sockets and devices inside a folder are skipped with a warning.
--exclude leaves out what matches a pattern, written as in .gitignore and
matched inside each folder sent: '*.o' and 'node_modules/' at any depth,
'/build' at the folder's top, 'docs/**/*.tmp'; '!keep.o' sends again what an
earlier pattern left out. With -L, what links inside the folders point to is
sent in their place.

A send whose connection fails on the way (the network drops, the receiver
sleeps, stalls, restarts or runs out of disk space) tries again by itself for
--retry-for (5 minutes by default; --no-retry to fail at once), and continues
from what the receiver already holds: each file's part there is checked against
the file here (SHA-256) and only the rest is sent. Running the same send again
later also continues, while the receiver keeps the part (24 hours by default).

Files are compressed with zstd on the way where that pays (never images, audio,
video or archives, which are compressed already; otherwise only what a sample
shows to compress), at a level that follows how fast the link takes the data;
the receiver checks the SHA-256 of the original bytes. --no-compress, or 'share
config set compression off', sends every byte as it is.

A LocalSend device (a phone or computer running the LocalSend app, as 'share
peers' lists it) is sent to by its name when no share receiver has that name, or
as localsend://HOST[:PORT]. Its certificate must match the fingerprint it
announced (by address: the one seen there the first time), or nothing is sent;
LocalSend cannot prove who a device is, so it is never verified. --pin gives the
PIN it may ask for.

--link sends to any browser instead, as LocalSend's reverse transfer: share
serves the files over plain HTTP (browsers refuse self-signed certificates) at
an address with a secret session, printed for each network address of this
machine and, on a terminal, as a QR code to scan with a phone. The page lists
the files with download links; --pin asks for a PIN first. share stops once
every file was downloaded whole once (exit 0), after --link-timeout (10 minutes
by default; exit 1 unless everything was downloaded), or at Ctrl-C. Anyone on
the network who sees the address (and the PIN) can download.

USAGE: share send [<path> ...] [--text <text>] [--to <peer> ...] [--name <name>] [--retry-for <duration> | --no-retry] [--exclude <pattern> ...] [-L] [--limit-rate <rate>] [--no-compress] [--pin <pin> | --pin-file <file>] [--link [--link-port <port>] [--link-timeout <duration>]] [--json]

ARGUMENTS:
  [<path> ...]            Files and folders to send; '-' for standard input
                          (with --name).

OPTIONS:
  --to <peer>             A receiver: a name, a fingerprint prefix, HOST:PORT
                          (e.g. 192.168.1.20:47321), or a LocalSend device (its
                          name, or localsend://HOST). Repeat to send to several.
  --text <text>           A short text to send; the receiver keeps it as a .txt
                          document.
  --name <name>           The name standard input ('-'), else the --text, gets
                          on the receiver.
  --retry-for <duration>  Keep reconnecting this long after the connection fails
                          (e.g. 90s, 10m; default 5m).
  --no-retry              Fail at once when the connection fails.
  --exclude <pattern>     Leave out what matches this gitignore-style pattern
                          inside the folders (e.g. '*.o', 'node_modules/',
                          '/build'). Repeat for several.
  -L, --follow-links      Send what symbolic links inside the folders point to,
                          instead of the links.
  --limit-rate <rate>     Send at most this many bytes per second (e.g. 500k,
                          10M, 2MiB), to each peer.
  --no-compress           Send every byte as it is: no zstd, whatever the
                          setting 'compression' says.
  --pin <pin>             The PIN a LocalSend device asks for before it takes
                          files.
  --pin-file <file>       Read the LocalSend PIN from the first line of this
                          file (kept out of ps).
  --link                  Serve the files to any browser on the network instead
                          (plain HTTP, an address with a secret session and a QR
                          code) until each was downloaded once.
  --link-port <port>      The port of --link (default 53317, LocalSend's;
                          another when it is taken; 0: any free port).
  --link-timeout <duration>
                          Stop serving --link after this long (e.g. 90s, 30m;
                          default 10m).
  --json                  Print the result as JSON, one object per peer and
                          line.
  -h, --help              Show help information.

"""
}
