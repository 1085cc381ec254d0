package eventcodec

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/storedargs"
)

// decodeEventNames is the one-pass decoder of a stored [helikon.SessionEvent]:
// it reads the JSON its MarshalJSON writes, member by member, into the
// event and its content parts, without the reflection, the intermediate
// wire structs and the second pass over each part of the general decoder
// (the event's UnmarshalJSON). It handles the exact form the encoder writes
// and anything close to it; given anything else (an unknown member, a null,
// a number with a fraction, a syntax error) it reports false, and the
// caller decodes with the general decoder, which decides. The fuzz test
// holds the two to the same results. It takes the identifiers it reads
// (agent, tool and handoff names, call ids) from shared when it holds them,
// and the bytes of its other short strings from shared's chunks (nil
// shared: every string is its own).
func decodeEventNames(data []byte, e *helikon.SessionEvent, shared *sharedStrings) bool {
	d := fastDecoder{data: data, shared: shared}
	var ev helikon.SessionEvent
	var argsText string
	var argsBytes []byte
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "seq":
			n, ok := d.int()
			ev.Seq = helikon.SequenceID(n)
			return ok
		case "type":
			var ok bool
			ev.Kind, ok = d.kind()
			return ok
		case "ts":
			return d.time(&ev.Time)
		case "content":
			var ok bool
			ev.Content, ok = d.parts()
			return ok
		case "agent":
			return d.nameTo(&ev.Agent)
		case "call_id":
			return d.nameTo(&ev.CallID)
		case "name":
			return d.nameTo(&ev.Name)
		case "args":
			var ok bool
			ev.Args, ok = d.raw()
			return ok
		case "args_text":
			return d.stringTo(&argsText)
		case "args_bytes":
			var ok bool
			argsBytes, ok = d.bytes()
			return ok
		case "is_error":
			return d.bool(&ev.IsError)
		case "from":
			return d.nameTo(&ev.From)
		case "to":
			return d.nameTo(&ev.To)
		case "summary":
			return d.stringTo(&ev.Summary)
		case "original_count":
			n, ok := d.int()
			ev.OriginalCount = int(n)
			return ok && int64(ev.OriginalCount) == n
		case "kept_count":
			n, ok := d.int()
			ev.KeptCount = int(n)
			return ok && int64(ev.KeptCount) == n
		}
		return false
	})
	if !ok || !d.end() {
		return false
	}
	ev.Args = storedargs.Restore(ev.Args, argsText, argsBytes)
	*e = ev
	return true
}

// eventKinds lets the decoder use the constants instead of allocating a
// string per event.
var eventKinds = []helikon.SessionEventKind{helikon.KindUserMessage, helikon.KindSystemMessage, helikon.KindAssistantMessage, helikon.KindToolCalled, helikon.KindToolReturned, helikon.KindHandoffOccurred, helikon.KindCompacted}

// kind reads an event kind.
func (d *fastDecoder) kind() (helikon.SessionEventKind, bool) {
	if d.peek() == '"' {
		save := d.pos
		if raw, ok := d.plainString(); ok {
			for _, k := range eventKinds {
				if string(raw) == string(k) {
					return k, true
				}
			}
		}
		d.pos = save
	}
	s, ok := d.string()
	return helikon.SessionEventKind(s), ok
}

// maxName is the longest identifier a sharedStrings keeps among its
// recent names.
const maxName = 128

// sharedStrings is what the events of one log share: the identifiers the
// last few events read, and chunks that hold the bytes of their other
// short strings. The events of one log repeat identifiers: every answer
// names its agent, a tool's result repeats its call's id and name, a run
// calls the same few tools. Taking them from here saves an allocation
// each, and a cached session holds one copy of each instead of one per
// event.
type sharedStrings struct {
	recent [8]string
	next   int
	// arena holds the bytes of the other short strings the log's events
	// read (texts, arguments), many to an allocation instead of one each.
	arena []byte
}

// Arena sizes. The first chunk of a read is small and each next one twice
// the last, up to arenaChunk, so a short read (a cache's incremental load,
// a session of a few turns) does not keep a mostly empty 16 KiB chunk
// alive: the unused tail is at most the size of the last chunk, which is
// at most what the chunks before it hold. A string too long to share well
// gets its own allocation. A string keeps its whole chunk alive; a
// projection keeps nearly all of them anyway.
const (
	firstArenaChunk = 512
	arenaChunk      = 16 << 10
	maxArenaString  = 1 << 10
)

// bytes returns a copy of b that shares an allocation with the copies
// before it. Its capacity is its length, so an append to it cannot reach
// the bytes of the next one, and nothing writes to a copy once made.
func (c *sharedStrings) bytes(b []byte) []byte {
	if len(b) > maxArenaString {
		return append([]byte(nil), b...)
	}
	return c.commit(append(c.reserve(len(b)), b...))
}

// reserve returns an empty slice of the arena with room for n bytes
// (n at most maxArenaString), to append a string's bytes to and pass to
// commit.
func (c *sharedStrings) reserve(n int) []byte {
	if cap(c.arena)-len(c.arena) < n {
		size := min(max(2*cap(c.arena), firstArenaChunk), arenaChunk)
		c.arena = make([]byte, 0, max(size, n))
	}
	return c.arena[len(c.arena):len(c.arena)]
}

// commit takes b, appended to the last reserve within its room, into the
// arena, and returns it with its capacity cut to its length.
func (c *sharedStrings) commit(b []byte) []byte {
	c.arena = c.arena[:len(c.arena)+len(b)]
	return b[:len(b):len(b)]
}

// string returns b as a string that shares an allocation ([sharedStrings.bytes]).
func (c *sharedStrings) string(b []byte) string {
	return unsafe.String(unsafe.SliceData(c.bytes(b)), len(b))
}

func (c *sharedStrings) get(b []byte) string {
	for _, s := range c.recent {
		if s == string(b) {
			return s
		}
	}
	s := string(b)
	c.recent[c.next] = s
	c.next = (c.next + 1) % len(c.recent)
	return s
}

// fastDecoder reads JSON from data at pos. Every method reports false for
// input it does not handle; the caller then gives up on the fast path.
type fastDecoder struct {
	data   []byte
	pos    int
	depth  int
	shared *sharedStrings // nil: every string is its own
}

// maxFastDepth bounds the nesting of content parts the fast path follows.
const maxFastDepth = 64

func (d *fastDecoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *fastDecoder) peek() byte {
	d.ws()
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *fastDecoder) end() bool {
	d.ws()
	return d.pos == len(d.data)
}

// object reads an object, calling member for each key with the decoder
// positioned at the member's value.
func (d *fastDecoder) object(member func(key []byte) bool) bool {
	if d.peek() != '{' {
		return false
	}
	d.pos++
	if d.peek() == '}' {
		d.pos++
		return true
	}
	for {
		if d.peek() != '"' {
			return false
		}
		key, ok := d.plainString()
		if !ok || d.peek() != ':' {
			return false
		}
		d.pos++
		if !member(key) {
			return false
		}
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return true
		default:
			return false
		}
	}
}

// plainString reads a string without escapes and returns its bytes, which
// alias data.
func (d *fastDecoder) plainString() ([]byte, bool) {
	start := d.pos + 1
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return d.data[start:i], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// nameTo reads an identifier, a string that events repeat (an agent's
// name, a call id), sharing it with the earlier events that read it.
func (d *fastDecoder) nameTo(dst *string) bool {
	if d.shared != nil && d.peek() == '"' {
		save := d.pos
		if raw, ok := d.plainString(); ok && len(raw) <= maxName && ascii(raw) {
			*dst = d.shared.get(raw)
			return true
		}
		d.pos = save
	}
	return d.stringTo(dst)
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (d *fastDecoder) stringTo(dst *string) bool {
	s, ok := d.string()
	*dst = s
	return ok
}

// string reads a string value, unescaping it as encoding/json does
// (invalid UTF-8 and lone surrogates become U+FFFD).
func (d *fastDecoder) string() (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	start := d.pos + 1
	i := start
	ascii := true
	for ; i < len(d.data); i++ {
		c := d.data[i]
		if c == '"' {
			d.pos = i + 1
			raw := d.data[start:i]
			if !ascii && !utf8.Valid(raw) {
				return unquoteSlow(raw), true
			}
			if d.shared != nil {
				return d.shared.string(raw), true
			}
			return string(raw), true
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	// An escape: find the end, then unescape.
	for ; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '\\':
			i++
		case c == '"':
			d.pos = i + 1
			return d.unescaped(d.data[start:i])
		case c < 0x20:
			return "", false
		}
	}
	return "", false
}

// unquoteSlow decodes a string body through encoding/json, for the rare
// string whose bytes are not valid UTF-8.
func unquoteSlow(raw []byte) string {
	var s string
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	_ = json.Unmarshal(quoted, &s)
	return s
}

// unescaped returns the body of a JSON string that holds escapes,
// decoded. A short one in valid UTF-8 is decoded straight into the shared
// chunks, since decoding it can only shorten it (every escape is longer
// than what it stands for; only invalid UTF-8 grows, into U+FFFD), so text
// with newlines or quotes in it costs no allocation of its own.
func (d *fastDecoder) unescaped(raw []byte) (string, bool) {
	if d.shared == nil || len(raw) > maxArenaString || !utf8.Valid(raw) {
		return unescape(raw)
	}
	b, ok := appendUnescaped(d.shared.reserve(len(raw)), raw)
	if !ok {
		return "", false
	}
	if len(b) > len(raw) { // it cannot grow, but never commit past the room
		return string(b), true
	}
	b = d.shared.commit(b)
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// unescape decodes the body of a JSON string that holds escapes, with
// encoding/json's rules.
func unescape(s []byte) (string, bool) {
	b, ok := appendUnescaped(make([]byte, 0, len(s)), s)
	if !ok {
		return "", false
	}
	// b is never written again, so the string can own its bytes, as
	// strings.Builder's do: one allocation per escaped string, not two.
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// appendUnescaped appends the body of a JSON string s, decoded, to b.
func appendUnescaped(b, s []byte) ([]byte, bool) {
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			r++
			if r >= len(s) {
				return b, false
			}
			switch s[r] {
			case '"', '\\', '/':
				b = append(b, s[r])
				r++
			case 'b':
				b = append(b, '\b')
				r++
			case 'f':
				b = append(b, '\f')
				r++
			case 'n':
				b = append(b, '\n')
				r++
			case 'r':
				b = append(b, '\r')
				r++
			case 't':
				b = append(b, '\t')
				r++
			case 'u':
				r--
				rr := getu4(s[r:])
				if rr < 0 {
					return b, false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			default:
				return b, false
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return b, true
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// int reads an integer without fraction or exponent.
func (d *fastDecoder) int() (int64, bool) {
	d.ws()
	start := d.pos
	if d.pos < len(d.data) && d.data[d.pos] == '-' {
		d.pos++
	}
	digits := d.pos
	for d.pos < len(d.data) && '0' <= d.data[d.pos] && d.data[d.pos] <= '9' {
		d.pos++
	}
	if d.pos == digits || (d.data[digits] == '0' && d.pos > digits+1) {
		return 0, false
	}
	if d.pos < len(d.data) {
		switch d.data[d.pos] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(d.data[start:d.pos]), 10, 64)
	return n, err == nil
}

func (d *fastDecoder) bool(dst *bool) bool {
	d.ws()
	switch {
	case hasPrefix(d.data[d.pos:], "true"):
		*dst, d.pos = true, d.pos+4
	case hasPrefix(d.data[d.pos:], "false"):
		*dst, d.pos = false, d.pos+5
	default:
		return false
	}
	return true
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

// time reads an RFC 3339 timestamp as time.Time's UnmarshalJSON does: the
// bytes between the quotes, unescaped.
func (d *fastDecoder) time(dst *time.Time) bool {
	if d.peek() != '"' {
		return false
	}
	raw, ok := d.plainString()
	if !ok {
		return false
	}
	if t, ok := parseUTC(raw); ok {
		*dst = t
		return true
	}
	return dst.UnmarshalText(raw) == nil
}

// parseUTC reads the form time.Time's MarshalJSON gives a UTC time,
// "2006-01-02T15:04:05.999999999Z" (a fraction of 1 to 9 digits, or
// none), as time.Parse would, about ten times faster: a stored event's
// time was a tenth of its decoding. Anything else it leaves to
// UnmarshalText.
func parseUTC(b []byte) (time.Time, bool) {
	if len(b) < 20 || len(b) > 30 || b[4] != '-' || b[7] != '-' || b[10] != 'T' ||
		b[13] != ':' || b[16] != ':' || b[len(b)-1] != 'Z' {
		return time.Time{}, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	minute, ok5 := digits(b[14:16])
	sec, ok6 := digits(b[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 ||
		month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := b[19 : len(b)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 {
			return time.Time{}, false
		}
		n, ok := digits(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			n *= 10
		}
		nsec = n
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if t.Day() != day { // the 31st of a 30-day month, and the like
		return time.Time{}, false
	}
	return t, true
}

// digits parses b, 1 to 9 decimal digits.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// bytes reads a base64 string as encoding/json decodes a []byte.
func (d *fastDecoder) bytes() ([]byte, bool) {
	s, ok := d.string()
	if !ok {
		return nil, false
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, []byte(s))
	return b[:n], err == nil
}

// raw reads any JSON value but null and returns a copy of its bytes, as
// json.RawMessage does.
func (d *fastDecoder) raw() (json.RawMessage, bool) {
	if c := d.peek(); c == 'n' || c == 0 {
		return nil, false
	}
	start := d.pos
	if !d.skip() {
		return nil, false
	}
	v := d.data[start:d.pos]
	if !json.Valid(v) {
		return nil, false
	}
	if d.shared != nil {
		return d.shared.bytes(v), true
	}
	return append(json.RawMessage(nil), v...), true
}

// skip moves past one value, tracking strings and nesting; json.Valid
// checks what it spans.
func (d *fastDecoder) skip() bool {
	depth := 0
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch c {
		case '"':
			d.pos++
			for d.pos < len(d.data) && d.data[d.pos] != '"' {
				if d.data[d.pos] == '\\' {
					d.pos++
				}
				d.pos++
			}
			if d.pos >= len(d.data) {
				return false
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return false
			}
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return true
			}
		}
		d.pos++
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return true
		}
	}
	return depth == 0
}

// parts reads an array of content parts, or null for none.
func (d *fastDecoder) parts() ([]helikon.ContentPart, bool) {
	if d.peek() == 'n' && hasPrefix(d.data[d.pos:], "null") {
		d.pos += 4
		return nil, true
	}
	if d.peek() != '[' {
		return nil, false
	}
	if d.depth++; d.depth > maxFastDepth {
		return nil, false
	}
	defer func() { d.depth-- }()
	d.pos++
	// Count the parts first, to size the slice: most hold one or two.
	parts := make([]helikon.ContentPart, 0, 2)
	if d.peek() == ']' {
		d.pos++
		return parts, true
	}
	for {
		p, ok := d.part()
		if !ok {
			return nil, false
		}
		parts = append(parts, p)
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return parts, true
		default:
			return nil, false
		}
	}
}

// part reads one content part, every member of every part type at once,
// as the general decoder's wire struct does.
func (d *fastDecoder) part() (helikon.ContentPart, bool) {
	var (
		typ, text, url, mediaType, sig, id, callID, name, argsText string
		data                                                       []byte
		dataSet                                                    bool
		args                                                       json.RawMessage
		argsBytes                                                  []byte
		content                                                    []helikon.ContentPart
		isError                                                    bool
	)
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return d.stringTo(&typ)
		case "text":
			return d.stringTo(&text)
		case "url":
			return d.stringTo(&url)
		case "media_type":
			return d.stringTo(&mediaType)
		case "data":
			// Image bytes in base64, or reasoning's opaque string: keep
			// the raw string and decide by type.
			start := d.pos
			if d.peek() != '"' || !d.skip() {
				return false
			}
			data, dataSet = d.data[start:d.pos], true
			return true
		case "signature":
			return d.stringTo(&sig)
		case "id":
			return d.stringTo(&id)
		case "call_id":
			return d.nameTo(&callID)
		case "name":
			return d.nameTo(&name)
		case "args":
			var ok bool
			args, ok = d.raw()
			return ok
		case "args_text":
			return d.stringTo(&argsText)
		case "args_bytes":
			var ok bool
			argsBytes, ok = d.bytes()
			return ok
		case "content":
			var ok bool
			content, ok = d.parts()
			return ok
		case "is_error":
			return d.bool(&isError)
		}
		return false
	})
	if !ok {
		return nil, false
	}
	switch typ {
	case "text":
		return helikon.TextPart{Text: text}, true
	case "image":
		p := helikon.ImagePart{URL: url, MediaType: mediaType}
		if dataSet {
			sub := fastDecoder{data: data}
			if p.Data, ok = sub.bytes(); !ok {
				return nil, false
			}
		}
		return p, true
	case "reasoning":
		p := helikon.ReasoningPart{Text: text, Signature: sig, ID: id}
		if dataSet {
			sub := fastDecoder{data: data}
			if p.Data, ok = sub.string(); !ok {
				return nil, false
			}
		}
		return p, true
	case "tool_use":
		return helikon.ToolUsePart{CallID: callID, Name: name, Args: storedargs.Restore(args, argsText, argsBytes)}, true
	case "tool_result":
		return helikon.ToolResultPart{CallID: callID, Name: name, Content: content, IsError: isError}, true
	}
	return nil, false
}

// decodeProjection is the one-pass decoder of a [helikon.Projection]'s JSON,
// with the same contract as [decodeEventNames].
func decodeProjection(data []byte) (helikon.SequenceID, []helikon.Item, bool) {
	d := fastDecoder{data: data, shared: new(sharedStrings)}
	var seq int64
	var items []helikon.Item
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "seq":
			var ok bool
			seq, ok = d.int()
			return ok
		case "items":
			var ok bool
			items, ok = d.items()
			return ok
		}
		return false
	})
	if !ok || !d.end() {
		return 0, nil, false
	}
	return helikon.SequenceID(seq), items, true
}

// items reads an array of items, sized by a count of its elements.
func (d *fastDecoder) items() ([]helikon.Item, bool) {
	if d.peek() != '[' {
		return nil, false
	}
	d.pos++
	items := make([]helikon.Item, 0, 16)
	if d.peek() == ']' {
		d.pos++
		return items, true
	}
	for {
		var it helikon.Item
		ok := d.object(func(key []byte) bool {
			switch string(key) {
			case "role":
				var ok bool
				it.Role, ok = d.role()
				return ok
			case "content":
				var ok bool
				it.Content, ok = d.parts()
				return ok
			case "agent":
				return d.nameTo(&it.Agent)
			}
			return false
		})
		if !ok {
			return nil, false
		}
		items = append(items, it)
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return items, true
		default:
			return nil, false
		}
	}
}

var roles = []helikon.Role{helikon.RoleUser, helikon.RoleAssistant, helikon.RoleTool, helikon.RoleSystem}

// role reads a role, using the constants for the known ones.
func (d *fastDecoder) role() (helikon.Role, bool) {
	if d.peek() == '"' {
		save := d.pos
		if raw, ok := d.plainString(); ok {
			for _, r := range roles {
				if string(raw) == string(r) {
					return r, true
				}
			}
		}
		d.pos = save
	}
	s, ok := d.string()
	return helikon.Role(s), ok
}
