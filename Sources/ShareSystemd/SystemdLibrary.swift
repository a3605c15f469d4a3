internal import CShareSystemd

/// libsystemd's functions, opened the first time share reports to the service manager (see Sources/CShareLibrary/include/CShareLibrary.h): commands that
/// never do, like `share types resolve`, never load it.
let libsystemd = CShareSystemd_open()
