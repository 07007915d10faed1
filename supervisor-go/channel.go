package main

import (
	"bufio"
	"encoding/json"
	"io"
)

// channelMessage is one line the provider writes on fd 3 (runtime/supervisor/supervisor-channel.ts).
type channelMessage struct {
	Secrets     *[]any `json:"secrets"`
	WatchGroup  *int   `json:"watchGroup"`
	ForgetGroup *int   `json:"forgetGroup"`
	PassThrough *bool  `json:"passThrough"`
	Exiting     *int   `json:"exiting"`
}

// channelHandler acts on the provider's messages.
type channelHandler interface {
	learn(secrets []string)
	watchGroup(pgid int)
	forgetGroup(pgid int)
	passThrough()
	// exiting: the provider's last exit listener ran; only its teardown is left.
	exiting(code int)
}

// serveChannel reads messages until EOF; secrets and pass-through are answered ("\n") once acted on,
// so nothing the provider writes after its Configure can reach a filter before the secret does.
func serveChannel(conn io.ReadWriter, h channelHandler) {
	lines := bufio.NewReader(conn)
	for {
		line, err := lines.ReadBytes('\n')
		if err != nil {
			return
		}
		var m channelMessage
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch {
		case m.Secrets != nil:
			var secrets []string
			for _, s := range *m.Secrets {
				if text, ok := s.(string); ok {
					secrets = append(secrets, text)
				}
			}
			h.learn(secrets)
			_, _ = conn.Write([]byte("\n"))
		case m.WatchGroup != nil:
			h.watchGroup(*m.WatchGroup)
		case m.ForgetGroup != nil:
			h.forgetGroup(*m.ForgetGroup)
		case m.PassThrough != nil && *m.PassThrough:
			h.passThrough()
			_, _ = conn.Write([]byte("\n"))
		case m.Exiting != nil:
			h.exiting(*m.Exiting)
		}
	}
}
