package governance

import (
	"bytes"
)

// scrubPEM masks the body of every PEM block holding a private key, from
// the end of its BEGIN line to its END marker, in raw text and in a JSON
// string alike (where its line breaks are \n escapes).
func scrubPEM(text []byte) ([]byte, bool) {
	var out []byte
	last := 0
	for i := 0; ; {
		b := bytes.Index(text[i:], []byte("-----BEGIN "))
		if b < 0 {
			break
		}
		b += i
		hdrEnd := bytes.Index(text[b+11:], []byte("-----"))
		if hdrEnd < 0 {
			break
		}
		hdrEnd += b + 11 + 5
		end := bytes.Index(text[hdrEnd:], []byte("-----END "))
		if !bytes.Contains(text[b:hdrEnd], []byte("PRIVATE KEY")) || end < 0 {
			i = hdrEnd
			continue
		}
		end += hdrEnd
		out = append(out, text[last:hdrEnd]...)
		out = append(out, mask...)
		last, i = end, end+9
	}
	if out == nil {
		return text, false
	}
	return append(out, text[last:]...), true
}

// scrubBlockScalars masks YAML block scalars (key: | or key: >, with any
// chomping or indentation indicator) under secret-named keys: every
// following line indented deeper than the key is part of the value. In a
// JSON string the line breaks are \n escapes.
func scrubBlockScalars(text []byte) ([]byte, bool) {
	out, changed := scrubBlockScalarsNL(text, []byte("\n"))
	if o, c := scrubBlockScalarsNL(out, []byte(`\n`)); c {
		return o, true
	}
	return out, changed
}

func scrubBlockScalarsNL(text, nl []byte) ([]byte, bool) {
	var out []byte
	last := 0
	for i := 0; i < len(text); i++ {
		if text[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(text) && text[j] == ' ' {
			j++
		}
		if j >= len(text) || (text[j] != '|' && text[j] != '>') {
			continue
		}
		k := j + 1
		for k < len(text) && (text[k] == '-' || text[k] == '+' || text[k] >= '0' && text[k] <= '9' || text[k] == ' ') {
			k++
		}
		if !bytes.HasPrefix(text[k:], nl) || !secretKey(keyBefore(text, i, false)) {
			continue
		}
		lineStart := bytes.LastIndex(text[:i], nl) + len(nl)
		if lineStart < len(nl) {
			lineStart = 0
		}
		indent := 0
		for lineStart+indent < i && (text[lineStart+indent] == ' ' || text[lineStart+indent] == '-') {
			indent++
		}
		// The value runs over the lines indented deeper than the key, and
		// blank lines among them.
		body := k + len(nl)
		end := body
		for end < len(text) {
			n := bytes.Index(text[end:], nl)
			line := text[end:]
			if n >= 0 {
				line = text[end : end+n]
			}
			d := 0
			for d < len(line) && line[d] == ' ' {
				d++
			}
			if d < len(line) && d <= indent || len(line) > 0 && d == 0 {
				break
			}
			if n < 0 {
				// The last line ends the text, or the JSON string.
				if q := closingQuote(line); q >= 0 && len(nl) == 2 {
					end += q
				} else {
					end = len(text)
				}
				break
			}
			end += n + len(nl)
		}
		if end > body {
			out = append(out, text[last:body]...)
			out = append(out, mask...)
			out = append(out, nl...)
			last, i = end, end-1
		}
	}
	if out == nil {
		return text, false
	}
	return append(out, text[last:]...), true
}

// scrubURLPasswords masks the password of a URL's user information
// (postgres://user:PASSWORD@host).
func scrubURLPasswords(text []byte) ([]byte, bool) {
	var out []byte
	last := 0
	for i := 0; ; {
		s := bytes.Index(text[i:], []byte("://"))
		if s < 0 {
			break
		}
		s += i + 3
		i = s
		// The authority ends at the first /, ?, #, blank, quote or line end.
		e := s
		for e < len(text) && bytes.IndexByte([]byte("/?# \t\r\n\"'<>\\"), text[e]) < 0 {
			e++
		}
		at := bytes.LastIndexByte(text[s:e], '@')
		if at < 0 {
			continue
		}
		at += s
		colon := bytes.IndexByte(text[s:at], ':')
		if colon < 0 || s+colon+1 == at {
			continue
		}
		out = append(out, text[last:s+colon+1]...)
		out = append(out, mask...)
		last, i = at, at
	}
	if out == nil {
		return text, false
	}
	return append(out, text[last:]...), true
}

// closingQuote returns the index of the first quote in line that no
// backslash escapes, or -1.
func closingQuote(line []byte) int {
	for q := 0; q < len(line); q++ {
		switch line[q] {
		case '\\':
			q++
		case '"':
			return q
		}
	}
	return -1
}
