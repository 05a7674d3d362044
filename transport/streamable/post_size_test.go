package streamable

import (
	"testing"
	"unsafe"
)

// TestPostStaysInThe352ByteSizeClass: every frame written allocates one
// post, live while its call is in flight; past 352 bytes it takes the
// 384-byte class and costs every busy session 32 bytes (the benchmarks'
// active-heap-bytes/session). Rare extras belong behind a pointer, or in
// a slot another field leaves free (see valueSlot).
func TestPostStaysInThe352ByteSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(post{}); size > 352 {
		t.Fatalf("post is %d bytes, over the 352-byte size class", size)
	}
}

// TestConnStaysInThe352ByteSizeClass: every session holds one conn; a
// word more moves it to the 384-byte class and costs every idle session
// 32 bytes (idle-heap-bytes/session).
func TestConnStaysInThe352ByteSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(conn{}); size > 352 {
		t.Fatalf("conn is %d bytes, over the 352-byte size class", size)
	}
}
