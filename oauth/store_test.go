package oauth

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

func testRecord(access string) *Record {
	return &Record{Resource: "https://mcp.example.com/mcp", Issuer: "https://auth.example.com", ClientID: "c",
		ClientSecret: "s-secretvalue", Scopes: []string{"a", "b"},
		Token: &oauth2.Token{AccessToken: access, RefreshToken: "rt-secretvalue", TokenType: "Bearer",
			Expiry: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}}
}

func TestStores(t *testing.T) {
	for name, store := range map[string]TokenStore{
		"memory": NewMemoryStore(),
		"file":   NewFileStore(filepath.Join(t.TempDir(), "tokens")),
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			rec, err := store.Load(ctx, "k1")
			require.NoError(t, err)
			assert.Nil(t, rec, "absent: nil, nil")

			in := testRecord("at-1")
			require.NoError(t, store.Save(ctx, "k1", in))
			in.Scopes[0] = "mutated" // the store holds its own copy
			out, err := store.Load(ctx, "k1")
			require.NoError(t, err)
			assert.Equal(t, []string{"a", "b"}, out.Scopes)
			assert.Equal(t, "at-1", out.Token.AccessToken)
			assert.Equal(t, "rt-secretvalue", out.Token.RefreshToken)
			assert.True(t, out.Token.Expiry.Equal(in.Token.Expiry))
			assert.Equal(t, "s-secretvalue", out.ClientSecret)

			other, err := store.Load(ctx, "k2")
			require.NoError(t, err)
			assert.Nil(t, other, "keys are separate")

			require.NoError(t, store.Delete(ctx, "k1"))
			out, err = store.Load(ctx, "k1")
			require.NoError(t, err)
			assert.Nil(t, out)
			require.NoError(t, store.Delete(ctx, "k1"), "deleting an absent key is fine")
		})
	}
}

func TestFileStorePermissionsAndAtomicReplace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "oauth")
	store := NewFileStore(dir)
	ctx := context.Background()
	key := "mcpengine-oauth/v1 https://mcp.example.com/mcp grant:authorization_code dynamic"
	require.NoError(t, store.Save(ctx, key, testRecord("at-1")))

	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "directory 0700")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	name := entries[0].Name()
	assert.NotContains(t, name, "mcp.example.com", "the file name is a hash of the key")
	path := filepath.Join(dir, name)
	st, err = os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "file 0600")

	// An atomic replace (temporary file renamed over the old one) makes
	// a new file; an in-place rewrite would keep the old one, and a crash
	// in the middle would leave half a record.
	before, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, store.Save(ctx, key, testRecord("at-2")))
	after, err := os.Stat(path)
	require.NoError(t, err)
	assert.False(t, os.SameFile(before, after), "the file was replaced, not rewritten")
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left behind")
	st, err = os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	rec, err := store.Load(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, "at-2", rec.Token.AccessToken)

	// A corrupt file is an error that does not quote the content.
	require.NoError(t, os.WriteFile(path, []byte("garbage-secretvalue"), 0o600))
	_, err = store.Load(ctx, key)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "secretvalue")
}
