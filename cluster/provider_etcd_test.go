package cluster

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An etcd that does not answer is reported as ErrEtcdUnreachable, naming
// the endpoints, once the caller's context ends (or the dial timeout
// passes), and the client asked leaves nothing running (goleak).
func TestEtcdThatDoesNotAnswerIsReported(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	cfg := &Config{Provider: ProviderConfig{Kind: ProviderEtcd, EtcdEndpoints: []string{dead}}}
	_, err = newEtcdProvider(ctx, cfg)
	require.ErrorIs(t, err, ErrEtcdUnreachable)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), dead)
}
