internal import CShareHTTPParser

/// http-parser's functions, opened the first time share parses an HTTP message.
let httpParser = CShareHTTPParser_open()
