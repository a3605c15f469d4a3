/// The system-declared types built into the registry: Apple's public types that matter on a
/// Linux desktop, with their conformance, extensions and MIME types.
///
/// Sources: Apple's UTCoreTypes.h (macOS 11.3 SDK) and the archived "System-Declared Uniform
/// Type Identifiers" reference, cross-checked against a dump of a recent macOS type database.
/// MIME types list the freedesktop canonical name where it differs, so the shared-mime-info
/// database joins these types instead of minting its own. The table is a snapshot
/// (``version``); Apple no longer maintains its list.
public enum BuiltinTypes {
    /// A version stamp for the table, bumped whenever it changes.
    public static let version = "2025.1"

    /// Every built-in declaration, parents before children where that is convenient to read.
    public static let declarations: [TypeDeclaration] = [
        // Physical hierarchy.
        t("public.item", [], desc: "item"),
        t("public.content", [], desc: "content"),
        t("public.composite-content", ["public.content"], desc: "composite content"),
        t("public.data", ["public.item"], mime: ["application/octet-stream"], desc: "data"),
        t("public.directory", ["public.item"], desc: "directory"),
        t("public.folder", ["public.directory"], mime: ["inode/directory"], desc: "folder"),
        t("public.volume", ["public.folder"], mime: ["inode/mount-point"], desc: "volume"),
        t("com.apple.package", ["public.directory"], desc: "package"),
        t("com.apple.bundle", ["public.directory"], desc: "bundle"),
        t("public.symlink", ["public.item"], mime: ["inode/symlink"], desc: "symbolic link"),
        t("public.executable", ["public.item"], desc: "executable"),
        t(
            "public.unix-executable", ["public.data", "public.executable"],
            mime: ["application/x-executable", "application/x-sharedlib", "application/x-pie-executable"],
            desc: "Unix executable"),
        t(
            "com.microsoft.windows-executable", ["public.data", "public.executable"], ext: ["exe"],
            mime: [
                "application/x-ms-dos-executable", "application/x-msdownload",
                "application/vnd.microsoft.portable-executable",
            ],
            desc: "Windows executable"),
        t("public.archive", [], desc: "archive"),
        t("public.disk-image", ["public.data", "public.archive"], desc: "disk image"),
        t(
            "public.iso-image", ["public.disk-image"], ext: ["iso"],
            mime: ["application/x-cd-image", "application/x-iso9660-image"], desc: "ISO disk image"),

        // Text.
        t("public.text", ["public.data", "public.content"], desc: "text"),
        t("public.plain-text", ["public.text"], ext: ["txt", "text"], mime: ["text/plain"], desc: "plain text"),
        t("public.utf8-plain-text", ["public.plain-text"], desc: "UTF-8 plain text"),
        t("public.utf16-plain-text", ["public.plain-text"], desc: "UTF-16 plain text"),
        t("public.rtf", ["public.text"], ext: ["rtf"], mime: ["application/rtf", "text/rtf"], desc: "rich text"),
        t(
            "public.html", ["public.text"], ext: ["html", "htm", "shtml", "shtm"], mime: ["text/html"],
            desc: "HTML text"),
        t("public.xml", ["public.text"], ext: ["xml"], mime: ["application/xml", "text/xml"], desc: "XML text"),
        t("public.json", ["public.text"], ext: ["json"], mime: ["application/json"], desc: "JSON text"),
        t(
            "public.yaml", ["public.text"], ext: ["yaml", "yml"],
            mime: ["application/x-yaml", "application/yaml", "text/yaml"], desc: "YAML text"),
        t("public.delimited-values-text", ["public.text"], desc: "delimited values text"),
        t(
            "public.comma-separated-values-text", ["public.delimited-values-text"], ext: ["csv"],
            mime: ["text/csv", "text/comma-separated-values"], desc: "comma-separated values"),
        t(
            "public.tab-separated-values-text", ["public.delimited-values-text"], ext: ["tsv"],
            mime: ["text/tab-separated-values"], desc: "tab-separated values"),
        t("public.log", ["public.plain-text"], ext: ["log"], mime: ["text/x-log"], desc: "log file"),
        t(
            "net.daringfireball.markdown", ["public.plain-text"], ext: ["md", "markdown"],
            mime: ["text/markdown", "text/x-markdown"], desc: "Markdown text"),
        t(
            "public.vcard", ["public.text", "public.contact"], ext: ["vcf", "vcard"],
            mime: ["text/vcard", "text/directory", "text/x-vcard"], desc: "vCard"),
        t("public.contact", [], desc: "contact"),
        t("public.calendar-event", [], desc: "calendar event"),
        t(
            "com.apple.ical.ics", ["public.data", "public.calendar-event"], ext: ["ics"], mime: ["text/calendar"],
            desc: "iCalendar data"),
        t("public.message", [], desc: "message"),
        t(
            "public.email-message", ["public.data", "public.message"], ext: ["eml"], mime: ["message/rfc822"],
            desc: "email message"),
        t("public.url", ["public.data"], desc: "URL"),

        // Source code and scripts.
        t("public.source-code", ["public.plain-text"], desc: "source code"),
        t("public.script", ["public.source-code"], desc: "script"),
        t(
            "public.shell-script", ["public.script"], ext: ["sh", "command"],
            mime: ["application/x-shellscript", "text/x-sh", "application/x-sh"], desc: "shell script"),
        t(
            "public.python-script", ["public.script"], ext: ["py"],
            mime: ["text/x-python", "text/x-python3", "text/x-python-script"], desc: "Python script"),
        t(
            "public.perl-script", ["public.script"], ext: ["pl", "pm"], mime: ["application/x-perl", "text/x-perl"],
            desc: "Perl script"),
        t(
            "public.ruby-script", ["public.script"], ext: ["rb"], mime: ["application/x-ruby", "text/x-ruby"],
            desc: "Ruby script"),
        t(
            "com.netscape.javascript-source", ["public.script"], ext: ["js", "mjs", "jsm"],
            mime: ["application/javascript", "text/javascript", "application/x-javascript"], desc: "JavaScript source"),
        t("public.c-source", ["public.source-code"], ext: ["c"], mime: ["text/x-csrc", "text/x-c"], desc: "C source"),
        t("public.c-header", ["public.source-code"], ext: ["h"], mime: ["text/x-chdr"], desc: "C header"),
        t(
            "public.c-plus-plus-source", ["public.source-code"], ext: ["cpp", "cc", "cxx", "c++"],
            mime: ["text/x-c++src"],
            desc: "C++ source"),
        t(
            "public.c-plus-plus-header", ["public.source-code"], ext: ["hpp", "hh", "hxx", "h++"],
            mime: ["text/x-c++hdr"],
            desc: "C++ header"),
        t(
            "public.objective-c-source", ["public.source-code"], ext: ["m"], mime: ["text/x-objcsrc"],
            desc: "Objective-C source"),
        t("public.swift-source", ["public.source-code"], ext: ["swift"], mime: ["text/x-swift"], desc: "Swift source"),
        t("com.sun.java-source", ["public.source-code"], ext: ["java"], mime: ["text/x-java"], desc: "Java source"),
        t(
            "public.make-source", ["public.source-code"], ext: ["mk", "mak"], mime: ["text/x-makefile"],
            desc: "Makefile"),

        // Property lists.
        t(
            "com.apple.property-list", ["public.data"], ext: ["plist"], mime: ["application/x-plist"],
            desc: "property list"),
        t(
            "com.apple.xml-property-list", ["public.xml", "com.apple.property-list"],
            mime: ["application/x-apple-xml-plist"],
            desc: "XML property list"),
        t(
            "com.apple.binary-property-list", ["com.apple.property-list"], mime: ["application/x-bplist"],
            desc: "binary property list"),

        // Images.
        t("public.image", ["public.data", "public.content"], desc: "image"),
        t(
            "public.jpeg", ["public.image"], ext: ["jpeg", "jpg", "jpe"],
            mime: ["image/jpeg", "image/jpg", "image/pjpeg"], desc: "JPEG image"),
        t("public.png", ["public.image"], ext: ["png"], mime: ["image/png"], desc: "PNG image"),
        t("com.compuserve.gif", ["public.image"], ext: ["gif"], mime: ["image/gif"], desc: "GIF image"),
        t("public.tiff", ["public.image"], ext: ["tiff", "tif"], mime: ["image/tiff"], desc: "TIFF image"),
        t(
            "com.microsoft.bmp", ["public.image"], ext: ["bmp"], mime: ["image/bmp", "image/x-bmp", "image/x-ms-bmp"],
            desc: "BMP image"),
        t(
            "com.microsoft.ico", ["public.image"], ext: ["ico"], mime: ["image/vnd.microsoft.icon", "image/x-icon"],
            desc: "Windows icon image"),
        t("public.heif-standard", ["public.image"], desc: "HEIF image"),
        t("public.heif", ["public.heif-standard"], ext: ["heif", "hif"], mime: ["image/heif"], desc: "HEIF image"),
        t("public.heic", ["public.heif-standard"], ext: ["heic"], mime: ["image/heic"], desc: "HEIC image"),
        t("public.svg-image", ["public.image"], ext: ["svg", "svgz"], mime: ["image/svg+xml"], desc: "SVG image"),
        t("org.webmproject.webp", ["public.image"], ext: ["webp"], mime: ["image/webp"], desc: "WebP image"),
        t(
            "com.adobe.photoshop-image", ["public.image"], ext: ["psd"], mime: ["image/vnd.adobe.photoshop"],
            desc: "Photoshop image"),

        // Documents.
        t(
            "com.adobe.pdf", ["public.data", "public.composite-content"], ext: ["pdf"], mime: ["application/pdf"],
            desc: "PDF document"),
        t(
            "com.adobe.postscript", ["public.data", "public.composite-content"], ext: ["ps"],
            mime: ["application/postscript"],
            desc: "PostScript document"),
        t(
            "com.apple.rtfd", ["com.apple.package", "public.composite-content"], ext: ["rtfd"],
            desc: "rich text with attachments"),
        t(
            "org.idpf.epub-container", ["public.data", "public.composite-content"], ext: ["epub"],
            mime: ["application/epub+zip"], desc: "EPUB publication"),
        t("public.spreadsheet", ["public.content"], desc: "spreadsheet"),
        t("public.presentation", ["public.composite-content"], desc: "presentation"),
        t(
            "com.microsoft.word.doc", ["public.data", "public.composite-content"], ext: ["doc"],
            mime: ["application/msword"],
            desc: "Word document"),
        t(
            "com.microsoft.excel.xls", ["public.data", "public.spreadsheet"], ext: ["xls"],
            mime: ["application/vnd.ms-excel"],
            desc: "Excel spreadsheet"),
        t(
            "com.microsoft.powerpoint.ppt", ["public.data", "public.presentation"], ext: ["ppt"],
            mime: ["application/vnd.ms-powerpoint"], desc: "PowerPoint presentation"),
        t("org.openxmlformats.openxml", ["public.zip-archive"], desc: "Office Open XML document"),
        t(
            "org.openxmlformats.wordprocessingml.document", ["org.openxmlformats.openxml", "public.composite-content"],
            ext: ["docx"], mime: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
            desc: "Word document (Office Open XML)"),
        t(
            "org.openxmlformats.spreadsheetml.sheet", ["org.openxmlformats.openxml", "public.spreadsheet"],
            ext: ["xlsx"],
            mime: ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
            desc: "Excel spreadsheet (Office Open XML)"),
        t(
            "org.openxmlformats.presentationml.presentation", ["org.openxmlformats.openxml", "public.presentation"],
            ext: ["pptx"], mime: ["application/vnd.openxmlformats-officedocument.presentationml.presentation"],
            desc: "PowerPoint presentation (Office Open XML)"),
        t(
            "org.oasis-open.opendocument.text", ["public.data", "public.composite-content"], ext: ["odt"],
            mime: ["application/vnd.oasis.opendocument.text"], desc: "OpenDocument text"),
        t(
            "org.oasis-open.opendocument.spreadsheet", ["public.data", "public.spreadsheet"], ext: ["ods"],
            mime: ["application/vnd.oasis.opendocument.spreadsheet"], desc: "OpenDocument spreadsheet"),
        t(
            "org.oasis-open.opendocument.presentation", ["public.data", "public.presentation"], ext: ["odp"],
            mime: ["application/vnd.oasis.opendocument.presentation"], desc: "OpenDocument presentation"),

        // Audio and video.
        t("public.audiovisual-content", ["public.data", "public.content"], desc: "audiovisual content"),
        t("public.movie", ["public.audiovisual-content"], desc: "movie"),
        t("public.video", ["public.movie"], desc: "video"),
        t("public.audio", ["public.audiovisual-content"], desc: "audio"),
        t("public.mp3", ["public.audio"], ext: ["mp3"], mime: ["audio/mpeg", "audio/mp3"], desc: "MP3 audio"),
        t("public.mpeg-4", ["public.movie"], ext: ["mp4", "mpg4", "m4v"], mime: ["video/mp4"], desc: "MPEG-4 movie"),
        t(
            "public.mpeg-4-audio", ["public.mpeg-4", "public.audio"], ext: ["m4a"], mime: ["audio/mp4", "audio/x-m4a"],
            desc: "MPEG-4 audio"),
        t(
            "com.apple.quicktime-movie", ["public.movie"], ext: ["mov", "qt"], mime: ["video/quicktime"],
            desc: "QuickTime movie"),
        t("public.mpeg", ["public.movie"], ext: ["mpeg", "mpg"], mime: ["video/mpeg"], desc: "MPEG movie"),
        t("public.avi", ["public.movie"], ext: ["avi"], mime: ["video/x-msvideo", "video/avi"], desc: "AVI movie"),
        t("org.webmproject.webm", ["public.movie"], ext: ["webm"], mime: ["video/webm"], desc: "WebM movie"),
        t("org.matroska.mkv", ["public.movie"], ext: ["mkv"], mime: ["video/x-matroska"], desc: "Matroska movie"),
        t(
            "com.microsoft.waveform-audio", ["public.audio"], ext: ["wav", "wave"],
            mime: ["audio/x-wav", "audio/wav", "audio/vnd.wave"],
            desc: "Waveform audio"),
        t("org.xiph.flac", ["public.audio"], ext: ["flac"], mime: ["audio/flac", "audio/x-flac"], desc: "FLAC audio"),
        t(
            "public.aiff-audio", ["public.audio"], ext: ["aiff", "aif"], mime: ["audio/x-aiff", "audio/aiff"],
            desc: "AIFF audio"),
        t(
            "public.midi-audio", ["public.audio"], ext: ["mid", "midi"], mime: ["audio/midi", "audio/x-midi"],
            desc: "MIDI audio"),

        // Fonts.
        t("public.font", ["public.data"], desc: "font"),
        t(
            "public.truetype-ttf-font", ["public.font"], ext: ["ttf"], mime: ["font/ttf", "application/x-font-ttf"],
            desc: "TrueType font"),
        t(
            "public.opentype-font", ["public.font"], ext: ["otf"], mime: ["font/otf", "application/x-font-otf"],
            desc: "OpenType font"),

        // Archives.
        t("com.pkware.zip-archive", ["public.data", "public.archive"], desc: "zip archive"),
        t(
            "public.zip-archive", ["com.pkware.zip-archive"], ext: ["zip"],
            mime: ["application/zip", "application/x-zip-compressed"], desc: "zip archive"),
        t(
            "org.gnu.gnu-zip-archive", ["public.data", "public.archive"], ext: ["gz", "gzip"],
            mime: ["application/gzip", "application/x-gzip"], desc: "gzip archive"),
        t("org.gnu.gnu-tar-archive", ["public.data", "public.archive"], ext: ["gtar"], desc: "GNU tar archive"),
        t(
            "public.tar-archive", ["org.gnu.gnu-tar-archive"], ext: ["tar"],
            mime: ["application/x-tar", "application/x-gtar"], desc: "tar archive"),
        t(
            "org.gnu.gnu-zip-tar-archive", ["org.gnu.gnu-zip-archive"], ext: ["tgz", "tar.gz"],
            mime: ["application/x-compressed-tar"],
            desc: "gzip-compressed tar archive"),
        t(
            "public.bzip2-archive", ["public.data", "public.archive"], ext: ["bz2", "bz"],
            mime: ["application/x-bzip2", "application/x-bzip"], desc: "bzip2 archive"),
        t(
            "org.tukaani.xz-archive", ["public.data", "public.archive"], ext: ["xz"], mime: ["application/x-xz"],
            desc: "XZ archive"),
        t(
            "org.7-zip.7-zip-archive", ["public.data", "public.archive"], ext: ["7z"],
            mime: ["application/x-7z-compressed"], desc: "7-Zip archive"),
        t(
            "com.rarlab.rar-archive", ["public.data", "public.archive"], ext: ["rar"],
            mime: ["application/vnd.rar", "application/x-rar-compressed"], desc: "RAR archive"),
    ]

    private static func t(
        _ identifier: String, _ parents: [String], ext: [String] = [], mime: [String] = [], desc: String
    ) -> TypeDeclaration {
        TypeDeclaration(
            identifier: TypeIdentifier(identifier), conformsTo: parents.map { TypeIdentifier($0) },
            filenameExtensions: ext, mimeTypes: mime, description: desc, kind: .exported)
    }
}
