package oauth

import "context"

// subjectKey is the context key of the subject a UserAgent signs in.
type subjectKey struct{}

// withSubject returns ctx carrying subject ("" leaves ctx as it is).
func withSubject(ctx context.Context, subject string) context.Context {
	if subject == "" {
		return ctx
	}
	return context.WithValue(ctx, subjectKey{}, subject)
}

// SubjectFromContext returns the subject (Options.Subject) whose sign-in
// a UserAgent is asked to run, from the context the Authorizer passes to
// RedirectURI and Authorize; "" when the Authorizer acts for no subject.
// It travels in the context rather than in the UserAgent's methods so
// that agents written before subjects keep working unchanged.
func SubjectFromContext(ctx context.Context) string {
	s, _ := ctx.Value(subjectKey{}).(string)
	return s
}
