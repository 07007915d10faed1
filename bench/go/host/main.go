// Command host is the bench's kernel side: it launches providers as the PluggableHarness kernel does
// (go-plugin v1.8.0 client, the kernel's handshake config, gRPC only, plugin-map key "tool") and
// times what the kernel observes: spawn → GetSchema reply, Invoke round trips at a given
// concurrency, a streaming Invoke's throughput, Kill() → exit. Several providers can be live at
// once (keyed by id), so the bench interleaves its contenders within one run.
//
// Driven over stdin/stdout with JSON lines, one command in, one result out; requests cross as
// base64 protobuf bytes (encoded by the TypeScript bench) and pass through a raw-bytes codec.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"
)

// The kernel's handshake config (docs/transport.md#the-kernels-handshake).
var handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "PLUGGABLEHARNESS_AGENT_PLUGIN",
	MagicCookieValue: "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake",
}

const (
	invokeMethod    = "/pluggableharness.tool.v1.ToolService/Invoke"
	getSchemaMethod = "/pluggableharness.tool.v1.ToolService/GetSchema"
	configureMethod = "/pluggableharness.tool.v1.ToolService/Configure"
)

// rawCodec passes message bytes through untouched.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("rawCodec cannot marshal %T", v)
	}
	return *b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("rawCodec cannot unmarshal into %T", v)
	}
	*b = data
	return nil
}

func (rawCodec) Name() string { return "proto" }

// toolPlugin hands out the raw connection, as the kernel's plugin-map entry "tool" does.
type toolPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (toolPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("the host does not serve plugins")
}

func (toolPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return conn, nil
}

type result = map[string]any

type command struct {
	Op          string            `json:"op"`
	ID          string            `json:"id"`
	Command     string            `json:"command"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	Dir         string            `json:"dir"`
	NoDeadline  bool              `json:"noDeadline"`
	Request     string            `json:"request"`
	Calls       int               `json:"calls"`
	Concurrency int               `json:"concurrency"`
}

type provider struct {
	client *plugin.Client
	conn   *grpc.ClientConn
	// noDeadline: this provider's Invokes carry no deadline (launch's noDeadline), to price the
	// deadline against the same provider with it, in the same run.
	noDeadline bool
}

type host struct {
	providers map[string]*provider
}

func (h *host) run(c command) (result, error) {
	switch c.Op {
	case "launch":
		return h.launch(c)
	case "pipe":
		return pipe(c)
	}
	p, ok := h.providers[c.ID]
	if !ok {
		return nil, fmt.Errorf("no provider %q", c.ID)
	}
	switch c.Op {
	case "configure":
		return p.unary(configureMethod, []byte{})
	case "getSchema":
		return p.unary(getSchemaMethod, []byte{})
	case "load":
		return p.load(c)
	case "stream":
		return p.stream(c)
	case "kill":
		start := time.Now()
		p.client.Kill()
		delete(h.providers, c.ID)
		return result{"ms": ms(time.Since(start)), "exited": p.client.Exited()}, nil
	}
	return nil, fmt.Errorf("unknown op %q", c.Op)
}

// launch starts a provider and calls GetSchema, as the kernel's registry does at start-up.
func (h *host) launch(c command) (result, error) {
	if _, taken := h.providers[c.ID]; taken {
		return nil, fmt.Errorf("provider %q is already running", c.ID)
	}
	cmd := exec.Command(c.Command, c.Args...)
	cmd.Dir = c.Dir
	for name, value := range c.Env {
		cmd.Env = append(cmd.Env, name+"="+value)
	}
	start := time.Now()
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  handshake,
		Plugins:          map[string]plugin.Plugin{"tool": toolPlugin{}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     30 * time.Second,
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "host", Level: hclog.Error, Output: os.Stderr}),
	})
	proto, err := client.Client()
	if err != nil {
		client.Kill()
		return nil, err
	}
	handshakeMs := ms(time.Since(start))
	raw, err := proto.Dispense("tool")
	if err != nil {
		client.Kill()
		return nil, err
	}
	p := &provider{client: client, conn: raw.(*grpc.ClientConn), noDeadline: c.NoDeadline}
	var schema []byte
	request := []byte{}
	if err := p.conn.Invoke(context.Background(), getSchemaMethod, &request, &schema, grpc.ForceCodec(rawCodec{})); err != nil {
		client.Kill()
		return nil, err
	}
	schemaMs := ms(time.Since(start))
	h.providers[c.ID] = p
	return result{"pid": client.ReattachConfig().Pid, "handshakeMs": handshakeMs, "schemaMs": schemaMs, "schemaBytes": len(schema)}, nil
}

func (p *provider) unary(method string, request []byte) (result, error) {
	var response []byte
	start := time.Now()
	if err := p.conn.Invoke(context.Background(), method, &request, &response, grpc.ForceCodec(rawCodec{})); err != nil {
		return nil, err
	}
	return result{"ms": ms(time.Since(start)), "response": base64.StdEncoding.EncodeToString(response)}, nil
}

// outcome is what one Invoke stream delivered.
type outcome struct {
	terminal   int // ToolEvent field number of the last event: 5 result, 6 error
	chunkBytes int
	events     int
}

// invokeDeadline is each Invoke's deadline, a kernel's global default's order of size (grpc-go
// sends it as what is left in µs, e.g. 29999870u), long enough for the 200 MB stream when loaded.
const invokeDeadline = 30 * time.Second

// invoke runs one Invoke to the end of its stream; with a hash, output chunk data goes into it.
func (p *provider) invoke(request []byte, digest io.Writer) (outcome, error) {
	var o outcome
	desc := &grpc.StreamDesc{StreamName: "Invoke", ServerStreams: true}
	// As the kernel does: every Invoke carries a deadline (the tool's default_timeout, else the
	// kernel's global default), which reaches the provider as grpc-timeout.
	ctx, cancel := context.WithTimeout(context.Background(), invokeDeadline)
	if p.noDeadline {
		ctx, cancel = context.WithCancel(context.Background())
	}
	defer cancel()
	stream, err := p.conn.NewStream(ctx, desc, invokeMethod, grpc.ForceCodec(rawCodec{}))
	if err != nil {
		return o, err
	}
	if err := stream.SendMsg(&request); err != nil {
		return o, err
	}
	if err := stream.CloseSend(); err != nil {
		return o, err
	}
	for {
		var response []byte
		err := stream.RecvMsg(&response)
		if err == io.EOF {
			return o, nil
		}
		if err != nil {
			return o, err
		}
		o.events++
		event, _ := field(response, 1)
		number, value := firstField(event)
		o.terminal = int(number)
		if number == 1 { // output_chunk: OutputChunk{stream = 1, data = 2}
			data, _ := field(value, 2)
			o.chunkBytes += len(data)
			if digest != nil {
				_, _ = digest.Write(data)
			}
		}
	}
}

// load runs Calls invokes with at most Concurrency in flight and reports each one's latency.
func (p *provider) load(c command) (result, error) {
	request, err := base64.StdEncoding.DecodeString(c.Request)
	if err != nil {
		return nil, err
	}
	latencies := make([]float64, 0, c.Calls)
	var mu sync.Mutex
	failures := 0
	firstFailure := ""
	next := make(chan struct{}, c.Calls)
	for i := 0; i < c.Calls; i++ {
		next <- struct{}{}
	}
	close(next)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < max(1, min(c.Concurrency, c.Calls)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				t0 := time.Now()
				o, err := p.invoke(request, nil)
				elapsed := time.Since(t0)
				mu.Lock()
				if err == nil && o.terminal != 5 {
					err = fmt.Errorf("the stream ended with event field %d, not a result", o.terminal)
				}
				if err != nil {
					failures++
					if firstFailure == "" {
						firstFailure = err.Error()
					}
				} else {
					latencies = append(latencies, float64(elapsed.Microseconds())/1000)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	sort.Float64s(latencies)
	return result{"latenciesMs": latencies, "wallMs": ms(wall), "failures": failures, "firstFailure": firstFailure}, nil
}

// stream runs one Invoke whose output chunks are hashed, not kept, and times it.
func (p *provider) stream(c command) (result, error) {
	request, err := base64.StdEncoding.DecodeString(c.Request)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	start := time.Now()
	o, err := p.invoke(request, h)
	if err != nil {
		return nil, err
	}
	return result{"ms": ms(time.Since(start)), "bytes": o.chunkBytes, "events": o.events, "terminal": o.terminal, "sha256": fmt.Sprintf("%x", h.Sum(nil))}, nil
}

// pipe runs a command with no provider between and reads its stdout as stream reads output
// chunks (hashing it): the bare pipe under the streams figures.
func pipe(c command) (result, error) {
	cmd := exec.Command(c.Command, c.Args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h := sha256.New()
	n, err := io.CopyBuffer(h, out, make([]byte, 64<<10))
	if err != nil {
		return nil, err
	}
	if err := cmd.Wait(); err != nil {
		return nil, err
	}
	return result{"ms": ms(time.Since(start)), "bytes": n, "sha256": fmt.Sprintf("%x", h.Sum(nil))}, nil
}

// field returns the bytes of the length-delimited field `number` of a message, if present.
func field(message []byte, number protowire.Number) ([]byte, bool) {
	for len(message) > 0 {
		num, typ, n := protowire.ConsumeTag(message)
		if n < 0 {
			return nil, false
		}
		message = message[n:]
		if num == number && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(message)
			return v, m >= 0
		}
		m := protowire.ConsumeFieldValue(num, typ, message)
		if m < 0 {
			return nil, false
		}
		message = message[m:]
	}
	return nil, false
}

// firstField is the number and bytes of a message's first length-delimited field (a oneof's case).
func firstField(message []byte) (protowire.Number, []byte) {
	num, typ, n := protowire.ConsumeTag(message)
	if n < 0 || typ != protowire.BytesType {
		return 0, nil
	}
	v, m := protowire.ConsumeBytes(message[n:])
	if m < 0 {
		return 0, nil
	}
	return num, v
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func main() {
	h := &host{providers: map[string]*provider{}}
	defer func() {
		for _, p := range h.providers {
			p.client.Kill()
		}
	}()
	out := json.NewEncoder(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	for in.Scan() {
		var c command
		var answer result
		err := json.Unmarshal(in.Bytes(), &c)
		if err == nil {
			answer, err = h.run(c)
		}
		if err != nil {
			answer = result{"error": err.Error()}
		}
		answer["op"] = c.Op
		if encodeErr := out.Encode(answer); encodeErr != nil {
			return
		}
	}
}
