package etcd

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An etcd that does not answer is reported as ErrUnreachable, naming the
// endpoints, once the caller's context ends (or the dial timeout passes),
// and the client asked leaves nothing running (goleak).
func TestEtcdThatDoesNotAnswerIsReported(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err = Provider{Endpoints: []string{dead}}.ClusterProvider(ctx)
	require.ErrorIs(t, err, ErrUnreachable)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), dead)
}
