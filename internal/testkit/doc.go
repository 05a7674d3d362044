// Package testkit is the scaffolding the project's tests share, for
// _test.go files only (deps_test.go keeps it out of the root package's
// build): TestMain with the engine CLI built once per test binary (Main),
// a test-scoped context (Ctx), waiting on a condition the code under test
// has no event for (Eventually) and the restart policy that keeps
// reconnect tests quick (FastBackoff), a server child that prints its
// address (StartAddressChild), and the import chains by which a package
// links what it must not (ForbiddenLinks). It imports nothing of the engine
// but supervisor, so a transport's own tests can use it; the demo server
// as users run it (`engine serve`) needs the root package and is in
// engineserve.
//
// A package keeps its own one-line helpers (engineServe, testCtx, …) as
// thin wrappers or aliases of these, so that its tests read as before.
package testkit
