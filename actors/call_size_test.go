package actors

import (
	"testing"
	"unsafe"
)

// TestCallStaysInThe240ByteSizeClass: every call allocates one Call; a
// field more moves it to the 256-byte class and costs every call 16 bytes
// (BenchmarkCallStdio's B/op). Rare extras belong behind a pointer that
// is already there, or beside a field with padding to spare.
func TestCallStaysInThe240ByteSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(Call{}); size > 240 {
		t.Fatalf("Call is %d bytes, over the 240-byte size class", size)
	}
}

// TestPerSessionStructsStayInTheirSizeClasses: every session allocates one
// Shared and one mailboxScheduler; a field more that crosses a size class
// costs every idle session (BenchmarkIdleSessions' heap-bytes/session).
// Up to 512 bytes an object keeps its pointer bitmap in its span; one
// byte more and it carries an 8-byte malloc header and takes the
// 640-byte class. What every session of an engine has in common belongs
// in SessionConfig.Settings, shared by pointer.
func TestPerSessionStructsStayInTheirSizeClasses(t *testing.T) {
	if size := unsafe.Sizeof(mailboxScheduler{}); size > 32 {
		t.Errorf("mailboxScheduler is %d bytes, over the 32-byte size class", size)
	}
	if size := unsafe.Sizeof(Shared{}); size > 512 {
		t.Errorf("Shared is %d bytes, over the 512-byte size class", size)
	}
}

// TestSessionActorStaysInThe208ByteSizeClass: every session holds one
// sessionActor; at 216 bytes it would take the 224-byte class.
func TestSessionActorStaysInThe208ByteSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(sessionActor{}); size > 208 {
		t.Fatalf("sessionActor is %d bytes, over the 208-byte size class", size)
	}
}
