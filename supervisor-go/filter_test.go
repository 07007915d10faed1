package main

import (
	"bytes"
	"reflect"
	"testing"
)

func TestSecretFormsMatchTheRedactors(t *testing.T) {
	// The forms runtime/redaction's secretForms gives for the same secret (JSON.stringify, twice, encodeURIComponent).
	got := secretForms("a\"b/c d\n\x01é")
	want := []string{
		"a\"b/c d\n\x01é",
		`a\"b/c d\n\u0001é`,
		`a\\\"b/c d\\n\\u0001é`,
		"a%22b%2Fc%20d%0A%01%C3%A9",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("forms %q, want %q", got, want)
	}
	if got := secretForms("plainsecret"); len(got) != 1 {
		t.Fatalf("a secret whose forms are equal has one form, got %q", got)
	}
}

func filterAll(secrets []string, chunks ...string) string {
	var set SecretSet
	set.Learn(secrets)
	f := StreamFilter{secrets: &set}
	var out bytes.Buffer
	for _, c := range chunks {
		out.Write(f.Push([]byte(c)))
	}
	out.Write(f.Flush())
	return out.String()
}

func TestAStreamLosesEverySecret(t *testing.T) {
	cases := []struct {
		name    string
		secrets []string
		chunks  []string
		want    string
	}{
		{"whole", []string{"sk-live-1234"}, []string{"key=sk-live-1234\n"}, "key=[REDACTED]\n"},
		{"split across writes", []string{"sk-live-1234"}, []string{"key=sk-li", "ve-12", "34 end\n"}, "key=[REDACTED] end\n"},
		{"byte by byte", []string{"abcdef"}, []string{"x", "a", "b", "c", "d", "e", "f", "y"}, "x[REDACTED]y"},
		{"JSON-escaped", []string{"p\"ss word"}, []string{`{"v":"p\"ss word"}`}, `{"v":"[REDACTED]"}`},
		{"URL-encoded", []string{"p ss/word"}, []string{"?q=p%20ss%2Fword"}, "?q=[REDACTED]"},
		{"overlapping", []string{"abcabc"}, []string{"abcabcabc"}, "[REDACTED]"},
		{"shorter than four", []string{"abc"}, []string{"abc abc"}, "abc abc"},
		{"a beginning that is not one", []string{"secret-value"}, []string{"secret-", "valve"}, "secret-valve"},
		{"no secrets", nil, []string{"as ", "it is"}, "as it is"},
	}
	for _, c := range cases {
		if got := filterAll(c.secrets, c.chunks...); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestTheFilterHoldsBackOnlyABeginning(t *testing.T) {
	var set SecretSet
	set.Learn([]string{"sk-live-1234"})
	f := StreamFilter{secrets: &set}
	if got := string(f.Push([]byte("line one\nkey=sk-li"))); got != "line one\nkey=" {
		t.Fatalf("passed %q at once", got)
	}
	if got := string(f.Push([]byte("ght\n"))); got != "sk-light\n" {
		t.Fatalf("passed %q once the beginning went nowhere", got)
	}
}

func TestASecretLearntTwiceIsOneForm(t *testing.T) {
	var set SecretSet
	set.Learn([]string{"abcd", "abcd", "ab"})
	if n := len(set.Forms()); n != 1 {
		t.Fatalf("%d forms", n)
	}
}
