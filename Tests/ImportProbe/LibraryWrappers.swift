// Loads every library wrapper of share into this target. Their libraries' own headers (archive.h,
// avahi-common, ldns) do declare libc structs, which is why no file of this target touches a libc
// struct beside them, as no file of share does (docs/ARCHITECTURE.md, "C shims").
internal import CShareArchive
internal import CShareAvahi
internal import CShareDBus
internal import CShareICU
internal import CShareLDNS
internal import CShareOpenSSL
internal import CShareQREncode
internal import CShareSystemd
internal import CShareZstd

/// One symbol of each library wrapper.
func everyLibraryWrapper() -> [Any] {
    [
        CShareArchive_IFREG(), CShareAvahi_open, CShareDBus_TYPE_STRING(), CShareICU_success, CShareLDNS_open,
        CShareOpenSSL_SSL_OP_NO_TICKET(), CShareQREncode_open, CShareSystemd_open, CShareZstd_magicNumber,
    ]
}
