package legacysse_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpengine/mcpengine/transport/httpx"
	"github.com/mcpengine/mcpengine/transport/legacysse"
)

// A Dialer for a server that only speaks the 2024-11-05 HTTP+SSE
// transport. Dial fails if the server announces a message endpoint on
// another origin.
func ExampleDialer() {
	d := legacysse.Dialer{URL: "http://127.0.0.1:1/sse", Header: httpx.Bearer("secret")}
	fmt.Println(d)

	_, err := d.Dial(context.Background())
	var refused *legacysse.EndpointOriginError
	fmt.Println(err != nil, errors.As(err, &refused))
	// Output:
	// sse:http://127.0.0.1:1/sse
	// true false
}
