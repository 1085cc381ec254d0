// Package httphost holds what the packages that serve agents over HTTP
// (server, agentcore, mcp) share at the HTTP layer, so that every one of
// them answers a bad request the same way:
//
//   - the JSON error envelope ([Error], [ErrorBody], [Write]):
//     {"error": {"code": "not_found", "message": "…", "field": "…"}};
//   - JSON 404 and 405 answers ([NotFound], [Methods]) in place of the
//     ServeMux's plain text;
//   - a bounded body read ([ReadBody]: size, then a read deadline, 408) and
//     a strict JSON decode ([DecodeStrict]: nesting bound first; or
//     [DecodeIgnoringUnknown], which skips members the target lacks);
//   - the bounded http.Server ([NewServer], [Serve]) and the [Listener]
//     that turns the plain-text rejections net/http writes before any
//     handler runs (431 for oversized headers, 400 for a malformed request)
//     into the same envelope.
package httphost
