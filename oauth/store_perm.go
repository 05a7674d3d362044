package oauth

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// InsecureTokenStoreError is the refusal of a token directory, or of a
// token file in it, whose permissions let other users in. The rule is
// ssh's: a directory that group or others may write is refused (they
// could replace a record with their own tokens or delete it), and so is
// a token file that group or others may read or write (it holds bearer
// tokens and client secrets). A directory others may only read or list
// (0755) is accepted: its file names are hashes and the files are 0600.
type InsecureTokenStoreError struct {
	Path string      // the directory or file refused
	Mode fs.FileMode // its permission bits
	Dir  bool        // whether Path is the directory
}

func (e *InsecureTokenStoreError) Error() string {
	if e.Dir {
		return fmt.Sprintf("oauth: token store: directory %s has mode %04o: group or others can write it; fix it with: chmod 700 %s",
			e.Path, uint32(e.Mode), e.Path)
	}
	return fmt.Sprintf("oauth: token store: file %s has mode %04o: group or others can read or write it; fix it with: chmod 600 %s",
		e.Path, uint32(e.Mode), e.Path)
}

// Permanent tells retrying callers that waiting cures nothing: the user
// must change the mode.
func (e *InsecureTokenStoreError) Permanent() bool { return true }

// ErrorType names the error in the engine's error taxonomy.
func (e *InsecureTokenStoreError) ErrorType() string { return "insecure_token_store" }

// checkDirMode refuses a token directory that group or others may write.
// An absent directory is fine (Save creates it 0700). Windows has no such
// mode bits, so nothing is checked there.
func checkDirMode(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if perm := st.Mode().Perm(); perm&0o022 != 0 {
		return &InsecureTokenStoreError{Path: dir, Mode: perm, Dir: true}
	}
	return nil
}

// checkFileMode refuses an open token file that group or others may read
// or write.
func checkFileMode(f *os.File) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return &InsecureTokenStoreError{Path: f.Name(), Mode: perm}
	}
	return nil
}

// insecureStore turns a store's refusal of loose permissions into the
// permanent authorization failure callers get (nil for any other error):
// no token is read from, obtained into or used with such a store.
func insecureStore(err error) error {
	var ie *InsecureTokenStoreError
	if !errors.As(err, &ie) {
		return nil
	}
	return unauthorized("the token store is not safe to use", err)
}
