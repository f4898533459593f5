package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
)

// attrCommand is the resource attribute naming the command that made the
// spans: run, worker, serve or mcp.
const attrCommand = attribute.Key("deepresearch.command")

// telemetryFlush bounds the export of the spans still buffered when the
// command ends.
const telemetryFlush = 5 * time.Second

// telemetryProviders are the OpenTelemetry providers of a command's
// Researcher: nil ones when telemetry is off.
type telemetryProviders struct {
	tracer trace.TracerProvider
	meter  metric.MeterProvider
}

// apply gives cfg the providers.
func (p telemetryProviders) apply(cfg *deepresearch.Config) {
	cfg.Telemetry.TracerProvider, cfg.Telemetry.MeterProvider = p.tracer, p.meter
}

// startTelemetry returns the tracer and meter providers of the settings'
// telemetry.* (none when telemetry.otlp is off, the default, or
// OTEL_SDK_DISABLED is true; no meter provider when
// OTEL_METRICS_EXPORTER is none) and the function that exports the spans
// and metrics still buffered and stops them, which the command calls as
// it ends. The exporters read the standard OTEL_EXPORTER_OTLP_*
// variables (telemetry.endpoint comes first), the batch processor
// OTEL_BSP_* and the periodic reader OTEL_METRIC_EXPORT_INTERVAL and
// _TIMEOUT (milliseconds); the resource is service.name deepresearch
// (OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override it) with the
// command's name (deepresearch.command) and process ID.
func startTelemetry(ctx context.Context, s config.Settings, command string) (telemetryProviders, func(), error) {
	nothing := func() {}
	mode := s.Telemetry.OTLP
	if mode == "" || mode == "off" || strings.EqualFold(strings.TrimSpace(s.Getenv("OTEL_SDK_DISABLED")), "true") {
		return telemetryProviders{}, nothing, nil
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
		return telemetryProviders{}, nothing, fmt.Errorf("telemetry.otlp %q: want off, http or grpc", mode)
	}
	if err != nil {
		return telemetryProviders{}, nothing, fmt.Errorf("telemetry: the OTLP %s exporter (telemetry.endpoint %q): %w", mode, ep, err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("deepresearch"), semconv.ProcessPID(os.Getpid())),
		resource.WithFromEnv(),
		resource.WithAttributes(attrCommand.String(command)))
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return telemetryProviders{}, nothing, fmt.Errorf("telemetry: resource: %w", err)
	}
	mp, err := startMetrics(ctx, s, mode, ep, res)
	if err != nil {
		return telemetryProviders{}, nothing, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	p := telemetryProviders{tracer: tp}
	if mp != nil {
		p.meter = mp
	}
	return p, func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryFlush)
		defer cancel()
		tp.Shutdown(ctx) //nolint:errcheck // spans the collector did not take are lost, as with any exporter
		if mp != nil {
			mp.Shutdown(ctx) //nolint:errcheck // as the spans'
		}
	}, nil
}

// startMetrics returns the meter provider of telemetry.otlp mode and
// endpoint ep: an OTLP metric exporter (/v1/metrics added to a base URL
// over http) under a periodic reader, every OTEL_METRIC_EXPORT_INTERVAL
// milliseconds (60000 by default), each export bounded by
// OTEL_METRIC_EXPORT_TIMEOUT (30000); nil when OTEL_METRICS_EXPORTER is
// none.
func startMetrics(ctx context.Context, s config.Settings, mode, ep string, res *resource.Resource) (*sdkmetric.MeterProvider, error) {
	if strings.EqualFold(strings.TrimSpace(s.Getenv("OTEL_METRICS_EXPORTER")), "none") {
		return nil, nil
	}
	var ropts []sdkmetric.PeriodicReaderOption
	for _, v := range []struct {
		name string
		opt  func(time.Duration) sdkmetric.PeriodicReaderOption
	}{{"OTEL_METRIC_EXPORT_INTERVAL", sdkmetric.WithInterval}, {"OTEL_METRIC_EXPORT_TIMEOUT", sdkmetric.WithTimeout}} {
		raw := strings.TrimSpace(s.Getenv(v.name))
		if raw == "" {
			continue
		}
		ms, err := strconv.Atoi(raw)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("telemetry: %s %q: want a positive number of milliseconds", v.name, raw)
		}
		ropts = append(ropts, v.opt(time.Duration(ms)*time.Millisecond))
	}
	var exp sdkmetric.Exporter
	var err error
	switch mode {
	case "http":
		var opts []otlpmetrichttp.Option
		switch {
		case strings.Contains(ep, "://"):
			opts = append(opts, otlpmetrichttp.WithEndpointURL(strings.TrimSuffix(ep, "/")+"/v1/metrics"))
		case ep != "":
			opts = append(opts, otlpmetrichttp.WithEndpoint(ep), otlpmetrichttp.WithInsecure())
		}
		exp, err = otlpmetrichttp.New(ctx, opts...)
	case "grpc":
		var opts []otlpmetricgrpc.Option
		switch {
		case strings.Contains(ep, "://"):
			opts = append(opts, otlpmetricgrpc.WithEndpointURL(ep))
		case ep != "":
			opts = append(opts, otlpmetricgrpc.WithEndpoint(ep), otlpmetricgrpc.WithInsecure())
		}
		exp, err = otlpmetricgrpc.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: the OTLP %s metric exporter (telemetry.endpoint %q): %w", mode, ep, err)
	}
	return sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, ropts...)), sdkmetric.WithResource(res)), nil
}
