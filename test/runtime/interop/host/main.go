// Command host is a real go-plugin host for the interop tests: it launches a tool provider the
// way the PluggableHarness kernel does (go-plugin v1.8.0 client, the kernel's handshake config,
// gRPC only, no AutoMTLS, no broker multiplexing, plugin-map key "tool"), serves a recording
// KernelCallbackService on broker ID 1 and calls ToolService with a raw-bytes codec, so it needs
// no generated Go code. On request it launches with AutoMTLS instead, as other go-plugin hosts do.
//
// It is driven over stdin/stdout with JSON lines: one command in, one result out. Messages
// cross as base64 protobuf bytes; the TypeScript test encodes and decodes them with protobuf-es.
//
// A Go module: go.mod pins the kernel's go-plugin and grpc versions, go.sum is committed.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/big"
	"os"
	"os/exec"
	"sync"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// The kernel's handshake config (docs/transport.md#the-kernels-handshake).
var handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "PLUGGABLEHARNESS_AGENT_PLUGIN",
	MagicCookieValue: "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake",
}

// kernelCallbackBrokerID is the fixed broker ID of KernelCallbackService.
const kernelCallbackBrokerID = 1

// rawCodec passes message bytes through untouched, on both the client and the broker server.
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
	*b = append([]byte(nil), data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

// recordedCall is one KernelCallbackService call the provider made.
type recordedCall struct {
	Method  string `json:"method"`
	Request string `json:"request"`
}

// kernel records the callbacks and answers them with canned bytes per method.
type kernel struct {
	mu      sync.Mutex
	calls   []recordedCall
	replies map[string][]byte
}

func (k *kernel) handle(_ any, stream grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(stream)
	var request []byte
	if err := stream.RecvMsg(&request); err != nil {
		return err
	}
	k.mu.Lock()
	k.calls = append(k.calls, recordedCall{Method: method, Request: base64.StdEncoding.EncodeToString(request)})
	reply := k.replies[method]
	k.mu.Unlock()
	if reply == nil {
		reply = []byte{}
	}
	return stream.SendMsg(&reply)
}

// toolPlugin is the "tool" entry of the plugin map: a gRPC-only plugin whose client is the raw
// connection, and which serves the kernel's callbacks on broker ID 1 as the kernel does.
type toolPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	kernel *kernel
}

func (p *toolPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("the host does not serve plugins")
}

func (p *toolPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	// As the kernel: serve the callbacks on the fixed broker ID as soon as the plugin is dispensed.
	// go-plugin adds the TLS credentials to opts when AutoMTLS is on.
	go broker.AcceptAndServe(kernelCallbackBrokerID, func(opts []grpc.ServerOption) *grpc.Server {
		opts = append(opts, grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(p.kernel.handle))
		return grpc.NewServer(opts...)
	})
	return conn, nil
}

// lockedBuffer collects the host's own log lines (hclog JSON), including every provider stderr
// line as go-plugin logged it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// result is one JSON result line.
type result = map[string]any

type command struct {
	Op          string            `json:"op"`
	Command     string            `json:"command"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	Dir         string            `json:"dir"`
	Replies     map[string]string `json:"replies"`
	Method      string            `json:"method"`
	Request     string            `json:"request"`
	CancelAfter int               `json:"cancelAfter"`
	DeadlineMs  int               `json:"deadlineMs"`
	Background  bool              `json:"background"`
	Count       int               `json:"count"`
	// AutoMTLS launches as go-plugin hosts other than the kernel may: a client certificate in
	// PLUGIN_CLIENT_CERT, the server's in the handshake line, TLS on every connection.
	AutoMTLS bool `json:"autoMTLS"`
	// Credentials of a probe: "plaintext", "tls-without-client-cert" or "tls-foreign-client-cert".
	Credentials string `json:"credentials"`
	// RecvDelayMs makes an Invoke read like a slow kernel: a pause after every Recv.
	RecvDelayMs int `json:"recvDelayMs"`
	// Digest reports an Invoke's output chunks as byte counts and SHA-256 per stream instead of
	// returning them, for streams of gigabytes.
	Digest bool `json:"digest"`
	// Batch is how many Invokes a cancel burst runs at once (Count in all).
	Batch int `json:"batch"`
	// Messages (base64) a second broker stream sends before closing its side.
	Messages []string `json:"messages"`
}

// background is an Invoke left running while other commands (Kill) go on.
type background struct {
	mu     sync.Mutex
	events []string
	done   bool
}

type host struct {
	kernel *kernel
	client *plugin.Client
	conn   *grpc.ClientConn
	proto  plugin.ClientProtocol
	logs   *lockedBuffer
	// What arrived over plugin.GRPCStdio/StreamStdio (go-plugin's SyncStdout/SyncStderr).
	stdout, stderr *lockedBuffer
	bg             *background
}

func (h *host) run(c command) (result, error) {
	switch c.Op {
	case "launch":
		return h.launch(c)
	case "ping":
		start := time.Now()
		if err := h.proto.Ping(); err != nil {
			return nil, err
		}
		return result{"ms": ms(time.Since(start))}, nil
	case "unary":
		return h.unary(c)
	case "invoke":
		if c.Background {
			return h.invokeInBackground(c)
		}
		return h.invoke(c)
	case "events":
		return h.backgroundEvents(c.Count)
	case "callbacks":
		h.kernel.mu.Lock()
		defer h.kernel.mu.Unlock()
		return result{"calls": append([]recordedCall{}, h.kernel.calls...)}, nil
	case "logs":
		if h.logs == nil {
			return nil, errors.New("nothing launched yet")
		}
		return result{"logs": h.logs.String(), "stdioStdout": h.stdout.String(), "stdioStderr": h.stderr.String()}, nil
	case "probe":
		return h.probe(c)
	case "pipe":
		return pipe(c)
	case "cancelBurst":
		return h.cancelBurst(c)
	case "secondBrokerStream":
		return h.secondBrokerStream(c)
	case "kill":
		start := time.Now()
		h.client.Kill()
		return result{"ms": ms(time.Since(start)), "exited": h.client.Exited()}, nil
	}
	return nil, fmt.Errorf("unknown op %q", c.Op)
}

func (h *host) launch(c command) (result, error) {
	h.kernel = &kernel{replies: map[string][]byte{}}
	for method, b64 := range c.Replies {
		reply, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, err
		}
		h.kernel.replies[method] = reply
	}
	h.logs, h.stdout, h.stderr = &lockedBuffer{}, &lockedBuffer{}, &lockedBuffer{}
	cmd := exec.Command(c.Command, c.Args...)
	cmd.Dir = c.Dir
	// Operator extras; go-plugin v1.8.0 then appends this process's own environment (SkipHostEnv
	// is unset, as in the kernel; the test starts the host with the kernel's minimal one) and its
	// own variables.
	for name, value := range c.Env {
		cmd.Env = append(cmd.Env, name+"="+value)
	}
	start := time.Now()
	h.client = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  handshake,
		Plugins:          map[string]plugin.Plugin{"tool": &toolPlugin{kernel: h.kernel}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         c.AutoMTLS,
		StartTimeout:     30 * time.Second,
		SyncStdout:       h.stdout,
		SyncStderr:       h.stderr,
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "host", Level: hclog.Trace, Output: h.logs, JSONFormat: true}),
	})
	proto, err := h.client.Client()
	if err != nil {
		return nil, err
	}
	handshakeMs := ms(time.Since(start))
	raw, err := proto.Dispense("tool")
	if err != nil {
		return nil, err
	}
	h.proto = proto
	h.conn = raw.(*grpc.ClientConn)
	reattach := h.client.ReattachConfig()
	return result{
		"pid":         reattach.Pid,
		"network":     reattach.Addr.Network(),
		"address":     reattach.Addr.String(),
		"protocol":    string(h.client.Protocol()),
		"version":     h.client.NegotiatedVersion(),
		"handshakeMs": handshakeMs,
		"autoMTLS":    c.AutoMTLS,
	}, nil
}

// probe dials the provider's address as an intruder would, with the credentials named, and
// reports how a health check went: an AutoMTLS provider must refuse all three.
func (h *host) probe(c command) (result, error) {
	reattach := h.client.ReattachConfig()
	var creds credentials.TransportCredentials
	switch c.Credentials {
	case "plaintext":
		creds = insecure.NewCredentials()
	case "tls-without-client-cert":
		// Trusts any server: only the provider's demand for a client certificate can refuse it.
		creds = credentials.NewTLS(&tls.Config{InsecureSkipVerify: true, ServerName: "localhost", MinVersion: tls.VersionTLS12})
	case "tls-foreign-client-cert":
		cert, err := selfSignedCertificate()
		if err != nil {
			return nil, err
		}
		creds = credentials.NewTLS(&tls.Config{InsecureSkipVerify: true, ServerName: "localhost", MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}})
	default:
		return nil, fmt.Errorf("unknown probe credentials %q", c.Credentials)
	}
	target := reattach.Addr.String()
	if reattach.Addr.Network() == "unix" {
		target = "unix://" + target
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "plugin"})
	if err != nil {
		return result{"refused": true, "message": err.Error()}, nil
	}
	return result{"refused": false}, nil
}

// selfSignedCertificate is a client certificate the provider has never seen.
func selfSignedCertificate() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "localhost"},
		DNSNames:              []string{"localhost"},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, key.Public(), key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

func (h *host) unary(c command) (result, error) {
	request, err := base64.StdEncoding.DecodeString(c.Request)
	if err != nil {
		return nil, err
	}
	var response []byte
	start := time.Now()
	err = h.conn.Invoke(context.Background(), c.Method, &request, &response, grpc.ForceCodec(rawCodec{}))
	elapsed := ms(time.Since(start))
	if err != nil {
		return statusResult(err, elapsed)
	}
	return result{"response": base64.StdEncoding.EncodeToString(response), "code": 0, "ms": elapsed}, nil
}

// statusResult reports a failed call as grpc-go decoded it, the google.rpc.Status included, so
// the test sees what the kernel would see through status.FromError.
func statusResult(err error, elapsed float64) (result, error) {
	s, ok := status.FromError(err)
	if !ok {
		return nil, err
	}
	encoded, merr := proto.Marshal(s.Proto())
	if merr != nil {
		return nil, merr
	}
	return result{
		"code":    int(s.Code()),
		"message": s.Message(),
		"status":  base64.StdEncoding.EncodeToString(encoded),
		"details": len(s.Details()),
		"ms":      elapsed,
	}, nil
}

func (h *host) invoke(c command) (result, error) {
	request, err := base64.StdEncoding.DecodeString(c.Request)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	if c.DeadlineMs > 0 {
		// A kernel-enforced deadline: grpc-go sends grpc-timeout and cancels when it passes.
		ctx, cancel = context.WithTimeout(context.Background(), time.Duration(c.DeadlineMs)*time.Millisecond)
	}
	defer cancel()
	desc := &grpc.StreamDesc{StreamName: "Invoke", ServerStreams: true}
	stream, err := h.conn.NewStream(ctx, desc, "/pluggableharness.tool.v1.ToolService/Invoke", grpc.ForceCodec(rawCodec{}))
	if err != nil {
		return nil, err
	}
	if err := stream.SendMsg(&request); err != nil {
		return nil, err
	}
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	events := []string{}
	digest := newOutputDigest()
	received := 0
	start := time.Now()
	finish := func(r result) result {
		r["events"] = events
		r["ms"] = ms(time.Since(start))
		if c.Digest {
			r["digest"] = digest.report()
		}
		return r
	}
	for {
		var event []byte
		err := stream.RecvMsg(&event)
		if err == io.EOF {
			return finish(result{"code": 0}), nil
		}
		if err != nil {
			r, serr := statusResult(err, 0)
			if serr != nil {
				return nil, serr
			}
			return finish(r), nil
		}
		received++
		if !c.Digest || !digest.add(event) {
			events = append(events, base64.StdEncoding.EncodeToString(event))
		}
		if c.CancelAfter > 0 && received >= c.CancelAfter {
			// As the kernel abandons a call: cancel the stream's context.
			cancel()
			return finish(result{"cancelled": true}), nil
		}
		if c.RecvDelayMs > 0 {
			time.Sleep(time.Duration(c.RecvDelayMs) * time.Millisecond)
		}
	}
}

// outputDigest sums up the output chunks of one Invoke: bytes and SHA-256 per stream, in order.
type outputDigest struct {
	bytes        map[uint64]int
	hashes       map[uint64]hash.Hash
	chunks       int
	largestChunk int
}

func newOutputDigest() *outputDigest {
	return &outputDigest{bytes: map[uint64]int{}, hashes: map[uint64]hash.Hash{1: sha256.New(), 2: sha256.New()}}
}

// add counts an InvokeResponse that carries an output chunk (ToolEvent.output_chunk = 1:
// OutputChunk{stream = 1, data = 2}) and reports whether it was one.
func (d *outputDigest) add(response []byte) bool {
	event, ok := field(response, 1)
	if !ok {
		return false
	}
	chunk, ok := field(event, 1)
	if !ok {
		return false
	}
	stream, data := uint64(0), []byte{}
	for len(chunk) > 0 {
		num, typ, n := protowire.ConsumeTag(chunk)
		if n < 0 {
			return false
		}
		chunk = chunk[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, m := protowire.ConsumeVarint(chunk)
			if m < 0 {
				return false
			}
			stream, chunk = v, chunk[m:]
		case num == 2 && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(chunk)
			if m < 0 {
				return false
			}
			data, chunk = v, chunk[m:]
		default:
			m := protowire.ConsumeFieldValue(num, typ, chunk)
			if m < 0 {
				return false
			}
			chunk = chunk[m:]
		}
	}
	h, ok := d.hashes[stream]
	if !ok {
		return false
	}
	h.Write(data)
	d.bytes[stream] += len(data)
	d.chunks++
	d.largestChunk = max(d.largestChunk, len(data))
	return true
}

func (d *outputDigest) report() result {
	stream := func(id uint64) result {
		return result{"bytes": d.bytes[id], "sha256": hex.EncodeToString(d.hashes[id].Sum(nil))}
	}
	return result{"stdout": stream(1), "stderr": stream(2), "chunks": d.chunks, "largestChunk": d.largestChunk}
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

// cancelBurst cancels Count Invokes (Request), Batch at a time, each once its first event arrived,
// as a kernel abandoning many calls at once; it stops at the first batch in which a call ended
// otherwise than cancelled (the session is gone). Then it reports what the host saw: the status
// codes, a Ping, and whether go-plugin noticed the plugin exit.
func (h *host) cancelBurst(c command) (result, error) {
	request, err := base64.StdEncoding.DecodeString(c.Request)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	var mu sync.Mutex
	count := func(code codes.Code) {
		mu.Lock()
		seen[code.String()]++
		mu.Unlock()
	}
	desc := &grpc.StreamDesc{StreamName: "Invoke", ServerStreams: true}
	sent := 0
	for sent < c.Count && seen[codes.Canceled.String()] == sent {
		var wg, started sync.WaitGroup
		// The batch is cancelled together, once every call of it has its first event.
		cancelAll := make(chan struct{})
		started.Add(c.Batch)
		go func() {
			started.Wait()
			close(cancelAll)
		}()
		for i := 0; i < c.Batch; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				once := sync.OnceFunc(started.Done)
				defer once()
				stream, err := h.conn.NewStream(ctx, desc, "/pluggableharness.tool.v1.ToolService/Invoke", grpc.ForceCodec(rawCodec{}))
				if err == nil {
					err = stream.SendMsg(&request)
				}
				if err == nil {
					err = stream.CloseSend()
				}
				var event []byte
				if err == nil {
					err = stream.RecvMsg(&event)
				}
				if err != nil {
					count(status.Code(err))
					return
				}
				once()
				<-cancelAll
				cancel()
				count(codes.Canceled)
			}()
		}
		wg.Wait()
		sent += c.Batch
	}
	pingErr := h.proto.Ping()
	// A provider whose session ended exits within its shutdown grace (about 1.3 s).
	exited := false
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if h.client.Exited() {
			exited = true
			break
		}
	}
	r := result{"codes": seen, "sent": sent, "exited": exited}
	if pingErr != nil {
		r["pingError"] = pingErr.Error()
		r["pingCode"] = status.Code(pingErr).String()
	}
	return r, nil
}

// pipe runs a command with no provider between and reads its stdout as the host reads a
// stream: the bare pipe baseline of the throughput figures.
func pipe(c command) (result, error) {
	cmd := exec.Command(c.Command, c.Args...)
	cmd.Dir = c.Dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h := sha256.New()
	buf := make([]byte, 64<<10)
	total := 0
	for {
		n, rerr := out.Read(buf)
		h.Write(buf[:n])
		total += n
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, rerr
		}
	}
	if err := cmd.Wait(); err != nil {
		return nil, err
	}
	return result{"bytes": total, "sha256": hex.EncodeToString(h.Sum(nil)), "ms": ms(time.Since(start))}, nil
}

// invokeInBackground starts an Invoke whose events are collected until the stream ends.
func (h *host) invokeInBackground(c command) (result, error) {
	request, err := base64.StdEncoding.DecodeString(c.Request)
	if err != nil {
		return nil, err
	}
	desc := &grpc.StreamDesc{StreamName: "Invoke", ServerStreams: true}
	stream, err := h.conn.NewStream(context.Background(), desc, "/pluggableharness.tool.v1.ToolService/Invoke", grpc.ForceCodec(rawCodec{}))
	if err != nil {
		return nil, err
	}
	if err := stream.SendMsg(&request); err != nil {
		return nil, err
	}
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	bg := &background{}
	h.bg = bg
	go func() {
		for {
			var event []byte
			if err := stream.RecvMsg(&event); err != nil {
				bg.mu.Lock()
				bg.done = true
				bg.mu.Unlock()
				return
			}
			bg.mu.Lock()
			bg.events = append(bg.events, base64.StdEncoding.EncodeToString(event))
			bg.mu.Unlock()
		}
	}()
	return result{"started": true}, nil
}

// backgroundEvents waits (up to 10 s) until the background Invoke has count events or ended.
func (h *host) backgroundEvents(count int) (result, error) {
	if h.bg == nil {
		return nil, errors.New("no background invoke")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.bg.mu.Lock()
		events := append([]string{}, h.bg.events...)
		done := h.bg.done
		h.bg.mu.Unlock()
		if len(events) >= count || done || time.Now().After(deadline) {
			return result{"events": events, "done": done}, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func main() {
	h := &host{}
	defer func() {
		if h.client != nil {
			h.client.Kill()
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
	// stdin closed: the test is done (or gone); Kill the provider like the kernel would.
}

// secondBrokerStream opens another plugin.GRPCBroker/StartStream on go-plugin's own connection
// (go-plugin opens one per process), sends Messages, closes its side and reports the status the
// provider ended the stream with.
func (h *host) secondBrokerStream(c command) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	desc := &grpc.StreamDesc{StreamName: "StartStream", ServerStreams: true, ClientStreams: true}
	stream, err := h.conn.NewStream(ctx, desc, "/plugin.GRPCBroker/StartStream", grpc.ForceCodec(rawCodec{}))
	if err != nil {
		return nil, err
	}
	for _, b64 := range c.Messages {
		message, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, err
		}
		if err := stream.SendMsg(&message); err != nil {
			break // the provider already ended the stream; RecvMsg reports how
		}
	}
	_ = stream.CloseSend()
	var reply []byte
	for err == nil {
		err = stream.RecvMsg(&reply)
	}
	if errors.Is(err, io.EOF) {
		return result{"code": codes.OK.String()}, nil
	}
	st := status.Convert(err)
	return result{"code": st.Code().String(), "message": st.Message()}, nil
}
