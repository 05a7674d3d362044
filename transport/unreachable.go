package transport

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"syscall"
)

// Unreachable reports whether err says the engine never reached the server:
// the connection was refused, the host name did not resolve, the dial timed
// out, TLS could not be set up (a certificate the engine does not trust, a
// server that speaks plain HTTP on an https URL), or the error declares it
// itself with an `Unreachable() bool` method (a stdio command that cannot
// be started). Nothing was sent, so nothing ran on the server. An HTTP
// status, an EOF or a reset after connecting are not such failures: the
// server was there.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	if _, local := LocalResources(err); local {
		// The dial failed here, before reaching out: the server may be
		// fine (ErrLocalResources says what happened).
		return false
	}
	var marked interface{ Unreachable() bool }
	if errors.As(err, &marked) {
		return marked.Unreachable()
	}
	var (
		dnsErr    *net.DNSError
		opErr     *net.OpError
		header    tls.RecordHeaderError
		verify    *tls.CertificateVerificationError
		unknownCA x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		alert     tls.AlertError
	)
	switch {
	case errors.As(err, &dnsErr), errors.Is(err, syscall.ECONNREFUSED):
		return true
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return true
	case errors.Is(err, http.ErrSchemeMismatch), errors.As(err, &header), errors.As(err, &verify),
		errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &alert):
		return true
	}
	return false
}
