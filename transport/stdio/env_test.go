//go:build linux

package stdio

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childEnv starts an "env" child with cfg adjusted by adjust and returns
// its environment.
func childEnv(t *testing.T, adjust func(*Config)) map[string][]string {
	t.Helper()
	cfg := childConfig(t, "env", "MCP_TEST_VAR=configured")
	adjust(&cfg)
	c := startChild(t, cfg)
	var entries []string
	require.NoError(t, json.Unmarshal([]byte(readString(t, c)), &entries))
	env := map[string][]string{}
	for _, kv := range entries {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = append(env[k], v)
	}
	return env
}

func TestDefaultEnvIsSafeSubsetPlusConfigured(t *testing.T) {
	secret := fmt.Sprintf("MCP_TEST_SECRET_%d", rand.Uint64())
	t.Setenv(secret, "s3cret")
	require.NotEmpty(t, os.Getenv("PATH"))

	env := childEnv(t, func(*Config) {})
	assert.NotContains(t, env, secret)
	assert.Equal(t, []string{os.Getenv("PATH")}, env["PATH"])
	assert.Equal(t, []string{"configured"}, env["MCP_TEST_VAR"])
	for k := range env {
		// markerEnv: the engine's own mark on its servers (guard.go).
		if k != "MCP_TEST_VAR" && k != childModeEnv && k != "GORACE" && k != markerEnv {
			assert.Contains(t, DefaultEnvKeys(), k, "only the safe subset is inherited")
		}
	}
}

func TestInheritEnvPassesWholeEnvironment(t *testing.T) {
	secret := fmt.Sprintf("MCP_TEST_SECRET_%d", rand.Uint64())
	t.Setenv(secret, "s3cret")
	env := childEnv(t, func(c *Config) { c.InheritEnv = true })
	assert.Equal(t, []string{"s3cret"}, env[secret])
	assert.Equal(t, []string{"configured"}, env["MCP_TEST_VAR"])
}

func TestConfiguredEnvWinsOverInherited(t *testing.T) {
	t.Setenv("HOME", "/parent-home")
	t.Setenv("MCP_TEST_OVERRIDE", "parent")
	for _, inherit := range []bool{false, true} {
		env := childEnv(t, func(c *Config) {
			c.InheritEnv = inherit
			c.Env["HOME"] = "/configured-home"
			c.Env["MCP_TEST_OVERRIDE"] = "configured"
		})
		assert.Equal(t, []string{"/configured-home"}, env["HOME"], "inherit=%v", inherit)
		assert.Equal(t, []string{"configured"}, env["MCP_TEST_OVERRIDE"], "inherit=%v", inherit)
	}
}

func TestDefaultEnvKeysReturnsACopy(t *testing.T) {
	keys := DefaultEnvKeys()
	require.True(t, slices.IsSorted(keys))
	require.Contains(t, keys, "PATH")
	keys[0] = "CHANGED"
	assert.NotContains(t, DefaultEnvKeys(), "CHANGED")
}
