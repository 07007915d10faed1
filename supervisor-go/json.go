package main

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON this program reads (fd 3's messages) and writes (go-plugin's log lines), by hand:
// encoding/json would bring reflect and fmt, about 0.55 MB of the binary and of each process's RSS.

// jsonNumber is a number's text as written (strconv converts it where a field needs one).
type jsonNumber string

// maxJSONDepth bounds the nesting parsed (a channel message is one object of flat values).
const maxJSONDepth = 32

type jsonParser struct {
	s []byte
	i int
}

// parseObject parses data as one JSON object (surrounding white space allowed): strings decode
// to string (escapes resolved, a lone surrogate or invalid UTF-8 as U+FFFD), numbers to
// jsonNumber, true and false to bool, null to nil, arrays to []any, objects to map[string]any.
func parseObject(data []byte) (map[string]any, bool) {
	p := &jsonParser{s: data}
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, false
	}
	v, ok := p.value(0)
	p.space()
	if !ok || p.i != len(p.s) {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

func (p *jsonParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// eat skips white space and then c, if c is next.
func (p *jsonParser) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jsonParser) value(depth int) (any, bool) {
	p.space()
	if depth > maxJSONDepth || p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; c {
	case '"':
		return p.str()
	case '[':
		p.i++
		return p.array(depth)
	case '{':
		p.i++
		return p.object(depth)
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	default:
		return p.number()
	}
}

func (p *jsonParser) array(depth int) (any, bool) {
	out := []any{}
	if p.eat(']') {
		return out, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if p.eat(',') {
			continue
		}
		return out, p.eat(']')
	}
}

func (p *jsonParser) object(depth int) (any, bool) {
	out := map[string]any{}
	if p.eat('}') {
		return out, true
	}
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, false
		}
		key, ok := p.str()
		if !ok || !p.eat(':') {
			return nil, false
		}
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		out[key.(string)] = v
		if p.eat(',') {
			continue
		}
		return out, p.eat('}')
	}
}

func (p *jsonParser) literal(word string) bool {
	if len(p.s)-p.i < len(word) || string(p.s[p.i:p.i+len(word)]) != word {
		return false
	}
	p.i += len(word)
	return true
}

// number takes a number's characters and checks their grammar (strconv's is wider: no "+1", "01", ".5", "1.").
func (p *jsonParser) number() (any, bool) {
	start := p.i
	p.skip("-")
	if p.skip("0") == 0 && p.skip("0123456789") == 0 {
		return nil, false
	}
	if p.skip(".") == 1 && p.skip("0123456789") == 0 {
		return nil, false
	}
	if p.skip("eE") == 1 {
		p.skip("+-")
		if p.skip("0123456789") == 0 {
			return nil, false
		}
	}
	return jsonNumber(p.s[start:p.i]), true
}

// skip passes over bytes from set (one byte for a one- or two-byte set, any number of digits); returns how many.
func (p *jsonParser) skip(set string) int {
	n := 0
	for p.i < len(p.s) && indexByte(set, p.s[p.i]) {
		p.i++
		n++
		if len(set) <= 2 {
			break
		}
	}
	return n
}

func indexByte(set string, c byte) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}

// str parses a string at p.i (its opening quote).
func (p *jsonParser) str() (any, bool) {
	p.i++
	var out []byte
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), true
		case c < 0x20:
			return nil, false
		case c == '\\':
			var ok bool
			if out, ok = p.escape(out); !ok {
				return nil, false
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.s[p.i:])
			out = utf8.AppendRune(out, r) // RuneError (U+FFFD) for invalid UTF-8
			p.i += size
		}
	}
	return nil, false
}

// escape decodes the escape at p.i (its backslash) onto out.
func (p *jsonParser) escape(out []byte) ([]byte, bool) {
	if p.i+1 >= len(p.s) {
		return nil, false
	}
	c := p.s[p.i+1]
	p.i += 2
	if simple := indexOf(`"\/bfnrt`, c); simple >= 0 {
		return append(out, "\"\\/\b\f\n\r\t"[simple]), true
	}
	if c != 'u' {
		return nil, false
	}
	r, ok := p.hex4()
	if !ok {
		return nil, false
	}
	if utf16.IsSurrogate(r) {
		// A pair when a low half follows; a lone half is U+FFFD (as encoding/json decodes it).
		save := p.i
		if p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
			p.i += 2
			if low, ok := p.hex4(); ok {
				if pair := utf16.DecodeRune(r, low); pair != utf8.RuneError {
					return utf8.AppendRune(out, pair), true
				}
			}
		}
		p.i = save
		r = utf8.RuneError
	}
	return utf8.AppendRune(out, r), true
}

func indexOf(set string, c byte) int {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return i
		}
	}
	return -1
}

func (p *jsonParser) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.s[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaped as encoding/json escapes it without HTML
// escaping: `"`, `\`, control characters (\b \f \n \r \t by name, the rest as \u00xx), U+2028 and
// U+2029 (which JavaScript once did not take raw), invalid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c >= 0x20:
				b = append(b, c)
			case indexOf("\b\f\n\r\t", c) >= 0:
				b = append(b, '\\', "bfnrt"[indexOf("\b\f\n\r\t", c)])
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
