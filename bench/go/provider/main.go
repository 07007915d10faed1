// Command provider is the bench's Go contender: the provider of bench/fixtures/kernel-bench-provider.ts
// (a unary `echo` data source and the exec example's streaming `bash`) written as a Go author would
// write it on go-plugin v1.8.0, with bindings generated from proto/ by protoc-gen-go (bench/go/gen).
// Its GetSchema and Invoke events carry the same tools and the same events as the TypeScript one.
package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"

	schemav1 "harness-tool.bench/go/gen/pluggableharness/schema/v1"
	toolv1 "harness-tool.bench/go/gen/pluggableharness/tool/v1"
)

// The kernel's handshake config (docs/transport.md#the-kernels-handshake).
var handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "PLUGGABLEHARNESS_AGENT_PLUGIN",
	MagicCookieValue: "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake",
}

// chunkSize is the most output one output_chunk carries, as harness-tool's 64 KiB limit.
const chunkSize = 64 << 10

func object(description string, required []string, properties map[string]*schemav1.Schema) *schemav1.Schema {
	return &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_OBJECT, Description: description, Properties: properties, Required: required}
}

func scalar(t schemav1.SchemaType, description string) *schemav1.Schema {
	return &schemav1.Schema{Type: t, Description: description}
}

var schema = &toolv1.GetSchemaResponse{Tools: []*toolv1.ToolSchema{
	{
		Name:           "echo",
		Kind:           toolv1.ToolKind_TOOL_KIND_DATA_SOURCE,
		Risk:           toolv1.RiskClass_RISK_CLASS_READ_ONLY,
		Description:    "Returns its input.",
		InputSchema:    object("", []string{"text"}, map[string]*schemav1.Schema{"text": scalar(schemav1.SchemaType_SCHEMA_TYPE_STRING, "Echoed back.")}),
		OutputSchema:   object("", []string{"text"}, map[string]*schemav1.Schema{"text": scalar(schemav1.SchemaType_SCHEMA_TYPE_STRING, "Echoed back.")}),
		Concurrency:    &toolv1.ConcurrencySpec{Safe: true},
		DefaultTimeout: durationpb.New(10e9),
		Idempotent:     true,
	},
	{
		Name:        "bash",
		Kind:        toolv1.ToolKind_TOOL_KIND_RESOURCE,
		Risk:        toolv1.RiskClass_RISK_CLASS_HIGH,
		Description: "Runs a shell command with /bin/sh -c, streaming its output.",
		InputSchema: object("", []string{"command"}, map[string]*schemav1.Schema{
			"command":           scalar(schemav1.SchemaType_SCHEMA_TYPE_STRING, "The command line."),
			"working_directory": scalar(schemav1.SchemaType_SCHEMA_TYPE_STRING, "Where to run it; default: the call's working directory."),
		}),
		OutputSchema:   object("", []string{"exit_code"}, map[string]*schemav1.Schema{"exit_code": scalar(schemav1.SchemaType_SCHEMA_TYPE_NUMBER, "The exit code.")}),
		Streaming:      true,
		Concurrency:    &toolv1.ConcurrencySpec{},
		DefaultTimeout: durationpb.New(120e9),
	},
}}

type server struct {
	toolv1.UnimplementedToolServiceServer
}

func (server) GetSchema(context.Context, *toolv1.GetSchemaRequest) (*toolv1.GetSchemaResponse, error) {
	return schema, nil
}

func (server) Configure(context.Context, *toolv1.ConfigureRequest) (*toolv1.ConfigureResponse, error) {
	return &toolv1.ConfigureResponse{}, nil
}

func toolError(stream toolv1.ToolService_InvokeServer, category toolv1.ToolErrorCategory, message string) error {
	return stream.Send(&toolv1.InvokeResponse{Event: &toolv1.ToolEvent{Event: &toolv1.ToolEvent_Error{Error: &toolv1.ToolError{Category: category, Message: message}}}})
}

func result(stream toolv1.ToolService_InvokeServer, payload map[string]any) error {
	s, err := structpb.NewStruct(payload)
	if err != nil {
		return err
	}
	return stream.Send(&toolv1.InvokeResponse{Event: &toolv1.ToolEvent{Event: &toolv1.ToolEvent_Result{Result: &toolv1.ToolResult{Payload: s}}}})
}

func (server) Invoke(request *toolv1.InvokeRequest, stream toolv1.ToolService_InvokeServer) error {
	call := request.GetCall()
	args := call.GetArguments().GetFields()
	switch call.GetToolName() {
	case "echo":
		text, ok := args["text"].GetKind().(*structpb.Value_StringValue)
		if !ok {
			return toolError(stream, toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_INVALID_ARGUMENTS, "text: a string is required")
		}
		return result(stream, map[string]any{"text": text.StringValue})
	case "bash":
		command, ok := args["command"].GetKind().(*structpb.Value_StringValue)
		if !ok {
			return toolError(stream, toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_INVALID_ARGUMENTS, "command: a string is required")
		}
		dir := call.GetCallContext().GetWorkingDirectory()
		if wd, ok := args["working_directory"].GetKind().(*structpb.Value_StringValue); ok {
			dir = wd.StringValue
		}
		return bash(stream, command.StringValue, dir)
	}
	return toolError(stream, toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_NOT_FOUND, "no tool "+call.GetToolName())
}

// bash runs the command, streams stdout and stderr as output chunks in arrival order, then the
// exit status and the result; a cancelled call kills the command's process group.
func bash(stream toolv1.ToolService_InvokeServer, command, dir string) error {
	cmd := exec.CommandContext(stream.Context(), "/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return toolError(stream, toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_UNSPECIFIED, err.Error())
	}
	var send sync.Mutex
	var sendErr error
	var wg sync.WaitGroup
	forward := func(r io.Reader, which toolv1.OutputStream) {
		defer wg.Done()
		buf := make([]byte, chunkSize)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				send.Lock()
				if sendErr == nil {
					chunk := &toolv1.ToolEvent_OutputChunk{Stream: which, Data: buf[:n]}
					sendErr = stream.Send(&toolv1.InvokeResponse{Event: &toolv1.ToolEvent{Event: &toolv1.ToolEvent_OutputChunk_{OutputChunk: chunk}}})
				}
				send.Unlock()
			}
			if err != nil {
				return
			}
		}
	}
	wg.Add(2)
	go forward(stdout, toolv1.OutputStream_OUTPUT_STREAM_STDOUT)
	go forward(stderr, toolv1.OutputStream_OUTPUT_STREAM_STDERR)
	wg.Wait()
	waitErr := cmd.Wait()
	if sendErr != nil {
		return sendErr
	}
	exit := &toolv1.ToolEvent_ExitStatus{ExitCode: int32(cmd.ProcessState.ExitCode())}
	var exitErr *exec.ExitError
	if errors.As(waitErr, &exitErr) {
		if status, ok := exitErr.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			signal := status.Signal().String()
			exit.Signal = &signal
		}
	}
	if err := stream.Send(&toolv1.InvokeResponse{Event: &toolv1.ToolEvent{Event: &toolv1.ToolEvent_ExitStatus_{ExitStatus: exit}}}); err != nil {
		return err
	}
	return result(stream, map[string]any{"exit_code": float64(exit.ExitCode)})
}

// toolPlugin registers ToolService on go-plugin's gRPC server.
type toolPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (toolPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	toolv1.RegisterToolServiceServer(s, server{})
	return nil
}

func (toolPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("a provider is never a client")
}

func main() {
	// go-plugin writes the handshake line; nothing else may reach stdout.
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: handshake,
		Plugins:         map[string]plugin.Plugin{"tool": toolPlugin{}},
		GRPCServer:      plugin.DefaultGRPCServer,
	})
	os.Exit(0)
}
