package export

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// collector records what OTLP exports reached it, over either transport:
// span and metric names, int sums, the service.name of each batch and the
// authorization header each request carried.
type collector struct {
	mu       sync.Mutex
	spans    []string
	sums     map[string]int64
	services []string
	auth     []string
}

func newCollector() *collector { return &collector{sums: map[string]int64{}} }

func (c *collector) addTraces(req *coltracepb.ExportTraceServiceRequest, auth string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.auth = append(c.auth, auth)
	for _, rs := range req.GetResourceSpans() {
		c.services = append(c.services, serviceName(rs.GetResource().GetAttributes()))
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.spans = append(c.spans, s.GetName())
			}
		}
	}
}

func (c *collector) addMetrics(req *colmetricpb.ExportMetricsServiceRequest, auth string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.auth = append(c.auth, auth)
	for _, rm := range req.GetResourceMetrics() {
		c.services = append(c.services, serviceName(rm.GetResource().GetAttributes()))
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				for _, dp := range m.GetSum().GetDataPoints() {
					c.sums[m.GetName()] += dp.GetAsInt()
				}
			}
		}
	}
}

type snapshot struct {
	spans, services, auth []string
	sums                  map[string]int64
}

func (c *collector) snapshot() snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	sums := make(map[string]int64, len(c.sums))
	for k, v := range c.sums {
		sums[k] = v
	}
	return snapshot{
		spans:    append([]string(nil), c.spans...),
		services: append([]string(nil), c.services...),
		auth:     append([]string(nil), c.auth...),
		sums:     sums,
	}
}

func serviceName(attrs []*commonpb.KeyValue) string {
	for _, kv := range attrs {
		if kv.GetKey() == "service.name" {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

// serveOTLPHTTP is an OTLP/HTTP collector: POST /v1/traces and /v1/metrics
// with protobuf bodies, as the http/protobuf exporters send them.
func serveOTLPHTTP(t *testing.T, c *collector) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, r *http.Request) {
		var req coltracepb.ExportTraceServiceRequest
		if !decodeOTLP(t, w, r, &req) {
			return
		}
		c.addTraces(&req, r.Header.Get("Authorization"))
		writeOTLP(w, &coltracepb.ExportTraceServiceResponse{})
	})
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, r *http.Request) {
		var req colmetricpb.ExportMetricsServiceRequest
		if !decodeOTLP(t, w, r, &req) {
			return
		}
		c.addMetrics(&req, r.Header.Get("Authorization"))
		writeOTLP(w, &colmetricpb.ExportMetricsServiceResponse{})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func decodeOTLP(t *testing.T, w http.ResponseWriter, r *http.Request, m proto.Message) bool {
	if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		t.Errorf("%s: Content-Type %q, want application/x-protobuf", r.URL.Path, ct)
	}
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = proto.Unmarshal(body, m)
	}
	if err != nil {
		t.Errorf("%s: %v", r.URL.Path, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func writeOTLP(w http.ResponseWriter, m proto.Message) {
	b, _ := proto.Marshal(m)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(b)
}

// serveOTLPGRPC is an OTLP/gRPC collector for both signals; it returns the
// address to put in an http:// (plaintext) endpoint URL.
func serveOTLPGRPC(t *testing.T, c *collector) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, grpcTraces{c: c})
	colmetricpb.RegisterMetricsServiceServer(srv, grpcMetrics{c: c})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-done
	})
	return ln.Addr().String()
}

type grpcTraces struct {
	coltracepb.UnimplementedTraceServiceServer
	c *collector
}

func (g grpcTraces) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	g.c.addTraces(req, grpcAuth(ctx))
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

type grpcMetrics struct {
	colmetricpb.UnimplementedMetricsServiceServer
	c *collector
}

func (g grpcMetrics) Export(ctx context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	g.c.addMetrics(req, grpcAuth(ctx))
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

func grpcAuth(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get("authorization"); len(v) > 0 {
		return v[0]
	}
	return ""
}
