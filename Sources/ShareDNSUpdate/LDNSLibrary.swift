internal import CShareLDNS

/// libldns's functions, opened the first time share sends a DNS update or query to a chosen server (see Sources/CShareLibrary/include/CShareLibrary.h): commands that
/// never do, like `share types resolve`, never load it.
let ldns = CShareLDNS_open()
