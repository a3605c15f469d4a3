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
  send                    Send files and folders to a receiver.
  identity                Show this machine's device name and fingerprint.
  types                   Register applications and look up document types.
  inbox                   List, retry or remove documents waiting in the inbox.

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

USAGE: share send <path> ... --to <peer> [--json]

ARGUMENTS:
  <path> ...              Files and folders to send.

OPTIONS:
  --to <peer>             The receiver, as HOST:PORT (e.g. 192.168.1.20:47321 or
                          [fe80::1%eth0]:47321).
  --json                  Print the result as a JSON object.
  -h, --help              Show help information.

"""
}
