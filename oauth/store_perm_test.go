package oauth

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFileStoreRefusesADirectoryOthersMayWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix mode bits")
	}
	ctx := context.Background()
	for _, mode := range []os.FileMode{0o777, 0o770, 0o702} {
		dir := filepath.Join(t.TempDir(), "oauth")
		require.NoError(t, os.Mkdir(dir, 0o700))
		require.NoError(t, os.Chmod(dir, mode))
		store := NewFileStore(dir)

		err := store.Save(ctx, "k", testRecord("at-1"))
		var insecure *InsecureTokenStoreError
		require.ErrorAs(t, err, &insecure, "mode %04o", mode)
		assert.True(t, insecure.Dir)
		assert.Equal(t, mode, insecure.Mode)
		assert.Contains(t, err.Error(), "chmod 700 "+dir, "the error says how to fix it")
		entries, rerr := os.ReadDir(dir)
		require.NoError(t, rerr)
		assert.Empty(t, entries, "nothing written to a refused directory")

		_, err = store.Load(ctx, "k")
		require.ErrorAs(t, err, &insecure, "Load refuses it too")
	}
}

func TestFileStoreAcceptsADirectoryOthersMayOnlyRead(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix mode bits")
	}
	// As ssh accepts a 0755 ~/.ssh: the names are hashes, the files 0600.
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "oauth")
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, os.Chmod(dir, 0o755))
	store := NewFileStore(dir)
	require.NoError(t, store.Save(ctx, "k", testRecord("at-1")))
	rec, err := store.Load(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "at-1", rec.Token.AccessToken)
}

func TestFileStoreRefusesATokenFileOthersMayRead(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix mode bits")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "oauth")
	store := NewFileStore(dir)
	require.NoError(t, store.Save(ctx, "k", testRecord("at-1")))
	path := store.(*fileStore).path("k")
	require.NoError(t, os.Chmod(path, 0o644))

	_, err := store.Load(ctx, "k")
	var insecure *InsecureTokenStoreError
	require.ErrorAs(t, err, &insecure)
	assert.False(t, insecure.Dir)
	assert.Contains(t, err.Error(), "chmod 600 "+path)
	var perm interface{ Permanent() bool }
	require.True(t, errors.As(err, &perm))
	assert.True(t, perm.Permanent(), "no retry cures a mode")
}
