package transport

import "errors"

// IsPermanent reports whether err declares (with a Permanent() bool method,
// as an authorization that cannot be obtained does) that retrying cannot
// cure it. An HTTP transport whose request fails with such an error fails
// the whole connection with it instead of that one request, so that the
// session closes for good with the error rather than backing off and
// failing the same way again.
func IsPermanent(err error) bool {
	var p interface{ Permanent() bool }
	return errors.As(err, &p) && p.Permanent()
}
