internal import CShareICU

/// ICU's spoof-checker functions (libicui18n, and libicuuc through it), opened the first time share
/// compares peer names (see Sources/CShareLibrary/include/CShareLibrary.h): commands that never do, like
/// `share types resolve`, never load ICU.
let icu = CShareICU_open()
