package main

import (
	"bufio"
	"io"
	"strconv"
)

// channelHandler acts on the provider's messages (runtime/supervisor/supervisor-channel.ts): channel
// version 1 (channelVersion, told to the provider in its environment).
type channelHandler interface {
	learn(secrets []string)
	watchGroup(pgid int)
	forgetGroup(pgid int)
	passThrough()
	// exiting: the provider's last exit listener ran; only its teardown is left.
	exiting(code int)
}

// serveChannel reads messages until EOF; secrets, tool groups and pass-through are answered ("\n")
// once acted on: nothing the provider writes after its Configure can reach a filter before the
// secret does, and the provider passes on nothing a tool's child says before the watchdog has its
// group (the host may kill this process on that output).
func serveChannel(conn io.ReadWriter, h channelHandler) {
	lines := bufio.NewReader(conn)
	for {
		line, err := lines.ReadBytes('\n')
		if err != nil {
			return
		}
		m, ok := parseObject(line)
		if !ok {
			continue
		}
		if secrets, ok := m["secrets"].([]any); ok {
			var texts []string
			for _, s := range secrets {
				if text, ok := s.(string); ok {
					texts = append(texts, text)
				}
			}
			h.learn(texts)
			_, _ = conn.Write([]byte("\n"))
		} else if pgid, ok := intField(m, "watchGroup"); ok {
			h.watchGroup(pgid)
			_, _ = conn.Write([]byte("\n"))
		} else if pgid, ok := intField(m, "forgetGroup"); ok {
			h.forgetGroup(pgid)
		} else if pass, _ := m["passThrough"].(bool); pass {
			h.passThrough()
			_, _ = conn.Write([]byte("\n"))
		} else if code, ok := intField(m, "exiting"); ok {
			h.exiting(code)
		}
	}
}

// intField is m[key] when it is a JSON number written as an integer.
func intField(m map[string]any, key string) (int, bool) {
	text, ok := m[key].(jsonNumber)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(string(text))
	return n, err == nil
}
