package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/config"
)

// attrCommand is the resource attribute naming the command that made the
// spans: run, worker, serve or mcp.
const attrCommand = attribute.Key("deepresearch.command")

// telemetryFlush bounds the export of the spans still buffered when the
// command ends.
const telemetryFlush = 5 * time.Second

// startTelemetry returns the tracer provider of the settings'
// telemetry.* (nil when telemetry.otlp is off, the default, or
// OTEL_SDK_DISABLED is true) and the function that exports the spans
// still buffered and stops it, which the command calls as it ends. The
// exporter reads the standard OTEL_EXPORTER_OTLP_* variables
// (telemetry.endpoint comes first) and the batch processor OTEL_BSP_*;
// the resource is service.name deepresearch (OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES override it) with the command's name
// (deepresearch.command) and process ID.
func startTelemetry(ctx context.Context, s config.Settings, command string) (trace.TracerProvider, func(), error) {
	nothing := func() {}
	mode := s.Telemetry.OTLP
	if mode == "" || mode == "off" || strings.EqualFold(strings.TrimSpace(s.Getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nothing, nil
	}
	var exp sdktrace.SpanExporter
	var err error
	ep := strings.TrimSpace(s.Telemetry.Endpoint)
	switch mode {
	case "http":
		var opts []otlptracehttp.Option
		switch {
		case strings.Contains(ep, "://"):
			// As OTEL_EXPORTER_OTLP_ENDPOINT: a base URL, to which
			// the traces' path is added.
			opts = append(opts, otlptracehttp.WithEndpointURL(strings.TrimSuffix(ep, "/")+"/v1/traces"))
		case ep != "":
			opts = append(opts, otlptracehttp.WithEndpoint(ep), otlptracehttp.WithInsecure())
		}
		exp, err = otlptracehttp.New(ctx, opts...)
	case "grpc":
		var opts []otlptracegrpc.Option
		switch {
		case strings.Contains(ep, "://"):
			opts = append(opts, otlptracegrpc.WithEndpointURL(ep))
		case ep != "":
			opts = append(opts, otlptracegrpc.WithEndpoint(ep), otlptracegrpc.WithInsecure())
		}
		exp, err = otlptracegrpc.New(ctx, opts...)
	default:
		return nil, nothing, fmt.Errorf("telemetry.otlp %q: want off, http or grpc", mode)
	}
	if err != nil {
		return nil, nothing, fmt.Errorf("telemetry: the OTLP %s exporter (telemetry.endpoint %q): %w", mode, ep, err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("deepresearch"), semconv.ProcessPID(os.Getpid())),
		resource.WithFromEnv(),
		resource.WithAttributes(attrCommand.String(command)))
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, nothing, fmt.Errorf("telemetry: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tp, func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryFlush)
		defer cancel()
		tp.Shutdown(ctx) //nolint:errcheck // spans the collector did not take are lost, as with any exporter
	}, nil
}
