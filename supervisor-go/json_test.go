package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// oracle is encoding/json's reading of data, numbers as their text, as parseObject gives them.
func oracle(data []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil || dec.More() {
		return nil, false
	}
	return convertNumbers(m).(map[string]any), true
}

func convertNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		return jsonNumber(t)
	case []any:
		for i := range t {
			t[i] = convertNumbers(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = convertNumbers(t[k])
		}
	}
	return v
}

func TestParseObjectReadsWhatEncodingJSONReads(t *testing.T) {
	cases := []string{
		`{"secrets":["sk-live-7f3a9c2e","a\"b\\c\/d\b\f\n\r\t","\u00e9\u20ac\ud83d\ude00","\ud800 lone","lone \udc00 low","\ud800\u0041"]}` + "\n",
		`{"secrets":["raw é € 😀", 3, null, true, {"x":[1]}]}`,
		`{"watchGroup":12345}`, `{"forgetGroup":-7}`, `{"exiting":0}`, `{"passThrough":true}`, `{"passThrough":false}`,
		` { "watchGroup" : 1 , "other" : [ ] , "o" : { } } `,
		`{"n":[0,-0,1.5,-2e10,3E+2,4e-1]}`,
		"{\"bad\":\"ctl\x01\"}", "{\"bad\":\"\xff\xfe invalid\"}",
		`{"a":01}`, `{"a":+1}`, `{"a":.5}`, `{"a":1.}`, `{"a":1e}`, `{"a":-}`, `{"a":tru}`, `{"a":"x}`, `{"a" 1}`,
		`{"a":1,}`, `{"a":[1,]}`, `{"a":"\x"}`, `{"a":"\u12"}`, `[1]`, `"s"`, `{}`, `{"a":1} x`, ``, `{`,
	}
	for _, c := range cases {
		got, ok := parseObject([]byte(c))
		want, wantOK := oracle([]byte(c))
		if ok != wantOK || (ok && !reflect.DeepEqual(got, want)) {
			t.Errorf("%q: parsed %v %#v, encoding/json %v %#v", c, ok, got, wantOK, want)
		}
	}
}

func TestAppendJSONStringWritesWhatEncodingJSONWrites(t *testing.T) {
	var all strings.Builder
	for c := 0; c < 0x80; c++ {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{all.String(), "é € 😀 \u2028 \u2029 \u00a0", "bad \xff\xfe utf-8 \xe2\x82", "<a href=\"x\">&</a>", ""} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got, want := string(appendJSONString(nil, s)), strings.TrimSuffix(b.String(), "\n"); got != want {
			t.Errorf("%q: wrote %s, encoding/json %s", s, got, want)
		}
	}
}

func TestTheStdoutLogLineIsTheJSONGoPluginParses(t *testing.T) {
	line := stdoutLogLine([]byte("out \"q\" \\ \t \x01 \xff é"))
	if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
		t.Fatalf("not one line: %q", line)
	}
	var m map[string]string
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	if m["@message"] != "out \"q\" \\ \t \x01 \uFFFD é" || m["stream"] != "stdout" || m["@level"] != "info" || len(m) != 4 {
		t.Fatalf("fields %#v", m)
	}
	// go-plugin parses the timestamp with this layout.
	if _, err := time.Parse("2006-01-02T15:04:05.000000Z07:00", m["@timestamp"]); err != nil {
		t.Fatalf("timestamp %q: %v", m["@timestamp"], err)
	}
}
