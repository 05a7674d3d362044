package main

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster"
)

// workerHandler is the worker's operator endpoint (--http):
//
//	GET  /healthz                         the members and the sessions each holds
//	GET  /sessions                        the sessions this member holds, and
//	                                      the calls they are running
//	POST /call?server=S&session=N         {"method": "...", "params": {...}}: a call
//	                                      to that session wherever it lives
//
// It has no authentication: it listens on loopback unless told otherwise.
func workerHandler(m *cluster.Member) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, m.Health(r.Context()))
	})
	mux.HandleFunc("GET /sessions", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"member": m.Address(), "sessions": m.LocalSessions(), "calls_in_flight": m.CallsInFlight()})
	})
	mux.HandleFunc("POST /call", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil || req.Method == "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"kind": "bad_request", "message": "want {\"method\": …, \"params\": …}"}})
			return
		}
		q := r.URL.Query()
		res, err := m.Session(q.Get("server"), q.Get("session")).Call(r.Context(), req.Method, req.Params)
		if err != nil {
			writeJSON(w, http.StatusBadGateway, map[string]any{"error": callErrorJSON(err)})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"result": res})
	})
	return mux
}

// callErrorJSON is err as the call endpoint reports it: its class, and
// whether sending the request again is safe.
func callErrorJSON(err error) map[string]any {
	out := map[string]any{"message": err.Error(), "safe_to_retry": mcpengine.SafeToRetry(err)}
	var rpc *mcpengine.RPCError
	var remote *cluster.RemoteError
	switch {
	case errors.As(err, &rpc):
		out["kind"], out["code"] = "rpc", rpc.Code
	case errors.Is(err, mcpengine.ErrConnectionLost):
		out["kind"] = "connection_lost"
	case errors.Is(err, mcpengine.ErrTimeout):
		out["kind"] = "timeout"
	case errors.As(err, &remote):
		out["kind"] = remote.Kind
	default:
		out["kind"] = "error"
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
