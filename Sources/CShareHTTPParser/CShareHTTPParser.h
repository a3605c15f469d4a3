// Node's http-parser (libhttp-parser2.9), read only through ShareHTTP (`internal import`), which opens
// it on first use (CShareLibrary.h). Its header declares only <stddef.h> and <stdint.h> types.
#ifndef CSHARE_HTTP_PARSER_H
#define CSHARE_HTTP_PARSER_H

#include <http_parser.h>
#include "../CShareLibrary/include/CShareLibrary.h"

/// Every http-parser function ShareHTTP calls.
#define CSHARE_HTTP_PARSER_FUNCTIONS(F) \
    F(http_parser_init) \
    F(http_parser_settings_init) \
    F(http_parser_execute) \
    F(http_errno_description) \
    F(http_should_keep_alive)

/// `CShareHTTPParser_Functions` and `CShareHTTPParser_open()`: http-parser 2.9 is `libhttp_parser.so.2.9`.
CSHARE_LIBRARY(CShareHTTPParser, CSHARE_HTTP_PARSER_FUNCTIONS, "libhttp_parser.so.2.9", "libhttp-parser2.9")

/// HTTP_PARSER_ERRNO: the parser's error (a bit-field), as an int.
static inline int CShareHTTPParser_errno(const http_parser *_Nonnull parser) { return (int)parser->http_errno; }
/// Whether the parser is paused or failed (HPE_OK is 0).
static inline int CShareHTTPParser_failed(const http_parser *_Nonnull parser) { return parser->http_errno != HPE_OK; }
/// The status code of a parsed response.
static inline unsigned int CShareHTTPParser_status(const http_parser *_Nonnull parser) { return parser->status_code; }
/// The method of a parsed request (an `enum http_method`).
static inline unsigned int CShareHTTPParser_method(const http_parser *_Nonnull parser) { return parser->method; }

#endif
