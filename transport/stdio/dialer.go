package stdio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpengine/mcpengine/transport"
)

// NewDialer returns a Dialer whose every Dial starts a fresh subprocess as
// described by cfg and returns it as a *Conn. cfg is copied.
func NewDialer(cfg Config) transport.Dialer {
	cfg.Args = append([]string(nil), cfg.Args...)
	env := make(map[string]string, len(cfg.Env))
	for k, v := range cfg.Env {
		env[k] = v
	}
	cfg.Env = env
	return &dialer{cfg: cfg}
}

type dialer struct{ cfg Config }

// String names the command only: arguments and environment may hold secrets.
func (d *dialer) String() string { return "stdio:" + d.cfg.Command }

// StartsProcess reports that each Dial starts a fresh server process: a
// session counts a handshake that timed out as one failed start (a cold
// `npx` may be slow only the first time), where a server reached over the
// network, already running, would time out the same way again.
func (d *dialer) StartsProcess() bool { return true }

// Dial starts the subprocess. ctx is only checked before starting: the
// child's lifetime is never tied to it (exec.Command, not CommandContext).
func (d *dialer) Dial(ctx context.Context) (transport.Conn, error) {
	c, err := Start(ctx, d.cfg)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Start starts one subprocess as described by cfg and returns its
// connection. It is what the Dialer from NewDialer calls; use it directly to
// get the concrete *Conn. It fails when ctx is already done or the command
// cannot be started (not found, not executable, bad Dir); the error names the
// command but not its arguments.
func Start(ctx context.Context, cfg Config) (*Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("stdio: start %q: %w", cfg.Command, err)
	}
	if cfg.Command == "" {
		return nil, errors.New("stdio: start: empty Command")
	}
	env := buildEnv(cfg)
	path, err := resolveCommand(cfg.Command, cfg.Env)
	if err != nil {
		return nil, &StartError{Command: cfg.Command, Err: err}
	}
	cmd := exec.Command(path, cfg.Args...)
	cmd.Args[0] = cfg.Command
	cmd.Env = env
	cmd.Dir = cfg.Dir
	cmd.SysProcAttr = sysProcAttr()
	var marker string
	if cmd.SysProcAttr != nil {
		cmd.Env, marker = applyGuard(cmd.SysProcAttr, cmd.Env)
	}

	p, err := newPipes()
	if err != nil {
		return nil, &StartError{Command: cfg.Command, Err: err}
	}
	// Handing exec *os.File ends connects them to the child directly: exec
	// starts no copying goroutines and Wait closes nothing of ours.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.childIn, p.childOut, p.childErr
	err = cmd.Start()
	p.closeChildEnds()
	if err != nil {
		p.closeParentEnds()
		return nil, &StartError{Command: cfg.Command, Err: err}
	}
	c := newConn(cfg, cmd, p)
	c.marker = marker
	return c, nil
}

// resolveCommand looks a bare command name up in the PATH that cfg.Env sets;
// otherwise it leaves the lookup to exec.Command (engine's PATH).
func resolveCommand(command string, env map[string]string) (string, error) {
	pathList, ok := env["PATH"]
	if !ok || strings.ContainsRune(command, filepath.Separator) {
		return command, nil
	}
	for _, dir := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(dir) {
			continue // like exec.LookPath, never run programs found via a relative PATH entry
		}
		p := filepath.Join(dir, command)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: command, Err: errNotFoundInEnvPath{}}
}

// errNotFoundInEnvPath is exec.ErrNotFound for a lookup in Config.Env's PATH.
type errNotFoundInEnvPath struct{}

func (errNotFoundInEnvPath) Error() string { return "executable file not found in the configured PATH" }
func (errNotFoundInEnvPath) Unwrap() error { return exec.ErrNotFound }

// pipes holds the three stdio pipes; child* ends go to the subprocess.
type pipes struct {
	stdin, childIn   *os.File // engine writes stdin, child reads childIn
	stdout, childOut *os.File
	stderr, childErr *os.File
}

func newPipes() (*pipes, error) {
	p := &pipes{}
	var err error
	if p.childIn, p.stdin, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.stdout, p.childOut, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	if p.stderr, p.childErr, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	return p, nil
}

func (p *pipes) closeChildEnds() {
	closeFiles(p.childIn, p.childOut, p.childErr)
}

func (p *pipes) closeParentEnds() {
	closeFiles(p.stdin, p.stdout, p.stderr)
}

func (p *pipes) closeAll() {
	p.closeChildEnds()
	p.closeParentEnds()
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}
