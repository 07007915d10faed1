package main

import (
	"bytes"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
)

// marker replaces every form of a secret (runtime/redaction's redactionMarker).
var marker = []byte("[REDACTED]")

// minimumSecretLength: shorter secrets are only replaced where a whole string equals them, which a
// byte stream has not (runtime/redaction's minimumSubstringSecretLength, in UTF-16 code units).
const minimumSecretLength = 4

const upperHex = "0123456789ABCDEF"

// jsonEscaped is the text between the quotes of JavaScript's JSON.stringify(s).
func jsonEscaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[r>>4])
				b.WriteByte(hexDigits[r&0xf])
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// uriEncoded is JavaScript's encodeURIComponent(s).
func uriEncoded(s string) string {
	const unreserved = "-_.!~*'()"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(unreserved, c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&0xf])
		}
	}
	return b.String()
}

// secretForms are the forms the provider's exits match: raw, JSON-escaped once and twice, URL-encoded.
func secretForms(secret string) []string {
	once := jsonEscaped(secret)
	seen := map[string]bool{}
	var forms []string
	for _, form := range []string{secret, once, jsonEscaped(once), uriEncoded(secret)} {
		if !seen[form] {
			seen[form] = true
			forms = append(forms, form)
		}
	}
	return forms
}

// SecretSet holds the secrets one supervisor knows, shared by its stream filters.
type SecretSet struct {
	mu    sync.RWMutex
	known map[string]bool
	forms [][]byte
}

// Learn adds secrets; none is ever forgotten (a rotated key stays redacted).
func (s *SecretSet) Learn(secrets []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known == nil {
		s.known = map[string]bool{}
	}
	for _, secret := range secrets {
		if len(utf16.Encode([]rune(secret))) < minimumSecretLength || s.known[secret] {
			continue
		}
		s.known[secret] = true
		for _, form := range secretForms(secret) {
			s.forms = append(s.forms, []byte(form))
		}
	}
	// Longest first, so a form that contains a shorter one is replaced whole.
	sort.SliceStable(s.forms, func(a, b int) bool { return len(s.forms[a]) > len(s.forms[b]) })
}

// Forms is a snapshot of the byte forms to replace.
func (s *SecretSet) Forms() [][]byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.forms
}

// redact replaces every occurrence of every form (overlapping matches become one marker).
func redact(data []byte, forms [][]byte) []byte {
	type span struct{ start, stop int }
	var spans []span
	for _, form := range forms {
		for from := 0; from <= len(data)-len(form); {
			at := bytes.Index(data[from:], form)
			if at < 0 {
				break
			}
			spans = append(spans, span{from + at, from + at + len(form)})
			from += at + 1
		}
	}
	if len(spans) == 0 {
		return data
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.start <= last.stop {
			last.stop = max(last.stop, sp.stop)
		} else {
			merged = append(merged, sp)
		}
	}
	out := make([]byte, 0, len(data))
	copied := 0
	for _, sp := range merged {
		out = append(append(out, data[copied:sp.start]...), marker...)
		copied = sp.stop
	}
	return append(out, data[copied:]...)
}

// pendingPrefix is how many bytes at the end of data are the beginning (not the whole) of a form.
func pendingPrefix(data []byte, forms [][]byte) int {
	longest := 0
	for _, form := range forms {
		for n := min(len(form)-1, len(data)); n > longest; n-- {
			if bytes.Equal(data[len(data)-n:], form[:n]) {
				longest = n
				break
			}
		}
	}
	return longest
}

// StreamFilter is one byte stream through the filter: it holds back only a tail that may be the
// start of a secret, so a secret split across writes is still caught and other bytes pass at once.
type StreamFilter struct {
	secrets *SecretSet
	held    []byte
}

// Push returns the bytes safe to pass on now.
func (f *StreamFilter) Push(chunk []byte) []byte {
	forms := f.secrets.Forms()
	data := append(f.held, chunk...)
	f.held = nil
	if len(forms) == 0 {
		return data
	}
	redacted := redact(data, forms)
	keep := pendingPrefix(redacted, forms)
	f.held = append([]byte(nil), redacted[len(redacted)-keep:]...)
	return redacted[:len(redacted)-keep]
}

// Flush returns the rest when the stream ends.
func (f *StreamFilter) Flush() []byte {
	rest := redact(f.held, f.secrets.Forms())
	f.held = nil
	return rest
}
