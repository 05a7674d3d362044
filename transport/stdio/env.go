package stdio

import (
	"os"
	"slices"
	"strings"
)

// defaultEnvKeys are the variables a child inherits when Config.InheritEnv is
// false: what a program needs to find executables, its home directory, its
// locale and its temporary directory, and nothing that typically carries
// credentials.
var defaultEnvKeys = []string{
	"HOME",
	"LANG",
	"LC_ALL",
	"LC_CTYPE",
	"LOGNAME",
	"PATH",
	"SHELL",
	"TERM",
	"TMPDIR",
	"TZ",
	"USER",
}

// DefaultEnvKeys returns the names of the engine's environment variables
// that a child inherits when Config.InheritEnv is false (a fresh copy, sorted):
// HOME, LANG, LC_ALL, LC_CTYPE, LOGNAME, PATH, SHELL, TERM, TMPDIR, TZ and
// USER. Variables missing from the engine's environment are simply absent.
// Config.Env is added on top and wins.
func DefaultEnvKeys() []string { return slices.Clone(defaultEnvKeys) }

// buildEnv returns the child's environment as KEY=VALUE entries: the base
// (inherited subset or whole environment) without the keys that cfg.Env
// overrides, followed by cfg.Env in sorted key order.
func buildEnv(cfg Config) []string {
	var base []string
	if cfg.InheritEnv {
		base = os.Environ()
	} else {
		base = make([]string, 0, len(defaultEnvKeys)+len(cfg.Env))
		for _, k := range defaultEnvKeys {
			if v, ok := os.LookupEnv(k); ok {
				base = append(base, k+"="+v)
			}
		}
	}
	env := base[:0]
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, overridden := cfg.Env[k]; !overridden {
			env = append(env, kv)
		}
	}
	keys := make([]string, 0, len(cfg.Env))
	for k := range cfg.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env = append(env, k+"="+cfg.Env[k])
	}
	return env
}
