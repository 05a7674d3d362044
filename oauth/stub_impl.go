package oauth

// Placeholder bodies; the implementation replaces this file.

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"golang.org/x/oauth2"
)

type authorizer struct{}

var errTODO = errors.New("oauth: not implemented")

func newAuthorizer(string, Config, Options) (*authorizer, error)      { return &authorizer{}, nil }
func (a *authorizer) transport(b http.RoundTripper) http.RoundTripper { return b }
func (a *authorizer) token(context.Context) (*oauth2.Token, error)    { return nil, errTODO }
func (a *authorizer) login(context.Context) error                     { return errTODO }
func (a *authorizer) logout(context.Context) error                    { return errTODO }
func (e *UnauthorizedError) message() string                          { return "oauth: unauthorized: " + e.Reason }
func newMemoryStore() TokenStore                                      { return nil }
func newFileStore(string) TokenStore                                  { return nil }
func newLoopbackAgent(int, func(string) error) UserAgent              { return nil }

type redirectAgent struct{}

func newRedirectAgent(*http.Client, string) UserAgent { return nil }

var _ = url.Values{}
