package gateway

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPolicyRulesDenyWinsAndAllowListsClose(t *testing.T) {
	cp, err := compilePolicy(Policy{
		Tools:     Rules{Allow: []string{"read_*", "list_*", "delete_tmp"}, Deny: []string{"*_secret", "delete_*"}},
		Resources: Rules{Allow: []string{"file:///tmp/*", "file:///srv/**"}},
		Prompts:   Rules{Deny: []string{"{admin,root}_*"}},
	})
	require.NoError(t, err)
	cases := []struct {
		kind ruleKind
		name string
		rule string // "" allowed
	}{
		{kindTools, "read_file", ""},
		{kindTools, "list_dir", ""},
		{kindTools, "read_secret", `tools.deny "*_secret"`},
		{kindTools, "delete_tmp", `tools.deny "delete_*"`}, // deny wins over an allow
		{kindTools, "write_file", "tools.allow (no pattern matches)"},
		{kindResources, "file:///tmp/a.txt", ""},
		{kindResources, "file:///tmp/sub/a.txt", "resources.allow (no pattern matches)"}, // * stops at /
		{kindResources, "file:///srv/a/b/c", ""},                                         // ** does not
		{kindResources, "https://example.com/", "resources.allow (no pattern matches)"},
		{kindPrompts, "admin_reset", `prompts.deny "{admin,root}_*"`},
		{kindPrompts, "greet", ""}, // no allow list: everything not denied
		{kindServers, "anything", ""},
	}
	for _, c := range cases {
		assert.Equal(t, c.rule, cp.check(c.kind, c.name), "%s %s", c.kind, c.name)
	}
}

func TestPolicyRejectsBadPatternsAndLimits(t *testing.T) {
	for _, p := range []Policy{
		{Tools: Rules{Deny: []string{"[unclosed"}}},
		{RateLimit: &RateLimit{PerSecond: 0}},
		{MaxToolTime: -time.Second},
	} {
		_, err := compilePolicy(p)
		assert.Error(t, err, "%+v", p)
	}
}

func TestAccessChecksLayersInOrderAndTakesTheTightestLimits(t *testing.T) {
	mk := func(label string, p Policy) *layer {
		cp, err := compilePolicy(p)
		require.NoError(t, err)
		return newLayer(label, cp)
	}
	server := mk(`server "s"`, Policy{Tools: Rules{Deny: []string{"rm"}}, MaxToolTime: 5 * time.Second, MaxResourceBytes: 100})
	client := mk(`client "c"`, Policy{Tools: Rules{Deny: []string{"rm", "mv"}}, MaxToolTime: 2 * time.Second, MaxResourceBytes: 1000})
	a := newAccess(server, client, nil)

	d := a.check(kindTools, "rm")
	require.NotNil(t, d)
	assert.Equal(t, `server "s"`, d.Policy, "the server's policy is checked first")
	assert.Equal(t, `denied by server "s" policy: tool "rm" (rule tools.deny "rm")`, d.Error())
	assert.Equal(t, `client "c"`, a.check(kindTools, "mv").Policy)
	assert.Nil(t, a.check(kindTools, "ls"))

	assert.Equal(t, 2*time.Second, a.maxToolTime)
	assert.Equal(t, `client "c"`, a.toolTimeLabel())
	assert.Nil(t, a.sizeDenial("x", 100))
	d = a.sizeDenial("x", 101)
	require.NotNil(t, d)
	assert.Equal(t, `server "s"`, d.Policy)
	assert.Equal(t, "maxResourceBytes 100", d.Rule)
}

func TestAccessRateLimitSpendsNoTokenOfOneLayerWhenAnotherRefuses(t *testing.T) {
	mk := func(label string, rl *RateLimit) *layer {
		cp, err := compilePolicy(Policy{RateLimit: rl})
		require.NoError(t, err)
		return newLayer(label, cp)
	}
	server := mk("server", &RateLimit{PerSecond: 0.001, Burst: 3})
	client := mk("client", &RateLimit{PerSecond: 0.001, Burst: 1})
	now := time.Now()
	a := newAccess(server, client)
	assert.Equal(t, "", a.limitedBy(now))
	assert.Equal(t, "client", a.limitedBy(now), "the client's bucket is empty")
	// The refused request did not take the server's token: another
	// client of the same server still gets two.
	other := newAccess(server, mk("other", nil))
	assert.Equal(t, "", other.limitedBy(now))
	assert.Equal(t, "", other.limitedBy(now))
	assert.Equal(t, "server", other.limitedBy(now))
}
