package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/testkit"
)

// Every registry provider the engine knows is in the default build, and
// --provider NAME picks it; automanaged is no registry.
func TestProviderFlagPicksTheRegistry(t *testing.T) {
	for _, p := range registryProviders {
		reg, err := (&clusterFlags{provider: p.name}).registry()
		require.NoError(t, err, p.name)
		assert.Equal(t, p.name, reg.Name())
	}
	reg, err := (&clusterFlags{provider: automanaged}).registry()
	require.NoError(t, err)
	assert.Nil(t, reg)
	assert.Equal(t, "automanaged, consul, etcd or k8s", providerNames())
}

// A provider a build tag left out is a usage error that says so and
// names the tag; an unknown one lists what this build offers.
func TestProviderLeftOutOfTheBuildIsAUsageError(t *testing.T) {
	k8s := builtRegistries["k8s"]
	delete(builtRegistries, "k8s") // as -tags noclusterk8s builds it
	t.Cleanup(func() { builtRegistries["k8s"] = k8s })

	_, err := (&clusterFlags{provider: "k8s"}).registry()
	var u *usageError
	require.True(t, errors.As(err, &u), "%v", err)
	assert.Contains(t, err.Error(), "--provider k8s: this engine was built without it (go build -tags noclusterk8s)")
	assert.Contains(t, err.Error(), "use automanaged, consul or etcd")

	_, err = (&clusterFlags{provider: "zookeeper"}).registry()
	require.True(t, errors.As(err, &u), "%v", err)
	assert.Equal(t, `--provider "zookeeper": use automanaged, consul or etcd`, err.Error())
}

// The build tags leave each provider's client out of the binary, and the
// default build links all three.
func TestProviderBuildTagsLeaveTheirClientsOut(t *testing.T) {
	clients := map[string]string{ // the tag, and the prefix of what it leaves out
		"noclusterconsul": "github.com/hashicorp/consul/",
		"noclusteretcd":   "go.etcd.io/",
		"noclusterk8s":    "k8s.io/",
	}
	// linked says, for each tag, whether a build with tags links the
	// client that tag leaves out.
	linked := func(tags string) map[string]bool {
		got := map[string]bool{}
		for tag := range clients {
			got[tag] = false
		}
		clientOf := func(pkg string) (string, bool) {
			for tag, prefix := range clients {
				if strings.HasPrefix(pkg, prefix) {
					return tag, true
				}
			}
			return "", false
		}
		isClient := func(pkg string) bool { _, ok := clientOf(pkg); return ok }
		for _, c := range testkit.ForbiddenLinks(t, "github.com/mcpengine/mcpengine/cmd/engine", isClient, "-tags", tags) {
			tag, _ := clientOf(c[strings.LastIndex(c, " ")+1:])
			got[tag] = true
		}
		return got
	}
	assert.Equal(t, map[string]bool{"noclusterconsul": true, "noclusteretcd": true, "noclusterk8s": true}, linked(""), "the default build")
	assert.Equal(t, map[string]bool{"noclusterconsul": false, "noclusteretcd": false, "noclusterk8s": false},
		linked("noclusterconsul,noclusteretcd,noclusterk8s"), "all three left out")
	for tag := range clients {
		want := map[string]bool{"noclusterconsul": true, "noclusteretcd": true, "noclusterk8s": true}
		want[tag] = false
		assert.Equal(t, want, linked(tag), "-tags %s", tag)
	}
}
