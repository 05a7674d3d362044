package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The report states the protocol the sessions negotiated, in each era.
func TestLoadReportsTheNegotiatedProtocol(t *testing.T) {
	for _, c := range []struct{ era, version, line string }{
		{"legacy", "2025-11-25", "Protocol:    2025-11-25 (legacy era)"},
		{"modern", "2026-07-28", "Protocol:    2026-07-28 (modern era)"},
	} {
		t.Run(c.era, func(t *testing.T) {
			r := ok(t, "load", "-s", "2", "-c", "1", "-n", "20", "-q", "-O", "json", "--demo-args", "--era "+c.era)
			var rep struct {
				Protocols []struct {
					Version  string `json:"version"`
					Era      string `json:"era"`
					Connects int64  `json:"connects"`
				} `json:"protocols"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
			require.Len(t, rep.Protocols, 1)
			assert.Equal(t, c.version, rep.Protocols[0].Version)
			assert.Equal(t, c.era, rep.Protocols[0].Era)
			assert.EqualValues(t, 2, rep.Protocols[0].Connects)

			text := ok(t, "load", "-s", "1", "-c", "1", "-n", "5", "--demo-args", "--era "+c.era)
			assert.Contains(t, text.stdout, c.line)
		})
	}
}
