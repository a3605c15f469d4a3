internal import CShareArchive

/// libarchive's functions, opened the first time share reads or writes an archive (see
/// Sources/CShareLibrary/include/CShareLibrary.h): commands that never do, like `share types resolve`, never
/// load libarchive and the libraries it needs (libxml2, ICU, lzma, ...).
let libarchive = CShareArchive_open()
