internal import CShareDBus

/// libdbus's functions, opened the first time share talks to the session bus (see Sources/CShareLibrary/include/CShareLibrary.h): commands that
/// never do, like `share types resolve`, never load it.
let libdbus = CShareDBus_open()
