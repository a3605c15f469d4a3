internal import CShareAvahi

/// Avahi's client functions (libavahi-client, and libavahi-common through it), opened the first time share publishes or browses (see Sources/CShareLibrary/include/CShareLibrary.h): commands that
/// never do, like `share types resolve`, never load it.
let avahi = CShareAvahi_open()
