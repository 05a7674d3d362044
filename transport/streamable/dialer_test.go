package streamable

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/transport"
)

func TestStringHidesSecrets(t *testing.T) {
	d := &Dialer{URL: "https://user:hunter22@mcp.example.com:8443/mcp?token=abc123#frag"}
	s := d.String()
	assert.Equal(t, "streamable-http:https://mcp.example.com:8443/mcp?[redacted]#[redacted]", s)
	for _, secret := range []string{"user", "hunter22", "abc123", "frag"} {
		assert.NotContains(t, s, secret)
	}
}

func TestDialRejectsBadURLsWithoutRepeatingThem(t *testing.T) {
	for _, raw := range []string{"ftp://host/x?token=s3cr3t", "/relative?token=s3cr3t", "http://[bad?token=s3cr3t", ""} {
		_, err := (&Dialer{URL: raw}).Dial(context.Background())
		require.Error(t, err, raw)
		assert.NotContains(t, err.Error(), "s3cr3t")
	}
}

func TestDialWithDoneContextFails(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := (&Dialer{URL: "http://127.0.0.1:1/mcp"}).Dial(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestDialSendsNothingAndImplementsTheContracts(t *testing.T) {
	c, err := (&Dialer{URL: "http://127.0.0.1:1/mcp"}).Dial(context.Background())
	require.NoError(t, err)
	defer c.Close(context.Background())
	_, ok := c.(transport.RequestConn)
	assert.True(t, ok)
	assert.Zero(t, c.(*conn).sched.Running())
}
