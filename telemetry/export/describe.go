package export

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// The OTEL_EXPORTER_OTLP_* variables carry credentials: header values
// (Authorization, API keys) and sometimes user:password in an endpoint URL.
// Everything here that describes or checks them names variables and header
// keys only, never a value; and the malformed values the exporters would
// log verbatim through otel's error handler are refused here first, with
// messages that do not repeat them.

// checkOTLPEnv rejects endpoint and header variables the exporters could
// not parse. The exporters would skip such a value with a log line quoting
// it; failing the start instead both surfaces the mistake and keeps the
// value out of the log.
func checkOTLPEnv() error {
	for _, sig := range []string{"", "TRACES_", "METRICS_"} {
		name := "OTEL_EXPORTER_OTLP_" + sig + "ENDPOINT"
		if v := strings.TrimSpace(os.Getenv(name)); v != "" {
			// url.Parse's error quotes its input: do not wrap it.
			if _, err := url.Parse(v); err != nil {
				return fmt.Errorf("telemetry: %s is not a valid URL (value not shown)", name)
			}
		}
		name = "OTEL_EXPORTER_OTLP_" + sig + "HEADERS"
		if _, err := headerKeys(os.Getenv(name)); err != nil {
			return fmt.Errorf("telemetry: %s: %w (values not shown)", name, err)
		}
	}
	return nil
}

// headerKeys parses a W3C-baggage-style "k1=v1,k2=v2" header list as the
// exporters do, returning only the keys.
func headerKeys(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var keys []string
	for i, pair := range strings.Split(list, ",") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("entry %d has no '='", i+1)
		}
		k = strings.TrimSpace(k)
		if k == "" {
			return nil, fmt.Errorf("entry %d has an empty key", i+1)
		}
		if _, err := url.PathUnescape(v); err != nil {
			return nil, fmt.Errorf("the value of %s is not valid percent-encoding", k)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// describeOTLP is one line per signal: protocol, endpoint (without
// credentials) and the names of the headers sent.
func describeOTLP(p otlpProtocols) []string {
	return []string{
		describeSignal(sigTraces, p.traces),
		describeSignal(sigMetrics, p.metrics),
	}
}

func describeSignal(sig otlpSignal, proto string) string {
	line := fmt.Sprintf("telemetry: otlp %s via %s to %s", sig.name, proto, otlpEndpoint(sig, proto))
	if keys := otlpHeaderKeys(sig); len(keys) > 0 {
		line += " (headers " + strings.Join(keys, ", ") + "; values not shown)"
	}
	return line
}

// otlpHeaderKeys is the union of the general and per-signal header keys
// (the per-signal value of a key wins in the exporter; only keys show here).
func otlpHeaderKeys(sig otlpSignal) []string {
	general, _ := headerKeys(os.Getenv("OTEL_EXPORTER_OTLP_HEADERS"))
	perSignal, _ := headerKeys(os.Getenv("OTEL_EXPORTER_OTLP_" + sig.env + "_HEADERS"))
	keys := append(general, perSignal...)
	slices.Sort(keys)
	return slices.Compact(keys)
}

// otlpEndpoint mirrors how the exporters resolve their endpoint: the
// per-signal URL as is; else the general URL, plus the signal's path for
// OTLP/HTTP; else localhost on the protocol's default port. TLS follows the
// URL's scheme, overridden by OTEL_EXPORTER_OTLP_[<SIG>_]INSECURE.
func otlpEndpoint(sig otlpSignal, proto string) string {
	u := &url.URL{Scheme: "https", Host: "localhost:4318", Path: sig.path}
	if proto == protoGRPC {
		u = &url.URL{Scheme: "https", Host: "localhost:4317"}
	}
	if raw := strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_" + sig.env + "_ENDPOINT")); raw != "" {
		if u, _ = url.Parse(raw); u == nil {
			return "(invalid URL)"
		}
		if proto == protoHTTP && u.Path == "" {
			u.Path = "/"
		}
	} else if raw := strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")); raw != "" {
		if u, _ = url.Parse(raw); u == nil {
			return "(invalid URL)"
		}
		if proto == protoHTTP {
			u.Path = path.Join(u.Path, sig.path)
		}
	}
	if _, v := otlpEnv(sig, "INSECURE"); v != "" && (u.Scheme == "http" || u.Scheme == "https") {
		u.Scheme = "https"
		if strings.EqualFold(v, "true") {
			u.Scheme = "http"
		}
	}
	return redactURL(u)
}

// redactURL drops the parts of a URL that can hold credentials: user info,
// query and fragment.
func redactURL(u *url.URL) string {
	c := *u
	hidden := c.User != nil || c.RawQuery != "" || c.Fragment != ""
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	if hidden {
		return c.String() + " (credentials/query not shown)"
	}
	return c.String()
}

// describeResource names the service the telemetry is reported as.
func describeResource(res *resource.Resource) string {
	var name, version string
	if v, ok := res.Set().Value(semconv.ServiceNameKey); ok {
		name = v.AsString()
	}
	if v, ok := res.Set().Value(semconv.ServiceVersionKey); ok {
		version = v.AsString()
	}
	return fmt.Sprintf("service.name=%s service.version=%s", name, version)
}
